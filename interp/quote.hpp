// bash's quoting and backslash-escape helpers: printf %q / %Q, ${x@Q}, declare -p and set output, $'...'
// decoding, echo -e / xpg_echo escapes and the escapes of printf's format and %b. Pure functions of their
// input: no I/O, no locale state. Character classes follow bash 5.2 in the C.UTF-8 locale (the shell's
// locale) unless `utf8` is false, which means the C locale (every byte >= 0x80 is a non-printable byte).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace bashkit::interp {

// ---- characters ----

// One UTF-8 character at s[i]: its code point and byte length, or length 0 when the bytes there are not a
// valid character (truncated, overlong, surrogate, above U+10FFFF), as glibc's mbrtowc decides.
struct Utf8Char {
    uint32_t cp = 0;
    size_t len = 0;
};
Utf8Char decode_utf8(std::string_view s, size_t i);

// Appends bash's encoding of code point cp (u32cconv): UTF-8, extended to 5 and 6 byte forms up to
// 0x7FFFFFFF like bash does, nothing for larger values. With utf8 false (C locale) code points above 0x7F
// become the text \uXXXX or \UXXXXXXXX, as bash prints them when iconv cannot convert.
void append_code_point(std::string& out, uint32_t cp, bool utf8 = true);

// iswprint() of glibc 2.36's C.UTF-8 locale (Unicode 14), for code points >= 0x80.
bool is_printable_code_point(uint32_t cp);

// ---- quoting (each result, evaluated by bash as a word, gives back s) ----

// bash's ansic_shouldquote: true when s holds a byte or character that is not printable.
bool needs_ansi_c_quoting(std::string_view s, bool utf8 = true);
// $'...' with \n \t \E ... and \ooo for other non-printable bytes (ansic_quote). "" for an empty s.
std::string ansi_c_quote(std::string_view s, bool utf8 = true);
// '...' with ' written as '\'' ; a lone ' becomes \' (sh_single_quote).
std::string single_quote(std::string_view s);
// "..." with \ before " $ ` \ (sh_double_quote).
std::string double_quote(std::string_view s);
// Backslashes before shell-special characters, a leading # and tildes that would expand
// (sh_backslash_quote with flags 3). Non-ASCII characters are copied as they are.
std::string backslash_quote(std::string_view s, bool utf8 = true);
// True when s holds a character that the shell would treat specially unquoted (sh_contains_shell_metas).
bool contains_shell_metas(std::string_view s);

enum class QuoteStyle {
    Backslash,  // printf %q and %Q: '' for empty, $'...' when needed, backslashes otherwise
    Single,     // ${x@Q}: '' for empty, $'...' when needed, '...' otherwise
};
std::string quote_for_reuse(std::string_view s, QuoteStyle style = QuoteStyle::Backslash, bool utf8 = true);

// A scalar value (or array element) as `declare -p` prints it after `name=`: $'...' when needed,
// otherwise "..." (also for the empty string: "").
std::string quote_declare_value(std::string_view s, bool utf8 = true);
// A value as `set` (without options) prints it: $'...' when needed, '...' when it holds shell
// metacharacters, otherwise as it is.
std::string quote_set_value(std::string_view s, bool utf8 = true);

// ---- backslash escapes ----

enum class EscapeMode {
    DollarQuote,   // $'...': \cX control chars, \x{HHH}, \nnn octal; a NUL ends the string (bash truncates)
    Echo,          // echo -e / xpg_echo: \0nnn octal (not \nnn), \c stops all output, \' \" \? keep the backslash
    PrintfFormat,  // printf's format string: \nnn, \' \" \? lose the backslash, \c is not special
    PrintfArg,     // printf %b: \0nnn and \nnn, \c stops all output, \' \" \? keep the backslash
};

struct DecodeResult {
    std::string bytes;
    bool saw_c = false;                    // \c was seen (Echo, PrintfArg): print bytes, then nothing more
    std::vector<std::string> diagnostics;  // printf modes: "missing hex digit for \x" and the like
};

// Decodes every escape of s.
DecodeResult ansi_c_decode(std::string_view s, EscapeMode mode, bool utf8 = true);

// Decodes the one escape whose backslash is at s[i] (s[i] == '\\'), appends its bytes to out and returns the
// index just after it. An escape bash does not know appends the backslash alone and returns i + 1, so the
// next character is read as ordinary text. Sets *saw_c on \c in Echo and PrintfArg modes. Messages go to
// diagnostics when it is not null.
size_t decode_escape(std::string_view s, size_t i, EscapeMode mode, std::string& out, bool* saw_c,
                     std::vector<std::string>* diagnostics, bool utf8 = true);

}  // namespace bashkit::interp
