// The evaluator's side of arithmetic: variables for interp/arith through ArithHost.
#include <charconv>

#include "interp/arith.hpp"
#include "interp/arith_impl.hpp"
#include "interp/exec.hpp"
#include "interp/fields.hpp"
#include "interp/syntax/printer.hpp"

namespace bashkit::interp {

namespace {

class Host final : public ArithHost {
public:
    explicit Host(Exec& ex) : ex_(ex) {}

    ArithResult<std::optional<std::string>> get(ArithRef& ref) override {
        if (!ref.has_index) {
            const std::string* s = ex_.get_scalar(ref.name);
            if (!s) return std::optional<std::string>();
            return std::optional<std::string>(*s);
        }
        const Var* v = ex_.lookup(ref.name);
        if (auto r = resolve(ref, v); !r.ok()) return r.error();
        v = ex_.lookup(ref.name);  // the subscript's expansion or arithmetic may have changed the variables
        const std::string& k = *ref.resolved;
        if (v && v->is_assoc()) {
            const std::string* s = v->assoc ? v->assoc->get(k) : nullptr;
            return std::optional<std::string>(s ? *s : std::string());
        }
        int64_t i = 0;
        parse_int(k, i);
        // A negative subscript counts back from the end of an indexed array; before its start, or on a scalar
        // or an unset name, bash reports it and reads 0.
        if (i < 0) {
            i += v && v->is_indexed() && v->idx ? v->idx->next_index() : 0;
            if (i < 0) {
                ex_.report_error(std::string(ref.name) + ": bad array subscript");
                return std::optional<std::string>(std::string());
            }
        }
        if (!v) return std::optional<std::string>();
        if (v->is_indexed()) {
            if (!v->idx) return std::optional<std::string>(std::string());
            const std::string* s = v->idx->get(i);
            return std::optional<std::string>(s ? *s : std::string());
        }
        if (i == 0 && v->set) return std::optional<std::string>(v->str());
        return std::optional<std::string>(std::string());
    }

    bool peek_number(std::string_view name, int64_t& out) override {
        // What get_scalar() would read, for a variable without magic: dynamic variables (RANDOM counts its
        // reads), namerefs and arrays take the full path.
        const Var* v = ex_.state().vars.find(name);
        return v && v->plain() && v->number(out);
    }

    Step step(std::string_view name, int64_t delta, int64_t& old) override {
        // peek_number()'s test, then one assignment to the variable found: a loop's `i++` costs one lookup.
        Var* v = ex_.state().vars.find(name);
        if (!v || !v->plain() || !v->number(old)) return Step::Declined;
        int64_t value = arith_detail::add(old, delta);
        return ex_.assign_number(*v, name, value) ? Step::Done : Step::Failed;
    }

    ArithResult<void> set(ArithRef& ref, int64_t value) override {
        if (!ref.has_index) {
            if (!ex_.assign_number(ref.name, value)) return ArithError{ArithError::Kind::Host, {}};
            return {};
        }
        std::string val = to_dec(value);
        const Var* v = ex_.lookup(ref.name);
        if (auto r = resolve(ref, v); !r.ok()) return r.error();
        v = ex_.lookup(ref.name);
        bool assoc = v && v->is_assoc();
        std::string_view k = *ref.resolved;
        std::string counted;
        int64_t i = 0;
        if (!assoc && parse_int(k, i) && i < 0) {
            // Counted back from the end (a set scalar is an array of one); before the start, bash reports it
            // and the expression goes on without the assignment.
            i += v && v->is_indexed() ? (v->idx ? v->idx->next_index() : 0) : (v && v->set ? 1 : 0);
            if (i < 0) {
                ex_.report_error(std::string(ref.name) + "[" + ref.subscript + "]: bad array subscript");
                return {};
            }
            counted = to_dec(i);
            k = counted;
        }
        if (!ex_.assign_elem(ref.name, k, val, false, !assoc)) return ArithError{ArithError::Kind::Host, {}};
        return {};
    }

