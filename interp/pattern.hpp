// Bash glob patterns: `case`, `[[ x == pat ]]`, ${x#pat} ${x%pat} ${x/pat/rep}, and pathname expansion.
//
// Representation. A pattern is a byte string in bash's own internal form: a character that was quoted in
// the source is preceded by a backslash, so `\*` matches a literal star and `\\` a literal backslash. The
// interpreter builds it from a word by keeping unquoted characters as they are and passing quoted ones
// through quote_pattern() (a backslash before every byte is also fine). A trailing lone backslash matches
// itself. Inside a bracket expression an escaped character is literal (`[\a\-\z]` is three characters,
// not a range), which is what `["a-z"]` means in bash.
//
// Characters. Text and pattern are bytes, but a valid UTF-8 sequence counts as one character, as in bash
// under a UTF-8 locale: `?` consumes a whole `é`, and every position a helper returns is a byte offset on
// a character boundary. A byte that is not part of a valid sequence is a character of its own. Character
// classes and case folding are ASCII exact, with a fixed approximation above it (Latin-1, Greek and
// Cyrillic case pairs; letters above U+00A0 are [:alpha:]); no locale is consulted. PatternOptions::bytes
// gives bash's C locale instead (the interpreter sets it from LC_ALL, LC_CTYPE and LANG).
//
// Matching compiles the pattern once to a small automaton and simulates it over positions (a Thompson
// NFA; `!(...)` is evaluated by a sub-simulation per start position), so no input is exponential:
// whole-string and prefix/suffix matching are O(text * pattern); the substitution search adds a
// reverse pass; only `!(...)` costs O(text^2 * pattern) in the worst case.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bashkit::interp {

class CancelToken;

struct PatternOptions {
    bool nocase = false;    // shopt nocasematch / nocaseglob
    bool extglob = false;   // ?(..) *(..) +(..) @(..) !(..)
    // Pathname mode (globbing, fnmatch FNM_PATHNAME|FNM_PERIOD): `/` is matched only by a literal `/`,
    // and a `.` at the start of the text or after a `/` only by a literal `.` unless dotglob is set.
    bool pathname = false;
    bool dotglob = false;   // only meaningful with pathname
    // The C locale (bash under LC_ALL=C): every byte is a character, and one above ASCII is in no class and
    // has no case. Otherwise a valid UTF-8 sequence is one character.
    bool bytes = false;
};

// Counts the work done by a matcher, for tests that prove a hostile pattern stays polynomial.
struct PatternStats {
    uint64_t steps = 0;  // automaton states visited, summed over positions and sub-simulations
    // When set, a long match stops early once the token is cancelled; its result is then meaningless and the
    // caller, which checks the token afterwards, must drop it.
    const CancelToken* cancel = nullptr;
};

// A half-open byte range [begin, end) of the text.
struct MatchSpan {
    size_t begin = 0;
    size_t end = 0;
    friend bool operator==(const MatchSpan&, const MatchSpan&) = default;
};

class CompiledPattern;

// A pattern compiled once and matched many times. Immutable after compile(); safe to share between threads.
class Pattern {
public:
    // Never fails: whatever does not form a valid construct (an unclosed `[`, an unclosed `@(`) is literal,
    // as in bash. Nesting of extglob groups deeper than kMaxDepth is taken literally as well.
    static Pattern compile(std::string_view pattern, PatternOptions options = {});

    Pattern(Pattern&&) noexcept;
    Pattern& operator=(Pattern&&) noexcept;
    ~Pattern();

    // The whole text matches.
    bool match(std::string_view text, PatternStats* stats = nullptr) const;

    // ${x#p}: end of the shortest matching prefix; ${x##p}: of the longest. nullopt when none matches.
    std::optional<size_t> shortest_prefix(std::string_view text, PatternStats* stats = nullptr) const;
    std::optional<size_t> longest_prefix(std::string_view text, PatternStats* stats = nullptr) const;
    // ${x%p}: start of the shortest matching suffix; ${x%%p}: of the longest. nullopt when none matches.
    std::optional<size_t> shortest_suffix(std::string_view text, PatternStats* stats = nullptr) const;
    std::optional<size_t> longest_suffix(std::string_view text, PatternStats* stats = nullptr) const;

    // ${x/p/r}: the leftmost match, longest at that start (it may be empty).
    std::optional<MatchSpan> find_first(std::string_view text, PatternStats* stats = nullptr) const;
    // ${x//p/r}: every match, left to right, as bash replaces them: after a match the search goes on at its
    // end; after an empty match one character is skipped; no empty match is reported at the very end of a
    // non-empty text (bash's `x=ab; ${x//*(z)/-}` gives `-a-b`).
    std::vector<MatchSpan> find_all(std::string_view text, PatternStats* stats = nullptr) const;

    // True when the pattern has a construct that is not a literal (an unquoted * ? or a complete [..] or
    // extglob group): what decides whether a word undergoes pathname expansion.
    bool is_glob() const;

    static constexpr int kMaxDepth = 64;

private:
    explicit Pattern(std::unique_ptr<CompiledPattern> impl);
    std::unique_ptr<CompiledPattern> impl_;
};

// Convenience: compile and match the whole text.
bool pattern_match(std::string_view pattern, std::string_view text, PatternOptions options = {});

// Whether the pattern has an unquoted glob construct (see Pattern::is_glob).
bool is_glob(std::string_view pattern, bool extglob = false);

// Characters of a text as the matcher counts them (a valid UTF-8 sequence is one, unless `bytes`).
size_t pattern_char_count(std::string_view text, bool bytes = false);

// How many characters bash's ${x/p/r} (also //, /#, /%) takes a match of the pattern to span, or nullopt
// when it varies (a `*`, or `?( +( !( @(` whatever extglob says). bash counts before it searches and then
// only tries spans of that many characters. Its count takes a bracket expression to end at the first `]`
// after the character that follows `[`, so `[!]]` and `[^]]` (one character, `]` excluded) count two and
// never match in a substitution, though they do in `case` and ${x#p}. An unclosed `[` counts each of its
// characters.
std::optional<size_t> substitution_match_length(std::string_view pattern, bool bytes = false);

// A backslash before every byte that is special to patterns (`* ? [ ] \` and, so the result is safe with
// extglob on, `( ) | + @ !`): the pattern form of a quoted string.
std::string quote_pattern(std::string_view literal);

// Quote removal on the pattern form: drops the escaping backslashes (a trailing lone one stays).
std::string unquote_pattern(std::string_view pattern);

// Pathname expansion splits a pattern at every `/` (quoted or not: a quoted slash still separates
// directories) and expands component by component.
struct PathComponent {
    std::string pattern;   // the component in pattern form, without slashes
    std::string literal;   // the component after quote removal
    bool glob = false;     // has an unquoted glob construct (needs a directory read)
    bool globstar = false; // exactly an unquoted `**` (recursive with shopt globstar)
};

struct PathPattern {
    bool absolute = false;               // began with `/`
    std::vector<PathComponent> components;  // `a//b` gives an empty component between a and b
    bool trailing_slash = false;         // ended with `/`: only directories match
};

PathPattern split_path_pattern(std::string_view pattern, bool extglob = false);

}  // namespace bashkit::interp
