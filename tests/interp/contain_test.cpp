// Containment: an exception from a command (a custom command that throws, the memory budget, bad_alloc)
// fails that command with status 1 and a message, wherever it runs (a pipeline stage, a function, a
// subshell, a background job), and the session goes on as if nothing happened. One memory budget per
// session bounds what a script can hold, subshells and jobs included.
#include <gtest/gtest.h>

#include <chrono>
#include <new>
#include <stdexcept>
#include <thread>

#include "interp/command.hpp"
#include "interp/governor.hpp"
#include "interp/shell.hpp"
#include "vfs/memory_fs.hpp"

namespace {

using namespace bashkit;
using namespace bashkit::interp;
using namespace std::chrono_literals;

struct ContainFixture {
    vfs::MemoryFs fs;
    CommandRegistry reg;
    ContainFixture() {
        EXPECT_TRUE(fs.mkdir_all("/home/user").ok());
        reg.add("cat", "cat: copies stdin", [](CommandContext& c) {
            std::string data;
            (void)c.in.read_all(data);
            return c.out.write(data).ok() ? 0 : 1;
        });
        reg.add("sleep", "sleep N: sleeps N seconds (cancellable)", [](CommandContext& c) {
            auto end = std::chrono::steady_clock::now() + std::chrono::seconds(c.argv.size() > 1 ? std::stoi(c.argv[1]) : 1);
            while (std::chrono::steady_clock::now() < end && !c.cancelled()) std::this_thread::sleep_for(5ms);
            return 0;
        });
        // A utility that charges the session's budget as it grows, like sort or tac will.
        reg.add("hog", "hog N: holds N MiB on the budget", [](CommandContext& c) {
            MemoryCharge held(c.memory);
            size_t mib = c.argv.size() > 1 ? std::stoul(c.argv[1]) : 1;
            for (size_t i = 0; i < mib; ++i) held.add(1u << 20);
            (void)c.out.write("held\n");
            return 0;
        });
    }
};

// Options with a memory budget of `bytes` for the session.
ShellOptions with_budget(size_t bytes) {
    ShellOptions o;
    o.limits.max_memory_bytes = bytes;
    return o;
}

void add_throwers(Shell& sh) {
    sh.add_command("boom", "boom: throws", [](CommandContext&) -> int { throw std::runtime_error("kaboom"); });
    sh.add_command("oom", "oom: throws bad_alloc", [](CommandContext&) -> int { throw std::bad_alloc(); });
    sh.add_command("overbudget", "overbudget: throws the budget's exception",
                   [](CommandContext& c) -> int { throw MemoryLimitExceeded(c.memory ? c.memory->limit() : 0); });
    sh.add_command("weird", "weird: throws a non-exception", [](CommandContext&) -> int { throw 42; });
}

TEST(Contain, ThrowingCustomCommandFailsAlone) {
    ContainFixture f;
    Shell sh(f.fs, f.reg);
    add_throwers(sh);
    auto r = sh.run("boom; echo after $?");
    EXPECT_EQ(r.out, "after 1\n");
    EXPECT_EQ(r.err, "bashkit: boom: kaboom\n");
    r = sh.run("oom; echo $?");
    EXPECT_EQ(r.out, "1\n");
    EXPECT_EQ(r.err, "bashkit: oom: memory limit exceeded (1024 MiB)\n");
    r = sh.run("overbudget; echo $?");
    EXPECT_EQ(r.out, "1\n");
    EXPECT_EQ(r.err, "bashkit: overbudget: memory limit exceeded (1024 MiB)\n");
    r = sh.run("weird; echo $?");
    EXPECT_EQ(r.out, "1\n");
    EXPECT_EQ(r.err, "bashkit: weird: unknown error\n");
}

TEST(Contain, ThrowingCommandInPipelineFunctionSubshellAndJob) {
    ContainFixture f;
    Shell sh(f.fs, f.reg);
    add_throwers(sh);
    // `true` first: a writer (echo) could race boom's closed stdin and get 141, as in bash.
    auto r = sh.run("true | boom | cat; echo \"${PIPESTATUS[@]}\"");
    EXPECT_EQ(r.out, "0 1 0\n");
    EXPECT_EQ(r.err, "bashkit: boom: kaboom\n");
    r = sh.run("echo x | oom; echo $?");
    EXPECT_EQ(r.out, "1\n");
    EXPECT_NE(r.err.find("bashkit: oom: memory limit exceeded"), std::string::npos);
    r = sh.run("f() { local v=1; boom; echo \"in f $? ${FUNCNAME[*]}\"; }; f; echo \"${#FUNCNAME[@]} $?\"");
    EXPECT_EQ(r.out, "in f 1 f\n0 0\n");
    r = sh.run("(boom; echo sub $?); echo $?");
    EXPECT_EQ(r.out, "sub 1\n0\n");
    r = sh.run("(oom); echo $?");
    EXPECT_EQ(r.out, "1\n");
    r = sh.run("boom & wait $!; echo $?");
    EXPECT_EQ(r.out, "1\n");
    r = sh.run("x=$(boom); echo \"[$x] $?\"");
    EXPECT_EQ(r.out, "[] 1\n");
    // errexit treats it as any failed command.
    r = sh.run("set -e; boom; echo unreachable");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.out, "");
    r = sh.run("set +e; echo ok");
    EXPECT_EQ(r.out, "ok\n");
}