    ArithResult<Step> step_element(ArithRef& ref, int64_t delta, int64_t& old) override {
        if (auto r = resolve(ref, ex_.lookup(ref.name)); !r.ok()) return r.error();
        // An array without attributes or magic (readonly, -i and the case attributes, namerefs take set()).
        constexpr uint16_t kPlain = kAttrIndexed | kAttrAssoc | kAttrExport | kAttrTrace;
        Var* v = ex_.state().vars.find(ref.name);
        if (!v || !v->is_array() || v->dyn != DynVar::None || (v->attrs & ~kPlain) != 0) return Step::Declined;
        const std::string& k = *ref.resolved;
        std::string* slot = nullptr;
        if (v->is_assoc()) {
            if (!v->assoc) return Step::Declined;
            slot = v->assoc_mut().find(k);
        } else {
            int64_t i = 0;
            if (!v->idx || !parse_int(k, i) || i < 0) return Step::Declined;
            slot = v->idx_mut().find(i);
        }
        int64_t cur = 0;
        if (!slot || (!slot->empty() && !arith_detail::plain_decimal(*slot, cur))) return Step::Declined;
        int64_t value = arith_detail::add(cur, delta);
        const DecText text(value);
        const size_t n = text.len;
        // The limits of assign_elem (which reports them): the value's size, the bytes it adds.
        const ExecutionLimits& L = ex_.session().limits;
        if (n > L.max_variable_bytes) return Step::Declined;
        if (n > slot->size() && (L.max_total_variable_bytes || !ex_.state().vars.fits(n - slot->size())) &&
            !ex_.variable_bytes_fit(ref.name, n - slot->size()))
            return Step::Failed;
        ex_.state().vars.add_bytes(static_cast<int64_t>(n) - static_cast<int64_t>(slot->size()));
        slot->assign(text.view());
        old = cur;
        return Step::Done;
    }

    ArithResult<std::string> expand(const syntax::Word& word) override {
        std::string out;
        Outcome r = ex_.expand_word(&word, out, false);
        if (r != Outcome::Ok) {
            expand_failed = r;
            return ArithError{ArithError::Kind::Host, {}};
        }
        return out;
    }

    bool nounset() const override { return ex_.state().opts[OptNounset]; }

    ArithCache* cache() override { return ex_.arith_cache(); }
    MemoryBudget* memory() override { return &ex_.session().memory; }

    // An expansion inside the expression failed (its message is printed): the evaluation's outcome.
    Outcome expand_failed = Outcome::Ok;

private:
    // The subscript as a key: the assoc key, or the decimal index (negative ones are counted from the end by
    // get and set, against the array as it is then). ref.subscript keeps the expanded text, for messages.
    ArithResult<void> resolve(ArithRef& ref, const Var* v) {
        if (ref.resolved) return {};
        std::string sub;
        if (ref.index_word) {
            Outcome r = ex_.expand_word(ref.index_word, sub, false);
            if (r != Outcome::Ok) {
                expand_failed = r;
                return ArithError{ArithError::Kind::Host, {}};
            }
        } else {
            // Text (a variable's value used as an expression, `let`): the subscript is expanded first, as
            // bash does (x='a[$(echo 2)]'; $((b[x])) reads a[2]).
            Outcome r = ex_.subscript_text(v, ref.index_text, sub);
            if (r != Outcome::Ok) {
                expand_failed = r;
                return ArithError{ArithError::Kind::Host, {}};
            }
        }
        if (v && v->is_assoc()) {
            ref.resolved = std::move(sub);
            return {};
        }
        ArithOptions o;
        o.depth = ref.depth;
        auto r = eval_text(sub, *this, o);
        if (!r.ok()) return r.error();
        ref.subscript = std::move(sub);
        ref.resolved = to_dec(*r);
        return {};
    }

