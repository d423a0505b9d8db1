#include "builtins/search/search.hpp"

namespace bashkit::builtins {
void register_search_utils(interp::CommandRegistry&) {}
}  // namespace bashkit::builtins
