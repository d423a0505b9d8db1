// The printer: AST back to bash source in one canonical style.
//
// Style (close to shfmt with 4-space indents): one statement per line in the bodies of compound commands,
// `if cond; then`, `while cond; do`, case items unindented with their bodies indented. Inside command and
// process substitutions everything is printed on one line (`$(a; b)`), except where a here-document forces
// a line break.
//
// Here-documents: a redirection `<<EOF` queues its body; the queue is written after the next newline the
// printer emits, the way bash reads them. A substitution keeps its own queue and flushes it before its
// closing parenthesis, because bash does not read a here-document body past the end of `$( )`.
//
// Word parts are printed as the AST records them: Lit verbatim, Escaped as a backslash and the byte, quotes
// as quotes. Only the text of Lit parts inside double quotes and unquoted here-document bodies is
// re-escaped, because the parser resolved the escapes there.
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "interp/syntax/ast.hpp"
#include "interp/syntax/printer.hpp"

namespace bashkit::syntax {

std::string print_arith(const ArithExpr& expr);

namespace {

enum class Ctx : uint8_t {
    Plain,    // unquoted word text
    Dbl,      // inside "..."
    HereDoc,  // the body of a here-document with an unquoted delimiter
    // The word of ${x-word} and friends inside "..." or a here-document: the parser resolved \ $ ` " and }
    // there. DblPattern is the pattern of ${x/pattern/...}, where / is resolved too; DblPatArg the other
    // patterns (${x#p}, ${x^p}) and the replacement. In those two, single quotes quote, and \' is a quote.
    DblArg,
    DblPattern,
    DblPatArg,
};

std::string_view redir_op(const Redirect& r) {
    switch (r.op) {
        case RedirOp::In: return "<";
        case RedirOp::Out: return ">";
        case RedirOp::Append: return ">>";
        case RedirOp::Clobber: return ">|";
        case RedirOp::ReadWrite: return "<>";
        case RedirOp::DupIn: return "<&";
        case RedirOp::DupOut: return ">&";
        case RedirOp::OutErr: return "&>";
        case RedirOp::AppendOutErr: return "&>>";
        case RedirOp::HereDoc: return r.strip_tabs ? "<<-" : "<<";
        case RedirOp::HereString: return "<<<";
    }
    return "?";
}

std::string_view case_term(CaseTerm t) {
    switch (t) {
        case CaseTerm::Break: return ";;";
        case CaseTerm::FallThrough: return ";&";
        case CaseTerm::Continue: return ";;&";
        case CaseTerm::None: return "";
    }
    return "";
}

// Words that bash recognises as reserved when they start a command.
bool is_reserved_word(std::string_view s) {
    static constexpr std::string_view words[] = {
        "if",   "then",   "else", "elif",   "fi",       "do",   "done",   "case", "esac", "while",
        "until", "for",   "select", "function", "time", "coproc", "{",    "}",    "!",    "[[",
        "]]",   "in",
    };
    for (std::string_view w : words) {
        if (s == w) return true;
    }
    return false;
}

bool starts_as_reserved(const Word* w) {
    if (w == nullptr || w->parts.size != 1) return false;
    const Lit* lit = w->parts[0]->try_as<Lit>();
    return lit != nullptr && is_reserved_word(lit->text);
}

// Commands short enough to print a subshell around them on one line.
bool is_one_liner(const Command* c) {
    if (c == nullptr) return true;
    switch (c->kind) {
        case NodeKind::Simple:
        case NodeKind::ArithCmd:
        case NodeKind::CondCmd:
            return true;
        case NodeKind::Pipeline:
            for (const Command* s : c->as<Pipeline>()->stages) {
                if (!is_one_liner(s)) return false;
            }
            return true;
        case NodeKind::AndOr:
            for (const Command* s : c->as<AndOr>()->items) {
                if (!is_one_liner(s)) return false;
            }
            return true;
        default:
            return false;
    }
}

int cond_prec(const CondExpr* e) {
    if (e->is<CondOr>()) return 1;
    if (e->is<CondAnd>()) return 2;
    return 3;
}

class Printer {
public:
    std::string take() { return std::move(out_); }

    // One command on one line, as a command substitution's body prints; here-document bodies are left out.
    void one_line(const Command* c) {
        multiline_ = false;
        command(c);
        pending_.clear();
    }

    void script(const Script& s) {
        for (uint32_t i = 0; i < s.body.size; ++i) {
            if (i > 0 && body_to_end()) {
                write(s.body[i - 1]->background ? " " : "; ");  // the next line is that body: stay on this one
            } else if (i > 0) {
                newline();
            }
            stmt(*s.body[i]);
            if (s.body[i]->background) write(" &");
        }
        if (!s.body.empty() || !pending_.empty()) newline();
    }

    // Whether a here-document whose body goes on to the end of the input was printed (see print()).
    bool saw_body_to_end() const { return saw_body_to_end_; }
    // The bodies of compound commands on one line, as in a substitution.
    void one_line_bodies() { multiline_ = false; }

    void word(const Word* w, Ctx ctx = Ctx::Plain) {
        if (w == nullptr) return;
        // An argument like `a=(1 2)` of declare keeps its source text in parts; print that. A tree built
        // by hand may leave parts empty and only set the assignment.
        if (w->decl_assign != nullptr && w->parts.empty()) {
            assign(*w->decl_assign);
            return;
        }
        for (uint32_t i = 0; i < w->parts.size; ++i) part(w->parts[i], ctx);
    }

private:
    std::string out_;
    int indent_ = 0;
    bool multiline_ = true;    // bodies of compound commands one statement per line
    bool at_line_start_ = false;
    bool saw_body_to_end_ = false;
    std::vector<const Redirect*> pending_;  // here-documents waiting for the next newline
    bool in_body_ = false;  // printing an unquoted here-document's body
    bool pad_ = false;      // a blank after the opening of each substitution (see heredoc_body)
    std::vector<const Redirect*> bodies_;  // the here-documents whose bodies are being printed, outermost first

    // ------------------------------------------------------------ output primitives

