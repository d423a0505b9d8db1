#include "sandbox/configured_shell.hpp"

#include <stdexcept>
#include <utility>

#include "sandbox/setup.hpp"

namespace bashkit::sandbox {

ConfiguredShell::ConfiguredShell(ShellSetup setup) {
    if (!setup.tree) throw std::invalid_argument("ConfiguredShell: no tree");
    fs_ = std::move(setup.tree);
    limited_ = dynamic_cast<vfs::LimitedFs*>(fs_.get());
    if (!limited_ && setup.fs_limits) {
        auto limited = std::make_shared<vfs::LimitedFs>(fs_, *setup.fs_limits, setup.count_existing_usage);
        limited_ = limited.get();
        fs_ = std::move(limited);
    }
    http_ = make_http_client(std::move(setup.network));
    setup.shell.http = http_.get();
    const interp::CommandRegistry* registry = &default_registry();
    if (setup.utilities != Utilities::sandbox) {
        own_registry_ = std::make_unique<interp::CommandRegistry>();
        if (setup.utilities == Utilities::host) register_commands(*own_registry_, /*git_config=*/false);
        registry = own_registry_.get();
    }
    shell_ = std::make_unique<interp::Shell>(*fs_, *registry, std::move(setup.shell));
}

// The shell goes first: it runs the EXIT trap and joins its jobs, which still use the tree and the client.
ConfiguredShell::~ConfiguredShell() { shell_.reset(); }

}  // namespace bashkit::sandbox
