// The differential table of the search utilities: tests/builtins_search/cases/*.txt. Each case sets up
// files, runs a script in a bashkit Shell (utilities registered, MemoryFs) and compares stdout and the exit
// status with the stored expectation; when /bin/bash exists the same script runs under it with LC_ALL=C in
// a temporary directory holding the same files, against the real grep (and the real rg when installed, for
// cases in rg*.txt files), and must give the stored expectation too.
//
// Case format:
//   === name
//   <script lines>
//   --- file PATH                  (optional, repeatable: the file's content up to the next ---; parents
//   <lines>                         are created; `--- file PATH (no newline at end)` drops the last newline)
//   --- dir PATH                   (optional: an empty directory)
//   --- symlink PATH -> TARGET     (optional)
//   --- stdin                      (optional)
//   <lines>
//   --- stdout                     (or `--- stdout (no newline at end)`)
//   <lines>
//   --- status N
//   --- known-difference: <reason> (optional: bashkit is not compared, the real tools still are)
//
// For rg, the real tool runs as `rg -n --sort path ...`: bashkit's rg shows line numbers by default and
// always walks in sorted order (see builtins/search/rg.cpp), which is what these options ask of ripgrep
// writing to a pipe. Cases that read stdin alone give -n or -N explicitly.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <spawn.h>
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

struct SetupEntry {
    enum Kind { kFile, kDir, kSymlink } kind = kFile;
    std::string path;
    std::string content;  // file content, or symlink target
    bool no_newline = false;
};

struct Case {
    std::string file;
    std::string name;
    std::string id;
    int line = 0;
    std::string script;
    std::vector<SetupEntry> setup;
    std::string stdin_data;
    std::string stdout_data;
    int status = 0;
    std::string known_difference;
    bool uses_rg = false;
};

std::string sanitize(const std::string& s) {
    std::string out;
    for (char c : s) out.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
    return out;
}

