// jq 1.7.1's own test files (tests/*.test of the jqlang/jq release: program, input, expected outputs, or
// `%%FAIL` programs that must not compile) run against our jq through a bashkit shell, the way jq's
// `--run-tests` judges them: each expected line is compared as JSON with the next output (numbers by value,
// objects without key order), extra outputs fail, an error ends the outputs, a `%%FAIL` program must fail to
// compile with the last `jq: error` line given.
//
// The files are not in the repository: set BASHKIT_JQ_SUITE to a folder holding them (e.g. from a snapshot
// of jqlang/jq at tag jq-1.7.1: `git archive jq-1.7.1 tests | tar x`); without it the test is skipped.
// Every failing case is printed; BASHKIT_JQ_SUITE_MIN (a percentage, default 97) is the pass rate each file
// must reach. The modules folder of the snapshot is copied to /home/user/modules and passed with -L, as
// jq's tests/jqtest does.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/common/difftable.hpp"

namespace {

namespace fs = std::filesystem;
using bashkit::testing::DiffCase;
using bashkit::testing::DiffConfig;
using bashkit::testing::SetupEntry;

struct SuiteCase {
    int line = 0;
    std::string prog;
    bool must_fail = false;
    bool check_msg = false;
    std::string input;                  // one JSON text
    std::vector<std::string> expected;  // JSON texts, or the error line of a %%FAIL case
};

bool skip_line(const std::string& l) {
    size_t i = 0;
    while (i < l.size() && (l[i] == ' ' || l[i] == '\t' || l[i] == '\r')) ++i;
    return i == l.size() || l[i] == '#';
}

std::vector<SuiteCase> load(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    std::vector<SuiteCase> out;
    bool must_fail = false, check_msg = false;
    for (size_t i = 0; i < lines.size(); ++i) {
        const std::string& l = lines[i];
        if (skip_line(l)) continue;
        if (l == "%%FAIL" || l == "%%FAIL IGNORE MSG") {
            must_fail = true;
            check_msg = l == "%%FAIL";
            continue;
        }
        SuiteCase c;
        c.line = static_cast<int>(i + 1);
        c.prog = l;
        c.must_fail = must_fail;
        c.check_msg = check_msg;
        must_fail = check_msg = false;
        if (c.must_fail) {
            if (i + 1 < lines.size()) c.expected.push_back(lines[++i]);
            out.push_back(std::move(c));
            continue;
        }
        if (i + 1 < lines.size()) c.input = lines[++i];
        while (i + 1 < lines.size() && !skip_line(lines[i + 1])) c.expected.push_back(lines[++i]);
        ++i;  // the blank or comment line that ends the case
        out.push_back(std::move(c));
    }
    return out;
}

std::string quote(const std::string& s) {
    std::string q = "'";
    for (char ch : s) {
        if (ch == '\'') q += "'\\''";
        else q += ch;
    }
    return q + "'";
}

bool json_equal(const std::string& a, const std::string& b) {
    if (a == b) return true;
    try {
        return nlohmann::json::parse(a) == nlohmann::json::parse(b);
    } catch (const std::exception&) {
        return false;
    }
}

std::vector<SetupEntry> modules(const fs::path& dir) {
    std::vector<SetupEntry> v;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return v;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
        if (!e.is_regular_file()) continue;
        SetupEntry s;
        s.path = "modules/" + fs::relative(e.path(), dir).generic_string();
        std::ifstream in(e.path(), std::ios::binary);
        std::ostringstream ss;
        ss << in.rdbuf();
        s.content = ss.str();
        v.push_back(std::move(s));
    }
    return v;
}

// Returns "" when the case passes, else why not.
std::string run_case(const DiffConfig& config, const std::vector<SetupEntry>& mods, const SuiteCase& sc) {
    DiffCase c;
    c.setup = mods;
    if (sc.must_fail) {
        c.script = "jq -n -L modules " + quote(sc.prog) + " 2>&1 >/dev/null";
    } else {
        c.script = "jq -c -L modules " + quote(sc.prog);
        c.stdin_data = sc.input + "\n";
        c.has_stdin = true;
    }
    const auto r = bashkit::testing::run_bashkit(config, c);
    if (sc.must_fail) {
        if (r.status == 0) return "compiled (status 0)";
        if (!sc.check_msg || sc.expected.empty()) return "";
        std::string last;
        std::istringstream ls(r.out);
        for (std::string l; std::getline(ls, l);)
            if (l.rfind("jq: error", 0) == 0) last = l;
        if (last != sc.expected[0]) return "message: " + last;
        return "";
    }
    std::vector<std::string> got;
    std::istringstream ls(r.out);
    for (std::string l; std::getline(ls, l);) got.push_back(l);
    if (got.empty() && r.status == 3) return "compile error: " + r.err;
    for (size_t i = 0; i < sc.expected.size(); ++i) {
        if (i >= got.size()) return "insufficient results (" + std::to_string(got.size()) + "): " + r.err;
        if (!json_equal(sc.expected[i], got[i])) return "expected " + sc.expected[i] + ", got " + got[i];
    }
    if (got.size() > sc.expected.size()) return "superfluous result: " + got[sc.expected.size()];
    return "";
}

TEST(JqSuite, Files) {
    const char* dir = std::getenv("BASHKIT_JQ_SUITE");
    if (!dir || !*dir) GTEST_SKIP() << "BASHKIT_JQ_SUITE is not set (a folder with jq 1.7.1's tests/*.test)";
    double min = 97;
    if (const char* m = std::getenv("BASHKIT_JQ_SUITE_MIN"); m && *m) min = std::atof(m);
    const char* only = std::getenv("BASHKIT_JQ_SUITE_FILES");  // e.g. "jq.test onig.test"
    DiffConfig config;
    const auto mods = modules(fs::path(dir) / "modules");
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".test") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    ASSERT_FALSE(files.empty()) << "no *.test in " << dir;
    for (const auto& f : files) {
        const std::string name = f.filename().string();
        if (only && *only && (" " + std::string(only) + " ").find(" " + name + " ") == std::string::npos) continue;
        const auto cases = load(f);
        // jq's tests/mantest runs man.test with PAGER=less (an example reads $ENV.PAGER).
        DiffConfig fc = config;
        if (name == "man.test") fc.env.emplace_back("PAGER", "less");
        int passed = 0;
        for (const auto& sc : cases) {
            const std::string why = run_case(fc, mods, sc);
            if (why.empty()) {
                ++passed;
            } else {
                std::printf("FAIL %s:%d: %s\n    %s\n", name.c_str(), sc.line, sc.prog.c_str(), why.c_str());
            }
        }
        std::printf("%s: %d of %zu passed\n", name.c_str(), passed, cases.size());
        EXPECT_GE(100.0 * passed, min * static_cast<double>(cases.size())) << name;
    }
}

}  // namespace
