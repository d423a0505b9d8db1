// Bash's arithmetic over text: a variable's value used as an operand, `let`, `declare -i`, expressions that
// are not parsed ahead. See arith.hpp for the contract.
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
#include <unordered_map>
#include <vector>

#include "interp/arith_impl.hpp"

namespace bashkit::interp {
namespace arith_detail {
namespace {

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
    case Tok::Pow: return ArithOp::Pow;
    default: return ArithOp::Comma;  // not a binary operator (precedence 0)
    }
}

// Binding strength of binary operators, from the one table (syntax/ast.hpp); 0 for anything else.
int precedence(Tok t) { return syntax::arith_precedence(binary_op(t)); }

class TextEval {
public:
    TextEval(Ctx& c, std::string_view text) : c_(c), session_(text) {}

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
        if (!err_) err_ = expr_error(session_, msg, session_.substr(std::min(lasttp_, session_.size())));
        return 0;
    }
    size_t skip_space(size_t p) const {
        while (p < session_.size() && is_space(session_[p])) ++p;
        return p;
    }

    // Reads the token at session_[p] (not blank, not the end). cur and last are the current and previous tokens,
    // which decide what `++` and `--` are and how a stray character is reported.
    bool lex(size_t p, Tok cur, Tok last, Lexed& t) {
        const size_t n = session_.size();
        char c = session_[p];
        char c1 = p + 1 < n ? session_[p + 1] : '\0';
        if (is_ident_start(c)) {
            size_t q = p + 1;
            while (q < n && is_ident_char(session_[q])) ++q;
            t.tok = Tok::Str;
            t.name_end = q;
            t.end = q;
            if (q < n && session_[q] == '[') {
                size_t close = match_bracket(session_, q);
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
            while (q < n && is_number_char(session_[q])) ++q;
            if (const char* msg = convert_number(session_.substr(p, q - p), t.num)) {
                // bash cuts the expression after the bad constant.
                err_ = expr_error(session_.substr(0, q), msg, session_.substr(p, q - p));
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
                if (p + 2 < n && session_[p + 2] == '=') {
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
                if (q < n && is_ident_start(session_[q])) {
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
            if (q >= session_.size()) break;
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
        int64_t v = 0;
        if (read_operand(c_, ref, v, err_) == Status::TooDeep) return fail("expression recursion level exceeded");
        return v;
    }

    bool write_variable(ArithRef& ref, int64_t v) { return write_operand(c_, ref, v, err_); }

    // Advances to the next token (bash's readtok).
    void next() {
        size_t p = skip_space(tp_);
        if (p >= session_.size()) {
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
            ref_.name = session_.substr(p, t.name_end - p);
            if (t.name_end < t.end) {
                ref_.has_index = true;
                ref_.index_text = session_.substr(t.name_end + 1, t.end - t.name_end - 2);
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
                    while (q < session_.size() && is_blank(session_[q])) ++q;
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
                if (q + 1 < session_.size() && (session_[q] == '+' || session_[q] == '-') && session_[q + 1] == session_[q]) {
                    if (!write_variable(ref_, session_[q] == '+' ? add(v, 1) : sub(v, 1))) return 0;
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
    std::string_view session_;
    size_t tp_ = 0;      // where the next token starts (before blanks)
    size_t lasttp_ = 0;  // start of the last token read: the error token runs from here
    Tok cur_ = Tok::End;
    Tok last_ = Tok::End;
    int64_t tokval_ = 0;
    ArithOp assign_op_ = ArithOp::AssignEq;
    ArithRef ref_;  // the last identifier read
    std::optional<ArithError> err_;
};

}  // namespace

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

}  // namespace arith_detail

using namespace arith_detail;

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

}  // namespace bashkit::interp
