// Recursive-descent parser for bash: commands, words, here-documents, [[ ]].
#include <algorithm>
#include <cstring>

#include "interp/syntax/parser_impl.hpp"

namespace bashkit::syntax {
namespace detail {
namespace {

bool is_name_start(int c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_name_char(int c) { return is_name_start(c) || (c >= '0' && c <= '9'); }
bool is_digit(int c) { return c >= '0' && c <= '9'; }
bool is_special_param(int c) {
    return c == '@' || c == '*' || c == '#' || c == '?' || c == '-' || c == '$' || c == '!' || c == '0';
}

constexpr std::string_view kStopWords[] = {"then", "elif", "else", "fi", "do", "done", "esac", "}"};
constexpr std::string_view kDeclUtils[] = {"declare", "typeset", "local", "export", "readonly"};
constexpr std::string_view kUnaryTests[] = {"-a", "-b", "-c", "-d", "-e", "-f", "-g", "-h", "-k",
                                            "-p", "-r", "-s", "-t", "-u", "-w", "-x", "-G", "-L",
                                            "-N", "-O", "-S", "-z", "-n", "-o", "-v", "-R"};
constexpr std::string_view kBinaryTests[] = {"==", "=",   "!=",  "=~",  "-eq", "-ne", "-lt", "-le",
                                             "-gt", "-ge", "-nt", "-ot", "-ef"};

}  // namespace

Parser::Parser(Arena& a, std::string_view src, const ParseOptions& opt, Pos origin, uint32_t depth,
               uint32_t eof_line)
    : a_(a), src_(src), lx_(src, origin), opt_(opt), depth_(depth) {
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
    lx_.force_eof();
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
        uint32_t from = lx_.off();
        read_word(WordMode::Normal);
        if (failed()) return;
        text = quote_token(joined(from, lx_.off()));
        if (text.empty() && !lx_.eof()) text = std::string(1, src_[from]);
    } else if (t.kind == Tok::IoNumber || t.kind == Tok::IoVar) {
        text = std::string(joined(t.off, t.off + t.len));
        lx_.consume(t);
    } else {
        text = std::string(token_text(t.kind));
        if (t.kind != Tok::Newline) lx_.consume(t);
    }
    // bash blames the line where the token ends (it can span lines: quotes, line continuations)
    Pos p = t.pos;
    Pos end = lx_.pos();
    if (end.line != p.line && lx_.off() > t.off) p = {end.line, end.col > 1 ? end.col - 1 : 1};
    error(p, "syntax error near unexpected token `" + text + "'");
}

// ---------------------------------------------------------------- literals

void Parser::lit_add(LitBuf& l, uint32_t off, uint32_t n, Pos p) {
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

void Parser::lit_flush(LitBuf& l, std::vector<Node*>& parts) {
    if (!l.active) return;
    Lit* lit = a_.node<Lit>(l.pos);
    lit->text = l.contiguous ? src_.substr(l.start, l.end - l.start) : a_.str(l.buf);
    l.active = false;
    l.buf.clear();
    if (!lit->text.empty()) parts.push_back(lit);
}

Word* Parser::make_word(Pos p, std::vector<Node*>& parts) {
    Word* w = a_.node<Word>(p);
    w->parts = a_.list<Node*>(parts);
    return w;
}

std::string_view Parser::joined(uint32_t from, uint32_t to) {
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
    return a_.str(out);
}

std::string_view Parser::plain_text(const Word* w) const {
    if (w && w->parts.size == 1 && w->parts[0]->is<Lit>()) return w->parts[0]->as<Lit>()->text;
    return {};
}

// ---------------------------------------------------------------- script and lists

Script* Parser::parse_unit(bool& complete) {
    complete = false;
    Script* s = a_.node<Script>(lx_.pos());
    std::vector<Stmt*> out;
    skip_newlines();
    while (!failed()) {
        Token t = lx_.next();
        if (t.kind == Tok::Eof) break;
        if (is_stop(t) || t.kind == Tok::Semi || t.kind == Tok::Amp) {
            error_near(t);
            break;
        }
        Command* c = parse_and_or();
        if (!c || failed()) break;
        Stmt* st = a_.node<Stmt>(c->pos);
        st->cmd = c;
        out.push_back(st);
        t = lx_.next();
        bool separated = false;
        if (t.kind == Tok::Semi || t.kind == Tok::Amp) {
            lx_.consume(t);
            st->background = t.kind == Tok::Amp;
            separated = true;
            t = lx_.next();
        }
        if (t.kind == Tok::Newline) {
            consume_newline();
            complete = !failed() && !heredoc_eof_;
            break;
        }
        if (t.kind == Tok::Eof) break;
        if (!separated || is_stop(t)) {
            error_near(t);
            break;
        }
    }
    if (!failed() && !heredocs_.empty() && lx_.eof()) read_heredocs();
    if (failed()) return nullptr;
    s->body = a_.list<Stmt*>(out);
    return s;
}

Script* Parser::parse_script() {
    Script* s = a_.node<Script>({1, 1});
    std::vector<Stmt*> body = parse_stmts(false);
    if (!failed()) {
        Token t = lx_.next();
        if (t.kind != Tok::Eof) error_near(t);
    }
    if (failed()) return nullptr;
    s->body = a_.list<Stmt*>(body);
    return s;
}

bool Parser::is_stop(const Token& t) const {
    switch (t.kind) {
    case Tok::RParen:
    case Tok::DSemi:
    case Tok::SemiAnd:
    case Tok::DSemiAnd: return true;
    case Tok::Word:
        for (auto w : kStopWords)
            if (lx_.at_word(w)) return true;
        return false;
    default: return false;
    }
}

void Parser::consume_newline() {
    lx_.advance();
    if (!heredocs_.empty()) read_heredocs();
}

uint32_t Parser::skip_newlines() {
    uint32_t n = 0;
    for (;;) {
        Token t = lx_.next();
        if (t.kind != Tok::Newline || failed()) return n;
        consume_newline();
        no_time_ = false;
        ++n;
    }
}

std::vector<Stmt*> Parser::parse_stmts(bool nonempty) {
    std::vector<Stmt*> out;
    for (;;) {
        skip_newlines();
        if (failed()) break;
        Token t = lx_.next();
        if (t.kind == Tok::Eof) break;
        if (is_stop(t)) {
            if (nonempty && out.empty()) error_near(t);
            break;
        }
        Command* c = parse_and_or();
        if (!c || failed()) break;
        Stmt* s = a_.node<Stmt>(c->pos);
        s->cmd = c;
        out.push_back(s);
        t = lx_.next();
        if (t.kind == Tok::Semi) {
            lx_.consume(t);
        } else if (t.kind == Tok::Amp) {
            lx_.consume(t);
            s->background = true;
        } else if (t.kind == Tok::Newline || t.kind == Tok::Eof || is_stop(t)) {
            // the loop consumes newlines; the caller handles the rest
        } else {
            error_near(t);
            break;
        }
    }
    if (!failed() && !heredocs_.empty() && lx_.eof()) read_heredocs();
    return out;
}

Command* Parser::parse_and_or() {
    Command* first = parse_pipeline();
    if (!first || failed()) return nullptr;
    Token t = lx_.next();
    if (t.kind != Tok::AndAnd && t.kind != Tok::OrOr) return first;
    std::vector<Command*> items{first};
    std::vector<AndOrOp> ops;
    while (t.kind == Tok::AndAnd || t.kind == Tok::OrOr) {
        lx_.consume(t);
        ops.push_back(t.kind == Tok::AndAnd ? AndOrOp::And : AndOrOp::Or);
        skip_newlines();
        Command* c = parse_pipeline();
        if (!c || failed()) return nullptr;
        items.push_back(c);
        t = lx_.next();
    }
    AndOr* ao = a_.node<AndOr>(first->pos);
    ao->items = a_.list<Command*>(items);
    ao->ops = a_.list<AndOrOp>(ops);
    return ao;
}

Command* Parser::parse_pipeline() {
    // `time` is a reserved word only where bash's time_command_acceptable() allows it: not as the first
    // word of a $( ) body (bash has just read the word holding the substitution there).
    bool time_ok = !no_time_;
    no_time_ = false;
    Token t = lx_.next();
    Pos p = t.pos;
    bool timed = false, posix = false, negated = false, prefixed = false;
    // Any sequence of `!` and `time [-p] [--]` (bash: pipeline_command: BANG pipeline_command |
    // timespec pipeline_command). Repeats collapse: `! !` cancels, `time time` times once.
    while (t.kind == Tok::Word) {
        if (time_ok && lx_.at_word("time")) {
            lx_.advancej(4);
            timed = true;
            t = lx_.next();
            if (t.kind == Tok::Word && lx_.at_word("-p")) {
                lx_.advancej(2);
                posix = true;
                t = lx_.next();
            }
            if (t.kind == Tok::Word && lx_.at_word("--")) {
                lx_.advancej(2);
                t = lx_.next();
            }
        } else if (lx_.at_word("!")) {
            lx_.advancej(1);
            negated = !negated;
            t = lx_.next();
        } else {
            break;
        }
        time_ok = true;
        prefixed = true;
    }
    std::vector<Command*> stages;
    std::vector<uint8_t> err_too;
    // A bare `time` or `!` must end the list (bash: `timespec list_terminator`); anything else that cannot
    // start a command is reported by parse_command.
    bool bare = prefixed && (t.kind == Tok::Newline || t.kind == Tok::Eof || t.kind == Tok::Semi);
    if (!bare) {
        for (;;) {
            Command* c = parse_command();
            if (!c || failed()) return nullptr;
            stages.push_back(c);
            t = lx_.next();
            if (t.kind != Tok::Pipe && t.kind != Tok::PipeAmp) break;
            lx_.consume(t);
            err_too.push_back(t.kind == Tok::PipeAmp ? 1 : 0);
            uint32_t newlines = skip_newlines();
            if (failed()) return nullptr;
            // After `|`, `!` is a reserved word that cannot start a pipeline stage; so is `time` once two
            // newlines separate it from the `|` (bash's time_command_acceptable looks back two tokens).
            Token s = lx_.next();
            if (s.kind == Tok::Word && (lx_.at_word("!") || (newlines >= 2 && lx_.at_word("time")))) {
                error_near(s);
                return nullptr;
            }
        }
    }
    if (stages.size() == 1 && !timed && !negated) return stages[0];
    Pipeline* pl = a_.node<Pipeline>(p);
    pl->negated = negated;
    pl->timed = timed;
    pl->time_posix = posix;
    pl->stages = a_.list<Command*>(stages);
    pl->stderr_too = a_.list<uint8_t>(err_too);
    return pl;
}

bool Parser::expect_word(std::string_view kw) {
    Token t = lx_.next();
    if (t.kind == Tok::Word && lx_.at_word(kw)) {
        lx_.advancej(static_cast<uint32_t>(kw.size()));
        return true;
    }
    if (t.kind == Tok::Eof)
        error_eof();
    else
        error_near(t);
    return false;
}

Command* Parser::parse_command() {
    Token t = lx_.next();
    Command* c = nullptr;
    switch (t.kind) {
    case Tok::Eof: error_eof(); return nullptr;
    case Tok::LParen: c = parse_paren_command(); break;
    case Tok::Word:
        if (lx_.at_word("if")) c = parse_if();
        else if (lx_.at_word("while")) c = parse_while(false);
        else if (lx_.at_word("until")) c = parse_while(true);
        else if (lx_.at_word("for")) c = parse_for(false);
        else if (lx_.at_word("select")) c = parse_for(true);
        else if (lx_.at_word("case")) c = parse_case();
        else if (lx_.at_word("{")) c = parse_brace();
        else if (lx_.at_word("[[")) c = parse_cond();
        else if (lx_.at_word("function")) return parse_function_kw();
        else if (lx_.at_word("coproc")) return parse_coproc();
        else if (is_stop(t) || lx_.at_word("in")) {
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
    std::vector<Redirect*> rs;
    for (;;) {
        Token t = lx_.next();
        if (!is_redir_tok(t.kind)) break;
        Redirect* r = parse_redirect(t);
        if (!r) return;
        rs.push_back(r);
    }
    c->redirs = a_.list<Redirect*>(rs);
}

Redirect* Parser::parse_redirect(Token t) {
    Redirect* r = a_.node<Redirect>(t.pos);
    if (t.kind == Tok::IoNumber) {
        long v = 0;
        for (char d : joined(t.off, t.off + t.len)) {
            v = v * 10 + (d - '0');
            if (v > 0x7fffffff) v = 0x7fffffff;
        }
        r->fd = static_cast<int>(v);
        lx_.consume(t);
        t = lx_.next();
    } else if (t.kind == Tok::IoVar) {
        std::string_view text = joined(t.off, t.off + t.len);  // {name}
        r->fd_var = text.substr(1, text.size() - 2);
        lx_.consume(t);
        t = lx_.next();
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
    lx_.consume(t);
    Token w = lx_.next();
    if (w.kind != Tok::Word) {
        error_near(w);
        return nullptr;
    }
    uint32_t from = lx_.off();
    r->target = read_word(WordMode::Normal);
    if (failed()) return nullptr;
    if (r->op == RedirOp::HereDoc) {
        std::string_view raw = word_text(from);
        std::string delim;
        bool quoted = false;
        for (size_t i = 0; i < raw.size(); ++i) {
            char c = raw[i];
            if (c == '\\' && i + 1 < raw.size() && raw[i + 1] == '\n') {
                ++i;  // a line continuation
            } else if (c == '\\' && i + 1 < raw.size()) {
                quoted = true;
                delim += raw[++i];
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
        r->delim = a_.str(delim);
        r->body = a_.node<Word>(lx_.pos());
        heredocs_.push_back(r);
    }
    return r;
}

// ---------------------------------------------------------------- here-documents

void Parser::read_heredocs() {
    std::vector<Redirect*> list;
    list.swap(heredocs_);
    for (Redirect* r : list) {
        if (failed()) return;
        read_heredoc(r);
    }
}

void Parser::read_heredoc(Redirect* r) {
    bool saved_in_body = in_heredoc_body_;
    in_heredoc_body_ = true;
    std::vector<Node*> parts;
    LitBuf lit;
    Pos start = lx_.pos();
    std::string_view delim = r->delim;
    auto at_delim_line = [&]() {
        uint32_t off = lx_.off();
        if (lx_.end() - off < delim.size()) return false;
        if (src_.substr(off, delim.size()) != delim) return false;
        int c = lx_.peek(static_cast<uint32_t>(delim.size()));
        return c == '\n' || c == -1;
    };
    bool last_nl = true;
    bool found = false;
    while (!lx_.eof() && !failed()) {
        if (r->strip_tabs)
            while (lx_.peek() == '\t') lx_.advance();
        if (at_delim_line()) {
            lx_.advance(static_cast<uint32_t>(delim.size()));
            if (lx_.peek() == '\n') lx_.advance();
            last_nl = true;
            found = true;
            break;
        }
        if (r->quoted_delim) {
            uint32_t off = lx_.off();
            const void* nl = std::memchr(src_.data() + off, '\n', lx_.end() - off);
            uint32_t to = nl ? static_cast<uint32_t>(static_cast<const char*>(nl) - src_.data()) + 1 : lx_.end();
            lit_add(lit, off, to - off, lx_.pos());
            lx_.advance_to(to);
            last_nl = nl != nullptr;
            continue;
        }
        // unquoted: expansions and the backslash rules of here-documents, up to the end of the line
        last_nl = false;
        while (!lx_.eof() && !failed()) {
            int c = lx_.peek();
            if (c == '\n') {
                lit_char(lit);
                last_nl = true;
                break;
            }
            if (c == '\\') {
                int n = lx_.peek(1);
                if (n == '\n') {
                    lx_.advance(2);
                    continue;
                }
                if (n == '$' || n == '`' || n == '\\') {
                    lit_add(lit, lx_.off() + 1, 1, lx_.pos());
                    lx_.advance(2);
                    continue;
                }
                lit_char(lit);
                continue;
            }
            if (c == '$') {
                Pos p = lx_.pos();
                uint32_t off = lx_.off();
                Node* n = read_dollar(true);
                if (n) {
                    lit_flush(lit, parts);
                    parts.push_back(n);
                } else {
                    lit_add(lit, off, 1, p);
                    lx_.advance();
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
    if (!found && !failed()) {
        heredoc_eof_ = true;
        unterminated_heredocs_.emplace_back(r->pos.line, std::string(delim));
    }
    // bash ends a last line cut by the end of input with a newline, whatever the line ends with
    if (!last_nl) lit_add_str(lit, "\n", lx_.pos());
    lit_flush(lit, parts);
    Word* body = a_.node<Word>(start);
    body->parts = a_.list<Node*>(parts);
    r->body = body;
    in_heredoc_body_ = saved_in_body;
}

// ---------------------------------------------------------------- simple commands

Command* Parser::parse_simple() {
    Token t = lx_.next();
    Simple* s = a_.node<Simple>(t.pos);
    std::vector<Assign*> assigns;
    std::vector<Word*> words;
    std::vector<Redirect*> redirs;
    bool decl = false;
    for (;;) {
        if (failed()) return nullptr;
        t = lx_.next();
        if (is_redir_tok(t.kind)) {
            Redirect* r = parse_redirect(t);
            if (!r) return nullptr;
            redirs.push_back(r);
            continue;
        }
        if (t.kind != Tok::Word) break;
        if (words.empty()) {
            if (Assign* as = try_assignment()) {
                assigns.push_back(as);
                continue;
            }
            if (failed()) return nullptr;
            Word* w = read_word(WordMode::Normal);
            if (failed()) return nullptr;
            words.push_back(w);
            std::string_view raw_name = word_text(t.off);
            std::string_view name = plain_text(w);
            if (assigns.empty() && redirs.empty() && !w->parts.empty()) {
                Token n = lx_.next();
                if (n.kind == Tok::LParen) {
                    lx_.consume(n);
                    Token c = lx_.next();
                    if (c.kind != Tok::RParen) {
                        error_near(c);
                        return nullptr;
                    }
                    lx_.consume(c);
                    FuncDef* f = a_.node<FuncDef>(s->pos);
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
            uint32_t from = lx_.off();
            Pos p = lx_.pos();
            if (Assign* as = try_assignment()) {
                Word* w = a_.node<Word>(p);
                w->decl_assign = as;
                std::vector<Node*> parts;
                if (as->is_array || !as->value) {
                    Lit* l = a_.node<Lit>(p);
                    l->text = joined(from, lx_.off());
                    parts.push_back(l);
                } else {
                    // the prefix up to and including '='
                    Lit* l = a_.node<Lit>(p);
                    l->text = joined(from, assign_value_off_);
                    if (!l->text.empty()) parts.push_back(l);
                    for (Node* n : as->value->parts) parts.push_back(n);
                }
                w->parts = a_.list<Node*>(parts);
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
    s->assigns = a_.list<Assign*>(assigns);
    s->words = a_.list<Word*>(words);
    s->redirs = a_.list<Redirect*>(redirs);
    return s;
}

// Scans a subscript starting at the '[' at offset `at`; sets `close` to the matching ']'.
bool Parser::scan_subscript(uint32_t at, uint32_t& close) const {
    uint32_t end = lx_.end();
    int depth = 0;
    for (uint32_t i = at; i < end; ++i) {
        char c = src_[i];
        if (c == '[') {
            ++depth;
        } else if (c == ']') {
            if (--depth == 0) {
                close = i;
                return true;
            }
        } else if (c == '\\') {
            ++i;
        } else if (c == '\'' || c == '"') {
            uint32_t j = i + 1;
            while (j < end && src_[j] != c) {
                if (c == '"' && src_[j] == '\\') ++j;
                ++j;
            }
            if (j >= end) return false;
            i = j;
        } else if (c == '\n') {
            return false;
        }
    }
    return false;
}

Word* Parser::read_range_word(uint32_t from, uint32_t to) {
    uint32_t saved_end = lx_.end();
    lx_.advance_to(from);
    lx_.set_end(to);
    Word* w = read_word(WordMode::Limit);
    lx_.set_end(saved_end);
    if (!failed()) lx_.advance_to(to);
    return w;
}

Assign* Parser::try_assignment() {
    uint32_t off = lx_.off();
    uint32_t end = lx_.end();
    if (off >= end || !is_name_start(static_cast<unsigned char>(src_[off]))) return nullptr;
    // line continuations may split the name and the operator
    uint32_t i = lx_.skip_cont(off + 1);
    while (i < end && is_name_char(static_cast<unsigned char>(src_[i]))) i = lx_.skip_cont(i + 1);
    uint32_t name_end = i;
    uint32_t close = 0;
    bool has_index = false;
    if (i < end && src_[i] == '[') {
        if (!scan_subscript(i, close)) return nullptr;
        has_index = true;
        i = lx_.skip_cont(close + 1);
    }
    bool append = false;
    if (i < end && src_[i] == '+') {
        append = true;
        i = lx_.skip_cont(i + 1);
    }
    if (i >= end || src_[i] != '=') return nullptr;
    Assign* as = a_.node<Assign>(lx_.pos());
    as->name = joined(off, name_end);
    as->append = append;
    if (has_index) {
        as->index = read_range_word(name_end + 1, close);
        if (failed()) return nullptr;
    }
    lx_.advance_to(i + 1);
    if (lx_.peekj() == '(') {
        lx_.splice();
        as->is_array = true;
        if (!read_array(as)) return nullptr;
        return as;
    }
    uint32_t value_off = lx_.off();
    as->value = read_word(WordMode::Normal);
    if (failed()) return nullptr;
    assign_value_off_ = value_off;  // after the value: assignments inside it set it too
    return as;
}

bool Parser::read_array(Assign* as) {
    Pos start = lx_.pos();
    Depth d(*this, start);
    if (!d.ok) return false;
    lx_.advance();  // (
    std::vector<ArrayElem> elems;
    for (;;) {
        lx_.skip_blanks();
        int c = lx_.peek();
        if (c == '\n') {
            consume_newline();
            continue;
        }
        if (c == -1) {
            error(start, "unexpected EOF while looking for matching `)'");
            return false;
        }
        if (c == ')') {
            lx_.advance();
            break;
        }
        if (Lexer::is_meta(c) || (c == '<' || c == '>')) {
            Token t = lx_.next();
            error_near(t);
            return false;
        }
        ArrayElem e;
        e.pos = lx_.pos();
        uint32_t close = 0;
        if (c == '[' && scan_subscript(lx_.off(), close)) {
            uint32_t j = close + 1;
            bool app = false;
            if (j < lx_.end() && src_[j] == '+') {
                app = true;
                ++j;
            }
            if (j < lx_.end() && src_[j] == '=') {
                e.key = read_range_word(lx_.off() + 1, close);
                if (failed()) return false;
                e.append = app;
                lx_.advance_to(j + 1);
            }
        }
        e.value = read_word(WordMode::Normal);
        if (failed()) return false;
        elems.push_back(e);
    }
    as->elems = a_.list<ArrayElem>(elems);
    return true;
}

// ---------------------------------------------------------------- compound commands

bool Parser::at_compound_start() {
    Token t = lx_.next();
    if (t.kind == Tok::LParen) return true;
    if (t.kind != Tok::Word) return false;
    for (auto kw : {"{", "if", "while", "until", "for", "select", "case", "[["})
        if (lx_.at_word(kw)) return true;
    return false;
}

Command* Parser::parse_funcdef_body(FuncDef* f) {
    skip_newlines();
    if (failed()) return nullptr;
    Token t = lx_.next();
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
    Pos p = lx_.pos();
    lx_.advancej(8);
    Token t = lx_.next();
    if (t.kind != Tok::Word) {
        error_near(t);
        return nullptr;
    }
    Word* w = read_word(WordMode::Normal);
    if (failed()) return nullptr;
    FuncDef* f = a_.node<FuncDef>(p);
    f->keyword = true;
    f->name = plain_text(w);
    if (f->name.empty() && !w->parts.empty()) f->name = a_.str(src_.substr(t.off, lx_.off() - t.off));
    t = lx_.next();
    if (t.kind == Tok::LParen) {
        lx_.consume(t);
        Token c = lx_.next();
        if (c.kind != Tok::RParen) {
            error_near(c);
            return nullptr;
        }
        lx_.consume(c);
        f->parens = true;
    }
    return parse_funcdef_body(f);
}

Command* Parser::parse_coproc() {
    Pos p = lx_.pos();
    lx_.advancej(6);
    Coproc* c = a_.node<Coproc>(p);
    Token t = lx_.next();
    if (t.kind == Tok::Newline || t.kind == Tok::Eof) {
        error_near(t);
        return nullptr;
    }
    Depth d(*this, p);
    if (!d.ok) return nullptr;
    if (t.kind == Tok::Word && !at_compound_start()) {
        LexState st = lx_.save();
        Word* w = read_word(WordMode::Normal);
        if (failed()) return nullptr;
        std::string_view name = plain_text(w);
        if (!name.empty() && at_compound_start()) {
            c->name = name;
        } else {
            lx_.restore(st);
        }
    }
    c->body = parse_command();
    if (!c->body || failed()) return nullptr;
    return c;
}

Command* Parser::parse_brace() {
    Pos p = lx_.pos();
    Depth d(*this, p);
    if (!d.ok) return nullptr;
    lx_.advancej(1);
    Brace* b = a_.node<Brace>(p);
    std::vector<Stmt*> body = parse_stmts(true);
    if (failed() || !expect_word("}")) return nullptr;
    b->body = a_.list<Stmt*>(body);
    return b;
}

Command* Parser::parse_subshell() {
    Pos p = lx_.pos();
    Depth d(*this, p);
    if (!d.ok) return nullptr;
    lx_.advancej(1);
    Subshell* s = a_.node<Subshell>(p);
    std::vector<Stmt*> body = parse_stmts(true);
    if (failed()) return nullptr;
    Token t = lx_.next();
    if (t.kind != Tok::RParen) {
        if (t.kind == Tok::Eof)
            error_eof();
        else
            error_near(t);
        return nullptr;
    }
    lx_.consume(t);
    s->body = a_.list<Stmt*>(body);
    return s;
}

Command* Parser::parse_paren_command() {
    if (lx_.peekj(1) != '(') return parse_subshell();
    Pos p = lx_.pos();
    Depth d(*this, p);
    if (!d.ok) return nullptr;
    LexState st = lx_.save();
    lx_.advancej(2);
    Word* raw = nullptr;
    ++speculating_;
    bool ok = read_arith_raw(ArithEnd::DParen, p, raw);
    --speculating_;
    if (failed()) return nullptr;
    if (!ok) {
        // bash quirk: when the `)` that ended the arithmetic attempt is the last byte of the input (but
        // for a final newline), bash counts that last line twice in its end-of-file error
        uint32_t at = lx_.off() + 1;
        if (at == lx_.end() || (at + 1 == lx_.end() && src_[at] == '\n')) ++eof_line_;
        lx_.restore(st);
        return parse_subshell();
    }
    ArithCmd* c = a_.node<ArithCmd>(p);
    c->raw = raw;
    c->expr = arith_from_word(raw);
    return failed() ? nullptr : c;
}

Command* Parser::parse_if() {
    Pos p = lx_.pos();
    Depth d(*this, p);
    if (!d.ok) return nullptr;
    lx_.advancej(2);
    If* n = a_.node<If>(p);
    std::vector<IfClause> clauses;
    Pos cp = p;
    for (;;) {
        IfClause cl;
        cl.pos = cp;
        std::vector<Stmt*> cond = parse_stmts(true);
        if (failed() || !expect_word("then")) return nullptr;
        std::vector<Stmt*> body = parse_stmts(true);
        if (failed()) return nullptr;
        cl.cond = a_.list<Stmt*>(cond);
        cl.body = a_.list<Stmt*>(body);
        clauses.push_back(cl);
        Token t = lx_.next();
        if (t.kind == Tok::Word && lx_.at_word("elif")) {
            cp = t.pos;
            lx_.advancej(4);
            continue;
        }
        if (t.kind == Tok::Word && lx_.at_word("else")) {
            lx_.advancej(4);
            std::vector<Stmt*> eb = parse_stmts(true);
            if (failed()) return nullptr;
            n->has_else = true;
            n->else_body = a_.list<Stmt*>(eb);
        }
        if (!expect_word("fi")) return nullptr;
        break;
    }
    n->clauses = a_.list<IfClause>(clauses);
    return n;
}

Command* Parser::parse_while(bool until) {
    Pos p = lx_.pos();
    Depth d(*this, p);
    if (!d.ok) return nullptr;
    lx_.advancej(until ? 5 : 5);
    While* w = a_.node<While>(p);
    w->until = until;
    std::vector<Stmt*> cond = parse_stmts(true);
    if (failed() || !expect_word("do")) return nullptr;
    std::vector<Stmt*> body = parse_stmts(true);
    if (failed() || !expect_word("done")) return nullptr;
    w->cond = a_.list<Stmt*>(cond);
    w->body = a_.list<Stmt*>(body);
    return w;
}

Command* Parser::parse_for(bool select) {
    Pos p = lx_.pos();
    Depth d(*this, p);
    if (!d.ok) return nullptr;
    lx_.advancej(select ? 6 : 3);
    lx_.skip_blanks();
    if (!select && lx_.peekj() == '(' && lx_.peekj(1) == '(') return parse_arith_for(p);
    Token t = lx_.next();
    if (t.kind != Tok::Word) {
        error_near(t);
        return nullptr;
    }
    Pos var_pos = t.pos;
    uint32_t from = lx_.off();
    read_word(WordMode::Normal);
    if (failed()) return nullptr;
    std::string_view var = joined(from, lx_.off());
    bool has_in = false;
    std::vector<Word*> items;
    skip_newlines();
    t = lx_.next();
    if (t.kind == Tok::Word && lx_.at_word("in")) {
        lx_.advancej(2);
        has_in = true;
        for (;;) {
            t = lx_.next();
            if (t.kind == Tok::Word) {
                Word* w = read_word(WordMode::Normal);
                if (failed()) return nullptr;
                items.push_back(w);
                continue;
            }
            if (t.kind == Tok::Semi) {
                lx_.consume(t);
            } else if (t.kind != Tok::Newline && t.kind != Tok::Eof) {
                error_near(t);
                return nullptr;
            }
            break;
        }
    } else if (t.kind == Tok::Semi) {
        lx_.consume(t);
    }
    skip_newlines();
    if (failed()) return nullptr;
    t = lx_.next();
    bool brace = false;
    if (t.kind == Tok::Word && lx_.at_word("do")) {
        lx_.advancej(2);
    } else if (t.kind == Tok::Word && lx_.at_word("{")) {
        lx_.advancej(1);
        brace = true;
    } else {
        if (t.kind == Tok::Eof)
            error_eof();
        else
            error_near(t);
        return nullptr;
    }
    std::vector<Stmt*> body = parse_stmts(true);
    if (failed() || !expect_word(brace ? "}" : "done")) return nullptr;
    if (select) {
        Select* s = a_.node<Select>(p);
        s->var = var;
        s->var_pos = var_pos;
        s->has_in = has_in;
        s->items = a_.list<Word*>(items);
        s->body = a_.list<Stmt*>(body);
        return s;
    }
    For* f = a_.node<For>(p);
    f->var = var;
    f->var_pos = var_pos;
    f->has_in = has_in;
    f->items = a_.list<Word*>(items);
    f->brace_body = brace;
    f->body = a_.list<Stmt*>(body);
    return f;
}

Command* Parser::parse_arith_for(Pos p) {
    Pos start = lx_.pos();
    lx_.advancej(2);
    ArithFor* f = a_.node<ArithFor>(p);
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
            error(lx_.pos(), "syntax error near unexpected token `)'");
            return nullptr;
        }
        parts[i]->raw = raw;
        parts[i]->expr = arith_from_word(raw);
        if (failed()) return nullptr;
        if (term == ')') closed = true;
    }
    if (!closed) {
        error(start, "syntax error: `;' unexpected");
        return nullptr;
    }
    Token t = lx_.next();
    if (t.kind == Tok::Semi) lx_.consume(t);
    skip_newlines();
    if (failed()) return nullptr;
    t = lx_.next();
    bool brace = false;
    if (t.kind == Tok::Word && lx_.at_word("do")) {
        lx_.advancej(2);
    } else if (t.kind == Tok::Word && lx_.at_word("{")) {
        lx_.advancej(1);
        brace = true;
    } else {
        if (t.kind == Tok::Eof)
            error_eof();
        else
            error_near(t);
        return nullptr;
    }
    std::vector<Stmt*> body = parse_stmts(true);
    if (failed() || !expect_word(brace ? "}" : "done")) return nullptr;
    f->brace_body = brace;
    f->body = a_.list<Stmt*>(body);
    return f;
}

Command* Parser::parse_case() {
    Pos p = lx_.pos();
    Depth d(*this, p);
    if (!d.ok) return nullptr;
    lx_.advancej(4);
    Case* c = a_.node<Case>(p);
    Token t = lx_.next();
    if (t.kind != Tok::Word) {
        error_near(t);
        return nullptr;
    }
    c->subject = read_word(WordMode::Normal);
    if (failed()) return nullptr;
    skip_newlines();
    if (failed() || !expect_word("in")) return nullptr;
    std::vector<CaseItem> items;
    for (;;) {
        skip_newlines();
        if (failed()) return nullptr;
        t = lx_.next();
        if (t.kind == Tok::Word && lx_.at_word("esac")) {
            lx_.advancej(4);
            break;
        }
        if (t.kind == Tok::Eof) {
            error_eof();
            return nullptr;
        }
        CaseItem it;
        it.pos = t.pos;
        if (t.kind == Tok::LParen) {
            lx_.consume(t);
            t = lx_.next();
        }
        std::vector<Word*> pats;
        for (;;) {
            if (t.kind != Tok::Word) {
                error_near(t);
                return nullptr;
            }
            Word* w = read_word(opt_.extglob ? WordMode::Normal : WordMode::Normal);
            if (failed()) return nullptr;
            pats.push_back(w);
            t = lx_.next();
            if (t.kind == Tok::Pipe) {
                lx_.consume(t);
                t = lx_.next();
                continue;
            }
            if (t.kind == Tok::RParen) {
                lx_.consume(t);
                break;
            }
            error_near(t);
            return nullptr;
        }
        std::vector<Stmt*> body = parse_stmts(false);
        if (failed()) return nullptr;
        it.patterns = a_.list<Word*>(pats);
        it.body = a_.list<Stmt*>(body);
        t = lx_.next();
        switch (t.kind) {
        case Tok::DSemi: it.term = CaseTerm::Break; break;
        case Tok::SemiAnd: it.term = CaseTerm::FallThrough; break;
        case Tok::DSemiAnd: it.term = CaseTerm::Continue; break;
        case Tok::Word:
            if (lx_.at_word("esac")) {
                it.term = CaseTerm::None;
                items.push_back(it);
                lx_.advancej(4);
                c->items = a_.list<CaseItem>(items);
                return c;
            }
            error_near(t);
            return nullptr;
        case Tok::Eof: error_eof(); return nullptr;
        default: error_near(t); return nullptr;
        }
        lx_.consume(t);
        items.push_back(it);
    }
    c->items = a_.list<CaseItem>(items);
    return c;
}

// ---------------------------------------------------------------- [[ ]]

Command* Parser::parse_cond() {
    Pos p = lx_.pos();
    Depth d(*this, p);
    if (!d.ok) return nullptr;
    lx_.advancej(2);
    CondCmd* c = a_.node<CondCmd>(p);
    c->expr = cond_or();
    if (failed()) return nullptr;
    cond_skip_newlines();
    Token t = lx_.next(LexMode::Cond);
    if (t.kind == Tok::Word && lx_.at_word("]]")) {
        lx_.advancej(2);
        return c;
    }
    if (t.kind == Tok::Eof) {
        error(p, "unexpected EOF while looking for `]]'");
    } else if (t.kind == Tok::RParen) {
        error(t.pos, "syntax error in conditional expression: unexpected token `)'");
    } else if (t.kind == Tok::Word) {
        error(t.pos, "syntax error in conditional expression");
    } else {
        error(t.pos, "syntax error near unexpected token `" + std::string(token_text(t.kind)) + "'");
    }
    return nullptr;
}

void Parser::cond_skip_newlines() {
    for (;;) {
        Token t = lx_.next(LexMode::Cond);
        if (t.kind != Tok::Newline || failed()) return;
        consume_newline();
    }
}

CondExpr* Parser::cond_or() {
    CondExpr* l = cond_and();
    for (;;) {
        if (!l || failed()) return nullptr;
        cond_skip_newlines();
        Token t = lx_.next(LexMode::Cond);
        if (t.kind != Tok::OrOr) return l;
        lx_.consume(t);
        CondExpr* r = cond_and();
        if (!r) return nullptr;
        CondOr* o = a_.node<CondOr>(l->pos);
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
        Token t = lx_.next(LexMode::Cond);
        if (t.kind != Tok::AndAnd) return l;
        lx_.consume(t);
        CondExpr* r = cond_term();
        if (!r) return nullptr;
        CondAnd* o = a_.node<CondAnd>(l->pos);
        o->left = l;
        o->right = r;
        l = o;
    }
}

CondExpr* Parser::cond_term() {
    cond_skip_newlines();
    if (failed()) return nullptr;
    Token t = lx_.next(LexMode::Cond);
    Depth d(*this, t.pos);
    if (!d.ok) return nullptr;
    auto tok_name = [&](const Token& k) -> std::string {
        if (k.kind == Tok::Word) {
            uint32_t e = k.off;
            while (e < lx_.end() && !Lexer::is_meta(static_cast<unsigned char>(src_[e]))) ++e;
            return std::string(src_.substr(k.off, e - k.off));
        }
        return std::string(token_text(k.kind));
    };
    if (t.kind == Tok::Eof) {
        error({eof_line_, 1}, "unexpected token `EOF' in conditional command");
        return nullptr;
    }
    if (t.kind == Tok::LParen) {
        lx_.consume(t);
        CondExpr* e = cond_or();
        if (!e || failed()) return nullptr;
        cond_skip_newlines();
        Token r = lx_.next(LexMode::Cond);
        if (r.kind != Tok::RParen) {
            error(r.pos, "unexpected token `" + tok_name(r) + "', expected `)'");
            return nullptr;
        }
        lx_.consume(r);
        CondParen* cp = a_.node<CondParen>(t.pos);
        cp->expr = e;
        return cp;
    }
    if (t.kind != Tok::Word) {
        error(t.pos, "unexpected token `" + tok_name(t) + "' in conditional command");
        return nullptr;
    }
    if (lx_.at_word("]]")) {
        error(t.pos, "syntax error near unexpected token `]]'");
        return nullptr;
    }
    if (lx_.at_word("!")) {
        lx_.advancej(1);
        CondExpr* e = cond_term();
        if (!e) return nullptr;
        CondNot* n = a_.node<CondNot>(t.pos);
        n->expr = e;
        return n;
    }
    for (auto op : kUnaryTests) {
        if (!lx_.at_word(op)) continue;
        lx_.advancej(2);
        Token a = lx_.next(LexMode::Cond);
        if (a.kind != Tok::Word || lx_.at_word("]]")) {
            error(a.pos, "unexpected argument `" + tok_name(a) + "' to conditional unary operator");
            return nullptr;
        }
        CondUnary* u = a_.node<CondUnary>(t.pos);
        u->op = op;
        u->arg = read_word(WordMode::Cond);
        if (failed()) return nullptr;
        return u;
    }
    Word* left = read_word(WordMode::Cond);
    if (failed()) return nullptr;
    Token o = lx_.next(LexMode::Cond);
    std::string_view op;
    if (o.kind == Tok::Less) op = "<";
    else if (o.kind == Tok::Great) op = ">";
    else if (o.kind == Tok::Word) {
        for (auto b : kBinaryTests)
            if (lx_.at_word(b)) op = b;
        if (op.empty() && !lx_.at_word("]]")) {
            error(o.pos, "conditional binary operator expected");
            return nullptr;
        }
    }
    if (op.empty()) {
        if (o.kind == Tok::AndAnd || o.kind == Tok::OrOr || o.kind == Tok::RParen ||
            (o.kind == Tok::Word && lx_.at_word("]]"))) {
            CondWord* w = a_.node<CondWord>(t.pos);
            w->word = left;
            return w;
        }
        error(o.pos, "unexpected token `" + tok_name(o) + "', conditional binary operator expected");
        return nullptr;
    }
    lx_.advancej(static_cast<uint32_t>(op.size()));
    Token r = lx_.next(LexMode::Cond);
    if (r.kind != Tok::Word || lx_.at_word("]]")) {
        // < and ( can begin a regex on the right of =~
        if (!(op == "=~" && (r.kind == Tok::LParen || r.kind == Tok::Pipe))) {
            error(r.pos, "unexpected argument `" + tok_name(r) + "' to conditional binary operator");
            return nullptr;
        }
    }
    CondBinary* b = a_.node<CondBinary>(t.pos);
    b->op = op;
    b->left = left;
    WordMode m = WordMode::Cond;
    if (op == "=~") m = WordMode::Regex;
    else if (op == "==" || op == "=" || op == "!=") m = WordMode::CondPattern;
    b->right = read_word(m);
    if (failed()) return nullptr;
    return b;
}

// ---------------------------------------------------------------- words

Word* Parser::read_word(WordMode m, bool in_dq) {
    Pos wpos = lx_.pos();
    std::vector<Node*> parts;
    LitBuf lit;
    int depth = 0;
    bool ext = opt_.extglob || m == WordMode::Cond || m == WordMode::CondPattern || m == WordMode::ExtAlt;
    bool cmdlike = m == WordMode::Normal || m == WordMode::Cond || m == WordMode::CondPattern;
    for (;;) {
        if (failed()) break;
        int c = lx_.peek();
        if (c < 0) break;
        // the next byte: raw after a backslash (the escaped byte), else across line continuations
        int n = c == '\\' ? lx_.peek(1) : lx_.peekj(1);
        // terminators
        if (cmdlike) {
            if (Lexer::is_meta(c) && !((c == '<' || c == '>') && n == '(')) break;
        } else if (m == WordMode::Regex) {
            if (depth == 0 && (c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '<' ||
                               c == '>' || c == ')'))
                break;
            if (c == '(') ++depth;
            if (c == ')') --depth;
            if (c == '(' || c == ')' || c == '|' || c == ' ' || c == '\t' || c == '\n' || c == ';' ||
                c == '&' || c == '<' || c == '>') {
                lit_char(lit);
                continue;
            }
        } else if (m == WordMode::ExtAlt) {
            if (depth == 0 && (c == '|' || c == ')')) break;
            if (c == '(') ++depth;
            if (c == ')') --depth;
        } else if (m == WordMode::ParamArg) {
            if (c == '}') break;
        } else if (m == WordMode::ParamPat) {
            if (c == '}' || c == '/') break;
        } else if (m == WordMode::ParamOff) {
            if (c == '}' || c == ':') break;
        }
        switch (c) {
        case '\\': {
            if (n == '\n') {
                lx_.advance(2);
                continue;
            }
            if (n < 0) {
                // a backslash that ends the input stands for itself (the printer knows not to add a
                // newline after it)
                lit_char(lit);
                continue;
            }
            if (in_dq) {
                // inside "${x:-...}": backslash keeps its double-quote meaning
                if (n == '$' || n == '`' || n == '"' || n == '\\' || n == '}') {
                    lit_add(lit, lx_.off() + 1, 1, lx_.pos());
                    lx_.advance(2);
                } else {
                    lit_char(lit);
                }
                continue;
            }
            lit_flush(lit, parts);
            Escaped* e = a_.node<Escaped>(lx_.pos());
            e->text = src_.substr(lx_.off() + 1, 1);
            parts.push_back(e);
            lx_.advance(2);
            continue;
        }
        case '\'':
            if (in_dq) break;
            lit_flush(lit, parts);
            if (Node* q = read_squote()) parts.push_back(q);
            continue;
        case '"':
            lit_flush(lit, parts);
            if (Node* q = read_dquote(false)) parts.push_back(q);
            continue;
        case '`':
            lit_flush(lit, parts);
            if (Node* q = read_backtick(false)) parts.push_back(q);
            continue;
        case '$': {
            Pos p = lx_.pos();
            uint32_t off = lx_.off();
            Node* q = nullptr;
            if (in_dq && (n == '\'' || n == '"')) {
                // In the word of a ${..} inside double quotes, $'..' is ANSI-C quoting and $".." a
                // translated string (bash's extquote, on by default); in a here-document body they stay text.
                if (in_heredoc_body_) break;
                q = n == '\'' ? read_ansic() : read_dquote(true);
            } else {
                // read_dollar reads $'..' and $".." outside double quotes only
                q = read_dollar(in_dq);
            }
            if (q) {
                lit_flush(lit, parts);
                parts.push_back(q);
            } else if (!failed()) {
                lit_add(lit, off, 1, p);
                lx_.advance();
            }
            continue;
        }
        case '<':
        case '>':
            if (n == '(' && m != WordMode::Limit && !in_dq) {
                lit_flush(lit, parts);
                if (Node* q = read_procsubst()) parts.push_back(q);
                continue;
            }
            break;
        case '?':
        case '*':
        case '+':
        case '@':
        case '!':
            if (n == '(' && ext && m != WordMode::Limit && !in_dq) {
                lit_flush(lit, parts);
                if (Node* q = read_extglob()) parts.push_back(q);
                continue;
            }
            break;
        default: break;
        }
        lit_char(lit);
    }
    if (m == WordMode::Regex && depth > 0 && !failed()) {
        error(wpos, "unexpected EOF while looking for matching `)'");
        return nullptr;
    }
    lit_flush(lit, parts);
    return make_word(wpos, parts);
}

Node* Parser::read_squote() {
    Pos p = lx_.pos();
    uint32_t from = lx_.off() + 1;
    const void* q = std::memchr(src_.data() + from, '\'', lx_.end() - std::min(from, lx_.end()));
    if (!q || from > lx_.end()) {
        error(p, "unexpected EOF while looking for matching `''");
        return nullptr;
    }
    uint32_t to = static_cast<uint32_t>(static_cast<const char*>(q) - src_.data());
    SglQuoted* s = a_.node<SglQuoted>(p);
    s->text = src_.substr(from, to - from);
    lx_.advance_to(to + 1);
    return s;
}

Node* Parser::read_dquote(bool locale) {
    Pos p = lx_.pos();
    lx_.advancej(locale ? 2 : 1);  // $" or "
    Depth d(*this, p);
    if (!d.ok) return nullptr;
    std::vector<Node*> parts;
    LitBuf lit;
    for (;;) {
        if (failed()) return nullptr;
        int c = lx_.peek();
        if (c < 0) {
            error(p, "unexpected EOF while looking for matching `\"'");
            return nullptr;
        }
        if (c == '"') {
            lx_.advance();
            break;
        }
        if (c == '\\') {
            int n = lx_.peek(1);
            if (n == '\n') {
                lx_.advance(2);
                continue;
            }
            if (n == '$' || n == '`' || n == '"' || n == '\\') {
                lit_add(lit, lx_.off() + 1, 1, lx_.pos());
                lx_.advance(2);
                continue;
            }
            lit_char(lit);
            continue;
        }
        if (c == '$') {
            Pos dp = lx_.pos();
            uint32_t off = lx_.off();
            Node* n = read_dollar(true);
            if (n) {
                lit_flush(lit, parts);
                parts.push_back(n);
            } else if (!failed()) {
                lit_add(lit, off, 1, dp);
                lx_.advance();
            }
            continue;
        }
        if (c == '`') {
            lit_flush(lit, parts);
            if (Node* n = read_backtick(true)) parts.push_back(n);
            continue;
        }
        lit_char(lit);
    }
    lit_flush(lit, parts);
    DblQuoted* q = a_.node<DblQuoted>(p);
    q->locale = locale;
    q->parts = a_.list<Node*>(parts);
    return q;
}

static void put_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x110000) {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

static int hexval(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

Node* Parser::read_ansic() {
    Pos p = lx_.pos();
    lx_.advancej(2);  // $'
    uint32_t from = lx_.off();
    std::string out;
    bool truncated = false;
    auto put = [&](char ch) {
        if (ch == '\0') truncated = true;
        if (!truncated) out += ch;
    };
    for (;;) {
        int c = lx_.peek();
        if (c < 0) {
            error(p, "unexpected EOF while looking for matching `''");
            return nullptr;
        }
        if (c == '\'') break;
        if (c != '\\') {
            put(static_cast<char>(c));
            lx_.advance();
            continue;
        }
        int n = lx_.peek(1);
        if (n < 0) {
            put('\\');
            lx_.advance();
            continue;
        }
        lx_.advance(2);
        switch (n) {
        case 'n': put('\n'); break;
        case 't': put('\t'); break;
        case 'r': put('\r'); break;
        case 'a': put('\a'); break;
        case 'b': put('\b'); break;
        case 'e':
        case 'E': put('\x1b'); break;
        case 'f': put('\f'); break;
        case 'v': put('\v'); break;
        case '\\': put('\\'); break;
        case '\'': put('\''); break;
        case '"': put('"'); break;
        case '?': put('?'); break;
        case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
            int v = n - '0';
            for (int i = 0; i < 2 && lx_.peek() >= '0' && lx_.peek() <= '7'; ++i) {
                v = v * 8 + (lx_.peek() - '0');
                lx_.advance();
            }
            put(static_cast<char>(v & 0xFF));
            break;
        }
        case 'x': {
            int v = 0, k = 0;
            while (k < 2 && hexval(lx_.peek()) >= 0) {
                v = v * 16 + hexval(lx_.peek());
                lx_.advance();
                ++k;
            }
            if (k == 0) {
                put('\\');
                put('x');
            } else {
                put(static_cast<char>(v));
            }
            break;
        }
        case 'u':
        case 'U': {
            uint32_t v = 0;
            int k = 0, max = n == 'u' ? 4 : 8;
            while (k < max && hexval(lx_.peek()) >= 0) {
                v = v * 16 + static_cast<uint32_t>(hexval(lx_.peek()));
                lx_.advance();
                ++k;
            }
            if (k == 0) {
                put('\\');
                put(static_cast<char>(n));
            } else if (v == 0) {
                truncated = true;
            } else if (!truncated) {
                put_utf8(out, v);
            }
            break;
        }
        case 'c': {
            int x = lx_.peek();
            if (x < 0 || x == '\'') {
                put('\\');
                put('c');
                break;
            }
            lx_.advance();
            if (x == '\\' && lx_.peek() == '\\') lx_.advance();
            if (x == '?') put('\x7f');
            else put(static_cast<char>(std::toupper(x) & 0x1f));
            break;
        }
        default:
            put('\\');
            put(static_cast<char>(n));
            break;
        }
    }
    AnsiCQuoted* q = a_.node<AnsiCQuoted>(p);
    q->raw = src_.substr(from, lx_.off() - from);
    q->value = a_.str(out);
    lx_.advance();  // '
    return q;
}

Node* Parser::memo_get(uint32_t off, bool in_dq) {
    if (memo_.empty()) return nullptr;
    auto it = memo_.find((uint64_t(off) << 1) | (in_dq ? 1 : 0));
    if (it == memo_.end()) return nullptr;
    lx_.restore(it->second.end);
    return it->second.node;
}

void Parser::memo_put(uint32_t off, bool in_dq, Node* n) {
    if (speculating_ == 0 || !n || failed()) return;
    memo_[(uint64_t(off) << 1) | (in_dq ? 1 : 0)] = Memo{n, lx_.save()};
}

Node* Parser::read_dollar(bool in_dq) {
    Pos p = lx_.pos();
    int n = lx_.peekj(1);
    uint32_t off = lx_.off();
    if (n == '{' || n == '(' || n == '[') {
        if (Node* m = memo_get(off, in_dq)) return m;
        Node* r = nullptr;
        if (n == '{') r = read_brace_param(in_dq);
        else if (n == '[') r = read_arith_bracket();
        else if (lx_.peekj(2) == '(') r = read_dollar_dparen();
        else r = read_cmdsubst();
        memo_put(off, in_dq, r);
        return r;
    }
    if (!in_dq && n == '\'') return read_ansic();
    if (!in_dq && n == '"') return read_dquote(true);
    ParamExp* pe = a_.node<ParamExp>(p);
    uint32_t first = lx_.skip_cont(off + 1);
    if (is_name_start(n)) {
        uint32_t i = lx_.skip_cont(first + 1);
        while (i < lx_.end() && is_name_char(static_cast<unsigned char>(src_[i]))) i = lx_.skip_cont(i + 1);
        pe->name = joined(first, i);
        lx_.advance_to(i);
        return pe;
    }
    if (is_digit(n) || is_special_param(n)) {
        pe->name = src_.substr(first, 1);
        lx_.advance_to(first + 1);
        return pe;
    }
    return nullptr;
}

Node* Parser::read_brace_param(bool in_dq) {
    Pos p = lx_.pos();
    Depth d(*this, p);
    if (!d.ok) return nullptr;
    uint32_t start = lx_.off();
    lx_.advancej(2);
    lx_.splice();
    ParamExp* pe = a_.node<ParamExp>(p);
    pe->braced = true;
    auto eof_err = [&]() {
        error(p, "unexpected EOF while looking for matching `}'");
        return nullptr;
    };
    // Unrecognised syntax: bash reports "bad substitution" when it runs, so keep the raw text as the name.
    auto bad = [&]() -> Node* {
        if (failed()) return nullptr;
        int depth = 0;
        for (;;) {
            int c = lx_.peek();
            if (c < 0) return eof_err();
            if (c == '{') ++depth;
            if (c == '}' && depth-- == 0) break;
            if (c == '\\' && lx_.peek(1) >= 0) lx_.advance();
            lx_.advance();
        }
        ParamExp* b = a_.node<ParamExp>(p);
        b->braced = true;
        b->name = src_.substr(start + 2, lx_.off() - start - 2);
        lx_.advance();
        return b;
    };
    // Names and digits may be split by line continuations; the cursor ends past any that follow.
    auto read_name = [&]() -> bool {
        lx_.splice();
        int c = lx_.peek();
        uint32_t off = lx_.off();
        auto scan = [&](bool (*ok)(int)) {
            uint32_t i = lx_.skip_cont(off + 1);
            while (i < lx_.end() && ok(static_cast<unsigned char>(src_[i]))) i = lx_.skip_cont(i + 1);
            pe->name = joined(off, i);
            lx_.advance_to(i);
        };
        if (is_name_start(c)) {
            scan(is_name_char);
            return true;
        }
        if (is_digit(c)) {
            scan(is_digit);
            return true;
        }
        if (is_special_param(c)) {
            pe->name = src_.substr(off, 1);
            lx_.advance_to(lx_.skip_cont(off + 1));
            return true;
        }
        return false;
    };
    auto read_index = [&]() -> bool {
        lx_.splice();
        if (lx_.peek() != '[') return true;
        uint32_t close = 0;
        if (!scan_subscript(lx_.off(), close)) return false;
        std::string_view in = src_.substr(lx_.off() + 1, close - lx_.off() - 1);
        if (in == "@" || in == "*") {
            pe->index_all = in[0];
            lx_.advance_to(close + 1);
        } else {
            pe->index = read_range_word(lx_.off() + 1, close);
            if (failed()) return false;
            lx_.advance_to(close + 1);
        }
        return true;
    };
    auto arg = [&](WordMode m) -> Word* { return read_word(m, in_dq); };
    auto close = [&]() -> Node* {
        if (failed()) return nullptr;
        lx_.splice();
        if (lx_.peek() == '}') {
            lx_.advance();
            return pe;
        }
        if (lx_.peek() < 0) return eof_err();
        return bad();
    };
    int c = lx_.peek();
    int n = lx_.peekj(1);
    if (c < 0) return eof_err();
    if (c == '#' && n != '}' && (is_name_start(n) || is_digit(n) || is_special_param(n)) &&
        !((n == '-' || n == '=' || n == '?' || n == '+') && lx_.peekj(2) != '}')) {
        lx_.advance();
        pe->op = ParamOp::Length;
        if (!read_name()) return bad();
        if (!read_index()) return bad();
        return close();
    }
    if (c == '!' && n != '}' && (is_name_start(n) || is_digit(n) || is_special_param(n))) {
        lx_.advance();
        if (!read_name()) return bad();
        int x = lx_.peek();
        if ((x == '*' || x == '@') && lx_.peekj(1) == '}') {
            pe->op = ParamOp::PrefixNames;
            pe->at_form = x == '@';
            lx_.advancej(2);
            return pe;
        }
        if (!read_index()) return bad();
        lx_.splice();
        if (pe->index_all && lx_.peek() == '}') {
            pe->op = ParamOp::Keys;
            lx_.advance();
            return pe;
        }
        pe->indirect = true;
    } else {
        if (!read_name()) {
            if (c == '}') {
                lx_.advance();
                return pe;  // ${}: bad substitution at run time
            }
            return bad();
        }
        if (!read_index()) return bad();
    }
    lx_.splice();
    c = lx_.peek();
    n = lx_.peekj(1);
    switch (c) {
    case '}': lx_.advance(); return pe;
    case ':':
        if (n == '-' || n == '=' || n == '?' || n == '+') {
            pe->colon = true;
            pe->op = n == '-' ? ParamOp::Default : n == '=' ? ParamOp::Assign : n == '?' ? ParamOp::Error : ParamOp::Alternate;
            lx_.advancej(2);
            pe->arg = arg(WordMode::ParamArg);
            return close();
        }
        pe->op = ParamOp::Substring;
        lx_.advance();
        pe->arg = arg(WordMode::ParamOff);
        if (lx_.peek() == ':') {
            lx_.advance();
            pe->arg2 = arg(WordMode::ParamArg);
        }
        return close();
    case '-':
    case '=':
    case '?':
    case '+':
        pe->op = c == '-' ? ParamOp::Default : c == '=' ? ParamOp::Assign : c == '?' ? ParamOp::Error : ParamOp::Alternate;
        lx_.advance();
        pe->arg = arg(WordMode::ParamArg);
        return close();
    case '#':
    case '%': {
        bool dbl = n == c;
        pe->op = c == '#' ? (dbl ? ParamOp::RemLongPrefix : ParamOp::RemPrefix)
                          : (dbl ? ParamOp::RemLongSuffix : ParamOp::RemSuffix);
        lx_.advancej(dbl ? 2 : 1);
        pe->arg = arg(WordMode::ParamArg);
        return close();
    }
    case '/':
        pe->op = ParamOp::Replace;
        lx_.advancej(1);
        if (n == '/') pe->op = ParamOp::ReplaceAll;
        else if (n == '#') pe->op = ParamOp::ReplacePrefix;
        else if (n == '%') pe->op = ParamOp::ReplaceSuffix;
        if (pe->op != ParamOp::Replace) lx_.advancej(1);
        pe->arg = arg(WordMode::ParamPat);
        if (lx_.peek() == '/') {
            lx_.advance();
            pe->arg2 = arg(WordMode::ParamArg);
        }
        return close();
    case '^':
    case ',': {
        bool dbl = n == c;
        pe->op = c == '^' ? (dbl ? ParamOp::UpperAll : ParamOp::UpperFirst)
                          : (dbl ? ParamOp::LowerAll : ParamOp::LowerFirst);
        lx_.advancej(dbl ? 2 : 1);
        Word* w = arg(WordMode::ParamArg);
        if (w && !w->parts.empty()) pe->arg = w;
        return close();
    }
    case '@':
        if (n > 0 && std::isalpha(n) && lx_.peekj(2) == '}') {
            pe->op = ParamOp::Transform;
            pe->transform = static_cast<char>(n);
            lx_.advancej(3);
            return pe;
        }
        return bad();
    case -1: return eof_err();
    default: return bad();
    }
}

std::vector<Stmt*> Parser::parse_subst_body(Pos start, bool& ok) {
    (void)start;
    ok = false;
    no_time_ = true;
    bool saved_in_body = in_heredoc_body_;
    in_heredoc_body_ = false;  // a $( ) in a here-document body is a script of its own
    std::vector<Stmt*> body = parse_stmts(false);
    in_heredoc_body_ = saved_in_body;
    no_time_ = false;
    if (failed()) return body;
    Token t = lx_.next();
    if (t.kind == Tok::RParen) {
        lx_.consume(t);
        ok = true;
    } else if (t.kind == Tok::Eof) {
        error({eof_line_, 1}, "unexpected EOF while looking for matching `)'");
    } else {
        error_near(t);
    }
    return body;
}

Node* Parser::read_cmdsubst() {
    Pos p = lx_.pos();
    Depth d(*this, p);
    if (!d.ok) return nullptr;
    lx_.advancej(2);
    bool ok = false;
    std::vector<Stmt*> body = parse_subst_body(p, ok);
    if (!ok) return nullptr;
    CmdSubst* c = a_.node<CmdSubst>(p);
    c->body = a_.list<Stmt*>(body);
    return c;
}

Node* Parser::read_procsubst() {
    Pos p = lx_.pos();
    Depth d(*this, p);
    if (!d.ok) return nullptr;
    bool out = lx_.peek() == '>';
    lx_.advancej(2);
    bool ok = false;
    std::vector<Stmt*> body = parse_subst_body(p, ok);
    if (!ok) return nullptr;
    ProcSubst* c = a_.node<ProcSubst>(p);
    c->output = out;
    c->body = a_.list<Stmt*>(body);
    return c;
}

Node* Parser::read_dollar_dparen() {
    Pos p = lx_.pos();
    Depth d(*this, p);
    if (!d.ok) return nullptr;
    LexState st = lx_.save();
    lx_.advancej(3);
    Word* raw = nullptr;
    ++speculating_;
    bool ok = read_arith_raw(ArithEnd::DParen, p, raw);
    --speculating_;
    if (failed()) return nullptr;
    if (!ok) {
        // $( (...) ... ): a command substitution whose body starts with a subshell
        lx_.restore(st);
        return read_cmdsubst_fallback();
    }
    ArithSubst* a = a_.node<ArithSubst>(p);
    a->raw = raw;
    a->expr = arith_from_word(raw);
    return failed() ? nullptr : a;
}

// After `$((` that is not arithmetic, bash reads the text up to the matching `)` and parses it as a
// command substitution only when it runs. We parse it now when we can and otherwise keep the text with
// the error for run time; only an unterminated text is a syntax error.
Node* Parser::read_cmdsubst_fallback() {
    Pos p = lx_.pos();
    LexState st = lx_.save();
    uint32_t end = lx_.end();
    std::vector<Redirect*> pending = heredocs_;
    ++speculating_;
    Node* n = read_cmdsubst();
    --speculating_;
    if (n && !failed()) return n;
    if (!err) return nullptr;
    ParseError e = std::move(*err);
    err.reset();
    lx_.set_end(end);
    lx_.restore(st);
    heredocs_ = std::move(pending);
    lx_.advancej(2);  // $(
    uint32_t from = lx_.off();
    if (!scan_matched_paren(p)) return nullptr;
    CmdSubst* c = a_.node<CmdSubst>(p);
    c->raw = src_.substr(from, lx_.off() - from);
    c->deferred_error = a_.str(e.message);
    c->deferred_pos = e.pos;
    lx_.advance();  // )
    return c;
}

// Moves to the `)` that closes a substitution opened before the cursor, skipping quotes, escapes,
// backquotes and nested parentheses as bash's parse_matched_pair does; at the end of input reports the
// innermost open construct.
bool Parser::scan_matched_paren(Pos open) {
    uint32_t depth = 0;
    for (;;) {
        int c = lx_.peek();
        if (c < 0) {
            error(open, "unexpected EOF while looking for matching `)'");
            return false;
        }
        if (c == ')') {
            if (depth == 0) return true;
            --depth;
        } else if (c == '(') {
            ++depth;
        } else if (c == '$' && lx_.peek(1) == '(') {
            if (memo_get(lx_.off(), false)) continue;  // a substitution already read: jump over it
            lx_.advance();
            continue;
        } else if (c == '\\') {
            if (lx_.peek(1) >= 0) lx_.advance();
        } else if (c == '\'' || c == '"' || c == '`') {
            Pos q = lx_.pos();
            lx_.advance();
            for (;;) {
                int d = lx_.peek();
                if (d < 0) {
                    error(q, std::string("unexpected EOF while looking for matching `") + static_cast<char>(c) + "'");
                    return false;
                }
                if (d == c) break;
                if (d == '\\' && c != '\'' && lx_.peek(1) >= 0) lx_.advance();
                lx_.advance();
            }
        }
        lx_.advance();
    }
}

Node* Parser::read_arith_bracket() {
    Pos p = lx_.pos();
    Depth d(*this, p);
    if (!d.ok) return nullptr;
    lx_.advancej(2);
    Word* raw = nullptr;
    if (!read_arith_raw(ArithEnd::Bracket, p, raw) || failed()) return nullptr;
    ArithSubst* a = a_.node<ArithSubst>(p);
    a->bracket = true;
    a->raw = raw;
    a->expr = arith_from_word(raw);
    return failed() ? nullptr : a;
}

bool Parser::read_arith_raw(ArithEnd end, Pos start, Word*& out, char* term) {
    Pos wpos = lx_.pos();
    std::vector<Node*> parts;
    LitBuf lit;
    uint32_t depth = 0;
    bool done = false;
    while (!done) {
        if (failed()) return false;
        int c = lx_.peek();
        if (c < 0) {
            if (end == ArithEnd::Whole) break;
            error(start, end == ArithEnd::Bracket ? "unexpected EOF while looking for matching `]'"
                                                  : "unexpected EOF while looking for matching `)'");
            return false;
        }
        switch (c) {
        case '\\':
            if (lx_.peek(1) == '\n') {
                lx_.advance(2);
                continue;
            }
            lit_char(lit);
            if (lx_.peek() >= 0) lit_char(lit);
            continue;
        case '(':
        case '[':
            if ((c == '(') == (end != ArithEnd::Bracket) || end == ArithEnd::Whole) {
                if (++depth > opt_.max_depth) {
                    error_depth(lx_.pos());
                    return false;
                }
            }
            break;
        case ')':
        case ']':
            if (end == ArithEnd::Whole) {
                if (depth > 0) --depth;
                break;
            }
            if ((c == ')') != (end != ArithEnd::Bracket)) break;
            if (depth > 0) {
                --depth;
                break;
            }
            if (end == ArithEnd::Bracket) {
                lx_.advance();
                done = true;
                continue;
            }
            if (lx_.peekj(1) == ')') {
                lx_.advancej(2);
                if (term) *term = ')';
                done = true;
                continue;
            }
            if (lx_.peekj(1) < 0 && end != ArithEnd::DParen) {
                error(start, "unexpected EOF while looking for matching `)'");
                return false;
            }
            return false;
        case ';':
            if (end == ArithEnd::ForPart && depth == 0) {
                lx_.advance();
                if (term) *term = ';';
                done = true;
                continue;
            }
            break;
        case '$': {
            Pos p = lx_.pos();
            uint32_t off = lx_.off();
            Node* n = read_dollar(false);
            if (n) {
                lit_flush(lit, parts);
                parts.push_back(n);
            } else if (!failed()) {
                lit_add(lit, off, 1, p);
                lx_.advance();
            }
            continue;
        }
        case '`':
            lit_flush(lit, parts);
            if (Node* n = read_backtick(false)) parts.push_back(n);
            continue;
        case '"':
            lit_flush(lit, parts);
            if (Node* n = read_dquote(false)) parts.push_back(n);
            continue;
        case '\'':
            lit_flush(lit, parts);
            if (Node* n = read_squote()) parts.push_back(n);
            continue;
        default: break;
        }
        lit_char(lit);
    }
    lit_flush(lit, parts);
    out = make_word(wpos, parts);
    return true;
}

Node* Parser::read_backtick(bool in_dq) {
    Pos p = lx_.pos();
    Depth d(*this, p);
    if (!d.ok) return nullptr;
    lx_.advance();
    std::string text;
    Pos inner = lx_.pos();
    uint32_t raw_from = lx_.off();
    for (;;) {
        int c = lx_.peek();
        if (c < 0) {
            error(p, "unexpected EOF while looking for matching ``'");
            return nullptr;
        }
        if (c == '`') {
            lx_.advance();
            break;
        }
        if (c == '\\') {
            int n = lx_.peek(1);
            if (n == '`' || n == '\\' || n == '$' || (in_dq && n == '"')) {
                text += static_cast<char>(n);
                lx_.advance(2);
                continue;
            }
        }
        text += static_cast<char>(c);
        lx_.advance();
    }
    Parser sub(a_, a_.str(text), opt_, inner, depth_);
    std::vector<Stmt*> body = sub.parse_stmts(false);
    if (!sub.failed()) {
        Token t = sub.lx_.next();
        if (t.kind != Tok::Eof) sub.error_near(t);
    }
    CmdSubst* c = a_.node<CmdSubst>(p);
    c->backquote = true;
    if (sub.failed()) {
        // bash parses backquoted text only when it runs: the error belongs to run time
        c->deferred_error = a_.str(sub.err->message);
        c->deferred_pos = sub.err->pos;
        c->raw = src_.substr(raw_from, lx_.off() - 1 - raw_from);
        return c;
    }
    c->body = a_.list<Stmt*>(body);
    return c;
}

Node* Parser::read_extglob() {
    Pos p = lx_.pos();
    Depth d(*this, p);
    if (!d.ok) return nullptr;
    ExtGlob* g = a_.node<ExtGlob>(p);
    g->op = static_cast<char>(lx_.peek());
    lx_.advancej(2);
    std::vector<Word*> alts;
    for (;;) {
        Word* w = read_word(WordMode::ExtAlt);
        if (failed()) return nullptr;
        alts.push_back(w);
        int c = lx_.peek();
        if (c == '|') {
            lx_.advance();
            continue;
        }
        if (c == ')') {
            lx_.advance();
            break;
        }
        error(p, "unexpected EOF while looking for matching `)'");
        return nullptr;
    }
    g->alternatives = a_.list<Word*>(alts);
    return g;
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
    p.lx_.restore(detail::LexState{static_cast<uint32_t>(offset_), line_, 1});
    Script* s = p.parse_unit(u.complete);
    if (p.err) {
        u.result.error = std::move(p.err);
        offset_ = source_->size();
        return u;
    }
    u.result.script = s;
    u.result.unterminated_heredocs = std::move(p.unterminated_heredocs_);
    offset_ = p.lx_.off();
    line_ = p.lx_.pos().line;
    return u;
}

}  // namespace bashkit::syntax
