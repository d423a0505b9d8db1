// bc (GNU bc 1.07 behaviour): arbitrary-precision arithmetic with scale, ibase/obase, variables, arrays,
// functions (define, auto, dynamic scope like bc), if/while/for/break/continue/return, print, strings,
// quit/halt, and the -l math library (s c a l e j, computed with guard digits and truncated as GNU bc's
// results are). Input is read a source at a time (files, then stdin), parsed and run one input item (a
// line, or the lines of an open brace or definition) at a time; a syntax error discards that item, as
// GNU bc's parser does. Output lines longer than 70 characters are split with a backslash.
//
// Differences from GNU bc: runtime error messages name bytecode addresses in GNU bc ("adr=N"); bashkit
// prints adr=0. read() is not supported.
#include <cmath>
#include <map>
#include <memory>
#include <optional>

#include "utils/data/decimal.hpp"
#include "utils/data/tools.hpp"

namespace bashkit::utils::data {

namespace {

// ------------------------------------------------------------------------------------------------ lexer

enum class Tok {
    end, newline, semicolon, number, name, string, op, lparen, rparen, lbrack, rbrack, lbrace, rbrace, comma,
    kw_if, kw_else, kw_while, kw_for, kw_break, kw_continue, kw_return, kw_define, kw_auto, kw_print, kw_quit,
    kw_halt, kw_limits, kw_length, kw_scale, kw_sqrt, kw_read, kw_ibase, kw_obase, kw_last, bad,
};

struct Token {
    Tok kind = Tok::end;
    std::string text;
    int line = 1;
};

class Lexer {
public:
    explicit Lexer(std::string_view src) : s_(src) {}
    std::optional<std::string> error;  // illegal character messages, reported by the parser

    Token next() {
        for (;;) {
            while (p_ < s_.size() && (s_[p_] == ' ' || s_[p_] == '\t' || s_[p_] == '\r' || s_[p_] == '\f' || s_[p_] == '\v')) ++p_;
            if (p_ + 1 < s_.size() && s_[p_] == '\\' && s_[p_ + 1] == '\n') {  // line continuation
                p_ += 2;
                ++line_;
                continue;
            }
            if (p_ + 1 < s_.size() && s_[p_] == '/' && s_[p_ + 1] == '*') {
                size_t e = s_.find("*/", p_ + 2);
                size_t stop = e == std::string_view::npos ? s_.size() : e + 2;
                for (size_t k = p_; k < stop; ++k)
                    if (s_[k] == '\n') ++line_;
                p_ = stop;
                continue;
            }
            if (p_ < s_.size() && s_[p_] == '#') {
                while (p_ < s_.size() && s_[p_] != '\n') ++p_;
                continue;
            }
            break;
        }
        Token t;
        t.line = line_;
        if (p_ >= s_.size()) return t;
        char c = s_[p_];
        if (c == '\n') {
            ++p_;
            ++line_;
            t.kind = Tok::newline;
            return t;
        }
        if ((c >= '0' && c <= '9') || (c >= 'A' && c <= 'F') || (c == '.' && p_ + 1 < s_.size() && is_digit(s_[p_ + 1]))) {
            size_t b = p_;
            while (p_ < s_.size()) {
                if (is_digit(s_[p_]) || s_[p_] == '.') {
                    ++p_;
                } else if (p_ + 1 < s_.size() && s_[p_] == '\\' && s_[p_ + 1] == '\n') {
                    p_ += 2;
                    ++line_;
                } else {
                    break;
                }
            }
            for (size_t k = b; k < p_; ++k)
                if (s_[k] != '\\' && s_[k] != '\n') t.text.push_back(s_[k]);
            t.kind = Tok::number;
            return t;
        }
        if (c == '.') {
            ++p_;
            t.kind = Tok::kw_last;
            return t;
        }
        if ((c >= 'a' && c <= 'z') || c == '_') {
            size_t b = p_;
            while (p_ < s_.size() && ((s_[p_] >= 'a' && s_[p_] <= 'z') || (s_[p_] >= '0' && s_[p_] <= '9') || s_[p_] == '_')) ++p_;
            t.text.assign(s_.substr(b, p_ - b));
            static const std::map<std::string, Tok, std::less<>> kw = {
                {"if", Tok::kw_if}, {"else", Tok::kw_else}, {"while", Tok::kw_while}, {"for", Tok::kw_for},
                {"break", Tok::kw_break}, {"continue", Tok::kw_continue}, {"return", Tok::kw_return},
                {"define", Tok::kw_define}, {"auto", Tok::kw_auto}, {"print", Tok::kw_print}, {"quit", Tok::kw_quit},
                {"halt", Tok::kw_halt}, {"limits", Tok::kw_limits}, {"length", Tok::kw_length},
                {"scale", Tok::kw_scale}, {"sqrt", Tok::kw_sqrt}, {"read", Tok::kw_read}, {"ibase", Tok::kw_ibase},
                {"obase", Tok::kw_obase}, {"last", Tok::kw_last},
            };
            auto it = kw.find(t.text);
            t.kind = it == kw.end() ? Tok::name : it->second;
            return t;
        }
        if (c == '"') {
            size_t e = s_.find('"', p_ + 1);
            if (e == std::string_view::npos) {
                p_ = s_.size();
                t.kind = Tok::bad;
                t.text = "unterminated string";
                return t;
            }
            t.text.assign(s_.substr(p_ + 1, e - p_ - 1));
            for (char ch : t.text)
                if (ch == '\n') ++line_;
            p_ = e + 1;
            t.kind = Tok::string;
            return t;
        }
        ++p_;
        switch (c) {
            case ';': t.kind = Tok::semicolon; return t;
            case '(': t.kind = Tok::lparen; return t;
            case ')': t.kind = Tok::rparen; return t;
            case '[': t.kind = Tok::lbrack; return t;
            case ']': t.kind = Tok::rbrack; return t;
            case '{': t.kind = Tok::lbrace; return t;
            case '}': t.kind = Tok::rbrace; return t;
            case ',': t.kind = Tok::comma; return t;
            default: break;
        }
        auto two = [&](char n) { return p_ < s_.size() && s_[p_] == n; };
        t.kind = Tok::op;
        t.text = std::string(1, c);
        switch (c) {
            case '+': case '-':
                if (two(c)) { t.text += c; ++p_; }
                else if (two('=')) { t.text += '='; ++p_; }
                return t;
            case '*': case '/': case '%': case '^': case '=': case '<': case '>': case '!':
                if (two('=')) { t.text += '='; ++p_; }
                return t;
            case '&': case '|':
                if (two(c)) { t.text += c; ++p_; return t; }
                break;
            default: break;
        }
        t.kind = Tok::bad;
        t.text = std::string("illegal character: ") + c;
        return t;
    }

