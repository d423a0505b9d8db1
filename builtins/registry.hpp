// Every utility of builtins/, registered into a CommandRegistry.
#pragma once

#include "interp/command.hpp"

namespace bashkit::builtins {

// Adds every utility family (files, text, ...) to the registry.
void register_all(interp::CommandRegistry& registry);

// A registry holding every utility, built once on first use and shared (lookups are read-only).
const interp::CommandRegistry& all_utilities();

}  // namespace bashkit::builtins
