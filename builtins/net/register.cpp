#include "builtins/net/net.hpp"

namespace bashkit::builtins {
void register_net_utils(interp::CommandRegistry&) {}
}  // namespace bashkit::builtins