    static bool is_digit(char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F'); }

private:
    std::string_view s_;
    size_t p_ = 0;
    int line_ = 1;
};

// ------------------------------------------------------------------------------------------------ AST

struct Expr;
using ExprP = std::unique_ptr<Expr>;
struct Stmt;
using StmtP = std::unique_ptr<Stmt>;

struct Expr {
    enum Kind { num, var, elem, array_ref, special, call, length, scalef, sqrtf, neg, not_, bin, rel, and_, or_,
                assign, preinc, predec, postinc, postdec } kind;
    std::string text;  // number literal, name, operator
    int special_id = 0;  // 0 scale 1 ibase 2 obase 3 last
    std::vector<ExprP> kids;
};

struct Stmt {
    enum Kind { expr, str, print, if_, while_, for_, brk, cont, ret, halt, block, empty, limits } kind;
    ExprP e, e2, e3;
    std::string text;
    std::vector<StmtP> body;  // block / then-branch (body[0]) / loop body (body[0])
    StmtP else_;
    std::vector<std::pair<bool, ExprP>> print_items;  // (is string, expr) ; strings in text of a num expr
    std::vector<std::string> print_strings;
};

struct Function {
    std::vector<std::pair<std::string, bool>> params;  // name, is array
    std::vector<std::pair<std::string, bool>> autos;
    std::vector<StmtP> body;
    bool defined = false;
};

// ------------------------------------------------------------------------------------------------ parser

struct SyntaxError {
    int line;
    std::string message;
    bool then_syntax_error = false;  // an illegal character: bc also reports the syntax error it causes
};

class Parser {
public:
    Parser(Lexer& lx) : lx_(lx) { advance(); }

    // One input item: statements up to a newline at top level, or a function definition. Returns false at
    // the end of the input. On a syntax error, err is set and the rest of the line is skipped.
    bool item(std::vector<StmtP>& out, std::optional<std::pair<std::string, Function>>& def,
              std::optional<SyntaxError>& err, bool& quit) {
        out.clear();
        def.reset();
        err.reset();
        quit_ = false;
        if (pending_advance_) {  // the newline ending the last item; the next token is read only now
            pending_advance_ = false;
            advance();
        }
        if (tok_.kind == Tok::end) return false;
        try {
            if (tok_.kind == Tok::kw_define) {
                def = parse_define();
                // A definition is an input item of its own: what follows its `}` on the line starts the next.
                if (tok_.kind == Tok::newline) pending_advance_ = true;
                else if (tok_.kind == Tok::semicolon) advance();
            } else {
                for (;;) {
                    if (tok_.kind == Tok::newline) {
                        pending_advance_ = true;
                        break;
                    }
                    if (tok_.kind == Tok::end) break;
                    if (tok_.kind == Tok::semicolon) {
                        advance();
                        continue;
                    }
                    out.push_back(parse_stmt());
                    if (tok_.kind == Tok::semicolon) {
                        advance();
                        continue;
                    }
                    if (tok_.kind == Tok::newline || tok_.kind == Tok::end) continue;
                    expect_fail();
                }
            }
        } catch (const SyntaxError& e) {
            err = e;
            out.clear();
            def.reset();
            // Like bc's `error ENDOFLINE` recovery: when the newline itself was the error, the next line is
            // what gets skipped.
            if (tok_.kind == Tok::newline) advance();
            while (tok_.kind != Tok::newline && tok_.kind != Tok::end) advance();
            if (tok_.kind == Tok::newline) pending_advance_ = true;
        }
        quit = quit_;
        return true;
    }

private:
    void advance() {
        tok_ = lx_.next();
        if (tok_.kind == Tok::kw_quit) quit_ = true;  // quit takes effect when read, as in bc
    }
    [[noreturn]] void expect_fail() {
        if (tok_.kind == Tok::bad) throw SyntaxError{tok_.line, tok_.text, true};
        // bc counts the newline it stopped at.
        throw SyntaxError{tok_.kind == Tok::newline ? tok_.line + 1 : tok_.line, "syntax error"};
    }
    void expect(Tok k) {
        if (tok_.kind != k) expect_fail();
        advance();
    }
    void skip_newlines() {
        while (tok_.kind == Tok::newline) advance();
    }

    std::pair<std::string, Function> parse_define() {
        advance();
        if (tok_.kind != Tok::name) expect_fail();
        std::string name = tok_.text;
        advance();
        expect(Tok::lparen);
        Function f;
        auto param_list = [&](std::vector<std::pair<std::string, bool>>& out, Tok stop) {
            if (tok_.kind == stop) return;
            for (;;) {
                if (tok_.kind != Tok::name) expect_fail();
                std::string n = tok_.text;
                advance();
                bool arr = false;
                if (tok_.kind == Tok::lbrack) {
                    advance();
                    expect(Tok::rbrack);
                    arr = true;
                }
                out.emplace_back(n, arr);
                if (tok_.kind != Tok::comma) break;
                advance();
            }
        };
        param_list(f.params, Tok::rparen);
        expect(Tok::rparen);
        skip_newlines();
        expect(Tok::lbrace);
        skip_newlines();
        if (tok_.kind == Tok::kw_auto) {
            advance();
            param_list(f.autos, Tok::newline);
            if (tok_.kind == Tok::semicolon || tok_.kind == Tok::newline) advance();
            else expect_fail();
        }
        f.body = parse_stmts_until_brace();
        expect(Tok::rbrace);
        f.defined = true;
        return {name, std::move(f)};
    }

    std::vector<StmtP> parse_stmts_until_brace() {
        std::vector<StmtP> body;
        for (;;) {
            while (tok_.kind == Tok::newline || tok_.kind == Tok::semicolon) advance();
            if (tok_.kind == Tok::rbrace) return body;
            if (tok_.kind == Tok::end) expect_fail();
            body.push_back(parse_stmt());
            if (tok_.kind == Tok::semicolon || tok_.kind == Tok::newline) continue;
            if (tok_.kind == Tok::rbrace) return body;
            expect_fail();
        }
    }