std::vector<Case> load_cases() {
    std::vector<Case> cases;
    fs::path dir = fs::path(BASHKIT_SOURCE_DIR) / "tests" / "builtins_search" / "cases";
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (e.path().extension() == ".txt") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
        std::ifstream in(f, std::ios::binary);
        std::string line;
        std::vector<std::string> lines;
        while (std::getline(in, line)) lines.push_back(line);
        const std::string stem = f.stem().string();
        Case* cur = nullptr;
        enum { None, Script, File, Stdin, Stdout } section = None;
        bool no_newline = false;
        auto close_section = [&]() {
            if (!cur) return;
            if (section == Stdout && no_newline && !cur->stdout_data.empty() && cur->stdout_data.back() == '\n')
                cur->stdout_data.pop_back();
            if (section == File && !cur->setup.empty() && cur->setup.back().no_newline &&
                !cur->setup.back().content.empty() && cur->setup.back().content.back() == '\n')
                cur->setup.back().content.pop_back();
            no_newline = false;
        };
        for (size_t i = 0; i < lines.size(); ++i) {
            const std::string& l = lines[i];
            if (l.rfind("=== ", 0) == 0) {
                close_section();
                cases.emplace_back();
                cur = &cases.back();
                cur->file = f.filename().string();
                cur->name = l.substr(4);
                cur->line = static_cast<int>(i + 1);
                cur->id = sanitize(stem + "_" + cur->name);
                cur->uses_rg = stem.rfind("rg", 0) == 0;
                section = Script;
                continue;
            }
            if (!cur) continue;
            if (l.rfind("--- file ", 0) == 0) {
                close_section();
                SetupEntry e;
                e.path = l.substr(9);
                const std::string nn = " (no newline at end)";
                if (e.path.size() > nn.size() && e.path.compare(e.path.size() - nn.size(), nn.size(), nn) == 0) {
                    e.path.resize(e.path.size() - nn.size());
                    e.no_newline = true;
                }
                cur->setup.push_back(e);
                section = File;
                continue;
            }
            if (l.rfind("--- dir ", 0) == 0) {
                close_section();
                SetupEntry e;
                e.kind = SetupEntry::kDir;
                e.path = l.substr(8);
                cur->setup.push_back(e);
                section = None;
                continue;
            }
            if (l.rfind("--- symlink ", 0) == 0) {
                close_section();
                SetupEntry e;
                e.kind = SetupEntry::kSymlink;
                const std::string spec = l.substr(12);
                const size_t arrow = spec.find(" -> ");
                e.path = spec.substr(0, arrow);
                e.content = arrow == std::string::npos ? "" : spec.substr(arrow + 4);
                cur->setup.push_back(e);
                section = None;
                continue;
            }
            if (l == "--- stdin") {
                close_section();
                section = Stdin;
                continue;
            }
            if (l.rfind("--- stdout", 0) == 0) {
                close_section();
                section = Stdout;
                no_newline = l.find("no newline") != std::string::npos;
                continue;
            }
            if (l.rfind("--- status ", 0) == 0) {
                close_section();
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
                case File: cur->setup.back().content += l + "\n"; break;
                case Stdin: cur->stdin_data += l + "\n"; break;
                case Stdout: cur->stdout_data += l + "\n"; break;
                default: break;
            }
        }
        close_section();
    }
    std::vector<std::string> seen;
    for (auto& c : cases) {
        const std::string base = c.id;
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

std::string read_host_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

struct RealRun {
    bool ran = false;
    std::string out;
    int status = -1;
};

bool have_real_rg() { return access("/usr/bin/rg", X_OK) == 0; }

RealRun run_real(const Case& c) {
    RealRun r;
    if (access("/bin/bash", X_OK) != 0) return r;
    if (c.uses_rg && !have_real_rg()) return r;
    char tmpl[] = "/tmp/bashkit-search-XXXXXX";
    char* d = mkdtemp(tmpl);
    if (!d) return r;
    const fs::path dir(d);
    const fs::path work = dir / "work";
    fs::create_directory(work);
    for (const auto& e : c.setup) {
        const fs::path p = work / e.path;
        std::error_code ec;
        if (e.kind == SetupEntry::kDir) {
            fs::create_directories(p, ec);
        } else if (e.kind == SetupEntry::kSymlink) {
            fs::create_directories(p.parent_path(), ec);
            fs::create_symlink(e.content, p, ec);
        } else {
            fs::create_directories(p.parent_path(), ec);
            std::ofstream(p, std::ios::binary) << e.content;
        }
    }
    std::ofstream(dir / "stdin", std::ios::binary) << c.stdin_data;
    std::string script = c.script;
    if (c.uses_rg) script = "rg() { command rg -n --sort path \"$@\"; }\n" + script;
    const std::string home = "HOME=" + work.string();
    std::vector<std::string> args = {"/usr/bin/env", "-i", home, "PATH=/usr/bin:/bin", "LC_ALL=C",
                                     "/usr/bin/timeout", "20", "/bin/bash", "-c", script, "bash"};
    if (access("/usr/bin/timeout", X_OK) != 0) args.erase(args.begin() + 5, args.begin() + 7);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    const std::string in_path = (dir / "stdin").string();
    const std::string out_path = (dir / "stdout").string();
    // No stdin section: /dev/null, so that rg with no path walks the directory (ripgrep reads a stdin that
    // is a file or a pipe, which bashkit's rg only does when it has data).
    posix_spawn_file_actions_addopen(&fa, 0, c.stdin_data.empty() ? "/dev/null" : in_path.c_str(), O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addchdir_np(&fa, work.c_str());
    pid_t pid;
    const int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc == 0) {
        int st = 0;
        waitpid(pid, &st, 0);
        r.ran = true;
        r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        r.out = read_host_file(out_path);
    }
    std::error_code ec;
    fs::remove_all(dir, ec);
    return r;
}

interp::ExecResult run_bashkit(const Case& c) {
    vfs::MemoryFs mfs;
    EXPECT_TRUE(mfs.mkdir_all("/home/user").ok());
    EXPECT_TRUE(mfs.mkdir_all("/tmp").ok());
    for (const auto& e : c.setup) {
        const std::string p = "/home/user/" + e.path;
        if (e.kind == SetupEntry::kDir) {
            EXPECT_TRUE(mfs.mkdir_all(p).ok()) << p;
        } else if (e.kind == SetupEntry::kSymlink) {
            EXPECT_TRUE(mfs.mkdir_all(vfs::path_dirname(p)).ok()) << p;
            EXPECT_TRUE(mfs.symlink(e.content, p).ok()) << p;
        } else {
            EXPECT_TRUE(mfs.mkdir_all(vfs::path_dirname(p)).ok()) << p;
            EXPECT_TRUE(mfs.write_file(p, e.content).ok()) << p;
        }
    }
    interp::CommandRegistry registry;
    builtins::register_all(registry);
    // Scripts sort recursive output (GNU grep walks in readdir order). Until the text family provides
    // sort, a plain bytewise line sort (LC_ALL=C sort without options) stands in for it here.
    if (!registry.find("sort")) {
        registry.add("sort", "test stand-in", [](interp::CommandContext& ctx) {
            std::string all;
            (void)ctx.in.read_all(all);
            std::vector<std::string> lines;
            size_t start = 0;
            while (start < all.size()) {
                size_t nl = all.find('\n', start);
                if (nl == std::string::npos) nl = all.size();
                lines.push_back(all.substr(start, nl - start));
                start = nl + 1;
            }
            std::sort(lines.begin(), lines.end());
            std::string out;
            for (const auto& l : lines) out += l + "\n";
            (void)ctx.out.write(out);
            return 0;
        });
    }
    interp::ShellOptions opts;
    opts.script_name = "bash";
    opts.limits.timeout = std::chrono::seconds(20);
    opts.env.emplace_back("LC_ALL", "C");
    interp::Shell sh(mfs, registry, opts);
    return sh.run(c.script, c.stdin_data);
}

class SearchDiffTest : public ::testing::TestWithParam<size_t> {};

TEST_P(SearchDiffTest, Case) {
    const Case& c = all_cases()[GetParam()];
    SCOPED_TRACE(c.file + ":" + std::to_string(c.line) + " " + c.name);
    const RealRun real = run_real(c);
    if (real.ran) {
        EXPECT_EQ(real.out, c.stdout_data) << "the real tools' stdout differs from the stored expectation\n--- script\n"
                                           << c.script;
        EXPECT_EQ(real.status, c.status) << "the real tools' status differs from the stored expectation";
    }
    if (!c.known_difference.empty()) return;
    const interp::ExecResult r = run_bashkit(c);
    EXPECT_EQ(r.out, c.stdout_data) << "bashkit's stdout\n--- script\n" << c.script << "--- stderr\n" << r.err;
    EXPECT_EQ(r.exit_code, c.status) << "bashkit's status\n--- stderr\n" << r.err;
}

std::string case_name(const ::testing::TestParamInfo<size_t>& info) { return all_cases()[info.param].id; }

std::vector<size_t> case_indices() {
    std::vector<size_t> v(all_cases().size());
    for (size_t i = 0; i < v.size(); ++i) v[i] = i;
    return v;
}

INSTANTIATE_TEST_SUITE_P(Table, SearchDiffTest, ::testing::ValuesIn(case_indices()), case_name);

}  // namespace
