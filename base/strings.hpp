// Small string helpers every layer may use.
#pragma once

#include <cstddef>
#include <cstdint>
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

// The hash of the tables keyed by short names (variables, functions, commands), usable with string_view
// look-ups: FNV-1a, a few instructions a byte where std::hash's murmur costs some 70 for a name of a few
// bytes. Like std::hash it is not seeded; a table of names a script chooses is bounded by its memory budget.
struct NameHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const {
        uint64_t h = 14695981039346656037ull;
        for (unsigned char c : s) {
            h ^= c;
            h *= 1099511628211ull;
        }
        return static_cast<size_t>(h ^ (h >> 29));
    }
};

}  // namespace bashkit::base
