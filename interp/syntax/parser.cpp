// Recursive-descent parser for bash, the command level: errors, literals, lists, pipelines, redirections,
// here-documents, simple commands and assignments. Compound commands and [[ ]] are in parser_compound.cpp,
// words (quotes, $ expansions, substitutions) in parser_words.cpp.
#include <algorithm>
#include <cstring>

#include "interp/syntax/parser_impl.hpp"

namespace bashkit::syntax {
namespace detail {
namespace {

constexpr std::string_view kStopWords[] = {"then", "elif", "else", "fi", "do", "done", "esac", "}"};
constexpr std::string_view kDeclUtils[] = {"declare", "typeset", "local", "export", "readonly"};

}  // namespace

Parser::Parser(Arena& a, std::string_view src, const ParseOptions& opt, Pos origin, uint32_t depth,
               uint32_t eof_line)
    : arena_(a), lexer_(src, origin), src_(lexer_.src_ref()), opt_(opt), depth_(depth) {
    if (eof_line) {
        eof_line_ = eof_line;
        return;
    }
    uint32_t lines = static_cast<uint32_t>(std::count(src.begin(), src.end(), '\n'));
    if (!src.empty() && src.back() != '\n') ++lines;
    eof_line_ = origin.line + lines;
}

// ---------------------------------------------------------------- errors

void Parser::error(Pos p, std::string msg) {
    if (!err) {
        // The messages that mean "the input ended too soon" are made here only: the kind is set from them.
        bool incomplete = msg.rfind("unexpected EOF", 0) == 0 || msg == "syntax error: unexpected end of file" ||
                          msg == "unexpected token `EOF' in conditional command";
        err = ParseError{p, std::move(msg), incomplete};
    }
    lexer_.force_eof();
}

void Parser::cond_error(const Token& t, std::string msg) {
    if (err) return;
    error(t.pos, std::move(msg));
    bool at_end = t.off >= src_.size() || src_.find_first_not_of(" \t\n", t.off) == std::string_view::npos;
    err->keeps_status = !at_end;
}

void Parser::error_eof() { error({eof_line_, 1}, "syntax error: unexpected end of file"); }

// bash shows a token holding control bytes (a newline inside quotes) in $'...' form.
static std::string quote_token(std::string_view text) {
    bool plain = true;
    for (char ch : text) {
        auto u = static_cast<unsigned char>(ch);
        if (u < 0x20 || u == 0x7f) plain = false;
    }
    if (plain) return std::string(text);
    std::string out = "$'";
    for (char ch : text) {
        auto u = static_cast<unsigned char>(ch);
        switch (ch) {
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        case '\r': out += "\\r"; break;
        case '\a': out += "\\a"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '\v': out += "\\v"; break;
        case '\x1b': out += "\\E"; break;
        case '\'': out += "\\'"; break;
        case '\\': out += "\\\\"; break;
        default:
            if (u < 0x20 || u == 0x7f) {
                char buf[5] = {'\\', static_cast<char>('0' + (u >> 6)), static_cast<char>('0' + ((u >> 3) & 7)),
                               static_cast<char>('0' + (u & 7)), 0};
                out += buf;
            } else {
                out += ch;
            }
        }
    }
    return out + "'";
}

void Parser::error_near(const Token& t) {
    if (failed()) return;
    std::string text;
    if (t.kind == Tok::Word) {
        uint32_t from = lexer_.off();
        read_word(WordMode::Normal);
        if (failed()) return;
        text = quote_token(joined(from, lexer_.off()));
        if (text.empty() && !lexer_.eof()) text = std::string(1, src_[from]);
    } else if (t.kind == Tok::IoNumber || t.kind == Tok::IoVar) {
        text = std::string(joined(t.off, t.off + t.len));
        lexer_.consume(t);
    } else {
        text = std::string(token_text(t.kind));
        if (t.kind != Tok::Newline) lexer_.consume(t);
    }
    // bash blames the line where the token ends (it can span lines: quotes, line continuations)
    Pos p = t.pos;
    Pos end = lexer_.pos();
    if (end.line != p.line && lexer_.off() > t.off) p = {end.line, end.col > 1 ? end.col - 1 : 1};
    error(p, "syntax error near unexpected token `" + text + "'");
}

// ---------------------------------------------------------------- literals

// After an error the cursor may be in another text than a literal being built (an alias value ended it):
// literals are dropped then, with the rest of the tree.
void Parser::lit_add(LitBuf& l, uint32_t off, uint32_t n, Pos p) {
    if (failed()) return;
    if (!l.active) {
        l.active = true;
        l.contiguous = true;
        l.pos = p;
        l.start = off;
        l.end = off + n;
        return;
    }
    if (l.contiguous && off == l.end) {
        l.end += n;
        return;
    }
    if (l.contiguous) {
        l.buf.assign(src_.substr(l.start, l.end - l.start));
        l.contiguous = false;
    }
    l.buf.append(src_.substr(off, n));
}

void Parser::lit_add_str(LitBuf& l, std::string_view s, Pos p) {
    if (failed()) return;
    if (!l.active) {
        l.active = true;
        l.pos = p;
        l.contiguous = false;
        l.buf.clear();
    } else if (l.contiguous) {
        l.buf.assign(src_.substr(l.start, l.end - l.start));
        l.contiguous = false;
    }
    l.buf.append(s);
}

void Parser::lit_flush(LitBuf& l, Parts& parts) {
    if (failed()) {
        l.active = false;
        l.buf.clear();
    }
    if (!l.active) return;
    Lit* lit = arena_.node<Lit>(l.pos);
    lit->text = l.contiguous ? src_.substr(l.start, l.end - l.start) : arena_.str(l.buf);
    l.active = false;
    l.buf.clear();
    if (!lit->text.empty()) parts.push_back(lit);
}

Word* Parser::make_word(Pos p, Parts& parts) {
    Word* w = arena_.node<Word>(p);
    w->parts = arena_.list<Node*>(parts);
    return w;
}

std::string_view Parser::joined(uint32_t from, uint32_t to) {
    if (from > src_.size() || to < from) return {};  // only after an error (see lit_add)
    std::string_view raw = src_.substr(from, to - from);
    if (raw.find("\\\n") == std::string_view::npos) return raw;
    std::string out;
    for (size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] == '\\' && i + 1 < raw.size() && raw[i + 1] == '\n') {
            ++i;
            continue;
        }
        out += raw[i];
    }
    return arena_.str(out);
}

std::string_view Parser::plain_text(const Word* w) const {
    if (w && w->parts.size == 1 && w->parts[0]->is<Lit>()) return w->parts[0]->as<Lit>()->text;
    return {};
}

// ---------------------------------------------------------------- script and lists

