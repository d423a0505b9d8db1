// Every utility of builtins/, registered into a CommandRegistry.
#pragma once

#include "interp/command.hpp"

namespace bashkit::builtins {

// Adds every utility family (files, text, ...) to the registry.
void register_all(interp::CommandRegistry& registry);

}  // namespace bashkit::builtins