    StmtP parse_stmt() {
        auto s = std::make_unique<Stmt>();
        switch (tok_.kind) {
            case Tok::lbrace:
                advance();
                s->kind = Stmt::block;
                s->body = parse_stmts_until_brace();
                expect(Tok::rbrace);
                return s;
            case Tok::string:
                s->kind = Stmt::str;
                s->text = tok_.text;
                advance();
                return s;
            case Tok::kw_print: {
                advance();
                s->kind = Stmt::print;
                for (;;) {
                    if (tok_.kind == Tok::string) {
                        s->print_items.emplace_back(true, nullptr);
                        s->print_strings.push_back(tok_.text);
                        advance();
                    } else {
                        s->print_items.emplace_back(false, parse_expr());
                        s->print_strings.emplace_back();
                    }
                    if (tok_.kind != Tok::comma) break;
                    advance();
                }
                return s;
            }
            case Tok::kw_if: {
                advance();
                expect(Tok::lparen);
                s->kind = Stmt::if_;
                s->e = parse_expr();
                expect(Tok::rparen);
                skip_newlines();
                s->body.push_back(parse_stmt_or_empty());
                if (tok_.kind == Tok::kw_else) {
                    advance();
                    skip_newlines();
                    s->else_ = parse_stmt_or_empty();
                }
                return s;
            }
            case Tok::kw_while: {
                advance();
                expect(Tok::lparen);
                s->kind = Stmt::while_;
                s->e = parse_expr();
                expect(Tok::rparen);
                skip_newlines();
                s->body.push_back(parse_stmt_or_empty());
                return s;
            }
            case Tok::kw_for: {
                advance();
                expect(Tok::lparen);
                s->kind = Stmt::for_;
                if (tok_.kind != Tok::semicolon) s->e = parse_expr();
                expect(Tok::semicolon);
                if (tok_.kind != Tok::semicolon) s->e2 = parse_expr();
                expect(Tok::semicolon);
                if (tok_.kind != Tok::rparen) s->e3 = parse_expr();
                expect(Tok::rparen);
                skip_newlines();
                s->body.push_back(parse_stmt_or_empty());
                return s;
            }
            case Tok::kw_break: advance(); s->kind = Stmt::brk; return s;
            case Tok::kw_continue: advance(); s->kind = Stmt::cont; return s;
            case Tok::kw_quit: advance(); s->kind = Stmt::empty; return s;
            case Tok::kw_halt: advance(); s->kind = Stmt::halt; return s;
            case Tok::kw_limits: advance(); s->kind = Stmt::limits; return s;
            case Tok::kw_return:
                advance();
                s->kind = Stmt::ret;
                if (tok_.kind != Tok::newline && tok_.kind != Tok::semicolon && tok_.kind != Tok::rbrace &&
                    tok_.kind != Tok::end) {
                    s->e = parse_expr();
                }
                return s;
            default:
                s->kind = Stmt::expr;
                s->e = parse_expr();
                return s;
        }
    }

    StmtP parse_stmt_or_empty() {
        if (tok_.kind == Tok::semicolon) {
            auto s = std::make_unique<Stmt>();
            s->kind = Stmt::empty;
            return s;
        }
        return parse_stmt();
    }

    ExprP make(Expr::Kind k, std::string text = {}) {
        auto e = std::make_unique<Expr>();
        e->kind = k;
        e->text = std::move(text);
        return e;
    }

    static bool is_lvalue(const Expr& e) {
        return e.kind == Expr::var || e.kind == Expr::elem || e.kind == Expr::special;
    }

    // GNU bc's precedence, loosest first: || && ! relational assignment + - * / % ^ unary-minus ++/--
    // (so `a = 1 < 2` is `(a = 1) < 2` and -2^2 is 4).
    ExprP parse_expr() { return parse_or(); }

    ExprP parse_or() {
        ExprP l = parse_and();
        while (tok_.kind == Tok::op && tok_.text == "||") {
            advance();
            auto e = make(Expr::or_);
            e->kids.push_back(std::move(l));
            e->kids.push_back(parse_and());
            l = std::move(e);
        }
        return l;
    }

    ExprP parse_and() {
        ExprP l = parse_not();
        while (tok_.kind == Tok::op && tok_.text == "&&") {
            advance();
            auto e = make(Expr::and_);
            e->kids.push_back(std::move(l));
            e->kids.push_back(parse_not());
            l = std::move(e);
        }
        return l;
    }

    ExprP parse_not() {
        if (tok_.kind == Tok::op && tok_.text == "!") {
            advance();
            auto e = make(Expr::not_);
            e->kids.push_back(parse_not());
            return e;
        }
        return parse_rel();
    }

    ExprP parse_rel() {
        ExprP l = parse_assign();
        while (tok_.kind == Tok::op && (tok_.text == "==" || tok_.text == "!=" || tok_.text == "<" || tok_.text == "<=" ||
                                        tok_.text == ">" || tok_.text == ">=")) {
            std::string op = tok_.text;
            advance();
            auto e = make(Expr::rel, op);
            e->kids.push_back(std::move(l));
            e->kids.push_back(parse_assign());
            l = std::move(e);
        }
        return l;
    }

    ExprP parse_assign() {
        ExprP l = parse_add();
        if (tok_.kind == Tok::op && (tok_.text == "=" || tok_.text == "+=" || tok_.text == "-=" || tok_.text == "*=" ||
                                     tok_.text == "/=" || tok_.text == "%=" || tok_.text == "^=")) {
            if (!is_lvalue(*l)) expect_fail();
            std::string op = tok_.text;
            advance();
            ExprP r = parse_assign();
            auto e = make(Expr::assign, op);
            e->kids.push_back(std::move(l));
            e->kids.push_back(std::move(r));
            return e;
        }
        return l;
    }

    ExprP parse_add() {
        ExprP l = parse_mul();
        while (tok_.kind == Tok::op && (tok_.text == "+" || tok_.text == "-")) {
            std::string op = tok_.text;
            advance();
            auto e = make(Expr::bin, op);
            e->kids.push_back(std::move(l));
            e->kids.push_back(parse_mul());
            l = std::move(e);
        }
        return l;
    }

    ExprP parse_mul() {
        ExprP l = parse_pow();
        while (tok_.kind == Tok::op && (tok_.text == "*" || tok_.text == "/" || tok_.text == "%")) {
            std::string op = tok_.text;
            advance();
            auto e = make(Expr::bin, op);
            e->kids.push_back(std::move(l));
            e->kids.push_back(parse_pow());
            l = std::move(e);
        }
        return l;
    }

    ExprP parse_pow() {  // right associative
        ExprP l = parse_unary();
        if (tok_.kind == Tok::op && tok_.text == "^") {
            advance();
            auto e = make(Expr::bin, "^");
            e->kids.push_back(std::move(l));
            e->kids.push_back(parse_pow());
            return e;
        }
        return l;
    }

    ExprP parse_unary() {
        if (tok_.kind == Tok::op && tok_.text == "-") {
            advance();
            auto e = make(Expr::neg);
            e->kids.push_back(parse_unary());
            return e;
        }
        return parse_incdec();
    }

    ExprP parse_incdec() {
        if (tok_.kind == Tok::op && (tok_.text == "++" || tok_.text == "--")) {
            bool inc = tok_.text == "++";
            advance();
            ExprP target = parse_primary();
            if (!is_lvalue(*target)) expect_fail();
            auto e = make(inc ? Expr::preinc : Expr::predec);
            e->kids.push_back(std::move(target));
            return e;
        }
        ExprP p = parse_primary();
        if (tok_.kind == Tok::op && (tok_.text == "++" || tok_.text == "--") && is_lvalue(*p)) {
            bool inc = tok_.text == "++";
            advance();
            auto e = make(inc ? Expr::postinc : Expr::postdec);
            e->kids.push_back(std::move(p));
            return e;
        }
        return p;
    }