    void write(std::string_view s) {
        if (at_line_start_) {
            if (multiline_) out_.append(static_cast<size_t>(indent_) * 4, ' ');
            at_line_start_ = false;
        }
        out_ += s;
    }
    void write(char c) { write(std::string_view(&c, 1)); }

    void newline() {
        out_ += '\n';
        flush_heredocs();
        at_line_start_ = true;
    }

    // Runs f with an empty buffer and returns what it wrote.
    template <class F>
    std::string capture(F&& f) {
        std::string saved;
        saved.swap(out_);
        bool saved_start = at_line_start_;
        at_line_start_ = false;
        f();
        at_line_start_ = saved_start;
        saved.swap(out_);
        return saved;
    }

    // Whether a pending here-document's delimiter holds a newline: it never matches a line, and its body
    // goes on to the end of the input.
    bool body_to_end() const {
        for (const Redirect* r : pending_)
            if (r->delim.find('\n') != std::string_view::npos) return true;
        return false;
    }

    void flush_heredocs() {
        while (!pending_.empty()) {
            std::vector<const Redirect*> docs;
            docs.swap(pending_);
            for (const Redirect* r : docs) {
                heredoc_body(*r);
                // a delimiter holding a newline never matches a line: that body went to the end of the
                // input, and the here-documents after it are empty (see body_to_end)
                if (r->delim.find('\n') != std::string_view::npos) break;
            }
        }
    }

    // Whether a line of `body` would end the body of `r`.
    static bool has_delim_line(std::string_view body, const Redirect& r) {
        if (r.delim.find('\n') != std::string_view::npos) return false;
        size_t i = 0;
        while (i < body.size()) {
            size_t nl = body.find('\n', i);
            if (nl == std::string_view::npos) nl = body.size();
            std::string_view line = body.substr(i, nl - i);
            if (line == r.delim) return true;
            if (r.strip_tabs) {
                while (!line.empty() && line[0] == '\t') line.remove_prefix(1);
                if (line == r.delim) return true;
            }
            i = nl + 1;
        }
        return false;
    }

    // `delim_line`: false for a body that runs to the end of a backquoted text, whose end ends its last line
    // (see close_docs)
    void heredoc_body(const Redirect& r, bool delim_line = true) {
        bool saved_ml = multiline_;
        multiline_ = false;
        const bool saved_in_body = in_body_;
        in_body_ = !r.quoted_delim;
        bodies_.push_back(&r);
        const size_t queued = pending_.size();
        auto print_body = [&] {
            return capture([&] {
                if (r.body == nullptr) return;
                for (const Node* p : r.body->parts) {
                    const Lit* lit = p->try_as<Lit>();
                    if (lit != nullptr && r.quoted_delim) {
                        out_ += lit->text;
                    } else {
                        part(p, Ctx::HereDoc);
                    }
                }
            });
        };
        std::string body = print_body();
        // A substitution printed in its canonical form may make a line that is the delimiter (`` `newline` ``
        // in the body of <<``, printed ``): printed again with a blank after each opening.
        if (!r.quoted_delim && has_delim_line(body, r) && !pad_) {
            pending_.resize(queued);
            pad_ = true;
            body = print_body();
            pad_ = false;
        }
        // Not when a substitution spans lines: the tabs would be inside it, where the parser keeps them
        // (bash strips them before it reads the substitution; a deferred one keeps its raw text).
        // Nor when the delimiter starts with a tab: bash compares a line with it before stripping the tabs too,
        // and a body line after one tab may be the delimiter.
        bool indent = r.strip_tabs && (r.delim.empty() || r.delim[0] != '\t');
        if (indent && r.body != nullptr && !r.quoted_delim) {
            for (const Node* p : r.body->parts) {
                if (p->try_as<Lit>() != nullptr) continue;
                std::string text = capture([&] { part(p, Ctx::HereDoc); });
                if (text.find('\n') != std::string::npos) {
                    indent = false;
                    break;
                }
            }
        }
        multiline_ = saved_ml;
        in_body_ = saved_in_body;
        bodies_.pop_back();
        if (!body.empty() && body.back() != '\n') body += '\n';
        if (indent) {
            // bash strips leading tabs of every line of a <<- body, so indenting with one tab is harmless.
            std::string indented;
            bool line_start = true;
            for (char c : body) {
                if (line_start) indented += '\t';
                indented += c;
                line_start = (c == '\n');
            }
            body.swap(indented);
        }
        if (!delim_line) {
            // the text's end ends the last line (the parser adds its newline back)
            if (body.size() >= 2 && body.back() == '\n' && body[body.size() - 2] != '\n') body.pop_back();
            out_ += body;
            return;
        }
        out_ += body;
        if (r.delim.find('\n') != std::string_view::npos) return;  // no line ends it (see above)
        if (indent) out_ += '\t';
        out_ += r.delim;
        out_ += '\n';
    }

    // ------------------------------------------------------------ statement lists

    // Statements on one line: `a; b & c`. A terminated list also ends the last statement (`a;` or `a &`).
    void list_inline(const List<Stmt*>& stmts, bool terminate) {
        for (uint32_t i = 0; i < stmts.size; ++i) {
            const Stmt& s = *stmts[i];
            stmt(s);
            bool last = i + 1 == stmts.size;
            // A bare `!` (or `! !`) must be followed by a terminator, as bash reads it: `$(echo; ! ;)`.
            const Pipeline* bare = s.cmd != nullptr ? s.cmd->try_as<Pipeline>() : nullptr;
            if (s.background) {
                write(" &");
            } else if (!last || terminate || (bare != nullptr && bare->stages.size == 0)) {
                write(';');
            }
            if (!last) write(' ');
        }
    }

    // One statement per line, one level deeper; ends on a fresh line at the outer level.
    void block(const List<Stmt*>& stmts) {
        ++indent_;
        for (const Stmt* s : stmts) {
            newline();
            stmt(*s);
            if (s->background) write(" &");
        }
        --indent_;
        newline();
    }

