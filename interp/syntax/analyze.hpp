// Pre-run analysis: what a script may do, found from its syntax tree without running anything, so that an
// agent can show a person "this script runs curl and writes out.txt" and ask for permission first.
//
//   auto a = bashkit::syntax::analyze("curl -s https://x.org | tee out.txt");
//   a.uses_network;          // true
//   a.writes[0].path;        // "out.txt"
//   std::string j = to_json(a);
//
// Pure: no I/O, no global state, thread-safe. The analysis is conservative where it can be and says so
// where it cannot: a command name, a file, a string given to eval or `bash -c` that is only known at run
// time is reported as dynamic (see Analysis::dynamic), never guessed. What it knows about utilities
// (which arguments of cp are written, which commands reach the network, ...) is listed in
// interp/syntax/README.md, "Pre-run analysis".
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "interp/syntax/ast.hpp"
#include "interp/syntax/parser.hpp"

namespace bashkit::syntax {

struct AnalyzeOptions {
    ParseOptions parse;
    // How deep literal code strings are followed: `bash -c '...'`, `eval '...'`, `trap '...' EXIT` each
    // parse their string and analyse it as part of the script; deeper strings are reported as dynamic.
    uint32_t max_nested = 8;
    // At most this many entries per list of the report; more set Analysis::truncated.
    uint32_t max_entries = 10000;
    // Tells which names are shell builtins (the CLI passes the interpreter's table); when empty, every
    // command that is not a function of the script has kind "command".
    std::function<bool(std::string_view)> is_builtin;
};

// A parse error: of the script itself (context "script"), or of a literal code string inside it
// (context "bash -c", "eval", "trap"), or of a substitution bash parses only when it runs
// (context "substitution", e.g. a bad `...`). Only a "script" error makes the script fail to run.
struct AnalysisError {
    Pos pos;
    std::string message;  // bash's wording, e.g. "syntax error near unexpected token `fi'"
    std::string context;
};

// A command the script may run.
struct CommandUse {
    std::string name;               // as written; the source text when dynamic
    Pos pos;                        // of the command name
    std::vector<std::string> args;  // after the name: the value of literal words, the source text of others
    std::vector<uint32_t> dynamic_args;  // indexes into args of words known only at run time (expansions, globs)
    std::string kind;               // "function" (defined in the script), "builtin", "command"
    bool dynamic = false;           // the name itself is known only at run time
    std::string via;                // how it is started when not directly: "xargs", "find -exec", "bash -c",
                                    // "eval", "trap", "command", "exec", "env", "timeout", ...; else empty
};

// A file the script may write or read.
struct FileUse {
    std::string path;     // the value when literal, else the source text
    Pos pos;
    std::string via;      // ">" ">>" ">|" "&>" "&>>" "<>" "<" or the utility: "tee" "cp" "sed -i" "source" ...
    bool dynamic = false; // the path is known only at run time (expansions, globs, ~)
};

// A command or redirection that may reach the network.
struct NetworkUse {
    std::string command;            // "curl", "wget", "git", "/dev/tcp", ...
    Pos pos;
    std::vector<std::string> urls;  // the operands naming where it connects (URLs, hosts, ports): values,
                                    // or the source text of words known only at run time
};

// Something the analysis cannot see through.
struct DynamicUse {
    // "command_name" ($cmd args, "${arr[@]}"), "eval" (a non-literal string), "bash_c" (bash -c "$s"),
    // "shell_stdin" (bash reading its script from stdin: curl ... | bash), "source" (a non-literal path),
    // "trap" (a non-literal handler), "xargs" (arguments from input), "find_exec" (arguments from find),
    // "unparsed_substitution" (a `...` that does not parse), "nesting_limit" (max_nested reached)
    std::string reason;
    std::string text;  // the source text concerned
    Pos pos;
};

struct FunctionDefinition {
    std::string name;
    Pos pos;
};

struct Analysis {
    bool ok = true;                      // false when the script itself does not parse (errors[0] says why)
    std::vector<AnalysisError> errors;
    std::vector<CommandUse> commands;    // in source order, nested ones (substitutions, bash -c) included
    std::vector<std::string> command_names;  // sorted, unique literal names of commands that are not functions
    std::vector<FunctionDefinition> functions;
    std::vector<FileUse> writes;
    std::vector<FileUse> reads;
    std::vector<FileUse> sources;        // scripts run by source/. or `bash FILE`
    std::vector<NetworkUse> network;
    std::vector<DynamicUse> dynamic;
    bool uses_network = false;
    bool uses_eval = false;
    bool uses_source = false;
    bool truncated = false;              // some list reached AnalyzeOptions::max_entries
};

Analysis analyze(std::string_view script, const AnalyzeOptions& options = {});
// For a tree already parsed (its parse succeeded).
Analysis analyze(const Script& script, const AnalyzeOptions& options = {});

// The report as one JSON object, deterministic, without whitespace. Every field above is present, plus
// "has_dynamic" (dynamic is not empty); positions are "line" and "col"; in entries, "dynamic_args" and
// "via" are left out when empty and "dynamic" when false. Strings are bytes as in printer.hpp's to_json.
std::string to_json(const Analysis& analysis);

}  // namespace bashkit::syntax
