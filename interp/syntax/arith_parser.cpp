// Arithmetic: the one parser of bash's expressions, for the text of $(( )), (( )), for (( )) and $[ ] in a
// script (whose raw word may hold expansions) and for text evaluated at run time (let, declare -i, subscripts,
// the values of variables used as operands).
//
// It reads the text as bash's evaluator does (expr.c): one token of look-ahead, the previous tokens deciding
// what `++` and `--` are and how a stray character is reported, a name followed by `=` left unread, a
// constant converted as its token is read. Bash evaluates while it parses, so when it finds a syntax error
// the effects to its left have happened. The tree keeps that order: the error is an ArithError node placed
// where bash found it, after (in evaluation order) everything bash evaluated before, and the evaluator
// reports it when it reaches it. Where bash reads a token ahead with effects (a stray name after an operand
// is read, and its value evaluated, before the operators to its left are applied), an ArithLookahead node
// says so.
//
// In a script, an expansion inside the text (`$x`, `$(cmd)`) takes part in the token it touches, which then
// becomes an ArithWord leaf; a tree with an error is not kept (the interpreter expands the text and parses
// it again at run time, as bash evaluates the expanded text).
#include <algorithm>
#include <vector>

#include "interp/syntax/arith_lex.hpp"
#include "interp/syntax/parser_impl.hpp"

namespace bashkit::syntax {
namespace detail {
namespace {

using namespace arith_lex;

enum class ArithTok : uint8_t {
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
bool is_single_op(ArithTok t) {
    switch (t) {
    case ArithTok::Assign: case ArithTok::Gt: case ArithTok::Lt: case ArithTok::Plus: case ArithTok::Minus: case ArithTok::Mul:
    case ArithTok::Div: case ArithTok::Mod: case ArithTok::Not: case ArithTok::LParen: case ArithTok::RParen: case ArithTok::BAnd:
    case ArithTok::BOr: case ArithTok::BXor: case ArithTok::BNot: case ArithTok::Ques: case ArithTok::Col: case ArithTok::Comma:
        return true;
    default:
        return false;
    }
}
// Multi-character operator tokens (bash's _is_multiop).
bool is_multi_op(ArithTok t) {
    switch (t) {
    case ArithTok::EqEq: case ArithTok::Ne: case ArithTok::Le: case ArithTok::Ge: case ArithTok::LAnd: case ArithTok::LOr: case ArithTok::Shl:
    case ArithTok::Shr: case ArithTok::OpAssign: case ArithTok::Cond: case ArithTok::Pow:
        return true;
    default:
        return false;
    }
}

ArithOp binary_op(ArithTok t) {
    switch (t) {
    case ArithTok::LOr: return ArithOp::LogOr;
    case ArithTok::LAnd: return ArithOp::LogAnd;
    case ArithTok::BOr: return ArithOp::BitOr;
    case ArithTok::BXor: return ArithOp::BitXor;
    case ArithTok::BAnd: return ArithOp::BitAnd;
    case ArithTok::EqEq: return ArithOp::Eq;
    case ArithTok::Ne: return ArithOp::Ne;
    case ArithTok::Lt: return ArithOp::Lt;
    case ArithTok::Le: return ArithOp::Le;
    case ArithTok::Gt: return ArithOp::Gt;
    case ArithTok::Ge: return ArithOp::Ge;
    case ArithTok::Shl: return ArithOp::Shl;
    case ArithTok::Shr: return ArithOp::Shr;
    case ArithTok::Plus: return ArithOp::Add;
    case ArithTok::Minus: return ArithOp::Sub;
    case ArithTok::Mul: return ArithOp::Mul;
    case ArithTok::Div: return ArithOp::Div;
    case ArithTok::Mod: return ArithOp::Mod;
    case ArithTok::Pow: return ArithOp::Pow;
    default: return ArithOp::Comma;  // not a binary operator (precedence 0)
    }
}

// Binding strength of binary operators, from the one table (ast.hpp); 0 for anything else.
int precedence(ArithTok t) { return arith_precedence(binary_op(t)); }

// Where a part of the text starts: its offset and position; a literal's bytes are counted from there.
struct Segment {
    uint32_t off;
    Pos pos;
    bool literal;
};

class ArithParser {
public:
    // Text mode: the bytes as they are. `nest`: nesting already in effect; deeper than max_nest is an error.
    ArithParser(Arena& a, std::string_view text, Pos origin, uint32_t nest, uint32_t max_nest)
        : A(a), s_(text), nest_(nest), base_nest_(nest), deepest_(nest), max_nest_(max_nest) {
        segs_.push_back(Segment{0, origin, true});
    }

