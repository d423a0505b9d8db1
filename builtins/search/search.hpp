// Search utilities: grep egrep fgrep rg.
#pragma once

#include "interp/command.hpp"

namespace bashkit::builtins {
void register_search_utils(interp::CommandRegistry& registry);
}
