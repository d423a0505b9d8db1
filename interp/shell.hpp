// A shell session: the interpreter with its state, over a FileSystem and a CommandRegistry.
//
//   vfs::MemoryFs fs;
//   interp::CommandRegistry registry;          // filled with utilities by the sandbox
//   interp::Shell sh(fs, registry);
//   auto r = sh.run("x=1; echo $((x+1))");     // r.exit_code == 0, r.out == "2\n"
//   r = sh.run("echo $x");                     // state persists: "1\n"
//
// Each run() parses its script and evaluates it like `bash -c` would, on the session's evaluation thread
// (which has a large stack; depth is bounded by the limits as well). Variables, functions, the cwd, options,
// traps, aliases and background jobs persist from one run() to the next, as in an interactive shell. An
// EXIT trap runs when a script calls `exit` and when the session is destroyed.
//
// Embedder extensions:
//   sh.add_command("ticket", "ticket ID : show a ticket", [](CommandContext& ctx) { ... return 0; });
//   sh.run("ticket 7 | grep open", {}, {.on_stdout = [](std::string_view chunk) { show(chunk); }});
//   std::string snap = sh.save_state();        // JSON; later, in a new Shell: other.restore_state(snap)
//
// Thread-safety: one run() at a time per Shell (calls from several threads are serialised); cancel() may
// be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <ctime>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "interp/command.hpp"
#include "interp/limits.hpp"
#include "interp/stream.hpp"
#include "vfs/filesystem.hpp"

namespace bashkit::interp {

struct ShellOptions {
    Identity identity;
    ExecutionLimits limits;
    std::string cwd = "";          // initial directory; default: home when it exists, else "/"
    // Extra environment variables (exported), applied after the defaults (PATH, HOME, USER, ...).
    std::vector<std::pair<std::string, std::string>> env;
    // `env` is the whole environment the shell was started with (a host shell, as bash): HOME, USER and
    // LOGNAME are not made up when it lacks them, and PATH and SHELL get bash's defaults, not exported.
    bool env_is_complete = false;
    std::string script_name = "bashkit";  // $0
    std::vector<std::string> args;        // $1 ...
    const vfs::Clock* clock = nullptr;     // null: the system clock
    uint64_t random_seed = 0;             // 0: seeded from the host's random device
    net::HttpClient* http = nullptr;       // passed to utilities through CommandContext
    // Runs host programs (see ExternalCommand). Empty, the default: never; an executable file found in the
    // FileSystem is run as a shell script, and nothing outside the sandbox can be started.
    ExternalRunner external;
    // Breaks seconds since the epoch down in the time zone TZ names (null: TZ is not exported), for
    // printf's %(fmt)T; false when it cannot. Empty: UTC. ConfiguredShell sets one that reads the zone
    // files of the shell's FileSystem.
    std::function<bool(int64_t seconds, const std::string* tz, std::tm& out)> local_time;
};

struct ExecResult {
    int exit_code = 0;
    std::string out;   // stdout
    std::string err;   // stderr
    bool out_truncated = false;  // max_output_bytes cut stdout (the rest was dropped)
    bool err_truncated = false;
    bool timed_out = false;      // the run's timeout stopped it (exit_code 124)
    bool cancelled = false;      // cancel() stopped it (not the timeout)
    // Whether either stream was cut.
    bool truncated() const { return out_truncated || err_truncated; }
};

// Receives output as it is written, before the command ends (an agent UI showing progress). A chunk is one
// write of the script (a line of `echo`, a buffer of `cat`); chunks of one stream arrive in order, and calls
// are serialised (never two at once), from the session's threads: keep the callback short and do not call
// back into the Shell from it. What the limits cut from the result (max_output_bytes) is still streamed.
struct OutputCallbacks {
    std::function<void(std::string_view)> on_stdout;
    std::function<void(std::string_view)> on_stderr;
};

// A saved shell state (Shell::save_state) that restore_state cannot use: not JSON, not a snapshot, or
// written by an incompatible version.
class StateError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The version written into snapshots; restore_state refuses any other.
inline constexpr int kStateVersion = 1;

class ShellImpl;

class Shell {
public:
    Shell(vfs::FileSystem& fs, const CommandRegistry& registry, ShellOptions options = {});
    ~Shell();
    Shell(const Shell&) = delete;
    Shell& operator=(const Shell&) = delete;

