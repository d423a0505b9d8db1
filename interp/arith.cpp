// Bash's arithmetic over a parsed tree (syntax::ArithExpr, from syntax/arith_parser.cpp): $(( )), (( )),
// for (( )), let, array subscripts, the values of variables used as operands. Text is parsed by the one
// parser, then evaluated here. See arith.hpp for the contract.
// All arithmetic is done on uint64_t and converted back, so overflow wraps and never is undefined behaviour.
#include "interp/arith.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <memory>
#include <memory_resource>
#include <optional>
#include <vector>

#include "interp/arith_impl.hpp"
#include "interp/syntax/parser.hpp"
#include "interp/syntax/printer.hpp"

namespace bashkit::interp {
namespace {

using namespace arith_detail;

// ---------------------------------------------------------------- the tree evaluator

// Where the parts of a script's arithmetic word stand in the text of its messages: part by part, the
// offset the tree counts (syntax::arith_part_span) and the offset in the text, and the part's length there.
struct Piece {
    uint32_t from;
    uint32_t at;
    uint32_t len;
    bool literal;
};

// The text messages quote for a tree whose raw word holds expansions (in subscripts): the literals, and each
// expansion printed back as written (as the interpreter's expansion of the raw text leaves a subscript).
std::string word_source(const syntax::Word& w, std::vector<Piece>& pieces) {
    std::string out;
    uint32_t from = 0;
    for (uint32_t i = 0; i < w.parts.size; ++i) {
        const syntax::Node* n = w.parts[i];
        std::string printed;
        std::string_view text;
        if (n->is<syntax::Lit>()) {
            text = n->as<syntax::Lit>()->text;
        } else {
            syntax::Node* one[] = {const_cast<syntax::Node*>(n)};
            syntax::Word word;
            word.parts = {one, 1};
            printed = syntax::print(word);
            text = printed;
        }
        pieces.push_back(Piece{from, static_cast<uint32_t>(out.size()), static_cast<uint32_t>(text.size()),
                               n->is<syntax::Lit>()});
        out += text;
        from += syntax::arith_part_span(w.parts, i);
    }
    return out;
}

// Where an error blames the text: offsets from the parser (ArithExpr::begin/end) into the source, through
// `pieces` when the tree counts them in a raw word with expansions.
class Blame {
public:
    explicit Blame(std::string_view text, const std::vector<Piece>* pieces = nullptr)
        : text_(until_nul(text)), pieces_(pieces) {}
    std::string_view text() const { return text_; }
    // The text's offset for the tree's offset p.
    size_t at(size_t p) const { return clamp(p); }

    // Where the operand starts (its leftmost token).
    size_t start(const syntax::ArithExpr& e) const { return clamp(e.begin); }
    // Where the operand ends.
    size_t end(const syntax::ArithExpr& e) const { return clamp(e.end); }
    // Where bash's last token would be after reading the operand and its look-ahead: the token after it, or
    // its own last token at the end of the text.
    size_t after(const syntax::ArithExpr& e) const {
        size_t q = end(e);
        while (q < text_.size() && is_space(text_[q])) ++q;
        return q < text_.size() ? q : last_token(e);
    }

private:
    size_t clamp(size_t p) const { return std::min(map(p), text_.size()); }
    size_t map(size_t p) const {
        if (pieces_ == nullptr || pieces_->empty()) return p;
        auto it = std::upper_bound(pieces_->begin(), pieces_->end(), p,
                                   [](size_t v, const Piece& x) { return v < x.from; });
        if (it == pieces_->begin()) return p;
        --it;
        size_t d = p - it->from;
        return it->at + (it->literal ? d : std::min<size_t>(d, it->len));
    }
    size_t last_token(const syntax::ArithExpr& e) const {
        switch (e.kind) {
        case NodeKind::ArithParen: return end(e) == 0 ? 0 : end(e) - 1;
        case NodeKind::ArithPostfix: return end(e) < 2 ? 0 : end(e) - 2;
        case NodeKind::ArithUnary: return last_token(*e.as<syntax::ArithUnary>()->operand);
        case NodeKind::ArithBinary: return last_token(*e.as<syntax::ArithBinary>()->right);
        case NodeKind::ArithAssign: return last_token(*e.as<syntax::ArithAssign>()->value);
        case NodeKind::ArithTernary: return last_token(*e.as<syntax::ArithTernary>()->else_expr);
        case NodeKind::ArithLookahead: return last_token(*e.as<syntax::ArithLookahead>()->operand);
        default: return start(e);
        }
    }

