// Scenarios the differential table cannot express: the virtual clock and identity (date now, uname, id,
// hostname), cancellation of sleep and timeout from the embedder or by the run's own timeout, and pipelines
// whose output depends on the session (xargs over find -print0, env -i).
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "utils/registry.hpp"
#include "interp/shell.hpp"
#include "vfs/memory_fs.hpp"

namespace {

using namespace bashkit;
using SteadyClock = std::chrono::steady_clock;

struct Env {
    vfs::MemoryFs fs;
    interp::CommandRegistry registry;
    vfs::ManualClock clock{vfs::TimeSpec{1709208000, 123456789}};  // 2024-02-29 12:00:00.123456789 UTC (Thu)
    std::unique_ptr<interp::Shell> sh;
    explicit Env(std::chrono::milliseconds timeout = std::chrono::seconds(20),
                 std::vector<std::pair<std::string, std::string>> env = {{"LC_ALL", "C"}}) {
        EXPECT_TRUE(fs.mkdir_all("/home/user").ok());
        EXPECT_TRUE(fs.mkdir_all("/tmp").ok());
        utils::register_all(registry);
        interp::ShellOptions opts;
        opts.limits.timeout = timeout;
        opts.env = std::move(env);
        opts.clock = &clock;
        opts.identity.user = "alice";
        opts.identity.host = "box.example.org";
        opts.identity.uid = 1234;
        opts.identity.gid = 2345;
        opts.identity.home = "/home/user";
        sh = std::make_unique<interp::Shell>(fs, registry, opts);
    }
};

struct Case {
    const char* script;
    const char* out;  // stdout (scripts say 2>&1 where stderr matters)
};

void run_cases(std::initializer_list<Case> cases) {
    for (const Case& c : cases) {
        Env e;
        auto r = e.sh->run(c.script);
        EXPECT_EQ(r.out, c.out) << c.script << "\n--- stderr\n" << r.err;
    }
}

double seconds_since(SteadyClock::time_point t) {
    return std::chrono::duration<double>(SteadyClock::now() - t).count();
}

TEST(SystemScenario, DateNowFromVirtualClock) {
    run_cases({
        {"date", "Thu Feb 29 12:00:00 UTC 2024\n"},
        {"date +%s.%N", "1709208000.123456789\n"},
        {"date -u '+%F %T %Z'", "2024-02-29 12:00:00 UTC\n"},
        {"TZ=Asia/Tokyo date", "Thu Feb 29 21:00:00 JST 2024\n"},
        {"TZ=America/New_York date '+%F %T %Z %z'", "2024-02-29 07:00:00 EST -0500\n"},
        {"TZ=UTC-5:30 date +%H:%M", "17:30\n"},
        {"date -I; date -Iseconds; date -R", "2024-02-29\n2024-02-29T12:00:00+00:00\nThu, 29 Feb 2024 12:00:00 +0000\n"},
        {"date --rfc-3339=ns", "2024-02-29 12:00:00.123456789+00:00\n"},
        {"date -d now +%T.%N; date -d today '+%F %T'", "12:00:00.123456789\n2024-02-29 12:00:00\n"},
    });
}

TEST(SystemScenario, DateRelativeToVirtualNow) {
    // now: Thursday 2024-02-29 12:00:00 UTC.
    run_cases({
        {"date -d yesterday '+%F %T'", "2024-02-28 12:00:00\n"},
        {"date -d tomorrow '+%F %T'", "2024-03-01 12:00:00\n"},
        {"date -d '2 days ago' '+%F %T'", "2024-02-27 12:00:00\n"},
        {"date -d '+3 hours' '+%F %T'", "2024-02-29 15:00:00\n"},
        {"date -d '90 minutes ago' +%T", "10:30:00\n"},
        {"date -d 'next week' +%F", "2024-03-07\n"},
        {"date -d '1 month ago' +%F", "2024-01-29\n"},
        {"date -d 'last year' +%F", "2023-03-01\n"},
        {"date -d monday '+%F %T'", "2024-03-04 00:00:00\n"},
        {"date -d 'next monday' +%F", "2024-03-04\n"},
        {"date -d 'last monday' +%F", "2024-02-26\n"},
        {"date -d thursday +%F", "2024-02-29\n"},
        {"date -d 'next thursday' +%F", "2024-03-07\n"},
        {"date -d 'last thursday' +%F", "2024-02-22\n"},
        {"date -d 'this friday' +%F", "2024-03-01\n"},
        {"date -d 'sun' +%F", "2024-03-03\n"},
        {"date -d 'tomorrow 9am' '+%F %T'", "2024-03-01 09:00:00\n"},
        {"date -d '12:30 yesterday' '+%F %T'", "2024-02-28 12:30:00\n"},
        {"date -d 'monday 10:00' '+%F %T'", "2024-03-04 10:00:00\n"},
        {"date -d 'thursday next week' +%F", "2024-03-07\n"},
        {"date -d 'dec 25' +%F", "2024-12-25\n"},
        {"date -d '15:45' '+%F %T'", "2024-02-29 15:45:00\n"},
        {"date -d UTC '+%F %T'", "2024-02-29 00:00:00\n"},
        {"date -d '1 year' +%F", "2025-03-01\n"},
        {"date -d '' '+%F %T'", "2024-02-29 00:00:00\n"},
        {"TZ=Asia/Tokyo date -d 'today 00:00' +%s", "1709132400\n"},
        {"date -d 'next monday garbage' 2>&1; echo \"status=$?\"",
         "date: invalid date 'next monday garbage'\nstatus=1\n"},
    });
}

TEST(SystemScenario, SettingTheClockIsRefused) {
    run_cases({
        {"date -s '2020-01-01' 2>&1; echo \"status=$?\"", "date: cannot set date: Operation not permitted\nstatus=1\n"},
        {"date 010112002020 2>&1; echo \"status=$?\"", "date: cannot set date: Operation not permitted\nstatus=1\n"},
        {"date -s garbage 2>&1; echo \"status=$?\"", "date: invalid date 'garbage'\nstatus=1\n"},
        {"date -d @0 010112002020 2>&1; echo \"status=$?\"",
         "date: the argument '010112002020' lacks a leading '+';\nwhen using an option to specify date(s), any "
         "non-option\nargument must be a format string beginning with '+'\nTry 'date --help' for more "
         "information.\nstatus=1\n"},
    });
}

TEST(SystemScenario, VirtualIdentity) {
    run_cases({
        {"whoami; logname; groups", "alice\nalice\nalice\n"},
        {"id", "uid=1234(alice) gid=2345(alice) groups=2345(alice)\n"},
        {"id -u; id -g; id -G; id -un; id -gn; id -Gn; id -ur", "1234\n2345\n2345\nalice\nalice\nalice\n1234\n"},
        {"id alice; groups alice", "uid=1234(alice) gid=2345(alice) groups=2345(alice)\nalice : alice\n"},
        {"hostname; hostname -s; hostname -d; hostname -f", "box.example.org\nbox\nexample.org\nbox.example.org\n"},
        {"hostname other 2>&1; echo \"status=$?\"", "hostname: you must be root to change the host name\nstatus=1\n"},
        {"uname -a", "Linux box.example.org 6.1.0-bashkit #1 SMP PREEMPT_DYNAMIC bashkit x86_64 GNU/Linux\n"},
        {"uname -snrvmpio",
         "Linux box.example.org 6.1.0-bashkit #1 SMP PREEMPT_DYNAMIC bashkit x86_64 unknown unknown GNU/Linux\n"},
        {"uname -n; uname -m; uname -r; arch", "box.example.org\nx86_64\n6.1.0-bashkit\nx86_64\n"},
        {"nproc; nproc --all; nproc --ignore=3", "1\n1\n1\n"},
        {"tty; echo $?", "not a tty\n1\n"},
    });
}

TEST(SystemScenario, WhichSeesUtilitiesInUsrBinAndBin) {
    run_cases({
        {"which date xargs", "/usr/bin/date\n/usr/bin/xargs\n"},
        {"which -a date", "/usr/bin/date\n/bin/date\n"},
        {"which cd; echo $?", "1\n"},  // a shell builtin without a program
        {"PATH=/bin which env", "/bin/env\n"},
        {"PATH=/opt which env; echo $?", "1\n"},
        {"mkdir -p /opt/bin; printf '#!/bin/bash\\n' > /opt/bin/date; chmod +x /opt/bin/date; "
         "PATH=/opt/bin:/usr/bin which -a date",
         "/opt/bin/date\n/usr/bin/date\n"},
    });
}

TEST(SystemScenario, TimeoutStopsSleepQuickly) {
    Env e;
    auto t0 = SteadyClock::now();
    auto r = e.sh->run("timeout 0.2 sleep 10; echo \"status=$?\"");
    EXPECT_EQ(r.out, "status=124\n") << r.err;
    EXPECT_LT(seconds_since(t0), 3.0);
}

TEST(SystemScenario, TimeoutStopsBusyShellFunction) {
    Env e;
    auto t0 = SteadyClock::now();
    auto r = e.sh->run(
        "timeout 1 bash -c 'spin() { while :; do :; done; }; spin'; echo \"status=$?\"\n"
        "spin() { while :; do :; done; }; export -f spin\n"
        "timeout 0.3 bash -c spin; echo \"status=$?\"\n"
        "timeout 0.3 spin 2>&1; echo \"status=$?\"\n"
        "echo after");
    EXPECT_EQ(r.out,
              "status=124\nstatus=124\ntimeout: failed to run command 'spin': No such file or directory\nstatus=127\n"
              "after\n")
        << r.err;
    EXPECT_LT(seconds_since(t0), 6.0);
}

TEST(SystemScenario, TimeoutStopsPipelinesAndJobsInside) {
    Env e;
    auto t0 = SteadyClock::now();
    auto r = e.sh->run(
        "timeout 0.3 bash -c 'yes | while read -r l; do :; done'; echo \"status=$?\"\n"
        "timeout 0.3 bash -c 'sleep 10 & wait'; echo \"status=$?\"\n"
        "sleep 1 | timeout 0.3 cat; echo \"status=$?\"\n"  // the pipeline waits for sleep, as bash's does
        "timeout --preserve-status 0.3 sleep 10; echo \"status=$?\"");
    EXPECT_EQ(r.out, "status=124\nstatus=124\nstatus=124\nstatus=143\n") << r.err;
    EXPECT_LT(seconds_since(t0), 15.0);
}

TEST(SystemScenario, EmbedderCancelStopsSleep) {
    Env e;
    auto t0 = SteadyClock::now();
    std::thread canceller([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        e.sh->cancel();
    });
    auto r = e.sh->run("sleep 30; echo never");
    canceller.join();
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.exit_code, 130);
    EXPECT_LT(seconds_since(t0), 5.0);
    // The session stays usable.
    auto r2 = e.sh->run("sleep 0.01; echo ok");
    EXPECT_EQ(r2.out, "ok\n");
}