TEST(Contain, NoStaleFrameAfterAThrow) {
    ContainFixture f;
    Shell sh(f.fs, f.reg);
    add_throwers(sh);
    auto r = sh.run("g() { local inner=1; boom; }; f() { local x=in_f; g; }; f; "
                    "echo \"[${FUNCNAME[*]}] [${x-unset}] [${inner-unset}]\"");
    EXPECT_EQ(r.out, "[] [unset] [unset]\n");
    r = sh.run("h() { echo \"${FUNCNAME[*]}\"; }; h; x=1 boom; echo \"${x-unset}\"");
    EXPECT_EQ(r.out, "h\nunset\n");
}

TEST(Contain, NextRunBehavesAsIfNothingHappened) {
    ContainFixture f;
    Shell sh(f.fs, f.reg);
    add_throwers(sh);
    (void)sh.run("f() { boom | oom; }; for i in 1 2 3; do f; done");
    auto r = sh.run("echo ok; echo \"${#FUNCNAME[@]}\"; declare -F | wc -l 2>/dev/null; echo $?");
    EXPECT_EQ(r.out.substr(0, 5), "ok\n0\n");
    EXPECT_EQ(r.exit_code, 0);
}

TEST(Contain, UtilitiesSeeTheSessionBudget) {
    ContainFixture f;
    Shell sh(f.fs, f.reg, with_budget(64u << 20));
    auto r = sh.run("hog 8; echo $?");
    EXPECT_EQ(r.out, "held\n0\n");
    r = sh.run("hog 100; echo $?");
    EXPECT_EQ(r.out, "1\n");
    EXPECT_EQ(r.err, "bashkit: hog: memory limit exceeded (64 MiB)\n");
    // Released when the command ends: the session is usable again.
    r = sh.run("hog 8 | cat; echo $?");
    EXPECT_EQ(r.out, "held\n0\n");
}

// A word is checked against the budget as its expansion builds it: one that would not fit in what is left
// fails before it is built, even where nothing would charge it afterwards (a [[ ]] operand, a case word).
TEST(Contain, AWordLargerThanTheRestOfTheBudgetIsNotBuilt) {
    ContainFixture f;
    Shell sh(f.fs, f.reg, with_budget(16u << 20));
    auto r = sh.run("x=0123456789abcdef; for i in {1..18}; do x=$x$x; done; echo ${#x}; "
                    "[[ \"$x$x$x$x\" == q ]]; echo $?; case $x$x$x$x in q) ;; esac; echo $?; "
                    "[[ \"$x\" == q ]]; echo $?; echo ok");
    EXPECT_EQ(r.out, "4194304\n1\n1\n1\nok\n");
    // Two failures (the 16 MiB words); the 4 MiB operand beside the 4 MiB variable fits.
    size_t count = 0;
    for (size_t at = r.err.find("memory limit exceeded (16 MiB)"); at != std::string::npos;
         at = r.err.find("memory limit exceeded (16 MiB)", at + 1))
        ++count;
    EXPECT_EQ(count, 2u) << r.err;
}

TEST(Contain, EndlessNewNamesStopAtTheBudget) {
    // Each name's entry stays for the session: without a charge, 2,000,000 names took 350 MB under a
    // 16 MiB budget. The command that makes the name that does not fit fails; the session goes on.
    ContainFixture f;
    Shell sh(f.fs, f.reg, with_budget(16u << 20));
    auto r = sh.run("for ((i=0;i<200000;i++)); do declare v$i=1 2>/dev/null || { echo stopped; break; }; done; "
                    "echo $v1; unset v1; echo ok");
    EXPECT_EQ(r.out, "stopped\n1\nok\n") << r.err;
}