    std::string_view text_;
    const std::vector<Piece>* pieces_;
};

// A stack of nodes that lives in place while short (the usual chain is a few operators long).
template <class T>
class SmallStack {
public:
    void push(T v) {
        if (n_ < inline_.size()) {
            inline_[n_++] = v;
            return;
        }
        if (heap_.empty()) heap_.assign(inline_.begin(), inline_.end());
        heap_.push_back(v);
        ++n_;
    }
    size_t size() const { return n_; }
    T operator[](size_t i) const { return n_ <= inline_.size() ? inline_[i] : heap_[i]; }

private:
    // Not value-initialized: only the first n_ entries are ever read. Zeroing it (a `rep stos` of 128 bytes
    // in every chain() and power() frame) was a tenth of an arithmetic loop's time.
    std::array<T, 16> inline_;
    std::vector<T> heap_;
    size_t n_ = 0;
};

class TreeEval {
public:
    // source: the text the tree was parsed from (messages quote it at the nodes' offsets); source_word: the raw
    // word instead, when it holds expansions (its text is printed when a message needs it).
    TreeEval(Ctx& c, std::string_view source, const syntax::Word* source_word = nullptr)
        : source_word_(source_word), c_(c), source_(source), base_nest_(c.nest) {}

    bool run(const syntax::ArithExpr& root, int64_t& out, ArithError& err) {
        int64_t v = ev(root);
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
        Blame map = blame();
        size_t p = where == Where::Start ? map.start(at) : map.after(at);
        return fail_at(msg, p);
    }
    // Records an error whose token starts at byte p.
    int64_t fail_at(std::string_view msg, size_t p) {
        if (err_) return 0;
        Blame map = blame();
        err_ = expr_error(map.text(), msg, map.text().substr(std::min(p, map.text().size())));
        return 0;
    }

    int64_t number(const syntax::ArithNum& n) {
        // The parser converted the constant; one that does not convert is reported when it is reached.
        if (n.has_value) return n.value;
        int64_t v = 0;
        if (const char* msg = convert_number(n.text, v)) {
            Blame map = blame();
            size_t s = map.start(n);
            size_t e = std::max(map.end(n), s);
            err_ = expr_error(map.text().substr(0, e), msg, map.text().substr(s, e - s));
            return 0;
        }
        return v;
    }

    void var_ref(const syntax::ArithVar& v, ArithRef& ref) {
        ref.name = v.name;
        ref.index_word = v.index;
        ref.index_text = v.index_text;
        ref.has_index = v.has_index;
        ref.depth = ArithDepth{c_.depth, base_nest_ + v.nest};
    }

