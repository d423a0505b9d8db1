// What every in-process shell of bashkit is built from, shared by BashkitSandbox and the bashkit command
// (cli/): the registry of utilities and the HTTP client of a network policy.
#pragma once

#include <memory>
#include <vector>

#include "interp/command.hpp"
#include "net/http.hpp"

namespace bashkit::sandbox {

// Every utility of utils/; without git_config, minus `git` (utils/git/: the in-process git, whose
// `git config --global` writes $HOME/.gitconfig of the session's file system).
void register_commands(interp::CommandRegistry& registry, bool git_config = true);

// The registry above, built once and shared (lookups are read-only).
const interp::CommandRegistry& default_registry();

// The HTTP client utilities get (with Network::none() it refuses every request with the policy's message).
std::unique_ptr<net::HttpClient> make_http_client(net::ClientOptions options);

}  // namespace bashkit::sandbox