    ExprP parse_primary() {
        switch (tok_.kind) {
            case Tok::number: {
                auto e = make(Expr::num, tok_.text);
                advance();
                return e;
            }
            case Tok::lparen: {
                advance();
                ExprP e = parse_expr();
                expect(Tok::rparen);
                return e;
            }
            case Tok::kw_length: case Tok::kw_sqrt: case Tok::kw_scale: {
                Tok k = tok_.kind;
                advance();
                if (k == Tok::kw_scale && tok_.kind != Tok::lparen) {
                    auto e = make(Expr::special);
                    e->special_id = 0;
                    return e;
                }
                expect(Tok::lparen);
                auto e = make(k == Tok::kw_length ? Expr::length : k == Tok::kw_sqrt ? Expr::sqrtf : Expr::scalef);
                e->kids.push_back(parse_expr());
                expect(Tok::rparen);
                return e;
            }
            case Tok::kw_ibase: case Tok::kw_obase: case Tok::kw_last: {
                auto e = make(Expr::special);
                e->special_id = tok_.kind == Tok::kw_ibase ? 1 : tok_.kind == Tok::kw_obase ? 2 : 3;
                advance();
                return e;
            }
            case Tok::name: {
                std::string name = tok_.text;
                advance();
                if (tok_.kind == Tok::lbrack) {
                    advance();
                    auto e = make(Expr::elem, name);
                    e->kids.push_back(parse_expr());
                    expect(Tok::rbrack);
                    return e;
                }
                if (tok_.kind == Tok::lparen) {
                    advance();
                    auto e = make(Expr::call, name);
                    if (tok_.kind != Tok::rparen) {
                        for (;;) {
                            // an array argument: name[]
                            if (tok_.kind == Tok::name) {
                                Lexer save = lx_;
                                Token save_tok = tok_;
                                std::string n = tok_.text;
                                advance();
                                if (tok_.kind == Tok::lbrack) {
                                    advance();
                                    if (tok_.kind == Tok::rbrack) {
                                        advance();
                                        e->kids.push_back(make(Expr::array_ref, n));
                                        if (tok_.kind != Tok::comma) break;
                                        advance();
                                        continue;
                                    }
                                }
                                lx_ = save;
                                tok_ = save_tok;
                            }
                            e->kids.push_back(parse_expr());
                            if (tok_.kind != Tok::comma) break;
                            advance();
                        }
                    }
                    expect(Tok::rparen);
                    return e;
                }
                return make(Expr::var, name);
            }
            default:
                expect_fail();
        }
    }

    Lexer& lx_;
    Token tok_;
    bool quit_ = false;
    bool pending_advance_ = false;
};

// ------------------------------------------------------------------------------------------------ runtime

struct RuntimeError {
    std::string message;
};
struct Halt {};
enum class Flow { normal, brk, cont, ret };

class Bc {
public:
    Bc(CommandContext& ctx, text::Output& out) : ctx_(ctx), out_(out) {
        if (const std::string* ll = ctx.env.get("BC_LINE_LENGTH")) {
            uint64_t v = 0;
            if (text::parse_uint(*ll, v)) line_len_ = v == 0 ? 0 : (v < 3 ? 70 : static_cast<int>(std::min<uint64_t>(v, 1 << 20)));
        }
    }

    bool mathlib = false;
    int scale = 0;

    // Runs one source; false after quit/halt.
    bool run_source(const std::string& text, const std::string& name) {
        Lexer lx(text);
        Parser ps(lx);
        std::vector<StmtP> stmts;
        std::optional<std::pair<std::string, Function>> def;
        std::optional<SyntaxError> err;
        bool quit = false;
        while (ps.item(stmts, def, err, quit)) {
            if (ctx_.cancelled()) return false;
            if (err) {
                out_.flush();
                std::string where = name + " " + std::to_string(err->line) + ": ";
                (void)ctx_.err.write(where + err->message + "\n");
                if (err->then_syntax_error) (void)ctx_.err.write(where + "syntax error\n");
            } else if (def) {
                funcs_[def->first] = std::make_shared<Function>(std::move(def->second));
            } else if (!quit) {
                try {
                    for (const auto& s : stmts) {
                        Flow f = exec(*s, nullptr);
                        if (f == Flow::brk || f == Flow::cont) {
                            // bc rejects these at parse time; report like it does
                            out_.flush();
                            (void)ctx_.err.write(name + " " + std::to_string(1) + ": Break outside a for/while\n");
                            break;
                        }
                        if (f == Flow::ret) {
                            out_.flush();
                            (void)ctx_.err.write(name + " " + std::to_string(1) + ": Return outside of a function.\n");
                            break;
                        }
                    }
                } catch (const RuntimeError& e) {
                    out_.flush();
                    (void)ctx_.err.write("Runtime error (func=" + func_name_ + ", adr=0): " + e.message + "\n");
                    func_name_ = "(main)";
                    unwind_all();
                } catch (const Halt&) {
                    return false;
                } catch (const DecimalInterrupted&) {
                    return false;
                }
            }
            if (quit) return false;
        }
        return true;
    }

private:
    // Variables and arrays with bc's dynamic scoping: each name has a stack; a call pushes its parameters
    // and autos and pops them on return.
    std::map<std::string, std::vector<Decimal>> vars_;
    std::map<std::string, std::vector<std::map<int64_t, Decimal>>> arrays_;
    std::map<std::string, std::shared_ptr<Function>> funcs_;
    std::vector<std::vector<std::pair<std::string, bool>>> frames_;  // pushed names, to pop
    int ibase_ = 10, obase_ = 10;
    Decimal last_;
    std::string func_name_ = "(main)";
    int depth_ = 0;

    CommandContext& ctx_;
    interp::MemoryCharge held_{ctx_.memory};  // variables and arrays, parameters and autos included
    text::Output& out_;
    int line_len_ = 70;
    int col_ = 0;

    void unwind_all() {
        while (!frames_.empty()) pop_frame();
        depth_ = 0;
    }
    void pop_frame() {
        for (const auto& [n, arr] : frames_.back()) {
            if (arr) {
                held_.sub(cost(arrays_[n].back()));
                arrays_[n].pop_back();
            } else {
                held_.sub(cost(vars_[n].back()));
                vars_[n].pop_back();
            }
        }
        frames_.pop_back();
    }

    // What a value and an array hold, charged to the session's memory budget while they live.
    static size_t cost(const Decimal& d) { return d.digit_count() + 48; }
    static size_t cost(const std::map<int64_t, Decimal>& a) {
        size_t n = 0;
        for (const auto& [i, d] : a) n += cost(d);
        return n;
    }

