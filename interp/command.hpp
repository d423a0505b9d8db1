// The one way out: what a utility receives, and the registry utilities are found in.
//
// A utility (cat, grep, sed, ... in builtins/) is a function of a CommandContext. It reaches the world only
// through the context: its argv, its three streams, the FileSystem (with the cwd to resolve relative
// paths), the exported environment, the limits and cancel token, the clock, and - when the network is on -
// the HTTP client. The sandbox fills a CommandRegistry with utilities; the interpreter looks commands up
// there after functions and shell builtins.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "interp/governor.hpp"
#include "interp/limits.hpp"
#include "interp/stream.hpp"
#include "vfs/filesystem.hpp"

namespace bashkit::net {
class HttpClient;
}

namespace bashkit::interp {

// The identity the session shows to scripts and utilities (whoami, id, hostname). Never the host's.
struct Identity {
    std::string user = "user";
    std::string host = "bashkit";
    uint32_t uid = 1000;
    uint32_t gid = 1000;
    int64_t pid = 1000;   // $$
    int64_t ppid = 999;   // $PPID
    std::string home;     // default: /home/<user>
};

// The exported environment of a command: name=value pairs sorted by name.
class Environment {
public:
    Environment() = default;
    explicit Environment(std::vector<std::pair<std::string, std::string>> vars);
    // The value of name, or nullptr when it is not exported.
    const std::string* get(std::string_view name) const;
    void set(std::string name, std::string value);
    void unset(std::string_view name);
    const std::vector<std::pair<std::string, std::string>>& entries() const { return vars_; }

private:
    std::vector<std::pair<std::string, std::string>> vars_;  // sorted by name
};

struct CommandContext;

// How a nested command is run (the defaults give plain run_command).
struct RunOptions {
    // The token the nested command (and everything it runs) is cancelled by, instead of the caller's: what
    // `timeout` uses to stop one command and not the script around it. Make it with
    // CommandRunner::child_cancel_token() (so the session's cancel and timeout still reach the command), then
    // arm a deadline on it or cancel it from another thread. The caller's own token is left untouched.
    std::shared_ptr<const CancelToken> cancel;
    // The command's exported environment is exactly `env` (env -i, env -u): variables the shell exports
    // that env lacks are not exported to it. By default env is applied over the shell's variables.
    bool exact_env = false;
    // Skip shell functions, as exec() would (env, xargs, timeout, nohup run programs, not functions).
    bool skip_functions = false;
    // The working directory of the command (absolute; env -C); empty: the caller's.
    std::string cwd;
};

// What a command name resolves to, in the shell's lookup order.
enum class CommandKind : unsigned char { none, function, builtin, utility, file };

// Runs another command from inside a utility (xargs, find -exec, env, timeout, nice, bash -c): the same
// lookup as the shell (functions, builtins, registry, PATH), with the given streams.
class CommandRunner {
public:
    virtual ~CommandRunner() = default;
    int run_command(std::span<const std::string> argv, const Environment& env, ByteStream& in, ByteStream& out,
                    ByteStream& err) {
        return run_command(argv, env, in, out, err, RunOptions{});
    }
    virtual int run_command(std::span<const std::string> argv, const Environment& env, ByteStream& in,
                            ByteStream& out, ByteStream& err, const RunOptions& options) = 0;
    // A fresh token below the one the runner's commands run under (cancelled with it), for RunOptions::cancel.
    virtual std::shared_ptr<CancelToken> child_cancel_token() = 0;
    // What `name` would run as (functions only when with_functions), without running it: lets env, xargs
    // and timeout report a missing command with their own message and status 127. For a file found through
    // PATH, or an existing path (a name with a slash: any type, executable or not), *path receives its
    // absolute path.
    virtual CommandKind find_command(std::string_view name, bool with_functions, std::string* path) = 0;
    // Runs shell source text in a child interpreter (bash -c, sh -c, bash FILE): a fresh shell that
    // shares the filesystem. args are $0 $1 ... of the child.
    virtual int run_script(std::string_view source, std::span<const std::string> args, ByteStream& in,
                           ByteStream& out, ByteStream& err) = 0;

    // The background jobs of the shell running the command, as `jobs` and `kill` see them (pgrep, pkill):
    // the running ones, in start order. A subshell sees its parent's jobs.
    struct JobView {
        int64_t pid = 0;
        int id = 0;            // %N
        std::string command;   // as `jobs` prints it
    };
    virtual std::vector<JobView> running_jobs() { return {}; }
    // Sends signal sig to the running job with this pid the way `kill` does (a cooperative cancel; the job
    // reports 128 + sig; 0 only checks it exists; CHLD, CONT, URG and WINCH are ignored). False when no
    // running job has that pid.
    virtual bool signal_job(int64_t pid, int sig) {
        (void)pid;
        (void)sig;
        return false;
    }
};

struct CommandContext {
    std::vector<std::string> argv;  // argv[0] is the command name as invoked
    ByteStream& in;
    ByteStream& out;
    ByteStream& err;
    vfs::FileSystem& fs;
    std::string cwd;  // absolute
    const Environment& env;
    const ExecutionLimits& limits;
    const CancelToken& cancel;
    const vfs::Clock& clock;
    CommandRunner* runner = nullptr;        // null when the caller cannot run commands
    net::HttpClient* http = nullptr;        // null when the network is off
    uint32_t umask = 022;
    const Identity* identity = nullptr;     // the session's virtual user, host and ids
    // The session's memory budget (interp/governor.hpp): charge what grows with the input. Null when the
    // caller has none (every MemoryCharge call is then a no-op).
    MemoryBudget* memory = nullptr;

    // path made absolute against cwd (not normalised; the FileSystem resolves . and ..).
    std::string resolve(std::string_view path) const;
    bool cancelled() const { return cancel.cancelled(); }
    // Writes to err as "argv0: message\n".
    void error(std::string_view message) const;
};

using CommandFn = std::function<int(CommandContext&)>;

// A program outside the interpreter, for a front end that runs host programs (the CLI's --host mode). The
// library never runs one by itself: only when ShellOptions::external is set, a command that is neither a
// function, a builtin nor a registered utility, and that names an executable file (found through PATH or
// given as a path), is first handed to it, before the interpreter would run the file as a shell script.
struct ExternalCommand {
    std::span<const std::string> argv;  // argv[0] is the command name as invoked
    std::string_view path;              // the file, an absolute path in the FileSystem
    const Environment& env;             // the exported environment
    std::string_view cwd;               // absolute, in the FileSystem
    ByteStream& in;
    ByteStream& out;
    ByteStream& err;
    const CancelToken& cancel;          // the runner ends the program when it fires
};

// Returns the program's status, or std::nullopt to let the interpreter run the file itself (a shell script).
using ExternalRunner = std::function<std::optional<int>(const ExternalCommand&)>;

struct RegisteredCommand {
    std::string name;
    std::string help;  // one line: usage and summary
    CommandFn fn;
};

// name -> utility. Filled by the sandbox before sessions run; read concurrently afterwards (lookups are
// const and need no lock).
class CommandRegistry {
public:
    // Adds or replaces a command.
    void add(std::string name, std::string help, CommandFn fn);
    bool erase(std::string_view name);
    const RegisteredCommand* find(std::string_view name) const;
    std::vector<std::string> names() const;  // sorted
    size_t size() const { return commands_.size(); }

private:
    struct Hash {
        using is_transparent = void;
        size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    std::unordered_map<std::string, RegisteredCommand, Hash, std::equal_to<>> commands_;
};

}  // namespace bashkit::interp
