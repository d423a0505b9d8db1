// Bash's arithmetic evaluator: $(( )), (( )), let, for ((;;)), array subscripts and declare -i.
//
// Semantics follow bash 5.2 exactly: 64-bit two's complement with wrap-around, C precedence, && || and ?:
// that skip evaluation (but not parsing) of the untaken side, variables whose value is itself an expression
// evaluated recursively (at most 1024 nested expressions, as bash), numbers in bases 2..64, and bash's error
// messages word for word.
//
// One parser, one evaluator. Text is parsed by syntax::parse_arith_expression() (the parser of the script's
// $(( )), reading the bytes as bash's evaluator does) and the tree is evaluated here. Bash evaluates while it
// parses, so side effects happen in its order before a syntax error (`x=5, 1+` assigns x, then fails): the
// parser places the error in the tree where bash finds it (an ArithError node) and the evaluator reports it
// when it gets there. Two entry points:
//  - eval_text() parses and evaluates a string: let, declare -i, subscripts, the expanded text of $(( )),
//    and the value of every variable used as an operand (evaluated as an expression).
//  - eval() walks a tree from syntax::parse_arith(), the tree of $(( )) kept by the script's parse (which
//    holds no ArithError: a text with a syntax error has no tree there); pass the text as
//    ArithOptions::source so that messages quote it as bash does.
//
// Textual expansion. Bash expands $-expansions in the raw text before it parses: with a='1+2',
// `$(( $a * 3 ))` is 7 while `$(( a * 3 ))` is 9. A tree leaf ArithWord (an expansion) is evaluated by eval()
// as a parenthesised sub-expression, which differs from bash whenever the expansion is not a complete operand.
// The interpreter must therefore evaluate a tree only when it has no ArithWord leaves (has_expansions() is
// false), and otherwise expand the raw text (parameter, command and arithmetic substitution, quote removal)
// and call eval_text() on the result.
//
// Left to the interpreter (the ArithHost): array subscripts (expand index_word, or take index_text, then for
// an indexed array evaluate it with eval_text() passing ArithRef::depth; negative indices; `a[]` prints
// "bad array subscript" and reads 0; an error inside a subscript aborts the command in bash even under let),
// the message prefix ("((: ", "let: "), and what an error does to the command ($(( )) aborts it).
//
// Deviation from bash: nesting beyond max_depth (e.g. 1100 parentheses) is an error here; bash has no bound
// and eventually overflows its stack.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

#include "interp/governor.hpp"
#include "interp/syntax/ast.hpp"

