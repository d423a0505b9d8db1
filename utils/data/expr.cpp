// expr (GNU coreutils 9.1): | & comparisons + - * / % : and the match substr index length keywords, with
// arbitrary-precision integers (GNU's expr uses GMP) and POSIX basic regular expressions for `:` (through
// interp/regex.hpp, RE2 underneath). Exit status: 0 when the result is neither null nor 0, 1 when it is,
// 2 for a usage or syntax error, 3 for an internal error. Lengths are bytes (the C locale).
#include <optional>

#include "utils/data/decimal.hpp"
#include "utils/data/tools.hpp"
#include "interp/regex.hpp"

namespace bashkit::utils::data {

namespace {

struct Value {
    bool is_int = false;
    Decimal i;
    std::string s;
    static Value str(std::string v) {
        Value r;
        r.s = std::move(v);
        return r;
    }
    static Value num(Decimal v) {
        Value r;
        r.is_int = true;
        r.i = std::move(v);
        return r;
    }
    std::string text() const { return is_int ? i.to_string(false) : s; }
};

// [-]digits, nothing else (GNU 9.1's looks_like_integer).
bool looks_like_integer(std::string_view s) {
    size_t k = s.size() && s[0] == '-' ? 1 : 0;
    if (k == s.size()) return false;
    for (; k < s.size(); ++k)
        if (s[k] < '0' || s[k] > '9') return false;
    return true;
}

bool to_int(const Value& v, Decimal& out) {
    if (v.is_int) {
        out = v.i;
        return true;
    }
    if (!looks_like_integer(v.s)) return false;
    return Decimal::parse(v.s, out);
}

bool is_null(const Value& v) {
    if (v.is_int) return v.i.is_zero();
    std::string_view s = v.s;
    if (s.empty()) return true;
    size_t k = s[0] == '-' ? 1 : 0;
    if (k == s.size()) return false;
    for (; k < s.size(); ++k)
        if (s[k] != '0') return false;
    return true;
}

struct ExprError {
    int status;
    std::string message;
};

class ExprParser {
public:
    explicit ExprParser(std::vector<std::string> args) : args_(std::move(args)) {}
    bool more() const { return pos_ < args_.size(); }
    const std::string& current() const { return args_[pos_]; }
    std::optional<ExprError> error;

    Value parse_or(bool ev) {
        Value l = parse_and(ev);
        while (!error && next_is("|")) {
            Value r = parse_and(ev && is_null(l));
            if (error) break;
            if (ev) {
                if (is_null(l)) l = is_null(r) ? Value::num(Decimal()) : r;
            }
        }
        return l;
    }

private:
    bool next_is(const char* tok) {
        if (pos_ < args_.size() && args_[pos_] == tok) {
            ++pos_;
            return true;
        }
        return false;
    }
    void syntax(const std::string& m) {
        if (!error) error = ExprError{2, "syntax error: " + m};
    }
    void fail(int status, const std::string& m) {
        if (!error) error = ExprError{status, m};
    }
    std::string prev() const { return pos_ ? text::quote(args_[pos_ - 1]) : std::string("''"); }

    Value parse_and(bool ev) {
        Value l = parse_cmp(ev);
        while (!error && next_is("&")) {
            Value r = parse_cmp(ev && !is_null(l));
            if (error) break;
            if (ev && (is_null(l) || is_null(r))) l = Value::num(Decimal());
        }
        return l;
    }

    Value parse_cmp(bool ev) {
        Value l = parse_add(ev);
        for (;;) {
            if (error) return l;
            static const char* const kOps[] = {"<", "<=", "=", "==", "!=", ">=", ">"};
            int op = -1;
            for (int k = 0; k < 7; ++k) {
                if (next_is(kOps[k])) {
                    op = k;
                    break;
                }
            }
            if (op < 0) return l;
            Value r = parse_add(ev);
            if (error) return l;
            if (!ev) continue;
            int c;
            Decimal a, b;
            if (to_int(l, a) && to_int(r, b)) {
                c = Decimal::compare(a, b);
            } else {
                std::string x = l.text(), y = r.text();
                c = x < y ? -1 : x > y ? 1 : 0;
            }
            bool res = op == 0 ? c < 0 : op == 1 ? c <= 0 : op == 2 || op == 3 ? c == 0 : op == 4 ? c != 0
                       : op == 5 ? c >= 0 : c > 0;
            l = Value::num(Decimal::from_int(res ? 1 : 0));
        }
    }

    Value arith(const Value& l, const Value& r, char op, bool ev) {
        if (!ev) return Value::num(Decimal());
        Decimal a, b;
        if (!to_int(l, a) || !to_int(r, b)) {
            fail(2, "non-integer argument");
            return l;
        }
        switch (op) {
            case '+': return Value::num(Decimal::add(a, b));
            case '-': return Value::num(Decimal::sub(a, b));
            case '*': return Value::num(Decimal::mul(a, b, 0));
            default: break;
        }
        if (b.is_zero()) {
            fail(2, "division by zero");
            return l;
        }
        if (op == '/') return Value::num(Decimal::div(a, b, 0));
        return Value::num(Decimal::mod(a, b, 0));  // truncating division: the sign of the dividend
    }

