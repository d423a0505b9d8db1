// awk and gawk: a POSIX awk with the gawk extensions agents use, run in-process (parser.hpp, runtime.hpp).
#pragma once

#include "interp/command.hpp"

namespace bashkit::utils {
void register_awk_utils(interp::CommandRegistry& registry);
namespace awk {
int awk_main(interp::CommandContext& ctx);
}
}  // namespace bashkit::utils
