// The sandbox API: a Sandbox is a configured kind of place where an agent's commands run; a SandboxSession is
// one live instance of it.
//
//   BashkitSandbox sandbox({.instance_id = "agent-7", .network = Network::allow({"api.github.com"})});
//   SandboxSession s = sandbox.open("conversation-42");   // hooks' on_create run here
//   SandboxExecutionResult r = s.execute("echo hi > f && cat f");
//   nlohmann::json out = s.call_tool("read_file", {{"path", "f"}});
//   s.close();                                            // on_destroy; also done by the destructor
//
// Common options (each type's options struct has those it supports): network (default Network::none()),
// header_bindings, hooks, access (unset: the widest the type supports). Each type declares what it supports
// (supported_network, supported_header_bindings, supported_access, delete_on_cleanup,
// supports_background_processes) and its constructor refuses anything wider with std::invalid_argument, e.g.
//   "NoSandbox does not support network=all; supported: none"
//   "DangerousLocalSandbox does not support access=..."; "... does not support header binding GitHubBinding;
//   supported: none"; "DangerousLocalSandbox does not support the GitIdentity hook: ..."
// Failures to start or reach a sandbox (a docker engine that is not there) are SandboxError from open().
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "interp/command.hpp"
#include "interp/shell.hpp"

#include "sandbox/hooks.hpp"
#include "sandbox/tools.hpp"
#include "sandbox/types.hpp"

namespace bashkit::sandbox {

// A sandbox could not be started or used (not a configuration error: those are std::invalid_argument).
class SandboxError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// What one sandbox type supports.
struct SandboxAttributes {
    std::string type;                                  // "BashkitSandbox"
    std::vector<Network::Kind> supported_network;
    std::vector<std::string> supported_header_bindings;  // binding_kind() names
    std::vector<SandboxAccess> supported_access;
    bool delete_on_cleanup = true;                     // the session's files go when it closes
    bool supports_background_processes = false;
};

// Output chunks of execute() as they are written (interp/shell.hpp): on_stdout, on_stderr.
using OutputCallbacks = interp::OutputCallbacks;

// A command of the embedder's own (BashkitSandbox): runs in-process like the built-in utilities, with the
// same interp::CommandContext (argv, streams, the session's files, env, cancel token), in pipelines,
// redirections, xargs, find -exec and timeout. A name that is already a shell builtin or a utility is
// refused unless replace is true; keywords and special builtins (export, set, ...) are always refused.
struct CustomCommand {
    std::string name;
    std::string help;  // one line: usage and summary (shown by `help NAME`)
    interp::CommandFn fn;
    bool replace = false;
};

// The machinery of one session of one sandbox type (implemented per type; not part of the embedder's API).
class SessionBackend : public FileAccess {
public:
    virtual ~SessionBackend() = default;
    virtual void start() = 0;  // throws SandboxError
    virtual void stop() = 0;   // never throws
    virtual SandboxExecutionResult execute(const std::string& command, std::optional<double> timeout_seconds) = 0;
    // execute() with the output streamed as it is written. By default the output arrives in one chunk per
    // stream when the command has ended (types that can do better override this).
    virtual SandboxExecutionResult execute_streaming(const std::string& command, std::optional<double> timeout_seconds,
                                                     const OutputCallbacks& callbacks);
    // Custom commands and shell state snapshots, for the types that run a bashkit shell: false (or
    // nullopt) when the type does not support them.
    virtual bool add_command(const CustomCommand& command) {
        (void)command;
        return false;
    }
    virtual std::optional<std::string> save_state() { return std::nullopt; }
    virtual bool restore_state(const std::string& snapshot) {
        (void)snapshot;
        return false;
    }
    // Where the session lives, once started: a host folder, a container id; empty when nowhere.
    virtual std::string location() const { return {}; }
    // The process tools, for types that support background processes (null otherwise).
    virtual ProcessTools* processes() { return nullptr; }
    // Asks the command running now to stop (from any thread); false when the type cannot cancel.
    virtual bool cancel() { return false; }
};

// One live session. Move-only; the destructor closes it. Usable as the context of hooks.
class SandboxSession {
public:
    SandboxSession(SandboxSession&&) noexcept;
    SandboxSession& operator=(SandboxSession&&) noexcept;
    ~SandboxSession();

    const std::string& id() const { return id_; }
    const std::string& sandbox_type() const { return type_; }
    SandboxAccess access() const { return access_; }
    bool is_open() const { return open_; }
    // Where the session lives once open: BashkitSandbox's session folder, DangerousLocalSandbox's workspace,
    // LocalDockerSandbox's container id, MistralSandbox's remote sandbox id; empty when nowhere.
    std::string location() const { return backend_ ? backend_->location() : std::string(); }

    // Starts the sandbox and runs each hook's on_create, in order. Throws SandboxError (the sandbox could
    // not start) or what a hook threw; the session is then closed. A second open() of an open session does
    // nothing.
    void open();
    // Runs each hook's on_destroy (in reverse order), then stops the sandbox (and deletes its files when
    // the type does that). Idempotent; never throws.
    void close();

