// The hostile-script suite: scripts written to crash, hang or bloat the process that runs them (cases/*.sh,
// one file per category, each script under a `#### name` line). Every script runs in its own embedding
// process, hostile_runner (runner.cpp): one in-memory BashkitSandbox session executes the script with a
// timeout and a memory budget, then executes `echo ok` in the same session. Several scripts run at once, and
// each must:
//   - return within its timeout plus a margin (kSlack), in wall-clock or CPU time whichever is smaller
//     (the CI machine is shared: see run_one),
//   - keep the process's peak RSS (wait4's ru_maxrss) under the bound of the pass,
//   - exit normally (no signal: no abort, no crash; no exception out of the API: runner status 3),
//   - leave the session usable: the second execute prints ok.
//
// Two passes:
//   - every script with a 256 MiB budget and a 1 s timeout: peak RSS under 256 MiB + 64 MiB + the process's
//     own footprint (kBaseRss);
//   - the memory-heavy categories (kMemoryCategories) with the default budget (1 GiB) and a 3 s timeout: peak
//     RSS under 1.2 GiB.
// HOSTILE_FULL=1 in the environment runs every script in both passes with a 3 s timeout.
// The same scripts also run through the CLI (which exits after the script: judged on time, memory and a normal
// exit) and through the Python module (runner.py, the same contract as runner.cpp): two scripts of each
// category in CI, all of them with HOSTILE_FULL=1. python/tests/test_hostile_serve.py runs them through serve.
//
// Scripts with a known gap are listed in kExpectedFailures with the reason: they are run and reported, and a
// failure among them does not fail the test (a pass is reported too, so the list can shrink).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// Time allowed beyond --timeout for the run to stop, `echo ok` to run and the process to exit (the CI
// machine is shared: starting a process and tearing down a session take time under load).
constexpr auto kSlack = 2500ms;
// What the bashkit process holds before any script (binary, libraries, the tree, thread stacks touched).
constexpr long kBaseRssKiB = 64 * 1024;

// Scripts that may fail until the utilities charge their buffers and check the cancel token in their loops
// (the other half of the containment work), and the interpreter's own known gaps, each with its reason.
const std::set<std::string> kExpectedFailures = {};

// Categories whose scripts grow memory: run with the default budget too (HOSTILE_FULL=1 adds buffering,
// cmdsubst and jobs, and every other category).
const std::set<std::string> kMemoryCategories = {"doubling", "heredoc", "state"};

struct Script {
    std::string category;
    std::string name;
    std::string text;
    std::string id() const { return category + "/" + name; }
};

std::vector<Script> load_scripts() {
    std::vector<Script> out;
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(HOSTILE_CASES))
        if (e.path().extension() == ".sh") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& p : files) {
        std::ifstream f(p);
        std::string line;
        Script* cur = nullptr;
        while (std::getline(f, line)) {
            if (line.starts_with("#%")) continue;
            if (line.starts_with("#### ")) {
                out.push_back(Script{p.stem().string(), line.substr(5), {}});
                cur = &out.back();
                continue;
            }
            if (cur) cur->text += line + "\n";
        }
    }
    return out;
}

struct Outcome {
    std::string id;
    bool ok = true;
    std::string why;
    double seconds = 0;
    long rss_kib = 0;
};

// Reads a descriptor to its end, keeping the byte count and the last bytes.
void drain(int fd, std::string& tail, size_t& total) {
    char buf[65536];
    for (;;) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        total += static_cast<size_t>(n);
        tail.append(buf, static_cast<size_t>(n));
        if (tail.size() > 8192) tail.erase(0, tail.size() - 4096);
    }
    ::close(fd);
}

// How a script is run: the embedding process to spawn (its argv before the flags) and what it promises.
struct Mode {
    std::string name;
    std::vector<std::string> argv;
    bool answers_ok = true;   // the process runs `echo ok` in the same session after the script
    long extra_rss_kib = 0;   // the process's own footprint beyond kBaseRssKiB (a Python interpreter)
};

Mode cpp_mode() { return Mode{"embed", {HOSTILE_RUNNER}, true, 0}; }

// The CLI runs the script (from stdin) and exits: no second command in the same process, so only its time,
// memory and normal exit are judged.
Mode cli_mode() { return Mode{"cli", {HOSTILE_CLI}, false, 0}; }

#ifdef HOSTILE_PYTHON
Mode python_mode() {
    return Mode{"python", {HOSTILE_PYTHON, std::string(HOSTILE_CASES) + "/../runner.py"}, true, 64 * 1024};
}
#endif

