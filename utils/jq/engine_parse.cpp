// The jq lexer and recursive-descent parser (jq 1.7.1's grammar and operator precedence, its error
// messages for the common cases: "syntax error, unexpected X", located by line as jq prints them).
#include <cctype>
#include <cstring>
#include <string_view>

#include "utils/jq/engine_ast.hpp"

namespace bashkit::utils::jq {

namespace {

enum class T { End, Ident, Keyword, Field, Var, Loc, Num, QStart, Format, Op, Invalid };

struct Tok {
    T t = T::End;
    std::string text;
    size_t start = 0, end = 0;
};

struct ParseError {
    std::string msg;
    size_t pos;
    bool unexpected;
};

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

const char* const kKeywords[] = {"def", "if", "then", "elif", "else", "end", "as", "reduce", "foreach", "try",
                                 "catch", "label", "import", "include", "and", "or", "__loc__", "module"};

bool is_keyword(std::string_view s) {
    for (const char* k : kKeywords)
        if (s == k) return true;
    return false;
}

class Parser {
public:
    Parser(Program& prog, const std::string& src) : prog_(prog), src_(src) {
        char probe;
        stack_base_ = reinterpret_cast<uintptr_t>(&probe);
        stack_limit_ = stack_allowance(stack_base_);
    }

    Node* parse_top() {
        advance();
        // module <meta>;  then  import "path" as name [<meta>];  import "path" as $name [<meta>];
        // include "path" [<meta>];
        if (is_kw("module")) {
            size_t at = tok_.start;  // jq locates the error at the directive
            advance();
            prog_.module_meta = directive_meta(parse_pipe(), at);
            expect_op(";");
        }
        while (is_kw("import") || is_kw("include")) {
            Import imp;
            bool include = is_kw("include");
            imp.pos = tok_.start;
            advance();
            size_t at = tok_.start;
            Node* path = parse_string("");
            if (path->op != Op::Literal) fail("Import path must be constant", at);
            imp.relpath = path->val.str();
            if (!include) {
                expect_kw("as");
                if (tok_.t == T::Var && !tok_.text.empty()) {
                    imp.is_data = true;
                } else if (tok_.t != T::Ident) {
                    unexpected();
                }
                imp.as = tok_.text;
                advance();
            }
            if (!is_op(";")) imp.meta = directive_meta(parse_pipe(), imp.pos);
            expect_op(";");
            prog_.imports.push_back(std::move(imp));
        }
        Node* n;
        if (tok_.t == T::End) {
            n = mk(Op::Identity);
            n->opt = true;  // no main expression (a library)
        } else {
            n = parse_pipe();
        }
        if (tok_.t != T::End) unexpected(", expecting end of file");
        return n;
    }

    // The metadata of a module directive: a constant object.
    Value directive_meta(const Node* n, size_t at) {
        Value v;
        if (!const_value(n, v)) fail("Module metadata must be constant", at);
        if (!v.is_object()) fail("Module metadata must be an object", at);
        return v;
    }
    static bool const_value(const Node* n, Value& out) {
        switch (n->op) {
            case Op::Literal: out = n->val; return true;
            case Op::Neg: {
                Value v;
                if (!const_value(n->kids[0], v) || !v.is_number()) return false;
                out = Value::number(-v.num());
                return true;
            }
            case Op::ArrayCons: {
                out = Value::array();
                std::vector<const Node*> items;
                std::vector<const Node*> todo;
                if (n->kids[0]) todo.push_back(n->kids[0]);
                while (!todo.empty()) {
                    const Node* k = todo.back();
                    todo.pop_back();
                    if (k->op == Op::Comma) {
                        todo.push_back(k->kids[1]);
                        todo.push_back(k->kids[0]);
                        continue;
                    }
                    Value v;
                    if (!const_value(k, v)) return false;
                    out.arr_mut().push_back(std::move(v));
                }
                return true;
            }
            case Op::ObjectCons: {
                out = Value::object();
                for (size_t i = 0; i + 1 < n->kids.size(); i += 2) {
                    const Node* k = n->kids[i];
                    const Node* v = n->kids[i + 1];
                    Value val;
                    if (k->op != Op::Literal || !k->val.is_string() || !v || !const_value(v, val)) return false;
                    out.set(std::string(k->val.str()), std::move(val));
                }
                return true;
            }
            default: return false;
        }
    }

