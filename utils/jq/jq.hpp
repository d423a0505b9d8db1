// jq: the JSON processor (our own implementation of the jq 1.7.1 language, utils/jq/README.md).
#pragma once

#include "interp/command.hpp"

namespace bashkit::utils {
void register_jq_utils(interp::CommandRegistry& registry);
}
