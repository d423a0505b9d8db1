// The diff family's utilities, one function each (registered in register.cpp).
#pragma once

#include "utils/common/args.hpp"
#include "utils/text/util.hpp"

namespace bashkit::utils::diffutil {

using interp::CommandContext;

int cmd_diff(CommandContext& ctx);
int cmd_cmp(CommandContext& ctx);
int cmd_patch(CommandContext& ctx);
int cmd_sdiff(CommandContext& ctx);
int cmd_diff3(CommandContext& ctx);

}  // namespace bashkit::utils::diffutil