Script* Parser::parse_unit(bool& complete) {
    complete = false;
    Script* s = arena_.node<Script>(lexer_.pos());
    Stmts out;
    skip_newlines_at_command();
    // A newline ends the unit, unless it is inside an alias value: the rest of the value and of the line
    // belong to this unit. Returns true at the end of the unit.
    auto at_newline = [&] {
        bool in_value = lexer_.in_alias();
        consume_newline();
        if (!in_value) {
            complete = !failed() && !heredoc_eof_;
            return true;
        }
        for (;;) {
            Token n = lexer_.next();
            if (n.kind == Tok::Newline && lexer_.in_alias()) {
                consume_newline();
            } else if (n.kind != Tok::Word || !expand_alias(true)) {
                return false;
            }
        }
    };
    while (!failed()) {
        Token t = lexer_.next();
        if (t.kind == Tok::Eof) break;
        if (t.kind == Tok::Newline) {  // after an alias with an empty value
            if (at_newline()) break;
            continue;
        }
        if (is_stop(t) || t.kind == Tok::Semi || t.kind == Tok::Amp) {
            error_near(t);
            break;
        }
        Command* c = parse_and_or();
        if (!c || failed()) break;
        Stmt* st = arena_.node<Stmt>(c->pos);
        st->cmd = c;
        out.push_back(st);
        t = lexer_.next();
        bool separated = false;
        if (t.kind == Tok::Semi || t.kind == Tok::Amp) {
            lexer_.consume(t);
            st->background = t.kind == Tok::Amp;
            separated = true;
            while (expand_alias(true)) {
            }
            t = lexer_.next();
        }
        if (t.kind == Tok::Newline) {
            if (at_newline()) break;
            continue;
        }
        if (t.kind == Tok::Eof) break;
        if (!separated || is_stop(t)) {
            error_near(t);
            break;
        }
    }
    if (!failed() && !heredocs_.empty() && lexer_.eof()) read_heredocs();
    if (failed()) return nullptr;
    s->body = arena_.list<Stmt*>(out);
    return s;
}

Script* Parser::parse_script() {
    Script* s = arena_.node<Script>({1, 1});
    Stmts body = parse_stmts(false);
    if (!failed()) {
        Token t = lexer_.next();
        if (t.kind != Tok::Eof) error_near(t);
    }
    if (failed()) return nullptr;
    s->body = arena_.list<Stmt*>(body);
    return s;
}

bool Parser::is_stop(const Token& t) const {
    switch (t.kind) {
    case Tok::RParen:
    case Tok::DSemi:
    case Tok::SemiAnd:
    case Tok::DSemiAnd: return true;
    case Tok::Word: {
        int c = lexer_.peek();  // the first bytes of the stop words, or a line continuation before one
        if (c != 't' && c != 'e' && c != 'f' && c != 'd' && c != '}' && c != '\\') return false;
        // Only the words that start with that byte (all of them after a line continuation).
        for (auto w : kStopWords)
            if ((c == '\\' || w[0] == c) && lexer_.at_word(w)) return true;
        return false;
    }
    default: return false;
    }
}

void Parser::consume_newline() {
    lexer_.advance();
    // The end of the input line whose next lines were read as here-document bodies for an alias value:
    // reading goes on after the bodies.
    if (input_jump_ && lexer_.save().frame == input_jump_->first.frame && lexer_.off() == input_jump_->first.off) {
        lexer_.restore(input_jump_->second);
        input_jump_.reset();
    }
    if (!heredocs_.empty()) read_heredocs();
}

uint32_t Parser::skip_newlines_at_command() {
    uint32_t n = 0;
    for (;;) {
        n += skip_newlines();
        if (failed() || !expand_alias(true)) return n;
    }
}

bool Parser::expand_alias(bool command_position) {
    if (!opt_.aliases || opt_.aliases->empty() || failed()) return false;
    Token t = lexer_.next();  // leaves the alias values read to their end, which may set alias_next
    if (t.kind != Tok::Word || (!command_position && !lexer_.alias_next)) return false;
    // The word as bash's reader sees it: up to a metacharacter, line continuations removed.
    std::string name;
    uint32_t i = t.off;
    uint32_t end = lexer_.end();
    bool quoted = false;
    while (i < end) {
        char c = src_[i];
        if (c == '\\' && i + 1 < end && src_[i + 1] == '\n') {
            i += 2;
            continue;
        }
        if (Lexer::is_meta(static_cast<unsigned char>(c))) break;
        if (c == '\'' || c == '"' || c == '\\') quoted = true;
        name += c;
        ++i;
    }
    // A quoted word is never an alias and leaves alias_next as it was (bash); any other word clears it.
    if (quoted) return false;
    auto it = opt_.aliases->find(name);
    if (it == opt_.aliases->end() || lexer_.expanding(name)) {
        lexer_.alias_next = false;
        return false;
    }
    const std::string& value = it->second;
    alias_bytes_ += value.size();
    if (++alias_count_ > opt_.max_alias_expansions || alias_bytes_ > opt_.max_alias_bytes) {
        error(t.pos, "alias expansion limit exceeded");
        return false;
    }
    lexer_.advance_to(i);
    bool next = !value.empty() && (value.back() == ' ' || value.back() == '\t');
    lexer_.push_alias(arena_.str(value), arena_.str(name), next, t.pos);
    return true;
}

uint32_t Parser::skip_newlines() {
    uint32_t n = 0;
    for (;;) {
        Token t = lexer_.next();
        if (t.kind != Tok::Newline || failed()) return n;
        consume_newline();
        no_time_ = false;
        ++n;
    }
}

Stmts Parser::parse_stmts(bool nonempty) {
    Stmts out;
    for (;;) {
        skip_newlines_at_command();
        if (failed()) break;
        Token t = lexer_.next();
        if (t.kind == Tok::Eof) break;
        if (is_stop(t)) {
            if (nonempty && out.empty()) error_near(t);
            break;
        }
        Command* c = parse_and_or();
        if (!c || failed()) break;
        Stmt* s = arena_.node<Stmt>(c->pos);
        s->cmd = c;
        out.push_back(s);
        t = lexer_.next();
        if (t.kind == Tok::Semi) {
            lexer_.consume(t);
        } else if (t.kind == Tok::Amp) {
            lexer_.consume(t);
            s->background = true;
        } else if (t.kind == Tok::Newline || t.kind == Tok::Eof || is_stop(t)) {
            // the loop consumes newlines; the caller handles the rest
        } else {
            error_near(t);
            break;
        }
    }
    if (!failed() && !heredocs_.empty() && lexer_.eof()) read_heredocs();
    return out;
}

Command* Parser::parse_and_or() {
    Command* first = parse_pipeline();
    if (!first || failed()) return nullptr;
    Token t = lexer_.next();
    if (t.kind != Tok::AndAnd && t.kind != Tok::OrOr) return first;
    SmallVec<Command*, 4> items{first};
    SmallVec<AndOrOp, 4> ops;
    while (t.kind == Tok::AndAnd || t.kind == Tok::OrOr) {
        lexer_.consume(t);
        ops.push_back(t.kind == Tok::AndAnd ? AndOrOp::And : AndOrOp::Or);
        skip_newlines_at_command();
        Command* c = parse_pipeline();
        if (!c || failed()) return nullptr;
        items.push_back(c);
        t = lexer_.next();
    }
    AndOr* ao = arena_.node<AndOr>(first->pos);
    ao->items = arena_.list<Command*>(items);
    ao->ops = arena_.list<AndOrOp>(ops);
    return ao;
}