    // Word mode: the parts of a raw word from a script; each expansion is a run of marked bytes.
    ArithParser(Parser& p, const List<Node*>& parts) : P(&p), A(p.arena_), max_nest_(UINT32_MAX) {
        if (parts.size == 1 && parts[0]->is<Lit>()) {
            s_ = parts[0]->as<Lit>()->text;
            segs_.push_back(Segment{0, parts[0]->pos, true});
            return;
        }
        std::string flat;
        for (uint32_t i = 0; i < parts.size; ++i) {
            const Node* n = parts[i];
            auto off = static_cast<uint32_t>(flat.size());
            segs_.push_back(Segment{off, n->pos, n->is<Lit>()});
            if (n->is<Lit>()) {
                flat += n->as<Lit>()->text;
                continue;
            }
            flat.append(arith_part_span(parts, i), '\x01');
            mark_.resize(flat.size(), 0);
            std::fill(mark_.begin() + off, mark_.end(), i + 1);
        }
        mark_.resize(flat.size(), 0);
        s_ = A.str(flat);
        parts_ = &parts;
    }

    ArithExpr* run() {
        next();
        ArithExpr* v = failed_ ? err_ : comma();
        if (!failed_ && cur_ != ArithTok::End) v = fail("syntax error in expression", v);
        return v;
    }

    bool failed() const { return failed_; }
    uint32_t deepest() const { return deepest_ - base_nest_; }

private:
    Parser* P = nullptr;
    Arena& A;
    std::string_view s_;
    const List<Node*>* parts_ = nullptr;
    std::vector<uint32_t> mark_;  // word mode: 1 + the index of the expansion part a byte stands for, or 0
    std::vector<Segment> segs_;
    // The position cursor: positions are asked for mostly in increasing order.
    size_t cur_seg_ = 0;
    uint32_t cur_off_ = 0;
    Pos cur_pos_{1, 1};
    bool cursor_set_ = false;

    uint32_t nest_ = 0;
    uint32_t base_nest_ = 0;
    uint32_t deepest_ = 0;
    uint32_t max_nest_;

    size_t tp_ = 0;      // where the next token starts (before blanks)
    size_t lasttp_ = 0;  // start of the last token read: the error token runs from here
    size_t tok_start_ = 0;
    ArithTok cur_ = ArithTok::End;
    ArithTok last_ = ArithTok::End;
    ArithExpr* leaf_ = nullptr;  // the current Num or Str token's node
    ArithOp assign_op_ = ArithOp::AssignEq;
    bool failed_ = false;
    ArithError* err_ = nullptr;

    struct Lexed {
        ArithTok tok = ArithTok::End;
        size_t end = 0;
        ArithOp op = ArithOp::AssignEq;  // OpAssign: the operator
        size_t name_end = 0;             // Str: end of the name; a subscript follows when name_end < end
        bool word = false;               // Str: holds an expansion
        const char* bad = nullptr;       // Num: why the constant does not convert
        int64_t num = 0;
    };

    // ---------------------------------------------------------------- positions and nodes

    bool marked(size_t p) const { return !mark_.empty() && mark_[p] != 0; }

    Pos pos_at(size_t off) {
        if (P == nullptr) return segs_[0].pos;  // text evaluated at run time: positions serve no one
        auto o = static_cast<uint32_t>(std::min(off, s_.size()));
        size_t seg = segs_.size() - 1;
        while (seg > 0 && segs_[seg].off > o) --seg;
        if (!segs_[seg].literal) return segs_[seg].pos;
        if (!cursor_set_ || cur_seg_ != seg || cur_off_ > o) {
            cur_seg_ = seg;
            cur_off_ = segs_[seg].off;
            cur_pos_ = segs_[seg].pos;
            cursor_set_ = true;
        }
        for (; cur_off_ < o; ++cur_off_) {
            if (s_[cur_off_] == '\n') {
                cur_pos_.line++;
                cur_pos_.col = 1;
            } else {
                cur_pos_.col++;
            }
        }
        return cur_pos_;
    }

    template <class T>
    T* make(size_t begin, size_t end) {
        T* n = A.node<T>(pos_at(begin));
        n->begin = static_cast<uint32_t>(begin);
        n->end = static_cast<uint32_t>(end);
        return n;
    }
    template <class T>
    T* make_over(ArithExpr* first, size_t end) {
        T* n = A.node<T>(first->pos);
        n->begin = first->begin;
        n->end = static_cast<uint32_t>(end);
        return n;
    }

