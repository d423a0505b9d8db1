// Host programs for `bashkit --host`: the interpreter's ExternalRunner (interp/command.hpp), in the front end
// because the library never starts a process.
//
// A command that is not a function, a shell builtin or a registered utility and that names an executable
// file is started with posix_spawn, with:
//  - argv as the script wrote it (argv[0] the name as invoked), the script's exported environment only;
//  - the shell's working directory (posix_spawn_file_actions_addchdir_np);
//  - its stdin/stdout/stderr: a stream over one of the CLI's own descriptors is handed over as is (so a
//    program run at top level sees the terminal); any other stream (an in-process pipe, a command
//    substitution, a redirection to a file) is connected through a host pipe and a thread that copies the
//    bytes. A program that never reads its stdin may still see a chunk of a piped input taken from the
//    stream (bash would leave it for the next reader);
//  - default signal dispositions and an empty signal mask.
// The status is the program's, or 128+N when signal N ended it; when the run is cancelled the program gets
// SIGTERM, then SIGKILL a second later.
//
// Shell scripts are not started on the host: a file whose #! line names bash, sh, dash or bashkit (directly
// or through env), or a file the kernel cannot execute (ENOEXEC: no #! line), is handed back to the
// interpreter, which runs it in bashkit itself, as bash runs a script without #!.
#pragma once

#include <optional>

#include "interp/command.hpp"

namespace bashkit::cli {

// The paths of cmd (cmd.path, cmd.cwd) are host paths: --host runs over a HostFs rooted at "/".
std::optional<int> run_host_program(const interp::ExternalCommand& cmd);

}  // namespace bashkit::cli