    Node* mk(Op op) {
        prog_.nodes.push_back(std::make_unique<Node>());
        Node* n = prog_.nodes.back().get();
        n->op = op;
        n->line = line_of(tok_.start);
        n->pos = tok_.start;
        return n;
    }
    // Counted from the last position asked (nodes are made left to right), so a long program parses in
    // linear time.
    int line_of(size_t pos) {
        if (pos < line_pos_) {
            line_pos_ = 0;
            line_ = 1;
        }
        for (; line_pos_ < pos && line_pos_ < src_.size(); ++line_pos_)
            if (src_[line_pos_] == '\n') ++line_;
        return line_;
    }

    // Nesting: the recursive rules hold one of these. Past kMaxNesting frames, or past the stack the thread
    // allows, the parse fails as jq's parser does when its stack is full ("memory exhausted"), so a deeply
    // nested program is an error and never a crash (the passes over the tree recurse as deep as it is).
    static constexpr int kMaxNesting = 30000;
    struct Nest {
        explicit Nest(Parser& p) : p_(p) {
            char probe;
            const auto here = reinterpret_cast<uintptr_t>(&probe);
            if (++p_.nesting_ > kMaxNesting || (p_.stack_base_ > here && p_.stack_base_ - here > p_.stack_limit_))
                p_.fail("memory exhausted", p_.tok_.start);
        }
        ~Nest() { --p_.nesting_; }
        Nest(const Nest&) = delete;
        Nest& operator=(const Nest&) = delete;
        Parser& p_;
    };

    [[noreturn]] void unexpected(const char* expecting = "") {
        std::string what;
        switch (tok_.t) {
            case T::End: what = "end of file"; break;
            case T::Ident: what = "IDENT"; break;
            case T::Keyword: what = tok_.text == "__loc__" ? "$__loc__" : tok_.text; break;
            case T::Field: what = "FIELD"; break;
            case T::Var: what = "'$'"; break;
            case T::Loc: what = "$__loc__"; break;
            case T::Num: what = "LITERAL"; break;
            case T::QStart: what = "QQSTRING_START"; break;
            case T::Format: what = "FORMAT"; break;
            case T::Invalid: what = "INVALID_CHARACTER"; break;
            case T::Op:
                what = tok_.text.size() == 1 ? "'" + tok_.text + "'" : tok_.text;
                if (tok_.text == "..") what = "..";
                break;
        }
        size_t at = tok_.t == T::End ? (src_.empty() ? 0 : src_.size() - 1) : tok_.start;
        throw ParseError{"syntax error, unexpected " + what + expecting, at, true};
    }
    [[noreturn]] void fail(const std::string& msg, size_t pos) { throw ParseError{msg, pos, false}; }