    // `keyword` then the body: a block when multiline, else inline and terminated.
    void body_then(const List<Stmt*>& stmts, std::string_view close) {
        if (multiline_) {
            block(stmts);
        } else {
            write(' ');
            list_inline(stmts, true);
            write(' ');
        }
        write(close);
    }

    // A condition list (if, elif, while) is always on the keyword's line.
    void cond_list(const List<Stmt*>& stmts) {
        bool saved = multiline_;
        multiline_ = false;
        list_inline(stmts, true);
        multiline_ = saved;
    }

    void stmt(const Stmt& s) { command(s.cmd); }

    // ------------------------------------------------------------ commands

    void redirs(const List<Redirect*>& rs) {
        for (const Redirect* r : rs) {
            write(' ');
            redirect(*r);
        }
    }

    void command(const Command* c) {
        if (c == nullptr) return;
        switch (c->kind) {
            case NodeKind::Simple: simple(*c->as<Simple>()); return;
            case NodeKind::Pipeline: pipeline(*c->as<Pipeline>()); return;
            case NodeKind::AndOr: and_or(*c->as<AndOr>()); return;
            case NodeKind::Brace: brace(*c->as<Brace>()); break;
            case NodeKind::Subshell: subshell(*c->as<Subshell>()); break;
            case NodeKind::If: if_(*c->as<If>()); break;
            case NodeKind::While: while_(*c->as<While>()); break;
            case NodeKind::For: for_(*c->as<For>()); break;
            case NodeKind::ArithFor: arith_for(*c->as<ArithFor>()); break;
            case NodeKind::Select: select(*c->as<Select>()); break;
            case NodeKind::Case: case_(*c->as<Case>()); break;
            case NodeKind::ArithCmd:
                write("((");
                word(c->as<ArithCmd>()->raw);
                write("))");
                break;
            case NodeKind::CondCmd:
                write("[[ ");
                cond(c->as<CondCmd>()->expr);
                write(" ]]");
                break;
            case NodeKind::FuncDef: func_def(*c->as<FuncDef>()); break;
            case NodeKind::Coproc: {
                const Coproc& cp = *c->as<Coproc>();
                write("coproc ");
                if (!cp.name.empty()) {
                    write(cp.name);
                    write(' ');
                }
                command(cp.body);
                break;
            }
            default: return;
        }
        redirs(c->redirs);
    }

    void simple(const Simple& s) {
        // A reserved word is an ordinary word after a redirection (`>f if`): keep the redirections first.
        bool redirs_first = s.assigns.empty() && !s.words.empty() && starts_as_reserved(s.words[0]) &&
                            !s.redirs.empty();
        // So too when a word leaves open a here-document whose body goes on to the end of the input
        // (`<<n $(<<"` newline `")`): printed after them, the here-documents of the redirections would be
        // read after that body, and empty. Not when that word came first (`$(<<"` newline `") <<n`: that
        // body took the rest, n's is empty).
        bool docs = false;
        for (const Redirect* r : s.redirs) docs = docs || r->op == RedirOp::HereDoc;
        if (!redirs_first && docs) {
            std::vector<const Redirect*> saved;
            saved.swap(pending_);
            std::optional<Pos> open_at;  // where the first word that leaves such a body open starts
            (void)capture([&] {
                for (const Assign* a : s.assigns) {
                    assign(*a);
                    if (!open_at && body_to_end()) open_at = a->pos;
                }
                for (const Word* w : s.words) {
                    word(w);
                    if (!open_at && body_to_end()) open_at = w->pos;
                }
            });
            auto before = [](Pos a, Pos b) {
                return a.line == 0 || b.line == 0 || a.line < b.line || (a.line == b.line && a.col < b.col);
            };
            for (const Redirect* r : s.redirs)
                redirs_first = redirs_first || (open_at && r->op == RedirOp::HereDoc && before(r->pos, *open_at));
            pending_.swap(saved);
        }
        bool first = true;
        auto sep = [&] {
            if (!first) write(' ');
            first = false;
        };
        if (redirs_first) {
            for (const Redirect* r : s.redirs) {
                sep();
                redirect(*r);
            }
        }
        for (const Assign* a : s.assigns) {
            sep();
            assign(*a);
        }
        for (const Word* w : s.words) {
            sep();
            word(w);
        }
        if (!redirs_first) {
            for (const Redirect* r : s.redirs) {
                sep();
                redirect(*r);
            }
        }
    }

    void pipeline(const Pipeline& p) {
        bool first = true;
        auto sep = [&] {
            if (!first) write(' ');
            first = false;
        };
        if (p.timed) {
            sep();
            write(p.time_posix ? "time -p" : "time");
        }
        if (p.negated) {
            sep();
            write('!');
        } else if (p.stages.size == 0 && !p.timed) {
            // A bare pipeline comes only from a prefix: without time, an even run of `!` (they cancel).
            sep();
            write("! !");
        }
        for (uint32_t i = 0; i < p.stages.size; ++i) {
            if (i > 0) write(i - 1 < p.stderr_too.size && p.stderr_too[i - 1] ? " |& " : " | ");
            else sep();
            const size_t start = out_.size();
            command(p.stages[i]);
            // bash takes a `--` right after `time` (or `time -p`), and a `-p` right after `time`, as part of
            // the time prefix: a command that starts with one gets a `--` before it (`time -- --`).
            if (i == 0 && p.timed && !p.negated && (starts_with_token(start, "--") ||
                                                    (!p.time_posix && starts_with_token(start, "-p"))))
                out_.insert(start, "-- ");
        }
        redirs(p.redirs);
    }

    // Whether the output from `start` on starts with the unquoted word `w`.
    bool starts_with_token(size_t start, std::string_view w) const {
        if (out_.compare(start, w.size(), w) != 0) return false;
        const size_t end = start + w.size();
        if (end >= out_.size()) return true;
        const char c = out_[end];
        return c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')' ||
               c == '<' || c == '>';
    }