    ArithBinary* binary_node(ArithOp op, ArithExpr* l, ArithExpr* r, size_t op_end) {
        ArithBinary* b = make_over<ArithBinary>(l, r->end);
        b->op = op;
        b->left = l;
        b->right = r;
        b->op_end = static_cast<uint32_t>(op_end);
        return b;
    }
    ArithUnary* unary_node(ArithOp op, size_t begin, ArithExpr* operand) {
        ArithUnary* u = make<ArithUnary>(begin, operand->end);
        u->op = op;
        u->operand = operand;
        return u;
    }

    // The parts of the word for [from, to) of a marked text: literal slices and expansions.
    Word* word_over(size_t from, size_t to) {
        std::vector<Node*> nodes;
        size_t p = from;
        while (p < to) {
            if (marked(p)) {
                uint32_t m = mark_[p];
                nodes.push_back((*parts_)[m - 1]);
                while (p < to && mark_[p] == m) ++p;
                continue;
            }
            size_t q = p;
            while (q < to && !marked(q)) ++q;
            Lit* l = A.node<Lit>(pos_at(p));
            l->text = s_.substr(p, q - p);
            nodes.push_back(l);
            p = q;
        }
        Word* w = A.node<Word>(pos_at(from));
        w->parts = A.list<Node*>(nodes);
        return w;
    }

    // The node of a name or expansion token at [p, t.end).
    ArithExpr* leaf(size_t p, const Lexed& t) {
        if (t.word) {
            ArithWord* w = make<ArithWord>(p, t.end);
            w->word = word_over(p, t.end);
            return w;
        }
        ArithVar* v = make<ArithVar>(p, t.end);
        v->name = s_.substr(p, t.name_end - p);
        v->nest = nest_ - base_nest_;
        if (t.name_end < t.end) {
            v->has_index = true;
            size_t from = t.name_end + 1, to = t.end - 1;
            if (parts_ != nullptr) {
                v->index = word_over(from, to);
            } else if (P != nullptr) {
                Word* w = A.node<Word>(pos_at(from));
                if (to > from) {
                    Lit* l = A.node<Lit>(pos_at(from));
                    l->text = s_.substr(from, to - from);
                    w->parts = A.list<Node*>(std::vector<Node*>{l});
                }
                v->index = w;
            } else {
                v->index_text = s_.substr(from, to - from);
            }
        }
        return v;
    }

    ArithNum* number(size_t p, const Lexed& t) {
        ArithNum* n = make<ArithNum>(p, t.end);
        n->text = s_.substr(p, t.end - p);
        n->has_value = t.bad == nullptr;
        n->value = t.num;
        return n;
    }

    // ---------------------------------------------------------------- errors

    // An error at the last token read (the text from its start is the error token), after `before`.
    ArithExpr* fail(std::string_view msg, ArithExpr* before = nullptr) {
        return error_node(error_message(s_, msg, s_.substr(std::min(lasttp_, s_.size()))), before);
    }
    ArithExpr* error_node(const std::string& message, ArithExpr* before) {
        size_t at = std::min(lasttp_, s_.size());
        ArithError* e = before != nullptr ? make_over<ArithError>(before, s_.size()) : make<ArithError>(at, s_.size());
        e->before = before;
        e->message = A.str(message);
        failed_ = true;
        err_ = e;
        return e;
    }
    // Nesting too deep. Bash read the current token before: a name's value is evaluated, a constant converted
    // (and its error reported) as it is read.
    ArithExpr* too_deep() {
        ArithExpr* read = nullptr;
        if (cur_ == ArithTok::Str && leaf_ != nullptr && leaf_->is<ArithVar>() && !leaf_->as<ArithVar>()->unread)
            read = leaf_;
        if (cur_ == ArithTok::Num && leaf_ != nullptr && !leaf_->as<ArithNum>()->has_value) read = leaf_;
        return fail("expression recursion level exceeded", read);
    }
    // A constant that does not convert, read where bash's lexer reports it at once: the expression is quoted
    // only up to the constant.
    void number_error(size_t p, const Lexed& t) {
        error_node(error_message(s_.substr(0, t.end), t.bad, s_.substr(p, t.end - p)), nullptr);
    }
    // The error just found by next() comes after `before` (bash evaluated it first).
    ArithExpr* after(ArithExpr* before) {
        if (err_->before == nullptr && before != nullptr) {
            err_->before = before;
            err_->pos = before->pos;
            err_->begin = before->begin;
        }
        return err_;
    }

