// System utilities: date sleep timeout env printenv xargs which whoami id hostname uname nproc true false
// nohup tty logname groups arch. Identity values come from the session's virtual Identity, the clock from
// the CommandContext, never from the host.
#pragma once

#include "interp/command.hpp"

namespace bashkit::utils {
void register_system_utils(interp::CommandRegistry& registry);
}
