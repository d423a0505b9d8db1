// libFuzzer target for the parser. Any input must parse or fail with an error, never crash, leak or hang;
// and whatever parses must print back to source that parses to the same tree (the printer's contract).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "interp/syntax/parser.hpp"
#include "interp/syntax/printer.hpp"

namespace sx = bashkit::syntax;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string_view src(reinterpret_cast<const char*>(data), size);
    for (bool extglob : {false, true}) {
        sx::ParseOptions opts;
        opts.extglob = extglob;
        sx::ParseResult r = sx::parse(src, opts);
        if (!r.ok()) {
            (void)r.error->format("fuzz");
            continue;
        }
        std::string printed = sx::print(*r.script);
        std::string json = sx::to_json(*r.script, false);
        sx::ParseResult again = sx::parse(printed, opts);
        if (!again.ok()) {
            std::fprintf(stderr, "printed source does not parse: %s\n--- printed:\n%s\n",
                         again.error->format("fuzz").c_str(), printed.c_str());
            std::abort();
        }
        if (sx::to_json(*again.script, false) != json) {
            std::fprintf(stderr, "round trip changed the tree\n--- printed:\n%s\n", printed.c_str());
            std::abort();
        }
    }
    return 0;
}
