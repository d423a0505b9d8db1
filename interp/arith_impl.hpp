// Internal to the arithmetic evaluator (arith.cpp) and its host in the interpreter (arith_glue.cpp):
// wrap-around operations, bash's messages, the evaluation context and the lookup of a variable operand
// (whose value is evaluated as an expression).
#pragma once

#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "interp/arith.hpp"
#include "interp/syntax/arith_lex.hpp"

namespace bashkit::interp::arith_detail {

using syntax::ArithOp;
using syntax::NodeKind;
using Kind = ArithError::Kind;

inline constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

// ---------------------------------------------------------------- wrap-around arithmetic

inline int64_t wrap(uint64_t v) { return static_cast<int64_t>(v); }
inline uint64_t u(int64_t v) { return static_cast<uint64_t>(v); }
inline int64_t add(int64_t a, int64_t b) { return wrap(u(a) + u(b)); }
inline int64_t sub(int64_t a, int64_t b) { return wrap(u(a) - u(b)); }
inline int64_t mul(int64_t a, int64_t b) { return wrap(u(a) * u(b)); }
inline int64_t neg(int64_t a) { return wrap(0 - u(a)); }
// Shift counts are taken modulo 64, as the x86 instructions bash compiles to do: 1<<64 is 1, 1<<-1 is INT64_MIN.
inline int64_t shl(int64_t a, int64_t b) { return wrap(u(a) << (u(b) & 63)); }
inline int64_t shr(int64_t a, int64_t b) { return a >> (u(b) & 63); }
// b != 0. INT64_MIN / -1 is INT64_MIN and INT64_MIN % -1 is 0, as in bash.
inline int64_t divide(int64_t a, int64_t b) { return (a == kMin && b == -1) ? kMin : a / b; }
inline int64_t modulo(int64_t a, int64_t b) { return b == -1 ? 0 : a % b; }
// exp > 0. Square and multiply: 2**9999999999 takes 34 steps.
inline int64_t power(int64_t base, int64_t exp) {
    uint64_t result = 1, b = u(base), e = u(exp);
    while (e != 0) {
        if (e & 1) result *= b;
        e >>= 1;
        b *= b;
    }
    return wrap(result);
}

// The binary operators shared by both evaluators (not && || / % ** and comma, which need more care).
inline int64_t apply(ArithOp op, int64_t a, int64_t b) {
    switch (op) {
    case ArithOp::BitOr: return a | b;
    case ArithOp::BitXor: return a ^ b;
    case ArithOp::BitAnd: return a & b;
    case ArithOp::Eq: return a == b;
    case ArithOp::Ne: return a != b;
    case ArithOp::Lt: return a < b;
    case ArithOp::Le: return a <= b;
    case ArithOp::Gt: return a > b;
    case ArithOp::Ge: return a >= b;
    case ArithOp::Shl: return shl(a, b);
    case ArithOp::Shr: return shr(a, b);
    case ArithOp::Add: return add(a, b);
    case ArithOp::Sub: return sub(a, b);
    case ArithOp::Mul: return mul(a, b);
    case ArithOp::Div: return divide(a, b);
    case ArithOp::Mod: return modulo(a, b);
    case ArithOp::LogOr: return a || b;
    case ArithOp::LogAnd: return a && b;
    default: return b;
    }
}

// The binary operator of a compound assignment (AddEq -> Add).
inline ArithOp compound_base(ArithOp op) {
    switch (op) {
    case ArithOp::AddEq: return ArithOp::Add;
    case ArithOp::SubEq: return ArithOp::Sub;
    case ArithOp::MulEq: return ArithOp::Mul;
    case ArithOp::DivEq: return ArithOp::Div;
    case ArithOp::ModEq: return ArithOp::Mod;
    case ArithOp::ShlEq: return ArithOp::Shl;
    case ArithOp::ShrEq: return ArithOp::Shr;
    case ArithOp::AndEq: return ArithOp::BitAnd;
    case ArithOp::XorEq: return ArithOp::BitXor;
    case ArithOp::OrEq: return ArithOp::BitOr;
    default: return ArithOp::AssignEq;
    }
}

// ---------------------------------------------------------------- characters, numbers, messages

using namespace syntax::arith_lex;

// bash: "<expression>: <message> (error token is \"<token>\")", leading blanks of the expression dropped.
inline ArithError expr_error(std::string_view expr, std::string_view msg, std::string_view token) {
    return ArithError{Kind::Expression, error_message(expr, msg, token)};
}

// ---------------------------------------------------------------- shared evaluation state

struct Ctx {
    ArithHost& host;
    uint32_t max_depth;
    uint32_t depth;     // open expressions (bash's expr_depth)
    uint32_t nest = 0;  // the nesting in effect: nested operands, parentheses and expressions (see ArithDepth)
    int noeval = 0;     // > 0: parse, compute, but neither read nor write variables
};

enum class Status { Ok, Error, TooDeep };

Status eval_value(Ctx& c, std::string_view text, int64_t& out, ArithError& err);

// A plain decimal number (surrounding blanks allowed, no leading 0 unless it is "0"): what a full evaluation of
// the text would give, without one.
inline bool plain_decimal(std::string_view text, int64_t& out) {
    const char* p = text.data();
    const char* end = p + text.size();
    if (p == end) return false;
    // Counters and sums are digits without blanks: one pass, blanks only looked for when the ends are not digits.
    if (static_cast<unsigned char>(*p - '0') > 9 || static_cast<unsigned char>(end[-1] - '0') > 9) {
        while (p < end && is_space(*p)) ++p;
        while (end > p && is_space(end[-1])) --end;
        if (p == end) return false;
    }
    if (*p == '0' && end - p != 1) return false;
    uint64_t v = 0;
    for (; p < end; ++p) {
        unsigned d = static_cast<unsigned char>(*p - '0');
        if (d > 9) return false;
        v = v * 10 + d;
    }
    out = wrap(v);
    return true;
}

// The common case of a variable operand, a counter holding a number, read without copying its value.
inline bool peek_number(Ctx& c, std::string_view name, int64_t& out) {
    return c.depth < c.max_depth && c.host.peek_number(name, out);
}

// The value of a variable operand: unset or empty is 0, anything else is evaluated as an expression.
// `peeked`: peek_number() was tried already.
inline Status lookup(Ctx& c, ArithRef& ref, int64_t& out, ArithError& err, bool peeked = false) {
    if (!peeked && !ref.has_index && peek_number(c, ref.name, out)) return Status::Ok;
    auto r = c.host.get(ref);
    if (!r) {
        err = std::move(r.error());
        return Status::Error;
    }
    if (!r.value()) {
        if (c.host.nounset()) {
            err = ArithError{Kind::Unbound, std::string(ref.name) + ": unbound variable"};
            return Status::Error;
        }
        out = 0;
        return Status::Ok;
    }
    const std::string& value = *r.value();
    return eval_value(c, value, out, err);
}

// A variable operand read by an evaluator that keeps its first error in `err` (0 where evaluation is off).
// TooDeep is left to the caller, which knows what the message blames.
inline Status read_operand(Ctx& c, ArithRef& ref, int64_t& out, std::optional<ArithError>& err, bool peeked = false) {
    out = 0;
    if (c.noeval > 0) return Status::Ok;
    ArithError e;
    Status s = lookup(c, ref, out, e, peeked);
    if (s == Status::Error) err = std::move(e);
    return s;
}

// Assigns a variable operand (nothing where evaluation is off); false with the host's error in `err`.
inline bool write_operand(Ctx& c, ArithRef& ref, int64_t value, std::optional<ArithError>& err) {
    if (c.noeval > 0) return true;
    auto r = c.host.set(ref, value);
    if (!r) {
        err = std::move(r.error());
        return false;
    }
    return true;
}

}  // namespace bashkit::interp::arith_detail
