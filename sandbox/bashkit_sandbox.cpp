#include "sandbox/bashkit_sandbox.hpp"

#include <chrono>
#include <cmath>
#include <mutex>

#include "interp/shell.hpp"
#include "sandbox/configured_shell.hpp"
#include "sandbox/setup.hpp"
#include "sandbox/shell_processes.hpp"
#include "vfs/session_tree.hpp"

namespace bashkit::sandbox {
namespace {

vfs::SessionTreeOptions tree_options(const BashkitSandboxOptions& o, const std::string& session_id) {
    vfs::SessionTreeOptions so;
    so.session_id = session_id;
    so.instance_id = o.instance_id;
    so.base_dir = o.base_dir;
    so.ephemeral = o.ephemeral;
    so.limits = o.fs_limits;
    return so;
}

class BashkitBackend final : public SessionBackend {
public:
    BashkitBackend(const BashkitSandboxOptions& o, const WorkspaceHeaderBindings& bindings, std::string id)
        : opts_(o), bindings_(bindings), id_(std::move(id)) {}
    ~BashkitBackend() override { stop(); }

    void start() override {
        auto tree = vfs::open_session_tree(tree_options(opts_, id_));
        if (!tree) {
            throw SandboxError("BashkitSandbox: cannot open the session tree of '" + id_ +
                               "': " + std::string(vfs::error_message(tree.error())));
        }
        tree_ = std::move(*tree);
        auto shell = make_shell(tree_.cwd, true);
        // A process's shell leaves the tree charged to the session's shell (ShellSetup::charge_tree_to_budget).
        auto processes = std::make_unique<ShellProcesses>([this] { return make_shell(working_directory(), false); });
        {
            std::lock_guard cancel_lock(cancel_mu_);
            shell_ = std::move(shell);
        }
        processes_ = std::move(processes);
    }

    // A shell of this session: the session tree (which carries its FsLimits, the usage already on disk
    // counted), the network policy with its header bindings, the limits, the custom commands.
    std::unique_ptr<ConfiguredShell> make_shell(const std::string& cwd, bool charge_tree) {
        ShellSetup setup;
        setup.charge_tree_to_budget = charge_tree;
        setup.tree = tree_.fs;
        setup.fs_limits = opts_.fs_limits;
        setup.network.network = opts_.network;
        setup.network.block_private_ips = opts_.block_private_ips;
        setup.network.resolver = opts_.resolver;
        auto wire = bindings_.wire(opts_.secrets);
        setup.network.header_bindings = std::move(wire.bindings);
        setup.network.secrets = std::move(wire.secrets);
        setup.shell.limits = opts_.limits;
        setup.shell.cwd = cwd;
        setup.shell.identity.home = tree_.home;
        auto shell = std::make_unique<ConfiguredShell>(std::move(setup));
        for (const CustomCommand& c : opts_.commands) shell->shell().add_command(c.name, c.help, c.fn, c.replace);
        return shell;
    }

    ProcessTools* processes() override { return processes_.get(); }

    SandboxExecutionResult execute_streaming(const std::string& command, std::optional<double> timeout_seconds,
                                             const OutputCallbacks& callbacks) override {
        return run(command, timeout_seconds, &callbacks);
    }

    bool add_command(const CustomCommand& c) override {
        std::lock_guard lock(mu_);
        if (!shell_) throw SandboxError("BashkitSandbox: the session is closed");
        shell_->shell().add_command(c.name, c.help, c.fn, c.replace);
        return true;
    }

    std::optional<std::string> save_state() override {
        std::lock_guard lock(mu_);
        if (!shell_) throw SandboxError("BashkitSandbox: the session is closed");
        return shell_->shell().save_state();
    }

    bool restore_state(const std::string& snapshot) override {
        std::lock_guard lock(mu_);
        if (!shell_) throw SandboxError("BashkitSandbox: the session is closed");
        shell_->shell().restore_state(snapshot);
        return true;
    }

    void stop() override {
        processes_.reset();  // kills the background processes
        std::lock_guard lock(mu_);
        if (!shell_) return;
        (void)shell_->shell().close();
        {
            std::lock_guard cancel_lock(cancel_mu_);
            shell_.reset();
        }
        tree_.fs.reset();
    }

    SandboxExecutionResult execute(const std::string& command, std::optional<double> timeout_seconds) override {
        return run(command, timeout_seconds, nullptr);
    }

