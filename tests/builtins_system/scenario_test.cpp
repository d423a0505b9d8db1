// Scenarios the differential table cannot express: the virtual clock and identity (date now, uname, id,
// hostname), cancellation of sleep and timeout from the embedder or by the run's own timeout, and pipelines
// whose output depends on the session (xargs over find -print0, env -i).
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "builtins/registry.hpp"
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
        builtins::register_all(registry);
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

TEST(SystemScenario, Debug) {
    run_cases({
        {"mkdir -p bin; printf '#!/bin/bash\\necho hi\\n' > bin/tool; chmod +x bin/tool; PATH=\"$PWD/bin:$PATH\" which tool 2>&1; echo $?; cat bin/tool; ls -l bin", ""},
    });
}

}  // namespace