// environ, plus what the Python runner needs to import the module of this build.
std::vector<char*>& spawn_env() {
    static std::vector<std::string> extra = {
#ifdef HOSTILE_PYTHONPATH
        "PYTHONPATH=" HOSTILE_PYTHONPATH,
#endif
        "PYTHONDONTWRITEBYTECODE=1"};
    static std::vector<char*> env = [] {
        std::vector<char*> e;
        for (char** p = environ; *p; ++p)
            if (std::string_view(*p).substr(0, 11) != "PYTHONPATH=") e.push_back(*p);
        for (auto& x : extra) e.push_back(x.data());
        e.push_back(nullptr);
        return e;
    }();
    return env;
}

Outcome run_one(const Script& s, const Mode& mode, const std::vector<std::string>& flags,
                std::chrono::milliseconds timeout, long max_rss_kib) {
    Outcome o;
    o.id = s.id();
    const std::string& input = s.text;
    int in[2], out[2], err[2];
    if (::pipe2(in, O_CLOEXEC) || ::pipe2(out, O_CLOEXEC) || ::pipe2(err, O_CLOEXEC)) {
        o.ok = false;
        o.why = "pipe failed";
        return o;
    }
    std::vector<std::string> args = mode.argv;
    args.insert(args.end(), flags.begin(), flags.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err[1], 2);
    pid_t pid = 0;
    auto t0 = Clock::now();
    int rc = posix_spawn(&pid, args[0].c_str(), &fa, nullptr, argv.data(), spawn_env().data());
    posix_spawn_file_actions_destroy(&fa);
    ::close(in[0]);
    ::close(out[1]);
    ::close(err[1]);
    if (rc != 0) {
        ::close(in[1]);
        ::close(out[0]);
        ::close(err[0]);
        o.ok = false;
        o.why = "spawn failed";
        return o;
    }
    std::string out_tail, err_tail;
    size_t out_total = 0, err_total = 0;
    std::thread rd_out([&] { drain(out[0], out_tail, out_total); });
    std::thread rd_err([&] { drain(err[0], err_tail, err_total); });
    std::thread wr([&] {
        size_t done = 0;
        while (done < input.size()) {
            ssize_t n = ::write(in[1], input.data() + done, input.size() - done);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            done += static_cast<size_t>(n);
        }
        ::close(in[1]);
    });
    // A watchdog: a process that does not end well past its limit is killed (and the script fails).
    // Generous: on a loaded machine a run that needs 2 s of CPU may wait 20 s for it (judged on CPU below).
    const auto hard = timeout + kSlack + 60s;
    int status = 0;
    rusage ru{};
    bool killed = false;
    for (;;) {
        pid_t w = ::wait4(pid, &status, WNOHANG, &ru);
        if (w == pid) break;
        if (w < 0 && errno != EINTR) break;
        if (!killed && Clock::now() - t0 > hard) {
            ::kill(pid, SIGKILL);
            killed = true;
        }
        std::this_thread::sleep_for(5ms);
    }
    auto elapsed = Clock::now() - t0;
    wr.join();
    rd_out.join();
    rd_err.join();
    o.seconds = std::chrono::duration<double>(elapsed).count();
    o.rss_kib = ru.ru_maxrss;
    double cpu = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                 static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    // On a shared CI machine the wall clock mostly measures waiting for a core, and a process with several
    // busy threads uses more CPU time than wall time: the smaller of the two is what the run would have
    // taken on a machine of its own.
    double took = std::min(o.seconds, cpu);
    double allowed = std::chrono::duration<double>(timeout + kSlack).count();
    std::ostringstream why;
    if (killed) why << "hung (killed after " << o.seconds << " s, " << cpu << " s of CPU); ";
    else if (took > allowed) why << "took " << o.seconds << " s (" << cpu << " s of CPU); ";
    if (WIFSIGNALED(status)) why << "died of signal " << WTERMSIG(status) << "; ";
    // (The runners' status 3; the CLI's status is the script's own: jq's compile errors are 3.)
    else if (mode.answers_ok && WIFEXITED(status) && WEXITSTATUS(status) == 3) why << "an exception crossed the API; ";
    max_rss_kib += mode.extra_rss_kib;
    if (o.rss_kib > max_rss_kib) why << "peak RSS " << o.rss_kib / 1024 << " MiB > " << max_rss_kib / 1024 << " MiB; ";
    if (mode.answers_ok && !out_tail.ends_with("ok\n")) {
        std::string t = err_tail.size() > 300 ? err_tail.substr(err_tail.size() - 300) : err_tail;
        why << "the session did not answer `echo ok` after it (stderr ends: " << t << "); ";
    }
    o.why = why.str();
    o.ok = o.why.empty();
    return o;
}