    // The variable an operand names: an ArithVar, or an ArithWord that expands to `name` or `name[sub]`.
    bool reference(const syntax::ArithExpr& e, ArithRef& ref, std::string& storage, const char* not_variable,
                   const syntax::ArithExpr& blame) {
        ref = ArithRef{};
        ref.depth = ArithDepth{c_.depth, c_.nest};
        if (const auto* v = e.try_as<syntax::ArithVar>()) {
            var_ref(*v, ref);
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

    // Reads a variable operand. Its value (an expression) is evaluated at the nesting in effect where the
    // parser read the name.
    int64_t read(ArithRef& ref, const syntax::ArithExpr& at, bool peeked = false) {
        int64_t v = 0;
        uint32_t saved = c_.nest;
        c_.nest = ref.depth.nesting;
        Status s = read_operand(c_, ref, v, err_, peeked);
        c_.nest = saved;
        if (s == Status::TooDeep) return fail("expression recursion level exceeded", at, Where::Start);
        return v;
    }

    bool write(ArithRef& ref, int64_t v) { return write_operand(c_, ref, v, err_); }

    // A variable operand's value (0 where evaluation is off, or where bash leaves the name unread).
    int64_t variable(const syntax::ArithVar& v) {
        if (c_.noeval > 0 || v.unread) return 0;
        // lookup()'s first step before a reference is built.
        int64_t n = 0;
        if (!v.has_index && peek_number(c_, v.name, n)) return n;
        ArithRef ref;
        var_ref(v, ref);
        return read(ref, v, !v.has_index);
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
        const auto* var = operand.try_as<syntax::ArithVar>();
        bool quick = var != nullptr && c_.noeval == 0 && c_.depth < c_.max_depth;
        if (quick && !var->has_index) {
            int64_t old = 0;
            switch (c_.host.step(var->name, increment ? 1 : -1, old)) {
            case ArithHost::Step::Done: return prefix ? add(old, increment ? 1 : -1) : old;
            case ArithHost::Step::Failed: err_ = ArithError{ArithError::Kind::Host, {}}; return 0;
            case ArithHost::Step::Declined: break;
            }
        }
        ArithRef ref;
        bool referenced = false;
        if (quick && var->has_index) {
            // The reference is kept for the get()/set() path, its subscript resolved once.
            var_ref(*var, ref);
            referenced = true;
            int64_t old = 0;
            auto r = c_.host.step_element(ref, increment ? 1 : -1, old);
            if (!r) {
                err_ = std::move(r.error());
                return 0;
            }
            switch (*r) {
            case ArithHost::Step::Done: return prefix ? add(old, increment ? 1 : -1) : old;
            case ArithHost::Step::Failed: err_ = ArithError{ArithError::Kind::Host, {}}; return 0;
            case ArithHost::Step::Declined: break;
            }
        }
        std::string storage;
        const char* msg = prefix ? "identifier expected after pre-increment or pre-decrement"
                                 : "syntax error: operand expected";
        if (!referenced && !reference(operand, ref, storage, msg, prefix ? e : operand)) return 0;
        int64_t old = read(ref, operand);
        if (err_) return 0;
        int64_t v = increment ? add(old, 1) : sub(old, 1);
        if (!write(ref, v)) return 0;
        return prefix ? v : old;
    }

    // Bounds the recursion over the tree. The parser bounds the nesting as bash's evaluator counts it; a
    // tree has at most a few levels per unit of that (a parenthesis under a chain of operators of rising
    // precedence), so this only guards the stack.
    class Recursion {
    public:
        explicit Recursion(TreeEval& t) : t_(t) { ok = ++t_.rec_ <= 16 * t_.c_.max_depth + 64; }
        ~Recursion() { --t_.rec_; }
        Recursion(const Recursion&) = delete;
        Recursion& operator=(const Recursion&) = delete;
        bool ok;

    private:
        TreeEval& t_;
    };

    int64_t ev(const syntax::ArithExpr& e) {
        Recursion guard(*this);
        if (!guard.ok) return fail("expression recursion level exceeded", e, Where::Start);
        switch (e.kind) {
        case NodeKind::ArithNum: return number(*e.as<syntax::ArithNum>());
        case NodeKind::ArithVar: return variable(*e.as<syntax::ArithVar>());
        case NodeKind::ArithWord: return word(*e.as<syntax::ArithWord>());
        case NodeKind::ArithParen: {
            const auto* p = e.as<syntax::ArithParen>();
            return p->inner == nullptr ? 0 : ev(*p->inner);
        }
        case NodeKind::ArithUnary: {
            const auto* un = e.as<syntax::ArithUnary>();
            if (un->operand == nullptr) return 0;
            if (un->op == ArithOp::PreInc || un->op == ArithOp::PreDec) {
                if (un->operand->is<syntax::ArithError>()) return ev(*un->operand);
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
        case NodeKind::ArithBinary: {
            const auto* b = e.as<syntax::ArithBinary>();
            return b->op == ArithOp::Pow ? power(*b) : chain(*b);
        }
        case NodeKind::ArithAssign: return assignment(*e.as<syntax::ArithAssign>());
        case NodeKind::ArithTernary: {
            const auto* t = e.as<syntax::ArithTernary>();
            if (t->cond == nullptr || t->then_expr == nullptr || t->else_expr == nullptr) return 0;
            int64_t c = ev(*t->cond);
            if (err_) return 0;
            // Both branches are evaluated, the untaken one without effects (bash reports its errors).
            if (c == 0) ++c_.noeval;
            int64_t a = ev(*t->then_expr);
            if (c == 0) --c_.noeval;
            if (err_) return 0;
            if (c != 0) ++c_.noeval;
            int64_t b = ev(*t->else_expr);
            if (c != 0) --c_.noeval;
            if (err_) return 0;
            return c != 0 ? a : b;
        }
        case NodeKind::ArithError: {
            const auto* x = e.as<syntax::ArithError>();
            if (x->before != nullptr) ev(*x->before);
            if (!err_) err_ = ArithError{Kind::Expression, std::string(x->message)};
            return 0;
        }
        case NodeKind::ArithLookahead: {
            const auto* l = e.as<syntax::ArithLookahead>();
            int64_t v = l->operand == nullptr ? 0 : ev(*l->operand);
            if (err_) return 0;
            if (l->next != nullptr) variable(*l->next);
            return err_ ? 0 : v;
        }
        default: return 0;
        }
    }

    // A binary operator whose left operand is `l`: evaluates the right one and applies it.
    int64_t apply_binary(const syntax::ArithBinary& b, int64_t l) {
        if (b.right == nullptr) return 0;
        switch (b.op) {
        case ArithOp::Comma: return ev(*b.right);
        case ArithOp::LogOr:
        case ArithOp::LogAnd: {
            bool skip = b.op == ArithOp::LogOr ? l != 0 : l == 0;
            if (skip) ++c_.noeval;
            int64_t r = ev(*b.right);
            if (skip) --c_.noeval;
            if (err_) return 0;
            return apply(b.op, l, r);
        }
        case ArithOp::Div:
        case ArithOp::Mod: {
            int64_t r = ev(*b.right);
            if (err_) return 0;
            if (r == 0) {
                if (c_.noeval == 0) {
                    // bash blames the text after the operator, blanks (not newlines) skipped.
                    Blame map = blame();
                    size_t q = map.at(b.op_end);
                    std::string_view t = map.text();
                    while (q < t.size() && is_blank(t[q])) ++q;
                    return fail_at("division by 0", q);
                }
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

    // A left-associative chain (1+2+3...: the tree leans left), evaluated from its leftmost operand without
    // recursion.
    int64_t chain(const syntax::ArithBinary& top) {
        SmallStack<const syntax::ArithBinary*> spine;
        const syntax::ArithExpr* e = &top;
        while (e != nullptr && e->is<syntax::ArithBinary>() && e->as<syntax::ArithBinary>()->op != ArithOp::Pow) {
            spine.push(e->as<syntax::ArithBinary>());
            e = e->as<syntax::ArithBinary>()->left;
        }
        if (e == nullptr) return 0;
        int64_t v = ev(*e);
        for (size_t i = spine.size(); i-- > 0;) {
            if (err_) return 0;
            v = apply_binary(*spine[i], v);
        }
        return err_ ? 0 : v;
    }

    // a ** b ** c (right-associative: the tree leans right): the operands from left to right, then the powers
    // from the right, without recursion.
    int64_t power(const syntax::ArithBinary& top) {
        SmallStack<const syntax::ArithBinary*> spine;
        SmallStack<int64_t> values;
        const syntax::ArithExpr* e = &top;
        while (e != nullptr && e->is<syntax::ArithBinary>() && e->as<syntax::ArithBinary>()->op == ArithOp::Pow) {
            const auto* b = e->as<syntax::ArithBinary>();
            if (b->left == nullptr) return 0;
            spine.push(b);
            values.push(ev(*b->left));
            if (err_) return 0;
            e = b->right;
        }
        if (e == nullptr) return 0;
        int64_t r = ev(*e);
        if (err_) return 0;
        for (size_t i = spine.size(); i-- > 0;) {
            if (r < 0) return fail("exponent less than 0", *spine[i]->right, Where::After);
            r = r == 0 ? 1 : arith_detail::power(values[i], r);
        }
        return r;
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

    Blame blame() {
        if (source_word_ == nullptr) return Blame(source_);
        return printed_blame();
    }
    [[gnu::noinline]] Blame printed_blame() {
        if (!printed_) {
            printed_ = std::make_unique<Printed>();
            printed_->text = word_source(*source_word_, printed_->pieces);
        }
        return Blame(printed_->text, &printed_->pieces);
    }

    // source_word_ first, apart from source_: copied next to each other from ArithOptions, the two made one
    // 16-byte load across the caller's two 8-byte stores just before (a failed store forward: 54% of eval()'s
    // samples in the arithmetic loop).
    const syntax::Word* source_word_;
    Ctx& c_;
    std::string_view source_;
    struct Printed {
        std::string text;
        std::vector<Piece> pieces;
    };
    std::unique_ptr<Printed> printed_;  // source_word_'s text, once a message needed it
    uint32_t base_nest_;
    uint32_t rec_ = 0;
    std::optional<ArithError> err_;
};

}  // namespace

// A text's tree, parsed in its own arena from its own copy of the text.
struct CachedTree {
    syntax::Arena arena;
    std::string_view text;
    const syntax::ArithExpr* expr = nullptr;
    uint32_t deepest = 0;
};

class ArithCache {
public:
    // Two ways in each of 64 sets, the least recently used way replaced: a loop that cycles through a hundred
    // texts (`((c[k$((i%100))]++))`, expanded before it is parsed) keeps most of them, where 32 direct-mapped
    // slots parsed every one again. Bounded without accounting: 128 trees of texts of at most 256 bytes (a
    // kilobyte each for the usual short text, at most about ten for the longest).
    static constexpr size_t kSets = 128;
    static constexpr size_t kWays = 2;
    static constexpr size_t kMaxText = 256;

    // The tree of `text` to evaluate at nesting `nest`; null when the text is not kept (too long, or its parse
    // has an error, or it would reach the nesting bound from here). The caller holds the tree while it
    // evaluates: an evaluation inside may replace the entry.
    std::shared_ptr<const CachedTree> find(std::string_view text, uint32_t nest, uint32_t max_nest) {
        if (text.size() > kMaxText) return nullptr;
        size_t h = std::hash<std::string_view>{}(text);
        Slot* set = &slots_[(h % kSets) * kWays];
        Slot* slot = nullptr;
        for (size_t w = 0; w < kWays; ++w)
            if (set[w].tree != nullptr && set[w].hash == h && set[w].tree->text == text) slot = &set[w];
        if (slot == nullptr) {
            slot = &set[0];
            for (size_t w = 1; w < kWays; ++w)
                if (set[w].used < slot->used) slot = &set[w];
            auto tree = std::make_shared<CachedTree>();
            tree->text = tree->arena.str(text);
            syntax::ArithText parsed = syntax::parse_arith_expression(tree->text, tree->arena, 0, UINT32_MAX);
            if (parsed.has_error || parsed.expr == nullptr) return nullptr;
            tree->expr = parsed.expr;
            tree->deepest = parsed.deepest;
            slot->hash = h;
            slot->tree = std::move(tree);
        }
        slot->used = ++tick_;
        // Parsed from nesting 0 without a bound: the same tree from `nest` unless the bound is reached.
        if (static_cast<uint64_t>(nest) + slot->tree->deepest > max_nest) return nullptr;
        return slot->tree;
    }

private:
    struct Slot {
        size_t hash = 0;
        uint64_t used = 0;  // tick_ at its last use (0: empty)
        std::shared_ptr<const CachedTree> tree;
    };
    std::array<Slot, kSets * kWays> slots_;
    uint64_t tick_ = 0;
};

std::shared_ptr<ArithCache> make_arith_cache() { return std::make_shared<ArithCache>(); }

namespace arith_detail {

// Memory from the heap charged to the session's budget (throws MemoryLimitExceeded past it).
class ChargedResource final : public std::pmr::memory_resource {
public:
    explicit ChargedResource(MemoryBudget* budget) : held_(budget) {}

private:
    void* do_allocate(size_t bytes, size_t align) override {
        held_.add(bytes);
        return std::pmr::new_delete_resource()->allocate(bytes, align);
    }
    void do_deallocate(void* p, size_t bytes, size_t align) override {
        std::pmr::new_delete_resource()->deallocate(p, bytes, align);
        held_.sub(bytes);
    }
    bool do_is_equal(const std::pmr::memory_resource& o) const noexcept override { return this == &o; }

    MemoryCharge held_;
};

// Opens an expression for `text` (a variable's value, an expansion, the top level): parses it, then
// evaluates the tree.
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
    std::shared_ptr<const CachedTree> cached;
    if (ArithCache* cache = c.host.cache()) cached = cache->find(text, c.nest, c.max_depth);
    // A tree parsed here lives in an arena on the heap, charged while it lives: not in this frame, which a
    // variable whose value is an expression opens again, level after level down to max_depth.
    std::optional<ChargedResource> charged;
    std::unique_ptr<syntax::Arena> arena;
    const syntax::ArithExpr* tree = nullptr;
    if (cached) {
        tree = cached->expr;
    } else {
        charged.emplace(c.host.memory());
        arena = std::make_unique<syntax::Arena>(&*charged);
        syntax::ArithText parsed = syntax::parse_arith_expression(text, *arena, c.nest, c.max_depth);
        tree = parsed.expr;
    }
    ++c.depth;
    TreeEval te(c, text);
    bool ok = te.run(*tree, out, err);
    --c.depth;
    return ok ? Status::Ok : Status::Error;
}

}  // namespace arith_detail

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

namespace {

// eval()'s error when no level of nesting is left (out of line: the common path stays small).
[[gnu::noinline]] ArithError too_deep(const ArithOptions& options) {
    std::vector<Piece> pieces;
    std::string text = options.source_word ? word_source(*options.source_word, pieces) : std::string(options.source);
    return expr_error(until_nul(text), "expression recursion level exceeded", "");
}

}  // namespace

ArithResult<int64_t> eval(const syntax::ArithExpr& expr, ArithHost& host, const ArithOptions& options) {
    Ctx c{host, options.max_depth, options.depth.exprs, options.depth.nesting};
    // Even one operand is a level of nesting.
    if (c.depth >= c.max_depth || c.nest >= c.max_depth) return too_deep(options);
    ++c.depth;
    TreeEval te(c, options.source, options.source_word);
    int64_t out = 0;
    ArithError err;
    if (!te.run(expr, out, err)) return err;
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
        case NodeKind::ArithError: todo.push_back(e->as<syntax::ArithError>()->before); break;
        case NodeKind::ArithLookahead: todo.push_back(e->as<syntax::ArithLookahead>()->operand); break;
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
