// awk scenarios the differential table cannot express: cancellation of endless loops and inputs by the
// run's timeout, streaming an endless input, the call-depth limit, and the virtual clock.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "utils/registry.hpp"
#include "interp/shell.hpp"
#include "vfs/memory_fs.hpp"

namespace {

using namespace bashkit;

struct Env {
    vfs::MemoryFs fs;
    interp::CommandRegistry registry;
    std::unique_ptr<interp::Shell> sh;
    explicit Env(std::chrono::milliseconds timeout = std::chrono::seconds(20), size_t max_var = 64u << 20) {
        EXPECT_TRUE(fs.mkdir_all("/home/user").ok());
        utils::register_all(registry);
        interp::ShellOptions opts;
        opts.limits.timeout = timeout;
        opts.limits.max_variable_bytes = max_var;
        opts.env = {{"LC_ALL", "C"}};
        sh = std::make_unique<interp::Shell>(fs, registry, opts);
    }
};

TEST(AwkScenario, EndlessLoopsAreCancelledByTimeout) {
    const char* scripts[] = {
        "awk 'BEGIN { while (1) ; }'",
        "awk 'BEGIN { for (;;) x++ }'",
        "awk 'BEGIN { do { } while (1) }'",
        "awk 'function f() { while (1) ; } BEGIN { f() }'",
        // NUL-separated records: an endless input of empty records (with newline records, /dev/zero is one
        // record that reaches the record limit, RecordLengthIsBoundedByMaxVariableBytes, before the timeout
        // on a fast machine).
        "awk -v RS='\\0' '{ n++ }' /dev/zero",
        "yes | awk '{ n++ }'",
        "awk 'BEGIN { while (1) print \"x\" > \"/dev/null\" }'",
        "awk 'BEGIN { while ((\"yes\" | getline l) > 0) n++ }'",
    };
    for (const char* s : scripts) {
        Env e(std::chrono::milliseconds(300));
        auto t0 = std::chrono::steady_clock::now();
        auto r = e.sh->run(s);
        auto took = std::chrono::steady_clock::now() - t0;
        EXPECT_EQ(r.exit_code, 124) << s << "\n" << r.err;
        EXPECT_LT(took, std::chrono::seconds(15)) << s;
    }
}

TEST(AwkScenario, StreamsRecordsFromAnEndlessInput) {
    Env e;
    auto r = e.sh->run("yes abc | awk 'NR == 3 { print NR, $0; exit }'");
    EXPECT_EQ(r.out, "3 abc\n");
    EXPECT_EQ(r.exit_code, 0);
}

TEST(AwkScenario, RecordLengthIsBoundedByMaxVariableBytes) {
    Env e(std::chrono::seconds(20), 1u << 20);
    auto r = e.sh->run("awk '{ print length }' /dev/zero 2>&1; echo \"status $?\"");
    EXPECT_EQ(r.out, "awk: fatal: error reading input file `/dev/zero': File too large\nstatus 2\n");
}

TEST(AwkScenario, RecursionStopsAtTheCallDepthLimit) {
    Env e;
    auto r = e.sh->run("awk 'function r(n) { return r(n + 1) } BEGIN { r(1) }'; echo \"status $?\"");
    EXPECT_EQ(r.out, "status 2\n");
    EXPECT_NE(r.err.find("fatal: function call nesting too deep"), std::string::npos) << r.err;
}

TEST(AwkScenario, ReadsTheProgramFileFromTheVirtualFilesystem) {
    Env e;
    ASSERT_TRUE(e.fs.write_file("/home/user/p.awk", "{ n += $1 } END { print n }\n").ok());
    ASSERT_TRUE(e.fs.write_file("/home/user/in", "1\n2\n3\n").ok());
    auto r = e.sh->run("awk -f p.awk in; awk -f /home/user/p.awk < in");
    EXPECT_EQ(r.out, "6\n6\n");
}

TEST(AwkScenario, EnvironFromTheSessionEnvironment) {
    Env e;
    auto r = e.sh->run("export FOO=bar; awk 'BEGIN { print ENVIRON[\"FOO\"], (\"LC_ALL\" in ENVIRON) }'");
    EXPECT_EQ(r.out, "bar 1\n");
}

TEST(AwkScenario, RegisteredAsAwkAndGawk) {
    interp::CommandRegistry registry;
    utils::register_all(registry);
    ASSERT_NE(registry.find("awk"), nullptr);
    ASSERT_NE(registry.find("gawk"), nullptr);
    EXPECT_FALSE(registry.find("awk")->help.empty());
}

}  // namespace
