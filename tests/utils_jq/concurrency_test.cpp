// jq from several sessions at once (each run has its own evaluator: no shared state, no lock), its
// confinement to the sandbox, and its containment: the deadline and the memory budget stop a runaway
// program, deep recursion is a jq error.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "utils/jq/engine.hpp"
#include "utils/registry.hpp"
#include "interp/governor.hpp"
#include "interp/shell.hpp"
#include "vfs/memory_fs.hpp"

namespace bashkit {
namespace {

std::string run_script(const std::string& script, std::chrono::milliseconds timeout = std::chrono::seconds(60),
                       size_t max_memory = size_t{1} << 30) {
    vfs::MemoryFs fs;
    EXPECT_TRUE(fs.mkdir_all("/home/user").ok());
    interp::CommandRegistry registry;
    utils::register_all(registry);
    interp::ShellOptions opts;
    opts.limits.timeout = timeout;
    opts.limits.max_memory_bytes = max_memory;
    interp::Shell sh(fs, registry, opts);
    auto res = sh.run(script, "");
    auto fin = sh.close();
    return res.out + fin.out + res.err + fin.err;
}

TEST(JqConcurrency, SessionsAndPipelines) {
    const std::string script =
        "jq -n '[range(2000)] | add'; "
        "jq -n 'range(10000)' | jq -c '{v: .}' | jq -s 'length'; "
        "printf '{\"a\":[1,2,3]}' | jq -c '.a | map(. * 2)'\n";
    const std::string expected = "1999000\n10000\n[2,4,6]\n";
    std::vector<std::string> outs(4);
    std::vector<std::thread> threads;
    for (size_t i = 0; i < outs.size(); ++i) threads.emplace_back([&, i] { outs[i] = run_script(script); });
    for (auto& t : threads) t.join();
    for (const auto& o : outs) EXPECT_EQ(o, expected);
}

TEST(JqConfinement, NoHostFilesOrEnvironment) {
    // $ENV is the session's environment, files and modules come from the sandbox.
    EXPECT_EQ(run_script("export ONLY_HERE=1; jq -nc '[$ENV.ONLY_HERE, env.ONLY_HERE]'"), "[\"1\",\"1\"]\n");
    EXPECT_EQ(run_script("jq . /etc/passwd 2>&1; echo $?"),
              "jq: error: Could not open file /etc/passwd: No such file or directory\n2\n");
    EXPECT_EQ(run_script("jq -n --rawfile x /etc/hostname '$x' 2>&1; echo $?"),
              "jq: Bad JSON in --rawfile x /etc/hostname: Could not open /etc/hostname: No such file or directory\n2\n");
    EXPECT_EQ(run_script("jq -n 'import \"passwd\" as $p {search: \"/etc\"}; $p' 2>&1; echo $?"),
              "jq: error: module not found: passwd\n\njq: 1 compile error\n3\n");
    EXPECT_EQ(run_script("mkdir -p /etc && echo '{\"v\":1}' > /etc/passwd.json && "
                         "jq -nc 'import \"passwd\" as $p {search: \"/etc\"}; $p'"),
              "[{\"v\":1}]\n");
    EXPECT_EQ(run_script("jq -n '  # c\n include \"x\"; 1' 2>&1; echo $?"),
              "jq: error: module not found: x\n\njq: 1 compile error\n3\n");
    // jq 1.7.1's stderr writes a string raw (jq 1.6 wrote it as JSON).
    EXPECT_EQ(run_script("jq -n '\"x\" | stderr | empty' 2>&1"), "x");
    EXPECT_EQ(run_script("jq -n '{\"a\":1} | stderr | empty' 2>&1"), "{\"a\":1}");
}

TEST(JqContainment, DeadlineStopsAGeneratorThatNeverOutputs) {
    auto t0 = std::chrono::steady_clock::now();
    std::string out = run_script("jq -n 'last(range(1e18))'; echo after", std::chrono::milliseconds(500));
    auto secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(secs, 30.0) << out;  // without the cancel checks this would run for years
}

// Shell::cancel() from another thread ends a jq program that never outputs within 100 ms (the evaluator
// polls the token every 1024 steps). The best of three runs is checked, so that a descheduled thread on a
// loaded machine does not fail the test.
TEST(JqContainment, CancelEndsTheProgramWithin100ms) {
    double best = 1e9;
    for (int attempt = 0; attempt < 3; ++attempt) {
        vfs::MemoryFs fs;
        ASSERT_TRUE(fs.mkdir_all("/home/user").ok());
        interp::CommandRegistry registry;
        utils::register_all(registry);
        interp::ShellOptions opts;
        opts.limits.timeout = std::chrono::seconds(60);
        interp::Shell sh(fs, registry, opts);
        std::chrono::steady_clock::time_point ended;
        std::thread t([&] {
            (void)sh.run("jq -n 'last(range(1e18))'; jq -n 'def f: [.[] | f]; [[[1]]] | last(repeat(f))'", "");
            ended = std::chrono::steady_clock::now();
        });
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        auto cancelled = std::chrono::steady_clock::now();
        sh.cancel();
        t.join();
        EXPECT_TRUE(sh.cancelled());
        best = std::min(best, std::chrono::duration<double, std::milli>(ended - cancelled).count());
    }
    EXPECT_LT(best, 100.0) << "ms from cancel() to the end of the run";
}

// A regex that backtracks without end at every start position is an error after Oniguruma's retry limits
// (per match and per search), not a hang.
TEST(JqContainment, HostileRegexIsAnError) {
    auto t0 = std::chrono::steady_clock::now();
    const std::string out =
        run_script("jq -n --arg s \"$(printf 'a%.0s' {1..40})!\" '$s | try test(\"(a+)+\\\\1$\") catch .'");
    EXPECT_EQ(out.rfind("\"Regex failure: retry-limit-in-", 0), 0u) << out;
    auto secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_LT(secs, 10.0);
}

TEST(JqContainment, DeepRecursionIsAnError) {
    EXPECT_EQ(run_script("jq -n 'def f: 1 + f; f' 2>&1; echo $?"),
              "jq: error (at <unknown>): stack overflow: recursion too deep\n5\n");
    EXPECT_EQ(run_script("jq -n 'try (def f: [f]; f) catch \"caught\"'"), "\"caught\"\n");
    // long generators and loops use no native stack
    EXPECT_EQ(run_script("jq -n '[limit(200000; repeat(1))] | length, last(range(300000)), "
                         "([range(3000)] | until(length == 0; .[1:]) | length)'"),
              "200000\n299999\n0\n");
}

// The evaluator itself, under a budget of its own (the interpreter hands each command the session's budget
// in ctx.memory; here the budget is given directly).
struct TestHost : utils::jq::Host {
    bool next_input(utils::jq::Value&) override { return false; }
    void debug(const utils::jq::Value&) override {}
    void stderr_value(const utils::jq::Value&) override {}
    utils::jq::Value input_filename() override { return {}; }
    double input_line_number() override { return 0; }
    bool cancelled() override { return ++polls > cancel_after; }
    double now() override { return 0; }
    uint64_t polls = 0, cancel_after = UINT64_MAX;
};

bool run_engine(const std::string& program, TestHost& host, std::string& out) {
    std::string errors;
    int n = 0;
    auto prog = utils::jq::parse_program(program, errors, n);
    if (!prog) return false;
    utils::jq::Evaluator ev(prog, host);
    ev.run(utils::jq::Value(), [&](const utils::jq::Value& v) {
        out += utils::jq::to_json(v) + "\n";
        return true;
    });
    return true;
}

TEST(JqContainment, MemoryBudgetStopsAGrowingArray) {
    TestHost host;  // made before the scope: its values are not charged
    interp::MemoryBudget budget(64u << 20);
    utils::jq::BudgetScope scope(&budget);
    std::string out;
    EXPECT_THROW(run_engine("[range(1e9)] | length", host, out), interp::MemoryLimitExceeded);
    EXPECT_THROW(run_engine("[range(1e9) | tostring * 100]", host, out), interp::MemoryLimitExceeded);
    EXPECT_THROW(run_engine("[range(1e9) | {a: .}] | length", host, out), interp::MemoryLimitExceeded);
    EXPECT_EQ(budget.used(), 0u);  // everything was given back
    EXPECT_TRUE(run_engine("[range(1000)] | length", host, out));
    EXPECT_EQ(out, "1000\n");
}

TEST(JqContainment, CancelStopsTheEvaluator) {
    TestHost host;
    host.cancel_after = 10;
    std::string out;
    EXPECT_THROW(run_engine("last(range(1e18))", host, out), utils::jq::JqCancelled);
    host.polls = 0;
    // An endless generator that is no recursion (a recursive one may reach the depth limit first, as
    // under ASan, whose frames are larger).
    EXPECT_THROW(run_engine("last(repeat(1))", host, out), utils::jq::JqCancelled);
}

}  // namespace
}  // namespace bashkit