    void and_or(const AndOr& a) {
        for (uint32_t i = 0; i < a.items.size; ++i) {
            if (i > 0) write(i - 1 < a.ops.size && a.ops[i - 1] == AndOrOp::Or ? " || " : " && ");
            command(a.items[i]);
        }
        redirs(a.redirs);
    }

    void brace(const Brace& b) {
        write('{');
        body_then(b.body, "}");
    }

    void subshell(const Subshell& s) {
        bool one_line = !multiline_;
        if (!one_line) {
            one_line = true;
            for (const Stmt* st : s.body) one_line = one_line && is_one_liner(st->cmd);
        }
        write('(');
        if (one_line) {
            bool saved = multiline_;
            multiline_ = false;
            size_t start = out_.size();
            list_inline(s.body, false);
            multiline_ = saved;
            // `((` would start arithmetic.
            if (out_.size() > start && out_[start] == '(') {
                out_.insert(start, 1, ' ');
                write(' ');
            }
        } else {
            block(s.body);
        }
        write(')');
    }

    void if_(const If& f) {
        for (uint32_t i = 0; i < f.clauses.size; ++i) {
            const IfClause& c = f.clauses[i];
            write(i == 0 ? "if " : "elif ");
            cond_list(c.cond);
            write(" then");
            if (multiline_) {
                block(c.body);
            } else {
                write(' ');
                list_inline(c.body, true);
                write(' ');
            }
        }
        if (f.has_else) {
            write("else");
            body_then(f.else_body, "fi");
        } else {
            write("fi");
        }
    }

    void while_(const While& w) {
        write(w.until ? "until " : "while ");
        cond_list(w.cond);
        write(" do");
        body_then(w.body, "done");
    }

    void for_items(bool has_in, const List<Word*>& items) {
        if (has_in) {
            write(" in");
            for (const Word* w : items) {
                write(' ');
                word(w);
            }
        }
        write(';');
    }

    void for_(const For& f) {
        write("for ");
        write(f.var);
        for_items(f.has_in, f.items);
        if (f.brace_body) {
            write(" {");
            body_then(f.body, "}");
        } else {
            write(" do");
            body_then(f.body, "done");
        }
    }

    void select(const Select& s) {
        write("select ");
        write(s.var);
        for_items(s.has_in, s.items);
        write(" do");
        body_then(s.body, "done");
    }

    void arith_for(const ArithFor& f) {
        write("for ((");
        word(f.init.raw);
        write(';');
        word(f.cond.raw);
        write(';');
        word(f.step.raw);
        write("));");
        if (f.brace_body) {
            write(" {");
            body_then(f.body, "}");
        } else {
            write(" do");
            body_then(f.body, "done");
        }
    }

    void case_(const Case& c) {
        write("case ");
        word(c.subject);
        write(" in");
        for (const CaseItem& item : c.items) {
            if (multiline_) newline();
            else write(' ');
            // A first pattern `esac` would close the case: open the pattern list with `(`.
            if (!item.patterns.empty() && item.patterns[0]->parts.size == 1) {
                const Lit* lit = item.patterns[0]->parts[0]->try_as<Lit>();
                if (lit != nullptr && lit->text == "esac") write('(');
            }
            for (uint32_t i = 0; i < item.patterns.size; ++i) {
                if (i > 0) write(" | ");
                word(item.patterns[i]);
            }
            write(')');
            std::string_view term = case_term(item.term);
            if (item.body.empty()) {
                if (!term.empty()) {
                    write(' ');
                    write(term);
                }
            } else if (multiline_) {
                ++indent_;
                for (const Stmt* s : item.body) {
                    newline();
                    stmt(*s);
                    if (s->background) write(" &");
                }
                if (!term.empty()) {
                    newline();
                    write(term);
                }
                --indent_;
            } else {
                write(' ');
                list_inline(item.body, term.empty());
                if (!term.empty()) {
                    write(' ');
                    write(term);
                }
            }
        }
        if (multiline_) newline();
        else write(' ');
        write("esac");
    }

    void func_def(const FuncDef& f) {
        if (f.keyword) write("function ");
        write(f.name);
        if (f.parens || !f.keyword) {
            // `$ ()` and `a@ ()` (with extglob) would be a substitution and a pattern without the blank
            if (!f.name.empty() && std::string_view("$@*+?!=").find(f.name.back()) != std::string_view::npos)
                write(' ');
            write("()");
        }
        write(' ');
        command(f.body);
    }

    // ------------------------------------------------------------ [[ ]]

    void cond_operand(const CondExpr* e, int min_prec) {
        if (e != nullptr && cond_prec(e) < min_prec) {
            // Only a tree built by hand gets here: the parser keeps parentheses as CondParen.
            write("( ");
            cond(e);
            write(" )");
        } else {
            cond(e);
        }
    }

    void cond(const CondExpr* e) {
        if (e == nullptr) return;
        switch (e->kind) {
            case NodeKind::CondWord: word(e->as<CondWord>()->word); return;
            case NodeKind::CondUnary: {
                const CondUnary& u = *e->as<CondUnary>();
                write(u.op);
                write(' ');
                word(u.arg);
                return;
            }
            case NodeKind::CondBinary: {
                const CondBinary& b = *e->as<CondBinary>();
                word(b.left);
                write(' ');
                write(b.op);
                write(' ');
                word(b.right);
                return;
            }
            case NodeKind::CondNot:
                write("! ");
                cond_operand(e->as<CondNot>()->expr, 3);
                return;
            case NodeKind::CondParen:
                write("( ");
                cond(e->as<CondParen>()->expr);
                write(" )");
                return;
            case NodeKind::CondAnd:
            case NodeKind::CondOr: {
                // Walk the left spine without recursion: `a && b && c ...` may be arbitrarily long.
                std::vector<const CondExpr*> spine;
                const CondExpr* leaf = e;
                while (leaf != nullptr && (leaf->is<CondAnd>() || leaf->is<CondOr>())) {
                    // An Or under an And (only in a hand-built tree) is printed in parentheses instead.
                    if (!spine.empty() && cond_prec(leaf) < cond_prec(spine.back())) break;
                    spine.push_back(leaf);
                    leaf = leaf->is<CondAnd>() ? leaf->as<CondAnd>()->left : leaf->as<CondOr>()->left;
                }
                cond_operand(leaf, cond_prec(spine.back()));
                for (size_t i = spine.size(); i-- > 0;) {
                    const CondExpr* n = spine[i];
                    bool is_and = n->is<CondAnd>();
                    write(is_and ? " && " : " || ");
                    const CondExpr* right = is_and ? n->as<CondAnd>()->right : n->as<CondOr>()->right;
                    cond_operand(right, cond_prec(n) + 1);
                }
                return;
            }
            default: return;
        }
    }

