// BashkitSandbox: this project's in-process interpreter over the session tree (vfs/session_tree.hpp).
//
// A session's files live on disk in a folder named from instance_id and the session id, under
// base_dir (default "<temp dir>/bashkit-sessions-<uid>/"): /workspace (the working directory), /tmp and
// /home/user (HOME). Closing a session keeps the folder (delete_on_cleanup is false), so opening the same
// (instance_id, session id) again, in this process or another one, finds the files; shell state (variables,
// functions, cwd) lives only as long as the session object, unless saved with SandboxSession::save_state and
// restored into the reopened session with restore_state.
//
// Supports networks none (the default), all and allow, with block_private_ips on by default; header bindings
// HeaderBinding, GitHubBinding and MistralApiBinding (secrets stay in the HTTP client); access none, files
// and full (default full); the GitIdentity hook writes /home/user/.gitconfig through the sandbox's minimal
// `git config` command (sandbox/setup.hpp). A command without timeout_seconds gets 300 s.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "interp/limits.hpp"
#include "net/http.hpp"
#include "sandbox/sandbox.hpp"
#include "vfs/limited_fs.hpp"

namespace bashkit::sandbox {

struct BashkitSandboxOptions {
    std::string instance_id;
    Network network = Network::none();
    bool block_private_ips = true;
    WorkspaceHeaderBindings header_bindings;
    std::vector<std::shared_ptr<SandboxHook>> hooks;
    std::optional<SandboxAccess> access;  // unset: full
    double default_exec_timeout_seconds = 300;
    // Where session folders go; empty: vfs::default_session_base().
    std::string base_dir;
    // Keep nothing on disk: each session lives in memory only (and is gone when closed).
    bool ephemeral = false;
    interp::ExecutionLimits limits;  // limits.timeout is replaced per command by the timeout
    vfs::FsLimits fs_limits;
    std::shared_ptr<net::Resolver> resolver;  // null: the system resolver
    // Commands of the embedder's own, registered in every session before the hooks run (see CustomCommand;
    // the constructor refuses a name that clashes with a builtin or utility unless its replace is set).
    std::vector<CustomCommand> commands;
    // The secrets HeaderBinding::secret_name names, looked up when a session starts (the constructor checks
    // that each name resolves). Unset: no secrets.
    SecretLookup secrets;
};

class BashkitSandbox final : public Sandbox {
public:
    static SandboxAttributes static_attributes();

    explicit BashkitSandbox(BashkitSandboxOptions options = {});
    const BashkitSandboxOptions& options() const { return opts_; }

    // The host folder of a session (empty when ephemeral).
    std::string session_dir(const std::string& session_id) const;
    // Removes a session's folder from disk.
    void delete_session(const std::string& session_id);

protected:
    std::unique_ptr<SessionBackend> make_backend(const std::string& session_id) override;

private:
    BashkitSandboxOptions opts_;
};

}  // namespace bashkit::sandbox