    Decimal& var(const std::string& n) {
        auto& st = vars_[n];
        if (st.empty()) st.emplace_back();
        return st.back();
    }
    std::map<int64_t, Decimal>& array(const std::string& n) {
        auto& st = arrays_[n];
        if (st.empty()) st.emplace_back();
        return st.back();
    }

    // ---- output
    void put_char(char c) {
        if (c == '\n') {
            out_.put('\n');
            col_ = 0;
            return;
        }
        ++col_;
        if (line_len_ > 0 && col_ == line_len_ - 1) {
            out_.put("\\\n");
            col_ = 1;
        }
        out_.put(c);
    }
    void put_raw(std::string_view s) {  // strings: no splitting, but the column follows
        for (char c : s) {
            out_.put(c);
            col_ = c == '\n' ? 0 : col_ + 1;
        }
    }

    std::string format(const Decimal& v) const {
        if (obase_ == 10) return v.to_string(true);
        std::string s;
        if (v.negative()) s.push_back('-');
        const bool big = obase_ > 16;
        int width = 0;
        if (big) {
            for (int b = obase_ - 1; b > 0; b /= 10) ++width;
        }
        auto digit = [&](uint32_t d, bool first_of_int) {
            if (!big) {
                s.push_back("0123456789ABCDEF"[d]);
                return;
            }
            (void)first_of_int;
            std::string ds = std::to_string(d);
            s.push_back(' ');
            s.append(static_cast<size_t>(width) - ds.size(), '0');
            s += ds;
        };
        Decimal a = v.abs();
        Decimal ip = a.trunc();
        if (!ip.is_zero()) {
            for (uint32_t d : ip.int_digits_in_base(static_cast<uint32_t>(obase_))) digit(d, true);
        } else if (v.scale() == 0) {
            digit(0, true);
        }
        if (v.scale() > 0) {
            s.push_back('.');
            Decimal frac = Decimal::sub(a, ip);
            Decimal base = Decimal::from_int(obase_);
            // digits until obase^k reaches 10^scale (GNU bc's out_num)
            Decimal ten_scale = Decimal::from_int(1);
            for (int k = 0; k < v.scale(); ++k) ten_scale = Decimal::mul(ten_scale, Decimal::from_int(10), 0);
            Decimal pw = Decimal::from_int(1);
            while (Decimal::compare(pw, ten_scale) < 0) {
                frac = Decimal::mul(frac, base, v.scale());
                Decimal d = frac.trunc();
                int64_t dv = 0;
                (void)d.to_int64(dv);
                if (big) {
                    std::string ds = std::to_string(dv);
                    s.push_back(' ');
                    s.append(static_cast<size_t>(width) - std::min<size_t>(ds.size(), static_cast<size_t>(width)), '0');
                    s += ds;
                } else {
                    s.push_back("0123456789ABCDEF"[dv]);
                }
                frac = Decimal::sub(frac, d);
                pw = Decimal::mul(pw, base, 0);
            }
        }
        return s;
    }

    void print_number(const Decimal& v) {
        for (char c : format(v)) put_char(c);
    }

    // ---- numbers
    Decimal convert(const std::string& lit) const {
        if (ibase_ == 10) {
            bool plain = true;
            for (char c : lit)
                if (c >= 'A' && c <= 'F') plain = false;
            if (plain) {
                Decimal d;
                std::string t = lit;
                if (t.size() > 1 && t.back() == '.') t.pop_back();
                if (Decimal::parse(t, d)) return d;
            }
        }
        // A single digit is its own value whatever ibase is (so ibase=A works).
        size_t dot = lit.find('.');
        std::string ip = lit.substr(0, dot), fp = dot == std::string::npos ? "" : lit.substr(dot + 1);
        auto val = [](char c) { return c >= 'A' ? c - 'A' + 10 : c - '0'; };
        if (fp.empty() && ip.size() == 1) return Decimal::from_int(val(ip[0]));
        Decimal base = Decimal::from_int(ibase_), r;
        auto dval = [&](char c) { return std::min(val(c), ibase_ - 1); };  // GNU bc clamps digits to the base
        for (char c : ip) r = Decimal::add(Decimal::mul(r, base, 0), Decimal::from_int(dval(c)));
        if (!fp.empty()) {
            Decimal f, pw = Decimal::from_int(1);
            for (char c : fp) {
                f = Decimal::add(Decimal::mul(f, base, 0), Decimal::from_int(dval(c)));
                pw = Decimal::mul(pw, base, 0);
            }
            int fs = static_cast<int>(fp.size());
            r = Decimal::add(r, Decimal::div(f, pw, fs));
        }
        return r;
    }

    static int64_t to_index(const Decimal& d) {
        int64_t v = 0;
        if (!d.to_int64(v)) return -1;
        return v;
    }

    Decimal power(const Decimal& a, const Decimal& b) {
        if (b.scale() > 0 && !Decimal::sub(b, b.trunc()).is_zero()) {
            out_.flush();
            (void)ctx_.err.write("Runtime warning (func=" + func_name_ + ", adr=0): non-zero scale in exponent\n");
        }
        int64_t e = 0;
        if (!b.trunc().to_int64(e) || e > 100000000 || e < -100000000) throw RuntimeError{"exponent too large in raise"};
        if (e == 0) return Decimal::from_int(1);
        bool neg = e < 0;
        uint64_t n = neg ? static_cast<uint64_t>(-e) : static_cast<uint64_t>(e);
        int rscale = neg ? scale : static_cast<int>(std::min<int64_t>(static_cast<int64_t>(a.scale()) * static_cast<int64_t>(n), std::max(scale, a.scale())));
        Decimal result = Decimal::from_int(1), p = a;
        while (n) {
            if (ctx_.cancelled()) throw Halt{};
            if (n & 1) result = Decimal::mul(result, p, result.scale() + p.scale());
            n >>= 1;
            if (n) p = Decimal::mul(p, p, 2 * p.scale());
        }
        if (neg) {
            if (result.is_zero()) throw RuntimeError{"Divide by zero"};
            return Decimal::div(Decimal::from_int(1), result, rscale);
        }
        return result.scale() > rscale ? result.with_scale(rscale) : result;
    }

    Decimal binop(const std::string& op, const Decimal& a, const Decimal& b) {
        switch (op[0]) {
            case '+': return Decimal::add(a, b);
            case '-': return Decimal::sub(a, b);
            case '*': return Decimal::mul(a, b, std::min(a.scale() + b.scale(), std::max({scale, a.scale(), b.scale()})));
            case '/':
                if (b.is_zero()) throw RuntimeError{"Divide by zero"};
                return Decimal::div(a, b, scale);
            case '%':
                if (b.is_zero()) throw RuntimeError{"Modulo by zero"};
                return Decimal::mod(a, b, scale);
            case '^': return power(a, b);
        }
        return a;
    }