    // ------------------------------------------------------------ words

    void assign(const Assign& a) {
        write(a.name);
        if (a.index != nullptr) {
            write('[');
            word(a.index);
            write(']');
        }
        write(a.append ? "+=" : "=");
        if (a.is_array) {
            write('(');
            for (uint32_t i = 0; i < a.elems.size; ++i) {
                const ArrayElem& e = a.elems[i];
                if (i > 0) write(' ');
                if (e.key != nullptr) {
                    write('[');
                    word(e.key);
                    write(']');
                    write(e.append ? "+=" : "=");
                }
                word(e.value);
            }
            write(')');
        } else {
            word(a.value);
        }
    }

    void redirect(const Redirect& r) {
        if (!r.fd_var.empty()) {
            write('{');
            write(r.fd_var);
            write('}');
        } else if (r.fd >= 0) {
            write(std::to_string(r.fd));
        }
        write(redir_op(r));
        std::string target;
        if (r.op == RedirOp::HereDoc && !r.delim_text.empty()) {
            // A delimiter is printed as written: an unquoted one is matched as written, expansions included
            // (`<<$(x)`), with its line continuations (the tree of a substitution keeps them in its text:
            // `<<$((\` newline `)x)`); a quoted one is its text after quote removal, and a substitution
            // inside it (`<<'E'`cat <<F``) is text that printing its node would rewrite. A here-document
            // that a substitution in it leaves open (`<<$(<<P)`) has its body after the line, before this
            // one's, as the parser reads them (see below).
            target = r.delim_text;
        } else if (r.op == RedirOp::HereDoc && !r.quoted_delim && !r.delim.empty()) {
            target = r.delim;
        } else if (r.target != nullptr) {
            target = capture([&] { word(r.target); });
        }
        // `< <(cmd)`: without the space the two operators would fuse; so would `<< -E` into `<<-E`.
        if (!target.empty() && (target[0] == '<' || target[0] == '>' || target[0] == '(' ||
                                (target[0] == '-' && r.op == RedirOp::HereDoc && !r.strip_tabs)))
            write(' ');
        write(target);
        if (r.op == RedirOp::HereDoc) {
            if (!r.delim_text.empty()) pending_.insert(pending_.end(), r.open_docs.begin(), r.open_docs.end());
            pending_.push_back(&r);
            if (body_to_end()) saw_body_to_end_ = true;
        }
    }

    // Lit text inside "..." or an unquoted here-document body, where the parser resolved \ $ ` (and " in
    // double quotes). A backslash before an ordinary byte of the same Lit stays as it is (`"\n"`).
    void escaped_lit(std::string_view text, Ctx ctx) {
        bool arg = ctx == Ctx::DblArg || ctx == Ctx::DblPattern || ctx == Ctx::DblPatArg;
        bool pat = ctx == Ctx::DblPattern || ctx == Ctx::DblPatArg;
        std::string s;
        s.reserve(text.size());
        for (size_t i = 0; i < text.size(); ++i) {
            char c = text[i];
            bool has_next = i + 1 < text.size();
            char next = has_next ? text[i + 1] : '\0';
            switch (c) {
                case '\\': {
                    bool special_next = !has_next || next == '\\' || next == '$' || next == '`' ||
                                        next == '\n' || (next == '"' && ctx != Ctx::HereDoc) ||
                                        (next == '}' && arg) || (next == '/' && ctx == Ctx::DblPattern) ||
                                        (next == '\'' && pat);
                    if (next == '\'' && ctx == Ctx::DblArg && sq_plan_)
                        special_next = sq_plan_at_ < sq_plan_->size() && (*sq_plan_)[sq_plan_at_++];
                    s += special_next ? "\\\\" : "\\";
                    break;
                }
                case '$':
                    if (has_next && (next == ' ' || next == '\t' || next == '\n')) s += '$';
                    else s += "\\$";
                    break;
                case '`': s += "\\`"; break;
                case '"': s += ctx == Ctx::HereDoc ? "\"" : "\\\""; break;
                case '}': s += arg ? "\\}" : "}"; break;
                case '/': s += ctx == Ctx::DblPattern ? "\\/" : "/"; break;
                case '\'': s += pat ? "\\'" : "'"; break;
                default: s += c;
            }
        }
        write(s);
    }

