// Every utility of utils/, registered into a CommandRegistry.
#pragma once

#include <span>
#include <string_view>

#include "interp/command.hpp"

namespace bashkit::utils {

// One family of utilities: its folder under utils/ and the function adding its commands. The README's
// command list is generated from this (tests/docs checks it).
struct Family {
    std::string_view name;  // the folder: utils/<name>/
    std::string_view what;  // a few words for the README
    void (*add)(interp::CommandRegistry&);
};
std::span<const Family> families();

// Adds every family of families() to the registry.
void register_all(interp::CommandRegistry& registry);

// A registry holding every utility, built once on first use and shared (lookups are read-only).
const interp::CommandRegistry& all_utilities();

}  // namespace bashkit::utils
