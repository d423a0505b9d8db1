// Runs a compiled sed Program over the inputs, the way GNU sed 4.9's execute.c does: one cycle per line,
// `$` found by looking ahead one record (across files unless -s/-i), appends (a r R) written at the end of
// the cycle or before the next read, a missing final newline kept as missing, in-place edits written to a
// temporary file in the file's directory and renamed over it (so a failed edit leaves the file as it was).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "utils/sed/program.hpp"
#include "interp/command.hpp"

namespace bashkit::utils::sed {

struct RunOptions {
    bool quiet = false;       // -n (or #n)
    bool separate = false;    // -s (implied by -i)
    bool in_place = false;    // -i
    std::string suffix;       // -iSUFFIX: backup name (a `*` is replaced by the file's base name)
    bool null_data = false;   // -z
    bool unbuffered = false;  // -u
    bool posix = false;       // --posix
    bool follow_symlinks = false;
    int64_t line_wrap = 70;   // -l N
};

// Returns sed's exit status (0, 1 for a run-time script error, 2 when an input could not be read, 4 for an
// I/O error, q/Q's status, 141 for a closed output pipe, 130 when cancelled).
int run_program(interp::CommandContext& ctx, const Program& program, const RunOptions& options,
                const std::vector<std::string>& files);

// The utility: option parsing, then parse_script and run_program.
int cmd_sed(interp::CommandContext& ctx);

}  // namespace bashkit::utils::sed