    void part(const Node* n, Ctx ctx) {
        if (n == nullptr) return;
        switch (n->kind) {
            case NodeKind::Lit:
                if (ctx == Ctx::Plain) write(n->as<Lit>()->text);
                else escaped_lit(n->as<Lit>()->text, ctx);
                return;
            case NodeKind::Escaped:
                write('\\');
                write(n->as<Escaped>()->text);
                return;
            case NodeKind::SglQuoted:
                write('\'');
                write(n->as<SglQuoted>()->text);
                write('\'');
                return;
            case NodeKind::DblQuoted: {
                const DblQuoted& d = *n->as<DblQuoted>();
                write(d.locale ? "$\"" : "\"");
                for (const Node* p : d.parts) part(p, Ctx::Dbl);
                write('"');
                return;
            }
            case NodeKind::AnsiCQuoted:
                write("$'");
                write(n->as<AnsiCQuoted>()->raw);
                write('\'');
                return;
            case NodeKind::ParamExp: param_exp(*n->as<ParamExp>(), ctx); return;
            case NodeKind::CmdSubst: {
                const CmdSubst& c = *n->as<CmdSubst>();
                if (!c.deferred_error.empty() || (!c.backquote && !c.raw.empty())) {
                    // A body bash only parses when it runs (a `$((` text that is not arithmetic, whose end
                    // bash finds by its parentheses alone): printed exactly as written.
                    write(c.backquote ? "`" : "$(");
                    write(c.raw);
                    write(c.backquote ? "`" : ")");
                    pending_.insert(pending_.end(), c.open_docs.begin(), c.open_docs.end());
                } else if (c.backquote) {
                    backquote(c.body, ctx);
                } else {
                    substitution("$(", c.body);
                }
                return;
            }
            case NodeKind::ArithSubst: {
                const ArithSubst& a = *n->as<ArithSubst>();
                write(a.bracket ? "$[" : "$((");
                word(a.raw);
                write(a.bracket ? "]" : "))");
                return;
            }
            case NodeKind::ProcSubst: {
                const ProcSubst& p = *n->as<ProcSubst>();
                substitution(p.output ? ">(" : "<(", p.body);
                return;
            }
            case NodeKind::ExtGlob: {
                const ExtGlob& g = *n->as<ExtGlob>();
                write(g.op);
                write('(');
                for (uint32_t i = 0; i < g.alternatives.size; ++i) {
                    if (i > 0) write('|');
                    word(g.alternatives[i]);
                }
                write(')');
                return;
            }
            case NodeKind::Word: word(n->as<Word>(), ctx); return;
            default: return;
        }
    }

    // The here-documents of a substitution, before its closing parenthesis. In a here-document's body, where
    // those left open read no line (`$(<<P)`: bash reads the body line by line first), empty ones are left
    // open: their delimiter line could end the body around them (`<<P` newline `$(<<P)`).
    // In a here-document's body, a line of a backquoted text that is the body's delimiter would end the body
    // around it: the last here-document of the text runs to its end, without its delimiter line, and its
    // last line takes the closing backquote (`<<i` newline `` `<<E `` newline `` i` ``: its `i` line would
    // end i's body). So does the first whose delimiter is the body's (it ran to the end there: the line would
    // have ended the body), and the ones after it are empty.
    // Whether the delimiter line printed for `r` (a <<- one indented with a tab) would end a body being printed.
    bool ends_a_body(const Redirect& r) const {
        const bool tab = r.strip_tabs && !r.delim.empty() && r.delim[0] != '\t';
        for (const Redirect* b : bodies_) {
            if (b == &r) continue;
            if (b->delim == r.delim && (!tab || b->strip_tabs)) return true;
        }
        return false;
    }

    // Whether a pending here-document's delimiter is that of a body being printed, and it is not empty
    // (close_docs leaves the empty ones of a body open).
    bool clashing_docs() const {
        if (!in_body_) return false;
        bool empty = true, clash = false;
        for (const Redirect* r : pending_) {
            empty = empty && (r->body == nullptr || r->body->parts.empty());
            clash = clash || ends_a_body(*r);
        }
        return clash && !empty;
    }

    void close_docs(bool backquoted = false) {
        bool empty = in_body_;
        for (const Redirect* r : pending_) empty = empty && (r->body == nullptr || r->body->parts.empty());
        if (empty) {
            pending_.clear();
            return;
        }
        if (!backquoted || !in_body_) {
            newline();
            return;
        }
        std::vector<const Redirect*> docs;
        docs.swap(pending_);
        out_ += '\n';
        for (size_t i = 0; i < docs.size(); ++i) {
            const Redirect* r = docs[i];
            if (i + 1 < docs.size() && r->delim.find('\n') == std::string_view::npos) {
                // printed with its delimiter line unless a line of it would end a body around it (then it
                // ran to the end of the text: that line was the text's last)
                std::string text = capture([&] { heredoc_body(*r, true); });
                bool clash = false;
                for (const Redirect* b : bodies_) clash = clash || has_delim_line(text, *b);
                if (!clash) {
                    out_ += text;
                    continue;
                }
            }
            heredoc_body(*r, false);
            break;
        }
        at_line_start_ = !out_.empty() && out_.back() == '\n';
    }

    // $( ) and <( ) >( ): one line, its own here-document queue flushed before the closing parenthesis.
    void substitution(std::string_view open, const List<Stmt*>& body) {
        std::vector<const Redirect*> saved_pending;
        saved_pending.swap(pending_);
        bool saved_ml = multiline_;
        multiline_ = false;
        write(open);
        if (pad_) write(' ');
        size_t start = out_.size();
        list_inline(body, false);
        if (out_.size() > start && out_[start] == '(') {
            // `$((` would start arithmetic.
            out_.insert(start, 1, ' ');
            write(' ');
        }
        // A body that goes on to the end of the input (a delimiter holding a newline) would take the `)`:
        // left open, it is read after the line that holds the substitution, as the parser reads it.
        // So is one whose delimiter line would end a here-document body around it: it read the lines after
        // the substitution's line in a backquoted text (`` `$(<<P)`` newline `` x` `` in P's body).
        if (body_to_end() || clashing_docs()) {
            saved_pending.insert(saved_pending.end(), pending_.begin(), pending_.end());
            pending_.clear();
        } else if (!pending_.empty()) {
            close_docs();
        }
        write(')');
        multiline_ = saved_ml;
        pending_.swap(saved_pending);
    }

    // `...`: the body printed as usual, then \ and ` (and " inside double quotes) escaped with a backslash,
    // which bash removes before parsing the body.
    void backquote(const List<Stmt*>& body, Ctx ctx) {
        std::vector<const Redirect*> saved_pending;
        saved_pending.swap(pending_);
        bool saved_ml = multiline_;
        multiline_ = false;
        std::string inner = capture([&] {
            list_inline(body, false);
            if (!pending_.empty()) close_docs(true);
        });
        multiline_ = saved_ml;
        pending_.swap(saved_pending);
        std::string s = pad_ ? "` " : "`";
        for (char c : inner) {
            if (c == '\\' || c == '`' || (c == '"' && ctx == Ctx::Dbl)) s += '\\';
            s += c;
        }
        s += '`';
        write(s);
    }