TEST(Contain, OneBudgetForSubshellsAndJobs) {
    ContainFixture f;
    Shell sh(f.fs, f.reg, with_budget(16u << 20));
    // 8 MiB in the parent; a subshell copy of it does not fit beside it.
    auto r = sh.run("x=0123456789abcdef; for i in {1..19}; do x=$x$x; done; echo ${#x}; (echo sub ${#x}); echo $?; "
                    "echo ok");
    EXPECT_EQ(r.out, "8388608\n1\nok\n");
    EXPECT_NE(r.err.find("memory limit exceeded (16 MiB)"), std::string::npos) << r.err;
    // Released with the copy: a subshell alone may hold as much.
    r = sh.run("unset x; (y=0123456789abcdef; for i in {1..19}; do y=$y$y; done; echo ${#y}); echo ok");
    EXPECT_EQ(r.out, "8388608\nok\n");
    // Jobs holding 8 MiB each do not all fit: the budget is the session's, not each copy's.
    r = sh.run("for j in 1 2 3; do (y=0123456789abcdef; for i in {1..19}; do y=$y$y; done; sleep 1) & done; "
               "wait; echo ok");
    EXPECT_NE(r.err.find("memory limit exceeded (16 MiB)"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "ok\n");
}

TEST(Contain, DoublingIsStoppedByTheBudget) {
    ContainFixture f;
    ShellOptions o = with_budget(16u << 20);
    o.limits.timeout = 20s;
    Shell sh(f.fs, f.reg, o);
    auto t0 = std::chrono::steady_clock::now();
    // Pattern substitution squares the length: refused before it is built.
    auto r = sh.run("x=abcdefgh; for i in 1 2 3 4 5 6; do x=${x//?/$x}; done; echo ${#x}");
    EXPECT_NE(r.err.find("memory limit exceeded"), std::string::npos) << r.err;
    // Arguments doubled at each call.
    r = sh.run("f() { f \"$@\" \"$@\"; }; f 1; echo ok");
    EXPECT_NE(r.out.find("ok"), std::string::npos);
    // Variables doubled in a loop; aliases and functions in a loop.
    r = sh.run("y=y; while :; do y=$y$y; done; echo ok");
    EXPECT_NE(r.err.find("y:"), std::string::npos);
    r = sh.run("unset y; v=$(printf '%*s' 100000 ''); for i in {1..300}; do alias a$i=\"$v\" || break; done; "
               "echo ok");
    EXPECT_NE(r.out.find("ok"), std::string::npos);
    EXPECT_NE(r.err.find("memory limit exceeded"), std::string::npos);
    r = sh.run("unalias -a; echo ok");
    EXPECT_EQ(r.out, "ok\n");
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 20s);
}

TEST(Contain, PipeBuffersAreChargedToTheBudget) {
    ContainFixture f;
    Shell sh(f.fs, f.reg, with_budget(1u << 20));  // room for about 15 pipe buffers of 64 KiB
    const size_t base = sh.memory().used();
    std::string long_pipeline = "echo hi";
    for (int i = 0; i < 20; ++i) long_pipeline += " | cat";
    auto r = sh.run(long_pipeline + "; echo \"status $?\"");
    EXPECT_EQ(r.out, "status 1\n");
    EXPECT_NE(r.err.find("memory limit exceeded (1 MiB)"), std::string::npos) << r.err;
    EXPECT_EQ(sh.memory().used(), base);  // the pipes made before the refusal were given back
    // Fewer stages fit; their buffers are held while they run and given back after.
    r = sh.run("echo hi | cat | cat | cat");
    EXPECT_EQ(r.out, "hi\n") << r.err;
    EXPECT_GE(sh.memory().peak(), base + 3 * kPipeCapacity);
    EXPECT_EQ(sh.memory().used(), base);
    // Process substitutions hold theirs while they live.
    r = sh.run("cat < <(echo ps); cat < <(echo two)");
    EXPECT_EQ(r.out, "ps\ntwo\n") << r.err;
    EXPECT_EQ(sh.memory().used(), base);
    EXPECT_EQ(sh.run("echo ok").out, "ok\n");
}

TEST(Contain, ResetStandardFdsUndoesAnEarlierRunsExec) {
    ContainFixture f;
    Shell sh(f.fs, f.reg);
    // run() keeps bash's semantics: an `exec` of one run holds for the next ones.
    auto r = sh.run("exec >&-; echo lost");
    EXPECT_EQ(r.out, "");
    r = sh.run("echo still lost");
    EXPECT_EQ(r.out, "");
    sh.reset_standard_fds();
    r = sh.run("echo back; exec >/home/user/log 2>&1 3>/home/user/three; echo to-log; echo e >&2");
    EXPECT_EQ(r.out, "back\n");
    EXPECT_EQ(r.err, "");
    sh.reset_standard_fds();
    r = sh.run("echo fresh; echo e >&2; echo kept >&3; cat < /home/user/log");
    EXPECT_EQ(r.out, "fresh\nto-log\ne\n");  // fd 3 is not one of the three: it stays
    EXPECT_EQ(r.err, "e\n");
    EXPECT_EQ(sh.run("cat < /home/user/three").out, "kept\n");
}

TEST(Contain, LegitimateWorkFitsTheDefaults) {
    ContainFixture f;
    Shell sh(f.fs, f.reg);
    auto r = sh.run("n=0; for ((i=0; i<1000000; i++)); do n=$((n+1)); done; echo $n");
    EXPECT_EQ(r.out, "1000000\n");
    r = sh.run("a=(); for i in {1..10000}; do a+=(\"item $i\"); done; echo ${#a[@]}; unset a; echo ok");
    EXPECT_EQ(r.out, "10000\nok\n");
}

TEST(Contain, ExitTrapAtCloseGetsAGraceNotAFullTimeout) {
    ContainFixture f;
    ShellOptions o;
    o.limits.timeout = 60s;
    Shell sh(f.fs, f.reg, o);
    (void)sh.run("trap 'while :; do :; done' EXIT");
    auto t0 = std::chrono::steady_clock::now();
    (void)sh.close();
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 4s);
}

}  // namespace