Command* Parser::parse_pipeline() {
    // `time` is a reserved word only where bash's time_command_acceptable() allows it: not as the first
    // word of a $( ) body (bash has just read the word holding the substitution there).
    bool time_ok = !no_time_;
    no_time_ = false;
    Token t = lexer_.next();
    Pos p = t.pos;
    bool timed = false, posix = false, negated = false, prefixed = false;
    // Any sequence of `!` and `time [-p] [--]` (bash: pipeline_command: BANG pipeline_command |
    // timespec pipeline_command). Repeats collapse: `! !` cancels, `time time` times once.
    while (t.kind == Tok::Word) {
        if (expand_alias(true)) {
            t = lexer_.next();
            continue;
        }
        if (time_ok && lexer_.at_word("time")) {
            lexer_.advance_joined(4);
            timed = true;
            t = lexer_.next();
            if (t.kind == Tok::Word && lexer_.at_word("-p")) {
                lexer_.advance_joined(2);
                posix = true;
                t = lexer_.next();
            }
            if (t.kind == Tok::Word && lexer_.at_word("--")) {
                lexer_.advance_joined(2);
                t = lexer_.next();
            }
        } else if (at_bang()) {
            lexer_.advance_joined(1);
            negated = !negated;
            t = lexer_.next();
        } else {
            break;
        }
        time_ok = true;
        prefixed = true;
    }
    SmallVec<Command*, 4> stages;
    SmallVec<uint8_t, 8> err_too;
    // A bare `time` or `!` must end the list (bash: `timespec list_terminator`); anything else that cannot
    // start a command is reported by parse_command.
    bool bare = prefixed && (t.kind == Tok::Newline || t.kind == Tok::Eof || t.kind == Tok::Semi);
    if (!bare) {
        for (;;) {
            Command* c = parse_command();
            if (!c || failed()) return nullptr;
            stages.push_back(c);
            t = lexer_.next();
            if (t.kind != Tok::Pipe && t.kind != Tok::PipeAmp) break;
            lexer_.consume(t);
            err_too.push_back(t.kind == Tok::PipeAmp ? 1 : 0);
            uint32_t newlines = skip_newlines_at_command();
            if (failed()) return nullptr;
            // After `|`, `!` is a reserved word that cannot start a pipeline stage; so is `time` once two
            // newlines separate it from the `|` (bash's time_command_acceptable looks back two tokens).
            Token s = lexer_.next();
            if (s.kind == Tok::Word && (at_bang() || (newlines >= 2 && lexer_.at_word("time")))) {
                error_near(s);
                return nullptr;
            }
        }
    }
    if (stages.size() == 1 && !timed && !negated) return stages[0];
    Pipeline* pl = arena_.node<Pipeline>(p);
    pl->negated = negated;
    pl->timed = timed;
    pl->time_posix = posix;
    pl->stages = arena_.list<Command*>(stages);
    pl->stderr_too = arena_.list<uint8_t>(err_too);
    return pl;
}

bool Parser::expect_word(std::string_view kw) {
    Token t = lexer_.next();
    if (t.kind == Tok::Word && lexer_.at_word(kw)) {
        lexer_.advance_joined(static_cast<uint32_t>(kw.size()));
        return true;
    }
    if (t.kind == Tok::Eof)
        error_eof();
    else
        error_near(t);
    return false;
}

Command* Parser::parse_command() {
    while (expand_alias(true)) {
    }
    Token t = lexer_.next();
    Command* c = nullptr;
    switch (t.kind) {
    case Tok::Eof: error_eof(); return nullptr;
    case Tok::LParen: c = parse_paren_command(); break;
    case Tok::Word:
        if (lexer_.at_word("if")) c = parse_if();
        else if (lexer_.at_word("while")) c = parse_while(false);
        else if (lexer_.at_word("until")) c = parse_while(true);
        else if (lexer_.at_word("for")) c = parse_for(false);
        else if (lexer_.at_word("select")) c = parse_for(true);
        else if (lexer_.at_word("case")) c = parse_case();
        else if (lexer_.at_word("{")) c = parse_brace();
        else if (lexer_.at_word("[[")) c = parse_cond();
        else if (lexer_.at_word("function")) return parse_function_kw();
        else if (lexer_.at_word("coproc")) return parse_coproc();
        else if (is_stop(t) || lexer_.at_word("in") || lexer_.at_word("]]")) {
            error_near(t);
            return nullptr;
        } else
            return parse_simple();
        break;
    case Tok::IoNumber:
    case Tok::IoVar:
    case Tok::Less:
    case Tok::Great:
    case Tok::DGreat:
    case Tok::DLess:
    case Tok::DLessDash:
    case Tok::TLess:
    case Tok::LessAnd:
    case Tok::GreatAnd:
    case Tok::LessGreat:
    case Tok::Clobber:
    case Tok::AndGreat:
    case Tok::AndDGreat: return parse_simple();
    default: error_near(t); return nullptr;
    }
    if (!c || failed()) return nullptr;
    parse_trailing_redirs(c);
    return failed() ? nullptr : c;
}

static bool is_redir_tok(Tok k) {
    switch (k) {
    case Tok::IoNumber:
    case Tok::IoVar:
    case Tok::Less:
    case Tok::Great:
    case Tok::DGreat:
    case Tok::DLess:
    case Tok::DLessDash:
    case Tok::TLess:
    case Tok::LessAnd:
    case Tok::GreatAnd:
    case Tok::LessGreat:
    case Tok::Clobber:
    case Tok::AndGreat:
    case Tok::AndDGreat: return true;
    default: return false;
    }
}

void Parser::parse_trailing_redirs(Command* c) {
    SmallVec<Redirect*, 4> rs;
    for (;;) {
        Token t = lexer_.next();
        if (!is_redir_tok(t.kind)) break;
        Redirect* r = parse_redirect(t);
        if (!r) return;
        rs.push_back(r);
    }
    c->redirs = arena_.list<Redirect*>(rs);
}