    // In the word of "${x-word}" a `'` opens or closes a pair in which a `}` does not end it; `\'` is a
    // backslash and a quote that opens none, and so is `\\'` but for its quote, which does. The value keeps
    // both bytes either way, so the printer chooses, for each `\'` of the value, whether its quote pairs,
    // such that the quotes are closed at the `}`: plan_quote_pairs gives that choice (true: printed `\\'`,
    // pairing) for each, in order.
    const std::vector<bool>* sq_plan_ = nullptr;
    size_t sq_plan_at_ = 0;

    std::vector<bool> plan_quote_pairs(const Word* w) {
        // the quotes of the word's text: 'b' a bare one (always pairs), 'p' one after a backslash; 'x' a
        // part printed with a quote in it, which must not be inside a pair (the pair would end there)
        std::string q;
        for (uint32_t i = 0; w && i < w->parts.size; ++i) {
            if (w->parts[i]->kind != NodeKind::Lit) {
                std::vector<const Redirect*> saved;
                saved.swap(pending_);
                const std::string text = capture([&] { part(w->parts[i], Ctx::DblArg); });
                pending_.swap(saved);
                if (text.find('\'') != std::string::npos) q += 'x';
                continue;
            }
            std::string_view t = w->parts[i]->as<Lit>()->text;
            for (size_t j = 0; j < t.size(); ++j) {
                if (t[j] == '\\' && j + 1 < t.size() && t[j + 1] == '\'') {
                    q += 'p';
                    ++j;
                } else if (t[j] == '\'') {
                    q += 'b';
                }
            }
        }
        // closes[i][s]: from quote i in state s (1: open), the quotes can end closed
        std::vector<std::array<bool, 2>> closes(q.size() + 1);
        closes[q.size()] = {true, false};
        for (size_t i = q.size(); i-- > 0;) {
            if (q[i] == 'x') {
                closes[i] = {closes[i + 1][0], false};
                continue;
            }
            for (int st = 0; st < 2; ++st) {
                const bool pairs = closes[i + 1][1 - st];
                // a bare quote pairs; after a backslash it pairs when open, and may or may not when closed
                closes[i][st] = q[i] == 'b' || st == 1 ? pairs : pairs || closes[i + 1][st];
            }
        }
        std::vector<bool> plan;
        int st = 0;
        for (size_t i = 0; i < q.size(); ++i) {
            if (q[i] == 'x') continue;
            if (q[i] == 'b' || st == 1) {
                if (q[i] == 'p') plan.push_back(false);
                st = 1 - st;
            } else {
                const bool pair = !closes[i + 1][0];
                plan.push_back(pair);
                if (pair) st = 1;
            }
        }
        return plan;
    }

    void param_exp(const ParamExp& p, Ctx ctx) {
        struct KeepPlan {
            Printer& pr;
            const std::vector<bool>* plan;
            size_t at;
            ~KeepPlan() {
                pr.sq_plan_ = plan;
                pr.sq_plan_at_ = at;
            }
        } keep{*this, sq_plan_, sq_plan_at_};
        sq_plan_ = nullptr;
        std::vector<bool> plan;
        if (ctx != Ctx::Plain && (p.op == ParamOp::Default || p.op == ParamOp::Assign || p.op == ParamOp::Error ||
                                  p.op == ParamOp::Alternate)) {
            plan = plan_quote_pairs(p.arg);
            sq_plan_ = &plan;
            sq_plan_at_ = 0;
        }
        Ctx arg_ctx = ctx == Ctx::Plain ? Ctx::Plain : Ctx::DblArg;
        Ctx pat_ctx = ctx == Ctx::Plain ? Ctx::Plain : Ctx::DblPatArg;
        if (!p.braced) {
            write('$');
            write(p.name);
            return;
        }
        write("${");
        switch (p.op) {
            case ParamOp::Length: write('#'); break;
            case ParamOp::PrefixNames:
            case ParamOp::Keys: write('!'); break;
            default:
                if (p.indirect) write('!');
        }
        write(p.name);
        if (p.op == ParamOp::PrefixNames) {
            write(p.at_form ? '@' : '*');
            write('}');
            return;
        }
        if (p.index_all != 0) {
            write('[');
            write(p.index_all);
            write(']');
        } else if (p.index != nullptr) {
            write('[');
            word(p.index);
            write(']');
        }
        auto arg_after = [&](std::string_view op, Ctx c) {
            write(op);
            word(p.arg, c);
        };
        switch (p.op) {
            case ParamOp::None:
            case ParamOp::Length:
            case ParamOp::PrefixNames:
            case ParamOp::Keys:
                break;
            case ParamOp::Default: arg_after(p.colon ? ":-" : "-", arg_ctx); break;
            case ParamOp::Assign: arg_after(p.colon ? ":=" : "=", arg_ctx); break;
            case ParamOp::Error: arg_after(p.colon ? ":?" : "?", arg_ctx); break;
            case ParamOp::Alternate: arg_after(p.colon ? ":+" : "+", arg_ctx); break;
            case ParamOp::RemPrefix: arg_after("#", pat_ctx); break;
            case ParamOp::RemLongPrefix: arg_after("##", pat_ctx); break;
            case ParamOp::RemSuffix: arg_after("%", pat_ctx); break;
            case ParamOp::RemLongSuffix: arg_after("%%", pat_ctx); break;
            case ParamOp::Replace:
            case ParamOp::ReplaceAll:
            case ParamOp::ReplacePrefix:
            case ParamOp::ReplaceSuffix: {
                std::string_view op = p.op == ParamOp::Replace      ? "/"
                                      : p.op == ParamOp::ReplaceAll ? "//"
                                      : p.op == ParamOp::ReplacePrefix ? "/#"
                                                                       : "/%";
                write(op);
                word(p.arg, arg_ctx == Ctx::Plain ? Ctx::Plain : Ctx::DblPattern);
                if (p.arg2 != nullptr) {
                    write('/');
                    word(p.arg2, pat_ctx);
                }
                break;
            }
            case ParamOp::Substring: {
                write(':');
                std::string off = capture([&] { word(p.arg, arg_ctx); });
                // `${x:-1}` would be a default value.
                if (!off.empty() && off[0] == '-') write(' ');
                write(off);
                if (p.arg2 != nullptr) {
                    write(':');
                    word(p.arg2, arg_ctx);
                }
                break;
            }
            case ParamOp::UpperFirst: arg_after("^", pat_ctx); break;
            case ParamOp::UpperAll: arg_after("^^", pat_ctx); break;
            case ParamOp::LowerFirst: arg_after(",", pat_ctx); break;
            case ParamOp::LowerAll: arg_after(",,", pat_ctx); break;
            case ParamOp::Transform:
                write('@');
                if (p.transform != 0) write(p.transform);
                break;
        }
        write('}');
    }
};

// ---------------------------------------------------------------- arithmetic (for messages and tests)

// Binding strength, higher binds tighter: comma, assignment, ?:, then the binary operators by bash's
// precedence (ast.hpp), then unary and postfix operators.
int binary_prec(ArithOp op) {
    if (op == ArithOp::Comma) return 1;
    int p = arith_precedence(op);
    return p == 0 ? 12 : p + 3;
}

int arith_prec(const ArithExpr* e) {
    switch (e->kind) {
        case NodeKind::ArithBinary: return binary_prec(e->as<ArithBinary>()->op);
        case NodeKind::ArithAssign: return 2;
        case NodeKind::ArithTernary: return 3;
        case NodeKind::ArithUnary: return 15;
        case NodeKind::ArithPostfix: return 16;
        default: return 17;
    }
}

class ArithPrinter {
public:
    std::string out;

