// Host processes for the sandbox types that run them (DangerousLocalSandbox, LocalDockerSandbox): one
// program with its output captured, in a process group of its own that a timeout kills as a whole.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace bashkit::sandbox {

struct ProcessOptions {
    std::vector<std::string> argv;        // argv[0]: a path, or a name looked up in PATH
    std::string cwd;                      // empty: the caller's
    std::string stdin_data;               // written to the program's stdin, which is then closed
    std::optional<double> timeout_seconds;
    // On timeout: SIGTERM to the process group, then SIGKILL after this many seconds (0: SIGKILL at once).
    double kill_grace_seconds = 0;
    size_t max_output_bytes = 10u << 20;  // per stream; the rest is read and dropped
    friend bool operator==(const ProcessOptions&, const ProcessOptions&) = default;
};

struct ProcessResult {
    int exit_code = 0;        // the status; 128+N for signal N; 124 on timeout; 127 when it could not start
    std::string out;
    std::string err;
    bool timed_out = false;
    bool started = true;      // false: posix_spawn failed (err says why)
};

ProcessResult run_process(const ProcessOptions& options);

// How sandbox types start processes; tests put a recorder here.
using ProcessRunner = std::function<ProcessResult(const ProcessOptions&)>;

// A word for a POSIX shell command line: single-quoted when it needs quoting.
std::string shell_quote(const std::string& word);

}  // namespace bashkit::sandbox
