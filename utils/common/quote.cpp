#include "utils/common/quote.hpp"

#include <cstdio>
#include <cstring>

namespace bashkit::utils {

namespace {

bool shell_safe(unsigned char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           std::strchr("_./-+,:%@=^", c) != nullptr;
}

std::string shell_quote(std::string_view s, bool always) {
    bool plain = !s.empty();
    for (unsigned char c : s)
        if (!shell_safe(c)) plain = false;
    if (plain && !always) return std::string(s);
    std::string out = "'";
    bool in_quote = true;
    auto close = [&] {
        if (in_quote) out += '\'';
        in_quote = false;
    };
    auto reopen = [&] {
        if (!in_quote) out += '\'';
        in_quote = true;
    };
    for (unsigned char c : s) {
        if (c == '\'') {
            close();
            out += "\\'";
        } else if (c < 0x20 || c == 0x7f) {
            close();
            out += "$'";
            switch (c) {
                case '\n': out += "\\n"; break;
                case '\t': out += "\\t"; break;
                case '\r': out += "\\r"; break;
                case '\a': out += "\\a"; break;
                case '\b': out += "\\b"; break;
                case '\f': out += "\\f"; break;
                case '\v': out += "\\v"; break;
                default: {
                    char b[8];
                    std::snprintf(b, sizeof b, "\\%03o", c);
                    out += b;
                }
            }
            out += '\'';
        } else {
            reopen();
            out += static_cast<char>(c);
        }
    }
    if (in_quote) out += '\'';
    else if (out.size() >= 2 && out.compare(0, 2, "''") == 0) out.erase(0, 2);
    return out;
}

}  // namespace

std::string quote(std::string_view s) { return shell_quote(s, true); }
std::string quote_name(std::string_view s) { return shell_quote(s, false); }

}  // namespace bashkit::utils
