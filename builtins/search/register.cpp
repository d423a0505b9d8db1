#include "builtins/search/grep_impl.hpp"
#include "builtins/search/search.hpp"

namespace bashkit::builtins {

void register_search_utils(interp::CommandRegistry& registry) {
    using search::Syntax;
    registry.add("grep", "grep [OPTION]... PATTERNS [FILE]...: print lines that match patterns",
                 [](interp::CommandContext& ctx) { return search::grep_main(ctx, Syntax::kBasic); });
    registry.add("egrep", "egrep [OPTION]... PATTERNS [FILE]...: grep -E",
                 [](interp::CommandContext& ctx) {
                     return search::grep_main(ctx, Syntax::kExtended);
                 });
    registry.add("fgrep", "fgrep [OPTION]... PATTERNS [FILE]...: grep -F",
                 [](interp::CommandContext& ctx) {
                     return search::grep_main(ctx, Syntax::kFixed);
                 });
    registry.add("rg", "rg [OPTIONS] PATTERN [PATH ...]: recursively search paths for a regex (ripgrep)",
                 [](interp::CommandContext& ctx) { return search::rg_main(ctx); });
}

}  // namespace bashkit::builtins
