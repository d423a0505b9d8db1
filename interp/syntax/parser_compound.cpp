// Recursive-descent parser for bash: compound commands (function definitions, coproc, { }, ( ), if, while,
// until, for, select, case) and [[ ]].
#include <algorithm>
#include <cstring>

#include "interp/syntax/parser_impl.hpp"

namespace bashkit::syntax::detail {
namespace {

constexpr std::string_view kUnaryTests[] = {"-a", "-b", "-c", "-d", "-e", "-f", "-g", "-h", "-k",
                                            "-p", "-r", "-s", "-t", "-u", "-w", "-x", "-G", "-L",
                                            "-N", "-O", "-S", "-z", "-n", "-o", "-v", "-R"};
constexpr std::string_view kBinaryTests[] = {"==", "=",   "!=",  "=~",  "-eq", "-ne", "-lt", "-le",
                                             "-gt", "-ge", "-nt", "-ot", "-ef"};

}  // namespace

// ---------------------------------------------------------------- compound commands

bool Parser::at_compound_start() {
    Token t = lexer_.next();
    if (t.kind == Tok::LParen) return true;
    if (t.kind != Tok::Word) return false;
    for (auto kw : {"{", "if", "while", "until", "for", "select", "case", "[["})
        if (lexer_.at_word(kw)) return true;
    return false;
}

Command* Parser::parse_funcdef_body(FuncDef* f) {
    skip_newlines();
    if (failed()) return nullptr;
    Token t = lexer_.next();
    if (t.kind == Tok::Eof) {
        error_eof();
        return nullptr;
    }
    if (!at_compound_start()) {
        error_near(t);
        return nullptr;
    }
    Depth d(*this, t.pos);
    if (!d.ok) return nullptr;
    f->body = parse_command();
    if (!f->body || failed()) return nullptr;
    return f;
}

Command* Parser::parse_function_kw() {
    Pos p = lexer_.pos();
    lexer_.advance_joined(8);
    Token t = lexer_.next();
    if (t.kind != Tok::Word) {
        error_near(t);
        return nullptr;
    }
    Word* w = read_word(WordMode::Normal);
    if (failed()) return nullptr;
    FuncDef* f = arena_.node<FuncDef>(p);
    f->keyword = true;
    f->name = plain_text(w);
    if (f->name.empty() && !w->parts.empty()) f->name = arena_.str(src_.substr(t.off, lexer_.off() - t.off));
    t = lexer_.next();
    if (t.kind == Tok::LParen) {
        lexer_.consume(t);
        Token c = lexer_.next();
        if (c.kind != Tok::RParen) {
            error_near(c);
            return nullptr;
        }
        lexer_.consume(c);
        f->parens = true;
    }
    return parse_funcdef_body(f);
}

Command* Parser::parse_coproc() {
    Pos p = lexer_.pos();
    lexer_.advance_joined(6);
    Coproc* c = arena_.node<Coproc>(p);
    Token t = lexer_.next();
    if (t.kind == Tok::Newline || t.kind == Tok::Eof) {
        error_near(t);
        return nullptr;
    }
    Depth d(*this, p);
    if (!d.ok) return nullptr;
    if (t.kind == Tok::Word && !at_compound_start()) {
        LexState st = lexer_.save();
        Word* w = read_word(WordMode::Normal);
        if (failed()) return nullptr;
        std::string_view name = plain_text(w);
        if (!name.empty() && at_compound_start()) {
            c->name = name;
        } else {
            lexer_.restore(st);
        }
    }
    c->body = parse_command();
    if (!c->body || failed()) return nullptr;
    return c;
}

Command* Parser::parse_brace() {
    Pos p = lexer_.pos();
    Depth d(*this, p);
    if (!d.ok) return nullptr;
    lexer_.advance_joined(1);
    Brace* b = arena_.node<Brace>(p);
    Stmts body = parse_stmts(true);
    if (failed() || !expect_word("}")) return nullptr;
    b->body = arena_.list<Stmt*>(body);
    return b;
}

Command* Parser::parse_subshell() {
    Pos p = lexer_.pos();
    Depth d(*this, p);
    if (!d.ok) return nullptr;
    lexer_.advance_joined(1);
    Subshell* s = arena_.node<Subshell>(p);
    Stmts body = parse_stmts(true);
    if (failed()) return nullptr;
    Token t = lexer_.next();
    if (t.kind != Tok::RParen) {
        if (t.kind == Tok::Eof)
            error_eof();
        else
            error_near(t);
        return nullptr;
    }
    lexer_.consume(t);
    s->body = arena_.list<Stmt*>(body);
    return s;
}

Command* Parser::parse_paren_command() {
    if (lexer_.peekj(1) != '(') return parse_subshell();
    Pos p = lexer_.pos();
    Depth d(*this, p);
    if (!d.ok) return nullptr;
    LexState st = lexer_.save();
    lexer_.advance_joined(2);
    Word* raw = nullptr;
    const size_t docs = heredocs_.size();
    ++speculating_;
    bool ok = read_arith_raw(ArithEnd::DParen, p, raw);
    --speculating_;
    if (failed()) return nullptr;
    if (!ok) {
        // the here-documents its substitutions left open are left open again as the subshell reads them
        heredocs_.resize(docs);
        // bash quirk: when the `)` that ended the arithmetic attempt is the last byte of the input (but
        // for a final newline), bash counts that last line twice in its end-of-file error
        uint32_t at = lexer_.off() + 1;
        if (at == lexer_.end() || (at + 1 == lexer_.end() && src_[at] == '\n')) ++eof_line_;
        lexer_.restore(st);
        return parse_subshell();
    }
    ArithCmd* c = arena_.node<ArithCmd>(p);
    c->raw = raw;
    c->expr = arith_from_word(raw, &c->exact);
    return failed() ? nullptr : c;
}

Command* Parser::parse_if() {
    Pos p = lexer_.pos();
    Depth d(*this, p);
    if (!d.ok) return nullptr;
    lexer_.advance_joined(2);
    If* n = arena_.node<If>(p);
    SmallVec<IfClause, 4> clauses;
    Pos cp = p;
    for (;;) {
        IfClause cl;
        cl.pos = cp;
        Stmts cond = parse_stmts(true);
        if (failed() || !expect_word("then")) return nullptr;
        Stmts body = parse_stmts(true);
        if (failed()) return nullptr;
        cl.cond = arena_.list<Stmt*>(cond);
        cl.body = arena_.list<Stmt*>(body);
        clauses.push_back(cl);
        Token t = lexer_.next();
        if (t.kind == Tok::Word && lexer_.at_word("elif")) {
            cp = t.pos;
            lexer_.advance_joined(4);
            continue;
        }
        if (t.kind == Tok::Word && lexer_.at_word("else")) {
            lexer_.advance_joined(4);
            Stmts eb = parse_stmts(true);
            if (failed()) return nullptr;
            n->has_else = true;
            n->else_body = arena_.list<Stmt*>(eb);
        }
        if (!expect_word("fi")) return nullptr;
        break;
    }
    n->clauses = arena_.list<IfClause>(clauses);
    return n;
}

Command* Parser::parse_while(bool until) {
    Pos p = lexer_.pos();
    Depth d(*this, p);
    if (!d.ok) return nullptr;
    lexer_.advance_joined(until ? 5 : 5);
    While* w = arena_.node<While>(p);
    w->until = until;
    Stmts cond = parse_stmts(true);
    if (failed() || !expect_word("do")) return nullptr;
    Stmts body = parse_stmts(true);
    if (failed() || !expect_word("done")) return nullptr;
    w->cond = arena_.list<Stmt*>(cond);
    w->body = arena_.list<Stmt*>(body);
    return w;
}

Command* Parser::parse_for(bool select) {
    Pos p = lexer_.pos();
    Depth d(*this, p);
    if (!d.ok) return nullptr;
    lexer_.advance_joined(select ? 6 : 3);
    lexer_.skip_blanks();
    if (!select && lexer_.peekj() == '(' && lexer_.peekj(1) == '(') return parse_arith_for(p);
    // after an alias whose value ends with a blank (`alias FOR='for '`), each word may be an alias too
    while (expand_alias(false)) {
    }
    Token t = lexer_.next();
    if (t.kind != Tok::Word) {
        error_near(t);
        return nullptr;
    }
    Pos var_pos = t.pos;
    uint32_t from = lexer_.off();
    read_word(WordMode::Normal);
    if (failed()) return nullptr;
    std::string_view var = joined(from, lexer_.off());
    bool has_in = false;
    SmallVec<Word*, 8> items;
    skip_newlines();
    while (expand_alias(false)) {
    }
    t = lexer_.next();
    if (t.kind == Tok::Word && lexer_.at_word("in")) {
        lexer_.advance_joined(2);
        has_in = true;
        for (;;) {
            if (expand_alias(false)) continue;
            t = lexer_.next();
            if (t.kind == Tok::Word) {
                Word* w = read_word(WordMode::Normal);
                if (failed()) return nullptr;
                items.push_back(w);
                continue;
            }
            if (t.kind == Tok::Semi) {
                lexer_.consume(t);
            } else if (t.kind != Tok::Newline && t.kind != Tok::Eof) {
                error_near(t);
                return nullptr;
            }
            break;
        }
    } else if (t.kind == Tok::Semi) {
        lexer_.consume(t);
    }
    skip_newlines();
    if (failed()) return nullptr;
    t = lexer_.next();
    bool brace = false;
    if (t.kind == Tok::Word && lexer_.at_word("do")) {
        lexer_.advance_joined(2);
    } else if (t.kind == Tok::Word && lexer_.at_word("{")) {
        lexer_.advance_joined(1);
        brace = true;
    } else {
        if (t.kind == Tok::Eof)
            error_eof();
        else
            error_near(t);
        return nullptr;
    }
    Stmts body = parse_stmts(true);
    if (failed() || !expect_word(brace ? "}" : "done")) return nullptr;
    if (select) {
        Select* s = arena_.node<Select>(p);
        s->var = var;
        s->var_pos = var_pos;
        s->has_in = has_in;
        s->items = arena_.list<Word*>(items);
        s->body = arena_.list<Stmt*>(body);
        return s;
    }
    For* f = arena_.node<For>(p);
    f->var = var;
    f->var_pos = var_pos;
    f->has_in = has_in;
    f->items = arena_.list<Word*>(items);
    f->brace_body = brace;
    f->body = arena_.list<Stmt*>(body);
    return f;
}

Command* Parser::parse_arith_for(Pos p) {
    Pos start = lexer_.pos();
    lexer_.advance_joined(2);
    ArithFor* f = arena_.node<ArithFor>(p);
    ArithPart* parts[3] = {&f->init, &f->cond, &f->step};
    bool closed = false;
    for (int i = 0; i < 3; ++i) {
        if (closed) {
            error(start, "syntax error: arithmetic expression required");
            return nullptr;
        }
        char term = 0;
        Word* raw = nullptr;
        bool ok = read_arith_raw(ArithEnd::ForPart, start, raw, &term);
        if (failed()) return nullptr;
        if (!ok) {
            error(lexer_.pos(), "syntax error near unexpected token `)'");
            return nullptr;
        }
        parts[i]->raw = raw;
        parts[i]->expr = arith_from_word(raw, &parts[i]->exact);
        if (failed()) return nullptr;
        if (term == ')') closed = true;
    }
    if (!closed) {
        error(start, "syntax error: `;' unexpected");
        return nullptr;
    }
    Token t = lexer_.next();
    if (t.kind == Tok::Semi) lexer_.consume(t);
    skip_newlines();
    if (failed()) return nullptr;
    t = lexer_.next();
    bool brace = false;
    if (t.kind == Tok::Word && lexer_.at_word("do")) {
        lexer_.advance_joined(2);
    } else if (t.kind == Tok::Word && lexer_.at_word("{")) {
        lexer_.advance_joined(1);
        brace = true;
    } else {
        if (t.kind == Tok::Eof)
            error_eof();
        else
            error_near(t);
        return nullptr;
    }
    Stmts body = parse_stmts(true);
    if (failed() || !expect_word(brace ? "}" : "done")) return nullptr;
    f->brace_body = brace;
    f->body = arena_.list<Stmt*>(body);
    return f;
}

Command* Parser::parse_case() {
    Pos p = lexer_.pos();
    Depth d(*this, p);
    if (!d.ok) return nullptr;
    lexer_.advance_joined(4);
    Case* c = arena_.node<Case>(p);
    Token t = lexer_.next();
    if (t.kind != Tok::Word) {
        error_near(t);
        return nullptr;
    }
    c->subject = read_word(WordMode::Normal);
    if (failed()) return nullptr;
    skip_newlines();
    if (failed() || !expect_word("in")) return nullptr;
    SmallVec<CaseItem, 8> items;
    for (;;) {
        skip_newlines();
        if (failed()) return nullptr;
        t = lexer_.next();
        if (t.kind == Tok::Word && lexer_.at_word("esac")) {
            lexer_.advance_joined(4);
            break;
        }
        if (t.kind == Tok::Eof) {
            error_eof();
            return nullptr;
        }
        CaseItem it;
        it.pos = t.pos;
        if (t.kind == Tok::LParen) {
            lexer_.consume(t);
            t = lexer_.next();
        }
        SmallVec<Word*, 8> pats;
        for (;;) {
            if (t.kind != Tok::Word) {
                error_near(t);
                return nullptr;
            }
            Word* w = read_word(opt_.extglob ? WordMode::Normal : WordMode::Normal);
            if (failed()) return nullptr;
            pats.push_back(w);
            t = lexer_.next();
            if (t.kind == Tok::Pipe) {
                lexer_.consume(t);
                t = lexer_.next();
                continue;
            }
            if (t.kind == Tok::RParen) {
                lexer_.consume(t);
                break;
            }
            error_near(t);
            return nullptr;
        }
        Stmts body = parse_stmts(false);
        if (failed()) return nullptr;
        it.patterns = arena_.list<Word*>(pats);
        it.body = arena_.list<Stmt*>(body);
        t = lexer_.next();
        switch (t.kind) {
        case Tok::DSemi: it.term = CaseTerm::Break; break;
        case Tok::SemiAnd: it.term = CaseTerm::FallThrough; break;
        case Tok::DSemiAnd: it.term = CaseTerm::Continue; break;
        case Tok::Word:
            if (lexer_.at_word("esac")) {
                it.term = CaseTerm::None;
                items.push_back(it);
                lexer_.advance_joined(4);
                c->items = arena_.list<CaseItem>(items);
                return c;
            }
            error_near(t);
            return nullptr;
        case Tok::Eof: error_eof(); return nullptr;
        default: error_near(t); return nullptr;
        }
        lexer_.consume(t);
        items.push_back(it);
    }
    c->items = arena_.list<CaseItem>(items);
    return c;
}

// ---------------------------------------------------------------- [[ ]]

Command* Parser::parse_cond() {
    Pos p = lexer_.pos();
    Depth d(*this, p);
    if (!d.ok) return nullptr;
    lexer_.advance_joined(2);
    CondCmd* c = arena_.node<CondCmd>(p);
    c->expr = cond_or();
    if (failed()) return nullptr;
    cond_skip_newlines();
    Token t = lexer_.next(LexMode::Cond);
    if (t.kind == Tok::Word && lexer_.at_word("]]")) {
        lexer_.advance_joined(2);
        return c;
    }
    if (t.kind == Tok::Eof) {
        error(p, "unexpected EOF while looking for `]]'");
    } else if (t.kind == Tok::Word) {
        cond_error(t, "syntax error in conditional expression");
    } else {
        cond_error(t, "syntax error in conditional expression: unexpected token `" +
                          std::string(token_text(t.kind)) + "'");
    }
    return nullptr;
}

void Parser::cond_skip_newlines() {
    for (;;) {
        Token t = lexer_.next(LexMode::Cond);
        if (t.kind != Tok::Newline || failed()) return;
        consume_newline();
    }
}

CondExpr* Parser::cond_or() {
    CondExpr* l = cond_and();
    for (;;) {
        if (!l || failed()) return nullptr;
        cond_skip_newlines();
        Token t = lexer_.next(LexMode::Cond);
        if (t.kind != Tok::OrOr) return l;
        lexer_.consume(t);
        CondExpr* r = cond_and();
        if (!r) return nullptr;
        CondOr* o = arena_.node<CondOr>(l->pos);
        o->left = l;
        o->right = r;
        l = o;
    }
}

CondExpr* Parser::cond_and() {
    CondExpr* l = cond_term();
    for (;;) {
        if (!l || failed()) return nullptr;
        cond_skip_newlines();
        Token t = lexer_.next(LexMode::Cond);
        if (t.kind != Tok::AndAnd) return l;
        lexer_.consume(t);
        CondExpr* r = cond_term();
        if (!r) return nullptr;
        CondAnd* o = arena_.node<CondAnd>(l->pos);
        o->left = l;
        o->right = r;
        l = o;
    }
}

CondExpr* Parser::cond_term() {
    cond_skip_newlines();
    if (failed()) return nullptr;
    Token t = lexer_.next(LexMode::Cond);
    Depth d(*this, t.pos);
    if (!d.ok) return nullptr;
    auto tok_name = [&](const Token& k) -> std::string {
        if (k.kind == Tok::Word) {
            uint32_t e = k.off;
            while (e < lexer_.end() && !Lexer::is_meta(static_cast<unsigned char>(src_[e]))) ++e;
            return std::string(src_.substr(k.off, e - k.off));
        }
        return std::string(token_text(k.kind));
    };
    if (t.kind == Tok::Eof) {
        error({eof_line_, 1}, "unexpected token `EOF' in conditional command");
        return nullptr;
    }
    if (t.kind == Tok::LParen) {
        lexer_.consume(t);
        CondExpr* e = cond_or();
        if (!e || failed()) return nullptr;
        cond_skip_newlines();
        Token r = lexer_.next(LexMode::Cond);
        if (r.kind != Tok::RParen) {
            cond_error(r, "unexpected token `" + tok_name(r) + "', expected `)'");
            return nullptr;
        }
        lexer_.consume(r);
        CondParen* cp = arena_.node<CondParen>(t.pos);
        cp->expr = e;
        return cp;
    }
    if (t.kind != Tok::Word) {
        cond_error(t, "unexpected token `" + tok_name(t) + "' in conditional command");
        return nullptr;
    }
    if (lexer_.at_word("]]")) {
        // `[[ ]]`, `[[ a && ]]`: bash stops reading without a word; an ordinary syntax error here (see
        // ParserErrors.SilentBashCondErrorsAreErrors), so that the script's author learns why.
        error(t.pos, "syntax error near unexpected token `]]'");
        return nullptr;
    }
    if (at_bang()) {
        lexer_.advance_joined(1);
        CondExpr* e = cond_term();
        if (!e) return nullptr;
        CondNot* n = arena_.node<CondNot>(t.pos);
        n->expr = e;
        return n;
    }
    for (auto op : kUnaryTests) {
        if (!lexer_.at_word(op)) continue;
        lexer_.advance_joined(2);
        Token a = lexer_.next(LexMode::Cond);
        if (a.kind != Tok::Word || lexer_.at_word("]]")) {
            cond_error(a, "unexpected argument `" + tok_name(a) + "' to conditional unary operator");
            return nullptr;
        }
        CondUnary* u = arena_.node<CondUnary>(t.pos);
        u->op = op;
        u->arg = read_word(WordMode::Cond);
        if (failed()) return nullptr;
        return u;
    }
    Word* left = read_word(WordMode::Cond);
    if (failed()) return nullptr;
    Token o = lexer_.next(LexMode::Cond);
    std::string_view op;
    if (o.kind == Tok::Less) op = "<";
    else if (o.kind == Tok::Great) op = ">";
    else if (o.kind == Tok::Word) {
        for (auto b : kBinaryTests)
            if (lexer_.at_word(b)) op = b;
        if (op.empty() && !lexer_.at_word("]]")) {
            cond_error(o, "conditional binary operator expected");
            return nullptr;
        }
    }
    if (op.empty()) {
        if (o.kind == Tok::AndAnd || o.kind == Tok::OrOr || o.kind == Tok::RParen ||
            (o.kind == Tok::Word && lexer_.at_word("]]"))) {
            CondWord* w = arena_.node<CondWord>(t.pos);
            w->word = left;
            return w;
        }
        cond_error(o, "unexpected token `" + tok_name(o) + "', conditional binary operator expected");
        return nullptr;
    }
    lexer_.advance_joined(static_cast<uint32_t>(op.size()));
    Token r = lexer_.next(LexMode::Cond);
    if (r.kind != Tok::Word || lexer_.at_word("]]")) {
        // < and ( can begin a regex on the right of =~
        if (!(op == "=~" && (r.kind == Tok::LParen || r.kind == Tok::Pipe))) {
            cond_error(r, "unexpected argument `" + tok_name(r) + "' to conditional binary operator");
            return nullptr;
        }
    }
    CondBinary* b = arena_.node<CondBinary>(t.pos);
    b->op = op;
    b->left = left;
    WordMode m = WordMode::Cond;
    if (op == "=~") m = WordMode::Regex;
    else if (op == "==" || op == "=" || op == "!=") m = WordMode::CondPattern;
    b->right = read_word(m);
    if (failed()) return nullptr;
    return b;
}

}  // namespace bashkit::syntax::detail
