// Snapshot and resume of the shell state (Shell::save_state / restore_state), as JSON text.
// Internal to interp/ (the public API is shell.hpp).
#pragma once

#include <string>
#include <string_view>

#include "interp/exec.hpp"

namespace bashkit::interp {

// The state as JSON: {"format": "bashkit-shell-state", "version": kStateVersion, ...}.
std::string state_to_json(const ShellState& st);
// Replaces the saved parts of st with the snapshot's; throws StateError and leaves st unchanged when the
// text is not a snapshot of this version.
void state_from_json(std::string_view json, ShellState& st);

}  // namespace bashkit::interp
