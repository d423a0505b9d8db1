#include "builtins/text/text.hpp"

namespace bashkit::builtins {
void register_text_utils(interp::CommandRegistry&) {}
}  // namespace bashkit::builtins