    // ---- lexer ----
    void skip_ws() {
        for (;;) {
            while (pos_ < src_.size() && std::isspace(static_cast<unsigned char>(src_[pos_]))) ++pos_;
            if (pos_ < src_.size() && src_[pos_] == '#') {
                while (pos_ < src_.size() && src_[pos_] != '\n') {
                    if (src_[pos_] == '\\' && pos_ + 1 < src_.size()) ++pos_;
                    ++pos_;
                }
                continue;
            }
            break;
        }
    }
    void advance() {
        skip_ws();
        tok_ = Tok{};
        tok_.start = pos_;
        if (pos_ >= src_.size()) {
            tok_.t = T::End;
            tok_.end = pos_;
            return;
        }
        char c = src_[pos_];
        auto take_ident = [&] {
            size_t s = pos_;
            for (;;) {
                while (pos_ < src_.size() && ident_char(src_[pos_])) ++pos_;
                if (pos_ + 2 < src_.size() && src_[pos_] == ':' && src_[pos_ + 1] == ':' && ident_start(src_[pos_ + 2])) {
                    pos_ += 2;
                    continue;
                }
                break;
            }
            return src_.substr(s, pos_ - s);
        };
        if (ident_start(c)) {
            tok_.text = take_ident();
            tok_.t = is_keyword(tok_.text) ? T::Keyword : T::Ident;
        } else if (c == '.' && pos_ + 1 < src_.size() && ident_start(src_[pos_ + 1])) {
            ++pos_;
            size_t s = pos_;
            while (pos_ < src_.size() && ident_char(src_[pos_])) ++pos_;
            tok_.text = src_.substr(s, pos_ - s);
            tok_.t = T::Field;
        } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                   (c == '.' && pos_ + 1 < src_.size() && std::isdigit(static_cast<unsigned char>(src_[pos_ + 1])))) {
            size_t s = pos_;
            while (pos_ < src_.size() && std::isdigit(static_cast<unsigned char>(src_[pos_]))) ++pos_;
            if (pos_ < src_.size() && src_[pos_] == '.') {
                ++pos_;
                while (pos_ < src_.size() && std::isdigit(static_cast<unsigned char>(src_[pos_]))) ++pos_;
            }
            if (pos_ < src_.size() && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
                size_t save = pos_;
                ++pos_;
                if (pos_ < src_.size() && (src_[pos_] == '+' || src_[pos_] == '-')) ++pos_;
                if (pos_ < src_.size() && std::isdigit(static_cast<unsigned char>(src_[pos_]))) {
                    while (pos_ < src_.size() && std::isdigit(static_cast<unsigned char>(src_[pos_]))) ++pos_;
                } else {
                    pos_ = save;
                }
            }
            tok_.text = src_.substr(s, pos_ - s);
            tok_.t = T::Num;
        } else if (c == '"') {
            ++pos_;
            tok_.t = T::QStart;
        } else if (c == '$') {
            ++pos_;
            size_t save = pos_;
            skip_ws();
            if (pos_ < src_.size() && ident_start(src_[pos_])) {
                std::string id = take_ident();
                if (id == "__loc__") {
                    tok_.t = T::Loc;
                } else {
                    tok_.t = T::Var;
                    tok_.text = id;
                }
            } else {
                pos_ = save;
                tok_.t = T::Var;  // a lone '$': the parser reports it
                tok_.text = "";
            }
        } else if (c == '@') {
            ++pos_;
            size_t s = pos_;
            while (pos_ < src_.size() && ident_char(src_[pos_])) ++pos_;
            tok_.text = src_.substr(s, pos_ - s);
            tok_.t = T::Format;
        } else {
            static const char* const ops[] = {"?//", "//=", "!=", "==", "//", "|=", "+=", "-=", "*=", "/=", "%=",
                                              "<=", ">=", "..", ".", "[", "]", "{", "}", "(", ")", "|", ",",
                                              ":", ";", "=", "<", ">", "+", "-", "*", "/", "%", "?"};
            tok_.t = T::Invalid;
            for (const char* op : ops) {
                size_t n = std::strlen(op);
                if (src_.compare(pos_, n, op) == 0) {
                    tok_.t = T::Op;
                    tok_.text = op;
                    pos_ += n;
                    break;
                }
            }
            if (tok_.t == T::Invalid) ++pos_;
        }
        tok_.end = pos_;
    }

    bool is_op(const char* s) const { return tok_.t == T::Op && tok_.text == s; }
    bool is_kw(const char* s) const { return tok_.t == T::Keyword && tok_.text == s; }
    void expect_op(const char* s) {
        if (!is_op(s)) unexpected();
        advance();
    }
    void expect_kw(const char* s) {
        if (!is_kw(s)) unexpected();
        advance();
    }

    // ---- grammar ----
    // Pipe: def ...; Pipe | Term as Patterns | Pipe | label $x | Pipe | Comma ('|' Pipe)?
    Node* parse_pipe() {
        Nest nest(*this);
        if (is_kw("def")) {
            Node* defs = mk(Op::FuncDefs);
            while (is_kw("def")) defs->kids.push_back(parse_def());
            if (tok_.t == T::End || is_op(")") || is_op("]") || is_op("}") || is_op(";")) {
                defs->kids.push_back(mk(Op::Identity));
                defs->kids.back()->opt = tok_.t == T::End;  // a library: definitions only
            } else {
                defs->kids.push_back(parse_pipe());
            }
            return defs;
        }
        Node* lhs = parse_comma();
        if (is_op("|")) {
            Node* p = mk(Op::Pipe);
            advance();
            p->kids = {lhs, parse_pipe()};
            return p;
        }
        return lhs;
    }