Redirect* Parser::parse_redirect(Token t) {
    Redirect* r = arena_.node<Redirect>(t.pos);
    if (t.kind == Tok::IoNumber) {
        long v = 0;
        for (char d : joined(t.off, t.off + t.len)) {
            v = v * 10 + (d - '0');
            if (v > 0x7fffffff) v = 0x7fffffff;
        }
        r->fd = static_cast<int>(v);
        lexer_.consume(t);
        t = lexer_.next();
    } else if (t.kind == Tok::IoVar) {
        std::string_view text = joined(t.off, t.off + t.len);  // {name}
        r->fd_var = text.substr(1, text.size() - 2);
        lexer_.consume(t);
        t = lexer_.next();
    }
    switch (t.kind) {
    case Tok::Less: r->op = RedirOp::In; break;
    case Tok::Great: r->op = RedirOp::Out; break;
    case Tok::DGreat: r->op = RedirOp::Append; break;
    case Tok::Clobber: r->op = RedirOp::Clobber; break;
    case Tok::LessGreat: r->op = RedirOp::ReadWrite; break;
    case Tok::LessAnd: r->op = RedirOp::DupIn; break;
    case Tok::GreatAnd: r->op = RedirOp::DupOut; break;
    case Tok::AndGreat: r->op = RedirOp::OutErr; break;
    case Tok::AndDGreat: r->op = RedirOp::AppendOutErr; break;
    case Tok::DLess: r->op = RedirOp::HereDoc; break;
    case Tok::DLessDash:
        r->op = RedirOp::HereDoc;
        r->strip_tabs = true;
        break;
    case Tok::TLess: r->op = RedirOp::HereString; break;
    default: error_near(t); return nullptr;
    }
    lexer_.consume(t);
    Token w = lexer_.next();
    if (w.kind != Tok::Word) {
        error_near(w);
        return nullptr;
    }
    uint32_t from = lexer_.off();
    const size_t docs_before = heredocs_.size();
    r->target = read_word(WordMode::Normal);
    if (failed()) return nullptr;
    if (r->op == RedirOp::HereDoc) {
        // a substitution in the delimiter appends the here-documents it leaves open (parse_subst_body)
        r->open_docs = arena_.list<Redirect*>(
            std::vector<Redirect*>(heredocs_.begin() + static_cast<std::ptrdiff_t>(docs_before), heredocs_.end()));
        // The delimiter is the word after quote removal, without any expansion: $'..' gives its decoded
        // value (read from the word's node) and $".." its text, as a quoted part does.
        std::string_view raw = word_text(from);
        std::vector<const AnsiCQuoted*> ansic;
        for (Node* n : r->target->parts)
            if (n->kind == NodeKind::AnsiCQuoted) ansic.push_back(n->as<AnsiCQuoted>());
        size_t next_ansic = 0;
        std::string delim;
        bool quoted = false;
        for (size_t i = 0; i < raw.size(); ++i) {
            char c = raw[i];
            if (c == '$' && i + 1 < raw.size() && raw[i + 1] == '\'' && next_ansic < ansic.size()) {
                const AnsiCQuoted* q = ansic[next_ansic++];
                quoted = true;
                delim += q->value;
                i += 2 + q->raw.size();  // on the closing quote
                continue;
            }
            if (c == '$' && i + 1 < raw.size() && raw[i + 1] == '"') c = raw[++i];
            if (c == '\\' && i + 1 < raw.size() && raw[i + 1] == '\n') {
                ++i;  // a line continuation
            } else if (c == '\\' && i + 1 < raw.size()) {
                quoted = true;
                delim += raw[++i];
            } else if (c == '\\') {
                quoted = true;  // a backslash that ends the input stands for itself, and quotes
                delim += c;
            } else if (c == '\'') {
                quoted = true;
                while (++i < raw.size() && raw[i] != '\'') delim += raw[i];
            } else if (c == '"') {
                quoted = true;
                while (++i < raw.size() && raw[i] != '"') {
                    if (raw[i] == '\\' && i + 1 < raw.size() &&
                        (raw[i + 1] == '"' || raw[i + 1] == '\\' || raw[i + 1] == '$' || raw[i + 1] == '`'))
                        ++i;
                    delim += raw[i];
                }
            } else {
                delim += c;
            }
        }
        r->quoted_delim = quoted;
        r->delim = arena_.str(delim);
        // A backslash that ends the input stands for itself: written `\\`, as a newline after it would join
        size_t slashes = 0;
        while (slashes < raw.size() && raw[raw.size() - 1 - slashes] == '\\') ++slashes;
        r->delim_text = slashes % 2 ? arena_.str(std::string(raw) + '\\') : arena_.str(raw);
        r->body = arena_.node<Word>(lexer_.pos());
        heredocs_.push_back(r);
    }
    return r;
}

// ---------------------------------------------------------------- here-documents

void Parser::read_heredocs() {
    std::vector<Redirect*> list;
    list.swap(heredocs_);
    // At a newline inside an alias value, bash reads the bodies from the input lines after the line
    // holding the alias word, never from the value; the rest of that line is read after the value.
    LexState in_value = lexer_.save();
    LexState input;
    bool from_input = lexer_.input_after_alias(input);
    if (from_input) {
        if (input_jump_) {
            lexer_.restore(input_jump_->second);
        } else {
            lexer_.restore(input);
            const void* nl = std::memchr(src_.data() + lexer_.off(), '\n', lexer_.end() - lexer_.off());
            lexer_.advance_to(nl ? static_cast<uint32_t>(static_cast<const char*>(nl) - src_.data()) + 1 : lexer_.end());
        }
    }
    LexState line_end = lexer_.save();
    for (Redirect* r : list) {
        if (failed()) return;
        read_heredoc(r);
    }
    if (from_input && !failed()) {
        input_jump_.emplace(input_jump_ ? input_jump_->first : line_end, lexer_.save());
        lexer_.restore(in_value);
    }
}