    void expr(const ArithExpr* e, int min_prec) {
        if (e == nullptr) return;
        if (arith_prec(e) < min_prec) {
            out += '(';
            expr(e, 0);
            out += ')';
            return;
        }
        switch (e->kind) {
            case NodeKind::ArithNum: out += e->as<ArithNum>()->text; return;
            case NodeKind::ArithVar: {
                const ArithVar& v = *e->as<ArithVar>();
                out += v.name;
                if (v.index != nullptr) {
                    out += '[';
                    out += print(*v.index);
                    out += ']';
                }
                return;
            }
            case NodeKind::ArithWord:
                if (e->as<ArithWord>()->word != nullptr) out += print(*e->as<ArithWord>()->word);
                return;
            case NodeKind::ArithParen:
                out += '(';
                expr(e->as<ArithParen>()->inner, 0);
                out += ')';
                return;
            case NodeKind::ArithUnary: {
                const ArithUnary& u = *e->as<ArithUnary>();
                std::string_view op = arith_op_text(u.op);
                out += op;
                size_t start = out.size();
                expr(u.operand, 15);
                // `- -x` and `+ +x` must not fuse into -- or ++.
                if (out.size() > start && (out[start] == '-' || out[start] == '+') && out[start] == op.back()) {
                    out.insert(start, 1, ' ');
                }
                return;
            }
            case NodeKind::ArithPostfix: {
                const ArithPostfix& p = *e->as<ArithPostfix>();
                expr(p.operand, 16);
                out += arith_op_text(p.op);
                return;
            }
            case NodeKind::ArithAssign: {
                const ArithAssign& a = *e->as<ArithAssign>();
                expr(a.target, 16);
                out += ' ';
                out += arith_op_text(a.op);
                out += ' ';
                expr(a.value, 2);
                return;
            }
            case NodeKind::ArithTernary: {
                const ArithTernary& t = *e->as<ArithTernary>();
                expr(t.cond, 4);
                out += " ? ";
                expr(t.then_expr, 3);
                out += " : ";
                expr(t.else_expr, 3);
                return;
            }
            case NodeKind::ArithBinary: {
                // Left spine iteratively: `1+1+1+...` may be long.
                std::vector<const ArithBinary*> spine;
                const ArithExpr* leaf = e;
                while (leaf != nullptr && leaf->is<ArithBinary>()) {
                    const ArithBinary* b = leaf->as<ArithBinary>();
                    if (!spine.empty() && binary_prec(b->op) < binary_prec(spine.back()->op)) break;
                    if (!spine.empty() && b->op == ArithOp::Pow) break;  // right-associative
                    spine.push_back(b);
                    leaf = b->left;
                }
                const ArithBinary* bottom = spine.back();
                int p = binary_prec(bottom->op);
                expr(leaf, bottom->op == ArithOp::Pow ? p + 1 : p);
                for (size_t i = spine.size(); i-- > 0;) {
                    const ArithBinary* b = spine[i];
                    int bp = binary_prec(b->op);
                    if (b->op != ArithOp::Comma) out += ' ';
                    out += arith_op_text(b->op);
                    out += ' ';
                    expr(b->right, b->op == ArithOp::Pow ? bp : bp + 1);
                }
                return;
            }
            default: return;
        }
    }
};

}  // namespace

std::string print(const Script& script) {
    Printer p;
    p.script(script);
    if (!p.saw_body_to_end()) return p.take();
    // A here-document whose delimiter holds a newline takes the rest of the input as its body: what follows
    // it in the script stays on its line (see Printer::script), the ends of the compound commands around it
    // too (`{ cat <<"a` newline `b"; echo x; }`), so they print on one line.
    Printer one;
    one.one_line_bodies();
    one.script(script);
    return one.take();
}

std::string print_one_line(const Command& command) {
    Printer p;
    p.one_line(&command);
    return p.take();
}

std::string print(const Word& word) {
    Printer p;
    p.word(&word);
    return p.take();
}

// Arithmetic expression tree as text, parenthesised only where precedence needs it. Not in printer.hpp:
// the printer prints arithmetic from its raw text; this serves messages and tests of parse_arith.
std::string print_arith(const ArithExpr& expr) {
    ArithPrinter p;
    p.expr(&expr, 0);
    return std::move(p.out);
}

}  // namespace bashkit::syntax
