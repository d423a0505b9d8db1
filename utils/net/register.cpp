#include "utils/net/commands.hpp"
#include "utils/net/net.hpp"

namespace bashkit::utils {

void register_net_utils(interp::CommandRegistry& registry) {
    registry.add("curl", "curl [-fGIiLOsSv] [-d|--data|--data-binary|--data-raw|--data-urlencode DATA] [-F FORM] [--json JSON] [-H HEADER] [-X METHOD] [-o FILE] [-m SECS] [--retry N] [-u USER:PASS] [-A AGENT] [-w FORMAT] URL...: transfer a URL (through the sandbox's network policy)", curl_main);
    registry.add("wget", "wget [-q] [-nv] [-O FILE] [-P DIR] [-S] [-T SECS] [-t N] [-U AGENT] [--header=H] [--post-data=S] [--post-file=F] URL...: download files (through the sandbox's network policy)", wget_main);
}

}  // namespace bashkit::utils