void Parser::read_heredoc(Redirect* r) {
    bool saved_in_body = in_heredoc_body_;
    in_heredoc_body_ = true;
    // bash reads a body as text: the here-documents a substitution in it leaves open (`$(<<E)`, which we
    // parse) read no line
    const size_t docs = heredocs_.size();
    Parts parts;
    LitBuf lit;
    Pos start = lexer_.pos();
    std::string_view delim = r->delim;
    // bash compares one line of the body at a time: a delimiter holding a newline (`<<"a` newline `b"`)
    // never matches, and the body goes on to the end of the input.
    const bool can_match = delim.find('\n') == std::string_view::npos;
    // Whether the line at offset i is the delimiter; `to` is then where it ends. In the body of an unquoted
    // delimiter, as bash reads it, line continuations are joined first (`E\` newline `OF` ends `<<EOF`).
    auto delim_line_at = [&](uint32_t i, uint32_t& to) {
        const uint32_t end = lexer_.end();
        if (r->quoted_delim) {
            if (end - i < delim.size() || src_.substr(i, delim.size()) != delim) return false;
            i += static_cast<uint32_t>(delim.size());
        } else {
            for (char d : delim) {
                i = lexer_.skip_cont(i);
                if (i >= end || src_[i] != d) return false;
                ++i;
            }
            i = lexer_.skip_cont(i);
        }
        if (i < end && src_[i] != '\n') return false;
        to = i;
        return true;
    };
    // bash reads the body line by line up to the delimiter line and only then reads the substitutions in
    // it: a substitution in the body never runs past that line (`$(echo` newline `EOF` newline `)` ends
    // the body at EOF). So the body's end is found first, and the body is read within it. The delimiter
    // line starts at `body_end`; the cursor goes on at `after`.
    const uint32_t end = lexer_.end();
    uint32_t body_end = end, after = end;
    bool found = false;
    if (!body_to_end_ && can_match) {
        uint32_t i = lexer_.off();
        while (i < end) {
            uint32_t to = 0;
            // bash compares a <<- line with the delimiter before stripping its tabs too (`<<-'\t'` ends at
            // a line holding one tab)
            bool match = r->strip_tabs && src_[i] == '\t' && delim_line_at(i, to);
            if (!match) {
                uint32_t j = i;
                if (r->strip_tabs)
                    while (j < end && src_[j] == '\t') ++j;
                match = delim_line_at(j, to);
            }
            if (match) {
                body_end = i;
                after = to < end && src_[to] == '\n' ? to + 1 : to;
                found = true;
                break;
            }
            // to the end of the line; in an unquoted body a backslash takes the byte after it (a newline:
            // a line continuation; `\\` newline ends the line)
            while (i < end) {
                const char c = src_[i];
                if (c == '\\' && !r->quoted_delim && i + 1 < end) {
                    i += 2;
                    continue;
                }
                ++i;
                if (c == '\n') break;
            }
        }
    }
    lexer_.set_end(body_end);
    bool last_nl = true;
    while (!lexer_.eof() && !failed()) {
        if (r->strip_tabs)
            while (lexer_.peek() == '\t') lexer_.advance();
        if (lexer_.eof()) break;
        if (r->quoted_delim) {
            uint32_t off = lexer_.off();
            const void* nl = std::memchr(src_.data() + off, '\n', lexer_.end() - off);
            uint32_t to = nl ? static_cast<uint32_t>(static_cast<const char*>(nl) - src_.data()) + 1 : lexer_.end();
            lit_add(lit, off, to - off, lexer_.pos());
            lexer_.advance_to(to);
            last_nl = nl != nullptr;
            continue;
        }
        // unquoted: expansions and the backslash rules of here-documents, up to the end of the line
        last_nl = false;
        while (!lexer_.eof() && !failed()) {
            int c = lexer_.peek();
            if (c == '\n') {
                lit_char(lit);
                last_nl = true;
                break;
            }
            if (c == '\\') {
                int n = lexer_.peek(1);
                if (n == '\n') {
                    lexer_.advance(2);
                    continue;
                }
                if (n == '\\' && lexer_.peek(2) == '\'') {
                    escaped_backslash(lit, parts);
                    continue;
                }
                if (n == '$' || n == '`' || n == '\\') {
                    lit_add(lit, lexer_.off() + 1, 1, lexer_.pos());
                    lexer_.advance(2);
                    continue;
                }
                lit_char(lit);
                continue;
            }
            if (c == '$') {
                Pos p = lexer_.pos();
                uint32_t off = lexer_.off();
                Node* n = read_dollar(true);
                if (n) {
                    lit_flush(lit, parts);
                    parts.push_back(n);
                } else {
                    lit_add(lit, off, 1, p);
                    lexer_.advance();
                }
                continue;
            }
            if (c == '`') {
                lit_flush(lit, parts);
                Node* n = read_backtick(false);
                if (n) parts.push_back(n);
                continue;
            }
            lit_char(lit);
        }
    }
    if (!failed()) {
        lexer_.set_end(end);
        if (found) {
            lexer_.advance_to(after);
            last_nl = true;
        }
    }
    if (body_to_end_) last_nl = true;
    if (!found && !failed() && !body_to_end_) {
        heredoc_eof_ = true;
        // bash names the line before the body's first one: the redirection's line for the first
        // here-document of a line, the line of the previous one's delimiter for the next ones.
        uint32_t line = std::max(r->pos.line, start.line > 0 ? start.line - 1 : 0u);
        unterminated_heredocs_.emplace_back(line, std::string(delim));
    }
    // bash ends a last line cut by the end of input with a newline, whatever the line ends with
    if (!last_nl) lit_add_str(lit, "\n", lexer_.pos());
    lit_flush(lit, parts);
    Word* body = arena_.node<Word>(start);
    body->parts = arena_.list<Node*>(parts);
    r->body = body;
    in_heredoc_body_ = saved_in_body;
    if (heredocs_.size() > docs) heredocs_.resize(docs);
}

Word* Parser::parse_body_text() {
    body_to_end_ = true;
    Redirect* r = arena_.node<Redirect>(lexer_.pos());
    r->op = RedirOp::HereDoc;
    read_heredoc(r);
    return r->body;
}

// ---------------------------------------------------------------- simple commands

Command* Parser::parse_simple() {
    Token t = lexer_.next();
    Simple* s = arena_.node<Simple>(t.pos);
    SmallVec<Assign*, 4> assigns;
    SmallVec<Word*, 8> words;
    SmallVec<Redirect*, 4> redirs;
    bool decl = false;
    // bash's line for the command (its $LINENO and its errors): where bash's parser stands once it has read
    // the token after the command's first element, to the end of that token: `echo "a` newline `b" $LINENO`
    // is on line 2, `echo $LINENO "a` newline `b"` on line 1.
    uint32_t line = 0;
    for (;;) {
        if (failed()) return nullptr;
        const size_t elements = assigns.size() + words.size() + redirs.size();
        if (elements == 2 && line == 0) line = lexer_.pos().line;  // the end of a second word
        t = lexer_.next();
        if (elements == 1 && line == 0 && t.kind != Tok::Word) line = t.pos.line;  // an operator, the end
        if (is_redir_tok(t.kind)) {
            Redirect* r = parse_redirect(t);
            if (!r) return nullptr;
            redirs.push_back(r);
            continue;
        }
        if (t.kind != Tok::Word) break;
        // The command name (after assignments and redirections too) and, after an alias whose value ends
        // with a blank, the next word are alias-expanded.
        if (expand_alias(words.empty())) continue;
        if (words.empty()) {
            if (Assign* as = try_assignment()) {
                assigns.push_back(as);
                continue;
            }
            if (failed()) return nullptr;
            if (expand_alias(true)) continue;
            // `a[1 + 2]` at the start of a command is one word, as bash reads a subscript there (for an
            // assignment) across blanks and operators (`a[x&y]` too); `a[` with no `]` before the end of the
            // input is a syntax error.
            Word* w = nullptr;
            uint32_t close = 0;
            const int sub = command_subscript(close);
            if (sub < 0) {  // blamed on the line of the bracket or of the open quote, as bash does
                Pos at = lexer_.pos();
                at.line += static_cast<uint32_t>(
                    std::count(src_.begin() + lexer_.off(), src_.begin() + close, '\n'));
                error(at, sub == -1   ? "unexpected EOF while looking for matching `]'"
                          : sub == -2 ? "unexpected EOF while looking for matching `\"'"
                                      : "unexpected EOF while looking for matching `''");
                return nullptr;
            }
            if (sub > 0 && has_word_break(lexer_.off(), close)) {
                w = read_range_word(lexer_.off(), close + 1);
                if (failed()) return nullptr;
                const int c = lexer_.peek();
                if (c >= 0 && c != ' ' && c != '\t' && c != '\n' && !Lexer::is_meta(c)) {
                    Word* rest = read_word(WordMode::Normal);
                    if (failed()) return nullptr;
                    Parts parts;
                    for (Node* n : w->parts) parts.push_back(n);
                    for (Node* n : rest->parts) parts.push_back(n);
                    w->parts = arena_.list<Node*>(parts);
                }
            } else {
                w = read_word(WordMode::Normal);
            }
            if (failed()) return nullptr;
            words.push_back(w);
            std::string_view raw_name = word_text(t.off);
            std::string_view name = plain_text(w);
            if (assigns.empty() && redirs.empty() && !w->parts.empty()) {
                Token n = lexer_.next();
                if (n.kind == Tok::LParen) {
                    lexer_.consume(n);
                    Token c = lexer_.next();
                    if (c.kind != Tok::RParen) {
                        error_near(c);
                        return nullptr;
                    }
                    lexer_.consume(c);
                    FuncDef* f = arena_.node<FuncDef>(s->pos);
                    // a quoted or expanded name is rejected when the definition runs, as bash does
                    f->name = name.empty() ? raw_name : name;
                    f->parens = true;
                    return parse_funcdef_body(f);
                }
            }
            for (auto d : kDeclUtils)
                if (name == d) decl = true;
            continue;
        }
        if (decl) {
            uint32_t from = lexer_.off();
            Pos p = lexer_.pos();
            if (Assign* as = try_assignment(true)) {
                Word* w = arena_.node<Word>(p);
                w->decl_assign = as;
                Parts parts;
                if (as->is_array || !as->value) {
                    Lit* l = arena_.node<Lit>(p);
                    l->text = joined(from, lexer_.off());
                    parts.push_back(l);
                } else {
                    // the prefix up to and including '='
                    Lit* l = arena_.node<Lit>(p);
                    l->text = joined(from, assign_value_off_);
                    if (!l->text.empty()) parts.push_back(l);
                    for (Node* n : as->value->parts) parts.push_back(n);
                }
                w->parts = arena_.list<Node*>(parts);
                words.push_back(w);
                continue;
            }
            if (failed()) return nullptr;
        }
        Word* w = read_word(WordMode::Normal);
        if (failed()) return nullptr;
        words.push_back(w);
    }
    if (assigns.empty() && words.empty() && redirs.empty()) {
        error_near(t);
        return nullptr;
    }
    s->assigns = arena_.list<Assign*>(assigns);
    s->words = arena_.list<Word*>(words);
    s->redirs = arena_.list<Redirect*>(redirs);
    if (line > s->pos.line) s->pos.line = line;
    return s;
}

