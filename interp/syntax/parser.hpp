// Parsing bash source into the AST of ast.hpp. Pure: no I/O, no global state; safe to call from any thread.
#pragma once

#include <map>
#include <memory>
#include <utility>
#include <vector>
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
    // The input is a script bash reads from a file or stdin: there a backslash that ends the input is a line
    // continuation and goes away (`echo a\` prints `a`). In a -c string, eval or source it stands for itself.
    bool stream_input = false;
    // Maximum nesting of compound commands, substitutions, expansions and expressions. Deeper input is a
    // syntax error ("maximum nesting depth exceeded"), never a stack overflow.
    uint32_t max_depth = 256;
    // Aliases to expand while parsing (bash expands them as it reads a command, when `expand_aliases` is
    // on); null or empty: none. Read only during the parse: the values used are copied into the tree.
    const std::map<std::string, std::string>* aliases = nullptr;
    // Bounds of alias expansion in one parse (values can expand each other into exponential text): past
    // them the parse fails with "alias expansion limit exceeded".
    uint32_t max_alias_expansions = 100000;
    size_t max_alias_bytes = size_t(16) << 20;
};

// A syntax error: the position it blames and bash's wording without any prefix, e.g.
// "syntax error near unexpected token `fi'" or "unexpected EOF while looking for matching `\"'".
struct ParseError {
    Pos pos;
    std::string message;
    // The input ended inside a construct (an open quote, `if` without `fi`, a trailing `&&`, ...): more
    // input could complete it. A reader of a stream reads another line instead of reporting the error.
    bool incomplete = false;
    // bash reports it, drops the rest of the line and reads on from the next one, with status 1: an error
    // inside the list of a compound assignment (`a=( x=() )`). ScriptReader::next() resumes there.
    bool discard_line = false;
    // An error inside [[ ]], which bash reports with parser_error: one line, no offending line after it, and
    // the reader stops as at the end of the input, leaving $? as it was (a -c shell exits with the last
    // command's status, not 2).
    bool keeps_status = false;
    // bash's full line: "<source_name>: line <N>: <message>", e.g. "bashkit: line 3: syntax error ...".
    std::string format(std::string_view source_name) const;
};

// Owns the arena and therefore every node of the tree.
struct ParseResult {
    std::unique_ptr<Arena> arena = std::make_unique<Arena>();
    Script* script = nullptr;        // null when error is set
    std::optional<ParseError> error;
    // The text the nodes point into, when it is not copied into the arena (ScriptReader shares it).
    std::shared_ptr<const std::string> source;
    // Here-documents ended by the end of input instead of their delimiter: for each, the line bash names
    // (the one before the body: the redirection's line for the first here-document of a command line) and
    // the delimiter (bash warns "here-document at line N delimited by end-of-file").
    std::vector<std::pair<uint32_t, std::string>> unterminated_heredocs;
    bool ok() const { return !error.has_value(); }
};

ParseResult parse(std::string_view source, const ParseOptions& options = {});

// Reads a script the way bash does: one complete top-level command line at a time (the statements up
// to the newline that ends the line, with the bodies of the here-documents opened on it), so that the
// caller runs each line before the next is parsed: `shopt`, `alias` or `set` on one line then apply to
// the following ones, a syntax error stops the script only where it is, and the memory held is one
// line's tree, whatever the size of the script.
//
//   ScriptReader rd(std::make_shared<const std::string>(text));
//   while (!rd.at_end()) { ParseUnit u = rd.next(); if (!u.result.ok()) ...; run(*u.result.script); }
struct ParseUnit {
    ParseResult result;  // statements of the line (possibly none: blank lines, comments)
    // Ended by a newline with every here-document closed: text appended to the source after it could not
    // change this unit. False when the unit ran to the end of the input (a stream may still grow).
    bool complete = false;
};

class ScriptReader {
public:
    // first_line: the line number of the source's first line (a piece of a longer script).
    explicit ScriptReader(std::shared_ptr<const std::string> source, ParseOptions options = {},
                          uint32_t first_line = 1);
    bool at_end() const { return offset_ >= source_->size(); }
    // The next unit; after an error the reader is at its end.
    ParseUnit next();
    ParseOptions& options() { return options_; }  // may change between units
    size_t offset() const { return offset_; }       // bytes consumed so far
    uint32_t line() const { return line_; }         // the line the next unit starts on

private:
    std::shared_ptr<const std::string> source_;
    ParseOptions options_;
    size_t offset_ = 0;
    uint32_t line_ = 1;
    uint32_t eof_line_ = 1;
};

// Parses arithmetic text (the inside of $(( )) or (( ))) into an expression; nullptr when it does not parse.
// Used by the parser and by the interpreter for text that becomes arithmetic only at run time.
ArithExpr* parse_arith(std::string_view text, Arena& arena, Pos origin = {1, 1});

// Whether the tree of a script's arithmetic (ArithSubst, ArithCmd, ArithPart: their `exact`) may be evaluated
// as it is, its raw word's expansions all inside subscripts (the words of ArithVar::index, expanded when the
// element is read). It is, when the raw word is one literal, or when its other parts are $-expansions or
// double-quoted strings (whose bytes are a subscript's, or the tree would hold an ArithWord leaf): then the
// raw text expanded as bash does (expansions in subscripts kept as written) parses to the same tree. Single
// quotes, which $(( )) keeps and (( )) removes, leave it to the text.
bool arith_exact(const Word* raw, const ArithExpr* expr);

// Where each part of a script's arithmetic word starts in the text its tree's offsets (ArithExpr::begin and
// end) count: a literal's bytes as they are; an expansion stands for its source bytes when the next part
// follows on its line, else for one byte. Returns the count of bytes part i stands for.
uint32_t arith_part_span(const List<Node*>& parts, uint32_t i);

// Parses text evaluated as arithmetic at run time (let, declare -i, a subscript, a variable's value used as an
// operand, the expanded text of $(( ))): the bytes as they are, read as bash's evaluator reads them (no
// expansion; a quote is an ordinary, invalid character; bytes after a NUL are ignored). It never fails: a
// syntax error is an ArithError node where bash finds it, which the evaluator reports after the effects bash
// has before it (see ast.hpp). `nest`: the nesting already in effect around the text; nesting beyond
// max_nest is an error ("expression recursion level exceeded"), as the evaluator bounds it.
struct ArithText {
    ArithExpr* expr = nullptr;  // null for blank text (whose value is 0)
    bool has_error = false;     // the tree holds an ArithError
    uint32_t deepest = 0;       // the deepest nesting reached, counted from `nest`
};
ArithText parse_arith_expression(std::string_view text, Arena& arena, uint32_t nest = 0, uint32_t max_nest = 1024,
                                 Pos origin = {1, 1});

// Parses the whole text as one word (blanks and operators are part of it, as in a subscript `a[x y]`);
// nullptr when it does not parse (an open quote or substitution). Used for the subscript of a reference
// given as text at run time (`${!ref}`, `unset 'a[$k]'`, `printf -v 'a[$k]'`).
Word* parse_word(std::string_view text, Arena& arena, Pos origin = {1, 1});

// Parses text the way an unquoted here-document body is read (expansions, `\$ \` \\`; quotes are plain
// characters), to its end; nullptr when it does not parse. For prompt strings (PS4) expanded at run time.
Word* parse_expanding_text(std::string_view text, Arena& arena);

}  // namespace bashkit::syntax
