#include "builtins/registry.hpp"

#include "builtins/files/files.hpp"
#include "builtins/net/net.hpp"
#include "builtins/search/search.hpp"
#include "builtins/system/system.hpp"
#include "builtins/text/text.hpp"

namespace bashkit::builtins {

void register_all(interp::CommandRegistry& registry) {
    register_file_utils(registry);
    register_text_utils(registry);
    register_search_utils(registry);
    register_net_utils(registry);
    register_system_utils(registry);
}

}  // namespace bashkit::builtins
