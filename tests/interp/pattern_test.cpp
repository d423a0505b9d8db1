// Glob pattern tests. Every table is also checked against /bin/bash when it exists, so an expectation
// cannot drift from real bash.
#include "interp/pattern.hpp"
#include "tests/common/host_run.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace bashkit::interp {
namespace {

// flags: x extglob, i nocase, p pathname mode, d dotglob
struct GlobCase {
    const char* pat;
    const char* text;
    const char* flags;
    bool match;
};

PatternOptions options_of(const std::string& flags) {
    PatternOptions o;
    o.extglob = flags.find('x') != std::string::npos;
    o.nocase = flags.find('i') != std::string::npos;
    o.pathname = flags.find('p') != std::string::npos;
    o.dotglob = flags.find('d') != std::string::npos;
    return o;
}

const std::vector<GlobCase> kGlob = {
    // literals and escapes
    {"", "", "", true},
    {"", "a", "", false},
    {"abc", "abc", "", true},
    {"abc", "abd", "", false},
    {"abc", "ab", "", false},
    {"ab", "abc", "", false},
    {"\\*", "*", "", true},
    {"\\*", "a", "", false},
    {"\\?", "?", "", true},
    {"\\?", "a", "", false},
    {"\\[a]", "[a]", "", true},
    {"\\[a]", "a", "", false},
    {"\\\\", "\\", "", true},
    {"a\\", "a\\", "", true},
    {"\\a\\b", "ab", "", true},
    {"[", "[", "", true},
    {"[a", "[a", "", true},
    {"]", "]", "", true},
    {"a]", "a]", "", true},
    {"(a)", "(a)", "", true},
    {"a|b", "a|b", "", true},
    // ? and *
    {"?", "a", "", true},
    {"?", "", "", false},
    {"?", "ab", "", false},
    {"??", "ab", "", true},
    {"a?c", "abc", "", true},
    {"a?c", "ac", "", false},
    {"*", "", "", true},
    {"*", "anything", "", true},
    {"a*", "a", "", true},
    {"a*", "abc", "", true},
    {"a*", "ba", "", false},
    {"*a", "ba", "", true},
    {"*a", "ab", "", false},
    {"a*b", "ab", "", true},
    {"a*b", "axxb", "", true},
    {"a*b", "axxbc", "", false},
    {"a*b*c", "abbbc", "", true},
    {"a*b*c", "acb", "", false},
    {"***", "x", "", true},
    {"*?*", "", "", false},
    {"*?*", "q", "", true},
    {"a\\*b", "axb", "", false},
    {"a\\*b", "a*b", "", true},
    {"*.txt", "notes.txt", "", true},
    {"*.txt", "notes.txt.bak", "", false},
    {"*/*", "a/b", "", true},
    {"a*", "a/b", "", true},
    // brackets
    {"[abc]", "b", "", true},
    {"[abc]", "d", "", false},
    {"[a-c]", "b", "", true},
    {"[a-c]", "d", "", false},
    {"[!a-c]", "d", "", true},
    {"[!a-c]", "b", "", false},
    {"[^a-c]", "d", "", true},
    {"[^a-c]", "a", "", false},
    {"[]]", "]", "", true},
    {"[]a]", "a", "", true},
    {"[!]]", "]", "", false},
    {"[!]]", "a", "", true},
    {"[]-a]", "^", "", true},
    {"[a-]", "-", "", true},
    {"[-a]", "-", "", true},
    {"[a\\-z]", "-", "", true},
    {"[a\\-z]", "m", "", false},
    {"[\\]]", "]", "", true},
    {"[\\!a]", "!", "", true},
    {"[z-a]", "b", "", false},
    {"[z-a]", "z", "", false},
    {"[0-9]*", "42abc", "", true},
    {"[0-9][0-9]", "4a", "", false},
    {"[[:alpha:]]", "q", "", true},
    {"[[:alpha:]]", "1", "", false},
    {"[[:digit:]]", "7", "", true},
    {"[[:digit:]]", "x", "", false},
    {"[[:alnum:]]", "Z", "", true},
    {"[[:alnum:]]", "_", "", false},
    {"[[:upper:]]", "A", "", true},
    {"[[:upper:]]", "a", "", false},
    {"[[:lower:]]", "a", "", true},
    {"[[:lower:]]", "A", "", false},
    {"[[:space:]]", " ", "", true},
    {"[[:space:]]", "\t", "", true},
    {"[[:space:]]", "x", "", false},
    {"[[:blank:]]", "\n", "", false},
    {"[[:punct:]]", "!", "", true},
    {"[[:punct:]]", "a", "", false},
    {"[[:xdigit:]]", "f", "", true},
    {"[[:xdigit:]]", "g", "", false},
    {"[[:cntrl:]]", "\x01", "", true},
    {"[[:print:]]", " ", "", true},
    {"[[:graph:]]", " ", "", false},
    {"[[:word:]]", "_", "", true},
    {"[[:word:]]", "-", "", false},
    {"[![:digit:]]", "a", "", true},
    {"[![:digit:]]", "5", "", false},
    {"[[:digit:][:upper:]]", "Q", "", true},
    {"[[:digit:]x]", "x", "", true},
    {"[[:foo:]]", "f", "", false},
    {"[[:foo:]x]", "x", "", true},
    {"[[:alpha:]-z]", "-", "", true},
    {"[[.a.]]", "a", "", true},
    {"[[.-.]]", "-", "", true},
    {"[[=a=]]", "a", "", true},
    {"[[=a=]]", "b", "", false},
    {"[[.a.]-c]", "b", "", true},
    {"[a-c]x", "bx", "", true},
    {"[*]", "*", "", true},
    {"[*]", "a", "", false},
    {"[?]", "?", "", true},
    {"[[]", "[", "", true},
    {"[[]]", "[]", "", true},
    {"[a]]", "a]", "", true},
    // UTF-8: a multibyte character is one character
    {"?", "\xc3\xa9", "", true},
    {"??", "\xc3\xa9", "", false},
    {"h?llo", "h\xc3\xa9llo", "", true},
    {"[\xc3\xa9]", "\xc3\xa9", "", true},
    {"[!\xc3\xa9]", "\xc3\xa9", "", false},
    {"[[:alpha:]]", "\xc3\xa9", "", true},
    {"[[:upper:]]", "\xc3\x89", "", true},
    {"[[:lower:]]", "\xc3\x89", "", false},
    {"?", "\xe2\x82\xac", "", true},
    {"*\xe2\x82\xac", "10\xe2\x82\xac", "", true},
    {"[a-\xc3\xbf]", "\xc3\xa9", "", true},
    // nocase
    {"abc", "ABC", "i", true},
    {"abc", "ABD", "i", false},
    {"A*", "abc", "i", true},
    {"[a-z]", "A", "i", true},
    {"[A-Z]", "q", "i", true},
    {"[!a-z]", "A", "i", false},
    {"[[:upper:]]", "a", "i", false},
    {"\xc3\xa9", "\xc3\x89", "i", true},
    {"abc", "ABC", "", false},
    // extglob
    {"@(a|b)", "a", "x", true},
    {"@(a|b)", "b", "x", true},
    {"@(a|b)", "c", "x", false},
    {"@(a|b)", "ab", "x", false},
    {"?(a)", "", "x", true},
    {"?(a)", "a", "x", true},
    {"?(a)", "aa", "x", false},
    {"*(a)", "", "x", true},
    {"*(a)", "aaaa", "x", true},
    {"*(a)", "aab", "x", false},
    {"+(a)", "", "x", false},
    {"+(a)", "aaa", "x", true},
    {"+(ab|c)", "abcab", "x", true},
    {"+(ab|c)", "abca", "x", false},
    {"!(a)", "a", "x", false},
    {"!(a)", "b", "x", true},
    {"!(a)", "", "x", true},
    {"!(a)", "aa", "x", true},
    {"!(*.c)", "x.c", "x", false},
    {"!(*.c)", "x.h", "x", true},
    {"*!(.c)", "x.c", "x", true},
    {"a!(b)c", "abc", "x", false},
    {"a!(b)c", "axc", "x", true},
    {"a!(b)c", "ac", "x", true},
    {"!(a|b)", "", "x", true},
    {"!(a|b)", "b", "x", false},
    {"!(a|b)", "c", "x", true},
    {"@()", "", "x", true},
    {"+()", "", "x", true},
    {"!()", "x", "x", true},
    {"!()", "", "x", false},
    {"@(a|@(b|c))", "c", "x", true},
    {"*(a|b(c|d))", "ab(c|d)", "x", true},
    {"*(a|b@(c|d))", "abcabd", "x", true},
    {"*(a|b@(c|d))", "abe", "x", false},
    {"!(!(a))", "a", "x", true},
    {"!(!(a))", "b", "x", false},
    {"@(a*|b)", "axyz", "x", true},
    {"x@(a|)y", "xy", "x", true},
    {"*(a|aa)b", "aaaaab", "x", true},
    {"+([0-9])", "12345", "x", true},
    {"+([0-9])", "123a5", "x", false},
    {"+([[:digit:]]).+([[:digit:]])", "3.14", "x", true},
    {"@(A|B)", "a", "xi", true},
    {"*(a", "*(a", "x", true},
    {"*(a", "xx(a", "x", false},
    {"?(a", "?(a", "x", true},
    {"*(a|b(c|d))", "abc", "x", false},
    {"@(a", "@(a", "x", true},
    {"@(a|b", "@(a|b", "x", true},
    {"@(a)", "@(a)", "", true},
    {"@(a)", "a", "", false},
    {"?(a)", "?(a)", "", true},
    {"?(a)", "x(a)", "", true},
    {"*(a)", "xyz(a)", "", true},
    {"\\@(a)", "@(a)", "x", true},
    {"@(\\|)", "|", "x", true},
    {"@(a\\)b)", "a)b", "x", true},
    {"@([)])", ")", "x", true},
};

TEST(PatternTest, GlobTable) {
    ASSERT_GE(kGlob.size(), 150u);
    for (const auto& c : kGlob) {
        const bool got = pattern_match(c.pat, c.text, options_of(c.flags));
        EXPECT_EQ(got, c.match) << "pattern '" << c.pat << "' text '" << c.text << "' flags '" << c.flags << "'";
    }
}

// Pathname mode (globbing): checked against bash with files in an empty directory.
const std::vector<GlobCase> kPathname = {
    {"*", ".hidden", "p", false},
    {"*", ".hidden", "pd", true},
    {".*", ".hidden", "p", true},
    {"?hidden", ".hidden", "p", false},
    {"?hidden", ".hidden", "pd", true},
    {"[.]hidden", ".hidden", "p", false},
    {"[!a]hidden", ".hidden", "p", false},
    {"*hidden", "a.hidden", "p", true},
    {"*.c", "x.c", "p", true},
    {"a*", "abc", "p", true},
    {"!(x)", ".hidden", "px", false},
    {"!(x)", "y", "px", true},
    {"@(.h*)", ".hidden", "px", true},
    {"\\.h*", ".hidden", "p", true},
    {"*", "abc", "pi", true},
    {"A*", "abc", "pi", true},
};

TEST(PatternTest, PathnameTable) {
    for (const auto& c : kPathname) {
        EXPECT_EQ(pattern_match(c.pat, c.text, options_of(c.flags)), c.match)
            << "pattern '" << c.pat << "' text '" << c.text << "' flags '" << c.flags << "'";
    }
}

TEST(PatternTest, PathnameSlash) {
    PatternOptions p;
    p.pathname = true;
    EXPECT_FALSE(pattern_match("a*", "a/b", p));
    EXPECT_FALSE(pattern_match("a?b", "a/b", p));
    EXPECT_FALSE(pattern_match("a[/]b", "a/b", p));
    EXPECT_TRUE(pattern_match("a/*", "a/b", p));
    EXPECT_FALSE(pattern_match("a/*", "a/.b", p));
    EXPECT_TRUE(pattern_match("a/.*", "a/.b", p));
    p.extglob = true;
    EXPECT_FALSE(pattern_match("!(x)", "a/b", p));
}

// ${x#p} ${x##p} ${x%p} ${x%%p} ${x/p/X} ${x//p/X}
struct SubstCase {
    const char* op;
    const char* pat;
    const char* text;
    const char* expect;
};

const std::vector<SubstCase> kSubst = {
    {"#", "*a", "abcaab", "bcaab"},
    {"##", "*a", "abcaab", "b"},
    {"%", "a*", "abcaab", "abca"},
    {"%%", "a*", "abcaab", ""},
    {"#", "?", "h\xc3\xa9llo", "\xc3\xa9llo"},
    {"#", "h?", "h\xc3\xa9llo", "llo"},
    {"%", "?", "h\xc3\xa9", "h"},
    {"#", "x", "abc", "abc"},
    {"%", "x", "abc", "abc"},
    {"#", "", "abc", "abc"},
    {"##", "*", "abc", ""},
    {"#", "*", "abc", "abc"},
    {"%", "*", "abc", "abc"},
    {"%%", "*", "abc", ""},
    {"%%", "@(b|ab)", "abcaab", "abca"},
    {"%", "@(b|ab)", "abcaab", "abcaa"},
    {"##", "+(a|b)", "abcaab", "caab"},
    {"#", "+(a|b)", "abcaab", "bcaab"},
    {"##", "!(c)", "abc", ""},
    {"#", "!(a)", "abc", "abc"},
    {"##", "!(a)", "abc", ""},
    {"#", "!(a*)", "abc", "abc"},
    {"#", "?!(a*)", "abc", "bc"},
    {"%", "!(c)", "abc", "abc"},
    {"%%", "[bc]*", "abcbc", "a"},
    {"/", "b", "abcb", "aXcb"},
    {"//", "b", "abcb", "aXcX"},
    {"/", "b*", "abcb", "aX"},
    {"//", "?", "ab", "XX"},
    {"//", "*(a)", "abcaab", "XXbXcXXb"},
    {"//", "a*(b)", "abcaab", "YcYY"},
    {"//", "*(z)", "ab", "XaXb"},
    {"/", "*(z)", "ab", "Xab"},
    {"//", "*(z)", "", "X"},
    {"/", "*", "", "X"},
    {"//", "[\xc3\xa9]", "h\xc3\xa9ll\xc3\xa9", "hXllX"},
    {"/", "l*", "hello", "heX"},
    {"//", "l", "hello", "heXXo"},
    {"//", "ll", "lllll", "XXl"},
    {"/", "@(b|bc)", "abcd", "aXd"},
    {"//", "!(b)", "abc", "X"},
    {"/", "x", "abc", "abc"},
    {"//", "\\*", "a*b*", "aXbX"},
};

std::string apply_subst(const SubstCase& c) {
    PatternOptions o;
    o.extglob = true;
    const Pattern p = Pattern::compile(c.pat, o);
    const std::string t = c.text;
    const std::string op = c.op;
    // In bash an empty pattern removes nothing.
    if (op == "#" || op == "##") {
        if (!*c.pat) return t;
        auto e = op == "#" ? p.shortest_prefix(t) : p.longest_prefix(t);
        return e ? t.substr(*e) : t;
    }
    if (op == "%" || op == "%%") {
        if (!*c.pat) return t;
        auto s = op == "%" ? p.shortest_suffix(t) : p.longest_suffix(t);
        return s ? t.substr(0, *s) : t;
    }
    std::vector<MatchSpan> spans;
    if (op == "/") {
        if (auto m = p.find_first(t)) spans.push_back(*m);
    } else {
        spans = p.find_all(t);
    }
    const std::string rep = std::string(c.pat) == "a*(b)" ? "Y" : "X";
    std::string out;
    size_t at = 0;
    for (const auto& m : spans) {
        out += t.substr(at, m.begin - at) + rep;
        at = m.end;
    }
    return out + t.substr(at);
}

TEST(PatternTest, SubstitutionTable) {
    for (const auto& c : kSubst)
        EXPECT_EQ(apply_subst(c), c.expect) << c.op << " pattern '" << c.pat << "' text '" << c.text << "'";
}

TEST(PatternTest, FindPositions) {
    const Pattern p = Pattern::compile("b*");
    auto m = p.find_first("aabcb");
    ASSERT_TRUE(m.has_value());
    EXPECT_EQ(*m, (MatchSpan{2, 5}));
    EXPECT_FALSE(Pattern::compile("z").find_first("abc").has_value());
    auto all = Pattern::compile("[ab]").find_all("xaybz");
    ASSERT_EQ(all.size(), 2u);
    EXPECT_EQ(all[0], (MatchSpan{1, 2}));
    EXPECT_EQ(all[1], (MatchSpan{3, 4}));
    // Offsets are bytes on character boundaries.
    auto u = Pattern::compile("?").find_all("\xc3\xa9x");
    ASSERT_EQ(u.size(), 2u);
    EXPECT_EQ(u[0], (MatchSpan{0, 2}));
    EXPECT_EQ(u[1], (MatchSpan{2, 3}));
    EXPECT_EQ(Pattern::compile("*").longest_prefix("abc"), std::optional<size_t>(3));
    EXPECT_EQ(Pattern::compile("*").shortest_prefix("abc"), std::optional<size_t>(0));
    EXPECT_EQ(Pattern::compile("c").shortest_suffix("abc"), std::optional<size_t>(2));
    EXPECT_EQ(Pattern::compile("d").shortest_suffix("abc"), std::nullopt);
}

TEST(PatternTest, IsGlobAndQuoting) {
    EXPECT_TRUE(is_glob("*.c"));
    EXPECT_TRUE(is_glob("a?"));
    EXPECT_TRUE(is_glob("[ab]"));
    EXPECT_FALSE(is_glob("[ab"));
    EXPECT_FALSE(is_glob("abc"));
    EXPECT_FALSE(is_glob("\\*"));
    EXPECT_FALSE(is_glob("@(a)"));
    EXPECT_TRUE(is_glob("@(a)", true));
    EXPECT_FALSE(is_glob("@(a", true));
    EXPECT_EQ(quote_pattern("a*b?[c]\\"), "a\\*b\\?\\[c\\]\\\\");
    EXPECT_EQ(unquote_pattern("a\\*b\\\\c\\"), "a*b\\c\\");
    const std::string hostile = "*?[]()|+@!\\x";
    PatternOptions o;
    o.extglob = true;
    EXPECT_TRUE(pattern_match(quote_pattern(hostile), hostile, o));
    EXPECT_FALSE(Pattern::compile(quote_pattern(hostile), o).is_glob());
}

TEST(PatternTest, SplitPath) {
    auto p = split_path_pattern("/usr/*/b\\*n/");
    EXPECT_TRUE(p.absolute);
    EXPECT_TRUE(p.trailing_slash);
    ASSERT_EQ(p.components.size(), 3u);
    EXPECT_EQ(p.components[0].pattern, "usr");
    EXPECT_FALSE(p.components[0].glob);
    EXPECT_TRUE(p.components[1].glob);
    EXPECT_EQ(p.components[2].pattern, "b\\*n");
    EXPECT_EQ(p.components[2].literal, "b*n");
    EXPECT_FALSE(p.components[2].glob);

    auto q = split_path_pattern("a//**/c\\/d");
    EXPECT_FALSE(q.absolute);
    EXPECT_FALSE(q.trailing_slash);
    ASSERT_EQ(q.components.size(), 5u);
    EXPECT_EQ(q.components[1].pattern, "");
    EXPECT_TRUE(q.components[2].globstar);
    EXPECT_EQ(q.components[3].literal, "c");
    EXPECT_EQ(q.components[4].literal, "d");

    auto r = split_path_pattern("/");
    EXPECT_TRUE(r.absolute);
    EXPECT_TRUE(r.components.empty());
    auto s = split_path_pattern("@(a|b)/x", true);
    ASSERT_EQ(s.components.size(), 2u);
    EXPECT_TRUE(s.components[0].glob);
}

// Hostile patterns stay polynomial: these would take ages in a backtracking matcher.
TEST(PatternTest, HostilePatternsArePolynomial) {
    std::string text(10000, 'a');
    PatternOptions o;
    o.extglob = true;
    std::string pat;
    for (int i = 0; i < 20; ++i) pat += "*(a|aa)";
    pat += "b";
    PatternStats st;
    const Pattern p = Pattern::compile(pat, o);
    EXPECT_FALSE(p.match(text, &st));
    EXPECT_LT(st.steps, 50'000'000u);

    std::string stars;
    for (int i = 0; i < 200; ++i) stars += "*a";
    stars += "*b";
    PatternStats st2;
    EXPECT_FALSE(Pattern::compile(stars).match(text, &st2));
    EXPECT_LT(st2.steps, 50'000'000u);
    EXPECT_TRUE(Pattern::compile(stars).match(text + "b"));

    PatternStats st3;
    const Pattern q = Pattern::compile(pat, o);
    EXPECT_FALSE(q.find_first(text, &st3).has_value());
    EXPECT_TRUE(q.find_all(text, &st3).empty());
    EXPECT_EQ(q.longest_suffix(text, &st3), std::nullopt);
    EXPECT_LT(st3.steps, 100'000'000u);

    // Deep nesting never overflows the stack.
    std::string deep;
    for (int i = 0; i < 5000; ++i) deep += "@(";
    deep += "a";
    for (int i = 0; i < 5000; ++i) deep += ")";
    EXPECT_FALSE(pattern_match(deep, "a", o));
    std::string open;
    for (int i = 0; i < 5000; ++i) open += "@(a|";
    EXPECT_TRUE(pattern_match(open, open, o));
    EXPECT_TRUE(pattern_match(open + ")", open + ")", o));
}

TEST(PatternTest, NegationOnLongText) {
    PatternOptions o;
    o.extglob = true;
    std::string text(2000, 'a');
    PatternStats st;
    EXPECT_TRUE(Pattern::compile("!(*b*)", o).match(text, &st));
    EXPECT_FALSE(Pattern::compile("!(*a*)", o).match(text, &st));
}

// ---------------------------------------------------------------------------------------------------------
// Against real bash
// ---------------------------------------------------------------------------------------------------------

std::string ansi_c(const std::string& s) {
    std::string out = "$'";
    char buf[8];
    for (unsigned char c : s) {
        std::snprintf(buf, sizeof buf, "\\x%02x", c);
        out += buf;
    }
    return out + "'";
}

// Runs a bash script and returns its stdout lines.
std::vector<std::string> bash_pattern_lines(const std::string& script) {
    return bashkit::testing::complete_lines(bashkit::testing::run_bash_script(script, "LC_ALL=C.UTF-8").out);
}

bool have_bash() { return access("/bin/bash", X_OK) == 0; }

TEST(PatternTest, GlobTableAgreesWithBash) {
    if (!have_bash()) GTEST_SKIP() << "no /bin/bash";
    std::string script;
    for (const auto& c : kGlob) {
        const auto o = options_of(c.flags);
        script += std::string("shopt ") + (o.extglob ? "-s" : "-u") + " extglob; shopt " +
                  (o.nocase ? "-s" : "-u") + " nocasematch\n";
        // `case`, not [[ ]]: bash 5.2 always matches extglob inside [[ ]], whatever the shopt says.
        script += "p=" + ansi_c(c.pat) + "; t=" + ansi_c(c.text) + "; case $t in $p) echo 1;; *) echo 0;; esac\n";
    }
    const auto lines = bash_pattern_lines(script);
    ASSERT_EQ(lines.size(), kGlob.size());
    for (size_t i = 0; i < kGlob.size(); ++i)
        EXPECT_EQ(lines[i] == "1", kGlob[i].match)
            << "bash disagrees with the table: pattern '" << kGlob[i].pat << "' text '" << kGlob[i].text << "'";
}

TEST(PatternTest, PathnameTableAgreesWithBash) {
    if (!have_bash()) GTEST_SKIP() << "no /bin/bash";
    std::string script = "d=$(mktemp -d) || exit 1; cd \"$d\" || exit 1; shopt -s nullglob\n";
    for (const auto& c : kPathname) {
        const auto o = options_of(c.flags);
        script += std::string("shopt ") + (o.extglob ? "-s" : "-u") + " extglob; shopt " + (o.dotglob ? "-s" : "-u") +
                  " dotglob; shopt " + (o.nocase ? "-s" : "-u") + " nocaseglob\n";
        script += "rm -rf ./* ./.[!.]*; : > " + ansi_c(c.text) + "; p=" + ansi_c(c.pat) +
                  "; set -- $p; echo $#\n";
    }
    script += "cd /; rm -rf \"$d\"\n";
    const auto lines = bash_pattern_lines(script);
    ASSERT_EQ(lines.size(), kPathname.size());
    for (size_t i = 0; i < kPathname.size(); ++i)
        EXPECT_EQ(lines[i] == "1", kPathname[i].match)
            << "bash disagrees: pattern '" << kPathname[i].pat << "' file '" << kPathname[i].text << "'";
}

TEST(PatternTest, SubstitutionTableAgreesWithBash) {
    if (!have_bash()) GTEST_SKIP() << "no /bin/bash";
    std::string script = "shopt -s extglob\n";
    for (const auto& c : kSubst) {
        const std::string op = c.op;
        const std::string rep = std::string(c.pat) == "a*(b)" ? "Y" : "X";
        script += "p=" + ansi_c(c.pat) + "; t=" + ansi_c(c.text) + "; ";
        if (op[0] == '/')
            script += "echo \"${t" + op + "$p/" + rep + "}\"\n";
        else
            script += "echo \"${t" + op + "$p}\"\n";
    }
    const auto lines = bash_pattern_lines(script);
    ASSERT_EQ(lines.size(), kSubst.size());
    for (size_t i = 0; i < kSubst.size(); ++i)
        EXPECT_EQ(lines[i], kSubst[i].expect) << "bash: " << kSubst[i].op << " '" << kSubst[i].pat << "'";
}

}  // namespace
}  // namespace bashkit::interp
