// hostile_runner: the embedding host of the hostile suite (hostile_test.cpp spawns one per script).
//
//   hostile_runner [--timeout SECONDS] [--max-memory BYTES]  < script
//
// Plays an agent process that embeds bashkit: opens one in-memory BashkitSandbox session, executes the script
// read from stdin in it with the given timeout and memory budget, then executes `echo ok` in the SAME session
// and process and prints that second command's stdout. So the harness checks exactly the embedding promise:
// after whatever the script did, this process is still alive, returned in time, and its session still answers.
//
// Exit status: 0 when the second command printed "ok"; 1 when it did not; 2 on a usage error; 3 when
// something escaped the API as an exception (the API promises that nothing does).
#include <cstdlib>
#include <exception>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>

#include "sandbox/bashkit_sandbox.hpp"

namespace {

int usage() {
    std::cerr << "usage: hostile_runner [--timeout SECONDS] [--max-memory BYTES] < script\n";
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    double timeout = 1;
    size_t max_memory = 0;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (i + 1 >= argc) return usage();
        char* end = nullptr;
        if (a == "--timeout") {
            timeout = std::strtod(argv[++i], &end);
        } else if (a == "--max-memory") {
            max_memory = std::strtoull(argv[++i], &end, 10);
        } else {
            return usage();
        }
        if (!end || *end) return usage();
    }
    std::string script((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
    try {
        using namespace bashkit::sandbox;
        BashkitSandboxOptions o;
        o.ephemeral = true;
        o.default_exec_timeout_seconds = timeout;
        if (max_memory) {
            o.limits.max_memory_bytes = max_memory;
            o.fs_limits.max_total_bytes = max_memory;  // the in-memory tree is part of the budget (as the CLI does)
        }
        BashkitSandbox sandbox(o);
        SandboxSession s = sandbox.open();
        SandboxExecutionResult first = s.execute(script);
        std::cerr << "script: exit " << first.exit_code << (first.timed_out ? " (timed out)" : "") << ", "
                  << first.stdout_.size() << " bytes out, " << first.stderr_.size() << " bytes err\n";
        if (!first.stderr_.empty())
            std::cerr << "script stderr ends: "
                      << first.stderr_.substr(first.stderr_.size() > 300 ? first.stderr_.size() - 300 : 0) << "\n";
        SandboxExecutionResult second = s.execute("echo ok", 5.0);
        std::cout << second.stdout_ << std::flush;
        if (second.stdout_ == "ok\n") return 0;
        std::cerr << "echo ok: exit " << second.exit_code << (second.timed_out ? " (timed out)" : "")
                  << (second.cancelled ? " (cancelled)" : "") << ", stderr: " << second.stderr_.substr(0, 300) << "\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "hostile_runner: exception crossed the API: " << e.what() << "\n";
        return 3;
    } catch (...) {
        std::cerr << "hostile_runner: unknown exception crossed the API\n";
        return 3;
    }
}