    Value parse_add(bool ev) {
        Value l = parse_mul(ev);
        for (;;) {
            if (error) return l;
            char op = next_is("+") ? '+' : next_is("-") ? '-' : 0;
            if (!op) return l;
            Value r = parse_mul(ev);
            if (error) return l;
            l = arith(l, r, op, ev);
        }
    }

    Value parse_mul(bool ev) {
        Value l = parse_colon(ev);
        for (;;) {
            if (error) return l;
            char op = next_is("*") ? '*' : next_is("/") ? '/' : next_is("%") ? '%' : 0;
            if (!op) return l;
            Value r = parse_colon(ev);
            if (error) return l;
            l = arith(l, r, op, ev);
        }
    }

    Value colon(const Value& l, const Value& r) {
        std::string text = l.text(), pattern = r.text();
        interp::Regex re = interp::Regex::compile(pattern, interp::RegexSyntax::kBasic);
        if (!re.ok()) {
            fail(2, re.message());
            return Value::str("");
        }
        std::vector<interp::RegexSpan> spans;
        bool m = re.search(text, spans) && spans[0].begin == 0;
        if (re.groups() > 0) {
            if (m && spans.size() > 1 && spans[1].matched()) {
                return Value::str(text.substr(static_cast<size_t>(spans[1].begin),
                                              static_cast<size_t>(spans[1].end - spans[1].begin)));
            }
            return Value::str("");
        }
        return Value::num(Decimal::from_int(m ? spans[0].end : 0));
    }

    Value parse_colon(bool ev) {
        Value l = parse_primary(ev);
        while (!error && next_is(":")) {
            Value r = parse_primary(ev);
            if (error) break;
            if (ev) l = colon(l, r);
        }
        return l;
    }

    Value parse_primary(bool ev) {
        if (!more()) {
            syntax("missing argument after " + prev());
            return {};
        }
        if (next_is("+")) {
            if (!more()) {
                syntax("missing argument after " + prev());
                return {};
            }
            return Value::str(args_[pos_++]);
        }
        if (next_is("length")) {
            Value v = parse_primary(ev);
            return Value::num(Decimal::from_int(static_cast<int64_t>(v.text().size())));
        }
        if (next_is("match")) {
            Value l = parse_primary(ev);
            if (error) return l;
            Value r = parse_primary(ev);
            if (error || !ev) return l;
            return colon(l, r);
        }
        if (next_is("index")) {
            Value l = parse_primary(ev);
            if (error) return l;
            Value r = parse_primary(ev);
            std::string s = l.text(), chars = r.text();
            size_t p = s.find_first_of(chars);
            return Value::num(Decimal::from_int(p == std::string::npos ? 0 : static_cast<int64_t>(p + 1)));
        }
        if (next_is("substr")) {
            Value s = parse_primary(ev);
            if (error) return s;
            Value p = parse_primary(ev);
            if (error) return s;
            Value n = parse_primary(ev);
            std::string str = s.text();
            Decimal pd, nd;
            int64_t pos = 0, len = 0;
            if (!to_int(p, pd) || !to_int(n, nd) || !pd.to_int64(pos) || !nd.to_int64(len) || pos <= 0 || len <= 0 ||
                static_cast<uint64_t>(pos) > str.size()) {
                return Value::str("");
            }
            return Value::str(str.substr(static_cast<size_t>(pos - 1), static_cast<size_t>(len)));
        }
        if (next_is("(")) {
            Value v = parse_or(ev);
            if (error) return v;
            if (!more()) {
                syntax("expecting ')' after " + prev());
                return v;
            }
            if (!next_is(")")) {
                syntax("expecting ')' instead of " + text::quote(current()));
                return v;
            }
            return v;
        }
        if (next_is(")")) {
            syntax("unexpected ')'");
            return {};
        }
        return Value::str(args_[pos_++]);
    }

    std::vector<std::string> args_;
    size_t pos_ = 0;
};

}  // namespace

int cmd_expr(CommandContext& ctx) {
    std::vector<std::string> args(ctx.argv.begin() + (ctx.argv.empty() ? 0 : 1), ctx.argv.end());
    if (args.size() == 1 && args[0] == "--help") {
        (void)ctx.out.write(
            "Usage: expr EXPRESSION\n  or:  expr OPTION\n\nPrint the value of EXPRESSION to standard output.\n");
        return 0;
    }
    if (args.size() == 1 && args[0] == "--version") return version(ctx);
    if (!args.empty() && args[0] == "--") args.erase(args.begin());
    if (args.empty()) return usage_error(ctx, "missing operand", 2);
    ExprParser p(args);
    DecimalGuard guard(&ctx.cancel, ctx.memory);
    Value v;
    try {
        v = p.parse_or(true);
    } catch (const DecimalInterrupted&) {
        return 130;
    }
    if (!p.error && p.more()) {
        p.error = ExprError{2, "syntax error: unexpected argument " + text::quote(p.current())};
    }
    if (p.error) {
        ctx.error(p.error->message);
        return p.error->status;
    }
    std::string out = v.text();
    out.push_back('\n');
    if (!ctx.out.write(out).ok()) return 3;
    return is_null(v) ? 1 : 0;
}

}  // namespace bashkit::utils::data
