// The differential table harness shared by every `{script, stdout, status}` suite (interpreter, files,
// text, search, ...). A table is a folder of *.txt case files; each case runs in a fresh bashkit Shell on a
// MemoryFs and, when /bin/bash exists, under the real bash (with the real GNU tools on PATH) in a temporary
// directory. Both must print the stored stdout and exit with the stored status, so a stored expectation can
// never drift from the real tools.
//
// Case format:
//   === name
//   <script lines>                 (relative paths; stderr is compared only when the script says 2>&1)
//   --- file PATH                  (optional, repeatable: the file's content up to the next ---; parents are
//   <lines>                         created; `--- file PATH (no newline at end)` drops the last newline)
//   --- dir PATH                   (optional: an empty directory)
//   --- symlink PATH -> TARGET     (optional)
//   --- stdin                      (optional: what the script reads on stdin; /dev/null without it)
//   <lines>
//   --- stdout                     (or `--- stdout (no newline at end)`)
//   <expected stdout lines>
//   --- status N
//   --- requires: TOOL             (optional: the real side runs only when /usr/bin/TOOL exists)
//   --- bashkit-only: <reason>     (optional: the real tools are not compared)
//   --- known-difference: <reason> (optional: bashkit is not compared, the real tools still are)
//
// Both sides start in an empty working directory seen as /home/user (HOME); the real run's output has its
// temporary directory replaced by /home/user so that absolute paths compare. The real bash runs
// with only HOME, PATH=/usr/bin:/bin, USER=user and the table's environment, umask 022, in a process group of
// its own, and is stopped (status 124, as timeout(1) says) after 20 s. bashkit's run is stopped after 60 s.
//
// tests/tools/fill_cases fills or refreshes the stdout and status of cases from the real tools, through this
// same harness (so the filler and the test can never run a case differently).
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace bashkit::testing {

struct SetupEntry {
    enum Kind { kFile, kDir, kSymlink } kind = kFile;
    std::string path;
    std::string content;  // file content, or symlink target
    bool no_newline = false;
};

struct DiffCase {
    std::string file;  // case file name
    std::string name;
    std::string id;  // unique, gtest-safe
    int line = 0;
    std::string script;
    std::string stdin_data;
    bool has_stdin = false;
    std::vector<SetupEntry> setup;
    std::string stdout_data;
    int status = 0;
    std::string requires_tool;
    std::string bashkit_only;
    std::string known_difference;
};

struct DiffConfig {
    std::string cases_dir;  // relative to the source root, e.g. "tests/interp/cases"
    bool utilities = true;  // register every utility (utils::register_all) in bashkit's registry
    // Environment of both sides (the real side also gets HOME, PATH, USER).
    std::vector<std::pair<std::string, std::string>> env = {{"LC_ALL", "C"}};
    std::vector<std::string> dirs;  // empty directories made in the working directory before each case
    std::string prelude;  // prepended to every script on both sides (keep it on one line: LINENO)
    // Optional rewrite of the script for the real side only (e.g. options that make ripgrep's output
    // order deterministic); receives the case and the script with the prelude.
    std::function<std::string(const DiffCase&, const std::string&)> real_script;
    // Optional: whether the real side can run this case (beyond `--- requires:`), e.g. a tool is installed.
    std::function<bool(const DiffCase&)> real_available;
};

// Parses every *.txt of `dir` in name order; ids are "<file stem>_<name>" made unique.
std::vector<DiffCase> load_diff_cases(const std::string& dir);

struct RunResult {
    bool ran = false;
    std::string out;
    std::string err;
    int status = -1;
};

RunResult run_real(const DiffConfig& config, const DiffCase& c);  // ran=false when it cannot run
RunResult run_bashkit(const DiffConfig& config, const DiffCase& c);

// Runs both sides and reports every disagreement with the stored expectation as a gtest failure.
void check_case(const DiffConfig& config, const DiffCase& c);

// A table: its config and its cases, loaded once.
class DiffTable {
public:
    explicit DiffTable(DiffConfig config);
    const DiffConfig& config() const { return config_; }
    const std::vector<DiffCase>& cases() const { return cases_; }
    std::vector<size_t> indices() const;

private:
    DiffConfig config_;
    std::vector<DiffCase> cases_;
};

}  // namespace bashkit::testing

// BASHKIT_DIFF_TABLE(Suite, expr): a parameterised gtest suite with one test per case of the table built by
// `expr` (a DiffConfig). Test names are Suite.Case/<case id>.
#define BASHKIT_DIFF_TABLE(Suite, config_expr)                                                                \
    namespace {                                                                                              \
    const ::bashkit::testing::DiffTable& Suite##_table() {                                                   \
        static const ::bashkit::testing::DiffTable table(config_expr);                                       \
        return table;                                                                                        \
    }                                                                                                        \
    class Suite : public ::testing::TestWithParam<size_t> {};                                                \
    TEST_P(Suite, Case) {                                                                                    \
        ::bashkit::testing::check_case(Suite##_table().config(), Suite##_table().cases()[GetParam()]);      \
    }                                                                                                        \
    INSTANTIATE_TEST_SUITE_P(Table, Suite, ::testing::ValuesIn(Suite##_table().indices()),                   \
                             [](const ::testing::TestParamInfo<size_t>& info) {                              \
                                 return Suite##_table().cases()[info.param].id;                              \
                             });                                                                             \
    }
