// Search utilities: grep egrep fgrep rg.
#pragma once

#include "interp/command.hpp"

namespace bashkit::utils {
void register_search_utils(interp::CommandRegistry& registry);
}
