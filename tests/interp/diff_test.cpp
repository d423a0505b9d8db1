// The differential table: tests/interp/cases/*.txt, each case run in a fresh Shell on a MemoryFs and,
// when /bin/bash exists, by bash itself, both compared with the stored expectation (so the table cannot
// drift from real bash).
//
// Case format:
//   === name
//   <script lines>
//   --- stdin                      (optional: what the script reads on stdin, up to the next ---)
//   <lines>
//   --- stdout                     (or `--- stdout (no newline at end)`)
//   <expected stdout lines>
//   --- status 0
//   --- known-difference: <reason> (optional, after the status: bashkit is not compared, bash still is)
//
// Scripts use shell builtins only (no utilities are registered here) and relative paths; they start in
// an empty directory. Bash runs with `env -i` and a fixed HOME/PATH/LC_ALL in a temporary directory.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "interp/shell.hpp"
#include "vfs/memory_fs.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using namespace bashkit;

struct Case {
    std::string file;
    std::string name;
    std::string id;  // gtest-safe
    int line = 0;
    std::string script;
    std::string stdin_data;
    std::string stdout_data;
    int status = 0;
    std::string known_difference;
};

std::string sanitize(const std::string& s) {
    std::string out;
    for (char c : s) out.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
    return out;
}

std::vector<Case> load_cases() {
    std::vector<Case> cases;
    fs::path dir = fs::path(BASHKIT_SOURCE_DIR) / "tests" / "interp" / "cases";
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (e.path().extension() == ".txt") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
        std::ifstream in(f);
        std::string line;
        std::vector<std::string> lines;
        while (std::getline(in, line)) lines.push_back(line);
        std::string stem = f.stem().string();
        Case* cur = nullptr;
        enum { None, Script, Stdin, Stdout } section = None;
        bool no_newline = false;
        auto close_stdout = [&]() {
            if (cur && no_newline && !cur->stdout_data.empty() && cur->stdout_data.back() == '\n')
                cur->stdout_data.pop_back();
            no_newline = false;
        };
        for (size_t i = 0; i < lines.size(); ++i) {
            const std::string& l = lines[i];
            if (l.rfind("=== ", 0) == 0) {
                close_stdout();
                cases.emplace_back();
                cur = &cases.back();
                cur->file = f.filename().string();
                cur->name = l.substr(4);
                cur->line = static_cast<int>(i + 1);
                cur->id = sanitize(stem + "_" + cur->name);
                section = Script;
                continue;
            }
            if (!cur) continue;
            if (l == "--- stdin") {
                section = Stdin;
                continue;
            }
            if (l.rfind("--- stdout", 0) == 0) {
                section = Stdout;
                no_newline = l.find("no newline") != std::string::npos;
                continue;
            }
            if (l.rfind("--- status ", 0) == 0) {
                close_stdout();
                cur->status = std::stoi(l.substr(11));
                section = None;
                continue;
            }
            if (l.rfind("--- known-difference:", 0) == 0) {
                cur->known_difference = l.substr(21);
                continue;
            }
            switch (section) {
                case Script: cur->script += l + "\n"; break;
                case Stdin: cur->stdin_data += l + "\n"; break;
                case Stdout: cur->stdout_data += l + "\n"; break;
                default: break;
            }
        }
        close_stdout();
    }
    // Unique ids.
    std::vector<std::string> seen;
    for (auto& c : cases) {
        std::string base = c.id;
        int n = 2;
        while (std::find(seen.begin(), seen.end(), c.id) != seen.end()) c.id = base + "_" + std::to_string(n++);
        seen.push_back(c.id);
    }
    return cases;
}

const std::vector<Case>& all_cases() {
    static const std::vector<Case> cases = load_cases();
    return cases;
}

struct BashRun {
    bool ran = false;
    std::string out;
    int status = -1;
};

std::string read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

BashRun run_bash(const Case& c) {
    BashRun r;
    if (access("/bin/bash", X_OK) != 0) return r;
    char tmpl[] = "/tmp/bashkit-diff-XXXXXX";
    char* d = mkdtemp(tmpl);
    if (!d) return r;
    fs::path dir(d);
    fs::path work = dir / "work";
    fs::create_directory(work);
    {
        std::ofstream(dir / "script.sh", std::ios::binary) << c.script;
        std::ofstream(dir / "stdin", std::ios::binary) << c.stdin_data;
    }
    std::string script_path = (dir / "script.sh").string();
    std::string home = "HOME=" + work.string();
    std::string cmd_script = read_file(script_path);
    std::vector<std::string> args = {"/usr/bin/env", "-i", home, "PATH=/usr/bin:/bin", "LC_ALL=C.UTF-8",
                                     "/usr/bin/timeout", "20", "/bin/bash", "-c", cmd_script, "bash"};
    if (access("/usr/bin/timeout", X_OK) != 0) args.erase(args.begin() + 5, args.begin() + 7);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    std::string in_path = (dir / "stdin").string();
    std::string out_path = (dir / "stdout").string();
    posix_spawn_file_actions_addopen(&fa, 0, in_path.c_str(), O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addchdir_np(&fa, work.c_str());
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc == 0) {
        int st = 0;
        waitpid(pid, &st, 0);
        r.ran = true;
        r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        r.out = read_file(out_path);
    }
    std::error_code ec;
    fs::remove_all(dir, ec);
    return r;
}

class DiffTest : public ::testing::TestWithParam<size_t> {};

TEST_P(DiffTest, Case) {
    const Case& c = all_cases()[GetParam()];
    SCOPED_TRACE(c.file + ":" + std::to_string(c.line) + " " + c.name);
    BashRun b = run_bash(c);
    if (b.ran) {
        EXPECT_EQ(b.out, c.stdout_data) << "bash's stdout differs from the stored expectation\n--- script\n" << c.script;
        EXPECT_EQ(b.status, c.status) << "bash's status differs from the stored expectation";
    }
    if (!c.known_difference.empty()) return;
    vfs::MemoryFs mfs;
    ASSERT_TRUE(mfs.mkdir_all("/home/user").ok());
    ASSERT_TRUE(mfs.mkdir_all("/tmp").ok());
    interp::CommandRegistry registry;
    interp::ShellOptions opts;
    opts.script_name = "bash";
    opts.limits.timeout = std::chrono::seconds(20);
    interp::Shell sh(mfs, registry, opts);
    auto r = sh.run(c.script, c.stdin_data);
    // bash -c runs the EXIT trap as the shell ends.
    auto fin = sh.close();
    r.out += fin.out;
    r.err += fin.err;
    r.exit_code = fin.exit_code;
    EXPECT_EQ(r.out, c.stdout_data) << "bashkit's stdout\n--- script\n" << c.script << "--- stderr\n" << r.err;
    EXPECT_EQ(r.exit_code, c.status) << "bashkit's status\n--- stderr\n" << r.err;
}

std::string case_name(const ::testing::TestParamInfo<size_t>& info) { return all_cases()[info.param].id; }

std::vector<size_t> case_indices() {
    std::vector<size_t> v(all_cases().size());
    for (size_t i = 0; i < v.size(); ++i) v[i] = i;
    return v;
}

INSTANTIATE_TEST_SUITE_P(Table, DiffTest, ::testing::ValuesIn(case_indices()), case_name);

}  // namespace