    // ---------------------------------------------------------------- nesting

    // One level of nesting. In a script it counts toward the parser's bound on nesting (as the syntax parser's
    // other constructs do); in text it is bash's evaluator nesting, bounded by max_nest.
    class Level {
    public:
        Level(ArithParser& ap, bool script_site, bool text_site) : ap_(ap) {
            if (ap_.P != nullptr && script_site) {
                word_ = true;
                ok = ap_.P->enter(ap_.pos_at(ap_.tok_start_));
            }
            if (text_site) {
                text_ = true;
                ++ap_.nest_;
                ap_.deepest_ = std::max(ap_.deepest_, ap_.nest_);
                if (ap_.nest_ > ap_.max_nest_) ok = false;
            }
        }
        ~Level() {
            if (word_) ap_.P->leave();
            if (text_) --ap_.nest_;
        }
        Level(const Level&) = delete;
        Level& operator=(const Level&) = delete;
        bool ok = true;

    private:
        ArithParser& ap_;
        bool word_ = false;
        bool text_ = false;
    };

    // ---------------------------------------------------------------- tokens

    size_t skip_space(size_t p) const {
        while (p < s_.size() && is_space(s_[p]) && !marked(p)) ++p;
        return p;
    }

    // Reads the token at s_[p] (not blank, not the end). cur and last are the current and previous tokens,
    // which decide what `++` and `--` are and how a stray character is reported.
    bool lex(size_t p, ArithTok cur, ArithTok last, Lexed& t) {
        const size_t n = s_.size();
        char c = s_[p];
        char c1 = p + 1 < n && !marked(p + 1) ? s_[p + 1] : '\0';
        if (marked(p) || is_ident_start(c)) {
            size_t q = p + 1;
            bool word = marked(p);
            while (q < n && (marked(q) || is_ident_char(s_[q]))) word |= marked(q++);
            t.tok = ArithTok::Str;
            t.word = word;
            t.name_end = q;
            t.end = q;
            if (!word && q < n && s_[q] == '[') {
                size_t close = match_bracket(s_, q);
                if (close == kNoBracket) {
                    fail("bad array subscript");
                    return false;
                }
                t.end = close + 1;
            }
            return true;
        }
        if (is_digit(c)) {
            size_t q = p;
            bool word = false;
            while (q < n && (marked(q) || is_number_char(s_[q]))) word |= marked(q++);
            t.end = q;
            if (word) {
                t.tok = ArithTok::Str;
                t.word = true;
                t.name_end = q;
                return true;
            }
            t.tok = ArithTok::Num;
            t.bad = convert_number(s_.substr(p, q - p), t.num);
            return true;
        }
        t.end = p + 1;
        auto two = [&](ArithTok tok) {
            t.tok = tok;
            t.end = p + 2;
        };
        auto op_assign = [&](ArithOp op, size_t len) {
            t.tok = ArithTok::OpAssign;
            t.op = op;
            t.end = p + len;
        };
        switch (c) {
        case '=': c1 == '=' ? two(ArithTok::EqEq) : void(t.tok = ArithTok::Assign); return true;
        case '!': c1 == '=' ? two(ArithTok::Ne) : void(t.tok = ArithTok::Not); return true;
        case '<':
        case '>': {
            bool lt = c == '<';
            if (c1 == '=') {
                two(lt ? ArithTok::Le : ArithTok::Ge);
            } else if (c1 == c) {
                if (p + 2 < n && s_[p + 2] == '=' && !marked(p + 2)) {
                    op_assign(lt ? ArithOp::Shl : ArithOp::Shr, 3);
                } else {
                    two(lt ? ArithTok::Shl : ArithTok::Shr);
                }
            } else {
                t.tok = lt ? ArithTok::Lt : ArithTok::Gt;
            }
            return true;
        }
        case '&':
            if (c1 == '&') two(ArithTok::LAnd);
            else if (c1 == '=') op_assign(ArithOp::BitAnd, 2);
            else t.tok = ArithTok::BAnd;
            return true;
        case '|':
            if (c1 == '|') two(ArithTok::LOr);
            else if (c1 == '=') op_assign(ArithOp::BitOr, 2);
            else t.tok = ArithTok::BOr;
            return true;
        case '*':
            if (c1 == '*') two(ArithTok::Pow);
            else if (c1 == '=') op_assign(ArithOp::Mul, 2);
            else t.tok = ArithTok::Mul;
            return true;
        case '+':
        case '-': {
            bool plus = c == '+';
            if (c1 == c) {
                if (cur == ArithTok::Str) {
                    two(plus ? ArithTok::PostInc : ArithTok::PostDec);
                    return true;
                }
                if (cur == ArithTok::Num && (last == ArithTok::PreInc || last == ArithTok::PreDec)) {
                    // --x++
                    fail(plus ? "++: assignment requires lvalue" : "--: assignment requires lvalue");
                    return false;
                }
                size_t q = skip_space(p + 2);
                if (q < n && (marked(q) || is_ident_start(s_[q]))) {
                    two(plus ? ArithTok::PreInc : ArithTok::PreDec);
                    return true;
                }
                // `++1` is `+ +1`
            } else if (c1 == '=') {
                op_assign(plus ? ArithOp::Add : ArithOp::Sub, 2);
                return true;
            }
            t.tok = plus ? ArithTok::Plus : ArithTok::Minus;
            return true;
        }
        case '/':
        case '%':
        case '^': {
            ArithOp op = c == '/' ? ArithOp::Div : c == '%' ? ArithOp::Mod : ArithOp::BitXor;
            if (c1 == '=') op_assign(op, 2);
            else t.tok = c == '/' ? ArithTok::Div : c == '%' ? ArithTok::Mod : ArithTok::BXor;
            return true;
        }
        case '~': t.tok = ArithTok::BNot; return true;
        case '?': t.tok = ArithTok::Ques; return true;
        case ':': t.tok = ArithTok::Col; return true;
        case ',': t.tok = ArithTok::Comma; return true;
        case '(': t.tok = ArithTok::LParen; return true;
        case ')': t.tok = ArithTok::RParen; return true;
        default:
            if (cur == ArithTok::End || is_single_op(cur) || is_multi_op(cur)) {
                fail("syntax error: operand expected");
            } else {
                fail("syntax error: invalid arithmetic operator");
            }
            return false;
        }
    }