// The offset of what closes the substitution that opens at `i` (`$(`, `${` or a backquote), skipping quotes
// and escapes and counting nested pairs; `end` when the input ends first.
// Whether src[i] starts `$(` that is not `$((`.
bool is_cmdsubst(std::string_view src, uint32_t i, uint32_t end) {
    return src[i] == '$' && i + 2 < end && src[i + 1] == '(' && src[i + 2] != '(';
}

uint32_t substitution_end(std::string_view src, uint32_t i, uint32_t end) {
    if (src[i] == '`') {
        for (uint32_t j = i + 1; j < end; ++j) {
            if (src[j] == '\\') ++j;
            else if (src[j] == '`') return j;
        }
        return end;
    }
    const char open = src[i + 1], close = open == '(' ? ')' : '}';
    int depth = 0;
    bool dollar = true;  // the `$` of the opening
    for (uint32_t j = i + 1; j < end; ++j) {
        char c = src[j];
        const bool after_dollar = dollar;
        dollar = false;
        if (c == '\\') {
            ++j;
        } else if (c == '\'' || c == '"' || c == '`') {  // a backquoted text is skipped too (`${`}]`}`)
            while (++j < end && src[j] != c)
                if (c != '\'' && src[j] == '\\') ++j;
            if (j >= end) return end;
        } else if (c == '$') {
            dollar = true;
        } else if (c == open && (open == '(' || after_dollar)) {
            ++depth;  // only a nested `${` nests a `${`, as in bash's reader (`${{}` is one)
        } else if (c == close && --depth == 0) {
            return j;
        }
    }
    return end;
}

// Scans a subscript starting at the '[' at offset `at`, skipping quotes, escapes and substitutions (a `]`
// inside `$(...)`, `${...}` or backquotes does not close it, as in bash). Closed: `pos` is the matching ']'.
// OpenQuote: the input ends inside the quote at `pos`. A newline ends the scan (Newline) unless `newlines`
// (an assignment word at the start of a command, which bash reads across lines). WordEnd: past the `braces`
// `}` that end the `${` around it (`in`), the word ends first.
std::optional<uint32_t> Parser::cmdsubst_end(uint32_t at, bool in_dq) {
    if (failed() || at < lexer_.off()) return std::nullopt;
    const auto key = std::make_tuple(lexer_.save().frame, at, lexer_.end(), in_dq);
    if (auto it = cmdsubst_ends_.find(key); it != cmdsubst_ends_.end()) return it->second;
    const LexState st = lexer_.save();
    const uint32_t end = lexer_.end();  // an error moves it to the end of the text (force_eof)
    const std::vector<Redirect*> docs = heredocs_;
    const size_t warned = unterminated_heredocs_.size();
    const bool docs_eof = heredoc_eof_;
    lexer_.advance_to(at);
    ++speculating_;
    // remembered: the word's own read finds it again
    Node* n = src_[at] == '$' ? read_dollar(in_dq) : read_procsubst();
    --speculating_;
    std::optional<uint32_t> close;
    if (n && !failed()) close = lexer_.off() - 1;
    err.reset();
    lexer_.set_end(end);
    lexer_.restore(st);
    heredocs_ = docs;
    unterminated_heredocs_.resize(warned);
    heredoc_eof_ = docs_eof;
    cmdsubst_ends_.emplace(key, close);
    return close;
}

Parser::SubscriptScan Parser::scan_brackets(uint32_t at, bool newlines, uint32_t& pos, SubscriptIn in,
                                            uint32_t braces) {
    uint32_t end = lexer_.end();
    int depth = 0;
    if (in == SubscriptIn::None) braces = 0;
    const bool limited = braces > 0;
    for (uint32_t i = at; i < end; ++i) {
        char c = src_[i];
        const bool past = limited && braces == 0;  // the word, not the `${`, bounds the subscript here
        if (past && in == SubscriptIn::Brace && Lexer::is_meta(c)) return SubscriptScan::WordEnd;
        if (c == '}' && braces > 0) {
            --braces;  // bash's reader ends a `${` here; the word may go on
            if (in == SubscriptIn::Own) return SubscriptScan::WordEnd;
        } else if (c == '`' || (c == '$' && i + 1 < end && (src_[i + 1] == '(' || src_[i + 1] == '{'))) {
            i = subst_text_end(i, end, false);
            if (i >= end) return SubscriptScan::Eof;
        } else if (c == '[') {
            ++depth;
        } else if (c == ']') {
            if (--depth == 0) {
                pos = i;
                return SubscriptScan::Closed;
            }
        } else if (c == '\\') {
            ++i;
        } else if (c == '\'' || c == '"') {
            // Past the `}` of a `${` inside double quotes, the `"` that quotes part of the subscript is where
            // the reader's double quotes end, and the next one where they open again: a blank or operator
            // byte between them ends the word (`"${m[1}"x"]}"` is one word, `"${m[1}" x"]}"` is not).
            const bool reopens = past && in == SubscriptIn::BraceDq && c == '"';
            uint32_t j = i + 1;
            while (j < end && src_[j] != c) {
                if (c == '"' && src_[j] == '\\') {
                    ++j;
                } else if (c == '"' && is_cmdsubst(src_, j, end)) {
                    // its text may hold a `"` (or a here-document's lines): it ends at its own `)`
                    if (std::optional<uint32_t> cs = cmdsubst_end(j, true)) j = *cs;
                } else if (c == '"' && src_[j] == '$' && j + 1 < end && src_[j + 1] == '{') {
                    // so may a `${...}` (`"${"]"}"`), which bash's reader reads as one
                    j = substitution_end(src_, j, end);
                    if (j >= end) return SubscriptScan::Eof;
                } else if (reopens && Lexer::is_meta(src_[j])) {
                    return SubscriptScan::WordEnd;
                }
                ++j;
            }
            if (j >= end) {
                pos = i;
                return SubscriptScan::OpenQuote;
            }
            i = j;
        } else if (c == '\n' && !newlines) {
            return SubscriptScan::Newline;
        }
    }
    return SubscriptScan::Eof;
}

