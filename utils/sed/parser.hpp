// sed script text -> Program, following GNU sed 4.9's compiler: the same grammar (GNU one-liner a/i/c,
// `}` and `#` ending commands, labels ending at blanks and `;`), the same escapes (\n \t \xHH \dNNN \oNNN
// \cX ...), and the same error messages with the same positions ("-e expression #1, char 3: ...",
// "file F line 2: ...").
#pragma once

#include <string>
#include <vector>

#include "utils/sed/program.hpp"

namespace bashkit::utils::sed {

struct ScriptChunk {
    std::string text;
    bool from_file = false;  // -f FILE (messages say "file NAME line N")
    std::string name;        // the file name for -f
};

struct ParseOptions {
    bool extended = false;  // -E / -r
    bool posix = false;     // --posix: GNU extensions are errors
    bool sandbox = false;   // --sandbox: r/w/R/W refused
};

struct ParseError {
    std::string message;  // without the "sed: " prefix
    int status = 1;
};

// Compiles the chunks (-e and -f pieces in command-line order) into out. False with err filled on error.
bool parse_script(const std::vector<ScriptChunk>& chunks, const ParseOptions& options, Program& out,
                  ParseError& err);

// GNU's normalize_text for the three kinds of text: converts \a \f \n \r \t \v \dNNN \oNNN \xHH \cX; other
// escapes keep their backslash (regex, replacement) or lose it (a/i/c text, y strings).
enum class TextKind { kBuffer, kRegex, kReplacement };
bool normalize_text(std::string& s, TextKind kind, bool posix, std::string& error);

}  // namespace bashkit::utils::sed
