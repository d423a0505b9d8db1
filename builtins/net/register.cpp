#include "builtins/net/commands.hpp"
#include "builtins/net/net.hpp"

namespace bashkit::builtins {

void register_net_utils(interp::CommandRegistry& registry) {
    registry.add("curl", "curl [options...] <url>: transfer a URL (through the sandbox's network policy)", curl_main);
    registry.add("wget", "wget [OPTION]... [URL]...: download files (through the sandbox's network policy)", wget_main);
}

}  // namespace bashkit::builtins
