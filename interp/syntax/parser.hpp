// Parsing bash source into the AST of ast.hpp. Pure: no I/O, no global state; safe to call from any thread.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "interp/syntax/ast.hpp"

namespace bashkit::syntax {

struct ParseOptions {
    // Accept ?(..) *(..) +(..) @(..) !(..) in ordinary words. bash only does when `shopt -s extglob` was in
    // effect before the line was read; `bash -n` never runs shopt, so the default matches `bash -n`.
    // Inside [[ ]] the patterns are always accepted, as bash does.
    bool extglob = false;
    // Maximum nesting of compound commands, substitutions, expansions and expressions. Deeper input is a
    // syntax error ("maximum nesting depth exceeded"), never a stack overflow.
    uint32_t max_depth = 256;
};

// A syntax error: the position it blames and bash's wording without any prefix, e.g.
// "syntax error near unexpected token `fi'" or "unexpected EOF while looking for matching `\"'".
struct ParseError {
    Pos pos;
    std::string message;
    // bash's full line: "<source_name>: line <N>: <message>", e.g. "bashkit: line 3: syntax error ...".
    std::string format(std::string_view source_name) const;
};

// Owns the arena and therefore every node of the tree.
struct ParseResult {
    std::unique_ptr<Arena> arena = std::make_unique<Arena>();
    Script* script = nullptr;        // null when error is set
    std::optional<ParseError> error;
    bool ok() const { return !error.has_value(); }
};

ParseResult parse(std::string_view source, const ParseOptions& options = {});

// Parses arithmetic text (the inside of $(( )) or (( ))) into an expression; nullptr when it does not parse.
// Used by the parser and by the interpreter for text that becomes arithmetic only at run time.
ArithExpr* parse_arith(std::string_view text, Arena& arena, Pos origin = {1, 1});

}  // namespace bashkit::syntax
