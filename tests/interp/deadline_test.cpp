// Deadlines and what outlives a run: the cancel token's timer thread (interp/cancel.cpp) and the session's
// fd 0/1/2 proxies that background jobs write through after their run has returned. The thread watches a
// deadline once it is asked to (watch(), or a clock read after the run lasted: limits.hpp), so the tests of the
// thread itself call watch().
#include <gtest/gtest.h>

#include <spawn.h>
#include <sys/wait.h>
#if __has_include(<sys/single_threaded.h>)
#include <sys/single_threaded.h>
#define BASHKIT_HAVE_SINGLE_THREADED 1
#endif
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "interp/command.hpp"
#include "interp/limits.hpp"
#include "interp/shell.hpp"
#include "vfs/memory_fs.hpp"

extern char** environ;

namespace {

using namespace bashkit;
using namespace bashkit::interp;
using namespace std::chrono_literals;

// A shell without utilities over its own MemoryFs; `timeout` bounds each run (none: the default).
struct TestShell {
    vfs::MemoryFs fs;
    CommandRegistry reg;
    Shell sh;
    explicit TestShell(std::chrono::milliseconds timeout = 0ms) : sh(fs, reg, options(timeout)) {}
    static ShellOptions options(std::chrono::milliseconds timeout) {
        ShellOptions o;
        if (timeout > 0ms) o.limits.timeout = timeout;
        return o;
    }
};

// Waits (a bounded poll, not a timing assertion) for the flag to go up without anyone reading the clock.
bool flag_rises(const CancelToken& t, std::chrono::milliseconds within) {
    auto end = std::chrono::steady_clock::now() + within;
    while (std::chrono::steady_clock::now() < end) {
        if (t.cancelled_fast()) return true;
        std::this_thread::sleep_for(2ms);
    }
    return t.cancelled_fast();
}

TEST(Deadline, TimerRaisesTheFlagWithoutAClockRead) {
    // The evaluator's hot checks only load the flag: a slow loop iteration must still see the deadline.
    CancelToken t;
    t.set_deadline(CancelToken::Clock::now() + 30ms);
    t.watch();
    EXPECT_TRUE(flag_rises(t, 10s));
    EXPECT_TRUE(t.timed_out());
}

TEST(Deadline, TheEarliestOfSeveralFiresFirst) {
    CancelToken late, early;
    late.set_deadline(CancelToken::Clock::now() + 1h);
    late.watch();
    early.set_deadline(CancelToken::Clock::now() + 20ms);
    early.watch();
    EXPECT_TRUE(flag_rises(early, 10s));
    EXPECT_FALSE(late.cancelled_fast());
}

TEST(Deadline, ResetAndDisarmStopTheTimer) {
    CancelToken a, b;
    a.set_deadline(CancelToken::Clock::now() + 20ms);
    a.watch();
    a.reset();
    b.set_deadline(CancelToken::Clock::now() + 20ms);
    b.watch();
    b.set_deadline(CancelToken::Clock::time_point::max());
    CancelToken probe;  // fires after both would have
    probe.set_deadline(CancelToken::Clock::now() + 60ms);
    probe.watch();
    EXPECT_TRUE(flag_rises(probe, 10s));
    EXPECT_FALSE(a.cancelled_fast());
    EXPECT_FALSE(b.cancelled_fast());
}

TEST(Deadline, ALaterDeadlineAfterADisarmFiresThenNotBefore) {
    // A session's runs: each arms its timeout and disarms it at the end. The entry of the first stays queued
    // (disarming only clears the deadline); when it comes due the thread must queue the later one instead of
    // firing.
    CancelToken t;
    t.set_deadline(CancelToken::Clock::now() + 20ms);
    t.watch();
    t.set_deadline(CancelToken::Clock::time_point::max());
    t.reset();
    t.set_deadline(CancelToken::Clock::now() + 3s);  // no watch(): the queued entry covers it
    EXPECT_FALSE(t.unwatched());
    std::this_thread::sleep_for(200ms);
    EXPECT_FALSE(t.cancelled_fast());
    EXPECT_TRUE(flag_rises(t, 20s));
    EXPECT_TRUE(t.timed_out());
}

TEST(Deadline, AnEarlierDeadlineReplacesALaterOne) {
    CancelToken t;
    t.set_deadline(CancelToken::Clock::now() + 1h);
    t.watch();
    t.set_deadline(CancelToken::Clock::now() + 20ms);
    EXPECT_TRUE(t.unwatched());  // the queued entry comes too late for it
    t.watch();
    EXPECT_TRUE(flag_rises(t, 10s));
}

TEST(Deadline, ADeadlineSetWhileTheOldEntryComesDueStillFires) {
    // The thread settles a due entry while the owner re-arms: whichever order they meet in, the new deadline
    // must be queued once and fire.
    CancelToken t;
    for (int i = 0; i < 300; ++i) {
        t.reset();
        t.set_deadline(CancelToken::Clock::now() + std::chrono::microseconds(i % 7));
        t.watch();
        t.set_deadline(CancelToken::Clock::time_point::max());
        t.set_deadline(CancelToken::Clock::now() + std::chrono::microseconds(100 + i % 13));
        t.watch();
        ASSERT_TRUE(flag_rises(t, 10s)) << "iteration " << i;
    }
}

TEST(Deadline, AnArmedTokenCanBeDestroyed) {
    for (int i = 0; i < 100; ++i) {
        auto t = std::make_unique<CancelToken>();
        t->set_deadline(CancelToken::Clock::now() + std::chrono::microseconds(i * 10));
        t->watch();
        if (i % 2) std::this_thread::sleep_for(std::chrono::microseconds(50));
        t.reset();  // the timer must never touch it afterwards (ASan would see it)
    }
    CancelToken probe;
    probe.set_deadline(CancelToken::Clock::now() + 5ms);
    probe.watch();
    EXPECT_TRUE(flag_rises(probe, 10s));
}

TEST(Deadline, ARunOfSlowIterationsEndsAtItsTimeout) {
    TestShell t(200ms);
    Shell& sh = t.sh;
    // Each iteration is one command; the loop must still stop (124), not run on.
    auto r = sh.run("x=$(printf '%0200000d' 0); while :; do y=${x//0/ab}; done");
    EXPECT_EQ(r.exit_code, 124);
    EXPECT_EQ(sh.run("echo ok").out, "ok\n");
}

TEST(Deadline, BackgroundJobsWriteSafelyAfterTheirRun) {
    // Shell::run's output sinks live on its stack: a job still writing when run() returns must not reach
    // them (it used to: a use-after-free that crashed the embedding process under `f() { f & f; }`).
    TestShell t;
    Shell& sh = t.sh;
    auto r = sh.run("for i in 1 2 3 4; do { for j in 1 2 3 4 5 6 7 8; do echo out$i; echo err$i >&2; done; } & done");
    EXPECT_EQ(r.exit_code, 0);
    for (int i = 0; i < 5; ++i) {
        auto r2 = sh.run("echo ok");
        EXPECT_NE(r2.out.find("ok\n"), std::string::npos);
    }
    EXPECT_EQ(sh.run("wait; echo done").exit_code, 0);
}

TEST(Deadline, ALateExpiryCannotMarkTheNextRun) {
    // A thread that read a past deadline just before reset() must not time out the run that follows (under
    // load it did: the session's next `echo ok` "timed out after 5 s" at once). Another thread reads the clock
    // through cancelled() all along; after each reset the token must stay clear.
    CancelToken t;
    std::atomic<bool> stop{false};
    std::thread reader([&] {
        while (!stop.load()) (void)t.cancelled();
    });
    int marked = 0;
    for (int i = 0; i < 20000; ++i) {
        t.reset();
        std::this_thread::yield();
        if (t.cancelled_fast() || t.timed_out()) ++marked;
        t.set_deadline(CancelToken::Clock::now() - 1ns);  // already past: the reader expires this run
    }
    stop = true;
    reader.join();
    EXPECT_EQ(marked, 0);
}

TEST(Deadline, JobsOfACancelledRunStayCancelled) {
    // The next run resets the session's token; the jobs of a run that timed out must not come back to life
    // with it (64 `yes > /dev/null &` jobs used to spin on in the session after their script's timeout).
    TestShell t(300ms);
    Shell& sh = t.sh;
    // Eight spinning jobs on a few cores: some have not yet seen the timeout when the next run starts.
    EXPECT_EQ(sh.run("for i in 1 2 3 4 5 6 7 8; do while :; do :; done & done; while :; do :; done").exit_code, 124);
    auto r = sh.run("wait; echo done");
    EXPECT_EQ(r.out, "done\n");
    EXPECT_EQ(r.exit_code, 0);
}

TEST(Deadline, JobsOfAFinishedRunKeepRunning) {
    // A run that ends normally leaves its jobs running into the next one (as an interactive shell does).
    TestShell t;
    Shell& sh = t.sh;
    // (No utilities in this registry: a builtin loop stands for `sleep`.)
    EXPECT_EQ(sh.run("{ for ((i = 0; i < 100000; i++)); do :; done; echo late > /f; } &").exit_code, 0);
    auto r = sh.run("wait; read -r x < /f; echo $x");
    EXPECT_EQ(r.out, "late\n") << r.err;
}

// ---------------------------------------------------------------- the watch starts lazily

double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// `script` runs into a 300 ms timeout: status 124 well within 2.5 s, then the session answers `echo ok`.
void expect_stops_at_the_timeout(const char* script) {
    TestShell t(300ms);
    auto start = std::chrono::steady_clock::now();
    auto r = t.sh.run(script);
    EXPECT_EQ(r.exit_code, 124) << r.err;
    EXPECT_LT(seconds_since(start), 2.5);
    EXPECT_EQ(t.sh.run("echo ok").out, "ok\n");
}

TEST(LazyWatch, SetDeadlineAloneLeavesTheTokenUnwatched) {
    CancelToken t;
    t.set_deadline(CancelToken::Clock::now() + 1h);
    EXPECT_TRUE(t.unwatched());
    EXPECT_FALSE(t.cancelled());  // read at once: the run has not lasted, nothing to watch yet
    EXPECT_TRUE(t.unwatched());
    t.set_deadline(CancelToken::Clock::time_point::max());
    EXPECT_FALSE(t.unwatched());
    t.set_deadline(CancelToken::Clock::now() + 1h);
    t.reset();
    EXPECT_FALSE(t.unwatched());
}

TEST(LazyWatch, AClockReadAfterTheRunLastedArmsTheWatch) {
    CancelToken t;
    t.set_deadline(CancelToken::Clock::now() + 150ms);
    std::this_thread::sleep_for(5ms);
    EXPECT_FALSE(t.cancelled());
    EXPECT_FALSE(t.unwatched());
    EXPECT_TRUE(flag_rises(t, 10s));  // raised by the thread: flag_rises never reads the clock
    EXPECT_TRUE(t.timed_out());
}

TEST(LazyWatch, APollLoopOfSlowIterationsStopsAtTheDeadline) {
    // A loop that checks only poll() and whose every iteration is slow, from the first: poll reads the clock
    // often enough while the deadline is unwatched to arm the watch, which then raises the flag on time.
    // Were it left to the every-1024th clock read, the loop would run 1024 * 5 ms.
    CancelToken t;
    auto start = std::chrono::steady_clock::now();
    t.set_deadline(start + 150ms);
    uint32_t tick = 0;
    int n = 0;
    while (!t.poll(tick) && n < 1024) {
        std::this_thread::sleep_for(5ms);
        ++n;
    }
    EXPECT_LT(n, 1024);
    EXPECT_TRUE(t.timed_out());
    EXPECT_LT(seconds_since(start), 2.0);  // 0.15 s and a wake-up on a loaded machine
}

TEST(LazyWatch, AChildTokenSeesItsParentsUnwatchedDeadline) {
    // A job's token polls its own flag and its parent's: the parent's deadline must get watched through it.
    auto parent = std::make_shared<CancelToken>();
    auto start = std::chrono::steady_clock::now();
    parent->set_deadline(start + 150ms);
    CancelToken child;
    child.set_parent(parent, parent.get());
    uint32_t tick = 0;
    int n = 0;
    while (!child.poll(tick) && n < 1024) {
        std::this_thread::sleep_for(5ms);
        ++n;
    }
    EXPECT_LT(n, 1024);
    EXPECT_TRUE(child.timed_out());
    EXPECT_LT(seconds_since(start), 2.0);
}

TEST(LazyWatch, WatchArmsAParentToo) {
    auto parent = std::make_shared<CancelToken>();
    parent->set_deadline(CancelToken::Clock::now() + 30ms);
    CancelToken child;
    child.set_parent(parent, parent.get());
    child.watch();
    EXPECT_FALSE(parent->unwatched());
    EXPECT_TRUE(flag_rises(child, 10s));
}

TEST(LazyWatch, ASlowDoublingLoopEndsAtItsTimeout) {
    // Each iteration doubles a string and costs twice the last: the shape that once ran 32 slow iterations
    // between two clock reads. The first iterations are fast, so the watch is armed before they get slow.
    expect_stops_at_the_timeout("x=a; while :; do read -r x <<< \"$x$x\"; done");
}

TEST(LazyWatch, ASlowPatternSubstitutionFromTheFirstCommandEndsAtItsTimeout) {
    // One command, one substitution over a long string: only the pattern matcher's checks run meanwhile.
    expect_stops_at_the_timeout("x=$(printf '%04000000d' 0); while :; do y=${x//0/ab}; done");
}

// The process this test runs in has started threads (the other tests): the check runs in a fresh process,
// this binary again with only LazyWatch.ChildProcess selected.
TEST(LazyWatch, AShortRunStartsNoThread) {
    std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
    std::string filter = "--gtest_filter=LazyWatch.ChildProcess";
    char* argv[] = {self.data(), filter.data(), nullptr};
    std::vector<char*> env;
    for (char** e = environ; *e; ++e) env.push_back(*e);
    std::string mark = "BASHKIT_LAZY_WATCH_CHILD=1";
    env.push_back(mark.data());
    env.push_back(nullptr);
    pid_t pid = 0;
    ASSERT_EQ(posix_spawn(&pid, self.c_str(), nullptr, nullptr, argv, env.data()), 0);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "the child's assertions failed (its output is above)";
}

size_t threads_of_this_process() {
    size_t n = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/task")) ++n;
    return n;
}

TEST(LazyWatch, ChildProcess) {
    if (!std::getenv("BASHKIT_LAZY_WATCH_CHILD")) GTEST_SKIP() << "run by LazyWatch.AShortRunStartsNoThread";
    ASSERT_EQ(threads_of_this_process(), 1u);
    TestShell t;  // the default timeout
    Shell& sh = t.sh;
    for (int i = 0; i < 100; ++i) {
        EXPECT_EQ(sh.run("true").exit_code, 0);
        EXPECT_EQ(sh.run(":; x=1; y=$x; echo \"$y\"").out, "1\n");
    }
    // Warm and short: a process with a single thread counts shared_ptr references without atomics.
    EXPECT_EQ(threads_of_this_process(), 1u) << "a short run started a thread";
#ifdef BASHKIT_HAVE_SINGLE_THREADED
    EXPECT_TRUE(__libc_single_threaded);  // what libstdc++ looks at
#endif
    // The control: a run that lasts does start the watch, which this count sees.
    EXPECT_EQ(sh.run("for ((i = 0; i < 200000; i++)); do :; done; echo done").out, "done\n");
    EXPECT_EQ(threads_of_this_process(), 2u);
#ifdef BASHKIT_HAVE_SINGLE_THREADED
    EXPECT_FALSE(__libc_single_threaded);
#endif
}

}  // namespace
