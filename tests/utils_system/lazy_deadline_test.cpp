// A run's timeout fires on time when its first command blocks or computes for long. The timer thread that
// raises the cancel flag at a deadline is started lazily (interp/limits.hpp): only once a run lasts or
// blocks. Each script below does nothing else than that one command, under a 300 ms timeout; each must end
// with the timeout's status soon after it, and leave the session usable.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "interp/shell.hpp"
#include "utils/registry.hpp"
#include "vfs/memory_fs.hpp"

namespace {

using namespace bashkit;
using namespace std::chrono_literals;

struct BlockingCase {
    const char* what;
    const char* script;
};

TEST(LazyDeadline, OneBlockingOrEndlessCommandEndsAtTheTimeout) {
    const BlockingCase cases[] = {
        {"sleep", "sleep 100"},
        {"sleep in a substitution", "x=$(sleep 100); echo no"},
        {"read from a pipe that never writes", "sleep 100 | { read -r x; echo no; }"},
        {"wait on a sleeping job", "sleep 100 & wait"},
        {"wait for one job", "sleep 100 & wait $!"},
        {"jq endless loop", "jq -n 'until(false; .)'"},
        {"awk endless loop", "awk 'BEGIN { while (1) x++ }'"},
        {"sed endless loop", "echo a | sed ':a; s/a/a/; ta'"},
        {"timeout longer than the run", "timeout 100 sleep 100"},
        {"a doubling read loop", "x=a; while :; do read -r x <<< \"$x$x\"; done"},
        {"cat of an endless device", "cat /dev/zero > /dev/null"},
    };
    for (const BlockingCase& c : cases) {
        vfs::MemoryFs fs;
        ASSERT_TRUE(fs.mkdir_all("/tmp").ok());
        interp::CommandRegistry registry;
        utils::register_all(registry);
        interp::ShellOptions opts;
        opts.limits.timeout = 300ms;
        interp::Shell sh(fs, registry, opts);
        auto start = std::chrono::steady_clock::now();
        auto r = sh.run(c.script);
        double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        EXPECT_EQ(r.exit_code, 124) << c.what << ": " << c.script << "\n" << r.err;
        // 0.3 s and a wake-up; the margin is for a loaded machine, far below what a missed deadline costs.
        EXPECT_LT(took, 2.5) << c.what << ": " << c.script;
        EXPECT_EQ(sh.run("echo ok").out, "ok\n") << c.what;
    }
}

}  // namespace
