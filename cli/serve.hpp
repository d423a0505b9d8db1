// `bashkit serve`: the server of the remote sandbox protocol (sandbox/PROTOCOL.md), hosting BashkitSandbox
// sessions (sandbox/server/server.hpp). Flags: `bashkit serve --help`.
#pragma once

namespace bashkit::cli {

// argv[0] is "serve". Returns the exit status: 0 after SIGINT/SIGTERM, 2 on a usage error, 1 when it cannot
// listen.
int serve_main(int argc, char** argv);

}  // namespace bashkit::cli