    // Runs a script; stdout and stderr are collected (up to limits.max_output_bytes each).
    ExecResult run(std::string_view script, std::string_view stdin_data = {});
    // The same, with stdout and stderr also streamed to the callbacks as they are written (either may be
    // empty); the result still holds the whole (capped) output.
    ExecResult run(std::string_view script, std::string_view stdin_data, const OutputCallbacks& callbacks);
    // Runs a script with caller-provided streams (the CLI streams to its own stdout). Returns the status.
    int run(std::string_view script, ByteStream& in, ByteStream& out, ByteStream& err);
    // Where a script comes from, for $LINENO and messages: a front end that reads a script piece by piece
    // (stdin) passes the line each piece starts at; a script file passes its path.
    struct Source {
        std::string_view name = "bashkit";  // prefix of runtime messages ("NAME: line N: ...")
        std::string_view syntax_name;       // prefix of syntax errors when it differs ("bash: -c")
        uint32_t first_line = 1;
        bool script_input = false;  // read from a file or stdin (not -c): fatal expansion errors exit with 1
        bool script_file = false;   // a script file (`name` is its path): the bottom of BASH_SOURCE
    };
    int run(std::string_view script, ByteStream& in, ByteStream& out, ByteStream& err, const Source& source);
    // Runs a script given as a file path in the FileSystem (`bashkit FILE`), with $0 set to the path.
    int run_file(std::string_view path, std::vector<std::string> args, ByteStream& in, ByteStream& out,
                 ByteStream& err);

    // Ends the session like a shell exiting: runs the EXIT trap (if one is set and did not run yet) and
    // returns what it printed, with the final status (the last status, or the trap's `exit`). Background
    // jobs are cancelled. The destructor does the same, discarding the output.
    ExecResult close();

    // Cancels the current run (and background jobs) from any thread; the run ends soon with status 130.
    void cancel();
    // Whether `exit` was called (the session stays usable; a front end may stop here).
    bool exited() const;
    // Whether the last run ended the script early, as a non-interactive bash would exit there: `exit`,
    // errexit, a fatal expansion error, a syntax error or cancellation. A front end reading a script piece
    // by piece stops reading.
    bool stopped() const;
    // Whether the last run was stopped by its timeout / by cancel() (what ExecResult carries, for front
    // ends that run with their own streams).
    bool timed_out() const;
    bool cancelled() const;

    // Direct access for embedders and tests.
    std::string get_var(std::string_view name) const;  // "" when unset
    void set_var(std::string_view name, std::string_view value, bool exported = false);
    std::string cwd() const;
    // The aliases the next line of a script is parsed with: none unless `shopt -s expand_aliases`. A front
    // end reading a script line by line needs them to tell whether the text read so far is a complete
    // command (`alias loop='for i in 1 2; do '` opens one).
    std::map<std::string, std::string> parse_aliases() const;

    // Custom commands: registers `name` for this session only (other sessions over the same registry never
    // see it). It runs like a utility of the registry: it gets the same CommandContext (argv, streams, the
    // session's FileSystem and cwd, the exported environment, limits, cancel token) and takes part in
    // pipelines, redirections, xargs, find -exec, timeout, env, command and type. It is found after shell
    // functions and before shell builtins and the registry. Throws std::invalid_argument when the name is
    // not a valid command name, is a shell keyword or special builtin (break, export, set, ...: never
    // replaceable), or is already a shell builtin, a utility of the registry or a command of this session,
    // unless replace is true.
    void add_command(std::string name, std::string help, CommandFn fn, bool replace = false);
    // The checks of add_command against a registry, without a session (throws std::invalid_argument).
    static void check_command_name(std::string_view name, const CommandRegistry& registry, bool replace);
    // Removes a command added by add_command; false when there was none.
    bool remove_command(std::string_view name);

    // Snapshot and resume: the shell state as JSON text - variables with their attributes (indexed and
    // associative arrays, integer, export, readonly, ...), functions (as source), aliases, set -o and shopt
    // options, traps, the cwd and the directory stack, $0 and the positional parameters. Not saved: files
    // (they live in the FileSystem), background jobs, open descriptors, session commands, the environment
    // of the host. Waits for a run in progress.
    std::string save_state() const;
    // Restores a snapshot into this session (normally a fresh one), replacing its variables, functions,
    // aliases, options, traps and directories. Throws StateError (nothing changed) when the text is not a
    // snapshot or its version is not kStateVersion.
    void restore_state(std::string_view json);

    const ExecutionLimits& limits() const;
    // The session's memory budget (interp/governor.hpp), charged by its variables, buffers and utilities up
    // to limits().max_memory_bytes. An embedder may charge to it what it keeps for the session: the sandbox
    // charges the bytes of an in-memory tree (sandbox/configured_shell.cpp).
    MemoryBudget& memory();
    // Points fds 0, 1 and 2 back at the streams of the next run(), undoing an `exec >file`, `exec 2>&1` or
    // `exec >&-` of an earlier run; other descriptors stay. bash keeps such changes for the rest of the
    // session (so does run() and the CLI); an API whose every call returns its own stdout and stderr (the
    // sandbox's execute) calls this before each run. Waits for a run in progress.
    void reset_standard_fds();
    // Changes limits().timeout for the following run() calls (0 disables); waits for a run in progress.
    // The sandbox API uses it for the timeout_seconds of one execute().
    void set_timeout(std::chrono::milliseconds timeout);

private:
    std::unique_ptr<ShellImpl> impl_;
};

}  // namespace bashkit::interp
