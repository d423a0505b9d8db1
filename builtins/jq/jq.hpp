// jq: the JSON processor, run through libjq (jq 1.6 as Debian ships it).
#pragma once

#include "interp/command.hpp"

namespace bashkit::builtins {
void register_jq_utils(interp::CommandRegistry& registry);
}