    // Whether the token after a name (ending at p) is `=`. Like bash, the look-ahead reads the following
    // tokens (a run of names and the token after it) and so reports their lexical errors.
    bool peek_is_assign(size_t p, bool& is_assign) {
        is_assign = false;
        size_t saved = lasttp_;
        for (bool first = true;; first = false) {
            size_t q = skip_space(p);
            if (q >= s_.size()) break;
            lasttp_ = q;
            Lexed t;
            if (!lex(q, ArithTok::Str, ArithTok::End, t)) return false;
            if (t.tok == ArithTok::Num && t.bad != nullptr) {
                number_error(q, t);
                return false;
            }
            if (first) is_assign = t.tok == ArithTok::Assign;
            if (t.tok != ArithTok::Str) break;
            p = t.end;
        }
        lasttp_ = saved;
        return true;
    }

    // Advances to the next token (bash's readtok). after_operand: the token follows a complete operand; there
    // a constant that does not convert is an error at once, as in bash's lexer (elsewhere it is the operand,
    // whose error the evaluator reports at the same point of the evaluation).
    void next(bool after_operand = false) {
        size_t p = skip_space(tp_);
        if (p >= s_.size()) {
            last_ = cur_;
            cur_ = ArithTok::End;
            tp_ = p;
            return;
        }
        lasttp_ = p;
        Lexed t;
        if (!lex(p, cur_, last_, t)) return;
        if (t.tok == ArithTok::Str) {
            bool is_assign = false;
            if (!peek_is_assign(t.end, is_assign)) return;
            leaf_ = leaf(p, t);
            // The target of `x = ...` is not read; `++x = 1` still reads x.
            if (leaf_->is<ArithVar>())
                static_cast<ArithVar*>(leaf_)->unread = !(cur_ == ArithTok::PreInc || cur_ == ArithTok::PreDec || !is_assign);
        } else if (t.tok == ArithTok::Num) {
            if (after_operand && t.bad != nullptr) {
                number_error(p, t);
                return;
            }
            leaf_ = number(p, t);
        } else if (t.tok == ArithTok::OpAssign) {
            assign_op_ = t.op;
        }
        last_ = cur_;
        cur_ = t.tok;
        tok_start_ = p;
        tp_ = t.end;
    }

    // The token after a complete operand `v`, ending at `end`: an error there comes after v; a stray name there
    // is read by bash before anything else happens.
    ArithExpr* after_operand(ArithExpr* v) {
        next(true);
        if (failed_) return after(v);
        if (cur_ == ArithTok::Str) {
            auto* var = leaf_->is<ArithVar>() ? static_cast<ArithVar*>(leaf_) : nullptr;
            if (var != nullptr && !var->unread) {
                ArithLookahead* l = make_over<ArithLookahead>(v, v->end);
                l->operand = v;
                l->next = var;
                return l;
            }
        }
        return v;
    }

