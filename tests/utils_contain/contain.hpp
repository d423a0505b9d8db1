// Containment scenarios of the utilities: a hostile program or input under a small memory budget fails with
// the memory-limit message instead of growing, a deadline or a cancel() from another thread stops an
// endless loop, and legitimate big work still passes under the default budget.
//
// The budget reaches the utilities through CommandContext::memory. So that these tests do not depend on
// how the interpreter wires the session's budget, the Env wraps every registered utility: the wrapper
// points ctx.memory at the Env's own budget and turns MemoryLimitExceeded (and bad_alloc) into the
// message and status the interpreter's command boundary gives (`bashkit: NAME: memory limit exceeded
// (16 MiB)`, status 1).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include "utils/registry.hpp"
#include "interp/governor.hpp"
#include "interp/shell.hpp"
#include "vfs/memory_fs.hpp"

namespace bashkit::contain_test {

using namespace std::chrono_literals;

inline constexpr size_t kMiB = size_t{1} << 20;

struct Env {
    vfs::MemoryFs fs;
    interp::CommandRegistry registry;
    interp::MemoryBudget budget;
    std::unique_ptr<interp::Shell> sh;

    explicit Env(size_t budget_bytes = size_t{1} << 30, std::chrono::milliseconds timeout = 60s)
        : budget(budget_bytes) {
        EXPECT_TRUE(fs.mkdir_all("/home/user").ok());
        utils::register_all(registry);
        for (const std::string& name : registry.names()) {
            const interp::RegisteredCommand* rc = registry.find(name);
            interp::CommandFn inner = rc->fn;
            std::string help = rc->help;
            registry.add(name, help, [this, inner, name](interp::CommandContext& ctx) {
                ctx.memory = &budget;
                try {
                    return inner(ctx);
                } catch (const interp::MemoryLimitExceeded& e) {
                    (void)ctx.err.write("bashkit: " + name + ": " + interp::memory_limit_message(e.limit()) + "\n");
                } catch (const std::bad_alloc&) {
                    (void)ctx.err.write("bashkit: " + name + ": " + interp::memory_limit_message(budget.limit()) +
                                        "\n");
                }
                return 1;
            });
        }
        interp::ShellOptions opts;
        opts.limits.timeout = timeout;
        opts.limits.max_memory_bytes = budget_bytes;
        opts.env = {{"LC_ALL", "C"}};
        sh = std::make_unique<interp::Shell>(fs, registry, opts);
    }
};

// Runs `script` under a small budget: it must fail (status != 0) with the memory-limit message, promptly,
// and leave nothing charged behind.
inline void expect_memory_limit(const std::string& script, size_t budget = 16 * kMiB) {
    Env e(budget, 60s);
    auto t0 = std::chrono::steady_clock::now();
    auto r = e.sh->run(script + "; echo \"status $?\"");
    auto took = std::chrono::steady_clock::now() - t0;
    EXPECT_NE(r.out.find("status "), std::string::npos) << script;
    EXPECT_EQ(r.out.find("status 0\n"), std::string::npos) << script << "\n" << r.out.substr(0, 200);
    EXPECT_NE(r.err.find("memory limit exceeded (" + std::to_string(budget >> 20) + " MiB)"), std::string::npos)
        << script << "\nstderr: " << r.err.substr(0, 400);
    EXPECT_LT(took, 30s) << script;
    if (std::getenv("CONTAIN_VERBOSE"))
        std::fprintf(stderr, "%6lld ms  %s | %s", 
                     static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(took).count()),
                     script.c_str(), r.err.substr(0, 100).c_str());
    EXPECT_EQ(e.budget.used(), 0u) << script << ": charges left behind";
    // The session goes on.
    auto again = e.sh->run("echo ok");
    EXPECT_EQ(again.out, "ok\n") << script;
}

// Runs an endless `script` with a short deadline: it must end (status 124 from the run's timeout).
inline void expect_deadline_stops(const std::string& script) {
    Env e(size_t{1} << 30, 300ms);
    auto t0 = std::chrono::steady_clock::now();
    auto r = e.sh->run(script);
    auto took = std::chrono::steady_clock::now() - t0;
    EXPECT_EQ(r.exit_code, 124) << script << "\nstderr: " << r.err.substr(0, 400);
    EXPECT_LT(took, 5s) << script;
    if (std::getenv("CONTAIN_VERBOSE"))
        std::fprintf(stderr, "%6lld ms  %s\n",
                     static_cast<long long>(std::chrono::duration_cast<std::chrono::milliseconds>(took).count()),
                     script.c_str());
}

// Runs an endless `script` (no deadline) and cancels it from another thread: run() must return.
inline void expect_cancel_stops(const std::string& script) {
    Env e(size_t{1} << 30, 600s);
    auto t0 = std::chrono::steady_clock::now();
    std::thread killer([&] {
        std::this_thread::sleep_for(300ms);
        e.sh->cancel();
    });
    auto r = e.sh->run(script);
    killer.join();
    auto took = std::chrono::steady_clock::now() - t0;
    EXPECT_NE(r.exit_code, 0) << script;
    EXPECT_LT(took, 5s) << script;
}

}  // namespace bashkit::contain_test
