// The pattern side of grep and rg: a list of patterns compiled into one RE2 program that finds matching
// lines in a buffer of many lines at once (the fast path for counting and listing) and the matches inside
// one line (for -o).
//
// Dialects
//  - kBasic / kExtended: GNU grep's BRE and ERE (interp/regex.hpp, RegexDialect::kGnu), matched
//    leftmost-longest as POSIX requires. Under LC_ALL=C every byte is one character: the program is
//    compiled as Latin-1, so `.` is one byte and [[:alpha:]] is ASCII.
//  - kFixed: every pattern is a literal string (grep -F, rg -F).
//  - kPerl: grep -P, taken as RE2 syntax (leftmost-first like PCRE). Features RE2 lacks (back-references,
//    lookaround, atomic groups, possessive quantifiers, \K, recursion, conditionals) are refused with a
//    message naming the feature.
//  - kRust: rg's regex syntax, which RE2's is close to; matched as UTF-8 (rg is Unicode-aware).
//
// Several patterns are one alternation: a line matches when any pattern does, and -o reports the
// leftmost-longest (POSIX) or leftmost-first (Perl, Rust) match among all of them. -w wraps the
// alternation so the match must have a non-word character (or the line edge) on both sides, -x anchors it
// to the whole line.
//
// Known differences from GNU grep under LC_ALL=C:
//  - Back-references are refused (RE2 has none); see interp/regex.hpp.
//  - -i folds Latin-1 letters too (RE2's Latin-1 case folding): `grep -i 'é'` may match other bytes that
//    differ from it in bit 0x20 above 0xC0.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace re2 {
class RE2;
}

namespace bashkit::builtins::search {

enum class Syntax { kBasic, kExtended, kFixed, kPerl, kRust };

struct MatcherOptions {
    Syntax syntax = Syntax::kBasic;
    bool icase = false;
    bool word = false;   // -w
    bool line = false;   // -x
    // The byte that ends a line: '\n', or '\0' for -z (then ^ and $ only match at the ends of a record
    // and `.` matches a newline, as GNU grep -z does).
    char eol = '\n';
    // rg: UTF-8 and leftmost-first whatever the syntax (-F included).
    bool utf8 = false;
};

class Matcher {
public:
    // Compiles; on failure returns null and sets `error` to the message (without the "grep: " prefix).
    static std::unique_ptr<Matcher> compile(const std::vector<std::string>& patterns, const MatcherOptions& opt,
                                            std::string& error);
    ~Matcher();

    // buf holds complete lines, each ended by eol. Finds the first matching line that starts at or after
    // `from` (a line start): returns true with [line_begin, line_end) (line_end at its eol byte).
    bool find_line(std::string_view buf, size_t from, size_t& line_begin, size_t& line_end) const;
    // Whether one line (without its eol) matches.
    bool line_matches(std::string_view line) const;
    // For -o: the next non-overlapping match in `line` at or after `from`. Returns false when none.
    // Empty matches are returned too (the caller skips them).
    bool next_match(std::string_view line, size_t from, size_t& begin, size_t& end) const;
    // When true the program never matches across an eol and find_line may search whole buffers.
    bool buffer_search() const { return buffer_search_; }
    // No pattern at all (an empty -f file): nothing matches.
    bool empty() const { return !re_; }

private:
    Matcher() = default;
    std::unique_ptr<re2::RE2> re_;
    // -w: the alternation with only its right boundary, for -o (the left one is checked by hand, so the
    // leftmost word is found even when consuming the character before it would give a longer match).
    std::unique_ptr<re2::RE2> re_word_;
    bool word_ = false;
    bool utf8_ = false;
    bool buffer_search_ = true;
    char eol_ = '\n';
};

}  // namespace bashkit::builtins::search