    Decimal get(const Expr& e, Flow* /*unused*/ = nullptr) {
        switch (e.kind) {
            case Expr::var: return var(e.text);
            case Expr::elem: {
                int64_t i = to_index(eval(*e.kids[0]).trunc());
                if (i < 0 || i > 16777214) throw RuntimeError{"Array " + e.text + " subscript out of bounds."};
                auto& arr = array(e.text);
                auto it = arr.find(i);
                return it == arr.end() ? Decimal() : it->second;
            }
            case Expr::special:
                switch (e.special_id) {
                    case 0: return Decimal::from_int(scale);
                    case 1: return Decimal::from_int(ibase_);
                    case 2: return Decimal::from_int(obase_);
                    default: return last_;
                }
            default: return eval(e);
        }
    }

    void set(const Expr& e, const Decimal& v) {
        switch (e.kind) {
            case Expr::var: {
                Decimal& slot = var(e.text);
                held_.add(cost(v));
                held_.sub(cost(slot));
                slot = v;
                return;
            }
            case Expr::elem: {
                int64_t i = to_index(eval(*e.kids[0]).trunc());
                if (i < 0 || i > 16777214) throw RuntimeError{"Array " + e.text + " subscript out of bounds."};
                held_.add(cost(v));
                auto [it, fresh] = array(e.text).try_emplace(i);
                if (!fresh) held_.sub(cost(it->second));
                it->second = v;
                return;
            }
            case Expr::special: {
                int64_t n = 0;
                bool fits = v.trunc().to_int64(n);
                switch (e.special_id) {
                    case 0:
                        if (!fits || n < 0) throw RuntimeError{"negative scale"};  // GNU: "Scale too big" etc.
                        scale = static_cast<int>(std::min<int64_t>(n, 100000));
                        return;
                    case 1:
                        if (!fits || n < 2) { warn("ibase too small, set to 2"); ibase_ = 2; }
                        else if (n > 16) { warn("ibase too large, set to 16"); ibase_ = 16; }
                        else ibase_ = static_cast<int>(n);
                        return;
                    case 2:
                        if (!fits || n < 2) { warn("obase too small, set to 2"); obase_ = 2; }
                        else if (n > 2147483647) { warn("obase too large, set to 2147483647"); obase_ = 2147483647; }
                        else obase_ = static_cast<int>(n);
                        return;
                    default: last_ = v; return;
                }
            }
            default: return;
        }
    }

    void warn(const std::string& m) {
        out_.flush();
        (void)ctx_.err.write("Runtime warning (func=" + func_name_ + ", adr=0): " + m + "\n");
    }

    Decimal eval(const Expr& e) {
        switch (e.kind) {
            case Expr::num: return convert(e.text);
            case Expr::var: case Expr::elem: case Expr::special: return get(e);
            case Expr::array_ref: throw RuntimeError{"array reference outside a call"};
            case Expr::length: return Decimal::from_int(eval(*e.kids[0]).length());
            case Expr::scalef: return Decimal::from_int(eval(*e.kids[0]).scale());
            case Expr::sqrtf: {
                Decimal a = eval(*e.kids[0]);
                if (a.negative()) throw RuntimeError{"Square root of a negative number"};
                return Decimal::sqrt(a, std::max(scale, a.scale()));
            }
            case Expr::neg: return eval(*e.kids[0]).negated();
            case Expr::not_: return Decimal::from_int(eval(*e.kids[0]).is_zero() ? 1 : 0);
            case Expr::bin: {
                Decimal a = eval(*e.kids[0]);
                Decimal b = eval(*e.kids[1]);
                return binop(e.text, a, b);
            }
            case Expr::rel: {
                int c = Decimal::compare(eval(*e.kids[0]), eval(*e.kids[1]));
                const std::string& op = e.text;
                bool r = op == "==" ? c == 0 : op == "!=" ? c != 0 : op == "<" ? c < 0 : op == "<=" ? c <= 0
                         : op == ">" ? c > 0 : c >= 0;
                return Decimal::from_int(r ? 1 : 0);
            }
            case Expr::and_:
                if (eval(*e.kids[0]).is_zero()) return Decimal::from_int(0);
                return Decimal::from_int(eval(*e.kids[1]).is_zero() ? 0 : 1);
            case Expr::or_:
                if (!eval(*e.kids[0]).is_zero()) return Decimal::from_int(1);
                return Decimal::from_int(eval(*e.kids[1]).is_zero() ? 0 : 1);
            case Expr::assign: {
                Decimal r = eval(*e.kids[1]);
                if (e.text != "=") r = binop(e.text.substr(0, 1), get(*e.kids[0]), r);
                set(*e.kids[0], r);
                return r;
            }
            case Expr::preinc: case Expr::predec: case Expr::postinc: case Expr::postdec: {
                Decimal old = get(*e.kids[0]);
                bool inc = e.kind == Expr::preinc || e.kind == Expr::postinc;
                Decimal nv = Decimal::add(old, Decimal::from_int(inc ? 1 : -1));
                set(*e.kids[0], nv);
                return (e.kind == Expr::preinc || e.kind == Expr::predec) ? nv : old;
            }
            case Expr::call: return call(e);
        }
        return {};
    }

    Decimal call(const Expr& e) {
        auto it = funcs_.find(e.text);
        if (it == funcs_.end() || !it->second->defined) {
            if (mathlib && e.text.size() == 1 && std::string_view("scalej").find(e.text[0]) != std::string_view::npos) {
                return mathlib_call(e);
            }
            throw RuntimeError{"Function " + e.text + " not defined."};
        }
        std::shared_ptr<Function> f = it->second;
        if (e.kids.size() != f->params.size()) throw RuntimeError{"Parameter number mismatch"};
        if (++depth_ > 10000) {
            --depth_;
            throw RuntimeError{"function call nesting too deep"};
        }
        // Evaluate arguments before binding (they see the caller's variables).
        std::vector<Decimal> vals(e.kids.size());
        std::vector<std::map<int64_t, Decimal>> arrs(e.kids.size());
        for (size_t k = 0; k < e.kids.size(); ++k) {
            if (f->params[k].second) {
                if (e.kids[k]->kind != Expr::array_ref) throw RuntimeError{"Parameter type mismatch"};
                arrs[k] = array(e.kids[k]->text);
            } else {
                if (e.kids[k]->kind == Expr::array_ref) throw RuntimeError{"Parameter type mismatch"};
                vals[k] = eval(*e.kids[k]);
            }
        }
        std::vector<std::pair<std::string, bool>> frame;
        for (size_t k = 0; k < f->params.size(); ++k) {
            const auto& [n, arr] = f->params[k];
            if (arr) {
                held_.add(cost(arrs[k]));
                arrays_[n].push_back(std::move(arrs[k]));
            } else {
                held_.add(cost(vals[k]));
                vars_[n].push_back(vals[k]);
            }
            frame.emplace_back(n, arr);
        }
        for (const auto& [n, arr] : f->autos) {
            if (arr) arrays_[n].emplace_back();
            else {
                held_.add(cost(Decimal()));
                vars_[n].emplace_back();
            }
            frame.emplace_back(n, arr);
        }
        frames_.push_back(std::move(frame));
        std::string saved_name = func_name_;
        func_name_ = e.text;
        Decimal result;
        for (const auto& s : f->body) {
            Flow fl = exec(*s, &result);
            if (fl == Flow::ret) break;
        }
        func_name_ = saved_name;
        pop_frame();
        --depth_;
        return result;
    }

