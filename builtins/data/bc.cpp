#include "builtins/data/tools.hpp"

namespace bashkit::builtins::data {

int cmd_bc(CommandContext& ctx) {
    ctx.error("not implemented");
    return 1;
}

}  // namespace bashkit::builtins::data
