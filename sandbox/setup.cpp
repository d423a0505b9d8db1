#include "sandbox/setup.hpp"

#include <string>
#include <utility>
#include <vector>

#include "utils/registry.hpp"

namespace bashkit::sandbox {

void register_commands(interp::CommandRegistry& registry, bool git_config) {
    // git (with `git config`, which the GitIdentity hook uses) is a utility of utils/git/.
    utils::register_all(registry);
    if (!git_config) registry.erase("git");
}

const interp::CommandRegistry& default_registry() {
    // Never destroyed, as utils::all_utilities(): freeing it was 7% of `bashkit -c true`'s instructions.
    static const interp::CommandRegistry& r = *[] {
        auto* reg = new interp::CommandRegistry;
        register_commands(*reg);
        return reg;
    }();
    return r;
}

std::unique_ptr<net::HttpClient> make_http_client(net::ClientOptions options) {
    return std::make_unique<net::HttpClient>(std::move(options));
}

}  // namespace bashkit::sandbox
