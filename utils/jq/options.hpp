// jq's command line, parsed the way jq 1.7.1's main() does it (not getopt: short flags bundle in any order,
// long options match exactly, --arg and friends take the next words).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "interp/command.hpp"

namespace bashkit::utils::jq {

// Output flags, numbered as jq's jv_print_flags.
constexpr int JV_PRINT_PRETTY = 1;
constexpr int JV_PRINT_TAB = 64;
constexpr int JV_PRINT_INDENT_FLAGS(int n) { return n > 7 ? (JV_PRINT_TAB | JV_PRINT_PRETTY) : n == 0 ? 0 : ((n << 8) | JV_PRINT_PRETTY); }
constexpr int jv_print_indent(int flags) { return (flags >> 8) & 7; }

// One --arg/--argjson/--slurpfile/--rawfile/--argfile, kept raw: values are made later.
struct NamedArg {
    enum Kind { kString, kJson, kSlurpFile, kRawFile, kArgFile } kind = kString;
    std::string name;
    std::string text;  // the value, the JSON text, or the file name
};

struct Options {
    bool slurp = false, raw_output = false, raw_no_lf = false, ascii = false, color = false,
         no_color = false, sorted = false, exit_status = false, null_input = false, raw_input = false,
         from_file = false, seq = false, stream = false, stream_errors = false, raw_output0 = false;
    int dumpopts = 0;  // jv_print_flags for indentation (JV_PRINT_INDENT_FLAGS / TAB), set in parse order
    bool have_program = false;
    std::string program;  // the filter, or the program file's name with -f
    std::vector<std::string> files;
    std::vector<NamedArg> named;
    std::vector<std::string> lib_dirs;  // -L, absolute
    // --args / --jsonargs positional values, raw: (is_json, text)
    std::vector<std::pair<bool, std::string>> positional;
    bool help = false, version = false;
};

// Parses ctx.argv. On a usage error prints jq's message on ctx.err and returns false with status set (2).
bool parse_options(interp::CommandContext& ctx, Options& opts, int& status);

// "Use jq --help for help with command-line options, ..." and status 2, as jq's die().
int die(interp::CommandContext& ctx);

// The text of `jq --help`.
extern const char* const kUsage;

}  // namespace bashkit::utils::jq
