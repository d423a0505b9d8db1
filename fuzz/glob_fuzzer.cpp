// libFuzzer target for glob and extglob matching (case, [[ == ]], ${x#p} ${x/p/r}, pathname expansion).
// Input: a flags byte (1 extglob, 2 nocase, 4 pathname, 8 dotglob), NUL, the pattern, NUL, the text.
//
// Properties: no crash, sanitizer report or hang; the work stays polynomial (PatternStats::steps bounded by
// a multiple of (text+1)^2 * (pattern+1)); the matchers agree with each other (a whole match is a prefix
// and a suffix match, spans lie inside the text in order); and a quoted text matches itself literally.
#include <string>

#include "fuzz/fuzz_input.hpp"
#include "interp/pattern.hpp"

namespace ia = bashkit::interp;
using bashkit::fuzz::finding;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > 2048) return 0;
    bashkit::fuzz::Fields in(data, size);
    unsigned bits = bashkit::fuzz::flag_bits(in[0]);
    std::string_view pat = in[1], text = in[2];
    ia::PatternOptions o;
    o.extglob = bits & 1;
    o.nocase = bits & 2;
    o.pathname = bits & 4;
    o.dotglob = bits & 8;

    ia::Pattern p = ia::Pattern::compile(pat, o);
    ia::PatternStats st;
    bool whole = p.match(text, &st);
    auto sp = p.shortest_prefix(text, &st);
    auto lp = p.longest_prefix(text, &st);
    auto ss = p.shortest_suffix(text, &st);
    auto ls = p.longest_suffix(text, &st);
    auto first = p.find_first(text, &st);
    auto all = p.find_all(text, &st);
    (void)p.is_glob();
    (void)ia::split_path_pattern(pat, o.extglob);
    (void)ia::unquote_pattern(pat);

    uint64_t n = text.size() + 1, m = pat.size() + 1;
    if (st.steps > 64 * n * n * m + 100000) finding("pattern matching is not polynomial", pat, text);
    if (whole && (!lp || *lp != text.size())) finding("whole match but no full longest prefix", pat, text);
    if (whole && (!ls || *ls != 0)) finding("whole match but no full longest suffix", pat, text);
    if (sp.has_value() != lp.has_value() || (sp && *sp > *lp)) finding("shortest/longest prefix disagree", pat, text);
    if (ss.has_value() != ls.has_value() || (ss && *ss < *ls)) finding("shortest/longest suffix disagree", pat, text);
    if (lp && *lp > text.size()) finding("prefix past the text", pat, text);
    if (first.has_value() != !all.empty() && !(text.empty() && first)) finding("find_first and find_all disagree", pat, text);
    size_t at = 0;
    for (const ia::MatchSpan& s : all) {
        if (s.begin < at || s.end < s.begin || s.end > text.size()) finding("find_all spans out of order", pat, text);
        at = s.end;
    }
    if (first && !all.empty() && !(all[0] == *first)) finding("find_first is not find_all's first", pat, text);

    // A quoted string is a literal pattern: it matches itself and is no glob.
    ia::PatternOptions lit = o;
    lit.nocase = false;
    std::string q = ia::quote_pattern(text);
    if (!ia::pattern_match(q, text, lit)) finding("a quoted text does not match itself", q, text);
    if (ia::is_glob(q, o.extglob)) finding("a quoted text is a glob", q, text);
    if (ia::unquote_pattern(q) != text) finding("unquote(quote(t)) != t", q, text);
    return 0;
}
