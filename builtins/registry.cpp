#include "builtins/registry.hpp"

#include "builtins/archive/archive.hpp"
#include "builtins/awk/awk.hpp"
#include "builtins/data/data.hpp"
#include "builtins/diff/diff.hpp"
#include "builtins/files/files.hpp"
#include "builtins/jq/jq.hpp"
#include "builtins/net/net.hpp"
#include "builtins/search/search.hpp"
#include "builtins/sed/sed.hpp"
#include "builtins/system/system.hpp"
#include "builtins/text/text.hpp"

namespace bashkit::builtins {

void register_all(interp::CommandRegistry& registry) {
    register_file_utils(registry);
    register_text_utils(registry);
    register_search_utils(registry);
    register_net_utils(registry);
    register_sed_utils(registry);
    register_awk_utils(registry);
    register_jq_utils(registry);
    register_data_utils(registry);
    register_diff_utils(registry);
    register_system_utils(registry);
    register_archive_utils(registry);
}

const interp::CommandRegistry& all_utilities() {
    static const interp::CommandRegistry registry = [] {
        interp::CommandRegistry r;
        register_all(r);
        return r;
    }();
    return registry;
}

}  // namespace bashkit::builtins
