// Bash's lexical rules of arithmetic, shared by the parser (arith_parser.cpp) and the evaluator
// (interp/arith.cpp): the characters of names and constants, blanks, and the conversion of integer constants.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace bashkit::syntax::arith_lex {

inline bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline bool is_ident_start(char c) { return is_alpha(c) || c == '_'; }
inline bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }
// Characters of an integer constant token.
inline bool is_number_char(char c) { return is_ident_char(c) || c == '#' || c == '@'; }
// Blanks between tokens (bash skips newlines too, but not \r \v \f).
inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n'; }
inline bool is_blank(char c) { return c == ' ' || c == '\t'; }

inline int digit_value(char c, int64_t base) {
    if (is_digit(c)) return c - '0';
    if (c >= 'a' && c <= 'z') return c - 'a' + 10;
    if (c >= 'A' && c <= 'Z') return c - 'A' + (base <= 36 ? 10 : 36);
    if (c == '@') return 62;
    if (c == '_') return 63;
    return -1;
}

// Converts an integer constant (42, 0x2a, 052, 16#2a, 64#@_) with wrap-around on overflow; returns bash's
// message on error ("value too great for base", "invalid number", "invalid arithmetic base", "invalid integer
// constant"), nullptr on success.
inline const char* convert_number(std::string_view t, int64_t& out) {
    size_t i = 0;
    int64_t base = 10;
    bool found_base = false;
    out = 0;
    if (i < t.size() && t[i] == '0') {
        ++i;
        if (i == t.size()) return nullptr;
        if (t[i] == 'x' || t[i] == 'X') {
            base = 16;
            ++i;
        } else {
            base = 8;
        }
        found_base = true;
    }
    uint64_t val = 0;
    for (; i < t.size(); ++i) {
        char c = t[i];
        if (c == '#') {
            if (found_base) return "invalid number";
            auto b = static_cast<int64_t>(val);
            if (b < 2 || b > 64) return "invalid arithmetic base";
            base = b;
            val = 0;
            found_base = true;
            if (i + 1 >= t.size() || !(is_ident_char(t[i + 1]) || t[i + 1] == '@')) return "invalid integer constant";
            continue;
        }
        int d = digit_value(c, base);
        if (d < 0) break;
        if (d >= base) return "value too great for base";
        val = val * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
    }
    out = static_cast<int64_t>(val);
    return nullptr;
}

inline std::string_view strip_blanks(std::string_view s) {
    while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
    return s;
}

// Bytes after a NUL are invisible to bash, whose strings are C strings.
inline std::string_view until_nul(std::string_view s) {
    size_t z = s.find('\0');
    return z == std::string_view::npos ? s : s.substr(0, z);
}

// bash: "<expression>: <message> (error token is \"<token>\")", leading blanks of the expression dropped.
inline std::string error_message(std::string_view expr, std::string_view msg, std::string_view token) {
    std::string m(strip_blanks(expr));
    m += ": ";
    m += msg;
    m += " (error token is \"";
    m += token;
    m += "\")";
    return m;
}

inline constexpr size_t kNoBracket = static_cast<size_t>(-1);

// The end of a subscript that starts at s[open] == '[': the index of the matching ']', or kNoBracket.
inline size_t match_bracket(std::string_view s, size_t open) {
    int depth = 0;
    for (size_t i = open; i < s.size(); ++i) {
        if (s[i] == '[') {
            ++depth;
        } else if (s[i] == ']') {
            if (--depth == 0) return i;
        }
    }
    return kNoBracket;
}

}  // namespace bashkit::syntax::arith_lex