TEST(SystemScenario, EmbedderCancelStopsTimeoutAndXargs) {
    Env e;
    auto t0 = SteadyClock::now();
    std::thread canceller([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        e.sh->cancel();
    });
    auto r = e.sh->run("timeout 30 sleep 30; echo \"status=$?\"; echo 1 2 | xargs -n1 sleep 30");
    canceller.join();
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.exit_code, 130);
    EXPECT_LT(seconds_since(t0), 5.0);
}

TEST(SystemScenario, SleepBoundedByRunTimeout) {
    Env e(std::chrono::milliseconds(300));
    auto t0 = SteadyClock::now();
    auto r = e.sh->run("sleep infinity; echo never");
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.exit_code, 124);
    EXPECT_LT(seconds_since(t0), 5.0);
}

TEST(SystemScenario, XargsWithFindPrint0AndReplace) {
    run_cases({
        {"mkdir -p d/sub; touch 'd/a b' d/sub/c \"d/it's\"; find d -type f -print0 | sort -z | xargs -0 -I{} echo '<{}>'",
         "<d/a b>\n<d/it's>\n<d/sub/c>\n"},
        {"mkdir -p d; touch d/x d/y; find d -type f -print0 | sort -z | xargs -0 ls -1", "d/x\nd/y\n"},
        {"mkdir -p d; touch d/1 d/2 d/3; find d -type f -print0 | sort -z | xargs -0 -n 2 echo", "d/1 d/2\nd/3\n"},
        {"mkdir -p d; touch 'd/sp ace'; find d -type f -print0 | xargs -0 -I % sh -c 'echo \"[$1]\"' _ %",
         "[d/sp ace]\n"},
        {"printf 'a\\nb\\n' | xargs -I{} -t echo x{} 2>&1", "echo xa\nxa\necho xb\nxb\n"},
    });
}