    Node* parse_def() {
        Node* d = mk(Op::Def);
        expect_kw("def");
        if (tok_.t != T::Ident && tok_.t != T::Keyword) unexpected();
        d->name = tok_.text;
        advance();
        if (is_op("(")) {
            advance();
            for (;;) {
                if (tok_.t == T::Var) {
                    d->params.push_back("$" + tok_.text);
                } else if (tok_.t == T::Ident || tok_.t == T::Keyword) {
                    d->params.push_back(tok_.text);
                } else {
                    unexpected();
                }
                advance();
                if (is_op(";")) {
                    advance();
                    continue;
                }
                expect_op(")");
                break;
            }
        }
        expect_op(":");
        d->kids.push_back(parse_pipe());
        expect_op(";");
        return d;
    }

    Node* parse_comma() {
        Node* lhs = parse_alt();
        while (is_op(",")) {
            Node* c = mk(Op::Comma);
            advance();
            c->kids = {lhs, parse_alt()};
            lhs = c;
        }
        return lhs;
    }

    // '//' is right-associative, below the assignment operators.
    Node* parse_alt() {
        Node* lhs = parse_assign();
        if (is_op("//")) {
            Node* a = mk(Op::Alt);
            advance();
            a->kids = {lhs, parse_alt()};
            return a;
        }
        return lhs;
    }

    Node* parse_assign() {
        Node* lhs = parse_or();
        static const char* const ops[] = {"=", "|=", "+=", "-=", "*=", "/=", "%=", "//="};
        for (const char* op : ops) {
            if (is_op(op)) {
                Node* a = mk(Op::Assign);
                a->name = op;
                advance();
                a->kids = {lhs, parse_alt()};  // nonassoc; the right side may hold '//'
                return a;
            }
        }
        return lhs;
    }

    Node* parse_or() {
        Node* lhs = parse_and();
        while (is_kw("or")) {
            Node* o = mk(Op::Or);
            advance();
            o->kids = {lhs, parse_and()};
            lhs = o;
        }
        return lhs;
    }
    Node* parse_and() {
        Node* lhs = parse_cmp();
        while (is_kw("and")) {
            Node* o = mk(Op::And);
            advance();
            o->kids = {lhs, parse_cmp()};
            lhs = o;
        }
        return lhs;
    }
    Node* parse_cmp() {
        Node* lhs = parse_add();
        static const char* const ops[] = {"==", "!=", "<", "<=", ">", ">="};
        for (const char* op : ops) {
            if (is_op(op)) {
                Node* b = mk(Op::Binop);
                b->name = op;
                advance();
                b->kids = {lhs, parse_add()};
                for (const char* op2 : ops)
                    if (is_op(op2)) unexpected();  // nonassoc
                return b;
            }
        }
        return lhs;
    }
    Node* parse_add() {
        Node* lhs = parse_mul();
        while (is_op("+") || is_op("-")) {
            Node* b = mk(Op::Binop);
            b->name = tok_.text;
            advance();
            b->kids = {lhs, parse_mul()};
            lhs = b;
        }
        return lhs;
    }
    Node* parse_mul() {
        Node* lhs = parse_unary();
        while (is_op("*") || is_op("/") || is_op("%")) {
            Node* b = mk(Op::Binop);
            b->name = tok_.text;
            advance();
            b->kids = {lhs, parse_unary()};
            lhs = b;
        }
        return lhs;
    }

    // An operand: the constructs whose body extends to the right end (def, as, label) appear here too.
    Node* parse_unary() {
        Nest nest(*this);
        if (is_op("-")) {
            Node* n = mk(Op::Neg);
            advance();
            n->kids = {parse_unary()};
            return n;
        }
        if (is_kw("def")) {
            Node* defs = mk(Op::FuncDefs);
            while (is_kw("def")) defs->kids.push_back(parse_def());
            defs->kids.push_back(parse_pipe());
            return defs;
        }
        if (is_kw("label")) {
            Node* l = mk(Op::Label);
            advance();
            if (tok_.t != T::Var) unexpected();
            l->name = tok_.text;
            advance();
            expect_op("|");
            l->kids = {parse_pipe()};
            return l;
        }
        if (is_kw("try")) {
            Node* t = mk(Op::Try);
            advance();
            Node* body = parse_postfix();
            Node* handler = nullptr;
            if (is_kw("catch")) {
                advance();
                handler = parse_postfix();
            }
            t->kids = {body, handler};
            return t;
        }
        Node* term = parse_postfix();
        if (is_kw("as")) {
            Node* a = mk(Op::As);
            advance();
            a->kids.push_back(term);
            a->kids.push_back(parse_pattern());
            while (is_op("?//")) {
                advance();
                a->kids.push_back(parse_pattern());
            }
            expect_op("|");
            a->kids.push_back(parse_pipe());
            return a;
        }
        return term;
    }

