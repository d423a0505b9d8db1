// Differential table for the file utilities: tests/builtins_files/cases/*.txt. Each case runs in a fresh
// bashkit Shell (every utility registered, MemoryFs, cwd /home/user) and, when /bin/bash exists, under the
// real bash with GNU coreutils/findutils (LC_ALL=C, TZ=UTC, umask 022) in an empty temporary directory.
// Both must print the stored stdout and exit with the stored status, so expectations never drift from GNU.
//
// Case format:
//   === name
//   <script lines>                 (relative paths; stderr is only compared when the script says 2>&1)
//   --- stdin                      (optional)
//   <lines>
//   --- stdout                     (or `--- stdout (no newline at end)`)
//   <expected lines>
//   --- status 0
//   --- requires: TOOL             (optional: the GNU side runs only when /usr/bin/TOOL exists)
//   --- bashkit-only: <reason>     (optional: GNU is not compared, e.g. the owner is `user` here, root there)
//   --- known-difference: <reason> (optional: bashkit is not compared, GNU still is)
//
// The real run's output has its working directory replaced by /home/user, so absolute paths compare.
// Every script starts with a prelude (on its first line) defining `sorted`, an insertion sort in pure
// bash, so scripts can order output whose order GNU leaves to readdir (find, du) without `sort`.
// tools/fill_cases fills expectations from the real tools the same way.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "builtins/registry.hpp"
#include "interp/shell.hpp"
#include "vfs/memory_fs.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using namespace bashkit;

struct Case {
    std::string file;
    std::string name;
    std::string id;
    int line = 0;
    std::string script;
    std::string stdin_data;
    std::string stdout_data;
    int status = 0;
    std::string requires_tool;
    std::string bashkit_only;
    std::string known_difference;
};

std::string sanitize(const std::string& s) {
    std::string out;
    for (char c : s) out.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
    return out;
}

std::vector<Case> load_cases() {
    std::vector<Case> cases;
    fs::path dir = fs::path(BASHKIT_SOURCE_DIR) / "tests" / "builtins_files" / "cases";
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
            if (l.rfind("--- requires: ", 0) == 0) {
                cur->requires_tool = l.substr(14);
                continue;
            }
            if (l.rfind("--- bashkit-only:", 0) == 0) {
                cur->bashkit_only = l.substr(17);
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

struct RealRun {
    bool ran = false;
    std::string out;
    int status = -1;
};

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
    if (from.empty()) return;
    for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size()))
        s.replace(pos, from.size(), to);
}

// Defines `sorted` (stdin lines in byte order) for every script, on the script's first line.
const char* const kPrelude =
    R"(sorted() { local -a a; local l i j t; while IFS= read -r l; do a+=("$l"); done; for ((i=1;i<${#a[@]};i++)); do t=${a[i]}; for ((j=i-1;j>=0;j--)); do [[ ${a[j]} > $t ]] || break; a[j+1]=${a[j]}; done; a[j+1]=$t; done; ((${#a[@]})) && printf '%s\n' "${a[@]}"; return 0; }; )";

RealRun run_real(const Case& c) {
    RealRun r;
    if (access("/bin/bash", X_OK) != 0) return r;
    if (!c.requires_tool.empty() && access(("/usr/bin/" + c.requires_tool).c_str(), X_OK) != 0) return r;
    char tmpl[] = "/tmp/bashkit-files-XXXXXX";
    char* d = mkdtemp(tmpl);
    if (!d) return r;
    fs::path dir(d);
    fs::path work = dir / "work";
    fs::create_directory(work);
    std::ofstream(dir / "stdin", std::ios::binary) << c.stdin_data;
    std::string home = "HOME=" + work.string();
    std::string script = std::string(kPrelude) + "umask 022; " + c.script;
    std::vector<std::string> args = {"/usr/bin/env", "-i", home, "PATH=/usr/bin:/bin", "LC_ALL=C", "TZ=UTC",
                                     "USER=user", "/usr/bin/timeout", "20", "/bin/bash", "-c", script, "bash"};
    if (access("/usr/bin/timeout", X_OK) != 0) args.erase(args.begin() + 7, args.begin() + 9);
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
        r.out = slurp(out_path);
        replace_all(r.out, work.string(), "/home/user");
    }
    std::error_code ec;
    fs::permissions(dir, fs::perms::all, fs::perm_options::add, ec);
    fs::remove_all(dir, ec);
    return r;
}

class FilesDiffTest : public ::testing::TestWithParam<size_t> {};

TEST_P(FilesDiffTest, Case) {
    const Case& c = all_cases()[GetParam()];
    SCOPED_TRACE(c.file + ":" + std::to_string(c.line) + " " + c.name);
    if (c.bashkit_only.empty()) {
        RealRun b = run_real(c);
        if (b.ran) {
            EXPECT_EQ(b.out, c.stdout_data) << "GNU's stdout differs from the stored expectation\n--- script\n"
                                            << c.script;
            EXPECT_EQ(b.status, c.status) << "GNU's status differs from the stored expectation";
        }
    }
    if (!c.known_difference.empty()) return;
    vfs::MemoryFs mfs;
    ASSERT_TRUE(mfs.mkdir_all("/home/user").ok());
    ASSERT_TRUE(mfs.mkdir_all("/tmp").ok());
    interp::CommandRegistry registry;
    builtins::register_all(registry);
    interp::ShellOptions opts;
    opts.script_name = "bash";
    opts.limits.timeout = std::chrono::seconds(20);
    opts.env = {{"LC_ALL", "C"}, {"TZ", "UTC"}};
    interp::Shell sh(mfs, registry, opts);
    auto r = sh.run(std::string(kPrelude) + c.script, c.stdin_data);
    EXPECT_EQ(r.out, c.stdout_data) << "bashkit's stdout\n--- script\n" << c.script << "--- stderr\n" << r.err;
    EXPECT_EQ(r.exit_code, c.status) << "bashkit's status\n--- stderr\n" << r.err;
}

std::string case_name(const ::testing::TestParamInfo<size_t>& info) { return all_cases()[info.param].id; }

std::vector<size_t> case_indices() {
    std::vector<size_t> v(all_cases().size());
    for (size_t i = 0; i < v.size(); ++i) v[i] = i;
    return v;
}

INSTANTIATE_TEST_SUITE_P(Files, FilesDiffTest, ::testing::ValuesIn(case_indices()), case_name);

}  // namespace
