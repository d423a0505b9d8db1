// Entry points of the search utilities, for register.cpp.
#pragma once

#include <string_view>

#include "utils/search/matcher.hpp"
#include "interp/command.hpp"

namespace bashkit::utils::search {

// grep with the given default syntax (egrep: extended, fgrep: fixed); `warning` is written to stderr
// first (egrep and fgrep are obsolescent in GNU grep 3.8).
int grep_main(interp::CommandContext& ctx, Syntax syntax, std::string_view warning = {});
int rg_main(interp::CommandContext& ctx);

}  // namespace bashkit::utils::search
