// Background processes of an in-process session (BashkitSandbox, and through it `bashkit serve`): the process
// tools of sandbox/tools.hpp without a host process. Each process is a fresh shell of the session - its tree,
// network policy, custom commands and limits, as a `bash -c COMMAND` started from the session would be -
// running COMMAND on a thread of its own; it shares the session's files, not its variables. Its stdin is fed
// by write(); its output is kept until read (the newest max_buffer_bytes per stream). No timeout applies: it
// runs until it ends, kill() (exit code 137, as for a program killed by SIGKILL) or the table's destruction.
// At most max_running run at once. Thread-safe.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>

#include "sandbox/configured_shell.hpp"
#include "sandbox/tools.hpp"

namespace bashkit::sandbox {

class ShellProcesses final : public ProcessTools {
public:
    // Makes the shell of a new process (throws what ConfiguredShell throws; start() reports it).
    using MakeShell = std::function<std::unique_ptr<ConfiguredShell>()>;
    explicit ShellProcesses(MakeShell make_shell);
    ~ShellProcesses() override;  // kills every process still running
    ShellProcesses(const ShellProcesses&) = delete;
    ShellProcesses& operator=(const ShellProcesses&) = delete;

    Started start(const std::string& command) override;
    Output read(int id) override;
    std::optional<std::string> write(int id, const std::string& data, bool close_stdin) override;
    Output kill(int id) override;
    void kill_all();

    size_t max_buffer_bytes = 10u << 20;  // per stream, output and pending input
    size_t max_running = 16;

    struct Proc;

private:
    std::shared_ptr<Proc> find(int id);
    MakeShell make_shell_;
    std::mutex mu_;
    std::mutex join_mu_;
    int next_id_ = 1;
    std::map<int, std::shared_ptr<Proc>> procs_;
};

}  // namespace bashkit::sandbox
