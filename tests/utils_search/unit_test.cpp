// Unit tests of the pieces under grep and rg: the matcher, the gitignore globs, and behaviour the
// differential table cannot show (messages naming unsupported features, hostile patterns, rg's stdin).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "utils/registry.hpp"
#include "utils/search/gitignore.hpp"
#include "utils/search/matcher.hpp"
#include "interp/governor.hpp"
#include "interp/limits.hpp"
#include "interp/shell.hpp"
#include "vfs/memory_fs.hpp"

namespace {

using namespace bashkit;
using utils::search::GlobList;
using utils::search::IgnoreMatch;
using utils::search::Matcher;
using utils::search::MatcherOptions;
using utils::search::Syntax;

std::unique_ptr<Matcher> compile(std::vector<std::string> pats, Syntax sx, std::string& err, bool word = false) {
    MatcherOptions o;
    o.syntax = sx;
    o.word = word;
    return Matcher::compile(pats, o, err);
}

TEST(SearchMatcher, UnsupportedFeaturesAreNamed) {
    struct Row {
        const char* pattern;
        Syntax syntax;
        const char* needle;
    } rows[] = {
        {"\\(a\\)\\1", Syntax::kBasic, "back-references"},
        {"(a)\\1", Syntax::kExtended, "back-references"},
        {"a(?=b)", Syntax::kRust, "lookaround"},
    };
    for (const auto& r : rows) {
        std::string err;
        EXPECT_EQ(compile({r.pattern}, r.syntax, err), nullptr) << r.pattern;
        EXPECT_NE(err.find(r.needle), std::string::npos) << r.pattern << " -> " << err;
    }
}

TEST(SearchMatcher, ClassesAndEscapesAreNotMistakenForFeatures) {
    for (const char* p : {"[(?=]", "\\(?=", "a\\+", "\\Q(?=\\E"}) {
        std::string err;
        EXPECT_NE(compile({p}, Syntax::kPerl, err), nullptr) << p << ": " << err;
    }
}

TEST(SearchMatcher, PerlFeaturesMatchWithPcre2) {
    struct Row {
        const char* pattern;
        const char* line;
        bool match;
    } rows[] = {
        {"(a)\\1", "xaay", true},   {"a(?=b)", "ab", true},     {"a(?=b)", "ac", false},
        {"(?<!a)b", "ab", false},   {"(?<!a)b", "cb", true},    {"(?>a+)a", "aaa", false},
        {"a++b", "aab", true},      {"x\\Ky", "xy", true},      {"^\\p{Lu}", "Ab", true},
    };
    for (const auto& r : rows) {
        std::string err;
        auto m = compile({r.pattern}, Syntax::kPerl, err);
        ASSERT_NE(m, nullptr) << r.pattern << ": " << err;
        EXPECT_EQ(m->line_matches(r.line), r.match) << r.pattern << " on " << r.line;
    }
}

TEST(SearchMatcher, PcreKeepOutMovesTheMatchStart) {
    std::string err;
    auto m = compile({"key=\\K\\w+"}, Syntax::kPerl, err);
    ASSERT_NE(m, nullptr) << err;
    size_t b = 0, e = 0;
    ASSERT_TRUE(m->next_match("a key=val", 0, b, e));
    EXPECT_EQ(b, 6u);
    EXPECT_EQ(e, 9u);
}

TEST(SearchMatcher, PcreCatastrophicPatternIsAnErrorNotAHang) {
    std::string err;
    auto m = compile({"(a+)+$"}, Syntax::kPerl, err);
    ASSERT_NE(m, nullptr) << err;
    EXPECT_FALSE(m->line_matches(std::string(5000, 'a') + "b"));
    EXPECT_TRUE(m->failed());
    EXPECT_EQ(m->failure(), "exceeded PCRE's backtracking limit");
    EXPECT_EQ(m->pcre_failure(), "match limit exceeded");
    EXPECT_FALSE(m->line_matches("aaa"));  // sticky until cleared
    m->clear_failure();
    EXPECT_TRUE(m->line_matches("aaa"));
}

TEST(SearchMatcher, PcreAllocationsAreChargedToTheBudget) {
    interp::MemoryBudget budget(0);
    {
        MatcherOptions o;
        o.syntax = Syntax::kPerl;
        o.memory = &budget;
        std::string err;
        auto m = Matcher::compile({"(\\w+)=(?<v>\\d+)"}, o, err);
        ASSERT_NE(m, nullptr) << err;
        EXPECT_GT(budget.used(), 0u);
        EXPECT_TRUE(m->line_matches("x=1"));
    }
    EXPECT_EQ(budget.used(), 0u);  // everything freed and released
    interp::MemoryBudget tiny(64);
    MatcherOptions o;
    o.syntax = Syntax::kPerl;
    o.memory = &tiny;
    std::string err;
    EXPECT_EQ(Matcher::compile({"abc"}, o, err), nullptr);
    EXPECT_EQ(err, "memory exhausted");
}

TEST(SearchMatcher, PcrePollsTheCancelToken) {
    interp::CancelToken cancel;
    MatcherOptions o;
    o.syntax = Syntax::kPerl;
    o.cancel = &cancel;
    std::string err;
    auto m = Matcher::compile({"a"}, o, err);
    ASSERT_NE(m, nullptr) << err;
    const std::string buf = "b\na\n";
    size_t b = 0, e = 0;
    EXPECT_TRUE(m->find_line(buf, 0, b, e));
    cancel.cancel();
    EXPECT_FALSE(m->find_line(buf, 0, b, e));
    EXPECT_TRUE(m->failed());
    EXPECT_TRUE(m->failure().empty());
}

TEST(SearchMatcher, FindLineSkipsMatchesThatSpanLines) {
    std::string err;
    auto m = compile({"a[[:space:]]*b"}, Syntax::kBasic, err);
    ASSERT_NE(m, nullptr) << err;
    const std::string buf = "xa\nbx\na  b\n";
    size_t b = 0, e = 0;
    ASSERT_TRUE(m->find_line(buf, 0, b, e));
    EXPECT_EQ(buf.substr(b, e - b), "a  b");
}

TEST(SearchMatcher, WordMatchesRetryAfterNonWordNeighbours) {
    std::string err;
    auto m = compile({"@"}, Syntax::kFixed, err, true);
    ASSERT_NE(m, nullptr) << err;
    const std::string line = "@@ x@";  // GNU grep -ow @ prints two: the third has a word character before it
    std::vector<std::pair<size_t, size_t>> spans;
    size_t from = 0, b = 0, e = 0;
    while (m->next_match(line, from, b, e)) {
        spans.emplace_back(b, e);
        from = e > b ? e : b + 1;
    }
    EXPECT_EQ(spans, (std::vector<std::pair<size_t, size_t>>{{0, 1}, {1, 2}}));
}

TEST(SearchMatcher, HostilePatternsFailCleanly) {
    std::string err;
    EXPECT_EQ(compile({"a{1000}{1000}{1000}"}, Syntax::kExtended, err), nullptr);
    EXPECT_FALSE(err.empty());
    err.clear();
    EXPECT_EQ(compile({std::string(100000, '(')}, Syntax::kExtended, err), nullptr);
    EXPECT_FALSE(err.empty());
    err.clear();
    EXPECT_EQ(compile({std::string(100000, '(')}, Syntax::kPerl, err), nullptr);
    EXPECT_FALSE(err.empty());
}

TEST(SearchGlobs, GitignoreSemantics) {
    GlobList g;
    g.add_file("# comment\n\n*.log\n!keep.log\n/root.txt\nbuild/\ndocs/*.md\n**/gen/**\n\\#hash\n");
    struct Row {
        const char* path;
        bool dir;
        IgnoreMatch want;
    } rows[] = {
        {"a.log", false, IgnoreMatch::kIgnore},
        {"x/y/a.log", false, IgnoreMatch::kIgnore},
        {"keep.log", false, IgnoreMatch::kWhitelist},
        {"root.txt", false, IgnoreMatch::kIgnore},
        {"sub/root.txt", false, IgnoreMatch::kNone},
        {"build", true, IgnoreMatch::kIgnore},
        {"build", false, IgnoreMatch::kNone},
        {"x/build", true, IgnoreMatch::kIgnore},
        {"docs/a.md", false, IgnoreMatch::kIgnore},
        {"docs/x/a.md", false, IgnoreMatch::kNone},
        {"x/docs/a.md", false, IgnoreMatch::kNone},
        {"gen/a", false, IgnoreMatch::kIgnore},
        {"p/gen/q/r", false, IgnoreMatch::kIgnore},
        {"#hash", false, IgnoreMatch::kIgnore},
        {"comment", false, IgnoreMatch::kNone},
    };
    for (const auto& r : rows) EXPECT_EQ(g.match(r.path, r.dir), r.want) << r.path;
}

interp::ExecResult run(const std::string& script, const std::string& in = {}) {
    vfs::MemoryFs mfs;
    EXPECT_TRUE(mfs.mkdir_all("/home/user/d").ok());
    EXPECT_TRUE(mfs.write_file("/home/user/d/f.txt", "foo here\n").ok());
    interp::CommandRegistry registry;
    utils::register_all(registry);
    interp::ShellOptions opts;  // named: g++ 12 with ASan warns on the defaulted temporary
    interp::Shell sh(mfs, registry, opts);
    return sh.run(script, in);
}

TEST(SearchRg, StdinWithDataIsSearchedEmptyStdinWalks) {
    auto r = run("printf 'foo\\nbar\\n' | rg foo");
    EXPECT_EQ(r.out, "foo\n");
    r = run("rg foo");
    EXPECT_EQ(r.out, "d/f.txt:1:foo here\n");
    r = run("rg foo < /dev/null");
    EXPECT_EQ(r.out, "d/f.txt:1:foo here\n");
}

TEST(SearchRg, ErrorsNameTheFeature) {
    auto r = run("rg '(a)\\1' d");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("back-references"), std::string::npos) << r.err;
}

TEST(SearchGrep, BrokenPipeStopsTheSearch) {
    // grep writing into a closed pipe stops instead of reading all of its input.
    auto r = run("i=0; while [ $i -lt 3000 ]; do echo foo; i=$((i+1)); done > d/many; "
                 "grep foo d/many d/many d/many | { read -r x; echo \"$x\"; }");
    EXPECT_EQ(r.out, "d/many:foo\n");
}

}  // namespace
