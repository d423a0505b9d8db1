// libFuzzer target for sed: GNU sed's script compiler, then the executor over a fuzzed input in a fresh
// session (every utility, a MemoryFs on the session's budget, 100 ms, 64 MiB). Input: flags, NUL, the
// script, NUL, the input text. Flags (first byte): 1 -E, 2 --posix, 4 --sandbox, 8 -n, 16 -z, 32 -s over the
// input given twice, 64 -i (in place, on /in).
//
// Properties: no crash, sanitizer report, leak or hang; a compile failure has a message; a script that
// compiles here compiles in `sed -f` too; its run ends within the limits (its output bounded) and the
// session still answers `echo ok`.
#include <string>
#include <vector>

#include "utils/sed/parser.hpp"
#include "fuzz/fuzz_input.hpp"
#include "fuzz/session.hpp"

namespace sed = bashkit::utils::sed;
using bashkit::fuzz::finding;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > 4096) return 0;
    bashkit::fuzz::Fields in(data, size);
    unsigned flags = bashkit::fuzz::flag_bits(in[0]);
    std::string script(in[1]);
    sed::ParseOptions po;
    po.extended = flags & 1;
    po.posix = flags & 2;
    po.sandbox = flags & 4;
    sed::Program program;
    sed::ParseError err;
    if (!sed::parse_script({sed::ScriptChunk{script, true, "/p.sed"}}, po, program, err)) {
        if (err.message.empty() || err.status == 0) finding("a compile failure without a message", script);
        return 0;
    }

    bashkit::fuzz::Session s;
    (void)s.fs.write_file("/p.sed", script);
    (void)s.fs.write_file("/in", in[2]);
    s.start();
    std::string cmd = "sed";
    if (flags & 1) cmd += " -E";
    if (flags & 2) cmd += " --posix";
    if (flags & 4) cmd += " --sandbox";
    if (flags & 8) cmd += " -n";
    if (flags & 16) cmd += " -z";
    if (flags & 32) cmd += " -s";
    if (flags & 64) cmd += " -i";
    // A script that compiled here compiles in the utility too: over no input (no cycle runs, so no run-time
    // error such as `s//x/` without a previous regex), the utility reports nothing located in the script.
    bashkit::interp::ExecResult c = s.sh->run(cmd + " -f /p.sed </dev/null");
    if (c.err.find("sed: file /p.sed line") != std::string::npos)
        finding("a script the compiler took fails to compile in sed", script, c.err);
    cmd += " -f /p.sed /in";
    if (flags & 32) cmd += " /in";
    (void)s.sh->run(cmd + " </dev/null");
    bashkit::fuzz::check_answers_ok(*s.sh, s.fs, script);
    return 0;
}
