// Arithmetic: a tokenizer over the parts of the raw word (literal text and expansions) and a
// precedence-climbing parser with bash's precedence and associativity.
#include <cstring>
#include <vector>

#include "interp/syntax/parser_impl.hpp"

namespace bashkit::syntax {
namespace detail {
namespace {

bool arith_name_start(int c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool arith_name_char(int c) { return arith_name_start(c) || (c >= '0' && c <= '9'); }
bool arith_is_digit(int c) { return c >= '0' && c <= '9'; }

enum class AT : uint8_t { End, Leaf, Op, Bad };

struct ATok {
    AT kind = AT::End;
    Pos pos;
    std::string_view op;      // for Op
    uint32_t spi = 0, sci = 0;  // where the token starts
    uint32_t off = 0;           // its byte offset in the text
    ArithOp bin = ArithOp::Comma;  // for Op: the binary operator it spells, if prec > 0
    int prec = 0;                  // its precedence (ast.hpp: arith_precedence), 0 if not a binary operator
    ArithExpr* leaf = nullptr;  // for Leaf
};

constexpr std::string_view kOps[] = {"<<=", ">>=", "**", "++", "--", "<=", ">=", "==", "!=", "&&", "||", "<<",
                                     ">>",  "+=",  "-=", "*=", "/=", "%=", "&=", "^=", "|=", "+",  "-",  "*",
                                     "/",   "%",   "<",  ">",  "=",  "!",  "~",  "&",  "^",  "|",  "?",  ":",
                                     ",",   "(",   ")"};

class ArithParser {
public:
    ArithParser(Parser& p, const List<Node*>& parts) : P(p), A(p.a_), parts_(parts) {
        if (parts_.size) pos_ = parts_[0]->pos;
    }

    ArithExpr* parse_all() {
        skip_ws();
        if (cur() == -1) return nullptr;  // empty: the interpreter treats it as 0
        advance_tok();
        ArithExpr* e = comma();
        if (!e || bad_ || tok_.kind != AT::End) return nullptr;
        return e;
    }

private:
    Parser& P;
    Arena& A;
    const List<Node*>& parts_;
    uint32_t pi_ = 0, ci_ = 0;
    Pos pos_{1, 1};
    uint32_t off_ = 0;       // byte offset of (pi_, ci_) in the text
    uint32_t prev_end_ = 0;  // where the token before the current one ends
    ATok tok_;
    bool bad_ = false;

    // -2: a non-literal part; -1: end
    int cur() const {
        if (pi_ >= parts_.size) return -1;
        const Node* n = parts_[pi_];
        if (!n->is<Lit>()) return -2;
        return static_cast<unsigned char>(n->as<Lit>()->text[ci_]);
    }
    std::string_view rest() const {
        if (pi_ >= parts_.size || !parts_[pi_]->is<Lit>()) return {};
        return parts_[pi_]->as<Lit>()->text.substr(ci_);
    }
    void step() {
        if (pi_ >= parts_.size) return;
        const Node* n = parts_[pi_];
        if (n->is<Lit>()) {
            std::string_view t = n->as<Lit>()->text;
            ++off_;
            if (t[ci_] == '\n') {
                pos_.line++;
                pos_.col = 1;
            } else {
                pos_.col++;
            }
            if (++ci_ < t.size()) return;
        } else if (pi_ + 1 < parts_.size && parts_[pi_ + 1]->pos.line == n->pos.line &&
                   parts_[pi_ + 1]->pos.col > n->pos.col) {
            // An expansion's source bytes: up to the next part when both are on one line (parts are
            // contiguous); an expansion over several lines or at the end counts none.
            off_ += parts_[pi_ + 1]->pos.col - n->pos.col;
        }
        ++pi_;
        ci_ = 0;
        if (pi_ < parts_.size) pos_ = parts_[pi_]->pos;
    }
    void skip_ws() {
        for (int c = cur(); c == ' ' || c == '\t' || c == '\n' || c == '\r'; c = cur()) step();
    }

    // A node of the tree spanning [begin, end) of the text.
    template <class T>
    T* make(Pos p, uint32_t begin, uint32_t end) {
        T* n = A.node<T>(p);
        n->begin = begin;
        n->end = end;
        return n;
    }

    Lit* slice_lit(uint32_t pi, uint32_t from, uint32_t to, Pos p) {
        Lit* l = A.node<Lit>(p);
        l->text = parts_[pi]->as<Lit>()->text.substr(from, to - from);
        return l;
    }

    // Collects a run of word characters and expansion parts into a leaf.
    ArithExpr* read_leaf() {
        Pos p = pos_;
        uint32_t begin = off_;
        Parts nodes;
        bool all_lit = true;
        bool digit_led = cur() >= 0 && arith_is_digit(cur());
        std::string_view first_text;
        uint32_t lit_pi = pi_, lit_from = ci_;
        Pos lit_pos = pos_;
        bool in_lit = false;
        auto close_lit = [&]() {
            if (in_lit) {
                nodes.push_back(slice_lit(lit_pi, lit_from, ci_ == 0 && pi_ != lit_pi
                                                                ? static_cast<uint32_t>(parts_[lit_pi]->as<Lit>()->text.size())
                                                                : ci_,
                                          lit_pos));
                in_lit = false;
            }
        };
        for (;;) {
            int c = cur();
            if (c == -2) {
                close_lit();
                all_lit = false;
                nodes.push_back(parts_[pi_]);
                step();
                continue;
            }
            bool wc = c >= 0 && (arith_name_char(c) || (digit_led && (c == '#' || c == '@')));
            if (!wc) break;
            if (!in_lit) {
                in_lit = true;
                lit_pi = pi_;
                lit_from = ci_;
                lit_pos = pos_;
            }
            uint32_t before = pi_;
            step();
            if (pi_ != before) close_lit_at_end(nodes, in_lit, lit_pi, lit_from, lit_pos);
        }
        close_lit();
        if (nodes.empty()) return nullptr;
        if (all_lit && nodes.size() == 1) first_text = nodes[0]->as<Lit>()->text;
        if (all_lit && nodes.size() == 1 && digit_led) {
            ArithNum* n = make<ArithNum>(p, begin, off_);
            n->text = first_text;
            if (first_text.size() <= 18 && first_text[0] != '0') {
                int64_t v = 0;
                size_t i = 0;
                for (; i < first_text.size() && first_text[i] >= '0' && first_text[i] <= '9'; ++i)
                    v = v * 10 + (first_text[i] - '0');
                n->has_value = i == first_text.size();
                n->value = n->has_value ? v : 0;
            }
            return n;
        }
        if (all_lit && nodes.size() == 1) {
            for (char ch : first_text)
                if (!arith_name_char(static_cast<unsigned char>(ch))) return nullptr;
            ArithVar* v = make<ArithVar>(p, begin, off_);
            v->name = first_text;
            skip_ws_inline();
            if (cur() == '[') {
                step();
                Pos ip = pos_;
                Parts idx;
                int depth = 0;
                bool in = false;
                uint32_t ipi = 0, ifrom = 0;
                Pos ipos;
                for (;;) {
                    int c = cur();
                    if (c == -1) return nullptr;
                    if (c == -2) {
                        if (in) {
                            idx.push_back(slice_lit(ipi, ifrom, static_cast<uint32_t>(parts_[ipi]->as<Lit>()->text.size()), ipos));
                            in = false;
                        }
                        idx.push_back(parts_[pi_]);
                        step();
                        continue;
                    }
                    if (c == '[') ++depth;
                    if (c == ']' && depth-- == 0) {
                        if (in) idx.push_back(slice_lit(ipi, ifrom, ci_, ipos));
                        step();
                        break;
                    }
                    if (!in) {
                        in = true;
                        ipi = pi_;
                        ifrom = ci_;
                        ipos = pos_;
                    }
                    uint32_t before = pi_;
                    step();
                    if (pi_ != before && in) {
                        idx.push_back(slice_lit(ipi, ifrom, static_cast<uint32_t>(parts_[ipi]->as<Lit>()->text.size()), ipos));
                        in = false;
                    }
                }
                Word* w = A.node<Word>(ip);
                w->parts = A.list<Node*>(idx);
                v->index = w;
                v->end = off_;
            }
            return v;
        }
        ArithWord* aw = make<ArithWord>(p, begin, off_);
        Word* w = A.node<Word>(p);
        w->parts = A.list<Node*>(nodes);
        aw->word = w;
        return aw;
    }
    void close_lit_at_end(Parts& nodes, bool& in_lit, uint32_t lit_pi, uint32_t lit_from, Pos lit_pos) {
        if (!in_lit) return;
        nodes.push_back(slice_lit(lit_pi, lit_from, static_cast<uint32_t>(parts_[lit_pi]->as<Lit>()->text.size()), lit_pos));
        in_lit = false;
    }
    // bash allows blanks between a name and its subscript? No: only directly adjacent.
    void skip_ws_inline() {}

    void advance_tok() {
        prev_end_ = off_;
        skip_ws();
        tok_ = ATok{};
        tok_.pos = pos_;
        tok_.off = off_;
        tok_.spi = pi_;
        tok_.sci = ci_;
        int c = cur();
        if (c == -1) {
            tok_.kind = AT::End;
            return;
        }
        if (c == -2 || arith_name_char(c)) {
            tok_.leaf = read_leaf();
            tok_.kind = tok_.leaf ? AT::Leaf : AT::Bad;
            return;
        }
        std::string_view r = rest();
        for (auto op : kOps) {
            if (r.substr(0, op.size()) == op) {
                tok_.kind = AT::Op;
                tok_.op = op;
                classify_op();
                for (size_t i = 0; i < op.size(); ++i) step();
                return;
            }
        }
        tok_.kind = AT::Bad;
        step();
    }
    bool is_op(std::string_view o) const { return tok_.kind == AT::Op && tok_.op == o; }
    // Splits a "++"/"--" token into its first character (the second is re-read as a token).
    void split_double() {
        tok_.op = tok_.op.substr(0, 1);
        classify_op();
        pi_ = tok_.spi;
        ci_ = tok_.sci + 1;
        pos_ = tok_.pos;
        pos_.col++;
        off_ = tok_.off + 1;
    }

    ArithExpr* fail() {
        bad_ = true;
        return nullptr;
    }

    ArithExpr* comma() {
        ArithExpr* l = assign();
        while (l && is_op(",")) {
            Pos p = tok_.pos;
            advance_tok();
            ArithExpr* r = assign();
            if (!r) return nullptr;
            ArithBinary* b = make<ArithBinary>(p, l->begin, r->end);
            b->op = ArithOp::Comma;
            b->left = l;
            b->right = r;
            b->pos = l->pos;
            l = b;
        }
        return l;
    }

    ArithExpr* assign() {
        Parser::Depth d(P, tok_.pos);
        if (!d.ok) return fail();
        ArithExpr* l = ternary();
        if (!l || tok_.kind != AT::Op) return l;
        static constexpr std::pair<std::string_view, ArithOp> ops[] = {
            {"=", ArithOp::AssignEq}, {"+=", ArithOp::AddEq},  {"-=", ArithOp::SubEq},  {"*=", ArithOp::MulEq},
            {"/=", ArithOp::DivEq},   {"%=", ArithOp::ModEq},  {"<<=", ArithOp::ShlEq}, {">>=", ArithOp::ShrEq},
            {"&=", ArithOp::AndEq},   {"^=", ArithOp::XorEq},  {"|=", ArithOp::OrEq}};
        for (auto& [s, op] : ops) {
            if (tok_.op != s) continue;
            advance_tok();
            ArithExpr* r = assign();
            if (!r) return nullptr;
            ArithAssign* a = make<ArithAssign>(l->pos, l->begin, r->end);
            a->op = op;
            a->target = l;
            a->value = r;
            return a;
        }
        return l;
    }

    ArithExpr* ternary() {
        ArithExpr* c = binary(arith_precedence(ArithOp::LogOr));
        if (!c || !is_op("?")) return c;
        Parser::Depth d(P, tok_.pos);
        if (!d.ok) return fail();
        advance_tok();
        ArithExpr* t = comma();
        if (!t || !is_op(":")) return fail();
        advance_tok();
        ArithExpr* e = ternary();
        if (!e) return nullptr;
        ArithTernary* n = make<ArithTernary>(c->pos, c->begin, e->end);
        n->cond = c;
        n->then_expr = t;
        n->else_expr = e;
        return n;
    }

    // Which binary operator the current Op token spells, looked up once in the operator table (ast.hpp).
    void classify_op() {
        tok_.prec = 0;
        for (int o = static_cast<int>(ArithOp::LogOr); o <= static_cast<int>(ArithOp::Pow); ++o) {
            auto candidate = static_cast<ArithOp>(o);
            if (arith_op_text(candidate) == tok_.op) {
                tok_.bin = candidate;
                tok_.prec = arith_precedence(candidate);
                return;
            }
        }
    }
    bool binop_at(int prec, ArithOp& op) const {
        if (tok_.kind != AT::Op || tok_.prec != prec) return false;
        op = tok_.bin;
        return true;
    }

    // The binary operators of precedence `prec` and above, left associative (** is power()).
    ArithExpr* binary(int prec) {
        if (prec >= arith_precedence(ArithOp::Pow)) return power();
        ArithExpr* l = binary(prec + 1);
        for (;;) {
            if (!l) return nullptr;
            ArithOp op;
            // "1--2" and "1++2": after a number the pair is a binary operator and a unary sign
            if (prec == arith_precedence(ArithOp::Add) && tok_.kind == AT::Op && (tok_.op == "++" || tok_.op == "--"))
                split_double();
            if (!binop_at(prec, op)) return l;
            advance_tok();
            ArithExpr* r = binary(prec + 1);
            if (!r) return nullptr;
            ArithBinary* b = make<ArithBinary>(l->pos, l->begin, r->end);
            b->op = op;
            b->left = l;
            b->right = r;
            l = b;
        }
    }

    ArithExpr* power() {
        ArithExpr* l = unary();
        if (!l || !is_op("**")) return l;
        Parser::Depth d(P, tok_.pos);
        if (!d.ok) return fail();
        advance_tok();
        ArithExpr* r = power();
        if (!r) return nullptr;
        ArithBinary* b = make<ArithBinary>(l->pos, l->begin, r->end);
        b->op = ArithOp::Pow;
        b->left = l;
        b->right = r;
        return b;
    }

    // Is the next thing after the current token a variable (for prefix ++/--)?
    bool next_is_operand_name() {
        uint32_t spi = pi_, sci = ci_, soff = off_;
        Pos sp = pos_;
        skip_ws();
        int c = cur();
        bool yes = c == -2 || (c >= 0 && arith_name_start(c));
        pi_ = spi;
        ci_ = sci;
        pos_ = sp;
        off_ = soff;
        return yes;
    }

    ArithExpr* unary() {
        Parser::Depth d(P, tok_.pos);
        if (!d.ok) return fail();
        if (tok_.kind == AT::Op) {
            Pos p = tok_.pos;
            uint32_t begin = tok_.off;
            ArithOp op;
            bool is_unary = true;
            if (tok_.op == "++" || tok_.op == "--") {
                if (next_is_operand_name()) {
                    op = tok_.op == "++" ? ArithOp::PreInc : ArithOp::PreDec;
                } else {
                    split_double();
                    op = tok_.op == "+" ? ArithOp::Plus : ArithOp::Minus;
                }
            } else if (tok_.op == "+") {
                op = ArithOp::Plus;
            } else if (tok_.op == "-") {
                op = ArithOp::Minus;
            } else if (tok_.op == "!") {
                op = ArithOp::Not;
            } else if (tok_.op == "~") {
                op = ArithOp::BitNot;
            } else {
                is_unary = false;
                op = ArithOp::Plus;
            }
            if (is_unary) {
                advance_tok();
                ArithExpr* e = unary();
                if (!e) return nullptr;
                ArithUnary* u = make<ArithUnary>(p, begin, e->end);
                u->op = op;
                u->operand = e;
                return u;
            }
        }
        return postfix();
    }

    ArithExpr* postfix() {
        ArithExpr* e = primary();
        if (!e) return nullptr;
        if (tok_.kind == AT::Op && (tok_.op == "++" || tok_.op == "--") &&
            (e->is<ArithVar>() || e->is<ArithWord>())) {
            ArithPostfix* pf = make<ArithPostfix>(e->pos, e->begin, e->end);
            pf->op = tok_.op == "++" ? ArithOp::PostInc : ArithOp::PostDec;
            pf->operand = e;
            advance_tok();
            pf->end = prev_end_;
            return pf;
        }
        return e;
    }

    ArithExpr* primary() {
        if (tok_.kind == AT::Leaf) {
            ArithExpr* e = tok_.leaf;
            advance_tok();
            return e;
        }
        if (is_op("(")) {
            Pos p = tok_.pos;
            uint32_t begin = tok_.off;
            advance_tok();
            ArithExpr* e = comma();
            if (!e || !is_op(")")) return fail();
            advance_tok();
            ArithParen* pe = make<ArithParen>(p, begin, prev_end_);
            pe->inner = e;
            return pe;
        }
        return fail();
    }
};

}  // namespace

ArithExpr* Parser::arith_from_word(Word* raw) {
    if (!raw || failed()) return nullptr;
    ArithParser ap(*this, raw->parts);
    ArithExpr* e = ap.parse_all();
    return failed() ? nullptr : e;
}

ArithExpr* Parser::parse_arith_text() {
    Word* raw = nullptr;
    if (!read_arith_raw(ArithEnd::Whole, lx_.pos(), raw) || failed()) return nullptr;
    return arith_from_word(raw);
}

}  // namespace detail

ArithExpr* parse_arith(std::string_view text, Arena& arena, Pos origin) {
    std::string_view src = arena.str(text);
    ParseOptions opt;
    detail::Parser p(arena, src, opt, origin, 0);
    ArithExpr* e = p.parse_arith_text();
    return p.failed() ? nullptr : e;
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
