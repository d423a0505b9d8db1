// POSIX regex tests. The ERE table is re-checked against [[ =~ ]] in /bin/bash (BASH_REMATCH), the GNU
// tables against GNU sed (first match and groups) and GNU grep (match or not), error messages against sed.
#include "interp/regex.hpp"
#include "tests/common/host_run.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace bashkit::interp {
namespace {

// expect: "N" no match, "E" a syntax error, otherwise the whole match and each group joined by '~'
// (an unset group prints as empty, as in BASH_REMATCH).
struct ReCase {
    const char* re;
    const char* text;
    const char* expect;
};

std::string run_case(const char* re, const char* text, RegexSyntax syn, RegexOptions opt) {
    const Regex r = Regex::compile(re, syn, opt);
    if (!r.ok()) return "E";
    std::vector<RegexSpan> spans;
    const std::string t = text;
    if (!r.search(t, spans)) return "N";
    std::string out;
    for (size_t k = 0; k < spans.size(); ++k) {
        if (k) out += '~';
        if (spans[k].matched())
            out += t.substr(static_cast<size_t>(spans[k].begin), static_cast<size_t>(spans[k].end - spans[k].begin));
    }
    return out;
}

// POSIX ERE as bash's [[ =~ ]] compiles it (glibc regcomp, REG_EXTENDED).
const std::vector<ReCase> kEre = {
    {"a", "a", "a"},
    {"a", "b", "N"},
    {"abc", "xabcx", "abc"},
    {"", "abc", ""},
    {"^abc$", "abc", "abc"},
    {"^abc$", "abcd", "N"},
    {"^b", "ab", "N"},
    {"b$", "ab", "b"},
    {"a^b", "a^b", "N"},
    {"a$b", "a$b", "N"},
    {"a.c", "abc", "abc"},
    {"a.c", "ac", "N"},
    {"a*", "aaa", "aaa"},
    {"a*", "baaa", ""},
    {"ba*", "baaa", "baaa"},
    {"a+", "baaa", "aaa"},
    {"a+", "b", "N"},
    {"ab?c", "ac", "ac"},
    {"ab?c", "abc", "abc"},
    {"ab?c", "abbc", "N"},
    {"a{2}", "aaa", "aa"},
    {"a{2,}", "aaaa", "aaaa"},
    {"a{1,2}", "aaaa", "aa"},
    {"a{,2}", "aaa", "aa"},
    {"a{,}", "aaa", "aaa"},
    {"a{0}b", "ab", "b"},
    {"x{1}{2}", "xx", "xx"},
    {"a**", "aa", "aa"},
    {"a+*", "aa", "aa"},
    {"a?+", "aa", "aa"},
    {"a|b", "b", "b"},
    {"a|b|c", "xc", "c"},
    {"ab|cd", "cd", "cd"},
    {"a|", "x", ""},
    {"|a", "a", "a"},
    {"(a)", "a", "a~a"},
    {"(a)(b)", "ab", "ab~a~b"},
    {"(a|b)+", "abab", "abab~b"},
    {"(a)|b", "b", "b~"},
    {"(a)?b", "b", "b~"},
    {"(a*)b", "b", "b~"},
    {"()", "x", "~"},
    {"(|a)", "a", "a~a"},
    {"((a)|b)*", "ab", "ab~b~a"},
    {"(a|b)*c", "abc", "abc~b"},
    {"(a(b(c)))", "abc", "abc~abc~bc~c"},
    {"([0-9]+)-([0-9]+)", "tel 12-345", "12-345~12~345"},
    {"([a-z]+)@([a-z]+)\\.com", "me@site.com", "me@site.com~me~site"},
    {"(a*)*", "b", "~"},
    {"(a*)+", "b", "~"},
    {"(ab|a)(bc|c)", "abc", "abc~ab~c"},
    {"(a|ab)(c|bcd)", "abcd", "abcd~a~bcd"},
    {"x(a|ab)*y", "xababy", "xababy~ab"},
    {"(.*)=(.*)", "k=v=w", "k=v=w~k=v~w"},
    {"a)", "a)", "a)"},
    {")", ")", ")"},
    {"a\\(", "a(", "a("},
    {"\\.", "a.b", "."},
    {"\\*", "a*", "*"},
    {"\\+", "+", "+"},
    {"\\?", "?", "?"},
    {"\\{", "{", "{"},
    {"\\}", "}", "}"},
    {"}", "}", "}"},
    {"\\|", "|", "|"},
    {"\\n", "n", "n"},
    {"\\t", "t", "t"},
    {"\\\\", "a\\b", "\\"},
    {"\\^", "^", "^"},
    {"\\$", "$", "$"},
    {"[abc]", "xbx", "b"},
    {"[^abc]", "abcd", "d"},
    {"[a-c]+", "xabcx", "abc"},
    {"[]]", "]", "]"},
    {"[]a]+", "]a]", "]a]"},
    {"[^]a]", "]ab", "b"},
    {"[a-]", "-", "-"},
    {"[-a]", "-", "-"},
    {"[]-a]", "^", "^"},
    {"[\\n]", "\\", "\\"},
    {"[\\n]", "n", "n"},
    {"[\\]]", "\\]", "\\]"},
    {"[.]", "a.", "."},
    {"[*+?{}()|^$]+", "*+?{}()|^$", "*+?{}()|^$"},
    {"[[:alpha:]]+", "12abc3", "abc"},
    {"[[:digit:]]+", "ab123", "123"},
    {"[[:alnum:]]+", "-a1-", "a1"},
    {"[[:upper:]]+", "abCDe", "CD"},
    {"[[:lower:]]+", "ABcdE", "cd"},
    {"[[:space:]]+", "a \tb", " \t"},
    {"[[:blank:]]", "a\tb", "\t"},
    {"[[:punct:]]+", "ab!?c", "!?"},
    {"[[:xdigit:]]+", "xx0fFg", "0fF"},
    {"[[:print:]]+", "\x01" "ab", "ab"},
    {"[[:graph:]]+", " ab ", "ab"},
    {"[[:cntrl:]]", "a\x01", "\x01"},
    {"[^[:digit:]]+", "12ab3", "ab"},
    {"[[:digit:][:upper:]]+", "xA1Bx", "A1B"},
    {"[[:alpha:]_][[:alnum:]_]*", "9 _x1 ", "_x1"},
    {"[[.a.]]", "a", "a"},
    {"[[.-.]]", "-", "-"},
    {"[[=a=]]", "ba", "a"},
    {"[[.].]]", "]", "]"},
    {"\\w+", "-ab_1-", "ab_1"},
    {"\\W+", "ab-+cd", "-+"},
    {"\\s+", "a \t b", " \t "},
    {"\\S+", "  ab ", "ab"},
    {"\\bab", "xab ab", "ab"},
    {"\\<ab", "cab ab", "ab"},
    {"ab\\>", "abc ab", "ab"},
    {"\\Bb", "ab", "b"},
    {"\\`a", "ab", "a"},
    {"b\\'", "ab", "b"},
    {"h.llo", "h\xc3\xa9llo", "h\xc3\xa9llo"},
    {"^.$", "\xc3\xa9", "\xc3\xa9"},
    {"[\xc3\xa9]+", "x\xc3\xa9\xc3\xa9", "\xc3\xa9\xc3\xa9"},
    {"\xc3\xa9+", "\xc3\xa9\xc3\xa9", "\xc3\xa9\xc3\xa9"},
    {"^[[:alpha:]]$", "\xc3\xa9", "\xc3\xa9"},
    {"a.c", "a\nc", "a\nc"},
    {"a[^x]c", "a\nc", "a\nc"},
    {"(foo|foobar)baz", "foobarbaz", "foobarbaz~foobar"},
    {"(a|ab|abc)", "abcd", "abc~abc"},
    {"(wee|week)(knights|night)", "weeknights", "weeknights~wee~knights"},
    {"[0-9]+\\.[0-9]+", "v1.25", "1.25"},
    {"^([^:]+):([^:]*):", "root:x:0", "root:x:~root~x"},
    {"a{3}", "aa", "N"},
    {"(ab){2}", "abab", "abab~ab"},
    {"(a|b){2,3}", "abba", "abb~b"},
    // errors (glibc regcomp)
    {"(", "", "E"},
    {"(a", "a", "E"},
    {"a\\", "a", "E"},
    {"[a", "a", "E"},
    {"[[:foo:]]", "a", "E"},
    {"[[:word:]]", "a", "E"},
    {"[z-a]", "a", "E"},
    {"*a", "a", "E"},
    {"+a", "a", "E"},
    {"?a", "a", "E"},
    {"a|*b", "a", "E"},
    {"(*a)", "a", "E"},
    {"^*a", "a", "E"},
    {"{1}a", "a", "E"},
    {"a{", "a{", "E"},
    {"a{1", "a", "E"},
    {"a{x}", "a", "E"},
    {"a{2,1}", "a", "E"},
    {"a{1,2", "a", "E"},
    {"a{32768}", "a", "E"},
    {"[[.ab.]]", "a", "E"},
    {"[[:alpha:]-z]", "a", "E"},
    {"[a-[:alpha:]]", "a", "E"},
    {"[[:alpha:", "a", "E"},
    {"\\1", "a", "E"},
    {"(a)\\2", "a", "E"},
    {"(a\\1)", "a", "E"},
};

TEST(RegexTest, EreTable) {
    ASSERT_GE(kEre.size(), 150u);
    for (const auto& c : kEre)
        EXPECT_EQ(run_case(c.re, c.text, RegexSyntax::kExtended, {}), c.expect) << "ERE '" << c.re << "'";
}

// GNU ERE (grep -E, sed -E): leading operators dropped, invalid intervals literal.
const std::vector<ReCase> kGnuEre = {
    {"a{", "a{", "a{"},
    {"a{x", "a{x", "a{x"},
    {"a{1,2", "a{1,2", "a{1,2"},
    {"a{,2}", "aaa", "aa"},
    {"*a", "x*a", "a"},
    {"+a", "+a", "a"},
    {"a|*b", "xb", "b"},
    {"(a)(b)?", "a", "a~a~"},
    {"x(y|z)+", "xyzy", "xyzy~y"},
    {"[[:digit:]]{2,3}", "a12345", "123"},
};

// GNU BRE (grep, sed).
const std::vector<ReCase> kBre = {
    {"a", "a", "a"},
    {"abc", "xabcx", "abc"},
    {"a*", "aaa", "aaa"},
    {"ba*", "baa", "baa"},
    {"*a", "*a", "*a"},
    {"^*a", "*a", "*a"},
    {"\\(*a\\)", "*a", "*a~*a"},
    {"a\\|*b", "*b", "*b"},
    {"\\(a\\)", "a", "a~a"},
    {"\\(a\\)\\(b\\)", "ab", "ab~a~b"},
    {"\\(a*\\)b", "aab", "aab~aa"},
    {"a\\{2\\}", "aaa", "aa"},
    {"a\\{1,\\}", "aaa", "aaa"},
    {"a\\{,2\\}", "aaa", "aa"},
    {"a\\|b", "b", "b"},
    {"a\\+", "baa", "aa"},
    {"ab\\?c", "ac", "ac"},
    {"\\+a", "+a", "+a"},
    {"\\?a", "?a", "?a"},
    {"a+", "a+", "a+"},
    {"a?", "a?", "a?"},
    {"a|b", "a|b", "a|b"},
    {"(a)", "(a)", "(a)"},
    {"a{2}", "a{2}", "a{2}"},
    {"a\\{", "a", "E"},
    {"a\\{1", "a", "E"},
    {"a\\{x\\}", "a", "E"},
    {"^a", "a", "a"},
    {"a^", "a^", "a^"},
    {"a^b", "a^b", "a^b"},
    {"a$", "ba", "a"},
    {"a$b", "a$b", "a$b"},
    {"\\(^a\\)", "a", "a~a"},
    {"x\\(^a\\)", "x^a", "N"},
    {"\\(a$\\)", "a", "a~a"},
    {"b\\|^a", "a", "a"},
    {"a$\\|b", "a", "a"},
    {"[]a]*", "]a]", "]a]"},
    {"[^]]", "]x", "x"},
    {"[\\]", "\\", "\\"},
    {"[[:alpha:]]*", "abc1", "abc"},
    {"[[:space:]]", "a b", " "},
    {"\\.", "a.", "."},
    {"\\*", "*", "*"},
    {"\\[", "[", "["},
    {"\\]", "]", "]"},
    {"\\w\\+", "-ab-", "ab"},
    {"\\(", "a", "E"},
    {"\\)", "a", "E"},
    {"a\\)", "a", "E"},
    {"[a", "a", "E"},
    {"\\(a\\)\\2", "a", "E"},
    {"a\\", "a", "E"},
    {"[b-a]", "a", "E"},
};

// BRE entries where grep (kGnu) and sed (kPosix) differ: {re, text, grep, sed}.
struct DialectCase {
    const char* re;
    const char* text;
    const char* gnu;
    const char* posix;
};

const std::vector<DialectCase> kBreDialect = {
    {"x*\\{2\\}", "xx", "xx", "E"},
    {"a**", "aa", "aa", "E"},
    {"a\\{2\\}*", "aaa", "aa", "E"},
    {"a\\{1\\}\\{2\\}", "aaa", "aa", "E"},
    {"a\\+*", "aa", "aa", "E"},
    {"a*\\+", "aa", "aa", "aa"},
    {"\\{", "{", "{", "E"},
    {"\\{1\\}a", "{1}a", "{1}a", "E"},
    {"a\\|\\{1\\}", "{1}", "{1}", "E"},
};

TEST(RegexTest, BreDialects) {
    RegexOptions gnu;
    gnu.dialect = RegexDialect::kGnu;
    for (const auto& c : kBreDialect) {
        EXPECT_EQ(run_case(c.re, c.text, RegexSyntax::kBasic, gnu), c.gnu) << "grep BRE '" << c.re << "'";
        EXPECT_EQ(run_case(c.re, c.text, RegexSyntax::kBasic, {}), c.posix) << "sed BRE '" << c.re << "'";
    }
}

TEST(RegexTest, GnuTables) {
    RegexOptions gnu;
    gnu.dialect = RegexDialect::kGnu;
    for (const auto& c : kGnuEre)
        EXPECT_EQ(run_case(c.re, c.text, RegexSyntax::kExtended, gnu), c.expect) << "GNU ERE '" << c.re << "'";
    for (const auto& c : kBre)
        EXPECT_EQ(run_case(c.re, c.text, RegexSyntax::kBasic, gnu), c.expect) << "BRE '" << c.re << "'";
    for (const auto& c : kBre)  // BRE does not depend on the dialect
        EXPECT_EQ(run_case(c.re, c.text, RegexSyntax::kBasic, {}), c.expect) << "BRE '" << c.re << "'";
}

struct ErrCase {
    RegexSyntax syntax;
    RegexDialect dialect;
    const char* re;
    const char* message;
};

const std::vector<ErrCase> kErrors = {
    {RegexSyntax::kExtended, RegexDialect::kPosix, "(a", "Unmatched ( or \\("},
    {RegexSyntax::kExtended, RegexDialect::kPosix, "[a", "Unmatched [, [^, [:, [., or [="},
    {RegexSyntax::kExtended, RegexDialect::kPosix, "[[:alpha:", "Unmatched [, [^, [:, [., or [="},
    {RegexSyntax::kExtended, RegexDialect::kPosix, "*a", "Invalid preceding regular expression"},
    {RegexSyntax::kExtended, RegexDialect::kPosix, "a{1", "Unmatched \\{"},
    {RegexSyntax::kExtended, RegexDialect::kPosix, "a{x}", "Invalid content of \\{\\}"},
    {RegexSyntax::kExtended, RegexDialect::kPosix, "a{2,1}", "Invalid content of \\{\\}"},
    {RegexSyntax::kExtended, RegexDialect::kPosix, "a{40000}", "Regular expression too big"},
    {RegexSyntax::kExtended, RegexDialect::kPosix, "a\\", "Trailing backslash"},
    {RegexSyntax::kExtended, RegexDialect::kPosix, "[[:nope:]]", "Invalid character class name"},
    {RegexSyntax::kExtended, RegexDialect::kPosix, "[c-a]", "Invalid range end"},
    {RegexSyntax::kExtended, RegexDialect::kPosix, "[[.xy.]]", "Invalid collation character"},
    {RegexSyntax::kExtended, RegexDialect::kPosix, "(a)\\2", "Invalid back reference"},
    {RegexSyntax::kExtended, RegexDialect::kGnu, "(a", "Unmatched ( or \\("},
    {RegexSyntax::kExtended, RegexDialect::kGnu, "a{2,1}", "Invalid content of \\{\\}"},
    {RegexSyntax::kExtended, RegexDialect::kGnu, "[b-a]", "Invalid range end"},
    {RegexSyntax::kBasic, RegexDialect::kGnu, "\\(a", "Unmatched ( or \\("},
    {RegexSyntax::kBasic, RegexDialect::kGnu, "a\\)", "Unmatched ) or \\)"},
    {RegexSyntax::kBasic, RegexDialect::kPosix, "\\{1\\}", "Invalid preceding regular expression"},
    {RegexSyntax::kBasic, RegexDialect::kPosix, "a*\\{2\\}", "Invalid preceding regular expression"},
    {RegexSyntax::kBasic, RegexDialect::kGnu, "a\\{1", "Unmatched \\{"},
    {RegexSyntax::kBasic, RegexDialect::kGnu, "a\\{1,x\\}", "Invalid content of \\{\\}"},
    // (sed reports these two as "unterminated `s' command", so they are not checked against it)
    {RegexSyntax::kBasic, RegexDialect::kPosix, "[a", "Unmatched [, [^, [:, [., or [="},
    {RegexSyntax::kBasic, RegexDialect::kPosix, "a\\", "Trailing backslash"},
    {RegexSyntax::kBasic, RegexDialect::kGnu, "\\(a\\)\\2", "Invalid back reference"},
};

TEST(RegexTest, ErrorMessages) {
    for (const auto& c : kErrors) {
        RegexOptions o;
        o.dialect = c.dialect;
        const Regex r = Regex::compile(c.re, c.syntax, o);
        EXPECT_FALSE(r.ok()) << c.re;
        EXPECT_EQ(r.message(), c.message) << c.re;
    }
}

TEST(RegexTest, BackreferencesAreReportedUnsupported) {
    const Regex e = Regex::compile("(a)\\1", RegexSyntax::kExtended);
    EXPECT_EQ(e.error(), RegexError::kBackrefUnsupported);
    EXPECT_EQ(e.message(), "back-references are not supported");
    const auto t = translate_bre("\\(x\\)y\\1");
    EXPECT_EQ(t.error, RegexError::kBackrefUnsupported);
    EXPECT_EQ(translate_ere("(a)\\2").error, RegexError::kSyntax);
}

TEST(RegexTest, Translation) {
    EXPECT_EQ(translate_ere("a{,3}").re2, "a{0,3}");
    EXPECT_EQ(translate_ere("x{1}{2}").re2, "(?:x{1}){2}");
    EXPECT_EQ(translate_ere("a**").re2, "(?:a*)*");
    EXPECT_EQ(translate_bre("\\(a\\)*b\\{2\\}").re2, "(a)*b{2}");
    EXPECT_EQ(translate_bre("*a").re2, "\\*a");
    EXPECT_EQ(translate_bre("a^b$c$").re2, "a\\^b\\$c$");
    EXPECT_EQ(translate_ere("[]a\\]").re2, "[\\]a\\\\]");
    EXPECT_EQ(translate_ere("(a)(b)").groups, 2);
    EXPECT_EQ(translate_ere("a.b").re2, "a.b");
    EXPECT_TRUE(translate_ere("\xff+").latin1);
}

TEST(RegexTest, MatchSearchAndOptions) {
    const Regex r = Regex::compile("b+", RegexSyntax::kExtended);
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(r.search("abbc"));
    EXPECT_FALSE(r.match("abbc"));
    EXPECT_TRUE(r.match("bbb"));
    std::vector<RegexSpan> spans;
    ASSERT_TRUE(r.search("abbcb", spans, 3));
    EXPECT_EQ(spans[0], (RegexSpan{4, 5}));
    EXPECT_FALSE(r.search("abbc", spans, 3));
    EXPECT_FALSE(spans[0].matched());

    const Regex anchored = Regex::compile("^b", RegexSyntax::kExtended);
    EXPECT_FALSE(anchored.search("ab", spans, 1));  // ^ is the start of the text, not of the search

    const Regex g = Regex::compile("(x)|(y)", RegexSyntax::kExtended);
    ASSERT_TRUE(g.search("y", spans));
    ASSERT_EQ(spans.size(), 3u);
    EXPECT_EQ(spans[1], (RegexSpan{-1, -1}));
    EXPECT_EQ(spans[2], (RegexSpan{0, 1}));
    ASSERT_TRUE(Regex::compile("()", RegexSyntax::kExtended).search(std::string_view(), spans));
    EXPECT_EQ(spans[1], (RegexSpan{0, 0}));

    RegexOptions icase;
    icase.icase = true;
    EXPECT_TRUE(Regex::compile("abc", RegexSyntax::kExtended, icase).search("xABCx"));
    EXPECT_TRUE(Regex::compile("^[a-z]$", RegexSyntax::kExtended, icase).match("Q"));
    EXPECT_TRUE(Regex::compile("^[[:upper:]]$", RegexSyntax::kExtended, icase).match("q"));
    EXPECT_FALSE(Regex::compile("abc", RegexSyntax::kExtended).search("ABC"));

    RegexOptions nl;
    nl.newline_sensitive = true;
    EXPECT_FALSE(Regex::compile("a.c", RegexSyntax::kExtended, nl).search("a\nc"));
    EXPECT_FALSE(Regex::compile("a[^x]c", RegexSyntax::kExtended, nl).search("a\nc"));
    EXPECT_TRUE(Regex::compile("^c", RegexSyntax::kExtended, nl).search("a\nc"));
    EXPECT_FALSE(Regex::compile("^c", RegexSyntax::kExtended).search("a\nc"));
    EXPECT_TRUE(Regex::compile("a$", RegexSyntax::kExtended, nl).search("a\nc"));

    // Latin-1 mode for patterns that are not UTF-8.
    const Regex bytes = Regex::compile("\xff+", RegexSyntax::kExtended);
    ASSERT_TRUE(bytes.ok()) << bytes.message();
    EXPECT_TRUE(bytes.search("a\xff\xff"));
}

TEST(RegexTest, HostileInput) {
    // Deep nesting is an error, not a stack overflow.
    std::string deep(100000, '(');
    EXPECT_FALSE(Regex::compile(deep, RegexSyntax::kExtended).ok());
    std::string deep_bre;
    for (int i = 0; i < 50000; ++i) deep_bre += "\\(";
    EXPECT_FALSE(Regex::compile(deep_bre, RegexSyntax::kBasic).ok());
    // Classic catastrophic backtracking patterns are linear in RE2.
    const Regex r = Regex::compile("(a*)*b", RegexSyntax::kExtended);
    ASSERT_TRUE(r.ok());
    EXPECT_FALSE(r.search(std::string(100000, 'a')));
    const Regex r2 = Regex::compile("(a|aa)+$", RegexSyntax::kExtended);
    EXPECT_TRUE(r2.search(std::string(100000, 'a')));
    EXPECT_EQ(Regex::compile("a{1001}", RegexSyntax::kExtended).error(), RegexError::kTooBig);
}

// ---------------------------------------------------------------------------------------------------------
// Against real tools
// ---------------------------------------------------------------------------------------------------------

std::string regex_ansi_c(const std::string& s) {
    std::string out = "$'";
    char buf[8];
    for (unsigned char c : s) {
        std::snprintf(buf, sizeof buf, "\\x%02x", c);
        out += buf;
    }
    return out + "'";
}

std::vector<std::string> bash_regex_lines(const std::string& script) {
    return bashkit::testing::complete_lines(bashkit::testing::run_bash_script(script, "LC_ALL=C.UTF-8", "2>&1").out);
}

bool have(const char* tool) { return access(tool, X_OK) == 0; }


TEST(RegexTest, EreTableAgreesWithBash) {
    if (!have("/bin/bash")) GTEST_SKIP() << "no /bin/bash";
    std::string script;
    // Bytes travel hex-encoded so newlines in a match do not break the line protocol.
    script += "hex() { printf '%s' \"$1\" | od -An -tx1 | tr -d ' \\n'; }\n";
    for (const auto& c : kEre) {
        script += "re=" + regex_ansi_c(c.re) + "; t=" + regex_ansi_c(c.text) + "; [[ $t =~ $re ]]; s=$?; ";
        script += "if ((s == 0)); then o=; for g in \"${BASH_REMATCH[@]}\"; do o+=\"$(hex \"$g\").\"; done; "
                  "echo \"M$o\"; elif ((s == 1)); then echo N; else echo E; fi\n";
    }
    const auto lines = bash_regex_lines(script);
    ASSERT_EQ(lines.size(), kEre.size());
    auto hex = [](const std::string& s) {
        std::string o;
        char buf[4];
        for (unsigned char ch : s) {
            std::snprintf(buf, sizeof buf, "%02x", ch);
            o += buf;
        }
        return o;
    };
    for (size_t i = 0; i < kEre.size(); ++i) {
        std::string want = kEre[i].expect;
        if (want != "N" && want != "E") {
            std::string enc = "M";
            size_t start = 0;
            while (true) {
                const size_t bar = want.find('~', start);
                enc += hex(want.substr(start, bar - start)) + ".";
                if (bar == std::string::npos) break;
                start = bar + 1;
            }
            want = enc;
        }
        EXPECT_EQ(lines[i], want) << "bash disagrees: ERE '" << kEre[i].re << "' text '" << kEre[i].text << "'";
    }
}

// First match and groups through GNU sed: s/RE/[&]{\1}{\2}/ shows where the match is and each group.
std::string sed_expect(const char* re, const char* text, bool ere) {
    const Regex r = Regex::compile(re, ere ? RegexSyntax::kExtended : RegexSyntax::kBasic);  // sed: kPosix
    const std::string t = text;
    if (!r.ok()) return "E";
    std::vector<RegexSpan> spans;
    if (!r.search(t, spans)) return "N";
    std::string out = t.substr(0, static_cast<size_t>(spans[0].begin)) + "[" +
                      t.substr(static_cast<size_t>(spans[0].begin),
                               static_cast<size_t>(spans[0].end - spans[0].begin)) +
                      "]";
    for (size_t k = 1; k < spans.size() && k <= 9; ++k) {
        out += "{";
        if (spans[k].matched())
            out += t.substr(static_cast<size_t>(spans[k].begin), static_cast<size_t>(spans[k].end - spans[k].begin));
        out += "}";
    }
    return out + t.substr(static_cast<size_t>(spans[0].end));
}

// (re, text) pairs; texts must not contain a newline (sed works on lines).
void check_against_sed(const std::vector<std::pair<const char*, const char*>>& table, bool ere) {
    std::string script;
    for (const auto& [re, text] : table) {
        const Regex r = Regex::compile(re, ere ? RegexSyntax::kExtended : RegexSyntax::kBasic);
        std::string rep = "[&]";
        for (int k = 1; k <= r.groups() && k <= 9; ++k) rep += "{\\" + std::to_string(k) + "}";
        const std::string prog = "s\x01" + std::string(re) + "\x01" + rep + "\x01p";
        script += "out=$(printf '%s\\n' " + regex_ansi_c(text) + " | sed -n " + (ere ? "-E " : "") + "-e " +
                  regex_ansi_c(prog) + " 2>/dev/null); s=$?; if ((s != 0)); then echo E; elif [[ -z $out ]]; then "
                  "echo N; else printf '%s\\n' \"$out\"; fi\n";
    }
    const auto lines = bash_regex_lines(script);
    ASSERT_EQ(lines.size(), table.size());
    for (size_t i = 0; i < table.size(); ++i)
        EXPECT_EQ(lines[i], sed_expect(table[i].first, table[i].second, ere))
            << "sed disagrees: '" << table[i].first << "' text '" << table[i].second << "'";
}

void check_against_grep(const std::vector<ReCase>& table, bool ere) {
    std::string script;
    for (const auto& c : table)
        script += "printf '%s\\n' " + regex_ansi_c(c.text) + " | grep -q " + (ere ? "-E " : "-G ") + "-e " +
                  regex_ansi_c(c.re) + " 2>/dev/null; echo $?\n";
    const auto lines = bash_regex_lines(script);
    ASSERT_EQ(lines.size(), table.size());
    for (size_t i = 0; i < table.size(); ++i) {
        const std::string want = table[i].expect;
        const std::string got = want == "E" ? "2" : want == "N" ? "1" : "0";
        EXPECT_EQ(lines[i], got) << "grep disagrees: '" << table[i].re << "' text '" << table[i].text << "'";
    }
}

TEST(RegexTest, GnuTablesAgreeWithSedAndGrep) {
    if (!have("/bin/bash") || !have("/usr/bin/sed") || !have("/usr/bin/grep")) GTEST_SKIP() << "no GNU tools";
    std::vector<std::pair<const char*, const char*>> bre, ere;
    for (const auto& c : kBre) bre.emplace_back(c.re, c.text);
    for (const auto& c : kBreDialect) bre.emplace_back(c.re, c.text);
    // sed's own syntax gets in the way for some patterns: an empty regex means "the last one", \n and
    // \t are sed escapes (also inside brackets), and sed -E rejects an unmatched ')' that regcomp takes.
    auto sed_differs = [](const std::string& re) {
        return re.empty() || re.find("\\n") != std::string::npos || re.find("\\t") != std::string::npos ||
               re == ")" || re == "a)";
    };
    for (const auto& c : kEre)
        if (std::string(c.text).find('\n') == std::string::npos && !sed_differs(c.re)) ere.emplace_back(c.re, c.text);
    check_against_sed(bre, false);
    check_against_sed(ere, true);
    check_against_grep(kBre, false);
    check_against_grep(kGnuEre, true);
    std::vector<ReCase> grep_dialect;
    for (const auto& c : kBreDialect) grep_dialect.push_back({c.re, c.text, c.gnu});
    check_against_grep(grep_dialect, false);
}

TEST(RegexTest, ErrorMessagesAgreeWithSed) {
    if (!have("/bin/bash") || !have("/usr/bin/sed")) GTEST_SKIP() << "no GNU sed";
    std::string script;
    std::vector<const ErrCase*> cases;
    for (const auto& c : kErrors) {
        // sed is the kPosix dialect; sed -E differs from bash's regcomp only in what it leaves out here.
        const bool sed_can_say = c.syntax == RegexSyntax::kBasic ? std::string(c.re) != "[a" && std::string(c.re) != "a\\"
                                                                   : c.dialect == RegexDialect::kGnu;
        if (!sed_can_say) continue;
        cases.push_back(&c);
        const std::string prog = "s\x01" + std::string(c.re) + "\x01x\x01";
        script += "echo a | sed " + std::string(c.syntax == RegexSyntax::kExtended ? "-E " : "") + "-e " +
                  regex_ansi_c(prog) + " 2>&1 >/dev/null | sed 's/.*: //'\n";
    }
    const auto lines = bash_regex_lines(script);
    ASSERT_EQ(lines.size(), cases.size());
    for (size_t i = 0; i < cases.size(); ++i) EXPECT_EQ(lines[i], cases[i]->message) << cases[i]->re;
}

}  // namespace
}  // namespace bashkit::interp