TEST(SystemScenario, EnvIgnoreEnvironment) {
    run_cases({
        {"export SECRET=1; env -i printenv; echo \"status=$?\"", "status=0\n"},
        {"export SECRET=1; env -i A=1 printenv", "A=1\n"},
        {"export SECRET=1; env -i bash -c 'echo \"[${SECRET-unset}][${HOME-unset}]\"'", "[unset][unset]\n"},
        {"export SECRET=1; env -u SECRET bash -c 'echo \"[${SECRET-unset}][$USER]\"'", "[unset][alice]\n"},
        // A nested command's environment is sorted by name (GNU keeps the order of assignment).
        {"env -i PATH=/bin A=2 env", "A=2\nPATH=/bin\n"},
        {"ls() { echo function; }; mkdir -p d; env ls -d d", "d\n"},
        {"env -C /tmp bash -c pwd", "/tmp\n"},
        {"export X=1; env | grep -c '^X=1$'", "1\n"},
    });
}

TEST(SystemScenario, RegistryHasTheSystemUtilities) {
    interp::CommandRegistry registry;
    utils::register_all(registry);
    for (const char* name : {"date", "sleep", "timeout", "env", "printenv", "nohup", "xargs", "which", "whoami",
                             "id", "groups", "logname", "hostname", "uname", "arch", "nproc", "tty", "true",
                             "false"}) {
        const interp::RegisteredCommand* c = registry.find(name);
        ASSERT_NE(c, nullptr) << name;
        EXPECT_FALSE(c->help.empty()) << name;
    }
}

}  // namespace
