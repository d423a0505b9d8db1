// libFuzzer target for awk: the program parser, then the evaluator over a fuzzed input in a fresh session
// (every utility, a MemoryFs, 100 ms, 64 MiB). Input: flags, NUL, the program, NUL, the input records.
// Flags (first byte): 1 -F: (fields split at ':'), 2 -v x=1, 4 RS="" (paragraph mode) through -v.
//
// Properties: no crash, sanitizer report, leak or hang; a parse failure has a message in gawk's layout; a
// program that parses runs to an end within the limits and the session still answers `echo ok`.
#include <string>
#include <vector>

#include "utils/awk/parser.hpp"
#include "fuzz/fuzz_input.hpp"
#include "fuzz/session.hpp"

namespace awk = bashkit::utils::awk;
using bashkit::fuzz::finding;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > 4096) return 0;
    bashkit::fuzz::Fields in(data, size);
    unsigned flags = bashkit::fuzz::flag_bits(in[0]);
    std::string program(in[1]);
    awk::ParseResult pr = awk::parse_program({awk::Source{"cmd. line", program}});
    if (pr.error) {
        std::string text = awk::format_parse_error(*pr.error);
        if (text.empty() || text.back() != '\n') finding("a parse error without a message line", program, text);
        return 0;
    }
    if (!pr.program) finding("neither a program nor an error", program);

    bashkit::fuzz::Session s;
    (void)s.fs.write_file("/p.awk", program);
    (void)s.fs.write_file("/in", in[2]);
    s.start();
    std::string cmd = "awk";
    if (flags & 1) cmd += " -F:";
    if (flags & 2) cmd += " -v x=1";
    if (flags & 4) cmd += " -v RS=";
    cmd += " -f /p.awk /in </dev/null";
    (void)s.sh->run(cmd);
    bashkit::fuzz::check_answers_ok(*s.sh, s.fs, program);
    return 0;
}
