// Host processes for the sandbox types that run them (DangerousLocalSandbox, LocalDockerSandbox): one
// program with its output captured, in a process group of its own that a timeout kills as a whole.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
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
// The same, handing each piece of output to on_output as it is read (is_stderr, bytes), before the program
// ends; everything is handed on, also what max_output_bytes cuts from the result.
using ProcessOutputFn = std::function<void(bool is_stderr, std::string_view chunk)>;
ProcessResult run_process(const ProcessOptions& options, const ProcessOutputFn& on_output);

// A background process's output since the last read, and its state (ProcessTable::read, the process tools).
struct ProcessOutput {
    bool found = false;    // false: no such process (or `error` says why it could not be read)
    std::string out, err;  // what arrived since the last read
    bool running = false;
    int exit_code = 0;     // when not running: the status (128+N for signal N)
    std::string error;
};

// Takes what a process record holds (its mu, out, err, running and exit_code): the read of ProcessTable and of
// the in-process ShellProcesses.
template <class Proc>
ProcessOutput take_output(Proc& p) {
    std::lock_guard lock(p.mu);
    ProcessOutput o;
    o.found = true;
    o.out = std::exchange(p.out, {});
    o.err = std::exchange(p.err, {});
    o.running = p.running;
    o.exit_code = p.exit_code;
    return o;
}

// How sandbox types start processes; tests put a recorder here.
using ProcessRunner = std::function<ProcessResult(const ProcessOptions&)>;

// Background processes of one session (DangerousLocalSandbox's process tools): each started in a process
// group of its own, its output gathered by a thread until it ends, killed as a group by kill() and by the
// destructor. Thread-safe.
class ProcessTable {
public:
    ProcessTable() = default;
    ~ProcessTable();
    ProcessTable(const ProcessTable&) = delete;
    ProcessTable& operator=(const ProcessTable&) = delete;

    // Starts argv in cwd; the process id (1, 2, ...) or an error message.
    struct Started {
        int id = 0;
        std::string error;
    };
    Started start(const std::vector<std::string>& argv, const std::string& cwd);
    // The same for a program that needs its id to be started (make_argv(id)) and that kill() must also reach
    // by other means than its host process group (kill_inside(id), called first: a `docker exec` client's
    // group does not hold the program it runs in the container).
    Started start(const std::function<std::vector<std::string>(int id)>& make_argv, const std::string& cwd,
                  std::function<void(int id)> kill_inside);

    using Output = ProcessOutput;
    Output read(int id);
    // Writes to the process's stdin (and closes it when close_stdin). An error message, or nullopt.
    std::optional<std::string> write(int id, const std::string& data, bool close_stdin);
    // SIGKILL to the process group, then waits for it. false when there is no such process.
    bool kill(int id);
    void kill_all();
    size_t max_buffer_bytes = 10u << 20;  // per stream; older output beyond it is dropped

private:
    struct Proc;
    std::mutex mu_;
    int next_id_ = 1;
    std::map<int, std::shared_ptr<Proc>> procs_;
};

// A word for a POSIX shell command line: single-quoted when it needs quoting.
std::string shell_quote(const std::string& word);

}  // namespace bashkit::sandbox
