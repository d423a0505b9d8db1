// Text utilities: cat head tail wc sort uniq cut tr paste ... (search is in utils/search/).
#pragma once

#include "interp/command.hpp"

namespace bashkit::utils {
void register_text_utils(interp::CommandRegistry& registry);
}