    Node* parse_pattern() {
        Nest nest(*this);
        if (tok_.t == T::Var) {
            Node* p = mk(Op::PVar);
            p->name = tok_.text;
            advance();
            return p;
        }
        if (is_op("[")) {
            Node* p = mk(Op::PArray);
            advance();
            for (;;) {
                p->kids.push_back(parse_pattern());
                if (is_op(",")) {
                    advance();
                    continue;
                }
                expect_op("]");
                break;
            }
            return p;
        }
        if (is_op("{")) {
            Node* p = mk(Op::PObject);
            advance();
            for (;;) {
                Node* key = nullptr;
                Node* val = nullptr;
                if (tok_.t == T::Var) {
                    key = mk(Op::PVar);
                    key->name = tok_.text;
                    advance();
                    if (is_op(":")) {
                        advance();
                        val = parse_pattern();
                    }
                } else if (tok_.t == T::Ident || tok_.t == T::Keyword) {
                    key = mk(Op::Literal);
                    key->val = Value::string(tok_.text);
                    advance();
                    expect_op(":");
                    val = parse_pattern();
                } else if (tok_.t == T::QStart) {
                    key = parse_string("");
                    expect_op(":");
                    val = parse_pattern();
                } else if (is_op("(")) {
                    advance();
                    key = parse_pipe();
                    expect_op(")");
                    expect_op(":");
                    val = parse_pattern();
                } else {
                    unexpected();
                }
                p->kids.push_back(key);
                p->kids.push_back(val);
                if (is_op(",")) {
                    advance();
                    continue;
                }
                expect_op("}");
                break;
            }
            return p;
        }
        unexpected();
    }

    Node* index_node(Node* term, Node* idx) {
        Node* n = mk(Op::Index);
        n->kids = {term, idx};
        return n;
    }
    Node* str_lit(const std::string& s) {
        Node* n = mk(Op::Literal);
        n->val = Value::string(s);
        return n;
    }
    Node* wrap_try(Node* n) {
        Node* t = mk(Op::Try);
        t->kids = {n, nullptr};
        return t;
    }

    // Postfix: Term followed by .foo ."foo" [..] ? etc.
    Node* parse_postfix() {
        Node* t = parse_term();
        for (;;) {
            if (tok_.t == T::Field) {
                t = index_node(t, str_lit(tok_.text));
                advance();
            } else if (is_op(".") ) {
                // Term . "str"  or Term . [ ...
                advance();
                if (tok_.t == T::QStart) {
                    t = index_node(t, parse_string(""));
                } else if (is_op("[")) {
                    t = parse_bracket(t);
                } else {
                    unexpected();
                }
            } else if (is_op("[")) {
                t = parse_bracket(t);
            } else if (is_op("?")) {
                advance();
                t = wrap_try(t);
            } else if (is_kw("as") || true) {
                break;
            }
        }
        return t;
    }

    Node* parse_bracket(Node* t) {
        expect_op("[");
        if (is_op("]")) {
            advance();
            Node* n = mk(Op::Iterate);
            n->kids = {t};
            return n;
        }
        if (is_op(":")) {
            advance();
            Node* n = mk(Op::Slice);
            Node* to = parse_pipe();
            expect_op("]");
            n->kids = {t, nullptr, to};
            return n;
        }
        Node* from = parse_pipe();
        if (is_op(":")) {
            advance();
            Node* n = mk(Op::Slice);
            Node* to = nullptr;
            if (!is_op("]")) to = parse_pipe();
            expect_op("]");
            n->kids = {t, from, to};
            return n;
        }
        expect_op("]");
        return index_node(t, from);
    }

