// Parser table tests: every case of tests/syntax/cases/*.txt (format in case_file.hpp).
//
// For each case, two ctest tests:
//   SyntaxParse_<file>.<case>
//     - the parser accepts an "ok" case, or rejects an "error" case with exactly the stored
//       "line N: MESSAGE";
//     - an "ok" case survives a round trip through the printer: parse(print(tree)) gives the same tree.
//   SyntaxBash_<file>.<case>   (skipped when /bin/bash is absent)
//     - `/bin/bash -n` on the script gives the stored expectation (so the tables cannot drift from bash)
//       and agrees with our parser.
// The tests are registered with ::testing::RegisterTest rather than TEST_P so that the ctest names are
// plain "<suite>.<case>" (value-parameterised tests get "# GetParam() = ..." appended by CMake).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <utility>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "interp/syntax/parser.hpp"
#include "interp/syntax/printer.hpp"
#include "tests/common/host_run.hpp"
#include "tests/syntax/case_file.hpp"

namespace {

using bashkit::testing::SyntaxCase;
using bashkit::testing::SyntaxCaseSet;
namespace syn = bashkit::syntax;

constexpr const char* kBash = "/bin/bash";
constexpr size_t kMinCases = 450;
constexpr size_t kMinErrorCases = 70;

const SyntaxCaseSet& all_cases() {
    static const SyntaxCaseSet set =
        bashkit::testing::load_syntax_cases(std::filesystem::path(BASHKIT_SOURCE_DIR) / "tests/syntax/cases");
    return set;
}

// What our parser says, in the tables' terms: nullopt when it parses, else "line N: MESSAGE".
std::optional<std::string> our_verdict(const syn::ParseResult& r) {
    if (r.ok()) return std::nullopt;
    return "line " + std::to_string(r.error->pos.line) + ": " + r.error->message;
}

std::string describe(const std::optional<std::string>& verdict) {
    return verdict ? "error \"" + *verdict + "\"" : std::string("ok");
}

// "line 4: warning: here-document at line 1 delimited by end-of-file (wanted `EOF')"
bool is_bash_warning(std::string_view line) {
    if (line.rfind("line ", 0) != 0) return false;
    size_t i = 5;
    size_t digits = 0;
    while (i < line.size() && line[i] >= '0' && line[i] <= '9') ++i, ++digits;
    return digits > 0 && line.substr(i).rfind(": warning: ", 0) == 0;
}

struct BashResult {
    std::string failure;                 // non-empty when bash could not be run or behaved unexpectedly
    std::optional<std::string> verdict;  // as our_verdict
};

// Runs `bash -n` on the script. bash's verdict: an error when it prints an error line (anything but a
// warning); the message is the first such line without the "file: " prefix. Note that bash 5.2 exits
// with status 2 for most syntax errors but 0 for errors inside [[ ]] (it still stops reading there).
BashResult run_bash_n(const std::string& script) {
    BashResult out;
    std::string path = (std::filesystem::temp_directory_path() / "bashkit_case_XXXXXX").string();
    std::vector<char> templ(path.begin(), path.end());
    templ.push_back('\0');
    int fd = mkstemp(templ.data());
    if (fd < 0) {
        out.failure = "mkstemp failed";
        return out;
    }
    path = templ.data();
    size_t written = 0;
    while (written < script.size()) {
        ssize_t n = write(fd, script.data() + written, script.size() - written);
        if (n <= 0) break;
        written += static_cast<size_t>(n);
    }
    close(fd);
    if (written != script.size()) {
        unlink(path.c_str());
        out.failure = "cannot write " + path;
        return out;
    }
    // mkstemp's name has no quote in it; the temp dir is quoted anyway.
    std::string cmd = std::string(kBash) + " -n '" + path + "' 2>&1 >/dev/null </dev/null";
    const bashkit::testing::HostRun run = bashkit::testing::run_host(cmd);
    unlink(path.c_str());
    if (!run.ran) {
        out.failure = "bash did not run or did not exit normally";
        return out;
    }
    const std::string& err = run.out;
    const int code = run.status;
    std::string prefix = path + ": ";
    std::optional<std::string> first_error;
    size_t start = 0;
    while (start < err.size() && !first_error) {
        size_t nl = err.find('\n', start);
        if (nl == std::string::npos) nl = err.size();
        std::string line = err.substr(start, nl - start);
        start = nl + 1;
        if (line.rfind(prefix, 0) == 0) line.erase(0, prefix.size());
        if (!line.empty() && !is_bash_warning(line)) first_error = line;
        // a here-document's warning names its delimiter, which may hold newlines: skip its other lines
        if (is_bash_warning(line) && line.find("(wanted `") != std::string::npos) {
            while (start < err.size() && !(line.size() >= 2 && line.compare(line.size() - 2, 2, "')") == 0)) {
                nl = err.find('\n', start);
                if (nl == std::string::npos) nl = err.size();
                line = err.substr(start, nl - start);
                start = nl + 1;
            }
        }
    }
    if (code == 0 || code == 2) {
        out.verdict = first_error;
        if (code == 2 && !first_error) out.failure = "bash exited 2 without an error line";
    } else {
        out.failure = "bash -n exited " + std::to_string(code) + ": " + err;
    }
    return out;
}

std::optional<std::string> expected_verdict(const SyntaxCase& c) {
    if (c.ok) return std::nullopt;
    return c.error;
}

std::string where(const SyntaxCase& c) {
    return "case " + c.name + " (tests/syntax/cases/" + c.file + ".txt:" + std::to_string(c.source_line) +
           "), script:\n" + c.script;
}

void check_parse(const SyntaxCase& c) {
    SCOPED_TRACE(where(c));
    syn::ParseResult r = syn::parse(c.script);
    ASSERT_EQ(describe(our_verdict(r)), describe(expected_verdict(c)))
        << "parser result differs from the stored expectation";
    if (!r.ok()) return;

    ASSERT_NE(r.script, nullptr);
    std::string printed = syn::print(*r.script);
    SCOPED_TRACE("printed:\n" + printed);
    syn::ParseResult again = syn::parse(printed);
    ASSERT_TRUE(again.ok()) << "the printer's output does not parse: " << describe(our_verdict(again));
    ASSERT_NE(again.script, nullptr);
    EXPECT_EQ(syn::to_json(*again.script, false), syn::to_json(*r.script, false))
        << "the printer's output parses to a different tree";
}

void check_bash(const SyntaxCase& c) {
    if (access(kBash, X_OK) != 0) GTEST_SKIP() << kBash << " is absent";
    SCOPED_TRACE(where(c));
    BashResult bash = run_bash_n(c.script);
    ASSERT_EQ(bash.failure, "");
    EXPECT_EQ(describe(bash.verdict), describe(expected_verdict(c)))
        << "bash -n disagrees with the stored expectation (fix the case file; see tools/check_cases)";
    syn::ParseResult r = syn::parse(c.script);
    EXPECT_EQ(describe(our_verdict(r)), describe(bash.verdict)) << "our parser disagrees with bash -n";
}

class CaseTest : public ::testing::Test {
public:
    CaseTest(SyntaxCase c, void (*check)(const SyntaxCase&)) : case_(std::move(c)), check_(check) {}
    void TestBody() override { check_(case_); }

private:
    SyntaxCase case_;
    void (*check_)(const SyntaxCase&);
};

bool register_cases() {
    for (const SyntaxCase& c : all_cases().cases) {
        std::string file = std::filesystem::path(BASHKIT_SOURCE_DIR "/tests/syntax/cases").append(c.file + ".txt").string();
        ::testing::RegisterTest(("SyntaxParse_" + c.file).c_str(), c.name.c_str(), nullptr, nullptr, file.c_str(),
                                c.source_line, [c]() -> ::testing::Test* { return new CaseTest(c, check_parse); });
        ::testing::RegisterTest(("SyntaxBash_" + c.file).c_str(), c.name.c_str(), nullptr, nullptr, file.c_str(),
                                c.source_line, [c]() -> ::testing::Test* { return new CaseTest(c, check_bash); });
    }
    return true;
}

// Registration at static-initialisation time, as the TEST macros do (gtest_main's main() runs afterwards).
[[maybe_unused]] const bool kRegistered = register_cases();

TEST(SyntaxTableFiles, WellFormedAndLargeEnough) {
    const SyntaxCaseSet& set = all_cases();
    for (const std::string& p : set.problems) ADD_FAILURE() << p;
    size_t errors = 0;
    std::set<std::string> ids;
    for (const SyntaxCase& c : set.cases) {
        if (!c.ok) ++errors;
        EXPECT_TRUE(ids.insert(c.file + "." + c.name).second) << "duplicate case " << c.file << "." << c.name;
        EXPECT_FALSE(c.script.empty());
        EXPECT_EQ(c.script.back(), '\n');
    }
    EXPECT_GE(set.cases.size(), kMinCases);
    EXPECT_GE(errors, kMinErrorCases);
}

TEST(SyntaxTableFiles, LoaderJoinsLinesAndReadsExpectations) {
    SyntaxCaseSet set;
    bashkit::testing::parse_syntax_case_text("t",
                                             "# comment\n"
                                             "=== a\n"
                                             "echo 1\n"
                                             "\n"
                                             "echo 2\n"
                                             "--- ok\n"
                                             "ignored\n"
                                             "=== b\n"
                                             "--- error line 3: syntax error near unexpected token `fi'\n"
                                             "=== c\n"
                                             "x\n",
                                             set);
    ASSERT_EQ(set.cases.size(), 2u);
    EXPECT_EQ(set.cases[0].name, "a");
    EXPECT_EQ(set.cases[0].script, "echo 1\n\necho 2\n");
    EXPECT_TRUE(set.cases[0].ok);
    EXPECT_EQ(set.cases[1].script, "\n");
    EXPECT_FALSE(set.cases[1].ok);
    EXPECT_EQ(set.cases[1].error, "line 3: syntax error near unexpected token `fi'");
    ASSERT_EQ(set.problems.size(), 1u);  // case c has no "---" line
    EXPECT_NE(set.problems[0].find("'c'"), std::string::npos);
}

TEST(SyntaxTableFiles, BashWarningsAreRecognised) {
    EXPECT_TRUE(is_bash_warning("line 4: warning: here-document at line 1 delimited by end-of-file (wanted `EOF')"));
    EXPECT_FALSE(is_bash_warning("line 4: syntax error: unexpected end of file"));
    EXPECT_FALSE(is_bash_warning("line : warning: x"));
}

}  // namespace
