// The entry points of the network utilities (registered by register.cpp).
#pragma once

#include "interp/command.hpp"

namespace bashkit::utils {
int curl_main(interp::CommandContext& ctx);
int wget_main(interp::CommandContext& ctx);
}  // namespace bashkit::utils
