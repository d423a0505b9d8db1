// Quoting names in messages the way coreutils does in the C locale.
#pragma once

#include <string>
#include <string_view>

namespace bashkit::utils {

// 'name' quoted the way coreutils' quote() does it in the C locale (shell-escaped when needed).
std::string quote(std::string_view s);
// GNU quotearg with shell-escape style for file names in "X: NAME: error" messages (no quotes when plain).
std::string quote_name(std::string_view s);

}  // namespace bashkit::utils
