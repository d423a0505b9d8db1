#include "utils/search/grep_impl.hpp"
#include "utils/search/search.hpp"

namespace bashkit::utils {

void register_search_utils(interp::CommandRegistry& registry) {
    using search::Syntax;
    registry.add("grep", "grep [-EFGPiywxvlLcqsonbuhHrRzZaIT] [-e PAT]... [-f FILE] [-m N] [-A|-B|-C N] [--include=GLOB] [--exclude=GLOB] [--exclude-dir=GLOB] [--color[=WHEN]] [--label=L] [--binary-files=TYPE] [-d|-D ACTION] [--[no-]group-separator[=S]] [--line-buffered] PATTERNS [FILE]...: print lines that match patterns",
                 [](interp::CommandContext& ctx) { return search::grep_main(ctx, Syntax::kBasic); });
    registry.add("egrep", "egrep [grep's options] PATTERNS [FILE]...: grep -E",
                 [](interp::CommandContext& ctx) {
                     return search::grep_main(ctx, Syntax::kExtended);
                 });
    registry.add("fgrep", "fgrep [grep's options] PATTERNS [FILE]...: grep -F",
                 [](interp::CommandContext& ctx) {
                     return search::grep_main(ctx, Syntax::kFixed);
                 });
    registry.add("rg", "rg [-isSwxFlcnNHIoqvaLuUPz0.] [--files-without-match] [-e PAT]... [-f FILE] [-m N] [-A|-B|-C N] [-g|--iglob GLOB]... [-t|-T TYPE]... [-d N] [--hidden] [--no-hidden] [--no-ignore] [--no-ignore-vcs] [--files] [--type-list] [--sort[-files]] [--[no-]heading] [--color WHEN] [--column] [--trim] [--context-separator S] [--no-messages] [--no-config] PATTERN [PATH ...]: recursively search paths for a regex (ripgrep)",
                 [](interp::CommandContext& ctx) { return search::rg_main(ctx); });
}

}  // namespace bashkit::utils