    // A string literal (after QStart) with interpolations; fmt: the format applied to them.
    Node* parse_string(const std::string& fmt) {
        if (tok_.t != T::QStart) unexpected();
        size_t start = tok_.start;
        Node* s = mk(Op::Str);
        s->name = fmt;
        std::string lit;
        size_t i = pos_;
        auto flush = [&] {
            if (!lit.empty()) {
                s->kids.push_back(str_lit(lit));
                s->kids.back()->opt = true;  // a text part
                lit.clear();
            }
        };
        for (;;) {
            if (i >= src_.size()) {
                pos_ = i;
                tok_.t = T::End;
                tok_.start = src_.size();
                unexpected();
            }
            char c = src_[i];
            if (c == '"') {
                ++i;
                break;
            }
            if (c != '\\') {
                lit += c;
                ++i;
                continue;
            }
            if (i + 1 >= src_.size()) {
                ++i;
                continue;
            }
            char e = src_[i + 1];
            i += 2;
            switch (e) {
                case '"': lit += '"'; break;
                case '\\': lit += '\\'; break;
                case '/': lit += '/'; break;
                case 'b': lit += '\b'; break;
                case 'f': lit += '\f'; break;
                case 'n': lit += '\n'; break;
                case 'r': lit += '\r'; break;
                case 't': lit += '\t'; break;
                case 'u': {
                    auto hex = [&](size_t at, unsigned& v) {
                        if (at + 4 > src_.size()) return false;
                        v = 0;
                        for (size_t k = 0; k < 4; ++k) {
                            char h = src_[at + k];
                            if (!std::isxdigit(static_cast<unsigned char>(h))) return false;
                            v = v * 16 + static_cast<unsigned>(std::isdigit(static_cast<unsigned char>(h)) ? h - '0' : (std::tolower(h) - 'a' + 10));
                        }
                        return true;
                    };
                    unsigned cp;
                    if (!hex(i, cp)) fail("Invalid escape", i);
                    i += 4;
                    if (cp >= 0xd800 && cp < 0xdc00) {
                        unsigned lo;
                        if (i + 6 <= src_.size() && src_[i] == '\\' && src_[i + 1] == 'u' && hex(i + 2, lo) &&
                            lo >= 0xdc00 && lo < 0xe000) {
                            i += 6;
                            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                        } else {
                            cp = 0xfffd;
                        }
                    } else if (cp >= 0xdc00 && cp < 0xe000) {
                        cp = 0xfffd;
                    }
                    if (cp < 0x80) {
                        lit += static_cast<char>(cp);
                    } else if (cp < 0x800) {
                        lit += static_cast<char>(0xc0 | (cp >> 6));
                        lit += static_cast<char>(0x80 | (cp & 0x3f));
                    } else if (cp < 0x10000) {
                        lit += static_cast<char>(0xe0 | (cp >> 12));
                        lit += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
                        lit += static_cast<char>(0x80 | (cp & 0x3f));
                    } else {
                        lit += static_cast<char>(0xf0 | (cp >> 18));
                        lit += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
                        lit += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
                        lit += static_cast<char>(0x80 | (cp & 0x3f));
                    }
                    break;
                }
                case '(': {
                    flush();
                    pos_ = i;
                    advance();
                    Node* e2 = parse_pipe();
                    if (!is_op(")")) unexpected();
                    if (e2->op == Op::Literal) e2->opt = false;  // an interpolated value, not text
                    s->kids.push_back(e2);
                    i = tok_.end;
                    break;
                }
                default:
                    fail(std::string("Invalid escape at line 1, column 4 (while parsing '\"\\") + e + "\"')", i - 2);
            }
        }
        flush();
        pos_ = i;
        (void)start;
        advance();
        if (s->kids.size() == 1 && s->kids[0]->op == Op::Literal && s->kids[0]->opt && fmt.empty()) return s->kids[0];
        if (s->kids.empty() && fmt.empty()) return str_lit("");
        return s;
    }

