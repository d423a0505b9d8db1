#include "builtins/jq/libjq_api.hpp"

namespace bashkit::builtins::jq {

BASHKIT_DEFINE_API(LibjqApi, libjq_api, BASHKIT_SONAME_LIBJQ, BASHKIT_LIBJQ_FUNCTIONS)

bool need_libjq(interp::CommandContext& ctx) {
    std::string why;
    if (libjq_api(&why)) return true;
    (void)ctx.err.write("jq: error: libjq cannot be loaded: " + why + "\n");
    return false;
}

}  // namespace bashkit::builtins::jq