    // ---------------------------------------------------------------- grammar (bash's expr.c)

    ArithExpr* comma() {
        ArithExpr* v = assign();
        while (!failed_ && cur_ == ArithTok::Comma) {
            size_t op_end = tp_;
            next();
            ArithExpr* r = failed_ ? err_ : assign();
            v = binary_node(ArithOp::Comma, v, r, op_end);
        }
        return v;
    }

    ArithExpr* assign() {
        Level level(*this, true, false);
        if (!level.ok) return fail("expression recursion level exceeded");
        ArithExpr* v = cond();
        if (failed_) return v;
        if (cur_ != ArithTok::Assign && cur_ != ArithTok::OpAssign) return v;
        // In a script the tree keeps `(x) = 1` (the evaluator reports it where bash does: after evaluating
        // the left side, before the right one), so that the expression keeps its tree.
        if (last_ != ArithTok::Str && P == nullptr) return fail("attempted assignment to non-variable", v);
        ArithOp op = cur_ == ArithTok::OpAssign ? compound(assign_op_) : ArithOp::AssignEq;
        next();
        ArithExpr* value = nullptr;
        if (failed_) {
            value = err_;
        } else {
            Level inner(*this, false, true);
            value = inner.ok ? assign() : too_deep();
        }
        ArithAssign* a = make_over<ArithAssign>(v, value->end);
        a->op = op;
        a->target = v;
        a->value = value;
        return a;
    }

    static ArithOp compound(ArithOp base) {
        switch (base) {
        case ArithOp::Add: return ArithOp::AddEq;
        case ArithOp::Sub: return ArithOp::SubEq;
        case ArithOp::Mul: return ArithOp::MulEq;
        case ArithOp::Div: return ArithOp::DivEq;
        case ArithOp::Mod: return ArithOp::ModEq;
        case ArithOp::Shl: return ArithOp::ShlEq;
        case ArithOp::Shr: return ArithOp::ShrEq;
        case ArithOp::BitAnd: return ArithOp::AndEq;
        case ArithOp::BitXor: return ArithOp::XorEq;
        case ArithOp::BitOr: return ArithOp::OrEq;
        default: return ArithOp::AssignEq;
        }
    }

    ArithTernary* ternary_node(ArithExpr* c, ArithExpr* t, ArithExpr* e) {
        ArithTernary* n = make_over<ArithTernary>(c, e->end);
        n->cond = c;
        n->then_expr = t;
        n->else_expr = e;
        return n;
    }

    ArithExpr* cond() {
        ArithExpr* c = binary();
        if (failed_ || cur_ != ArithTok::Ques) return c;
        Level level(*this, true, true);
        if (!level.ok) return fail("expression recursion level exceeded", c);
        next();
        if (failed_) return after(c);
        if (cur_ == ArithTok::End || cur_ == ArithTok::Col) return fail("expression expected", c);
        ArithExpr* then_value = comma();
        // An error in the untaken branch is reported too: the else slot is never reached after it.
        if (failed_) return ternary_node(c, then_value, then_value);
        if (cur_ != ArithTok::Col) return ternary_node(c, then_value, fail("`:' expected for conditional expression"));
        next();
        if (failed_) return ternary_node(c, then_value, err_);
        if (cur_ == ArithTok::End) return ternary_node(c, then_value, fail("expression expected"));
        ArithExpr* else_value = cond();
        ArithTernary* n = ternary_node(c, then_value, else_value);
        last_ = ArithTok::Cond;
        return n;
    }

    // All binary operators, with an explicit stack of pending operators rather than one recursive call per
    // precedence level, so that a parenthesis costs a few stack frames and a chain of any length none. An
    // operator is applied when the token after its right operand binds less tightly, as bash's recursive
    // descent does.
    struct Pending {
        ArithTok op;
        int prec;
        ArithExpr* lhs;
        size_t op_end;
    };