    Node* parse_term() {
        Nest nest(*this);
        switch (tok_.t) {
            case T::Num: {
                Node* n = mk(Op::Literal);
                n->val = number_from_token(tok_.text);
                advance();
                return n;
            }
            case T::QStart: return parse_string("");
            case T::Format: {
                std::string fmt = tok_.text;
                Node* f = mk(Op::Format);
                f->name = fmt;
                advance();
                if (tok_.t == T::QStart) return parse_string(fmt);
                return f;
            }
            case T::Field: {
                Node* n = index_node(mk(Op::Identity), str_lit(tok_.text));
                advance();
                return n;
            }
            case T::Var: {
                if (tok_.text.empty()) unexpected();
                Node* v = mk(Op::Var);
                v->name = tok_.text;
                advance();
                return v;
            }
            case T::Loc: {
                Node* l = mk(Op::Loc);
                advance();
                return l;
            }
            case T::Keyword: {
                if (is_kw("include") || is_kw("import")) unexpected(", expecting end of file");
                if (is_kw("if")) return parse_if();
                if (is_kw("reduce") || is_kw("foreach")) return parse_reduce();
                if (is_kw("try") || is_kw("def") || is_kw("label")) return parse_unary();
                unexpected();
            }
            case T::Ident: {
                if (tok_.text == "null" || tok_.text == "true" || tok_.text == "false") {
                    Node* l = mk(Op::Literal);
                    l->val = tok_.text == "null" ? Value() : Value::boolean(tok_.text == "true");
                    advance();
                    return l;
                }
                Node* c = mk(Op::Call);
                c->name = tok_.text;
                advance();
                if (is_op("(")) {
                    advance();
                    for (;;) {
                        c->kids.push_back(parse_pipe());
                        if (is_op(";")) {
                            advance();
                            continue;
                        }
                        expect_op(")");
                        break;
                    }
                }
                if (c->name == "break" && c->kids.empty() && tok_.t == T::Var) {
                    // break $name
                    c->op = Op::Break;
                    c->name = tok_.text;
                    advance();
                }
                return c;
            }
            case T::Op: {
                if (is_op(".")) {
                    size_t dotpos = tok_.start;
                    advance();
                    if (tok_.t == T::QStart && tok_.start == dotpos + 1) {
                        return index_node(mk(Op::Identity), parse_string(""));
                    }
                    if (tok_.t == T::QStart) return index_node(mk(Op::Identity), parse_string(""));
                    if (is_op("[")) return parse_bracket(mk(Op::Identity));
                    return mk(Op::Identity);
                }
                if (is_op("..")) {
                    advance();
                    return mk(Op::Recurse);
                }
                if (is_op("(")) {
                    advance();
                    Node* e = parse_pipe();
                    expect_op(")");
                    return e;
                }
                if (is_op("[")) {
                    Node* a = mk(Op::ArrayCons);
                    advance();
                    if (is_op("]")) {
                        advance();
                        a->kids = {nullptr};
                        return a;
                    }
                    a->kids = {parse_pipe()};
                    expect_op("]");
                    return a;
                }
                if (is_op("{")) return parse_object();
                if (is_op("-")) return parse_unary();
                unexpected();
            }
            default: unexpected();
        }
    }

    Node* parse_if() {
        Node* n = mk(Op::If);
        expect_kw("if");
        n->kids.push_back(parse_pipe());
        expect_kw("then");
        n->kids.push_back(parse_pipe());
        for (;;) {
            if (is_kw("elif")) {
                advance();
                n->kids.push_back(parse_pipe());
                expect_kw("then");
                n->kids.push_back(parse_pipe());
                continue;
            }
            if (is_kw("else")) {
                advance();
                n->kids.push_back(parse_pipe());
                expect_kw("end");
                return n;
            }
            expect_kw("end");
            n->kids.push_back(nullptr);
            return n;
        }
    }

    Node* parse_reduce() {
        bool fe = is_kw("foreach");
        Node* n = mk(fe ? Op::Foreach : Op::Reduce);
        advance();
        Node* src = parse_postfix();
        expect_kw("as");
        Node* pats = mk(Op::PArray);  // the alternatives, as a list
        pats->kids.push_back(parse_pattern());
        while (is_op("?//")) {
            advance();
            pats->kids.push_back(parse_pattern());
        }
        expect_op("(");
        Node* init = parse_pipe();
        expect_op(";");
        Node* update = parse_pipe();
        Node* extract = nullptr;
        if (fe && is_op(";")) {
            advance();
            extract = parse_pipe();
        }
        expect_op(")");
        n->kids = {src, pats, init, update};
        if (fe) n->kids.push_back(extract);
        return n;
    }

