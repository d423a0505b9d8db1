#include "builtins/files/files.hpp"

namespace bashkit::builtins {
void register_file_utils(interp::CommandRegistry&) {}
}  // namespace bashkit::builtins