bool Parser::scan_subscript(uint32_t at, uint32_t& close, bool newlines, SubscriptIn in, uint32_t braces) {
    return scan_brackets(at, newlines, close, in, braces) == SubscriptScan::Closed;
}

int Parser::command_subscript(uint32_t& close) {
    const uint32_t off = lexer_.off(), end = lexer_.end();
    if (off >= end || !is_name_start(static_cast<unsigned char>(src_[off]))) return 0;
    // line continuations may split the name and the bracket (`a\` newline `[1]`), as in an assignment
    uint32_t i = lexer_.skip_cont(off + 1);
    while (i < end && is_name_char(static_cast<unsigned char>(src_[i]))) i = lexer_.skip_cont(i + 1);
    if (i >= end || src_[i] != '[') return 0;
    switch (scan_brackets(i, true, close)) {
        case SubscriptScan::Closed: return 1;
        // bash reads on to the end of the input, and fails there
        case SubscriptScan::OpenQuote: return src_[close] == '"' ? -2 : -3;
        default: close = i; return -1;  // blamed on the line of the bracket
    }
}

Word* Parser::read_range_word(uint32_t from, uint32_t to) {
    uint32_t saved_end = lexer_.end();
    lexer_.advance_to(from);
    lexer_.set_end(to);
    Word* w = read_word(WordMode::Limit);
    lexer_.set_end(saved_end);
    if (!failed()) lexer_.advance_to(to);
    return w;
}

// Whether src[from, to) has a blank or an operator byte (; & | ( ) < >) outside quotes and substitutions,
// where a word read as a command word would end. A `$(...)` is read as commands to find its `)` (its
// here-documents' lines, or a `"` in it, are its own).
bool Parser::has_word_break(uint32_t from, uint32_t to) { return word_break(from, to) < to; }

// The offset of the first such byte (`to` when there is none), the scan starting inside `quote` (0, or `"`).
uint32_t Parser::word_break(uint32_t from, uint32_t to, char quote) {
    const std::string_view src = src_;
    int depth = 0;  // inside $( ), ${ } or $[ ]
    for (uint32_t i = from; i < to; ++i) {
        char c = src[i];
        if (quote != '\'' && depth == 0 && is_cmdsubst(src, i, to)) {
            if (std::optional<uint32_t> cs = cmdsubst_end(i, quote == '"')) {
                i = *cs;
                continue;
            }
        }
        if (c == '\\' && quote != '\'') {
            ++i;
        } else if (quote == '"' && c == '$' && i + 1 < to && src[i + 1] == '{') {
            i = substitution_end(src, i, to);  // a `"` in it is its own
        } else if (quote != '\'' && c == '`') {
            // so is one in a backquoted text, read to its closing backquote past escaped bytes only, as bash's
            // reader reads it, in double quotes or not (`"`" "`"`, `` c[`\\'` ] `` is one word)
            i = substitution_end(src, i, to);
        } else if (quote) {
            if (c == quote) quote = 0;
        } else if (c == '\'' || c == '"') {
            quote = c;
        } else if (c == '$' && i + 1 < to && (src[i + 1] == '(' || src[i + 1] == '{' || src[i + 1] == '[')) {
            ++depth;
            ++i;
        } else if (c == '(' && depth > 0) {
            ++depth;
        } else if ((c == ')' || c == '}' || c == ']') && depth > 0) {
            --depth;
        } else if (Lexer::is_meta(c) && depth == 0) {
            return i;
        }
    }
    return to;
}

// bash's expansion takes a double-quoted text out of its word with its own reading of each `${` in it, which
// ends where its reader ends it but for one thing: a subscript right after a name where the `${` has read no
// operator (at its start, or nested after a word's text: `${u:-x${a[`) is skipped to its matching `]`, a `}`
// and quotes in it included (`"${a[1}"x"]}"` has the subscript `1}"x"`); after an operator it is not
// (`"${y:${a[}]}"`: the text is `${y:${a[}]}`, and its `${y:` has no `}` of its own). Backquoted text, `$( )`
// (read as commands where it is a command substitution), `<( )`, and quoted text are skipped; only a nested
// `${` nests. `from` is the offset after the `${`; nesting deeper than bash's 32 levels of state, or than
// kMaxScanDepth quoted texts, is read as at the outermost level.
namespace {
enum class DolBrace : uint8_t { Param, Op, Word, Quote };
constexpr uint32_t kMaxScanDepth = 256;
bool is_dolbrace_op(char c) {
    return c == '#' || c == '%' || c == '^' || c == ',' || c == '~' || c == ':' || c == '-' || c == '=' ||
           c == '?' || c == '+' || c == '/';
}
}  // namespace

uint32_t Parser::dq_brace_end(uint32_t from, uint32_t to, uint32_t depth) {
    const std::string_view src = src_;
    if (depth > kMaxScanDepth) return to;
    DolBrace state = DolBrace::Param;
    std::vector<DolBrace> outer;  // the state of each `${` around a nested one, to go back to at its `}`
    for (uint32_t i = from; i < to; ++i) {
        const char c = src[i];
        if (c == '\\') {
            ++i;
            continue;
        }
        if (c == '$' && i + 1 < to && src[i + 1] == '{') {
            outer.push_back(state);
            if (state == DolBrace::Quote || state == DolBrace::Word) state = DolBrace::Param;
            ++i;
            continue;
        }
        if (c == '}') {
            if (outer.empty()) return i;
            state = outer.size() < 32 ? outer.back() : DolBrace::Param;
            outer.pop_back();
            continue;
        }
        if (c == '`' || ((c == '$' || c == '<' || c == '>') && i + 1 < to && src[i + 1] == '(')) {
            i = subst_text_end(i, to, true);
            continue;
        }
        if (c == '"') {
            i = dq_text_end(i + 1, to, depth + 1);
            continue;
        }
        if (c == '\'') {
            while (++i < to && src[i] != '\'') {}
            continue;
        }
        char at = c;
        if (c == '[' && state == DolBrace::Param) {
            const uint32_t close = expansion_subscript_end(i, to, depth + 1);
            if (close < to) {
                i = close;
                at = ']';
            }
        }
        const bool not_first = i > from;  // as bash's `(i - *sindex) > 1` after the byte
        if (state == DolBrace::Param && not_first && (at == '%' || at == '#' || at == '/' || at == '^' || at == ','))
            state = DolBrace::Quote;
        else if (state == DolBrace::Param && is_dolbrace_op(at))
            state = DolBrace::Op;
        else if (state == DolBrace::Op && !is_dolbrace_op(at))
            state = DolBrace::Word;
    }
    return to;
}

uint32_t Parser::subst_text_end(uint32_t i, uint32_t end, bool in_dq) {
    const std::string_view src = src_;
    const bool commands = src[i] == '$' ? is_cmdsubst(src, i, end) : src[i] == '<' || src[i] == '>';
    const std::optional<uint32_t> cs = commands ? cmdsubst_end(i, in_dq) : std::nullopt;
    return cs ? *cs : substitution_end(src, i, end);
}