    // Object construction: {k: v, "k": v, (e): v, $x, k, "k", @fmt "..": v, $__loc__}
    Node* parse_object() {
        Node* o = mk(Op::ObjectCons);
        expect_op("{");
        if (is_op("}")) {
            advance();
            return o;
        }
        for (;;) {
            Node* key = nullptr;
            Node* val = nullptr;
            if (tok_.t == T::Var) {
                key = str_lit(tok_.text);
                Node* v = mk(Op::Var);
                v->name = tok_.text;
                advance();
                if (is_op(":")) {
                    key = v;  // {$k: v}: the variable's value is the key
                } else {
                    val = v;
                }
            } else if (tok_.t == T::Loc) {
                key = str_lit("__loc__");
                val = mk(Op::Loc);
                advance();
            } else if (tok_.t == T::Ident || tok_.t == T::Keyword) {
                key = str_lit(tok_.text);
                advance();
            } else if (tok_.t == T::Num) {
                Node* lit = mk(Op::Literal);
                lit->val = number_from_token(tok_.text);
                key = lit;
                advance();
            } else if (tok_.t == T::QStart) {
                key = parse_string("");
            } else if (tok_.t == T::Format) {
                std::string fmt = tok_.text;
                advance();
                key = parse_string(fmt);
            } else if (is_op("(")) {
                size_t paren = tok_.start;
                advance();
                key = parse_pipe();
                expect_op(")");
                if (!is_op(":")) unexpected();
                if (key->op == Op::Literal) key->pos = paren;
            } else {
                unexpected();
            }
            if (!val) {
                if (is_op(":")) {
                    advance();
                    val = parse_objval();
                } else {
                    // shorthand {a} / {"a"}: .a
                    val = index_node(mk(Op::Identity), key);
                }
            }
            o->kids.push_back(key);
            o->kids.push_back(val);
            if (is_op(",")) {
                advance();
                if (is_op("}")) {  // jq 1.7 accepts a trailing comma? it does not; report
                    unexpected();
                }
                continue;
            }
            expect_op("}");
            break;
        }
        return o;
    }

    // ObjVal: a term, possibly followed by '|' terms (no ',' without parentheses)
    Node* parse_objval() {
        Node* v = parse_alt_noncomma();
        while (is_op("|")) {
            Node* p = mk(Op::Pipe);
            advance();
            p->kids = {v, parse_alt_noncomma()};
            v = p;
        }
        return v;
    }
    Node* parse_alt_noncomma() { return parse_alt(); }

    Program& prog_;
    const std::string& src_;
    size_t pos_ = 0;
    Tok tok_;
    size_t line_pos_ = 0;
    int line_ = 1;
    int nesting_ = 0;
    uintptr_t stack_base_ = 0;
    size_t stack_limit_ = 0;
};

// jq's locfile_locate: "MSG at <top-level>, line N:\n<that line><spaces up to the column>".
std::string locate(const std::string& src, size_t pos, const std::string& msg, const std::string& file) {
    size_t ls = 0;
    int line = 1;
    for (size_t i = 0; i < pos && i < src.size(); ++i) {
        if (src[i] == '\n') {
            ++line;
            ls = i + 1;
        }
    }
    size_t le = src.find('\n', ls);
    le = le == std::string::npos ? src.size() : le;
    std::string out = msg + " at " + file + ", line " + std::to_string(line) + ":\n" + src.substr(ls, le - ls);
    out.append(pos > ls ? pos - ls : 0, ' ');
    return out + "\n";
}

}  // namespace

bool Program::library() const {
    const Node* body = root;
    while (body && body->op == Op::FuncDefs) body = body->kids.back();
    return body && body->op == Op::Identity && body->opt;
}

std::shared_ptr<Program> parse_program(const std::string& source, std::string& errors, int& nerrors,
                                       const std::string& file) {
    auto prog = std::make_shared<Program>();
    prog->source = source;
    prog->file = file;
    Parser p(*prog, prog->source);
    try {
        prog->root = p.parse_top();
    } catch (const ParseError& e) {
        std::string m = "jq: error: " + e.msg + (e.unexpected ? " (Unix shell quoting issues?)" : "");
        errors = locate(source, e.pos, m, file);
        nerrors = 1;
        return nullptr;
    }
    nerrors = 0;
    return prog;
}

}  // namespace bashkit::utils::jq
