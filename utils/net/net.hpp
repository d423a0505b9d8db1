// Network utilities: curl and wget, over the sandbox's HTTP client (CommandContext::http).
#pragma once

#include "interp/command.hpp"

namespace bashkit::utils {
void register_net_utils(interp::CommandRegistry& registry);
}
