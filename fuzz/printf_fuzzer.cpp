// libFuzzer target for printf formats (the builtin and the utility). Input: a flags byte (1 C locale),
// NUL, the format, then NUL-separated arguments.
//
// Properties: no crash, sanitizer report or hang; the output stays within max_output; the status is 0 or 1
// with a diagnostic for each failure; %n assignments never count more bytes than were written.
#include <string>
#include <vector>

#include "fuzz/fuzz_input.hpp"
#include "interp/printf.hpp"

namespace ia = bashkit::interp;
using bashkit::fuzz::finding;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > 4096) return 0;
    bashkit::fuzz::Fields in(data, size);
    unsigned bits = bashkit::fuzz::flag_bits(in[0]);
    std::vector<std::string> args = in.rest(2);
    ia::PrintfContext ctx;
    ctx.max_output = size_t{1} << 20;
    ctx.max_steps = uint64_t{1} << 20;
    ctx.now = 1700000000;
    ctx.shell_start = 1699999000;
    ctx.utf8 = !(bits & 1);
    ia::PrintfResult r = ia::format(in[1], args, ctx);
    if (r.output.size() > ctx.max_output) finding("output past max_output", in[1]);
    if (r.status != 0 && r.status != 1) finding("status other than 0 or 1", in[1]);
    if (r.status != 0 && r.diagnostics.empty()) finding("a failure without a message", in[1]);
    for (const auto& [name, count] : r.assignments) {
        if (count < 0 || size_t(count) > r.output.size()) finding("%n counted bytes that were not written", in[1]);
        if (name.empty()) finding("%n without a variable name", in[1]);
    }
    return 0;
}