namespace bashkit::interp {

struct ArithError {
    enum class Kind : uint8_t {
        Expression,  // an arithmetic error: bash prints "<prefix>: <message>" and the command fails (status 1)
        Unbound,     // set -u and an unset variable: "x: unbound variable" (fatal in a non-interactive shell)
        Host,        // reported by the ArithHost (readonly variable, bad subscript...): message as the host wrote it
    };
    Kind kind = Kind::Expression;
    // Without any "bash: line N: " prefix, e.g. `1/0: division by 0 (error token is "0")`. The caller adds what
    // bash adds: nothing more for $(( )), "((: " for (( )), "let: " for let.
    std::string message;
};

// The value or the error of an evaluation step.
template <class T>
class [[nodiscard]] ArithResult {
public:
    ArithResult(T value) : v_(std::in_place_index<0>, std::move(value)) {}
    // Anything T can be made from: `return std::nullopt;` or `return "text";`.
    template <class U>
        requires(std::is_constructible_v<T, U &&> && !std::is_same_v<std::decay_t<U>, T> &&
                 !std::is_same_v<std::decay_t<U>, ArithError> && !std::is_same_v<std::decay_t<U>, ArithResult>)
    ArithResult(U&& value) : v_(std::in_place_index<0>, std::forward<U>(value)) {}
    ArithResult(ArithError error) : v_(std::in_place_index<1>, std::move(error)) {}
    bool ok() const { return v_.index() == 0; }
    explicit operator bool() const { return ok(); }
    T& value() { return std::get<0>(v_); }
    const T& value() const { return std::get<0>(v_); }
    T& operator*() { return value(); }
    const T& operator*() const { return value(); }
    const ArithError& error() const { return std::get<1>(v_); }
    ArithError& error() { return std::get<1>(v_); }

private:
    std::variant<T, ArithError> v_;
};

template <>
class [[nodiscard]] ArithResult<void> {
public:
    ArithResult() = default;
    ArithResult(ArithError error) : e_(std::move(error)) {}
    bool ok() const { return !e_.has_value(); }
    explicit operator bool() const { return ok(); }
    const ArithError& error() const { return *e_; }
    ArithError& error() { return *e_; }

private:
    std::optional<ArithError> e_;
};

// How deep the evaluation is: bash's count of nested expressions, and the nesting of operators, parentheses
// and expressions together (which bounds the stack). Handed to the host with every variable so that an
// evaluation it starts for a subscript continues the same count.
struct ArithDepth {
    uint32_t exprs = 0;
    uint32_t nesting = 0;
};

// A variable operand: `x` or `a[sub]`. Passed to ArithHost::get and ArithHost::set.
struct ArithRef {
    std::string_view name;
    bool has_index = false;
    // The subscript: from a tree, the word as parsed (index_word, to expand); from text, the bytes between
    // the brackets (index_text; the text was expanded already).
    const syntax::Word* index_word = nullptr;
    std::string_view index_text;
    // The depth in effect. A host evaluating an indexed array's subscript passes it as ArithOptions::depth,
    // so that nested subscripts (a[a[a[...]]]) share bash's recursion limit and the stack bound.
    ArithDepth depth;
    // Left for the host: get() may store the resolved subscript (index or key) here, and set() on the same
    // reference then reuses it. Bash evaluates the subscript once in `a[i++] += 1` and `a[i++]++`.
    std::optional<std::string> resolved;
    std::string subscript;  // the subscript's text as evaluated, for the host's messages
};

// Parsed trees of texts evaluated again and again (a loop's `let y=y+1`, a variable whose value is an
// expression, a subscript): each parsed once. Fixed in size (128 short texts), so bounded without
// accounting. Made by make_arith_cache(), offered to the evaluator by ArithHost::cache().
class ArithCache;
std::shared_ptr<ArithCache> make_arith_cache();

// Implemented by the interpreter.
struct ArithHost {
    virtual ~ArithHost() = default;
    // The value of a variable or array element; nullopt when unset. For an element, return nullopt only when the
    // array itself is unset (set -u does not complain about a missing element of an existing array, bash
    // reads it as 0). Errors such as a bad subscript are returned as ArithError{Kind::Host, ...}.
    virtual ArithResult<std::optional<std::string>> get(ArithRef& ref) = 0;
    // A cheap look at a plain variable (no dynamic variable, no nameref, no array) whose value is a plain
    // decimal number (see plain_decimal in arith_impl.hpp): true with the number in `out`. false means "ask
    // get()". Loops read their counters through this without copying or parsing them again.
    virtual bool peek_number(std::string_view name, int64_t& out) {
        (void)name;
        (void)out;
        return false;
    }
    // Assigns the decimal value (the host formats it, checks readonly, etc.).
    virtual ArithResult<void> set(ArithRef& ref, int64_t value) = 0;
    // `x++`, `--x` on a plain variable (what peek_number() accepts) whose value is a plain decimal number: reads it
    // into `old` and assigns old + delta in one lookup. Declined means "take the get()/set() path", which
    // gives the same result; Failed means the assignment was refused (readonly...) and the host reported it.
    enum class Step : uint8_t { Declined, Done, Failed };
    virtual Step step(std::string_view name, int64_t delta, int64_t& old) {
        (void)name;
        (void)delta;
        (void)old;
        return Step::Declined;
    }
    // `a[sub]++`, `--a[sub]`: resolves the subscript into ref (as get() does, so that get() and set() on the same
    // reference reuse it) and, when the element exists and holds a plain decimal number (or nothing), reads it
    // into `old` and assigns old + delta in one lookup. Declined: take the get()/set() path. An error resolving
    // the subscript is returned as get() would return it.
    virtual ArithResult<Step> step_element(ArithRef& ref, int64_t delta, int64_t& old) {
        (void)ref;
        (void)delta;
        (void)old;
        return Step::Declined;
    }
    // Expands an ArithWord leaf of a tree (only used by eval()).
    virtual ArithResult<std::string> expand(const syntax::Word& word) = 0;
    // set -u: an unset variable is an error ("x: unbound variable").
    virtual bool nounset() const { return false; }
    // Where parsed texts are kept between evaluations; null: parse each time.
    virtual ArithCache* cache() { return nullptr; }
    // The session's memory budget, charged for the tree of a long text while it is evaluated (past the budget
    // the evaluation throws MemoryLimitExceeded, as anything that grows with the input); null: not counted.
    virtual MemoryBudget* memory() { return nullptr; }
};

struct ArithOptions {
    // Bash's MAX_EXPR_RECURSION_LEVEL: how many expressions may be nested (each variable whose value is
    // evaluated as an expression opens one). The nesting of operands (parentheses, unary operators,
    // assignments, ?:) and expressions together is bounded by the same number, so hostile input cannot
    // exhaust the stack (bash has no bound there; about 1 MB of stack is used at the limit, 2 MB with
    // sanitizers). Both overflows are "expression recursion level exceeded".
    uint32_t max_depth = 1024;
    // Depth already used around this evaluation (see ArithRef::depth).
    ArithDepth depth;
    // eval() only: the text the tree was parsed from. Messages quote the expression and the error token from
    // it, at the byte offsets the parser gave the nodes (ArithExpr::begin and end).
    std::string_view source;
    // eval() only, in place of source: the raw word of a script's arithmetic whose expansions are all in
    // subscripts (syntax::arith_exact), the tree's offsets counted in it as the parser did. Messages quote its
    // text with each expansion as written, printed when a message needs it.
    const syntax::Word* source_word = nullptr;
};

// Parses and evaluates `text` as bash does (the empty or blank text is 0).
ArithResult<int64_t> eval_text(std::string_view text, ArithHost& host, const ArithOptions& options = {});

// Evaluates a tree from syntax::parse_arith(). See the header comment about ArithWord leaves.
ArithResult<int64_t> eval(const syntax::ArithExpr& expr, ArithHost& host, const ArithOptions& options = {});

// Whether the tree contains an ArithWord leaf (an expansion), in which case bash's result can differ from
// eval()'s and the interpreter should expand the raw text and use eval_text().
bool has_expansions(const syntax::ArithExpr& expr);

// Converts one integer constant as bash does (42, 0x2a, 052, 16#2a, 64#@_), with wrap-around on overflow.
// On error returns the message ("value too great for base", "invalid number", "invalid arithmetic base",
// "invalid integer constant").
ArithResult<int64_t> parse_number(std::string_view text);

}  // namespace bashkit::interp
