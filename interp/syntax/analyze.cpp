// Pre-run analysis (analyze.hpp): one walk over every node kind of the tree, recording the commands,
// redirections and expansions it meets; literal code strings (bash -c, eval, trap) are parsed and walked
// as part of the script, with positions mapped back to the outer source.
//
// What a command does to files and the network is a property of the utility, not of the syntax: the
// knowledge lives in Analyzer::semantics below, one branch per utility family, documented in
// interp/syntax/README.md. It is deliberately approximate (option parsing is the common GNU subset) and
// errs towards reporting: an argument whose role is unclear is reported, never dropped silently.
#include "interp/syntax/analyze.hpp"

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "interp/syntax/printer.hpp"

namespace bashkit::syntax {
namespace {

constexpr size_t kMaxText = 512;  // bytes of source text kept in a DynamicUse

std::string clip(std::string s) {
    if (s.size() > kMaxText) {
        s.resize(kMaxText);
        s += "...";
    }
    return s;
}

// Unquoted text that the shell would expand: globs (* ? [..]), brace expansion ({a,b} {1..3}), a leading ~.
bool lit_expands(std::string_view t, bool first) {
    if (first && !t.empty() && t[0] == '~') return true;
    for (size_t i = 0; i < t.size(); ++i) {
        char c = t[i];
        if (c == '*' || c == '?') return true;
        if (c == '[' && t.find(']', i + 1) != std::string_view::npos) return true;
        if (c == '{') {
            size_t close = t.find('}', i + 1);
            if (close == std::string_view::npos) continue;
            std::string_view in = t.substr(i + 1, close - i - 1);
            if (in.find(',') != std::string_view::npos || in.find("..") != std::string_view::npos) return true;
        }
    }
    return false;
}

// The value of a word that needs no expansion at run time, after quote removal; nullopt otherwise.
std::optional<std::string> literal(const Word& w) {
    std::string v;
    bool first = true;
    for (const Node* p : w.parts) {
        switch (p->kind) {
            case NodeKind::Lit: {
                std::string_view t = p->as<Lit>()->text;
                if (lit_expands(t, first)) return std::nullopt;
                v += t;
                break;
            }
            case NodeKind::Escaped: v += p->as<Escaped>()->text; break;
            case NodeKind::SglQuoted: v += p->as<SglQuoted>()->text; break;
            case NodeKind::AnsiCQuoted: v += p->as<AnsiCQuoted>()->value; break;
            case NodeKind::DblQuoted:
                for (const Node* q : p->as<DblQuoted>()->parts) {
                    if (q->is<Lit>()) v += q->as<Lit>()->text;
                    else if (q->is<Escaped>()) v += q->as<Escaped>()->text;  // `\\` before a quote
                    else return std::nullopt;
                }
                break;
            default: return std::nullopt;
        }
        first = false;
    }
    return v;
}

std::string_view basename(std::string_view p) {
    size_t slash = p.rfind('/');
    return slash == std::string_view::npos ? p : p.substr(slash + 1);
}

bool is_quiet_device(std::string_view p) {
    return p == "/dev/null" || p == "/dev/stdout" || p == "/dev/stderr" || p == "/dev/stdin" ||
           p == "/dev/zero" || p == "/dev/tty" || p == "/dev/random" || p == "/dev/urandom" ||
           p.rfind("/dev/fd/", 0) == 0;
}

bool all_digits(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

template <class Names>
bool in(std::string_view s, const Names& names) {
    return std::find(names.begin(), names.end(), s) != names.end();
}

bool one_of(std::string_view s, std::initializer_list<std::string_view> names) {
    return std::find(names.begin(), names.end(), s) != names.end();
}

// A word of a command line, evaluated as far as the syntax allows.
struct Arg {
    bool lit = false;
    std::string text;  // the value when lit, else the source text
    Pos pos;
    bool proc_subst = false;  // the word is one <(...) or >(...): a pipe, not a file
};

// Which options of a utility take a value in the next argument.
struct OptSpec {
    std::string_view shorts;                      // letters: -X VALUE (or -XVALUE)
    std::vector<std::string_view> longs;          // --name VALUE (or --name=VALUE)
};

class Analyzer {
public:
    Analyzer(const AnalyzeOptions& o, Analysis& a) : options_(o), analysis_(a) {}

    void script(const Script& s) { stmts(s.body); }

    void finish() {
        std::set<std::string> names;
        for (CommandUse& c : analysis_.commands) {
            if (!c.dynamic && c.via != "command" && c.via != "builtin" && defined_.count(c.name)) c.kind = "function";
            if (!c.dynamic && c.kind != "function") names.insert(c.name);
        }
        analysis_.command_names.assign(names.begin(), names.end());
    }

private:
    const AnalyzeOptions& options_;
    Analysis& analysis_;
    Pos base_{};         // where nested code starts in the outer source; line 0 at the top level
    uint32_t nest_ = 0;  // depth of nested code strings
    std::string via_;    // how the nested code being walked is run ("bash -c", "eval", "trap")
    std::set<std::string, std::less<>> defined_;

    template <class V, class T>
    void push(V& v, T&& t) {
        if (v.size() >= options_.max_entries) {
            analysis_.truncated = true;
            return;
        }
        v.push_back(std::forward<T>(t));
    }

    Pos map(Pos p) const {
        if (base_.line == 0) return p;
        return Pos{base_.line + p.line - 1, p.line == 1 ? base_.col + p.col : p.col};
    }

    Arg arg(const Word* w) {
        Arg a;
        a.pos = map(w->pos);
        a.proc_subst = w->parts.size == 1 && w->parts[0]->is<ProcSubst>();
        if (auto v = literal(*w)) {
            a.lit = true;
            a.text = std::move(*v);
        } else {
            a.text = print(*w);
        }
        return a;
    }

    // ------------------------------------------------------------ the walk

    void stmts(const List<Stmt*>& body) {
        for (const Stmt* s : body) command(s->cmd);
    }

    void command(const Command* c) {
        if (!c) return;
        switch (c->kind) {
            case NodeKind::Simple: simple(*c->as<Simple>()); break;
            case NodeKind::Pipeline:
                for (const Command* s : c->as<Pipeline>()->stages) command(s);
                break;
            case NodeKind::AndOr:
                for (const Command* s : c->as<AndOr>()->items) command(s);
                break;
            case NodeKind::Brace: stmts(c->as<Brace>()->body); break;
            case NodeKind::Subshell: stmts(c->as<Subshell>()->body); break;
            case NodeKind::If: {
                const If& n = *c->as<If>();
                for (const IfClause& cl : n.clauses) {
                    stmts(cl.cond);
                    stmts(cl.body);
                }
                stmts(n.else_body);
                break;
            }
            case NodeKind::While: {
                const While& n = *c->as<While>();
                stmts(n.cond);
                stmts(n.body);
                break;
            }
            case NodeKind::For: {
                const For& n = *c->as<For>();
                for (const Word* w : n.items) word(w);
                stmts(n.body);
                break;
            }
            case NodeKind::Select: {
                const Select& n = *c->as<Select>();
                for (const Word* w : n.items) word(w);
                stmts(n.body);
                break;
            }
            case NodeKind::ArithFor: {
                const ArithFor& n = *c->as<ArithFor>();
                word(n.init.raw);
                word(n.cond.raw);
                word(n.step.raw);
                stmts(n.body);
                break;
            }
            case NodeKind::Case: {
                const Case& n = *c->as<Case>();
                word(n.subject);
                for (const CaseItem& it : n.items) {
                    for (const Word* w : it.patterns) word(w);
                    stmts(it.body);
                }
                break;
            }
            case NodeKind::ArithCmd: word(c->as<ArithCmd>()->raw); break;
            case NodeKind::CondCmd: cond(c->as<CondCmd>()->expr); break;
            case NodeKind::FuncDef: {
                const FuncDef& f = *c->as<FuncDef>();
                push(analysis_.functions, FunctionDefinition{std::string(f.name), map(f.pos)});
                defined_.emplace(f.name);
                command(f.body);
                break;
            }
            case NodeKind::Coproc: command(c->as<Coproc>()->body); break;
            default: break;
        }
        redirs(c->redirs);
    }

    void word(const Word* w) {
        if (!w) return;
        for (const Node* p : w->parts) part(p);
    }

    void part(const Node* p) {
        switch (p->kind) {
            case NodeKind::DblQuoted:
                for (const Node* q : p->as<DblQuoted>()->parts) part(q);
                break;
            case NodeKind::ParamExp: {
                const ParamExp& e = *p->as<ParamExp>();
                word(e.index);
                word(e.arg);
                word(e.arg2);
                break;
            }
            case NodeKind::CmdSubst: {
                const CmdSubst& s = *p->as<CmdSubst>();
                if (!s.deferred_error.empty()) {
                    push(analysis_.errors, AnalysisError{map(s.deferred_pos), std::string(s.deferred_error), "substitution"});
                    push(analysis_.dynamic, DynamicUse{"unparsed_substitution", clip(std::string(s.raw)), map(s.pos)});
                }
                stmts(s.body);
                break;
            }
            case NodeKind::ArithSubst: word(p->as<ArithSubst>()->raw); break;
            case NodeKind::ProcSubst: stmts(p->as<ProcSubst>()->body); break;
            case NodeKind::ExtGlob:
                for (const Word* w : p->as<ExtGlob>()->alternatives) word(w);
                break;
            default: break;
        }
    }

    void cond(const CondExpr* e) {
        if (!e) return;
        switch (e->kind) {
            case NodeKind::CondWord: word(e->as<CondWord>()->word); break;
            case NodeKind::CondUnary: word(e->as<CondUnary>()->arg); break;
            case NodeKind::CondBinary:
                word(e->as<CondBinary>()->left);
                word(e->as<CondBinary>()->right);
                break;
            case NodeKind::CondNot: cond(e->as<CondNot>()->expr); break;
            case NodeKind::CondParen: cond(e->as<CondParen>()->expr); break;
            case NodeKind::CondAnd:
                cond(e->as<CondAnd>()->left);
                cond(e->as<CondAnd>()->right);
                break;
            case NodeKind::CondOr:
                cond(e->as<CondOr>()->left);
                cond(e->as<CondOr>()->right);
                break;
            default: break;
        }
    }

    void assign(const Assign* a) {
        word(a->index);
        word(a->value);
        for (const ArrayElem& e : a->elems) {
            word(e.key);
            word(e.value);
        }
    }

    void redirs(const List<Redirect*>& rs) {
        for (const Redirect* r : rs) {
            if (r->op == RedirOp::HereDoc) {
                word(r->body);
                continue;
            }
            word(r->target);
            if (r->op == RedirOp::HereString || !r->target) continue;
            Arg t = arg(r->target);
            std::string_view via;
            bool reads = false, writes = false;
            switch (r->op) {
                case RedirOp::In: via = "<", reads = true; break;
                case RedirOp::Out: via = ">", writes = true; break;
                case RedirOp::Append: via = ">>", writes = true; break;
                case RedirOp::Clobber: via = ">|", writes = true; break;
                case RedirOp::ReadWrite: via = "<>", reads = writes = true; break;
                case RedirOp::OutErr: via = "&>", writes = true; break;
                case RedirOp::AppendOutErr: via = "&>>", writes = true; break;
                case RedirOp::DupOut:
                case RedirOp::DupIn: {
                    // >&2, <&0, >&- and >&3- duplicate or close descriptors (>&$fd too, as a rule);
                    // `>&file` writes like &>.
                    if (!t.lit || r->op == RedirOp::DupIn) continue;
                    std::string_view d = t.text;
                    if (!d.empty() && d.back() == '-') d.remove_suffix(1);
                    if (d.empty() || all_digits(d)) continue;
                    via = ">&", writes = true;
                    break;
                }
                default: break;
            }
            if (!reads && !writes) continue;
            file_use(t, via, reads, writes);
        }
    }

    // Records a file the script reads and/or writes; /dev/tcp and /dev/udp paths are network uses.
    void file_use(const Arg& t, std::string_view via, bool reads, bool writes) {
        std::string_view p = t.text;
        if (p.rfind("/dev/tcp/", 0) == 0 || p.rfind("/dev/udp/", 0) == 0) {
            analysis_.uses_network = true;
            NetworkUse n{std::string(p.substr(0, 8)), t.pos, {}};
            if (t.lit) n.urls.emplace_back(p.substr(9));
            push(analysis_.network, std::move(n));
            return;
        }
        if ((t.lit && is_quiet_device(p)) || t.proc_subst) return;
        if (reads) push(analysis_.reads, FileUse{t.text, t.pos, std::string(via), !t.lit});
        if (writes) push(analysis_.writes, FileUse{t.text, t.pos, std::string(via), !t.lit});
    }

    // Entries come in source order: the command, then what its words run (substitutions run first, but a
    // person reads `echo $(date)` as echo's).
    void simple(const Simple& s) {
        for (const Assign* a : s.assigns) assign(a);
        if (s.words.empty()) return;
        std::vector<Arg> v;
        v.reserve(s.words.size);
        for (const Word* w : s.words) v.push_back(arg(w));
        run(v, 0, v.size(), via_);
        for (const Word* w : s.words) word(w);
    }

    // ------------------------------------------------------------ commands and what they do

    static std::string join(const std::vector<Arg>& v, size_t b, size_t e) {
        std::string s;
        for (size_t i = b; i < e; ++i) {
            if (i > b) s += ' ';
            s += v[i].text;
        }
        return s;
    }

    // v[b, e), with the words that contain `mark` ({} of find -exec, the string of xargs -I) made dynamic:
    // they are replaced at run time.
    static std::vector<Arg> placeholders(const std::vector<Arg>& v, size_t b, size_t e, std::string_view mark) {
        std::vector<Arg> out(v.begin() + static_cast<std::ptrdiff_t>(b), v.begin() + static_cast<std::ptrdiff_t>(e));
        for (Arg& a : out)
            if (a.text.find(mark) != std::string::npos) a.lit = false;
        return out;
    }

    // The command v[b, e), started the way `via` says.
    void run(const std::vector<Arg>& v, size_t b, size_t e, std::string_view via) {
        if (b >= e) return;
        const Arg& n = v[b];
        CommandUse cu;
        cu.name = n.text;
        cu.pos = n.pos;
        cu.via = std::string(via);
        for (size_t i = b + 1; i < e; ++i) {
            if (!v[i].lit) cu.dynamic_args.push_back(static_cast<uint32_t>(i - b - 1));
            cu.args.push_back(v[i].text);
        }
        if (!n.lit) {
            cu.dynamic = true;
            cu.kind = "command";
            push(analysis_.commands, std::move(cu));
            push(analysis_.dynamic, DynamicUse{"command_name", clip(join(v, b, e)), n.pos});
            return;
        }
        cu.kind = options_.is_builtin && options_.is_builtin(n.text) ? "builtin" : "command";
        push(analysis_.commands, std::move(cu));
        semantics(basename(n.text), v, b, e);
    }

    // An option met by operands(), with its value when it takes one (attached or in the next word).
    struct Opt {
        std::string name;  // "-o", "--output"
        std::optional<Arg> value;
    };
    using Opts = std::vector<Opt>;

    // Indexes of the operands of v[b, e) (not options nor option values), given which options take values.
    // Stops at the first operand when stop_at_operand (the rest belongs to a wrapped command).
    static std::vector<size_t> operands(const std::vector<Arg>& v, size_t b, size_t e, const OptSpec& spec,
                                        bool stop_at_operand = false, Opts* opts = nullptr) {
        std::vector<size_t> out;
        bool only_operands = false;
        auto note = [&](std::string name, std::optional<Arg> value) {
            if (opts) opts->push_back(Opt{std::move(name), std::move(value)});
        };
        for (size_t i = b; i < e; ++i) {
            const Arg& a = v[i];
            std::string_view t = a.text;
            if (only_operands || !a.lit || t.size() < 2 || t[0] != '-') {
                out.push_back(i);
                if (stop_at_operand) return out;
                continue;
            }
            if (t == "--") {
                only_operands = true;
                continue;
            }
            if (t.rfind("--", 0) == 0) {
                size_t eq = t.find('=');
                std::string name(t.substr(0, eq));
                if (eq != std::string_view::npos) {
                    note(name, Arg{true, std::string(t.substr(eq + 1)), a.pos});
                } else if (in(name, spec.longs)) {
                    note(name, i + 1 < e ? std::optional<Arg>(v[i + 1]) : std::nullopt);
                    ++i;
                } else {
                    note(name, std::nullopt);
                }
                continue;
            }
            for (size_t k = 1; k < t.size(); ++k) {
                std::string name = std::string("-") + t[k];
                if (spec.shorts.find(t[k]) == std::string_view::npos) {
                    note(name, std::nullopt);
                    continue;
                }
                if (k + 1 < t.size()) {
                    note(name, Arg{true, std::string(t.substr(k + 1)), a.pos});
                } else {
                    note(name, i + 1 < e ? std::optional<Arg>(v[i + 1]) : std::nullopt);
                    ++i;
                }
                break;
            }
        }
        return out;
    }

    // The value of the first option `name` that operands() met.
    static std::optional<Arg> opt_value(const Opts& opts, std::string_view name) {
        for (const Opt& o : opts)
            if (o.name == name && o.value) return o.value;
        return std::nullopt;
    }

    static bool has_opt(const Opts& opts, std::string_view name) {
        for (const Opt& o : opts)
            if (o.name == name) return true;
        return false;
    }

    void network(std::string_view cmd, const std::vector<Arg>& v, const std::vector<size_t>& ops, Pos pos,
                 std::vector<std::string> more = {}) {
        analysis_.uses_network = true;
        NetworkUse n{std::string(cmd), pos, {}};
        for (size_t i : ops) n.urls.push_back(v[i].text);
        for (std::string& u : more) n.urls.push_back(std::move(u));
        push(analysis_.network, std::move(n));
    }

    void files(const std::vector<Arg>& v, const std::vector<size_t>& ops, size_t from, std::string_view via,
               bool reads, bool writes) {
        for (size_t k = from; k < ops.size(); ++k) file_use(v[ops[k]], via, reads, writes);
    }

    // Code given as a string: parsed and walked as part of the script, or reported as dynamic.
    void code(const Arg& a, std::string_view context, std::string_view dyn_reason) {
        if (!a.lit) {
            push(analysis_.dynamic, DynamicUse{std::string(dyn_reason), clip(a.text), a.pos});
            return;
        }
        nested(a.text, a.pos, context);
    }

    void nested(const std::string& text, Pos pos, std::string_view context) {
        if (nest_ >= options_.max_nested) {
            push(analysis_.dynamic, DynamicUse{"nesting_limit", clip(text), pos});
            return;
        }
        ParseResult r = parse(text, options_.parse);
        Pos saved_base = base_;
        std::string saved_via = std::move(via_);
        base_ = pos;
        via_ = std::string(context);
        ++nest_;
        if (!r.ok()) {
            push(analysis_.errors, AnalysisError{map(r.error->pos), r.error->message, std::string(context)});
        } else {
            stmts(r.script->body);
        }
        --nest_;
        base_ = saved_base;
        via_ = std::move(saved_via);
    }

    void semantics(std::string_view name, const std::vector<Arg>& v, size_t b, size_t e) {
        const Pos pos = v[b].pos;
        const size_t a0 = b + 1;  // first argument
        Opts opts;

        // ---- wrappers: run the command in their arguments
        auto wrap = [&](const OptSpec& spec, std::string_view via, size_t skip_operands = 0) {
            size_t i = a0;
            for (size_t k = 0; k <= skip_operands; ++k) {
                auto ops = operands(v, i, e, spec, true);
                if (ops.empty()) return;
                i = ops[0] + (k < skip_operands ? 1 : 0);
            }
            run(v, i, e, via);
        };
        if (name == "command" || name == "builtin") {
            for (size_t i = a0; i < e && v[i].lit && v[i].text.size() > 1 && v[i].text[0] == '-'; ++i)
                if (v[i].text.find_first_of("vV") != std::string::npos) return;  // a lookup, runs nothing
            wrap({"", {}}, name);
            return;
        }
        if (name == "exec") return wrap({"a", {}}, name);
        if (name == "nohup" || name == "setsid") return wrap({"", {}}, name);
        if (name == "time") return wrap({"fo", {"--format", "--output"}}, name);
        if (name == "nice") return wrap({"n", {"--adjustment"}}, name);
        if (name == "stdbuf") return wrap({"ioe", {"--input", "--output", "--error"}}, name);
        if (name == "sudo" || name == "doas") return wrap({"ugCDhpRrtTU", {"--user", "--group", "--chdir", "--host", "--prompt"}}, name);
        if (name == "timeout") return wrap({"sk", {"--signal", "--kill-after"}}, name, 1);
        if (name == "watch") return wrap({"nd", {"--interval", "--differences"}}, name);
        if (name == "env") {
            size_t i = a0;
            while (i < e) {
                const Arg& a = v[i];
                if (a.lit && (a.text == "-u" || a.text == "-C" || a.text == "--unset" || a.text == "--chdir")) {
                    i += 2;
                } else if (a.lit && a.text.size() > 1 && a.text[0] == '-') {
                    ++i;
                } else if (a.lit && a.text.find('=') != std::string::npos && a.text[0] != '=') {
                    ++i;  // NAME=VALUE
                } else {
                    break;
                }
            }
            run(v, i, e, name);
            return;
        }
        if (name == "xargs") {
            auto ops = operands(v, a0, e, {"adEIiLlnPs", {"--arg-file", "--delimiter", "--eof", "--replace",
                                                          "--max-lines", "--max-args", "--max-procs", "--max-chars",
                                                          "--process-slot-var"}}, true, &opts);
            if (auto f = opt_value(opts, "-a")) file_use(*f, "xargs", true, false);
            if (auto f = opt_value(opts, "--arg-file")) file_use(*f, "xargs", true, false);
            push(analysis_.dynamic, DynamicUse{"xargs", clip(join(v, b, e)), pos});
            if (ops.empty()) return;  // runs echo
            auto repl = opt_value(opts, "-I");
            if (!repl) repl = opt_value(opts, "--replace");
            if (repl && repl->lit && !repl->text.empty()) {
                run(placeholders(v, ops[0], e, repl->text), 0, e - ops[0], "xargs");
            } else {
                run(v, ops[0], e, "xargs");
            }
            return;
        }
        if (name == "find") {
            size_t i = a0;
            std::vector<size_t> starts;
            while (i < e && !(v[i].lit && !v[i].text.empty() && (v[i].text[0] == '-' || v[i].text == "(" || v[i].text == "!")))
                starts.push_back(i++);
            for (; i < e; ++i) {
                const std::string& t = v[i].text;
                if (!v[i].lit) continue;
                if (one_of(t, {"-exec", "-execdir", "-ok", "-okdir"})) {
                    size_t j = i + 1;
                    while (j < e && !(v[j].lit && (v[j].text == ";" || v[j].text == "+"))) ++j;
                    push(analysis_.dynamic, DynamicUse{"find_exec", clip(join(v, i, std::min(j + 1, e))), v[i].pos});
                    run(placeholders(v, i + 1, j, "{}"), 0, j - i - 1, "find " + t);
                    i = j;
                } else if (t == "-delete") {
                    if (starts.empty()) file_use(Arg{true, ".", pos}, "find -delete", false, true);
                    for (size_t s : starts) file_use(v[s], "find -delete", false, true);
                } else if (one_of(t, {"-fprint", "-fprint0", "-fprintf", "-fls"}) && i + 1 < e) {
                    file_use(v[++i], "find " + t, false, true);
                }
            }
            return;
        }

        // ---- code in strings
        if (name == "eval") {
            analysis_.uses_eval = true;
            if (a0 >= e) return;
            bool lit = true;
            for (size_t i = a0; i < e; ++i) lit = lit && v[i].lit;
            Arg all{lit, join(v, a0, e), v[a0].pos};
            code(all, "eval", "eval");
            return;
        }
        if (name == "source" || name == ".") {
            analysis_.uses_source = true;
            auto ops = operands(v, a0, e, {"", {}}, true);
            if (ops.empty()) return;
            const Arg& f = v[ops[0]];
            push(analysis_.sources, FileUse{f.text, f.pos, std::string(name), !f.lit});
            push(analysis_.reads, FileUse{f.text, f.pos, std::string(name), !f.lit});
            if (!f.lit) push(analysis_.dynamic, DynamicUse{"source", clip(f.text), f.pos});
            return;
        }
        if (one_of(name, {"bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "rbash"})) {
            bool has_c = false;
            size_t i = a0;
            for (; i < e; ++i) {
                const Arg& a = v[i];
                std::string_view t = a.text;
                if (!a.lit || t.size() < 2 || (t[0] != '-' && t[0] != '+')) break;
                if (t == "--" || t == "-") {
                    ++i;
                    break;
                }
                if (t.rfind("--", 0) == 0) {
                    if (t == "--rcfile" || t == "--init-file") ++i;
                    continue;
                }
                if (t == "-o" || t == "+o" || t == "-O" || t == "+O") {
                    ++i;
                    continue;
                }
                if (t.find('c') != std::string_view::npos) has_c = true;
            }
            if (has_c) {
                if (i < e) code(v[i], "bash -c", "bash_c");
                return;
            }
            if (i < e) {
                const Arg& f = v[i];
                push(analysis_.sources, FileUse{f.text, f.pos, std::string(name), !f.lit});
                push(analysis_.reads, FileUse{f.text, f.pos, std::string(name), !f.lit});
                if (!f.lit) push(analysis_.dynamic, DynamicUse{"source", clip(f.text), f.pos});
            } else {
                push(analysis_.dynamic, DynamicUse{"shell_stdin", clip(join(v, b, e)), pos});
            }
            return;
        }
        if (name == "trap") {
            auto ops = operands(v, a0, e, {"", {}});
            if (ops.size() < 2) return;  // trap -p, trap -l, trap SIG (reset)
            const Arg& h = v[ops[0]];
            if (h.lit && (h.text.empty() || h.text == "-")) return;
            code(h, "trap", "trap");
            return;
        }

        // ---- the network
        if (name == "curl") {
            auto ops = operands(v, a0, e, {"oHdXuAebcFTwxrmKEyYzCQ",
                                            {"--output", "--header", "--data", "--data-raw", "--data-binary",
                                             "--data-urlencode", "--request", "--user", "--user-agent", "--referer",
                                             "--cookie", "--cookie-jar", "--form", "--upload-file", "--write-out",
                                             "--proxy", "--max-time", "--connect-timeout", "--retry", "--config",
                                             "--cert", "--key", "--resolve", "--url", "--json", "--output-dir"}},
                                false, &opts);
            std::vector<std::string> more;
            for (const Opt& o : opts)
                if (o.name == "--url" && o.value) more.push_back(o.value->text);
            network(name, v, ops, pos, std::move(more));
            if (auto f = opt_value(opts, "-o")) file_use(*f, "curl -o", false, f->text != "-");
            if (auto f = opt_value(opts, "--output")) file_use(*f, "curl -o", false, f->text != "-");
            if (auto f = opt_value(opts, "-T")) file_use(*f, "curl -T", true, false);
            if (auto f = opt_value(opts, "--upload-file")) file_use(*f, "curl -T", true, false);
            if (has_opt(opts, "-O") || has_opt(opts, "--remote-name"))
                for (size_t i : ops) file_use(Arg{false, std::string(basename(v[i].text)), v[i].pos}, "curl -O", false, true);
            return;
        }
        if (name == "wget") {
            auto ops = operands(v, a0, e, {"OoaPeUtTwQlADi",
                                            {"--output-document", "--output-file", "--append-output",
                                             "--directory-prefix", "--user-agent", "--tries", "--timeout",
                                             "--header", "--post-data", "--post-file", "--input-file"}},
                                false, &opts);
            network(name, v, ops, pos);
            auto out = opt_value(opts, "-O");
            if (!out) out = opt_value(opts, "--output-document");
            if (out) {
                if (out->text != "-") file_use(*out, "wget -O", false, true);
            } else {
                for (size_t i : ops) file_use(Arg{false, std::string(basename(v[i].text)), v[i].pos}, "wget", false, true);
            }
            return;
        }
        if (one_of(name, {"nc", "ncat", "netcat", "telnet", "socat", "ftp", "sftp", "aria2c", "http", "https",
                          "lynx", "w3m", "links", "ping", "dig", "nslookup", "host", "whois"})) {
            network(name, v, operands(v, a0, e, {name == "ping" ? "cwWisItlp" : "pwsiqeW", {}}), pos);
            return;
        }
        if (name == "ssh") {
            auto ops = operands(v, a0, e, {"bcDEeFIiJLlmOopQRSWw", {}}, true);
            network(name, v, ops, pos);
            return;
        }
        if (name == "scp" || name == "rsync") {
            auto ops = operands(v, a0, e, {"cFiJlPSoe", {"--rsh", "--exclude", "--include", "--filter"}});
            std::vector<size_t> remote;
            for (size_t i : ops)
                if (v[i].text.find(':') != std::string::npos) remote.push_back(i);
            if (name == "scp" || !remote.empty()) network(name, v, remote, pos);
            if (!ops.empty()) {
                const Arg& dest = v[ops.back()];
                if (dest.text.find(':') == std::string::npos) file_use(dest, name, false, true);
            }
            return;
        }
        if (name == "git") {
            auto ops = operands(v, a0, e, {"Cc", {"--git-dir", "--work-tree", "--namespace"}}, true);
            if (ops.empty()) return;
            const std::string& sub = v[ops[0]].text;
            if (one_of(sub, {"clone", "fetch", "pull", "push", "ls-remote", "submodule", "remote"})) {
                auto rest = operands(v, ops[0] + 1, e, {"bcjo", {"--branch", "--depth", "--origin"}});
                std::vector<size_t> urls;
                for (size_t i : rest)
                    if (v[i].text.find("://") != std::string::npos || v[i].text.find('@') != std::string::npos)
                        urls.push_back(i);
                network("git " + sub, v, urls, pos);
            }
            return;
        }
        if (one_of(name, {"pip", "pip3", "npm", "yarn", "pnpm", "apt", "apt-get", "gem", "cargo", "go", "brew", "apk"})) {
            auto ops = operands(v, a0, e, {"", {}}, true);
            if (!ops.empty() && one_of(v[ops[0]].text, {"install", "i", "add", "ci", "update", "upgrade", "get",
                                                          "download", "fetch", "publish"}))
                network(std::string(name) + " " + v[ops[0]].text, v, {}, pos);
            return;
        }

        // ---- files
        if (name == "tee") return files(v, operands(v, a0, e, {"", {"--output-error"}}), 0, "tee", false, true);
        if (name == "cp" || name == "mv" || name == "install" || name == "ln") {
            auto ops = operands(v, a0, e, {name == "install" ? "tSmogb" : "tS", {"--target-directory", "--suffix", "--mode", "--owner", "--group"}}, false, &opts);
            auto target = opt_value(opts, "-t");
            if (!target) target = opt_value(opts, "--target-directory");
            bool src_writes = name == "mv";
            bool src_reads = name != "ln";
            if (target) {
                files(v, ops, 0, name, src_reads, src_writes);
                file_use(*target, name, false, true);
            } else if (name == "ln" && ops.size() == 1) {
                file_use(Arg{v[ops[0]].lit, std::string(basename(v[ops[0]].text)), v[ops[0]].pos}, name, false, true);
            } else if (!ops.empty()) {
                std::vector<size_t> srcs(ops.begin(), ops.end() - 1);
                if (src_reads || src_writes) files(v, srcs, 0, name, src_reads, src_writes);
                file_use(v[ops.back()], name, false, true);
            }
            return;
        }
        if (one_of(name, {"touch", "mkdir", "rm", "rmdir", "unlink", "shred", "truncate"})) {
            auto ops = operands(v, a0, e, {name == "touch" ? "drt" : name == "mkdir" ? "m" : name == "shred" ? "ns" : name == "truncate" ? "sr" : "",
                                            {"--date", "--reference", "--mode", "--size", "--iterations"}}, false, &opts);
            files(v, ops, 0, name, false, true);
            if (name == "touch")
                if (auto r = opt_value(opts, "-r")) file_use(*r, name, true, false);
            return;
        }
        if (one_of(name, {"chmod", "chown", "chgrp"})) {
            auto ops = operands(v, a0, e, {"", {}}, false, &opts);
            bool ref = false;
            for (const Opt& o : opts) ref = ref || o.name == "--reference";
            files(v, ops, ref ? 0 : 1, name, false, true);
            return;
        }
        if (name == "sed") {
            auto ops = operands(v, a0, e, {"efl", {"--expression", "--file", "--line-length"}}, false, &opts);
            bool in_place = false, script_opt = false;
            for (const Opt& o : opts) {
                in_place = in_place || o.name == "-i" || o.name == "--in-place";
                script_opt = script_opt || o.name == "-e" || o.name == "-f" || o.name == "--expression" || o.name == "--file";
            }
            if (auto f = opt_value(opts, "-f")) file_use(*f, "sed -f", true, false);
            files(v, ops, script_opt ? 0 : 1, in_place ? "sed -i" : "sed", true, in_place);
            return;
        }
        if (name == "perl" || name == "ruby") {
            // perl -pi -e CODE FILE...: -i edits the files in place.
            auto ops = operands(v, a0, e, {"eEIMrx", {}}, false, &opts);
            bool in_place = has_opt(opts, "-i");
            bool inline_code = has_opt(opts, "-e") || has_opt(opts, "-E");
            if (!inline_code && !ops.empty()) {
                file_use(v[ops[0]], name, true, false);  // the script file
                return;  // its operands are the script's business
            }
            files(v, ops, 0, in_place ? std::string(name) + " -i" : std::string(name), true, in_place);
            return;
        }
        if (name == "dd") {
            for (size_t i = a0; i < e; ++i) {
                const Arg& a = v[i];
                bool of = a.text.rfind("of=", 0) == 0, inf = a.text.rfind("if=", 0) == 0;
                if (of || inf) file_use(Arg{a.lit, a.text.substr(3), a.pos}, "dd", inf, of);
            }
            return;
        }
        if (name == "sort") {
            auto ops = operands(v, a0, e, {"kotST", {"--key", "--output", "--field-separator", "--buffer-size", "--temporary-directory"}}, false, &opts);
            auto out = opt_value(opts, "-o");
            if (!out) out = opt_value(opts, "--output");
            files(v, ops, 0, name, true, false);
            if (out) file_use(*out, "sort -o", false, true);
            return;
        }
        if (name == "uniq") {
            auto ops = operands(v, a0, e, {"fsw", {"--skip-fields", "--skip-chars", "--check-chars"}});
            if (!ops.empty()) file_use(v[ops[0]], name, true, false);
            if (ops.size() > 1) file_use(v[ops[1]], name, false, true);
            return;
        }
        if (one_of(name, {"grep", "egrep", "fgrep", "rg"})) {
            auto ops = operands(v, a0, e, {"efmABCdD", {"--regexp", "--file", "--max-count", "--after-context",
                                                         "--before-context", "--context", "--include", "--exclude",
                                                         "--exclude-dir", "--label", "--color", "--type", "--glob"}},
                                false, &opts);
            bool pat_opt = has_opt(opts, "-e") || has_opt(opts, "-f") || has_opt(opts, "--regexp") || has_opt(opts, "--file");
            if (auto f = opt_value(opts, "-f")) file_use(*f, name, true, false);
            files(v, ops, pat_opt ? 0 : 1, name, true, false);
            return;
        }
        if (name == "awk" || name == "gawk" || name == "mawk") {
            auto ops = operands(v, a0, e, {"fvF", {"--file", "--assign", "--field-separator"}}, false, &opts);
            bool prog_file = has_opt(opts, "-f") || has_opt(opts, "--file");
            if (auto f = opt_value(opts, "-f")) file_use(*f, name, true, false);
            for (size_t k = prog_file ? 0 : 1; k < ops.size(); ++k) {
                const Arg& a = v[ops[k]];
                if (a.lit && a.text.find('=') != std::string::npos && a.text[0] != '=' && a.text[0] != '/') continue;
                file_use(a, name, true, false);
            }
            return;
        }
        if (name == "jq") {
            std::vector<size_t> ops;
            bool filter_file = false;
            for (size_t i = a0; i < e; ++i) {
                const std::string& t = v[i].text;
                if (v[i].lit && one_of(t, {"--arg", "--argjson", "--slurpfile", "--rawfile"})) {
                    if (t == "--slurpfile" || t == "--rawfile")
                        if (i + 2 < e) file_use(v[i + 2], name, true, false);
                    i += 2;
                } else if (v[i].lit && one_of(t, {"--indent", "--tab-size"})) {
                    ++i;
                } else if (v[i].lit && (t == "-f" || t == "--from-file")) {
                    filter_file = true;
                    if (i + 1 < e) file_use(v[++i], name, true, false);
                } else if (v[i].lit && t.size() > 1 && t[0] == '-') {
                } else {
                    ops.push_back(i);
                }
            }
            files(v, ops, filter_file ? 0 : 1, name, true, false);
            return;
        }
        if (one_of(name, {"cat", "tac", "nl", "wc", "less", "more", "od", "xxd", "hexdump", "base64", "base32",
                          "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum",
                          "sum", "strings", "rev", "fold", "expand", "unexpand", "column", "fmt", "file", "head",
                          "tail", "cut", "paste", "diff", "cmp", "comm", "join", "iconv", "split", "csplit", "shuf",
                          "tr", "readlink", "realpath", "stat", "du", "ls", "zcat", "gzip", "gunzip", "bzip2", "xz",
                          "unxz", "bunzip2", "tar", "zip", "unzip"})) {
            if (name == "tr" || name == "readlink" || name == "realpath" || name == "stat" || name == "du" ||
                name == "ls")
                return;  // no file contents read (tr reads stdin only)
            OptSpec spec{"", {}};
            if (name == "head" || name == "tail") spec = {"nc", {"--lines", "--bytes"}};
            else if (name == "cut") spec = {"dfcb", {"--delimiter", "--fields", "--characters", "--bytes"}};
            else if (name == "paste" || name == "column") spec = {"dst", {"--delimiters", "--separator"}};
            else if (name == "fold" || name == "fmt") spec = {"w", {"--width"}};
            else if (name == "od" || name == "xxd" || name == "hexdump") spec = {"AjNtlcsnfe", {}};
            else if (name == "shuf") spec = {"nio", {"--head-count", "--input-range", "--output"}};
            else if (name == "split" || name == "csplit") spec = {"lbnaf", {"--lines", "--bytes", "--number", "--prefix"}};
            else if (name == "iconv") spec = {"fto", {"--from-code", "--to-code", "--output"}};
            else if (name == "tar") spec = {"fCT", {"--file", "--directory", "--files-from"}};
            else if (name == "diff") spec = {"UCLIx", {"--unified", "--context", "--label", "--exclude"}};
            auto ops = operands(v, a0, e, spec, false, &opts);
            if (one_of(name, {"gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz"})) {
                // They replace FILE by FILE.gz (or back) unless writing to stdout.
                bool to_stdout = has_opt(opts, "-c") || has_opt(opts, "--stdout") || has_opt(opts, "-t") || has_opt(opts, "-l");
                files(v, ops, 0, name, true, !to_stdout);
                return;
            }
            if (name == "tar") {
                std::string mode = v.size() > a0 && a0 < e && v[a0].lit && !v[a0].text.empty() && v[a0].text[0] != '-' ? v[a0].text : "";
                bool create = has_opt(opts, "-c") || has_opt(opts, "-r") || has_opt(opts, "-u") || mode.find_first_of("cru") != std::string::npos;
                bool extract = has_opt(opts, "-x") || mode.find('x') != std::string::npos;
                std::optional<Arg> f = opt_value(opts, "-f");
                if (!f) f = opt_value(opts, "--file");
                if (!f && !mode.empty() && mode.find('f') != std::string::npos && !ops.empty() && ops.size() > 1) f = v[ops[1]];
                if (f && f->text != "-") file_use(*f, "tar", !create, create);
                if (extract) {
                    auto dir = opt_value(opts, "-C");
                    file_use(dir ? *dir : Arg{false, "(archive members)", pos}, "tar -x", false, true);
                }
                return;
            }
            if (name == "zip") {
                if (!ops.empty()) file_use(v[ops[0]], name, false, true);
                files(v, ops, 1, name, true, false);
                return;
            }
            if (name == "unzip") {
                if (!ops.empty()) file_use(v[ops[0]], name, true, false);
                auto dir = opt_value(opts, "-d");
                file_use(dir ? *dir : Arg{false, "(archive members)", pos}, "unzip", false, true);
                return;
            }
            if (name == "split" || name == "csplit") {
                if (!ops.empty()) file_use(v[ops[0]], name, true, false);
                if (ops.size() > 1) file_use(Arg{false, v[ops[1]].text + "*", v[ops[1]].pos}, name, false, true);
                else file_use(Arg{false, "x*", pos}, name, false, true);
                return;
            }
            files(v, ops, 0, name, true, false);
            for (std::string_view o : {"-o", "--output"})
                if (auto out = opt_value(opts, o)) file_use(*out, std::string(name) + " -o", false, true);
            return;
        }
    }
};

void write_pos(std::string& o, Pos p) {
    o += "\"line\":" + std::to_string(p.line) + ",\"col\":" + std::to_string(p.col);
}

void write_str(std::string& o, std::string_view key, std::string_view s) {
    o += '"';
    o += key;
    o += "\":";
    append_json_string(o, s);
}

void write_bool(std::string& o, std::string_view key, bool b) {
    o += '"';
    o += key;
    o += "\":";
    o += b ? "true" : "false";
}

void write_strings(std::string& o, std::string_view key, const std::vector<std::string>& v) {
    o += '"';
    o += key;
    o += "\":[";
    for (size_t i = 0; i < v.size(); ++i) {
        if (i) o += ',';
        append_json_string(o, v[i]);
    }
    o += ']';
}

template <class T, class F>
void write_list(std::string& o, std::string_view key, const std::vector<T>& v, F each) {
    o += '"';
    o += key;
    o += "\":[";
    for (size_t i = 0; i < v.size(); ++i) {
        if (i) o += ',';
        o += '{';
        each(v[i]);
        o += '}';
    }
    o += ']';
}

void write_file_uses(std::string& o, std::string_view key, const std::vector<FileUse>& v) {
    write_list(o, key, v, [&](const FileUse& f) {
        write_str(o, "path", f.path);
        o += ',';
        write_pos(o, f.pos);
        o += ',';
        write_str(o, "via", f.via);
        if (f.dynamic) {
            o += ',';
            write_bool(o, "dynamic", true);
        }
    });
}

}  // namespace

Analysis analyze(const Script& script, const AnalyzeOptions& options) {
    Analysis a;
    Analyzer z(options, a);
    z.script(script);
    z.finish();
    return a;
}

Analysis analyze(std::string_view script, const AnalyzeOptions& options) {
    ParseResult r = parse(script, options.parse);
    if (!r.ok()) {
        Analysis a;
        a.ok = false;
        a.errors.push_back(AnalysisError{r.error->pos, r.error->message, "script"});
        return a;
    }
    return analyze(*r.script, options);
}

std::string to_json(const Analysis& a) {
    std::string o = "{";
    write_bool(o, "ok", a.ok);
    o += ',';
    write_list(o, "errors", a.errors, [&](const AnalysisError& e) {
        write_pos(o, e.pos);
        o += ',';
        write_str(o, "message", e.message);
        o += ',';
        write_str(o, "context", e.context);
    });
    o += ',';
    write_list(o, "commands", a.commands, [&](const CommandUse& c) {
        write_str(o, "name", c.name);
        o += ',';
        write_pos(o, c.pos);
        o += ',';
        write_strings(o, "args", c.args);
        if (!c.dynamic_args.empty()) {
            o += ",\"dynamic_args\":[";
            for (size_t i = 0; i < c.dynamic_args.size(); ++i) {
                if (i) o += ',';
                o += std::to_string(c.dynamic_args[i]);
            }
            o += ']';
        }
        o += ',';
        write_str(o, "kind", c.kind);
        if (c.dynamic) {
            o += ',';
            write_bool(o, "dynamic", true);
        }
        if (!c.via.empty()) {
            o += ',';
            write_str(o, "via", c.via);
        }
    });
    o += ',';
    write_strings(o, "command_names", a.command_names);
    o += ',';
    write_list(o, "functions", a.functions, [&](const FunctionDefinition& f) {
        write_str(o, "name", f.name);
        o += ',';
        write_pos(o, f.pos);
    });
    o += ',';
    write_file_uses(o, "writes", a.writes);
    o += ',';
    write_file_uses(o, "reads", a.reads);
    o += ',';
    write_file_uses(o, "sources", a.sources);
    o += ',';
    write_list(o, "network", a.network, [&](const NetworkUse& n) {
        write_str(o, "command", n.command);
        o += ',';
        write_pos(o, n.pos);
        o += ',';
        write_strings(o, "urls", n.urls);
    });
    o += ',';
    write_list(o, "dynamic", a.dynamic, [&](const DynamicUse& d) {
        write_str(o, "reason", d.reason);
        o += ',';
        write_str(o, "text", d.text);
        o += ',';
        write_pos(o, d.pos);
    });
    o += ',';
    write_bool(o, "uses_network", a.uses_network);
    o += ',';
    write_bool(o, "uses_eval", a.uses_eval);
    o += ',';
    write_bool(o, "uses_source", a.uses_source);
    o += ',';
    write_bool(o, "has_dynamic", !a.dynamic.empty());
    o += ',';
    write_bool(o, "truncated", a.truncated);
    o += '}';
    return o;
}

}  // namespace bashkit::syntax