    ArithExpr* binary() {
        std::vector<Pending> pending;
        uint32_t pows = 0;  // pending ** count toward the script parser's nesting, as nested calls would
        auto reduce = [&](ArithExpr* r) {
            const Pending& p = pending.back();
            if (p.op == ArithTok::Pow && P != nullptr) {
                P->leave();
                --pows;
            }
            ArithExpr* b = binary_node(binary_op(p.op), p.lhs, r, p.op_end);
            pending.pop_back();
            return b;
        };
        ArithExpr* v = unary();
        for (;;) {
            if (failed_) {
                while (!pending.empty()) v = reduce(v);
                return v;
            }
            ArithTok op = cur_;
            int prec = precedence(op);
            // ** is right associative: an equal ** on the stack waits.
            while (!pending.empty() &&
                   (pending.back().prec > prec || (pending.back().prec == prec && op != ArithTok::Pow))) {
                v = reduce(v);
                last_ = ArithTok::Num;
            }
            if (prec == 0) return v;
            if (op == ArithTok::Pow && P != nullptr) {
                ++pows;
                if (!P->enter(pos_at(tok_start_))) {
                    pending.push_back(Pending{op, prec, v, tp_});
                    v = fail("expression recursion level exceeded");
                    continue;
                }
            }
            pending.push_back(Pending{op, prec, v, tp_});
            next();
            v = failed_ ? err_ : unary();
        }
    }

    ArithExpr* unary() {
        Level level(*this, true, true);
        if (!level.ok) return too_deep();
        ArithTok op = cur_;
        if (op != ArithTok::Not && op != ArithTok::BNot && op != ArithTok::Minus && op != ArithTok::Plus) return primary();
        size_t begin = tok_start_;
        next();
        ArithExpr* v = failed_ ? err_ : unary();
        ArithOp uop = op == ArithTok::Not ? ArithOp::Not : op == ArithTok::BNot ? ArithOp::BitNot
                    : op == ArithTok::Minus ? ArithOp::Minus : ArithOp::Plus;
        ArithUnary* u = unary_node(uop, begin, v);
        if (!failed_) last_ = ArithTok::Num;
        return u;
    }

