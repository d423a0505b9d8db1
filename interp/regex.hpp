// POSIX regular expressions (ERE for [[ =~ ]], grep -E, awk; BRE for grep, sed) on top of RE2.
//
// The POSIX syntax is translated to RE2 syntax with GNU semantics where RE2 differs: BRE \( \) \{ \} and
// the GNU extensions \| \+ \?; `*` literal at the start of a BRE; `{` literal in a GNU ERE when it does not
// start a valid interval; bracket expressions with `]` first, [:classes:], [.x.] and [=x=] of one
// character and a backslash that is literal; GNU escapes \w \W \s \S \b \B \< \> \` \'. Matching is
// leftmost-longest (RE2's longest_match), as POSIX requires. Errors carry glibc/GNU wording.
//
// Known differences from glibc:
//  - Back-references (\1..\9) are not supported: RE2 has none. A pattern that uses one fails with
//    RegexError::kBackrefUnsupported and the message "back-references are not supported", so the caller
//    can print an error; a reference to a group that does not exist is glibc's "Invalid back reference".
//  - \< and \> are both translated to \b (a word boundary without direction).
//  - Intervals above RE2's limit of 1000 repetitions fail with "Regular expression too big" (glibc
//    accepts up to 32767).
//  - Submatch positions come from RE2's leftmost-longest mode; they agree with glibc on every case in the
//    tests (including ambiguous ones like (a|ab)(c|bcd)), but that is not guaranteed for all patterns.
//  - Character classes are RE2's (ASCII) plus \p{L}/\p{Lu}/\p{Ll} for alpha/alnum/upper/lower, so
//    [[:alpha:]] matches é as in a UTF-8 locale; other classes are ASCII only.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace re2 {
class RE2;
}

namespace bashkit::interp {

enum class RegexDialect {
    // glibc regcomp() as bash's [[ =~ ]] and GNU sed use it (RE_SYNTAX_POSIX_EXTENDED / _BASIC): in an ERE a
    // repetition operator with nothing before it and a `{` that does not start a valid interval are
    // errors; in a BRE a leading \{ and a `*` or \{ right after another repetition are errors.
    kPosix,
    // GNU grep (RE_SYNTAX_GREP / _EGREP): a leading repetition operator is dropped (ERE) or literal (BRE,
    // \{ included), an invalid interval in an ERE is literal text, and repetitions may be stacked.
    kGnu,
};

struct RegexOptions {
    bool icase = false;
    RegexDialect dialect = RegexDialect::kPosix;
    // Without REG_NEWLINE, POSIX `.` and `[^a]` match a newline and ^ $ only match at the ends of the
    // text. With it (newline_sensitive), `.` and `[^a]` never match a newline and ^ $ match at lines.
    bool newline_sensitive = false;
    // One byte is one character (the C locale, as sed and grep see text under LC_ALL=C): the pattern and
    // the text are matched as Latin-1, so `.` matches one byte of a UTF-8 sequence and classes are ASCII.
    bool bytes = false;
};

enum class RegexError {
    kNone,
    kSyntax,              // a malformed expression; `message` has GNU's wording
    kBackrefUnsupported,  // a valid back-reference, which RE2 cannot match
    kTooBig,              // past RE2's or our limits
};

struct RegexTranslation {
    RegexError error = RegexError::kNone;
    std::string message;   // GNU wording, e.g. "Unmatched ( or \\(" ; empty on success
    std::string re2;       // the RE2 pattern (valid only when ok())
    int groups = 0;        // capturing groups
    bool latin1 = false;   // the pattern has bytes that are not UTF-8: compile it as Latin-1 bytes
    bool ok() const { return error == RegexError::kNone; }
};

RegexTranslation translate_ere(std::string_view pattern, const RegexOptions& options = {});
RegexTranslation translate_bre(std::string_view pattern, const RegexOptions& options = {});

// A group's byte span in the text; {-1, -1} when the group did not take part in the match.
struct RegexSpan {
    long begin = -1;
    long end = -1;
    bool matched() const { return begin >= 0; }
    friend bool operator==(const RegexSpan&, const RegexSpan&) = default;
};

enum class RegexSyntax { kExtended, kBasic };

// A compiled regular expression. Immutable after compile(); RE2 is thread-safe, so it may be shared.
class Regex {
public:
    static Regex compile(std::string_view pattern, RegexSyntax syntax, const RegexOptions& options = {});

    Regex(Regex&&) noexcept;
    Regex& operator=(Regex&&) noexcept;
    ~Regex();

    bool ok() const { return error_ == RegexError::kNone; }
    RegexError error() const { return error_; }
    const std::string& message() const { return message_; }
    int groups() const { return groups_; }

    // The whole text matches.
    bool match(std::string_view text) const;
    // Some substring matches.
    bool search(std::string_view text) const;
    // The leftmost-longest match at or after byte `from`: spans[0] is the whole match, spans[k] group k
    // (spans has groups()+1 entries). Offsets are relative to the start of `text` (not to `from`), so `^`
    // still means the start of text and \b sees the byte before `from` (what sed's s///g needs).
    bool search(std::string_view text, std::vector<RegexSpan>& spans, size_t from = 0) const;

private:
    Regex() = default;
    std::unique_ptr<re2::RE2> re_;
    // A case-sensitive pattern without any special character (sed 's/a/b/g', awk gsub("x", ...)): matched
    // with a plain substring search, which finds the same leftmost match without RE2's per-call cost.
    std::string literal_;
    bool is_literal_ = false;
    RegexError error_ = RegexError::kNone;
    std::string message_;
    int groups_ = 0;
};

}  // namespace bashkit::interp
