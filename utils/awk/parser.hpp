// awk source -> Program. Pure: no I/O. Errors are values with a place (gawk's wording).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "utils/awk/ast.hpp"

namespace bashkit::utils::awk {

// One source text: the program given on the command line ("cmd. line") or a -f file.
struct Source {
    std::string name;  // "cmd. line" or the file name as given
    std::string text;
};

struct ParseError {
    std::string source;      // name of the source
    int line = 0;
    int col = 0;             // 0-based byte column of the caret
    std::string line_text;   // the source line, for the echo
    std::string message;     // "syntax error", "unexpected newline or end of string", ...
    bool fatal = false;      // printed as "fatal: message" without the echo
    bool plain = false;      // printed as "error: message" without the echo
    int status = 1;
};

struct ParseResult {
    std::unique_ptr<Program> program;
    std::optional<ParseError> error;
    std::vector<std::string> warnings;  // full lines ("awk: cmd. line:1: warning: ...")
};

// Parses the sources as one program.
ParseResult parse_program(const std::vector<Source>& sources);

// Formats a parse error as gawk prints it (one or two lines, each ending in '\n').
std::string format_parse_error(const ParseError& e);

// Processes awk string escapes (\n \t \\ \" \/ \ooo \xhh ...); used for -v assignments and operands.
std::string unescape_string(std::string_view s, std::vector<std::string>* warnings = nullptr,
                            std::string_view where = {});

// Turns an awk regular expression (literal or dynamic) into POSIX ERE text for interp/regex.hpp:
// awk's escapes (\/ \" \t \n \ooo), gawk's \y (word boundary), and backslash escapes inside brackets.
std::string awk_regex_to_ere(std::string_view re);

}  // namespace bashkit::utils::awk
