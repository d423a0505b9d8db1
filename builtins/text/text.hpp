// Text utilities: cat head tail wc sort uniq cut tr paste ... (search is in builtins/search/).
#pragma once

#include "interp/command.hpp"

namespace bashkit::builtins {
void register_text_utils(interp::CommandRegistry& registry);
}
