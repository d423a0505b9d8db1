#include "tests/common/difftable.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "utils/registry.hpp"
#include "interp/shell.hpp"
#include "interp/stream.hpp"
#include "vfs/memory_fs.hpp"

namespace bashkit::testing {

namespace fs = std::filesystem;

namespace {

constexpr const char* kNoNewline = " (no newline at end)";

std::string sanitize(const std::string& s) {
    std::string out;
    for (char c : s) out.push_back(std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
    return out;
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// Strips a trailing " (no newline at end)" from `s`; says whether it was there.
bool strip_no_newline(std::string& s) {
    const std::string nn = kNoNewline;
    if (s.size() >= nn.size() && s.compare(s.size() - nn.size(), nn.size(), nn) == 0) {
        s.resize(s.size() - nn.size());
        return true;
    }
    return false;
}

void drop_last_newline(std::string& s) {
    if (!s.empty() && s.back() == '\n') s.pop_back();
}

void parse_file(const fs::path& f, std::vector<DiffCase>& cases) {
    std::ifstream in(f, std::ios::binary);
    std::string l;
    const std::string stem = f.stem().string();
    DiffCase* cur = nullptr;
    enum { None, Script, File, Stdin, Stdout } section = None;
    bool no_newline = false;  // for the open File or Stdout section
    int lineno = 0;
    auto close_section = [&]() {
        if (cur && no_newline) {
            if (section == Stdout) drop_last_newline(cur->stdout_data);
            if (section == File) drop_last_newline(cur->setup.back().content);
        }
        no_newline = false;
        section = None;
    };
    while (std::getline(in, l)) {
        ++lineno;
        if (starts_with(l, "=== ")) {
            close_section();
            cur = &cases.emplace_back();
            cur->file = f.filename().string();
            cur->name = l.substr(4);
            cur->line = lineno;
            cur->id = sanitize(stem + "_" + cur->name);
            section = Script;
            continue;
        }
        if (!cur) continue;
        if (starts_with(l, "--- ")) {
            close_section();
            std::string rest = l.substr(4);
            if (starts_with(rest, "file ")) {
                SetupEntry e;
                e.path = rest.substr(5);
                no_newline = strip_no_newline(e.path);
                cur->setup.push_back(e);
                section = File;
            } else if (starts_with(rest, "dir ")) {
                cur->setup.push_back({SetupEntry::kDir, rest.substr(4), "", false});
            } else if (starts_with(rest, "symlink ")) {
                const std::string spec = rest.substr(8);
                const size_t arrow = spec.find(" -> ");
                cur->setup.push_back({SetupEntry::kSymlink, spec.substr(0, arrow),
                                      arrow == std::string::npos ? "" : spec.substr(arrow + 4), false});
            } else if (rest == "stdin") {
                cur->has_stdin = true;
                section = Stdin;
            } else if (starts_with(rest, "stdout")) {
                no_newline = rest.find("no newline") != std::string::npos;
                section = Stdout;
            } else if (starts_with(rest, "status ")) {
                cur->status = std::stoi(rest.substr(7));
            } else if (starts_with(rest, "requires: ")) {
                cur->requires_tool = rest.substr(10);
            } else if (starts_with(rest, "bashkit-only:")) {
                cur->bashkit_only = rest.substr(13);
            } else if (starts_with(rest, "known-difference:")) {
                cur->known_difference = rest.substr(17);
            } else {
                ADD_FAILURE() << f.string() << ":" << lineno << ": unknown section '" << l << "'";
            }
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

std::string read_host_file(const fs::path& p) {
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

constexpr const char* kHome = "/home/user";

// Whether child `pid` ends within `limit` (it is left to reap); true as well when that cannot be watched
// (no pidfd: the caller then waits without a limit).
bool wait_within(pid_t pid, std::chrono::milliseconds limit) {
    const int fd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
    if (fd < 0) return true;
    pollfd p{fd, POLLIN, 0};
    const auto deadline = std::chrono::steady_clock::now() + limit;
    int n = 0;
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        n = poll(&p, 1, static_cast<int>(std::max<long long>(0, left.count())));
        if (n >= 0 || errno != EINTR) break;
    }
    close(fd);
    return n != 0;
}

}  // namespace

std::vector<DiffCase> load_diff_cases(const std::string& dir) {
    std::vector<DiffCase> cases;
    std::vector<fs::path> files;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(fs::path(BASHKIT_SOURCE_DIR) / dir, ec))
        if (e.path().extension() == ".txt") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) parse_file(f, cases);
    std::set<std::string> seen;
    for (auto& c : cases) {
        const std::string base = c.id;
        for (int n = 2; !seen.insert(c.id).second; ++n) c.id = base + "_" + std::to_string(n);
    }
    return cases;
}

// BASHKIT_DIFF_REAL=0: the stored expectations only, without running the real tools (a temporary tree and
// three processes a case), for a quicker run by hand. scripts/test runs every table once, real side included.
bool real_side_enabled() {
    const char* v = std::getenv("BASHKIT_DIFF_REAL");
    return !(v && std::string_view(v) == "0");
}

RunResult run_real(const DiffConfig& config, const DiffCase& c) {
    RunResult r;
    if (!c.bashkit_only.empty() || access("/bin/bash", X_OK) != 0) return r;
    static const bool enabled = real_side_enabled();
    if (!enabled) return r;
    if (!c.requires_tool.empty() && access(("/usr/bin/" + c.requires_tool).c_str(), X_OK) != 0) return r;
    if (config.real_available && !config.real_available(c)) return r;
    char tmpl[] = "/tmp/bashkit-diff-XXXXXX";
    const char* d = mkdtemp(tmpl);
    if (!d) return r;
    const fs::path dir(d);
    const fs::path work = dir / "work";
    std::error_code ec;
    fs::create_directory(work, ec);
    for (const auto& sub : config.dirs) fs::create_directories(work / sub, ec);
    for (const auto& e : c.setup) {
        const fs::path p = work / e.path;
        fs::create_directories(p.parent_path(), ec);
        if (e.kind == SetupEntry::kDir) {
            fs::create_directories(p, ec);
        } else if (e.kind == SetupEntry::kSymlink) {
            fs::create_symlink(e.content, p, ec);
        } else {
            std::ofstream(p, std::ios::binary) << e.content;
        }
    }
    std::ofstream(dir / "stdin", std::ios::binary) << c.stdin_data;
    std::string script = config.prelude + c.script;
    if (config.real_script) script = config.real_script(c, script);
    script = "umask 022; " + script;
    // bash runs directly with only these variables (no `env -i` process), in its own process group, and
    // is stopped after 20 s (no `timeout` process): two fewer programs a case, together about 10 ms of CPU
    // time on the CI machine, over the 5,700 cases of the tables.
    std::vector<std::pair<std::string, std::string>> vars = {{"HOME", work.string()}, {"PATH", "/usr/bin:/bin"},
                                                             {"USER", "user"}};
    for (const auto& kv : config.env) {
        auto same = std::find_if(vars.begin(), vars.end(), [&](const auto& old) { return old.first == kv.first; });
        if (same != vars.end()) same->second = kv.second;
        else vars.push_back(kv);
    }
    std::vector<std::string> env_strings;
    for (const auto& [k, v] : vars) env_strings.push_back(k + "=" + v);
    std::vector<char*> envp;
    for (auto& e : env_strings) envp.push_back(e.data());
    envp.push_back(nullptr);
    std::vector<std::string> args = {"/bin/bash", "-c", script, "bash"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    const std::string in_path = (dir / "stdin").string();
    const std::string out_path = (dir / "stdout").string();
    const std::string err_path = (dir / "stderr").string();
    posix_spawn_file_actions_addopen(&fa, 0, c.has_stdin ? in_path.c_str() : "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addchdir_np(&fa, work.c_str());
    // As under timeout(1): a process group of its own, and the signals it handled back at their defaults.
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t defaults;
    sigemptyset(&defaults);
    for (int sig : {SIGALRM, SIGINT, SIGQUIT, SIGHUP, SIGTERM, SIGTTIN, SIGTTOU, SIGCHLD}) sigaddset(&defaults, sig);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF);
    pid_t pid;
    const int rc = posix_spawn(&pid, argv[0], &fa, &attr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (rc == 0) {
        int st = 0;
        const bool timed_out = !wait_within(pid, std::chrono::seconds(20));
        if (timed_out) {
            kill(-pid, SIGTERM);
            if (!wait_within(pid, std::chrono::seconds(2))) kill(-pid, SIGKILL);
        }
        waitpid(pid, &st, 0);
        r.ran = true;
        r.status = timed_out ? 124 : WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        r.out = read_host_file(out_path);
        r.err = read_host_file(err_path);
        replace_all(r.out, work.string(), kHome);
    }
    // Scripts may leave unreadable or unwritable folders behind.
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec))
        if (it->is_directory(ec) && !it->is_symlink(ec)) fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(dir, ec);
    return r;
}

RunResult run_bashkit(const DiffConfig& config, const DiffCase& c) {
    RunResult r;
    vfs::MemoryFs mfs;
    const std::string home = kHome;
    EXPECT_TRUE(mfs.mkdir_all(home).ok());
    EXPECT_TRUE(mfs.mkdir_all("/tmp").ok());
    for (const auto& sub : config.dirs) EXPECT_TRUE(mfs.mkdir_all(home + "/" + sub).ok()) << sub;
    for (const auto& e : c.setup) {
        const std::string p = home + "/" + e.path;
        EXPECT_TRUE(mfs.mkdir_all(vfs::path_dirname(p)).ok()) << p;
        if (e.kind == SetupEntry::kDir) {
            EXPECT_TRUE(mfs.mkdir_all(p).ok()) << p;
        } else if (e.kind == SetupEntry::kSymlink) {
            EXPECT_TRUE(mfs.symlink(e.content, p).ok()) << p;
        } else {
            EXPECT_TRUE(mfs.write_file(p, e.content).ok()) << p;
        }
    }
    interp::CommandRegistry registry;
    if (config.utilities) utils::register_all(registry);
    interp::ShellOptions opts;
    opts.script_name = "bash";
    // A guard against a hang, not a speed check: a case slow under the sanitizers on a loaded 2-core machine
    // (20 s was reached there) must not fail for it.
    opts.limits.timeout = std::chrono::seconds(60);
    opts.env = config.env;
    interp::Shell sh(mfs, registry, opts);
    // Messages named as `bash -c` names them ($0, "bash: -c" for syntax errors), so that a case may compare
    // them with 2>&1.
    interp::StringSource in{c.stdin_data};
    interp::StringSink out(opts.limits.max_output_bytes), err(opts.limits.max_output_bytes);
    interp::Shell::Source source;
    source.name = "bash";
    source.syntax_name = "bash: -c";
    (void)sh.run(config.prelude + c.script, in, out, err, source);
    // bash -c runs the EXIT trap as the shell ends.
    auto fin = sh.close();
    r.ran = true;
    r.out = out.take() + fin.out;
    r.err = err.take() + fin.err;
    r.status = fin.exit_code;
    return r;
}

void check_case(const DiffConfig& config, const DiffCase& c) {
    SCOPED_TRACE(config.cases_dir + "/" + c.file + ":" + std::to_string(c.line) + " " + c.name);
    const RunResult real = run_real(config, c);
    // tests/tools/fill_cases: record what the real tools printed, for the case file to be rewritten.
    if (const char* fill = std::getenv("BASHKIT_DIFF_FILL"); fill && *fill) {
        std::ofstream(fs::path(fill) / "cases_dir") << config.cases_dir;
        if (real.ran) {
            std::ofstream(fs::path(fill) / (c.file + ":" + std::to_string(c.line)), std::ios::binary)
                << real.status << "\n" << real.out;
        }
        return;
    }
    if (real.ran) {
        EXPECT_EQ(real.out, c.stdout_data) << "the real tools' stdout differs from the stored expectation\n"
                                           << "--- script\n" << c.script << "--- stderr\n" << real.err;
        EXPECT_EQ(real.status, c.status) << "the real tools' status differs from the stored expectation";
    }
    if (!c.known_difference.empty()) return;
    const RunResult r = run_bashkit(config, c);
    EXPECT_EQ(r.out, c.stdout_data) << "bashkit's stdout\n--- script\n" << c.script << "--- stderr\n" << r.err;
    EXPECT_EQ(r.status, c.status) << "bashkit's status\n--- stderr\n" << r.err;
}

DiffTable::DiffTable(DiffConfig config) : config_(std::move(config)), cases_(load_diff_cases(config_.cases_dir)) {}

std::vector<size_t> DiffTable::indices() const {
    std::vector<size_t> v(cases_.size());
    for (size_t i = 0; i < v.size(); ++i) v[i] = i;
    return v;
}

}  // namespace bashkit::testing
