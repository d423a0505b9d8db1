// Bash's arithmetic evaluator. See arith.hpp for the contract.
//
// The text evaluator mirrors how bash evaluates: it parses and evaluates in one pass, with one token of
// lookahead and a "noeval" count that turns off side effects (variable reads and writes) in the untaken side
// of && || ?: while everything is still parsed. The details that show in results and messages are kept:
//  - the error token is the text from the start of the last token read to the end of the expression
//    (for a division by 0, from the right operand); a bad number quotes the expression only up to that number;
//  - an identifier's value is read (and its value evaluated) when the token is read, unless the next token
//    is `=`; `++`/`--` are increment operators only next to an identifier (`++1` is `+(+1)`);
//  - assignment needs a bare identifier as the complete left operand (`1 + x = 5` is an error);
//  - "exponent less than 0" is raised even where evaluation is off; division by 0 is not.
// All arithmetic is done on uint64_t and converted back, so overflow wraps and never is undefined behaviour.
#include "interp/arith.hpp"

#include <limits>
#include <unordered_map>
#include <vector>

namespace bashkit::interp {
namespace {

using syntax::ArithOp;
using syntax::NodeKind;
using Kind = ArithError::Kind;

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr size_t kNone = static_cast<size_t>(-1);

// ---------------------------------------------------------------- wrap-around arithmetic

int64_t wrap(uint64_t v) { return static_cast<int64_t>(v); }
uint64_t u(int64_t v) { return static_cast<uint64_t>(v); }
int64_t add(int64_t a, int64_t b) { return wrap(u(a) + u(b)); }
int64_t sub(int64_t a, int64_t b) { return wrap(u(a) - u(b)); }
int64_t mul(int64_t a, int64_t b) { return wrap(u(a) * u(b)); }
int64_t neg(int64_t a) { return wrap(0 - u(a)); }
// Shift counts are taken modulo 64, as the x86 instructions bash compiles to do: 1<<64 is 1, 1<<-1 is INT64_MIN.
int64_t shl(int64_t a, int64_t b) { return wrap(u(a) << (u(b) & 63)); }
int64_t shr(int64_t a, int64_t b) { return a >> (u(b) & 63); }
// b != 0. INT64_MIN / -1 is INT64_MIN and INT64_MIN % -1 is 0, as in bash.
int64_t divide(int64_t a, int64_t b) { return (a == kMin && b == -1) ? kMin : a / b; }
int64_t modulo(int64_t a, int64_t b) { return b == -1 ? 0 : a % b; }
// exp > 0. Square and multiply: 2**9999999999 takes 34 steps.
int64_t power(int64_t base, int64_t exp) {
    uint64_t result = 1, b = u(base), e = u(exp);
    while (e != 0) {
        if (e & 1) result *= b;
        e >>= 1;
        b *= b;
    }
    return wrap(result);
}

// The binary operators shared by both evaluators (not && || / % ** and comma, which need more care).
int64_t apply(ArithOp op, int64_t a, int64_t b) {
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
ArithOp compound_base(ArithOp op) {
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

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_ident_start(char c) { return is_alpha(c) || c == '_'; }
bool is_ident_char(char c) { return is_ident_start(c) || is_digit(c); }
// Characters of an integer constant token.
bool is_number_char(char c) { return is_ident_char(c) || c == '#' || c == '@'; }
// Blanks between tokens (bash skips newlines too, but not \r \v \f).
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n'; }
bool is_blank(char c) { return c == ' ' || c == '\t'; }

int digit_value(char c, int64_t base) {
    if (is_digit(c)) return c - '0';
    if (c >= 'a' && c <= 'z') return c - 'a' + 10;
    if (c >= 'A' && c <= 'Z') return c - 'A' + (base <= 36 ? 10 : 36);
    if (c == '@') return 62;
    if (c == '_') return 63;
    return -1;
}

// Converts an integer constant; returns bash's message on error, nullptr on success.
const char* convert_number(std::string_view t, int64_t& out) {
    size_t i = 0;
    int64_t base = 10;
    bool found_base = false;
    out = 0;
    if (i < t.size() && t[i] == '0') {
        ++i;
        if (i == t.size()) return nullptr;
        if (t[i] == 'x' || t[i] == 'X') {
            base = 16;
            ++i;
        } else {
            base = 8;
        }
        found_base = true;
    }
    uint64_t val = 0;
    for (; i < t.size(); ++i) {
        char c = t[i];
        if (c == '#') {
            if (found_base) return "invalid number";
            int64_t b = wrap(val);
            if (b < 2 || b > 64) return "invalid arithmetic base";
            base = b;
            val = 0;
            found_base = true;
            if (i + 1 >= t.size() || !(is_ident_char(t[i + 1]) || t[i + 1] == '@')) return "invalid integer constant";
            continue;
        }
        int d = digit_value(c, base);
        if (d < 0) break;
        if (d >= base) return "value too great for base";
        val = val * u(base) + static_cast<uint64_t>(d);
    }
    out = wrap(val);
    return nullptr;
}

std::string_view strip_blanks(std::string_view s) {
    while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
    return s;
}

// bash: "<expression>: <message> (error token is \"<token>\")", leading blanks of the expression dropped.
ArithError expr_error(std::string_view expr, std::string_view msg, std::string_view token) {
    std::string m(strip_blanks(expr));
    m += ": ";
    m += msg;
    m += " (error token is \"";
    m += token;
    m += "\")";
    return ArithError{Kind::Expression, std::move(m)};
}

// Bytes after a NUL are invisible to bash, whose strings are C strings.
std::string_view until_nul(std::string_view s) {
    size_t z = s.find('\0');
    return z == std::string_view::npos ? s : s.substr(0, z);
}

// The end of a subscript that starts at s[open] == '[': the index of the matching ']', or kNone.
size_t match_bracket(std::string_view s, size_t open) {
    int depth = 0;
    for (size_t i = open; i < s.size(); ++i) {
        if (s[i] == '[') {
            ++depth;
        } else if (s[i] == ']') {
            if (--depth == 0) return i;
        }
    }
    return kNone;
}

// ---------------------------------------------------------------- shared evaluation state

struct Ctx {
    ArithHost& host;
    uint32_t max_depth;
    uint32_t depth;     // open expressions (bash's expr_depth)
    uint32_t nest = 0;  // nested operands, parentheses and right-recursive chains
    int noeval = 0;     // > 0: parse, compute, but neither read nor write variables
};

// Bounds the recursion of one evaluator. ok is false when the bound was passed.
class NestGuard {
public:
    explicit NestGuard(Ctx& c) : c_(c) { ok = ++c_.nest <= c_.max_depth; }
    ~NestGuard() { --c_.nest; }
    NestGuard(const NestGuard&) = delete;
    NestGuard& operator=(const NestGuard&) = delete;
    bool ok;

private:
    Ctx& c_;
};

enum class Status { Ok, Error, TooDeep };

Status eval_value(Ctx& c, std::string_view text, int64_t& out, ArithError& err);

// A plain decimal number (surrounding blanks allowed, no leading 0 unless it is "0"): what a full evaluation of
// the text would give, without one.
bool plain_decimal(std::string_view text, int64_t& out) {
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
bool peek_number(Ctx& c, std::string_view name, int64_t& out) {
    std::string_view seen;
    return c.depth < c.max_depth && c.host.peek(name, seen) && plain_decimal(seen, out);
}

// The value of a variable operand: unset or empty is 0, anything else is evaluated as an expression.
// `peeked`: peek_number() was tried already.
Status lookup(Ctx& c, ArithRef& ref, int64_t& out, ArithError& err, bool peeked = false) {
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

// ---------------------------------------------------------------- the text evaluator

enum class Tok : uint8_t {
    End, Num, Str,
    Assign, OpAssign,
    EqEq, Ne, Lt, Le, Gt, Ge, Shl, Shr,
    BAnd, BOr, BXor, LAnd, LOr,
    Plus, Minus, Mul, Div, Mod, Pow,
    Not, BNot, PreInc, PreDec, PostInc, PostDec,
    Ques, Col, Comma, LParen, RParen,
    Cond,  // only as the previous token, after a ?: expression
};

// Single-character operator tokens (bash's _is_arithop).
bool is_single_op(Tok t) {
    switch (t) {
    case Tok::Assign: case Tok::Gt: case Tok::Lt: case Tok::Plus: case Tok::Minus: case Tok::Mul:
    case Tok::Div: case Tok::Mod: case Tok::Not: case Tok::LParen: case Tok::RParen: case Tok::BAnd:
    case Tok::BOr: case Tok::BXor: case Tok::BNot: case Tok::Ques: case Tok::Col: case Tok::Comma:
        return true;
    default:
        return false;
    }
}
// Multi-character operator tokens (bash's _is_multiop).
bool is_multi_op(Tok t) {
    switch (t) {
    case Tok::EqEq: case Tok::Ne: case Tok::Le: case Tok::Ge: case Tok::LAnd: case Tok::LOr: case Tok::Shl:
    case Tok::Shr: case Tok::OpAssign: case Tok::Cond: case Tok::Pow:
        return true;
    default:
        return false;
    }
}

// Binding strength of binary operators; 0 for anything else.
int precedence(Tok t) {
    switch (t) {
    case Tok::LOr: return 1;
    case Tok::LAnd: return 2;
    case Tok::BOr: return 3;
    case Tok::BXor: return 4;
    case Tok::BAnd: return 5;
    case Tok::EqEq: case Tok::Ne: return 6;
    case Tok::Lt: case Tok::Le: case Tok::Gt: case Tok::Ge: return 7;
    case Tok::Shl: case Tok::Shr: return 8;
    case Tok::Plus: case Tok::Minus: return 9;
    case Tok::Mul: case Tok::Div: case Tok::Mod: return 10;
    case Tok::Pow: return 11;
    default: return 0;
    }
}

ArithOp binary_op(Tok t) {
    switch (t) {
    case Tok::LOr: return ArithOp::LogOr;
    case Tok::LAnd: return ArithOp::LogAnd;
    case Tok::BOr: return ArithOp::BitOr;
    case Tok::BXor: return ArithOp::BitXor;
    case Tok::BAnd: return ArithOp::BitAnd;
    case Tok::EqEq: return ArithOp::Eq;
    case Tok::Ne: return ArithOp::Ne;
    case Tok::Lt: return ArithOp::Lt;
    case Tok::Le: return ArithOp::Le;
    case Tok::Gt: return ArithOp::Gt;
    case Tok::Ge: return ArithOp::Ge;
    case Tok::Shl: return ArithOp::Shl;
    case Tok::Shr: return ArithOp::Shr;
    case Tok::Plus: return ArithOp::Add;
    case Tok::Minus: return ArithOp::Sub;
    case Tok::Mul: return ArithOp::Mul;
    case Tok::Div: return ArithOp::Div;
    case Tok::Mod: return ArithOp::Mod;
    default: return ArithOp::Pow;
    }
}

class TextEval {
public:
    TextEval(Ctx& c, std::string_view text) : c_(c), s_(text) {}

    // text is not blank.
    bool run(int64_t& out, ArithError& err) {
        next();
        int64_t v = failed() ? 0 : comma();
        if (!failed() && cur_ != Tok::End) fail("syntax error in expression");
        if (failed()) {
            err = std::move(*err_);
            return false;
        }
        out = v;
        return true;
    }

private:
    struct Lexed {
        Tok tok = Tok::End;
        size_t end = 0;
        ArithOp op = ArithOp::AssignEq;  // OpAssign: the operator
        int64_t num = 0;                  // Num
        size_t name_end = 0;              // Str: end of the name; a subscript follows when name_end < end
    };

    bool failed() const { return err_.has_value(); }
    int64_t fail(std::string_view msg) {
        if (!err_) err_ = expr_error(s_, msg, s_.substr(std::min(lasttp_, s_.size())));
        return 0;
    }
    size_t skip_space(size_t p) const {
        while (p < s_.size() && is_space(s_[p])) ++p;
        return p;
    }

    // Reads the token at s_[p] (not blank, not the end). cur and last are the current and previous tokens,
    // which decide what `++` and `--` are and how a stray character is reported.
    bool lex(size_t p, Tok cur, Tok last, Lexed& t) {
        const size_t n = s_.size();
        char c = s_[p];
        char c1 = p + 1 < n ? s_[p + 1] : '\0';
        if (is_ident_start(c)) {
            size_t q = p + 1;
            while (q < n && is_ident_char(s_[q])) ++q;
            t.tok = Tok::Str;
            t.name_end = q;
            t.end = q;
            if (q < n && s_[q] == '[') {
                size_t close = match_bracket(s_, q);
                if (close == kNone) {
                    fail("bad array subscript");
                    return false;
                }
                t.end = close + 1;
            }
            return true;
        }
        if (is_digit(c)) {
            size_t q = p;
            while (q < n && is_number_char(s_[q])) ++q;
            if (const char* msg = convert_number(s_.substr(p, q - p), t.num)) {
                // bash cuts the expression after the bad constant.
                err_ = expr_error(s_.substr(0, q), msg, s_.substr(p, q - p));
                return false;
            }
            t.tok = Tok::Num;
            t.end = q;
            return true;
        }
        t.end = p + 1;
        auto two = [&](Tok tok) {
            t.tok = tok;
            t.end = p + 2;
        };
        auto op_assign = [&](ArithOp op, size_t len) {
            t.tok = Tok::OpAssign;
            t.op = op;
            t.end = p + len;
        };
        switch (c) {
        case '=': c1 == '=' ? two(Tok::EqEq) : void(t.tok = Tok::Assign); return true;
        case '!': c1 == '=' ? two(Tok::Ne) : void(t.tok = Tok::Not); return true;
        case '<':
        case '>': {
            bool lt = c == '<';
            if (c1 == '=') {
                two(lt ? Tok::Le : Tok::Ge);
            } else if (c1 == c) {
                if (p + 2 < n && s_[p + 2] == '=') {
                    op_assign(lt ? ArithOp::Shl : ArithOp::Shr, 3);
                } else {
                    two(lt ? Tok::Shl : Tok::Shr);
                }
            } else {
                t.tok = lt ? Tok::Lt : Tok::Gt;
            }
            return true;
        }
        case '&':
            if (c1 == '&') two(Tok::LAnd);
            else if (c1 == '=') op_assign(ArithOp::BitAnd, 2);
            else t.tok = Tok::BAnd;
            return true;
        case '|':
            if (c1 == '|') two(Tok::LOr);
            else if (c1 == '=') op_assign(ArithOp::BitOr, 2);
            else t.tok = Tok::BOr;
            return true;
        case '*':
            if (c1 == '*') two(Tok::Pow);
            else if (c1 == '=') op_assign(ArithOp::Mul, 2);
            else t.tok = Tok::Mul;
            return true;
        case '+':
        case '-': {
            bool plus = c == '+';
            if (c1 == c) {
                if (cur == Tok::Str) {
                    two(plus ? Tok::PostInc : Tok::PostDec);
                    return true;
                }
                if (cur == Tok::Num && (last == Tok::PreInc || last == Tok::PreDec)) {
                    // --x++
                    fail(plus ? "++: assignment requires lvalue" : "--: assignment requires lvalue");
                    return false;
                }
                size_t q = skip_space(p + 2);
                if (q < n && is_ident_start(s_[q])) {
                    two(plus ? Tok::PreInc : Tok::PreDec);
                    return true;
                }
                // `++1` is `+ +1`
            } else if (c1 == '=') {
                op_assign(plus ? ArithOp::Add : ArithOp::Sub, 2);
                return true;
            }
            t.tok = plus ? Tok::Plus : Tok::Minus;
            return true;
        }
        case '/':
        case '%':
        case '^': {
            ArithOp op = c == '/' ? ArithOp::Div : c == '%' ? ArithOp::Mod : ArithOp::BitXor;
            if (c1 == '=') op_assign(op, 2);
            else t.tok = c == '/' ? Tok::Div : c == '%' ? Tok::Mod : Tok::BXor;
            return true;
        }
        case '~': t.tok = Tok::BNot; return true;
        case '?': t.tok = Tok::Ques; return true;
        case ':': t.tok = Tok::Col; return true;
        case ',': t.tok = Tok::Comma; return true;
        case '(': t.tok = Tok::LParen; return true;
        case ')': t.tok = Tok::RParen; return true;
        default:
            if (cur == Tok::End || is_single_op(cur) || is_multi_op(cur)) {
                fail("syntax error: operand expected");
            } else {
                fail("syntax error: invalid arithmetic operator");
            }
            return false;
        }
    }

    // Whether the token after an identifier (ending at p) is `=`. Like bash, the look-ahead reads the
    // following tokens (a run of identifiers and the token after it) and so reports their lexical errors.
    bool peek_is_assign(size_t p, bool& is_assign) {
        is_assign = false;
        size_t saved = lasttp_;
        for (bool first = true;; first = false) {
            size_t q = skip_space(p);
            if (q >= s_.size()) break;
            lasttp_ = q;
            Lexed t;
            if (!lex(q, Tok::Str, Tok::End, t)) return false;
            if (first) is_assign = t.tok == Tok::Assign;
            if (t.tok != Tok::Str) break;
            p = t.end;
        }
        lasttp_ = saved;
        return true;
    }

    // The value of the identifier token just read (0 when evaluation is off).
    int64_t read_variable(ArithRef& ref) {
        if (c_.noeval > 0) return 0;
        int64_t v = 0;
        ArithError e;
        switch (lookup(c_, ref, v, e)) {
        case Status::Ok: return v;
        case Status::Error: err_ = std::move(e); return 0;
        case Status::TooDeep: return fail("expression recursion level exceeded");
        }
        return 0;
    }

    bool write_variable(ArithRef& ref, int64_t v) {
        if (c_.noeval > 0) return true;
        auto r = c_.host.set(ref, v);
        if (!r) {
            err_ = std::move(r.error());
            return false;
        }
        return true;
    }

    // Advances to the next token (bash's readtok).
    void next() {
        size_t p = skip_space(tp_);
        if (p >= s_.size()) {
            last_ = cur_;
            cur_ = Tok::End;
            tp_ = p;
            return;
        }
        lasttp_ = p;
        Lexed t;
        if (!lex(p, cur_, last_, t)) return;
        if (t.tok == Tok::Str) {
            bool is_assign = false;
            if (!peek_is_assign(t.end, is_assign)) return;
            ref_ = ArithRef{};
            ref_.name = s_.substr(p, t.name_end - p);
            if (t.name_end < t.end) {
                ref_.has_index = true;
                ref_.index_text = s_.substr(t.name_end + 1, t.end - t.name_end - 2);
            }
            ref_.depth = ArithDepth{c_.depth, c_.nest};
            // The target of `x = ...` is not read; `++x = 1` still reads x.
            tokval_ = (cur_ == Tok::PreInc || cur_ == Tok::PreDec || !is_assign) ? read_variable(ref_) : 0;
            if (failed()) return;
        } else if (t.tok == Tok::Num) {
            tokval_ = t.num;
        } else if (t.tok == Tok::OpAssign) {
            assign_op_ = t.op;
        }
        last_ = cur_;
        cur_ = t.tok;
        tp_ = t.end;
    }

    int64_t comma() {
        int64_t v = assign();
        while (!failed() && cur_ == Tok::Comma) {
            next();
            if (failed()) return 0;
            v = assign();
        }
        return failed() ? 0 : v;
    }

    int64_t assign() {
        int64_t v = cond();
        if (failed()) return 0;
        if (cur_ != Tok::Assign && cur_ != Tok::OpAssign) return v;
        if (last_ != Tok::Str) return fail("attempted assignment to non-variable");
        bool compound = cur_ == Tok::OpAssign;
        ArithOp op = assign_op_;
        ArithRef lhs = ref_;
        int64_t old = v;
        next();
        if (failed()) return 0;
        NestGuard guard(c_);
        if (!guard.ok) return fail("expression recursion level exceeded");
        int64_t value = assign();
        if (failed()) return 0;
        if (compound) {
            if ((op == ArithOp::Div || op == ArithOp::Mod) && value == 0) {
                if (c_.noeval == 0) return fail("division by 0");
                value = 1;
            }
            value = apply(op, old, value);
        }
        if (!write_variable(lhs, value)) return 0;
        return value;
    }

    int64_t cond() {
        int64_t c = binary();
        if (failed() || cur_ != Tok::Ques) return c;
        NestGuard guard(c_);
        if (!guard.ok) return fail("expression recursion level exceeded");
        bool skip_then = c == 0;
        if (skip_then) ++c_.noeval;
        next();
        if (failed()) return 0;
        if (cur_ == Tok::End || cur_ == Tok::Col) return fail("expression expected");
        int64_t then_value = comma();
        if (failed()) return 0;
        if (skip_then) --c_.noeval;
        if (cur_ != Tok::Col) return fail("`:' expected for conditional expression");
        bool skip_else = c != 0;
        if (skip_else) ++c_.noeval;
        next();
        if (failed()) return 0;
        if (cur_ == Tok::End) return fail("expression expected");
        int64_t else_value = cond();
        if (failed()) return 0;
        if (skip_else) --c_.noeval;
        last_ = Tok::Cond;
        return c != 0 ? then_value : else_value;
    }

    // All binary operators, with an explicit stack of pending operators rather than one recursive call per
    // precedence level, so that a parenthesis costs a few stack frames. An operator is applied when the
    // token after its right operand binds less tightly, which is exactly when bash's recursive descent
    // applies it: the look-ahead token has been read, and the noeval of && || ends there too.
    struct Pending {
        Tok op;
        int prec;
        int64_t lhs;
        bool skip;        // && || whose right side is not evaluated
        size_t after_op;  // where the text after the operator starts (division by 0 blames it)
    };

    int64_t reduce(const Pending& p, int64_t r) {
        last_ = Tok::Num;
        switch (p.op) {
        case Tok::LOr:
        case Tok::LAnd:
            if (p.skip) --c_.noeval;
            return p.op == Tok::LOr ? (p.lhs != 0 || r != 0) : (p.lhs != 0 && r != 0);
        case Tok::Pow:
            if (r == 0) return 1;
            if (r < 0) return fail("exponent less than 0");
            return power(p.lhs, r);
        case Tok::Div:
        case Tok::Mod:
            if (r == 0) {
                if (c_.noeval == 0) {
                    size_t q = p.after_op;
                    while (q < s_.size() && is_blank(s_[q])) ++q;
                    lasttp_ = q;
                    return fail("division by 0");
                }
                r = 1;
            }
            return apply(binary_op(p.op), p.lhs, r);
        default:
            return apply(binary_op(p.op), p.lhs, r);
        }
    }

    int64_t binary() {
        std::vector<Pending> pending;
        int64_t v = unary();
        while (!failed()) {
            Tok op = cur_;
            int prec = precedence(op);
            // ** is right associative: an equal ** on the stack waits.
            while (!pending.empty() &&
                   (pending.back().prec > prec || (pending.back().prec == prec && op != Tok::Pow))) {
                v = reduce(pending.back(), v);
                pending.pop_back();
                if (failed()) return 0;
            }
            if (prec == 0) return v;
            bool skip = op == Tok::LOr ? v != 0 : op == Tok::LAnd ? v == 0 : false;
            if (skip) ++c_.noeval;
            pending.push_back(Pending{op, prec, v, skip, tp_});
            next();
            if (failed()) return 0;
            v = unary();
        }
        return 0;
    }

    int64_t unary() {
        NestGuard guard(c_);
        if (!guard.ok) return fail("expression recursion level exceeded");
        Tok op = cur_;
        if (op != Tok::Not && op != Tok::BNot && op != Tok::Minus && op != Tok::Plus) return primary();
        next();
        if (failed()) return 0;
        int64_t v = unary();
        if (failed()) return 0;
        last_ = Tok::Num;
        switch (op) {
        case Tok::Not: return v == 0;
        case Tok::BNot: return ~v;
        case Tok::Minus: return neg(v);
        default: return v;
        }
    }

    int64_t primary() {
        if (cur_ == Tok::PreInc || cur_ == Tok::PreDec) {
            Tok op = cur_;
            last_ = op;
            next();
            if (failed()) return 0;
            if (cur_ != Tok::Str) return fail("identifier expected after pre-increment or pre-decrement");
            int64_t v = op == Tok::PreInc ? add(tokval_, 1) : sub(tokval_, 1);
            if (!write_variable(ref_, v)) return 0;
            cur_ = Tok::Num;  // so that --x++ is an error
            next();
            return failed() ? 0 : v;
        }
        if (cur_ == Tok::LParen) {
            next();
            if (failed()) return 0;
            int64_t v = comma();
            if (failed()) return 0;
            if (cur_ != Tok::RParen) return fail("missing `)'");
            next();
            return failed() ? 0 : v;
        }
        if (cur_ == Tok::Num || cur_ == Tok::Str) {
            int64_t v = tokval_;
            if (cur_ == Tok::Str) {
                size_t q = skip_space(tp_);
                if (q + 1 < s_.size() && (s_[q] == '+' || s_[q] == '-') && s_[q + 1] == s_[q]) {
                    if (!write_variable(ref_, s_[q] == '+' ? add(v, 1) : sub(v, 1))) return 0;
                    lasttp_ = q;
                    tp_ = q + 2;
                    last_ = Tok::Str;
                    cur_ = Tok::Num;
                }
            }
            next();
            return failed() ? 0 : v;
        }
        return fail("syntax error: operand expected");
    }

    Ctx& c_;
    std::string_view s_;
    size_t tp_ = 0;      // where the next token starts (before blanks)
    size_t lasttp_ = 0;  // start of the last token read: the error token runs from here
    Tok cur_ = Tok::End;
    Tok last_ = Tok::End;
    int64_t tokval_ = 0;
    ArithOp assign_op_ = ArithOp::AssignEq;
    ArithRef ref_;  // the last identifier read
    std::optional<ArithError> err_;
};

// Opens an expression for `text` (a variable's value, an expansion, the top level).
Status eval_value(Ctx& c, std::string_view text, int64_t& out, ArithError& err) {
    text = until_nul(text);
    size_t p = 0;
    while (p < text.size() && is_space(text[p])) ++p;
    if (p == text.size()) {
        out = 0;
        return Status::Ok;
    }
    if (c.depth >= c.max_depth) return Status::TooDeep;
    // Fast path for the common value, a plain decimal number (what the full evaluation would give).
    if (plain_decimal(text, out)) return Status::Ok;
    ++c.depth;
    TextEval te(c, text);
    bool ok = te.run(out, err);
    --c.depth;
    return ok ? Status::Ok : Status::Error;
}

// ---------------------------------------------------------------- the tree evaluator

const char* op_text(ArithOp op) {
    switch (op) {
    case ArithOp::Plus: return "+";
    case ArithOp::Minus: return "-";
    case ArithOp::Not: return "!";
    case ArithOp::BitNot: return "~";
    case ArithOp::PreInc: case ArithOp::PostInc: return "++";
    case ArithOp::PreDec: case ArithOp::PostDec: return "--";
    case ArithOp::Comma: return ",";
    case ArithOp::LogOr: return "||";
    case ArithOp::LogAnd: return "&&";
    case ArithOp::BitOr: return "|";
    case ArithOp::BitXor: return "^";
    case ArithOp::BitAnd: return "&";
    case ArithOp::Eq: return "==";
    case ArithOp::Ne: return "!=";
    case ArithOp::Lt: return "<";
    case ArithOp::Le: return "<=";
    case ArithOp::Gt: return ">";
    case ArithOp::Ge: return ">=";
    case ArithOp::Shl: return "<<";
    case ArithOp::Shr: return ">>";
    case ArithOp::Add: return "+";
    case ArithOp::Sub: return "-";
    case ArithOp::Mul: return "*";
    case ArithOp::Div: return "/";
    case ArithOp::Mod: return "%";
    case ArithOp::Pow: return "**";
    case ArithOp::AssignEq: return "=";
    case ArithOp::AddEq: return "+=";
    case ArithOp::SubEq: return "-=";
    case ArithOp::MulEq: return "*=";
    case ArithOp::DivEq: return "/=";
    case ArithOp::ModEq: return "%=";
    case ArithOp::ShlEq: return "<<=";
    case ArithOp::ShrEq: return ">>=";
    case ArithOp::AndEq: return "&=";
    case ArithOp::XorEq: return "^=";
    case ArithOp::OrEq: return "|=";
    }
    return "?";
}

// Source-like text of a word, for messages when the caller gave no source.
void print_word(const syntax::Word* w, std::string& out, int depth = 0) {
    if (w == nullptr || depth > 16) return;
    for (const syntax::Node* part : w->parts) {
        switch (part->kind) {
        case NodeKind::Lit: out += part->as<syntax::Lit>()->text; break;
        case NodeKind::Escaped: out += '\\'; out += part->as<syntax::Escaped>()->text; break;
        case NodeKind::SglQuoted: out += '\''; out += part->as<syntax::SglQuoted>()->text; out += '\''; break;
        case NodeKind::ParamExp: {
            const auto* pe = part->as<syntax::ParamExp>();
            out += pe->braced ? "${" : "$";
            out += pe->name;
            if (pe->braced) {
                if (pe->index != nullptr) {
                    out += '[';
                    print_word(pe->index, out, depth + 1);
                    out += ']';
                }
                out += '}';
            }
            break;
        }
        case NodeKind::DblQuoted: {
            out += '"';
            for (const syntax::Node* inner : part->as<syntax::DblQuoted>()->parts) {
                if (inner->kind == NodeKind::Lit) out += inner->as<syntax::Lit>()->text;
                else out += "$(...)";
            }
            out += '"';
            break;
        }
        default: out += "$(...)"; break;
        }
    }
}

// The text of a tree and where each node starts and ends in it, for error messages.
class SourceMap {
public:
    SourceMap(const syntax::ArithExpr& root, const ArithOptions& o) : given_(!o.source.empty()), origin_(o.origin) {
        if (given_) {
            text_ = until_nul(o.source);
        } else {
            print(root, 0);
            text_ = printed_;
        }
    }
    std::string_view text() const { return text_; }

    // Where the operand starts (its leftmost token).
    size_t start(const syntax::ArithExpr& e) const {
        const syntax::ArithExpr* p = &e;
        for (int guard = 0; guard < 100000; ++guard) {
            switch (p->kind) {
            case NodeKind::ArithBinary: p = p->as<syntax::ArithBinary>()->left; continue;
            case NodeKind::ArithAssign: p = p->as<syntax::ArithAssign>()->target; continue;
            case NodeKind::ArithTernary: p = p->as<syntax::ArithTernary>()->cond; continue;
            case NodeKind::ArithPostfix: p = p->as<syntax::ArithPostfix>()->operand; continue;
            default: break;
            }
            break;
        }
        return own_start(*p);
    }
    // Where the operand ends.
    size_t end(const syntax::ArithExpr& e) const {
        if (!given_) {
            auto it = ends_.find(&e);
            return it == ends_.end() ? text_.size() : it->second;
        }
        switch (e.kind) {
        case NodeKind::ArithNum: return clamp(own_start(e) + e.as<syntax::ArithNum>()->text.size());
        case NodeKind::ArithVar: {
            const auto* v = e.as<syntax::ArithVar>();
            size_t q = clamp(own_start(e) + v->name.size());
            if (v->index != nullptr && q < text_.size() && text_[q] == '[') {
                size_t close = match_bracket(text_, q);
                return close == kNone ? text_.size() : close + 1;
            }
            return q;
        }
        case NodeKind::ArithWord: return scan_word(own_start(e));
        case NodeKind::ArithParen: {
            size_t q = skip_space(end(*e.as<syntax::ArithParen>()->inner));
            return q < text_.size() && text_[q] == ')' ? q + 1 : q;
        }
        case NodeKind::ArithUnary: return end(*e.as<syntax::ArithUnary>()->operand);
        case NodeKind::ArithPostfix: return clamp(skip_space(end(*e.as<syntax::ArithPostfix>()->operand)) + 2);
        case NodeKind::ArithBinary: return end(*e.as<syntax::ArithBinary>()->right);
        case NodeKind::ArithAssign: return end(*e.as<syntax::ArithAssign>()->value);
        case NodeKind::ArithTernary: return end(*e.as<syntax::ArithTernary>()->else_expr);
        default: return text_.size();
        }
    }
    // Where bash's last token would be after reading the operand and its look-ahead: the token after it, or
    // its own last token at the end of the text.
    size_t after(const syntax::ArithExpr& e) const {
        size_t q = skip_space(end(e));
        return q < text_.size() ? q : last_token(e);
    }

private:
    size_t clamp(size_t p) const { return std::min(p, text_.size()); }
    size_t skip_space(size_t p) const {
        while (p < text_.size() && is_space(text_[p])) ++p;
        return p;
    }
    size_t own_start(const syntax::ArithExpr& e) const {
        if (!given_) {
            auto it = starts_.find(&e);
            return it == starts_.end() ? 0 : it->second;
        }
        // Pos is 1-based; origin is where the text starts.
        syntax::Pos p = e.pos;
        if (p.line == 0 || p.line < origin_.line) return 0;
        size_t off = 0;
        uint32_t line = origin_.line;
        uint32_t col0 = origin_.col == 0 ? 1 : origin_.col;
        while (line < p.line) {
            size_t nl = text_.find('\n', off);
            if (nl == std::string_view::npos) return text_.size();
            off = nl + 1;
            ++line;
            col0 = 1;
        }
        return p.col < col0 ? off : clamp(off + (p.col - col0));
    }
    size_t last_token(const syntax::ArithExpr& e) const {
        switch (e.kind) {
        case NodeKind::ArithParen: return end(e) == 0 ? 0 : end(e) - 1;
        case NodeKind::ArithPostfix: return end(e) < 2 ? 0 : end(e) - 2;
        case NodeKind::ArithUnary: return last_token(*e.as<syntax::ArithUnary>()->operand);
        case NodeKind::ArithBinary: return last_token(*e.as<syntax::ArithBinary>()->right);
        case NodeKind::ArithAssign: return last_token(*e.as<syntax::ArithAssign>()->value);
        case NodeKind::ArithTernary: return last_token(*e.as<syntax::ArithTernary>()->else_expr);
        default: return own_start(e);
        }
    }
    // The end of a shell word written in arithmetic ($x ${x} $(cmd) "..." '...'), approximately.
    size_t scan_word(size_t p) const {
        const size_t n = text_.size();
        while (p < n) {
            char c = text_[p];
            if (c == '$' && p + 1 < n && (text_[p + 1] == '{' || text_[p + 1] == '(')) {
                char open = text_[p + 1], close = open == '{' ? '}' : ')';
                int depth = 0;
                for (p = p + 1; p < n; ++p) {
                    if (text_[p] == open) ++depth;
                    else if (text_[p] == close && --depth == 0) break;
                }
                p = clamp(p + 1);
            } else if (c == '$') {
                ++p;
                if (p < n && !is_ident_char(text_[p])) ++p;
                while (p < n && is_ident_char(text_[p])) ++p;
            } else if (c == '\'' || c == '"' || c == '`') {
                size_t q = p + 1;
                while (q < n && text_[q] != c) q += (text_[q] == '\\' && c != '\'') ? 2 : 1;
                p = clamp(q + 1);
            } else if (c == '\\') {
                p = clamp(p + 2);
            } else if (is_ident_char(c)) {
                ++p;
            } else {
                break;
            }
        }
        return p;
    }

    void print(const syntax::ArithExpr& e, int depth) {
        starts_[&e] = printed_.size();
        if (depth > 4096) {
            ends_[&e] = printed_.size();
            return;
        }
        switch (e.kind) {
        case NodeKind::ArithNum: printed_ += e.as<syntax::ArithNum>()->text; break;
        case NodeKind::ArithVar: {
            const auto* v = e.as<syntax::ArithVar>();
            printed_ += v->name;
            if (v->index != nullptr) {
                printed_ += '[';
                print_word(v->index, printed_);
                printed_ += ']';
            }
            break;
        }
        case NodeKind::ArithWord: print_word(e.as<syntax::ArithWord>()->word, printed_); break;
        case NodeKind::ArithParen:
            printed_ += '(';
            print(*e.as<syntax::ArithParen>()->inner, depth + 1);
            printed_ += ')';
            break;
        case NodeKind::ArithUnary: {
            const auto* un = e.as<syntax::ArithUnary>();
            printed_ += op_text(un->op);
            print(*un->operand, depth + 1);
            break;
        }
        case NodeKind::ArithPostfix: {
            const auto* pf = e.as<syntax::ArithPostfix>();
            print(*pf->operand, depth + 1);
            printed_ += op_text(pf->op);
            break;
        }
        case NodeKind::ArithBinary: {
            const auto* b = e.as<syntax::ArithBinary>();
            print(*b->left, depth + 1);
            printed_ += b->op == ArithOp::Comma ? ", " : " ";
            if (b->op != ArithOp::Comma) {
                printed_ += op_text(b->op);
                printed_ += ' ';
            }
            print(*b->right, depth + 1);
            break;
        }
        case NodeKind::ArithAssign: {
            const auto* a = e.as<syntax::ArithAssign>();
            print(*a->target, depth + 1);
            printed_ += ' ';
            printed_ += op_text(a->op);
            printed_ += ' ';
            print(*a->value, depth + 1);
            break;
        }
        case NodeKind::ArithTernary: {
            const auto* t = e.as<syntax::ArithTernary>();
            print(*t->cond, depth + 1);
            printed_ += " ? ";
            print(*t->then_expr, depth + 1);
            printed_ += " : ";
            print(*t->else_expr, depth + 1);
            break;
        }
        default: break;
        }
        ends_[&e] = printed_.size();
    }

    bool given_;
    syntax::Pos origin_;
    std::string printed_;
    std::string_view text_;
    std::unordered_map<const syntax::ArithExpr*, size_t> starts_, ends_;
};

class TreeEval {
public:
    TreeEval(Ctx& c, const syntax::ArithExpr& root, const ArithOptions& o) : c_(c), root_(root), o_(o) {}

    bool run(int64_t& out, ArithError& err) {
        int64_t v = ev(root_);
        if (err_) {
            err = std::move(*err_);
            return false;
        }
        out = v;
        return true;
    }

private:
    enum class Where { Start, After };

    // Records an error blaming the text from the start of `at` (or from bash's last token after it).
    int64_t fail(std::string_view msg, const syntax::ArithExpr& at, Where where) {
        if (err_) return 0;
        SourceMap map(root_, o_);
        size_t p = where == Where::Start ? map.start(at) : map.after(at);
        err_ = expr_error(map.text(), msg, map.text().substr(std::min(p, map.text().size())));
        return 0;
    }

    int64_t number(const syntax::ArithNum& n) {
        // The usual constant, a short decimal number (`i<1000000`), was converted by the parser.
        if (n.has_value) return n.value;
        int64_t v = 0;
        if (const char* msg = convert_number(n.text, v)) {
            SourceMap map(root_, o_);
            size_t s = map.start(n);
            size_t e = std::max(map.end(n), s);
            err_ = expr_error(map.text().substr(0, e), msg, map.text().substr(s, e - s));
            return 0;
        }
        return v;
    }

    // The variable an operand names: an ArithVar, or an ArithWord that expands to `name` or `name[sub]`.
    bool reference(const syntax::ArithExpr& e, ArithRef& ref, std::string& storage, const char* not_variable,
                   const syntax::ArithExpr& blame) {
        ref = ArithRef{};
        ref.depth = ArithDepth{c_.depth, c_.nest};
        if (const auto* v = e.try_as<syntax::ArithVar>()) {
            ref.name = v->name;
            ref.index_word = v->index;
            ref.has_index = v->index != nullptr;
            return true;
        }
        if (const auto* w = e.try_as<syntax::ArithWord>(); w != nullptr && w->word != nullptr) {
            auto r = c_.host.expand(*w->word);
            if (!r) {
                err_ = std::move(r.error());
                return false;
            }
            storage = std::move(r.value());
            std::string_view s = storage;
            while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
            while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
            size_t q = 0;
            if (!s.empty() && is_ident_start(s[0])) {
                while (q < s.size() && is_ident_char(s[q])) ++q;
                ref.name = s.substr(0, q);
                if (q < s.size() && s[q] == '[' && match_bracket(s, q) == s.size() - 1) {
                    ref.has_index = true;
                    ref.index_text = s.substr(q + 1, s.size() - q - 2);
                    q = s.size();
                }
            }
            if (q != 0 && q == s.size()) return true;
        }
        fail(not_variable, blame, Where::After);
        return false;
    }

    int64_t read(ArithRef& ref, const syntax::ArithExpr& at, bool peeked = false) {
        if (c_.noeval > 0) return 0;
        int64_t v = 0;
        ArithError e;
        switch (lookup(c_, ref, v, e, peeked)) {
        case Status::Ok: return v;
        case Status::Error: err_ = std::move(e); return 0;
        case Status::TooDeep: return fail("expression recursion level exceeded", at, Where::Start);
        }
        return 0;
    }

    bool write(ArithRef& ref, int64_t v) {
        if (c_.noeval > 0) return true;
        auto r = c_.host.set(ref, v);
        if (!r) {
            err_ = std::move(r.error());
            return false;
        }
        return true;
    }

    // An expansion: its text is evaluated as a parenthesised sub-expression.
    int64_t word(const syntax::ArithWord& w) {
        if (w.word == nullptr) return 0;
        auto r = c_.host.expand(*w.word);
        if (!r) {
            err_ = std::move(r.error());
            return 0;
        }
        int64_t v = 0;
        ArithError e;
        switch (eval_value(c_, r.value(), v, e)) {
        case Status::Ok: return v;
        case Status::Error: err_ = std::move(e); return 0;
        case Status::TooDeep: return fail("expression recursion level exceeded", w, Where::Start);
        }
        return 0;
    }

    int64_t incdec(const syntax::ArithExpr& e, const syntax::ArithExpr& operand, bool increment, bool prefix) {
        if (const auto* pf = operand.try_as<syntax::ArithPostfix>(); prefix && pf != nullptr && pf->operand) {
            // --x++: bash increments x, then rejects the second operator.
            incdec(operand, *pf->operand, increment, true);
            if (err_) return 0;
            return fail(pf->op == ArithOp::PostInc ? "++: assignment requires lvalue" : "--: assignment requires lvalue",
                        *pf->operand, Where::After);
        }
        ArithRef ref;
        std::string storage;
        const char* msg = prefix ? "identifier expected after pre-increment or pre-decrement"
                                 : "syntax error: operand expected";
        if (!reference(operand, ref, storage, msg, prefix ? e : operand)) return 0;
        int64_t old = read(ref, operand);
        if (err_) return 0;
        int64_t v = increment ? add(old, 1) : sub(old, 1);
        if (!write(ref, v)) return 0;
        return prefix ? v : old;
    }

    int64_t ev(const syntax::ArithExpr& e) {
        NestGuard guard(c_);
        if (!guard.ok) return fail("expression recursion level exceeded", e, Where::Start);
        switch (e.kind) {
        case NodeKind::ArithNum: return number(*e.as<syntax::ArithNum>());
        case NodeKind::ArithVar: {
            const auto* v = e.as<syntax::ArithVar>();
            if (c_.noeval > 0) return 0;
            // lookup()'s first step before a reference is built.
            int64_t n = 0;
            if (v->index == nullptr && peek_number(c_, v->name, n)) return n;
            ArithRef ref;
            ref.name = v->name;
            ref.index_word = v->index;
            ref.has_index = v->index != nullptr;
            ref.depth = ArithDepth{c_.depth, c_.nest};
            return read(ref, e, v->index == nullptr);
        }
        case NodeKind::ArithWord: return word(*e.as<syntax::ArithWord>());
        case NodeKind::ArithParen: {
            const auto* p = e.as<syntax::ArithParen>();
            return p->inner == nullptr ? 0 : ev(*p->inner);
        }
        case NodeKind::ArithUnary: {
            const auto* un = e.as<syntax::ArithUnary>();
            if (un->operand == nullptr) return 0;
            if (un->op == ArithOp::PreInc || un->op == ArithOp::PreDec) {
                return incdec(e, *un->operand, un->op == ArithOp::PreInc, true);
            }
            int64_t v = ev(*un->operand);
            if (err_) return 0;
            switch (un->op) {
            case ArithOp::Minus: return neg(v);
            case ArithOp::Not: return v == 0;
            case ArithOp::BitNot: return ~v;
            default: return v;
            }
        }
        case NodeKind::ArithPostfix: {
            const auto* pf = e.as<syntax::ArithPostfix>();
            if (pf->operand == nullptr) return 0;
            return incdec(e, *pf->operand, pf->op == ArithOp::PostInc, false);
        }
        case NodeKind::ArithBinary: return binary(*e.as<syntax::ArithBinary>());
        case NodeKind::ArithAssign: return assignment(*e.as<syntax::ArithAssign>());
        case NodeKind::ArithTernary: {
            const auto* t = e.as<syntax::ArithTernary>();
            if (t->cond == nullptr || t->then_expr == nullptr || t->else_expr == nullptr) return 0;
            int64_t c = ev(*t->cond);
            if (err_) return 0;
            // Both branches are evaluated, the untaken one without effects (bash reports its errors).
            if (c == 0) ++c_.noeval;
            int64_t a = ev(*t->then_expr);
            if (err_) return 0;
            if (c == 0) --c_.noeval;
            if (c != 0) ++c_.noeval;
            int64_t b = ev(*t->else_expr);
            if (err_) return 0;
            if (c != 0) --c_.noeval;
            return c != 0 ? a : b;
        }
        default: return 0;
        }
    }

    int64_t binary(const syntax::ArithBinary& b) {
        if (b.left == nullptr || b.right == nullptr) return 0;
        int64_t l = ev(*b.left);
        if (err_) return 0;
        switch (b.op) {
        case ArithOp::Comma: return ev(*b.right);
        case ArithOp::LogOr:
        case ArithOp::LogAnd: {
            bool skip = b.op == ArithOp::LogOr ? l != 0 : l == 0;
            if (skip) ++c_.noeval;
            int64_t r = ev(*b.right);
            if (err_) return 0;
            if (skip) --c_.noeval;
            return apply(b.op, l, r);
        }
        case ArithOp::Pow: {
            int64_t r = ev(*b.right);
            if (err_) return 0;
            if (r == 0) return 1;
            if (r < 0) return fail("exponent less than 0", *b.right, Where::After);
            return power(l, r);
        }
        case ArithOp::Div:
        case ArithOp::Mod: {
            int64_t r = ev(*b.right);
            if (err_) return 0;
            if (r == 0) {
                if (c_.noeval == 0) return fail("division by 0", *b.right, Where::Start);
                r = 1;
            }
            return apply(b.op, l, r);
        }
        default: {
            int64_t r = ev(*b.right);
            if (err_) return 0;
            return apply(b.op, l, r);
        }
        }
    }

    int64_t assignment(const syntax::ArithAssign& a) {
        if (a.target == nullptr || a.value == nullptr) return 0;
        if (!a.target->is<syntax::ArithVar>() && !a.target->is<syntax::ArithWord>()) {
            // `(x=5) = 1`: bash evaluates the left side before it finds that it is not a variable.
            ev(*a.target);
            if (err_) return 0;
        }
        ArithRef ref;
        std::string storage;
        if (!reference(*a.target, ref, storage, "attempted assignment to non-variable", *a.target)) return 0;
        ArithOp op = compound_base(a.op);
        int64_t old = 0;
        if (op != ArithOp::AssignEq) {
            old = read(ref, *a.target);
            if (err_) return 0;
        }
        int64_t v = ev(*a.value);
        if (err_) return 0;
        if (op != ArithOp::AssignEq) {
            if ((op == ArithOp::Div || op == ArithOp::Mod) && v == 0) {
                if (c_.noeval == 0) return fail("division by 0", *a.value, Where::After);
                v = 1;
            }
            v = apply(op, old, v);
        }
        if (!write(ref, v)) return 0;
        return v;
    }

    Ctx& c_;
    const syntax::ArithExpr& root_;
    const ArithOptions& o_;
    std::optional<ArithError> err_;
};

}  // namespace

ArithResult<int64_t> parse_number(std::string_view text) {
    int64_t v = 0;
    if (const char* msg = convert_number(text, v)) return ArithError{Kind::Expression, msg};
    return v;
}

ArithResult<int64_t> eval_text(std::string_view text, ArithHost& host, const ArithOptions& options) {
    Ctx c{host, options.max_depth, options.depth.exprs, options.depth.nesting};
    int64_t out = 0;
    ArithError err;
    switch (eval_value(c, text, out, err)) {
    case Status::Ok: return out;
    case Status::Error: return err;
    case Status::TooDeep: break;
    }
    return expr_error(until_nul(text), "expression recursion level exceeded", "");
}

ArithResult<int64_t> eval(const syntax::ArithExpr& expr, ArithHost& host, const ArithOptions& options) {
    Ctx c{host, options.max_depth, options.depth.exprs, options.depth.nesting};
    if (c.depth >= c.max_depth) {
        SourceMap map(expr, options);
        return expr_error(map.text(), "expression recursion level exceeded", "");
    }
    ++c.depth;
    TreeEval te(c, expr, options);
    int64_t out = 0;
    ArithError err;
    if (!te.run(out, err)) return err;
    return out;
}

bool has_expansions(const syntax::ArithExpr& expr) {
    std::vector<const syntax::ArithExpr*> todo{&expr};
    while (!todo.empty()) {
        const syntax::ArithExpr* e = todo.back();
        todo.pop_back();
        if (e == nullptr) continue;
        switch (e->kind) {
        case NodeKind::ArithWord: return true;
        case NodeKind::ArithParen: todo.push_back(e->as<syntax::ArithParen>()->inner); break;
        case NodeKind::ArithUnary: todo.push_back(e->as<syntax::ArithUnary>()->operand); break;
        case NodeKind::ArithPostfix: todo.push_back(e->as<syntax::ArithPostfix>()->operand); break;
        case NodeKind::ArithBinary:
            todo.push_back(e->as<syntax::ArithBinary>()->left);
            todo.push_back(e->as<syntax::ArithBinary>()->right);
            break;
        case NodeKind::ArithAssign:
            todo.push_back(e->as<syntax::ArithAssign>()->target);
            todo.push_back(e->as<syntax::ArithAssign>()->value);
            break;
        case NodeKind::ArithTernary:
            todo.push_back(e->as<syntax::ArithTernary>()->cond);
            todo.push_back(e->as<syntax::ArithTernary>()->then_expr);
            todo.push_back(e->as<syntax::ArithTernary>()->else_expr);
            break;
        default: break;
        }
    }
    return false;
}

}  // namespace bashkit::interp