std::vector<Outcome> run_all(const std::vector<Script>& scripts, const Mode& mode,
                             const std::vector<std::string>& flags, std::chrono::milliseconds timeout,
                             long max_rss_kib) {
    std::vector<Outcome> results(scripts.size());
    std::atomic<size_t> next{0};
    // Most scripts spend their time waiting for their timeout: more runners than cores (judged on CPU time).
    unsigned workers = std::max(4u, std::min(6u, std::thread::hardware_concurrency()));
    std::vector<std::thread> pool;
    for (unsigned w = 0; w < workers; ++w)
        pool.emplace_back([&] {
            for (size_t i; (i = next.fetch_add(1)) < scripts.size();)
                results[i] = run_one(scripts[i], mode, flags, timeout, max_rss_kib);
        });
    for (auto& t : pool) t.join();
    return results;
}

void check(const std::vector<Outcome>& results, const std::string& pass) {
    int failed = 0, expected = 0;
    for (const Outcome& o : results) {
        bool xfail = kExpectedFailures.count(o.id) > 0;
        if (o.ok) {
            if (xfail) std::cout << "[" << pass << "] " << o.id << ": passes now (may leave the expected-failure list)\n";
            continue;
        }
        if (xfail) {
            ++expected;
            std::cout << "[" << pass << "] " << o.id << ": expected failure: " << o.why << "\n";
            continue;
        }
        ++failed;
        ADD_FAILURE() << "[" << pass << "] " << o.id << ": " << o.why << " (" << o.seconds << " s, "
                      << o.rss_kib / 1024 << " MiB)";
    }
    std::cout << "[" << pass << "] " << results.size() << " scripts, " << failed << " failed, " << expected
              << " expected failures\n";
}

bool full() {
    const char* f = std::getenv("HOSTILE_FULL");
    return f && *f && std::string(f) != "0";
}

TEST(Hostile, SuiteHasEnoughScripts) {
    auto scripts = load_scripts();
    EXPECT_GE(scripts.size(), 150u);
    std::set<std::string> ids;
    for (const auto& s : scripts) EXPECT_TRUE(ids.insert(s.id()).second) << "duplicate " << s.id();
    for (const auto& x : kExpectedFailures) EXPECT_TRUE(ids.count(x)) << "unknown expected failure " << x;
}

TEST(Hostile, EveryScriptUnderA256MiBBudget) {
    auto scripts = load_scripts();
    auto timeout = full() ? 3000ms : 1000ms;
    std::vector<std::string> flags = {"--timeout", full() ? "3" : "1", "--max-memory", std::to_string(256u << 20)};
    check(run_all(scripts, cpp_mode(), flags, timeout, 256 * 1024 + 64 * 1024 + kBaseRssKiB), "256M");
}

// The other ways an embedder runs a script: the CLI and the Python module. In CI a sample (the first two
// scripts of each category: every kind of attack, a fraction of the time); HOSTILE_FULL=1 runs them all.
std::vector<Script> sample(const std::vector<Script>& all) {
    if (full()) return all;
    std::vector<Script> out;
    std::map<std::string, int> taken;
    for (const auto& s : all)
        if (taken[s.category]++ < 2) out.push_back(s);
    return out;
}

TEST(Hostile, ThroughTheCli) {
    auto timeout = full() ? 3000ms : 1000ms;
    // The CLI's flags are named after the fields (ExecutionLimits::max_memory_bytes: --max-memory).
    std::vector<std::string> flags = {"--timeout", full() ? "3" : "1", "--max-memory", "256M"};
    check(run_all(sample(load_scripts()), cli_mode(), flags, timeout, 256 * 1024 + 64 * 1024 + kBaseRssKiB),
          "cli 256M");
}

#ifdef HOSTILE_PYTHON
TEST(Hostile, ThroughThePythonModule) {
    auto timeout = full() ? 3000ms : 1000ms;
    std::vector<std::string> flags = {"--timeout", full() ? "3" : "1", "--max-memory", std::to_string(256u << 20)};
    check(run_all(sample(load_scripts()), python_mode(), flags, timeout, 256 * 1024 + 64 * 1024 + kBaseRssKiB),
          "python 256M");
}
#endif

TEST(Hostile, MemoryScriptsUnderTheDefaultBudget) {
    auto all = load_scripts();
    std::vector<Script> scripts;
    for (auto& s : all)
        if (full() || kMemoryCategories.count(s.category)) scripts.push_back(s);
    std::vector<std::string> flags = {"--timeout", "3"};
    check(run_all(scripts, cpp_mode(), flags, 3000ms, 1229 * 1024), "default");
}

}  // namespace
