// The jq syntax tree shared by the parser and the evaluator.
#pragma once

#include <string>
#include <vector>

#include "utils/jq/engine.hpp"

namespace bashkit::utils::jq {

enum class Op {
    Identity,    // .
    Recurse,     // ..
    Literal,     // val
    Str,         // kids: parts (Literal strings and expressions); name: format ("" = text)
    Format,      // @name applied to .
    Index,       // kids[0] term, kids[1] index expr   (term[idx]); .foo is Index(Identity, Literal "foo")
    Slice,       // kids[0] term, kids[1] from (or null), kids[2] to (or null)
    Iterate,     // kids[0] term
    Try,         // kids[0] body, kids[1] catch (or null)
    ArrayCons,   // kids[0] body (or null for [])
    ObjectCons,  // kids: key, value pairs (value null: shorthand)
    Neg,         // kids[0]
    Pipe,        // kids[0] | kids[1]
    Comma,
    Binop,       // name: + - * / % == != < <= > >=
    And,
    Or,
    Alt,         // //
    Assign,      // name: = |= += -= *= /= %= //=
    If,          // kids: cond, then, [cond, then]..., else (or null)
    Reduce,      // kids: source, pattern(s), init, update
    Foreach,     // kids: source, pattern(s), init, update, extract (or null)
    FuncDefs,    // defs: kids[0..n-1] are Def nodes, kids.back() the body
    Def,         // name, params (names; "$x" for value params), kids[0] body
    Call,        // name, kids: args
    Var,         // name (without $)
    As,          // kids[0] source, kids[1..n-2] patterns (alternatives), kids.back() body
    Label,       // name, kids[0] body
    Break,       // name
    Loc,         // $__loc__ (line in num)
    // patterns
    PVar,        // name
    PArray,      // kids: element patterns
    PObject,     // kids: key expr/Var, pattern (or null) pairs; key may be PVar ($name)
};

struct Node {
    Op op = Op::Identity;
    int line = 1;
    size_t pos = 0;  // offset in the source
    std::string name;
    std::vector<std::string> params;
    std::vector<Node*> kids;
    Value val;
    bool opt = false;  // Identity: no main expression (a library of definitions only); Literal: a string's text
};

}  // namespace bashkit::utils::jq
