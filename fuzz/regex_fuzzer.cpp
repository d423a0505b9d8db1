// libFuzzer target for the POSIX BRE/ERE to RE2 translation ([[ =~ ]], grep, sed, awk). Input: a flags byte
// (1 BRE, 2 icase, 4 GNU dialect, 8 newline-sensitive, 16 bytes), NUL, the pattern, NUL, a sample text.
//
// Properties: no crash, sanitizer report or hang; a translation that succeeds gives an RE2 pattern that
// compiles (or is too big), with the group count RE2 sees; compile() agrees with the translation; a match's
// spans lie inside the text and inside the whole match; search() and match() agree (a whole match is a match).
#include <re2/re2.h>

#include <string>
#include <vector>

#include "fuzz/fuzz_input.hpp"
#include "interp/regex.hpp"

namespace ia = bashkit::interp;
using bashkit::fuzz::finding;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > 2048) return 0;
    bashkit::fuzz::Fields in(data, size);
    unsigned bits = bashkit::fuzz::flag_bits(in[0]);
    std::string_view pat = in[1], text = in[2];
    bool bre = bits & 1;
    ia::RegexOptions o;
    o.icase = bits & 2;
    o.dialect = (bits & 4) ? ia::RegexDialect::kGnu : ia::RegexDialect::kPosix;
    o.newline_sensitive = bits & 8;
    o.bytes = bits & 16;

    ia::RegexTranslation t = bre ? ia::translate_bre(pat, o) : ia::translate_ere(pat, o);
    if (t.ok()) {
        RE2::Options ro;
        ro.set_log_errors(false);
        ro.set_longest_match(true);
        ro.set_max_mem(8 << 20);
        if (t.latin1 || o.bytes) ro.set_encoding(RE2::Options::EncodingLatin1);
        RE2 re(t.re2, ro);
        if (!re.ok() && re.error_code() != RE2::ErrorPatternTooLarge && re.error_code() != RE2::ErrorRepeatSize) {
            finding("the translation does not compile in RE2", pat, t.re2);
        }
        if (re.ok() && re.NumberOfCapturingGroups() != t.groups) finding("group count differs from RE2's", pat, t.re2);
    } else if (t.message.empty()) {
        finding("an error without a message", pat);
    }

    ia::Regex r = ia::Regex::compile(pat, bre ? ia::RegexSyntax::kBasic : ia::RegexSyntax::kExtended, o);
    if (t.ok() != r.ok() && r.error() != ia::RegexError::kTooBig) finding("compile and translate disagree", pat);
    if (!r.ok()) return 0;
    std::vector<ia::RegexSpan> spans;
    bool found = r.search(text, spans, 0);
    if (found != r.search(text)) finding("search with and without spans disagree", pat, text);
    if (r.match(text) && !found) finding("a whole match but no search match", pat, text);
    if (found) {
        if (spans.size() != size_t(r.groups()) + 1) finding("wrong number of spans", pat, text);
        const ia::RegexSpan& all = spans[0];
        if (!all.matched() || all.end < all.begin || size_t(all.end) > text.size()) finding("match span outside the text", pat, text);
        for (const ia::RegexSpan& s : spans) {
            if (s.matched() && (s.begin < all.begin || s.end > all.end || s.end < s.begin)) {
                finding("group span outside the match", pat, text);
            }
        }
        // Searching again from inside the text never returns a match that starts before `from`.
        size_t from = text.size() / 2;
        if (r.search(text, spans, from) && size_t(spans[0].begin) < from) finding("search from went back", pat, text);
    }
    return 0;
}
