#include "builtins/data/data.hpp"

namespace bashkit::builtins {

void register_data_utils(interp::CommandRegistry& registry) {
    (void)registry;
}

}  // namespace bashkit::builtins