    Flow exec(const Stmt& s, Decimal* ret) {
        if (ctx_.cancelled()) throw Halt{};
        switch (s.kind) {
            case Stmt::expr: {
                Decimal v = eval(*s.e);
                if (s.e->kind != Expr::assign) {
                    print_number(v);
                    put_char('\n');
                    last_ = v;
                }
                return Flow::normal;
            }
            case Stmt::str: put_string(s.text, false); return Flow::normal;
            case Stmt::print:
                for (size_t k = 0; k < s.print_items.size(); ++k) {
                    if (s.print_items[k].first) {
                        put_string(s.print_strings[k], true);
                    } else {
                        Decimal v = eval(*s.print_items[k].second);
                        print_number(v);
                        last_ = v;
                    }
                }
                return Flow::normal;
            case Stmt::if_:
                if (!eval(*s.e).is_zero()) return exec(*s.body[0], ret);
                if (s.else_) return exec(*s.else_, ret);
                return Flow::normal;
            case Stmt::while_:
                while (!eval(*s.e).is_zero()) {
                    Flow f = exec(*s.body[0], ret);
                    if (f == Flow::brk) break;
                    if (f == Flow::ret) return f;
                }
                return Flow::normal;
            case Stmt::for_:
                if (s.e) (void)eval(*s.e);
                while (!s.e2 || !eval(*s.e2).is_zero()) {
                    Flow f = exec(*s.body[0], ret);
                    if (f == Flow::brk) break;
                    if (f == Flow::ret) return f;
                    if (s.e3) (void)eval(*s.e3);
                }
                return Flow::normal;
            case Stmt::brk: return Flow::brk;
            case Stmt::cont: return Flow::cont;
            case Stmt::ret:
                if (ret) *ret = s.e ? eval(*s.e) : Decimal();
                return Flow::ret;
            case Stmt::halt: throw Halt{};
            case Stmt::limits:
                put_raw("BC_BASE_MAX     = 2147483647\nBC_DIM_MAX      = 16777215\nBC_SCALE_MAX    = 2147483647\n"
                        "BC_STRING_MAX   = 2147483647\nMAX Exponent    = 9223372036854775807\nNumber of vars  = 32767\n");
                return Flow::normal;
            case Stmt::block:
                for (const auto& b : s.body) {
                    Flow f = exec(*b, ret);
                    if (f != Flow::normal) return f;
                }
                return Flow::normal;
            case Stmt::empty: return Flow::normal;
        }
        return Flow::normal;
    }

    void put_string(const std::string& s, bool escapes) {
        if (!escapes) {
            put_raw(s);
            return;
        }
        std::string r;
        for (size_t k = 0; k < s.size(); ++k) {
            if (s[k] != '\\' || k + 1 >= s.size()) {
                r.push_back(s[k]);
                continue;
            }
            char n = s[++k];
            switch (n) {
                case 'a': r.push_back('\a'); break;
                case 'b': r.push_back('\b'); break;
                case 'f': r.push_back('\f'); break;
                case 'n': r.push_back('\n'); break;
                case 'r': r.push_back('\r'); break;
                case 'q': r.push_back('"'); break;
                case 't': r.push_back('\t'); break;
                case 'e': r.push_back('\\'); break;
                case '\\': r.push_back('\\'); break;
                default: r.push_back('\\'); r.push_back(n); break;
            }
        }
        put_raw(r);
    }

    // ---- the -l library: series evaluated with guard digits, truncated to scale.
    Decimal mathlib_call(const Expr& e) {
        if (e.kids.size() != (e.text == "j" ? 2u : 1u)) throw RuntimeError{"Parameter number mismatch"};
        Decimal x = eval(*e.kids[e.text == "j" ? 1 : 0]);
        const int s = scale;
        const int w = s + 12;  // working scale
        Decimal r;
        switch (e.text[0]) {
            case 'e': r = exp_(x, w); break;
            case 'l':
                if (x.negative() || x.is_zero()) {  // GNU bc's l() answers 1 - 10^scale there
                    Decimal p = Decimal::from_int(1);
                    for (int k = 0; k < s; ++k) p = Decimal::mul(p, Decimal::from_int(10), 0);
                    return Decimal::sub(Decimal::from_int(1), p).with_scale(s);
                }
                r = ln_(x, w);
                break;
            case 's': r = sin_(x, w); break;
            case 'c': r = cos_(x, w); break;
            case 'a': r = atan_(x, w); break;
            case 'j': {
                Decimal n = eval(*e.kids[0]);
                r = bessel_(n.trunc(), x, w);
                break;
            }
        }
        return r.with_scale(s);
    }

    static Decimal one() { return Decimal::from_int(1); }

    Decimal exp_(const Decimal& x, int w) {
        // e^x = (e^(x/2^k))^(2^k) with a Taylor series for the small argument.
        bool neg = x.negative();
        Decimal a = x.abs();
        int k = 0;
        while (Decimal::compare(a, Decimal::from_int(1)) > 0) {
            a = Decimal::div(a, Decimal::from_int(2), w + 10);
            ++k;
        }
        int ws = w + k + 10;
        Decimal sum = one(), term = one();
        for (int n = 1; n < 100000; ++n) {
            term = Decimal::div(Decimal::mul(term, a, ws), Decimal::from_int(n), ws);
            if (term.is_zero()) break;
            sum = Decimal::add(sum, term);
        }
        for (int i = 0; i < k; ++i) sum = Decimal::mul(sum, sum, ws);
        if (neg) return Decimal::div(one(), sum, w);
        return sum.with_scale(w);
    }

