// The one way to build a configured in-process shell: the tree under its FsLimits, the HTTP client of a
// network policy, the registry of utilities, and the shell's own options (limits, cwd, environment, identity).
// The `bashkit` command (cli/), BashkitSandbox (and through it `bashkit serve` and the Python module) all build
// their shells here, so a limit or a policy cannot differ between them.
//
//   ShellSetup setup;
//   setup.tree = tree;                      // any FileSystem: MemoryFs, a MountTable of host folders...
//   setup.fs_limits = vfs::FsLimits{};       // the tree is wrapped in a LimitedFs with these
//   setup.network.network = Network::allow({"api.github.com"});
//   setup.shell.cwd = "/workspace";
//   ConfiguredShell shell(std::move(setup));
//   interp::ExecResult r = shell.shell().run("ls");
//
// Tree limits: a tree that is already a LimitedFs (a session tree, vfs/session_tree.hpp) keeps its own;
// any other is wrapped in one with fs_limits, counting what it already holds only when
// count_existing_usage is set (leave it off for a tree over host folders: the count is then what the
// session writes, not what the host put there). fs_limits unset leaves the tree as it is (`bashkit --host`,
// which is the host's own file system and no sandbox).
#pragma once

#include <memory>
#include <optional>

#include "interp/command.hpp"
#include "interp/shell.hpp"
#include "net/http.hpp"
#include "vfs/filesystem.hpp"
#include "vfs/limited_fs.hpp"

namespace bashkit::sandbox {

// Which utilities a shell gets besides the shell builtins.
enum class Utilities {
    sandbox,  // every utility of utils/, plus the sandbox's minimal `git config` (sandbox/setup.hpp)
    host,     // every utility, but no stand-in `git` (`bashkit --host` runs the host's)
    none,     // none: commands that are not builtins go to ShellOptions::external (`--host-utilities`)
};

struct ShellSetup {
    std::shared_ptr<vfs::FileSystem> tree;          // required
    std::optional<vfs::FsLimits> fs_limits = vfs::FsLimits{};
    bool count_existing_usage = false;
    // The bytes the tree keeps in memory (a MemoryFs: alone, under a LimitedFs, as an overlay's upper layer,
    // mounted writable in a mount table when the shell is built; a session's ephemeral tree) are charged to
    // the shell's memory budget (limits.max_memory_bytes) besides fs_limits: past the budget a write fails
    // with "No space left on device", as on a full tmpfs. Host folders cost no memory. A MemoryFs shared by
    // several shells is charged to the last one built, and to none once any of them is destroyed.
    bool charge_tree_to_budget = true;
    net::ClientOptions network;                     // Network::none() by default
    Utilities utilities = Utilities::sandbox;
    interp::ShellOptions shell;                     // shell.http is set by ConfiguredShell
};

class ConfiguredShell {
public:
    // Throws std::invalid_argument when setup.tree is null.
    explicit ConfiguredShell(ShellSetup setup);
    ~ConfiguredShell();
    ConfiguredShell(const ConfiguredShell&) = delete;
    ConfiguredShell& operator=(const ConfiguredShell&) = delete;

    interp::Shell& shell() { return *shell_; }
    // The tree the shell works on (under its LimitedFs, when it has one).
    vfs::FileSystem& fs() { return *fs_; }
    const std::shared_ptr<vfs::FileSystem>& fs_ptr() const { return fs_; }
    // The LimitedFs over the tree (its own, or the one made from fs_limits); null when it has none.
    vfs::LimitedFs* limited() const { return limited_; }

private:
    class BudgetAccount;
    std::shared_ptr<vfs::FileSystem> fs_;
    vfs::LimitedFs* limited_ = nullptr;
    std::unique_ptr<interp::CommandRegistry> own_registry_;  // Utilities::host and ::none
    std::unique_ptr<net::HttpClient> http_;
    std::unique_ptr<interp::Shell> shell_;
    std::shared_ptr<BudgetAccount> account_;
};

}  // namespace bashkit::sandbox
