// Deadlines and what outlives a run: the cancel token's timer thread (interp/cancel.cpp) and the session's
// fd 0/1/2 proxies that background jobs write through after their run has returned.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

#include "interp/command.hpp"
#include "interp/limits.hpp"
#include "interp/shell.hpp"
#include "vfs/memory_fs.hpp"

namespace {

using namespace bashkit;
using namespace bashkit::interp;
using namespace std::chrono_literals;

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
    EXPECT_TRUE(flag_rises(t, 10s));
    EXPECT_TRUE(t.timed_out());
}

TEST(Deadline, TheEarliestOfSeveralFiresFirst) {
    CancelToken late, early;
    late.set_deadline(CancelToken::Clock::now() + 1h);
    early.set_deadline(CancelToken::Clock::now() + 20ms);
    EXPECT_TRUE(flag_rises(early, 10s));
    EXPECT_FALSE(late.cancelled_fast());
}

TEST(Deadline, ResetAndDisarmStopTheTimer) {
    CancelToken a, b;
    a.set_deadline(CancelToken::Clock::now() + 20ms);
    a.reset();
    b.set_deadline(CancelToken::Clock::now() + 20ms);
    b.set_deadline(CancelToken::Clock::time_point::max());
    CancelToken probe;  // fires after both would have
    probe.set_deadline(CancelToken::Clock::now() + 60ms);
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
    t.set_deadline(CancelToken::Clock::time_point::max());
    t.reset();
    t.set_deadline(CancelToken::Clock::now() + 3s);
    std::this_thread::sleep_for(200ms);
    EXPECT_FALSE(t.cancelled_fast());
    EXPECT_TRUE(flag_rises(t, 20s));
    EXPECT_TRUE(t.timed_out());
}

TEST(Deadline, AnEarlierDeadlineReplacesALaterOne) {
    CancelToken t;
    t.set_deadline(CancelToken::Clock::now() + 1h);
    t.set_deadline(CancelToken::Clock::now() + 20ms);
    EXPECT_TRUE(flag_rises(t, 10s));
}

TEST(Deadline, ADeadlineSetWhileTheOldEntryComesDueStillFires) {
    // The thread settles a due entry while the owner re-arms: whichever order they meet in, the new deadline
    // must be queued once and fire.
    CancelToken t;
    for (int i = 0; i < 300; ++i) {
        t.reset();
        t.set_deadline(CancelToken::Clock::now() + std::chrono::microseconds(i % 7));
        t.set_deadline(CancelToken::Clock::time_point::max());
        t.set_deadline(CancelToken::Clock::now() + std::chrono::microseconds(100 + i % 13));
        ASSERT_TRUE(flag_rises(t, 10s)) << "iteration " << i;
    }
}

TEST(Deadline, AnArmedTokenCanBeDestroyed) {
    for (int i = 0; i < 100; ++i) {
        auto t = std::make_unique<CancelToken>();
        t->set_deadline(CancelToken::Clock::now() + std::chrono::microseconds(i * 10));
        if (i % 2) std::this_thread::sleep_for(std::chrono::microseconds(50));
        t.reset();  // the timer must never touch it afterwards (ASan would see it)
    }
    CancelToken probe;
    probe.set_deadline(CancelToken::Clock::now() + 5ms);
    EXPECT_TRUE(flag_rises(probe, 10s));
}

TEST(Deadline, ARunOfSlowIterationsEndsAtItsTimeout) {
    vfs::MemoryFs fs;
    CommandRegistry reg;
    ShellOptions o;
    o.limits.timeout = 200ms;
    Shell sh(fs, reg, o);
    // Each iteration is one command; the loop must still stop (124), not run on.
    auto r = sh.run("x=$(printf '%0200000d' 0); while :; do y=${x//0/ab}; done");
    EXPECT_EQ(r.exit_code, 124);
    EXPECT_EQ(sh.run("echo ok").out, "ok\n");
}

TEST(Deadline, BackgroundJobsWriteSafelyAfterTheirRun) {
    // Shell::run's output sinks live on its stack: a job still writing when run() returns must not reach
    // them (it used to: a use-after-free that crashed the embedding process under `f() { f & f; }`).
    vfs::MemoryFs fs;
    CommandRegistry reg;
    Shell sh(fs, reg);
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
    vfs::MemoryFs fs;
    CommandRegistry reg;
    ShellOptions o;
    o.limits.timeout = 300ms;
    Shell sh(fs, reg, o);
    // Eight spinning jobs on a few cores: some have not yet seen the timeout when the next run starts.
    EXPECT_EQ(sh.run("for i in 1 2 3 4 5 6 7 8; do while :; do :; done & done; while :; do :; done").exit_code, 124);
    auto r = sh.run("wait; echo done");
    EXPECT_EQ(r.out, "done\n");
    EXPECT_EQ(r.exit_code, 0);
}

TEST(Deadline, JobsOfAFinishedRunKeepRunning) {
    // A run that ends normally leaves its jobs running into the next one (as an interactive shell does).
    vfs::MemoryFs fs;
    CommandRegistry reg;
    Shell sh(fs, reg);
    // (No utilities in this registry: a builtin loop stands for `sleep`.)
    EXPECT_EQ(sh.run("{ for ((i = 0; i < 100000; i++)); do :; done; echo late > /f; } &").exit_code, 0);
    auto r = sh.run("wait; read -r x < /f; echo $x");
    EXPECT_EQ(r.out, "late\n") << r.err;
}

}  // namespace
