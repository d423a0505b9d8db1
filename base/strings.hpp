// Small string helpers every layer may use.
#pragma once

#include <string>
#include <string_view>

namespace bashkit::base {

// s without leading blanks (space, tab) and trailing white space (space, tab, CR, LF): a header value, a
// line of a config file.
inline std::string_view trim_view(std::string_view s) {
    size_t b = 0, e = s.size();
    while (b < e && (s[b] == ' ' || s[b] == '\t')) ++b;
    while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r' || s[e - 1] == '\n')) --e;
    return s.substr(b, e - b);
}
inline std::string trim(std::string_view s) { return std::string(trim_view(s)); }

}  // namespace bashkit::base
