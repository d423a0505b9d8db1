// Turning an AST back into bash source, and into JSON for `bashkit --dump-ast`.
#pragma once

#include <string>
#include <string_view>

#include "interp/syntax/ast.hpp"

namespace bashkit::syntax {

// Equivalent bash source: parse(print(s)) yields the same tree as s (positions aside).
std::string print(const Script& script);
std::string print(const Word& word);
// One command on one line (`{ a; b; }`, `x | y`), for the text `jobs` shows; here-document bodies left out.
std::string print_one_line(const Command& command);

// The tree as JSON, one object per node with "kind" and, when with_positions, "line" and "col".
// Two trees are equal (positions aside) exactly when to_json(a, false) == to_json(b, false).
std::string to_json(const Script& script, bool with_positions = true);

// Appends s as a JSON string literal (with the quotes) the way to_json writes strings: valid UTF-8 is
// copied, control bytes and bytes outside valid UTF-8 become \u00XX, so the output is always valid JSON.
void append_json_string(std::string& out, std::string_view s);

}  // namespace bashkit::syntax