    Exec& ex_;
};

}  // namespace

ArithCache* Exec::arith_cache() {
    if (!arith_cache_) arith_cache_ = make_arith_cache();
    return arith_cache_.get();
}

Outcome Exec::arith_report(const ArithError& e, std::string_view prefix, bool fatal_on_error, Outcome expand_failed) {
    if (expand_failed != Outcome::Ok) return expand_failed;
    if (e.kind == ArithError::Kind::Unbound) {
        error(e.message);
        exit_status_ = fatal_expansion_status();
        state_.status = 127;
        return Outcome::Fatal;
    }
    if (!e.message.empty()) error(std::string(prefix) + e.message);
    state_.status = 1;
    if (fatal_on_error) {
        exit_status_ = 1;
        return Outcome::Fatal;
    }
    return Outcome::Fail;
}

// A constant the parser converted, or a variable that is a plain decimal number (what TreeEval reads through
// peek_number()); false for anything else (unset, a subscript, a value to evaluate, magic, `unread`).
bool Exec::quick_operand(const sx::ArithExpr* e, int64_t& out) {
    if (e == nullptr) return false;
    if (const auto* n = e->try_as<sx::ArithNum>()) {
        out = n->value;
        return n->has_value;
    }
    const auto* v = e->try_as<sx::ArithVar>();
    if (v == nullptr || v->has_index || v->unread) return false;
    const Var* var = state_.vars.find(v->name);
    return var && var->plain() && var->number(out);
}

// `i<n`, `i+1`, `i%4` (operands as quick_operand() reads them, an operator that cannot fail on them) and `i++`,
// `++i`, `i--`, `--i` on a plain, writable number: the heads and counters of loops, which went through Host,
// the evaluation context, TreeEval and ArithResult for a few operations, about 500 instructions each. The
// result and the effect are the tree evaluator's (the same reads, arith_detail's operations, the same
// assign_number() as Host::step()); any other shape or value declines with nothing done.
Exec::Quick Exec::quick_arith(const sx::ArithExpr& e, int64_t& out) {
    using sx::ArithOp;
    if (const auto* b = e.try_as<sx::ArithBinary>()) {
        int64_t l = 0, r = 0;
        if (!quick_operand(b->left, l) || !quick_operand(b->right, r)) return Quick::Declined;
        switch (b->op) {
            case ArithOp::Div:
            case ArithOp::Mod:
                if (r == 0) return Quick::Declined;  // the evaluator reports it
                [[fallthrough]];
            case ArithOp::Lt: case ArithOp::Le: case ArithOp::Gt: case ArithOp::Ge: case ArithOp::Eq:
            case ArithOp::Ne: case ArithOp::Add: case ArithOp::Sub: case ArithOp::Mul: case ArithOp::BitAnd:
            case ArithOp::BitOr: case ArithOp::BitXor: case ArithOp::LogAnd: case ArithOp::LogOr:
                out = arith_detail::apply(b->op, l, r);
                return Quick::Done;
            default: return Quick::Declined;
        }
    }
    const sx::ArithExpr* operand = nullptr;
    bool increment = false, prefix = false;
    if (const auto* pf = e.try_as<sx::ArithPostfix>()) {
        operand = pf->operand;
        increment = pf->op == ArithOp::PostInc;
    } else if (const auto* un = e.try_as<sx::ArithUnary>();
               un != nullptr && (un->op == ArithOp::PreInc || un->op == ArithOp::PreDec)) {
        operand = un->operand;
        increment = un->op == ArithOp::PreInc;
        prefix = true;
    }
    const auto* v = operand ? operand->try_as<sx::ArithVar>() : nullptr;
    if (v == nullptr || v->has_index || v->unread) return Quick::Declined;
    Var* var = state_.vars.find(v->name);
    int64_t old = 0;
    if (!var || !var->plain() || var->readonly() || !var->number(old)) return Quick::Declined;
    int64_t now = increment ? arith_detail::add(old, 1) : arith_detail::sub(old, 1);
    if (!assign_number(*var, v->name, now)) return Quick::Failed;  // as Host::step's Failed
    out = prefix ? now : old;
    return Quick::Done;
}

Outcome Exec::arith(const sx::ArithExpr* expr, const sx::Word* raw, bool exact, int64_t& out, bool fatal_on_error) {
    std::string_view prefix = fatal_on_error ? std::string_view() : std::string_view("((: ");
    // The tree is evaluated when the raw word is one literal, the text its nodes' offsets point into (so no
    // ArithWord leaf either), or when its expansions are all in subscripts (exact: syntax::arith_exact), which
    // the tree keeps as words to expand as the elements are read. Otherwise bash's way: expand the text, then
    // evaluate it.
    if (expr && raw && (exact || (raw->parts.size == 1 && raw->parts[0]->kind == sx::NodeKind::Lit))) {
        switch (quick_arith(*expr, out)) {
            case Quick::Done: return Outcome::Ok;
            case Quick::Failed:
                return arith_report(ArithError{ArithError::Kind::Host, {}}, prefix, fatal_on_error, Outcome::Ok);
            case Quick::Declined: break;
        }
        Host host(*this);
        ArithOptions o;
        if (raw->parts.size == 1 && raw->parts[0]->kind == sx::NodeKind::Lit)
            o.source = raw->parts[0]->as<sx::Lit>()->text;
        else
            o.source_word = raw;
        auto r = eval(*expr, host, o);
        if (!r.ok()) return arith_report(r.error(), prefix, fatal_on_error, host.expand_failed);
        out = *r;
        return Outcome::Ok;
    }
    std::string text;
    if (raw) {
        // The text of $(( )) (fatal_on_error) is expanded as if in double quotes: single quotes stay
        // (`$(('1' + 2))` is an error, `$((A['k']))` an associative key). In (( )) and for (( )) they
        // are removed, as bash 4.4 did (bash 5.2 keeps them there too).
        Outcome e = expand_arith_word(raw, text, fatal_on_error);
        if (e != Outcome::Ok) return e;
    }
    Host host(*this);
    auto r = eval_text(text, host);
    if (!r.ok()) return arith_report(r.error(), prefix, fatal_on_error, host.expand_failed);
    out = *r;
    return Outcome::Ok;
}

// The subscript of `name[...]` in the text stays as written, its expansions not made: the evaluator expands
// it once as it reads or assigns the element, as bash does. So a key read from data is a key: with
// k='a]+c[b' or k='$(cmd)', `((c[$k]++))` counts under that very key, where expanding it into the text made
// the first more of the expression and ran the command of the second.
Outcome Exec::expand_arith_word(const sx::Word* w, std::string& out, bool keep_single_quotes) {
    FieldBuilder fb(FieldBuilder::Mode::Single, {}, false, &session_.memory);
    uint32_t depth = 0;       // brackets open in a subscript being copied as written
    bool after_name = false;  // the text so far ends with a name's character
    for (const sx::Node* p : w->parts) {
        if (p->kind == sx::NodeKind::Lit) {
            std::string_view t = p->as<sx::Lit>()->text;
            for (char c : t) {
                if (c == '[' && (depth > 0 || after_name))
                    ++depth;
                else if (c == ']' && depth > 0)
                    --depth;
                after_name = depth == 0 && sx::arith_lex::is_ident_char(c);
            }
            fb.lit(t);
            continue;
        }
        after_name = false;
        if (depth > 0) {  // a part of a subscript: its source
            const sx::Node* one[] = {p};
            sx::Word word;
            word.parts = {const_cast<sx::Node**>(one), 1};
            fb.quoted(sx::print(word));
            continue;
        }
        if (p->kind == sx::NodeKind::SglQuoted && keep_single_quotes) {
            fb.quoted("'" + std::string(p->as<sx::SglQuoted>()->text) + "'");
            continue;
        }
        Outcome e = expand_part(p, fb, true);
        if (e != Outcome::Ok) return e;
    }
    out = std::move(fb.text());
    return Outcome::Ok;
}

Outcome Exec::arith_text(std::string_view text, int64_t& out, bool fatal_on_error) {
    // Fast path: a plain decimal number.
    if (!text.empty() && text.size() < 19) {
        bool digits = true;
        int64_t v = 0;
        for (char c : text) {
            if (c < '0' || c > '9') {
                digits = false;
                break;
            }
            v = v * 10 + (c - '0');
        }
        if (digits && !(text.size() > 1 && text[0] == '0')) {
            out = v;
            return Outcome::Ok;
        }
    }
    Host host(*this);
    auto r = eval_text(text, host);
    if (!r.ok()) return arith_report(r.error(), "", fatal_on_error, host.expand_failed);
    out = *r;
    return Outcome::Ok;
}

}  // namespace bashkit::interp

namespace bashkit::interp {

Outcome Exec::arith_text_prefixed(std::string_view text, int64_t& out, std::string_view prefix) {
    Host host(*this);
    auto r = eval_text(text, host);
    if (!r.ok()) return arith_report(r.error(), prefix, false, host.expand_failed);
    out = *r;
    return Outcome::Ok;
}

}  // namespace bashkit::interp