    SandboxExecutionResult run(const std::string& command, std::optional<double> timeout_seconds,
                               const OutputCallbacks* callbacks) {
        std::lock_guard lock(mu_);
        if (!shell_) throw SandboxError("BashkitSandbox: the session is closed");
        double t = timeout_seconds.value_or(opts_.default_exec_timeout_seconds);
        interp::Shell& shell = shell_->shell();
        shell.set_timeout(std::chrono::milliseconds(int64_t(std::ceil(t * 1000))));
        // Each execute returns its own stdout and stderr: an `exec >file` or `exec >&-` of an earlier one
        // does not silence this one (fds 3 and up, variables, functions and the cwd do persist).
        shell.reset_standard_fds();
        interp::ExecResult r = callbacks ? shell.run(command, {}, *callbacks) : shell.run(command);
        SandboxExecutionResult out;
        out.exit_code = r.exit_code;
        out.timed_out = r.timed_out;
        out.cancelled = r.cancelled;
        out.truncated = r.truncated();
        out.stdout_ = std::move(r.out);
        out.stderr_ = std::move(r.err);
        return out;
    }

    std::string location() const override { return tree_.host_dir; }

    // Not under mu_, which a run holds for its whole length; cancel_mu_ only keeps stop() from freeing the
    // shell meanwhile.
    bool cancel() override {
        std::lock_guard cancel_lock(cancel_mu_);
        if (!shell_) return false;
        shell_->shell().cancel();
        return true;
    }

protected:
    vfs::FileSystem* filesystem() override { return tree_.fs.get(); }
    std::string working_directory() override {
        // The shell's cwd only between runs (a run holds mu_ for its whole length).
        std::unique_lock lock(mu_, std::try_to_lock);
        if (lock.owns_lock() && shell_) return shell_->shell().cwd();
        return tree_.cwd;
    }

private:
    BashkitSandboxOptions opts_;
    WorkspaceHeaderBindings bindings_;
    std::string id_;
    vfs::SessionTree tree_;
    std::unique_ptr<ConfiguredShell> shell_;
    std::unique_ptr<ShellProcesses> processes_;  // the process tools (their shells use tree_)
    std::mutex mu_;
    std::mutex cancel_mu_;  // guards shell_ being set or reset, for cancel()
};

}  // namespace

SandboxAttributes BashkitSandbox::static_attributes() {
    SandboxAttributes a;
    a.type = "BashkitSandbox";
    a.supported_network = {Network::Kind::None, Network::Kind::All, Network::Kind::Allow};
    a.supported_header_bindings = {"HeaderBinding", "GitHubBinding", "MistralApiBinding"};
    a.supported_access = {SandboxAccess::none, SandboxAccess::files, SandboxAccess::full};
    a.delete_on_cleanup = false;
    a.supports_background_processes = true;
    return a;
}

BashkitSandbox::BashkitSandbox(BashkitSandboxOptions options)
    : Sandbox(static_attributes(), options.network, options.header_bindings, options.hooks, options.access),
      opts_(std::move(options)) {
    if (!(opts_.default_exec_timeout_seconds > 0))
        throw std::invalid_argument("BashkitSandbox: default_exec_timeout_seconds must be positive");
    if (opts_.ephemeral) attrs_.delete_on_cleanup = true;
    for (const std::string& name : bindings_.secret_names()) {
        std::optional<std::string> v = opts_.secrets ? opts_.secrets(name) : std::nullopt;
        if (!v || v->empty())
            throw std::invalid_argument("header_bindings: HeaderBinding: no secret named '" + name +
                                        "' (pass it in the sandbox's secrets)");
    }
    for (size_t i = 0; i < opts_.commands.size(); ++i) {
        const CustomCommand& c = opts_.commands[i];
        if (!c.fn) throw std::invalid_argument("BashkitSandbox: command '" + c.name + "' has no function");
        interp::Shell::check_command_name(c.name, default_registry(), c.replace);
        for (size_t k = 0; k < i; ++k)
            if (opts_.commands[k].name == c.name)
                throw std::invalid_argument("BashkitSandbox: command '" + c.name + "' is given twice");
    }
}

std::string BashkitSandbox::session_dir(const std::string& session_id) const {
    if (opts_.ephemeral) return {};
    std::string base = opts_.base_dir.empty() ? vfs::default_session_base() : opts_.base_dir;
    return base + "/" + vfs::session_folder_name(opts_.instance_id, session_id);
}

void BashkitSandbox::delete_session(const std::string& session_id) {
    auto s = vfs::delete_session_tree(tree_options(opts_, session_id));
    if (!s) throw SandboxError("BashkitSandbox: cannot delete session '" + session_id + "': " +
                               std::string(vfs::error_message(s.error())));
}

std::unique_ptr<SessionBackend> BashkitSandbox::make_backend(const std::string& session_id) {
    return std::make_unique<BashkitBackend>(opts_, bindings_, session_id);
}

}  // namespace bashkit::sandbox
