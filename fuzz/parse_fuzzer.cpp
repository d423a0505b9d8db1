// libFuzzer target for the parser. Any input must parse or fail with an error, never crash, leak or hang;
// and whatever parses must print back to source that parses to the same tree (the printer's contract).
//
// BASHKIT_FUZZ_ROUNDTRIP chooses what a round-trip mismatch does: "abort" (the default: it is a finding),
// "report" (print the first few and go on: CI's mode, where only crashes, leaks and timeouts fail the run,
// as the round trip is also checked by the table tests), or "off".
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "interp/syntax/parser.hpp"
#include "interp/syntax/printer.hpp"

namespace sx = bashkit::syntax;

namespace {

enum class RoundTrip { Abort, Report, Off };

RoundTrip mode() {
    static const RoundTrip m = [] {
        const char* v = std::getenv("BASHKIT_FUZZ_ROUNDTRIP");
        std::string_view s = v ? v : "abort";
        return s == "off" ? RoundTrip::Off : s == "report" ? RoundTrip::Report : RoundTrip::Abort;
    }();
    return m;
}

void mismatch(const char* what, std::string_view input, const std::string& printed) {
    static int reported = 0;
    if (mode() == RoundTrip::Abort) {
        std::fprintf(stderr, "%s\n--- printed:\n%s\n", what, printed.c_str());
        std::abort();
    }
    if (reported++ < 5) {
        std::fprintf(stderr, "round-trip finding (%s), input of %zu bytes:\n%.*s\n--- printed:\n%s\n---\n", what,
                     input.size(), int(input.size() > 400 ? 400 : input.size()), input.data(), printed.c_str());
    }
}

}  // namespace

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
        if (mode() == RoundTrip::Off) continue;
        std::string printed = sx::print(*r.script);
        std::string json = sx::to_json(*r.script, false);
        sx::ParseResult again = sx::parse(printed, opts);
        if (!again.ok()) {
            mismatch("printed source does not parse", src, printed);
        } else if (sx::to_json(*again.script, false) != json) {
            mismatch("round trip changed the tree", src, printed);
        }
    }
    return 0;
}
