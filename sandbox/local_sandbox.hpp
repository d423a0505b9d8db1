// NoSandbox and DangerousLocalSandbox.
//
// NoSandbox: runs nothing. Network none only, no header bindings, access none only; execute() returns
// status 127 with "NoSandbox: no commands can run in this sandbox" on stderr. Useful for agents that have no
// tools at all but share the Sandbox plumbing (hooks still run).
//
// DangerousLocalSandbox: the host's own /bin/bash (or /bin/sh) in a workspace folder, with the caller's user,
// environment and network: NO isolation. Each execute() is `/bin/bash -c COMMAND` started in the workspace in a
// process group of its own; on timeout the whole group is killed (SIGKILL) and the status is 124.
//   - workspace: empty means a new folder under ~/.cache/mistral-vibe-harness-local-host/ (made at open()).
//   - delete_on_cleanup: default true without a workspace and false with one. A workspace that is deleted
//     must be absolute and must contain neither the home folder nor the process's current directory, else
//     open() fails (SandboxError) and nothing is deleted.
//   - Network is always all (the host's); header bindings are not supported (nothing intercepts the wire).
//   - Refuses the GitIdentity hook (it would overwrite the user's own ~/.gitconfig).
//   - The file tools work on host paths: relative ones from the workspace, absolute ones as they are.
//   - Background processes: with full access the session also offers the process tools (start_process,
//     read_process_output, write_process_input, kill_process; sandbox/tools.hpp), each process in a group
//     of its own, all killed at close().
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sandbox/process.hpp"
#include "sandbox/sandbox.hpp"

namespace bashkit::sandbox {

struct NoSandboxOptions {
    Network network = Network::none();        // only none
    WorkspaceHeaderBindings header_bindings;  // none supported
    std::vector<std::shared_ptr<SandboxHook>> hooks;
    std::optional<SandboxAccess> access;  // only none
};

class NoSandbox final : public Sandbox {
public:
    static SandboxAttributes static_attributes();
    explicit NoSandbox(NoSandboxOptions options = {});

protected:
    std::unique_ptr<SessionBackend> make_backend(const std::string& session_id) override;
};

struct DangerousLocalSandboxOptions {
    std::string shell = "bash";  // "bash" | "sh"
    double default_exec_timeout_seconds = 600;
    std::string workspace;                   // empty: a new folder under ~/.cache/mistral-vibe-harness-local-host/
    std::optional<bool> delete_on_cleanup;   // unset: true without a workspace, false with one
    std::optional<Network> network;          // unset: all, the only one supported
    WorkspaceHeaderBindings header_bindings; // none supported
    std::vector<std::shared_ptr<SandboxHook>> hooks;
    std::optional<SandboxAccess> access;     // unset: full
};

class DangerousLocalSandbox final : public Sandbox {
public:
    static SandboxAttributes static_attributes();
    explicit DangerousLocalSandbox(DangerousLocalSandboxOptions options = {});
    const DangerousLocalSandboxOptions& options() const { return opts_; }

    // "<$HOME>/.cache/mistral-vibe-harness-local-host" (the folder the Python API names) (HOME read at the call).
    static std::string default_workspace_base();
    // The workspace rule, for a folder to be deleted at cleanup: an error message, or nullopt when allowed.
    static std::optional<std::string> check_deletable_workspace(const std::string& workspace);

protected:
    std::unique_ptr<SessionBackend> make_backend(const std::string& session_id) override;

private:
    DangerousLocalSandboxOptions opts_;
};

}  // namespace bashkit::sandbox