    ArithExpr* primary() {
        if (cur_ == ArithTok::PreInc || cur_ == ArithTok::PreDec) {
            ArithOp op = cur_ == ArithTok::PreInc ? ArithOp::PreInc : ArithOp::PreDec;
            size_t begin = tok_start_;
            last_ = cur_;
            next();
            if (failed_) return unary_node(op, begin, err_);
            if (cur_ != ArithTok::Str) return fail("identifier expected after pre-increment or pre-decrement");
            ArithExpr* target = leaf_;
            if (P != nullptr) {
                // In a script the tree keeps `--x++` as --(x++), which the evaluator reports as bash does
                // (after decrementing x).
                size_t q = skip_space(tp_);
                if (q + 1 < s_.size() && (s_[q] == '+' || s_[q] == '-') && s_[q + 1] == s_[q] && !marked(q) &&
                    !marked(q + 1)) {
                    ArithPostfix* pf = make_over<ArithPostfix>(target, q + 2);
                    pf->op = s_[q] == '+' ? ArithOp::PostInc : ArithOp::PostDec;
                    pf->operand = target;
                    target = pf;
                    tp_ = q + 2;
                }
            }
            ArithUnary* u = unary_node(op, begin, target);
            cur_ = ArithTok::Num;  // so that --x++ is an error
            return after_operand(u);
        }
        if (cur_ == ArithTok::LParen) {
            size_t begin = tok_start_;
            next();
            ArithExpr* v = failed_ ? err_ : comma();
            if (failed_) return v;
            if (cur_ != ArithTok::RParen) return fail("missing `)'", v);
            ArithParen* pe = make<ArithParen>(begin, tp_);
            pe->inner = v;
            return after_operand(pe);
        }
        if (cur_ == ArithTok::Num || cur_ == ArithTok::Str) {
            ArithExpr* v = leaf_;
            if (cur_ == ArithTok::Str) {
                size_t q = skip_space(tp_);
                if (q + 1 < s_.size() && (s_[q] == '+' || s_[q] == '-') && s_[q + 1] == s_[q] && !marked(q) &&
                    !marked(q + 1)) {
                    ArithPostfix* pf = make_over<ArithPostfix>(v, q + 2);
                    pf->op = s_[q] == '+' ? ArithOp::PostInc : ArithOp::PostDec;
                    pf->operand = v;
                    v = pf;
                    lasttp_ = q;
                    tp_ = q + 2;
                    last_ = ArithTok::Str;
                    cur_ = ArithTok::Num;
                }
            }
            return after_operand(v);
        }
        return fail("syntax error: operand expected");
    }
};

}  // namespace

ArithExpr* Parser::arith_from_word(Word* raw, bool* exact) {
    if (exact) *exact = false;
    if (!raw || failed()) return nullptr;
    if (raw->parts.size == 0) return nullptr;  // empty: the interpreter treats it as 0
    ArithParser ap(*this, raw->parts);
    ArithExpr* e = ap.run();
    // Blank text is 0; a tree with an error is not kept (bash reports it when the text is evaluated).
    if (failed() || ap.failed() || e == nullptr) return nullptr;
    if (exact) *exact = arith_exact(raw, e);
    return e;
}

ArithExpr* Parser::parse_arith_text() {
    Word* raw = nullptr;
    if (!read_arith_raw(ArithEnd::Whole, lexer_.pos(), raw) || failed()) return nullptr;
    return arith_from_word(raw);
}

}  // namespace detail

uint32_t arith_part_span(const List<Node*>& parts, uint32_t i) {
    const Node* n = parts[i];
    if (n->is<Lit>()) return static_cast<uint32_t>(n->as<Lit>()->text.size());
    // Parts are contiguous: an expansion runs up to the next part on its line.
    if (i + 1 < parts.size && parts[i + 1]->pos.line == n->pos.line && parts[i + 1]->pos.col > n->pos.col)
        return parts[i + 1]->pos.col - n->pos.col;
    return 1;
}

bool arith_exact(const Word* raw, const ArithExpr* expr) {
    if (raw == nullptr || expr == nullptr) return false;
    for (const Node* n : raw->parts) {
        switch (n->kind) {
        case NodeKind::Lit:
        case NodeKind::ParamExp:
        case NodeKind::CmdSubst:
        case NodeKind::ArithSubst:
        case NodeKind::DblQuoted: break;
        default: return false;
        }
    }
    // Every expansion in a subscript: no ArithWord leaf.
    std::vector<const ArithExpr*> todo{expr};
    while (!todo.empty()) {
        const ArithExpr* e = todo.back();
        todo.pop_back();
        if (e == nullptr) continue;
        switch (e->kind) {
        case NodeKind::ArithWord:
        case NodeKind::ArithError: return false;
        case NodeKind::ArithParen: todo.push_back(e->as<ArithParen>()->inner); break;
        case NodeKind::ArithLookahead: todo.push_back(e->as<ArithLookahead>()->operand); break;
        case NodeKind::ArithUnary: todo.push_back(e->as<ArithUnary>()->operand); break;
        case NodeKind::ArithPostfix: todo.push_back(e->as<ArithPostfix>()->operand); break;
        case NodeKind::ArithBinary:
            todo.push_back(e->as<ArithBinary>()->left);
            todo.push_back(e->as<ArithBinary>()->right);
            break;
        case NodeKind::ArithAssign:
            todo.push_back(e->as<ArithAssign>()->target);
            todo.push_back(e->as<ArithAssign>()->value);
            break;
        case NodeKind::ArithTernary:
            todo.push_back(e->as<ArithTernary>()->cond);
            todo.push_back(e->as<ArithTernary>()->then_expr);
            todo.push_back(e->as<ArithTernary>()->else_expr);
            break;
        default: break;
        }
    }
    return true;
}

ArithExpr* parse_arith(std::string_view text, Arena& arena, Pos origin) {
    std::string_view src = arena.str(text);
    ParseOptions opt;
    detail::Parser p(arena, src, opt, origin, 0);
    ArithExpr* e = p.parse_arith_text();
    return p.failed() ? nullptr : e;
}

ArithText parse_arith_expression(std::string_view text, Arena& arena, uint32_t nest, uint32_t max_nest, Pos origin) {
    ArithText out;
    text = arith_lex::until_nul(text);
    size_t p = 0;
    while (p < text.size() && arith_lex::is_space(text[p])) ++p;
    if (p == text.size()) return out;
    detail::ArithParser ap(arena, text, origin, nest, max_nest);
    out.expr = ap.run();
    out.has_error = ap.failed();
    out.deepest = ap.deepest();
    return out;
}

Word* parse_word(std::string_view text, Arena& arena, Pos origin) {
    std::string_view src = arena.str(text);
    ParseOptions opt;
    detail::Parser p(arena, src, opt, origin, 0);
    Word* w = p.parse_word_text();
    return p.failed() ? nullptr : w;
}

Word* parse_expanding_text(std::string_view text, Arena& arena) {
    std::string_view src = arena.str(text);
    ParseOptions opt;
    detail::Parser p(arena, src, opt, {1, 1}, 0);
    Word* w = p.parse_body_text();
    return p.failed() ? nullptr : w;
}

}  // namespace bashkit::syntax
