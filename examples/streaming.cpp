// Streaming output: show a long command's progress as it happens, as an agent UI would, while the result
// still holds the whole output.
//
//   streaming             run the demo; exit status 0 when the first line arrived well before the end
#include <chrono>
#include <iostream>
#include <string>

#include "sandbox/bashkit_sandbox.hpp"

namespace sb = bashkit::sandbox;
using Clock = std::chrono::steady_clock;

int main() {
    sb::BashkitSandbox sandbox({.ephemeral = true});
    sb::SandboxSession session = sandbox.open("streaming");

    Clock::time_point start = Clock::now();
    Clock::time_point first_chunk{};
    auto ms = [&](Clock::time_point t) {
        return std::chrono::duration_cast<std::chrono::milliseconds>(t - start).count();
    };
    sb::OutputCallbacks callbacks;
    callbacks.on_stdout = [&](std::string_view chunk) {
        if (first_chunk == Clock::time_point{}) first_chunk = Clock::now();
        std::cout << "[" << ms(Clock::now()) << " ms] stdout: " << chunk << std::flush;
    };
    callbacks.on_stderr = [&](std::string_view chunk) {
        std::cout << "[" << ms(Clock::now()) << " ms] stderr: " << chunk << std::flush;
    };
    sb::SandboxExecutionResult r = session.execute(
        "for i in 1 2 3; do echo step $i; sleep 0.1; done; echo done >&2", std::nullopt, callbacks);
    Clock::time_point end = Clock::now();
    std::cout << "finished after " << ms(end) << " ms with status " << r.exit_code << "; whole stdout:\n" << r.stdout_;

    bool ok = r.exit_code == 0 && r.stdout_ == "step 1\nstep 2\nstep 3\n" && r.stderr_ == "done\n" &&
              first_chunk != Clock::time_point{} && end - first_chunk >= std::chrono::milliseconds(150);
    return ok ? 0 : 1;
}