    // Runs a shell command. timeout_seconds: the type's default when unset. A command stopped by its
    // timeout has exit_code 124. Throws SandboxError when the session is not open.
    SandboxExecutionResult execute(const std::string& command, std::optional<double> timeout_seconds = std::nullopt);
    // The same, with stdout and stderr chunks handed to the callbacks as the command writes them (before it
    // ends, for BashkitSandbox; other types may deliver them at the end). The result still holds the whole
    // (capped) output.
    SandboxExecutionResult execute(const std::string& command, std::optional<double> timeout_seconds,
                                   const OutputCallbacks& callbacks);

    // Registers a command in this session only (BashkitSandbox; see CustomCommand). Throws
    // std::invalid_argument for a refused name, SandboxError when the session is not open or its type has
    // no custom commands. Like save_state and restore_state, it waits for an execute() in progress: do not
    // call these from inside a command or an output callback of the same session.
    void add_command(CustomCommand command);
    // Snapshot and resume (BashkitSandbox): the shell state (variables, functions, aliases, options, traps,
    // cwd, directory stack) as JSON text, and restoring it into a session - this one, or another one later,
    // in this process or another. Files are not in it (the session tree keeps them); header-binding secrets
    // never are. restore_state throws SandboxError for a text that is not a snapshot, or one from an
    // incompatible version (the message says which), and when the type has no shell state.
    std::string save_state();
    void restore_state(const std::string& snapshot);
    // Stops the command that execute() runs now, from any thread: it ends soon with exit code 130. A command
    // that has not started yet is not affected. Returns false when the type cannot cancel (only
    // BashkitSandbox can) or the session is not open.
    bool cancel();

    // File access for hooks and embedders (relative paths are relative to the session's working directory).
    // Throw SandboxError on failure.
    std::string read_file(const std::string& path);
    void write_file(const std::string& path, const std::string& content);

    // The tools for this session's access level, and calling one (sandbox/tools.hpp). call_tool never
    // throws: every failure is a result {"ok": false, "error": "..."}.
    std::vector<ToolSpec> tools() const;
    nlohmann::json call_tool(const std::string& name, const nlohmann::json& args);

    // For the types that own the session (used by Sandbox implementations).
    SandboxSession(std::string type, std::string id, SandboxAccess access,
                   std::vector<std::shared_ptr<SandboxHook>> hooks, std::unique_ptr<SessionBackend> backend,
                   bool background_processes);
    SessionBackend& backend() { return *backend_; }

private:
    std::string type_;
    std::string id_;
    SandboxAccess access_ = SandboxAccess::none;
    std::vector<std::shared_ptr<SandboxHook>> hooks_;
    std::unique_ptr<SessionBackend> backend_;
    bool background_ = false;
    bool open_ = false;
};

// The base of every sandbox type.
class Sandbox {
public:
    virtual ~Sandbox() = default;

    const SandboxAttributes& attributes() const { return attrs_; }
    const std::string& type_name() const { return attrs_.type; }
    const std::vector<Network::Kind>& supported_network() const { return attrs_.supported_network; }
    const std::vector<std::string>& supported_header_bindings() const { return attrs_.supported_header_bindings; }
    const std::vector<SandboxAccess>& supported_access() const { return attrs_.supported_access; }
    bool delete_on_cleanup() const { return attrs_.delete_on_cleanup; }
    bool supports_background_processes() const { return attrs_.supports_background_processes; }

    const Network& network() const { return network_; }
    const WorkspaceHeaderBindings& header_bindings() const { return bindings_; }
    const std::vector<std::shared_ptr<SandboxHook>>& hooks() const { return hooks_; }
    SandboxAccess access() const { return access_; }

    // A session, not yet started (call open() on it); an empty id asks for a fresh random one.
    SandboxSession session(std::string session_id = {});
    // session(id) then open().
    SandboxSession open(std::string session_id = {});

    // The tools of this sandbox's access level (the same list every session gives).
    std::vector<ToolSpec> tools() const;

protected:
    // Validates the common options against attrs and throws std::invalid_argument naming what is refused.
    // refused_hooks: hook type name -> why this type refuses it.
    Sandbox(SandboxAttributes attrs, Network network, WorkspaceHeaderBindings bindings,
            std::vector<std::shared_ptr<SandboxHook>> hooks, std::optional<SandboxAccess> access,
            const std::vector<std::pair<std::string, std::string>>& refused_hooks = {});

    virtual std::unique_ptr<SessionBackend> make_backend(const std::string& session_id) = 0;

    SandboxAttributes attrs_;
    Network network_;
    WorkspaceHeaderBindings bindings_;
    std::vector<std::shared_ptr<SandboxHook>> hooks_;
    SandboxAccess access_;
};

// A random id of 16 hex digits.
std::string random_session_id();

}  // namespace bashkit::sandbox