// The offset of the `"` that ends a double-quoted text going on at `from`, as that reading skips it.
uint32_t Parser::dq_text_end(uint32_t from, uint32_t to, uint32_t depth) {
    const std::string_view src = src_;
    if (depth > kMaxScanDepth) return to;
    for (uint32_t i = from; i < to; ++i) {
        const char c = src[i];
        if (c == '"') return i;
        if (c == '\\') {
            ++i;
        } else if (c == '`') {
            i = substitution_end(src, i, to);
        } else if (c == '$' && i + 1 < to && src[i + 1] == '{') {
            i = dq_brace_end(i + 2, to, depth + 1);
        } else if (c == '$' && i + 1 < to && src[i + 1] == '(') {
            i = subst_text_end(i, to, true);
        }
    }
    return to;
}

// The offset of the `]` that matches the `[` at `at`, as that reading skips a subscript: `[ ]` pairs nest,
// and quoted text, backquoted text and substitutions are skipped.
uint32_t Parser::expansion_subscript_end(uint32_t at, uint32_t to, uint32_t depth) {
    const std::string_view src = src_;
    if (depth > kMaxScanDepth) return to;
    int count = 0;
    for (uint32_t i = at; i < to; ++i) {
        const char c = src[i];
        if (c == '\\') {
            ++i;
        } else if (c == '`') {
            i = substitution_end(src, i, to);
        } else if (c == '[') {
            ++count;
        } else if (c == ']') {
            if (--count == 0) return i;
        } else if (c == '\'') {
            while (++i < to && src[i] != '\'') {}
        } else if (c == '"') {
            i = dq_text_end(i + 1, to, depth + 1);
        } else if (c == '$' && i + 1 < to && src[i + 1] == '{') {
            i = dq_brace_end(i + 2, to, depth + 1);
        } else if (c == '$' && i + 1 < to && src[i + 1] == '(') {
            i = substitution_end(src, i, to);
        }
    }
    return to;
}

Assign* Parser::try_assignment(bool word_subscript) {
    uint32_t off = lexer_.off();
    uint32_t end = lexer_.end();
    if (off >= end || !is_name_start(static_cast<unsigned char>(src_[off]))) return nullptr;
    // line continuations may split the name and the operator
    uint32_t i = lexer_.skip_cont(off + 1);
    while (i < end && is_name_char(static_cast<unsigned char>(src_[i]))) i = lexer_.skip_cont(i + 1);
    uint32_t name_end = i;
    uint32_t close = 0;
    bool has_index = false;
    if (i < end && src_[i] == '[') {
        if (!scan_subscript(i, close, !word_subscript)) return nullptr;
        if (word_subscript && has_word_break(i + 1, close)) return nullptr;
        has_index = true;
        i = lexer_.skip_cont(close + 1);
    }
    bool append = false;
    if (i < end && src_[i] == '+') {
        append = true;
        i = lexer_.skip_cont(i + 1);
    }
    if (i >= end || src_[i] != '=') return nullptr;
    Assign* as = arena_.node<Assign>(lexer_.pos());
    as->name = joined(off, name_end);
    as->append = append;
    if (has_index) {
        as->index = read_range_word(name_end + 1, close);
        if (failed()) return nullptr;
    }
    lexer_.advance_to(i + 1);
    if (lexer_.peekj() == '(') {
        lexer_.splice();
        as->is_array = true;
        if (!read_array(as)) return nullptr;
        return as;
    }
    uint32_t value_off = lexer_.off();
    as->value = read_word(WordMode::Normal);
    if (failed()) return nullptr;
    assign_value_off_ = value_off;  // after the value: assignments inside it set it too
    return as;
}

bool Parser::read_array(Assign* as) {
    Pos start = lexer_.pos();
    Depth d(*this, start);
    if (!d.ok) return false;
    lexer_.advance();  // (
    SmallVec<ArrayElem, 8> elems;
    for (;;) {
        lexer_.skip_blanks();
        int c = lexer_.peek();
        if (c == '\n') {
            consume_newline();
            continue;
        }
        if (c == -1) {
            error(start, "unexpected EOF while looking for matching `)'");
            return false;
        }
        if (c == ')') {
            lexer_.advance();
            break;
        }
        if (Lexer::is_meta(c) || (c == '<' || c == '>')) {
            Token t = lexer_.next();
            error_near(t);
            if (err) err->discard_line = true;
            return false;
        }
        ArrayElem e;
        e.pos = lexer_.pos();
        uint32_t close = 0;
        // bash reads the subscript of an element as a matched pair, across blanks and newlines (`[` newline
        // `3` newline `]=z` is one element)
        if (c == '[' && scan_subscript(lexer_.off(), close, true)) {
            uint32_t j = close + 1;
            bool app = false;
            if (j < lexer_.end() && src_[j] == '+') {
                app = true;
                ++j;
            }
            if (j < lexer_.end() && src_[j] == '=') {
                e.key = read_range_word(lexer_.off() + 1, close);
                if (failed()) return false;
                e.append = app;
                lexer_.advance_to(j + 1);
            }
        }
        e.value = read_word(WordMode::Normal);
        if (failed()) return false;
        elems.push_back(e);
    }
    as->elems = arena_.list<ArrayElem>(elems);
    return true;
}

}  // namespace detail

// ---------------------------------------------------------------- public API

ParseResult parse(std::string_view source, const ParseOptions& options) {
    ParseResult r;
    std::string_view src = r.arena->str(source);
    detail::Parser p(*r.arena, src, options, {1, 1}, 0);
    Script* s = p.parse_script();
    if (p.err) {
        r.error = std::move(p.err);
        return r;
    }
    r.script = s;
    r.unterminated_heredocs = std::move(p.unterminated_heredocs_);
    return r;
}

ScriptReader::ScriptReader(std::shared_ptr<const std::string> source, ParseOptions options, uint32_t first_line)
    : source_(std::move(source)), options_(options), line_(first_line ? first_line : 1) {
    if (!source_) source_ = std::make_shared<const std::string>();
    const std::string& src = *source_;
    uint32_t lines = static_cast<uint32_t>(std::count(src.begin(), src.end(), '\n'));
    if (!src.empty() && src.back() != '\n') ++lines;
    eof_line_ = line_ + lines;
}

ParseUnit ScriptReader::next() {
    ParseUnit u;
    u.result.source = source_;
    std::string_view src(*source_);
    detail::Parser p(*u.result.arena, src, options_, {1, 1}, 0, eof_line_);
    p.lexer_.restore(detail::LexState{static_cast<uint32_t>(offset_), line_, 1});
    Script* s = p.parse_unit(u.complete);
    if (p.err) {
        u.result.error = std::move(p.err);
        size_t at = offset_;
        offset_ = source_->size();
        if (u.result.error->discard_line) {  // read on after the line of the error
            uint32_t line = line_;
            while (line < u.result.error->pos.line && at != std::string_view::npos) {
                at = src.find('\n', at);
                if (at != std::string_view::npos) ++at;
                ++line;
            }
            size_t nl = at == std::string_view::npos ? at : src.find('\n', at);
            if (nl != std::string_view::npos) {
                offset_ = nl + 1;
                line_ = line + 1;
            } else {
                offset_ = source_->size();
            }
        }
        return u;
    }
    u.result.script = s;
    u.result.unterminated_heredocs = std::move(p.unterminated_heredocs_);
    offset_ = p.lexer_.off();
    line_ = p.lexer_.pos().line;
    return u;
}

}  // namespace bashkit::syntax