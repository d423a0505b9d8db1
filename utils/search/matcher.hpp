// The pattern side of grep and rg: a list of patterns compiled into one RE2 program that finds matching
// lines in a buffer of many lines at once (the fast path for counting and listing) and the matches inside
// one line (for -o).
//
// Dialects
//  - kBasic / kExtended: GNU grep's BRE and ERE (interp/regex.hpp, RegexDialect::kGnu), matched
//    leftmost-longest as POSIX requires. Under LC_ALL=C every byte is one character: the program is
//    compiled as Latin-1, so `.` is one byte and [[:alpha:]] is ASCII.
//  - kFixed: every pattern is a literal string (grep -F, rg -F).
//  - kPerl: grep -P and rg -P/--pcre2, matched by PCRE2 (the engine GNU grep and ripgrep use) line by line:
//    lookaround, back-references, \K, atomic groups, possessive quantifiers all work. Flags as GNU grep 3.8:
//    PCRE2_DOLLAR_ENDONLY, no multi-line mode (under -z a record's inner newlines are ordinary characters),
//    -w is (?<!\w)(?:P)(?!\w), -x is ^(?:P)$; one pattern only for grep. rg -P adds UTF and UCP.
//    Match limit, depth limit and heap limit are set, JIT is used when available with a bounded JIT stack,
//    and every PCRE2 allocation is charged to the session's memory budget: a catastrophic pattern ends
//    with GNU grep's message ("exceeded PCRE's backtracking limit") and status 2, never a hang.
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

namespace bashkit::interp {
class CancelToken;
class MemoryBudget;
}  // namespace bashkit::interp

namespace bashkit::utils::search {

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
    // kPerl: PCRE2's allocations are charged here, and the cancel token is polled between lines.
    interp::MemoryBudget* memory = nullptr;
    const interp::CancelToken* cancel = nullptr;
};

struct Pcre;  // the PCRE2 program of kPerl (matcher.cpp)

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
    bool empty() const { return !re_ && !pcre_; }
    // A match that could not be decided (PCRE2's backtracking, depth or heap limit, JIT stack, memory),
    // or the cancel token fired: every later call finds nothing. The message is GNU grep's, without the
    // "grep: FILE: " prefix; empty when only cancelled.
    bool failed() const { return failed_; }
    const std::string& failure() const { return failure_; }
    // The same failure in PCRE2's own words ("match limit exceeded"), which ripgrep prints.
    std::string pcre_failure() const;
    // Clears a failure so that the next input is searched (rg goes on with the next file).
    void clear_failure() const {
        failed_ = false;
        failure_.clear();
        failure_code_ = 0;
    }

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
    std::unique_ptr<Pcre> pcre_;
    // kPerl: one line at a time; `failed_` and the message set by a match that errs.
    bool pcre_match(std::string_view line, size_t from, size_t* begin, size_t* end) const;
    mutable bool failed_ = false;
    mutable std::string failure_;
    mutable int failure_code_ = 0;
    const interp::CancelToken* cancel_ = nullptr;
};

}  // namespace bashkit::utils::search