    Decimal ln_(const Decimal& x, int w) {
        // ln x = 2^k * ln(x^(1/2^k)); ln y = 2 atanh((y-1)/(y+1)).
        int k = 0;
        int ws = w + 20;
        Decimal y = x;
        Decimal lo = Decimal::div(Decimal::from_int(1), Decimal::from_int(2), 1);
        Decimal hi = Decimal::from_int(2);
        while (Decimal::compare(y, hi) > 0 || Decimal::compare(y, lo) < 0) {
            y = Decimal::sqrt(y, ws);
            ++k;
        }
        Decimal z = Decimal::div(Decimal::sub(y, one()), Decimal::add(y, one()), ws);
        Decimal z2 = Decimal::mul(z, z, ws), term = z, sum = z;
        for (int n = 3; n < 1000000; n += 2) {
            term = Decimal::mul(term, z2, ws);
            Decimal t = Decimal::div(term, Decimal::from_int(n), ws);
            if (t.is_zero()) break;
            sum = Decimal::add(sum, t);
        }
        sum = Decimal::mul(sum, Decimal::from_int(2), ws);
        for (int i = 0; i < k; ++i) sum = Decimal::mul(sum, Decimal::from_int(2), ws);
        return sum.with_scale(w);
    }

    Decimal pi_(int w) { return Decimal::mul(atan_(one(), w + 5), Decimal::from_int(4), w + 5); }

    Decimal sin_(const Decimal& x, int w) {
        int ws = w + 10;
        // reduce by 2*pi
        Decimal twopi = Decimal::mul(pi_(ws + x.int_digits()), Decimal::from_int(2), ws + x.int_digits());
        Decimal q = Decimal::div(x, twopi, 0);
        Decimal a = Decimal::sub(x, Decimal::mul(q, twopi, ws + x.int_digits())).with_scale(ws);
        Decimal a2 = Decimal::mul(a, a, ws), term = a, sum = a;
        for (int n = 1; n < 1000000; ++n) {
            term = Decimal::div(Decimal::mul(term, a2, ws), Decimal::from_int((2 * n) * (2 * n + 1)), ws).negated();
            if (term.is_zero()) break;
            sum = Decimal::add(sum, term);
        }
        return sum.with_scale(w);
    }

    Decimal cos_(const Decimal& x, int w) {
        int ws = w + 10;
        Decimal halfpi = Decimal::div(pi_(ws + x.int_digits()), Decimal::from_int(2), ws + x.int_digits());
        return sin_(Decimal::add(x, halfpi), w);
    }

    Decimal atan_(const Decimal& x, int w) {
        // atan x = 2 atan(x / (1 + sqrt(1 + x^2))) until |x| is small, then the series.
        int ws = w + 10;
        Decimal a = x;
        int k = 0;
        Decimal small = Decimal::div(one(), Decimal::from_int(5), 1);
        while (Decimal::compare(a.abs(), small) > 0) {
            Decimal s = Decimal::sqrt(Decimal::add(one(), Decimal::mul(a, a, ws)), ws);
            a = Decimal::div(a, Decimal::add(one(), s), ws);
            ++k;
        }
        Decimal a2 = Decimal::mul(a, a, ws), term = a, sum = a;
        for (int n = 3; n < 1000000; n += 2) {
            term = Decimal::mul(term, a2, ws).negated();
            Decimal t = Decimal::div(term, Decimal::from_int(n), ws);
            if (t.is_zero()) break;
            sum = Decimal::add(sum, t);
        }
        for (int i = 0; i < k; ++i) sum = Decimal::mul(sum, Decimal::from_int(2), ws);
        return sum.with_scale(w);
    }

    Decimal bessel_(const Decimal& nd, const Decimal& x, int w) {
        int64_t n = 0;
        (void)nd.to_int64(n);
        bool flip = false;
        if (n < 0) {
            n = -n;
            flip = (n % 2) != 0;
        }
        int ws = w + 10;
        // J_n(x) = sum_k (-1)^k (x/2)^(2k+n) / (k! (k+n)!)
        Decimal half = Decimal::div(x, Decimal::from_int(2), ws);
        Decimal h2 = Decimal::mul(half, half, ws).negated();
        Decimal term = one();
        for (int64_t i = 1; i <= n; ++i) term = Decimal::div(Decimal::mul(term, half, ws), Decimal::from_int(i), ws);
        Decimal sum = term;
        for (int64_t k = 1; k < 1000000; ++k) {
            term = Decimal::div(Decimal::mul(term, h2, ws), Decimal::from_int(k * (k + n)), ws);
            if (term.is_zero()) break;
            sum = Decimal::add(sum, term);
        }
        if (flip) sum = sum.negated();
        return sum.with_scale(w);
    }
};

}  // namespace

constexpr const char* kBcUsage =
    "usage: bc [options] [file ...]\n"
    "  -h  --help         print this usage and exit\n"
    "  -i  --interactive  force interactive mode\n"
    "  -l  --mathlib      use the predefined math routines\n"
    "  -q  --quiet        don't print initial banner\n"
    "  -s  --standard     non-standard bc constructs are errors\n"
    "  -w  --warn         warn about non-standard bc constructs\n"
    "  -v  --version      print version information and exit\n";

int cmd_bc(CommandContext& ctx) {
    constexpr OptionSpec kSpecs[] = {
        {'l', 'l', "mathlib"}, {'q', 'q', "quiet"}, {'s', 's', "standard"},
        {'w', 'w', "warn"},    {'i', 'i', "interactive"},
        {kOptHelp, 'h', "help"}, {kOptVersion, 'v', "version"},
    };
    ParsedArgs p = parse_args(ctx.argv, kSpecs);
    bool mathlib = false;
    for (const auto& o : p.options) {
        if (o.id == 'l') mathlib = true;
        if (o.id == kOptHelp) {
            (void)ctx.out.write(kBcUsage);
            return 0;
        }
        if (o.id == kOptVersion) {
            (void)ctx.out.write("bc 1.07.1 (bashkit)\n");
            return 0;
        }
    }
    if (!p.ok()) {
        ctx.error(p.error);
        (void)ctx.err.write(kBcUsage);
        return 1;
    }
    text::Output out(ctx);
    DecimalGuard guard(&ctx.cancel, ctx.memory);
    Bc bc(ctx, out);
    if (mathlib) {
        bc.mathlib = true;
        bc.scale = 20;
    }
    for (const std::string& f : p.operands) {
        text::Input in;
        std::string content;
        vfs::Errc e = in.open_input(ctx, f);
        if (e == vfs::Errc::ok) e = text::read_all(ctx, in, content);
        if (e != vfs::Errc::ok) {
            out.flush();
            if (e == vfs::Errc::cancelled) return out.status(130);
            (void)ctx.err.write("File " + f + " is unavailable.\n");
            return out.status(1);
        }
        if (!bc.run_source(content, f)) return out.status(ctx.cancelled() ? 130 : 0);
    }
    text::Input in;
    in.open_stdin(ctx);
    std::string content;
    vfs::Errc e = text::read_all(ctx, in, content);
    if (e == vfs::Errc::cancelled) return out.status(130);
    (void)bc.run_source(content, "(standard_in)");
    return out.status(ctx.cancelled() ? 130 : 0);
}

}  // namespace bashkit::utils::data
