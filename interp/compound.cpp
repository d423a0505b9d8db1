// Compound commands: and-or lists, if, while/until, for, arithmetic for, select, case, (( )), [[ ]], function
// definitions and coproc. Lists, statements and simple commands are in exec.cpp.
#include "interp/exec.hpp"
#include "interp/builtins/builtin.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>

#include "interp/fields.hpp"
#include "interp/pattern.hpp"
#include "interp/quote.hpp"
#include "interp/stream_charge.hpp"
#include "interp/syntax/printer.hpp"

namespace bashkit::interp {

Flow Exec::exec_andor(const sx::AndOr* a) {
    uint32_t n = a->items.size;
    for (uint32_t i = 0; i < n; ++i) {
        if (i > 0) {
            bool ok = state_.status == 0;
            sx::AndOrOp op = a->ops[i - 1];
            if ((op == sx::AndOrOp::And && !ok) || (op == sx::AndOrOp::Or && ok)) continue;
        }
        bool last = i + 1 == n;
        if (!last) ++errexit_suppressed_;
        Flow f = exec_command(a->items[i]);
        if (!last) --errexit_suppressed_;
        if (f != Flow::Normal) return f;
    }
    return Flow::Normal;
}

Flow Exec::exec_if(const sx::If* c) {
    for (const sx::IfClause& cl : c->clauses) {
        ++errexit_suppressed_;
        Flow f = exec_list(cl.cond);
        --errexit_suppressed_;
        if (f != Flow::Normal) return f;
        if (state_.status == 0) return exec_list(cl.body);
    }
    if (c->has_else) return exec_list(c->else_body);
    state_.status = 0;
    return Flow::Normal;
}

namespace {
// The bookkeeping every loop shares (while/until, for, for ((;;)), select): its depth for break/continue,
// the cancel check and the iteration limit before each round, and what a break or continue from the body
// means for this loop.
class LoopRun {
public:
    explicit LoopRun(Exec& e) : e_(e) { ++e_.loop_depth_; }
    ~LoopRun() { --e_.loop_depth_; }
    LoopRun(const LoopRun&) = delete;
    LoopRun& operator=(const LoopRun&) = delete;

    // Before each round: false when the loop must stop (cancelled, or max_loop_iterations reached when
    // `limited`), with `result` set.
    bool next_round(bool limited = true) {
        if (e_.check_cancel()) {
            result = e_.cancelled_flow();
            return false;
        }
        const uint64_t max = e_.session_.limits.max_loop_iterations;
        if (limited && max && ++iterations_ > max) {
            e_.error("loop: maximum iterations exceeded (" + std::to_string(max) + ")");
            e_.exit_status_ = 1;
            result = Flow::Exit;
            return false;
        }
        return true;
    }

    enum class Step : uint8_t { Go, NextRound, Stop };
    // After the body (or the condition) returned f: Go on; NextRound (a `continue` for this loop); or Stop (a
    // `break` for this loop, or a flow that leaves it: an outer break/continue, return, exit, with `result`
    // set).
    Step after(Flow f) {
        if (f == Flow::Normal) return Step::Go;
        if (f == Flow::Break || f == Flow::Continue) {
            if (--e_.levels_ > 0) {
                result = f;
                return Step::Stop;
            }
            return f == Flow::Break ? Step::Stop : Step::NextRound;
        }
        result = f;
        return Step::Stop;
    }

    Flow result = Flow::Normal;

private:
    Exec& e_;
    uint64_t iterations_ = 0;
};
using Step = LoopRun::Step;
}  // namespace

Flow Exec::exec_while(const sx::While* c) {
    LoopRun loop(*this);
    int body_status = 0;
    while (loop.next_round()) {
        ++errexit_suppressed_;
        Flow f = exec_list(c->cond);
        --errexit_suppressed_;
        // break inside the condition acts on this loop
        Step s = loop.after(f);
        if (s == Step::Stop) break;
        if (s == Step::NextRound) continue;
        bool ok = state_.status == 0;
        if (ok == c->until) break;
        f = exec_list(c->body);
        body_status = state_.status;
        if (loop.after(f) == Step::Stop) break;
    }
    if (loop.result == Flow::Normal) state_.status = body_status;
    return loop.result;
}

namespace {
// The head of a `for NAME` or `select NAME` loop as written (the DEBUG trap's $BASH_COMMAND).
std::string loop_head(std::string_view keyword, std::string_view var, bool has_in, sx::List<sx::Word*> words) {
    std::string head = std::string(keyword) + " " + std::string(var);
    if (has_in) {
        head += " in";
        for (const sx::Word* w : words) head += " " + sx::print(*w);
    }
    return head;
}
}  // namespace

// The words a `for NAME` or `select NAME` loop runs over: its list expanded, or "$@" without `in`.
Outcome Exec::loop_words(bool has_in, sx::List<sx::Word*> words, std::vector<std::string>& out) {
    if (!has_in) {
        out = params();
        return Outcome::Ok;
    }
    return expand_words(words, out);
}

// How set -x traces a round of a `for NAME` or `select NAME` loop: the head with the expanded words.
void Exec::xtrace_loop(std::string_view keyword, std::string_view var, const std::vector<std::string>& items) {
    std::string t = std::string(keyword) + " " + std::string(var) + " in";
    for (const auto& it : items) t += " " + xtrace_quote(it);
    xtrace_line(t);
}

Flow Exec::exec_for(const sx::For* c) {
    std::vector<std::string> items;
    if (Outcome r = loop_words(c->has_in, c->items, items); r != Outcome::Ok)
        return r == Outcome::Fatal ? Flow::Exit : Flow::Normal;
    if (!valid_name(c->var)) {
        error("`" + std::string(c->var) + "': not a valid identifier");
        state_.status = 1;
        return Flow::Normal;
    }
    LoopRun loop(*this);
    // The body's first $? is the status before the loop, or of the list's last command substitution, as in
    // bash (`false; for w in a; do echo $?; done` prints 1); an empty list leaves 0.
    int body_status = 0;
    const uint32_t for_line = c->pos.line + line_offset_;
    for (const std::string& item : items) {
        if (!loop.next_round()) break;
        if (debug_armed()) [[unlikely]] {  // before each round, on the line of `for`
            lineno_ = for_line;
            std::string head = loop_head("for", c->var, c->has_in, c->items);
            if (debug_trap(c, &head) == Flow::Exit) return Flow::Exit;
        }
        if (state_.opts[OptXtrace]) xtrace_loop("for", c->var, items);
        assign_arith_error_ = false;
        if (!assign(c->var, item)) {
            if (assign_fatal()) return Flow::Exit;
            body_status = 1;
            break;
        }
        Flow f = exec_list(c->body);
        body_status = state_.status;
        if (loop.after(f) == Step::Stop) break;
    }
    if (loop.result == Flow::Normal) state_.status = body_status;
    return loop.result;
}

// The text of an arithmetic command as bash traces it: expanded (parameters and arithmetic; a command
// substitution is shown as written, so that tracing never runs it twice).
std::string Exec::arith_trace_text(const sx::Word* raw) {
    if (!raw) return {};
    bool plain = true;
    for (const sx::Node* p : raw->parts)
        if (p->kind != sx::NodeKind::Lit && p->kind != sx::NodeKind::ParamExp) plain = false;
    std::string text;
    if (!plain) return sx::print(*raw);
    int saved = state_.status;
    if (expand_word(raw, text, false) != Outcome::Ok) text = sx::print(*raw);
    state_.status = saved;
    return text;
}

Flow Exec::arith_part_hooks(const sx::ArithFor* c, const sx::ArithPart& p, bool empty) {
    std::string text = empty || !p.raw ? std::string("1") : sx::print(*p.raw);
    size_t lead = text.find_first_not_of(" \t\n");
    text.erase(0, lead == std::string::npos ? text.size() : lead);
    if (debug_armed()) {
        std::string head = "((" + text + "))";
        if (debug_trap(c, &head) == Flow::Exit) return Flow::Exit;
    }
    if (state_.opts[OptXtrace]) {
        std::string shown = empty ? std::string("1") : arith_trace_text(p.raw);
        lead = shown.find_first_not_of(" \t\n");
        shown.erase(0, lead == std::string::npos ? shown.size() : lead);
        xtrace_line("(( " + shown + " ))");
    }
    return Flow::Normal;
}

Flow Exec::exec_arith_for(const sx::ArithFor* c) {
    int64_t v = 0;
    bool trap_exit = false;  // the DEBUG trap exited the shell
    auto eval_part = [&](const sx::ArithPart& p, bool empty_true) -> Outcome {
        bool empty = !p.expr && (!p.raw || p.raw->parts.empty());
        if (!empty && !p.expr && p.raw) {
            empty = true;
            for (const sx::Node* n : p.raw->parts)
                if (n->kind != sx::NodeKind::Lit || n->as<sx::Lit>()->text.find_first_not_of(" \t\n") != std::string_view::npos)
                    empty = false;
        }
        // bash runs the DEBUG trap and traces each part, an empty one as `(( 1 ))`.
        if ((state_.opts[OptXtrace] || debug_armed()) && arith_part_hooks(c, p, empty) == Flow::Exit) {
            trap_exit = true;
            return Outcome::Fatal;
        }
        if (empty) {
            v = empty_true ? 1 : 0;
            return Outcome::Ok;
        }
        return arith(p.expr, p.raw, p.exact, v, false);
    };
    // $LINENO in the condition and the step is the line of `for` (bash), not of the body's last command.
    const uint32_t for_line = c->pos.line + line_offset_;
    if (Outcome r = eval_part(c->init, false); r != Outcome::Ok) {
        if (r == Outcome::Fatal && trap_exit) return Flow::Exit;
        state_.status = 1;
        return Flow::Normal;
    }
    LoopRun loop(*this);
    int body_status = 0;
    while (loop.next_round()) {
        lineno_ = for_line;
        if (Outcome r = eval_part(c->cond, true); r != Outcome::Ok) {
            if (r == Outcome::Fatal && trap_exit) return Flow::Exit;
            body_status = 1;
            break;
        }
        if (v == 0) break;
        Flow f = exec_list(c->body);
        body_status = state_.status;
        if (loop.after(f) == Step::Stop) break;  // a continue for this loop still runs the step
        lineno_ = for_line;
        if (Outcome r = eval_part(c->step, false); r != Outcome::Ok) {
            if (r == Outcome::Fatal && trap_exit) return Flow::Exit;
            body_status = 1;
            break;
        }
    }
    if (loop.result == Flow::Normal) state_.status = body_status;
    return loop.result;
}

Flow Exec::exec_select(const sx::Select* c) {
    std::vector<std::string> items;
    if (Outcome r = loop_words(c->has_in, c->items, items); r != Outcome::Ok)
        return r == Outcome::Fatal ? Flow::Exit : Flow::Normal;
    if (items.empty()) {
        state_.status = 0;
        return Flow::Normal;
    }
    LoopRun loop(*this);
    const uint32_t select_line = c->pos.line + line_offset_;
    while (loop.next_round(false)) {  // no iteration limit: every round waits for a line of input
        if (debug_armed() || state_.opts[OptXtrace]) [[unlikely]] {
            std::string head = loop_head("select", c->var, c->has_in, c->items);
            lineno_ = select_line;
            if (debug_armed() && debug_trap(c, &head) == Flow::Exit) return Flow::Exit;
            if (state_.opts[OptXtrace]) xtrace_loop("select", c->var, items);
        }
        std::string menu;
        size_t width = std::to_string(items.size()).size();
        for (size_t i = 0; i < items.size(); ++i) {
            std::string num = std::to_string(i + 1);
            menu += std::string(width - num.size(), ' ') + num + ") " + items[i] + "\n";
        }
        const std::string* ps3 = get_scalar("PS3");
        menu += ps3 ? *ps3 : "#? ";
        write_err(menu);
        std::string line;
        IoResult rr = in().read_until('\n', line);
        if (line.empty() || !rr.ok()) {
            write_err("\n");
            state_.status = 1;
            break;
        }
        if (line.back() == '\n') line.pop_back();
        (void)assign("REPLY", line);
        int64_t n = 0;
        if (line.empty()) continue;
        if (parse_int(line, n) && n >= 1 && static_cast<size_t>(n) <= items.size())
            (void)assign(c->var, items[static_cast<size_t>(n - 1)]);
        else
            (void)assign(c->var, "");
        Flow f = exec_list(c->body);
        if (loop.after(f) == Step::Stop) break;
    }
    return loop.result;
}

Flow Exec::exec_case(const sx::Case* c) {
    if (debug_armed()) [[unlikely]] {
        std::string head = "case " + sx::print(*c->subject) + " in ";
        if (debug_trap(c, &head) == Flow::Exit) return Flow::Exit;
    }
    // bash traces the word as written, before its expansion.
    if (state_.opts[OptXtrace]) xtrace_line("case " + sx::print(*c->subject) + " in");
    std::string subject;
    Outcome r = expand_word(c->subject, subject);
    if (r == Outcome::Fatal) return Flow::Exit;
    if (r == Outcome::Fail) return Flow::Normal;
    PatternOptions po;
    po.nocase = state_.opts[ShNocasematch];
    po.extglob = true;
    // $? stays as it was until an arm runs (`false; case x in x) echo $?;; esac` prints 1): the case's own
    // status is its last arm's, 0 when none ran or the arm is empty.
    int status = 0;
    uint32_t n = c->items.size;
    for (uint32_t i = 0; i < n; ++i) {
        const sx::CaseItem& item = c->items[i];
        bool matched = false;
        for (const sx::Word* pw : item.patterns) {
            // An arm like `0)` or `start|stop)` matches its own text only: compared as it is.
            if (std::string_view text; !po.nocase && literal_exact(pw, text)) {
                if (text == subject) {
                    matched = true;
                    break;
                }
                continue;
            }
            std::string pat;
            r = expand_pattern(pw, pat, true);  // `~)`: the tilde expands
            if (r == Outcome::Fatal) return Flow::Exit;
            if (r == Outcome::Fail) return Flow::Normal;
            po.bytes = bytes_locale_for(pat, subject);
            if (pattern_match(pat, subject, po)) {
                matched = true;
                break;
            }
        }
        if (!matched) continue;
        while (true) {
            if (c->items[i].body.empty()) {
                status = 0;
            } else {
                Flow f = exec_list(c->items[i].body);
                if (f != Flow::Normal) return f;
                status = state_.status;
            }
            sx::CaseTerm t = c->items[i].term;
            if (t == sx::CaseTerm::FallThrough && i + 1 < n) {
                ++i;
                continue;
            }
            if (t == sx::CaseTerm::Continue) break;  // test the next patterns
            state_.status = status;
            return Flow::Normal;
        }
    }
    state_.status = status;
    return Flow::Normal;
}

Flow Exec::exec_arith_cmd(const sx::ArithCmd* c) {
    if (state_.opts[OptXtrace]) xtrace_line("(( " + arith_trace_text(c->raw) + " ))");
    int64_t v = 0;
    Outcome r = arith(c->expr, c->raw, c->exact, v, false);
    if (r == Outcome::Fatal) return Flow::Exit;
    if (r != Outcome::Ok) {
        state_.status = 1;
        return Flow::Normal;
    }
    state_.status = v != 0 ? 0 : 1;
    return Flow::Normal;
}

Flow Exec::exec_cond_cmd(const sx::CondCmd* c) {
    bool result = false;
    Outcome r = eval_cond(c->expr, result);
    if (r == Outcome::Fatal) return Flow::Exit;
    if (r == Outcome::Fail) {
        state_.status = 2;
        return Flow::Normal;
    }
    state_.status = result ? 0 : 1;
    return Flow::Normal;
}

Flow Exec::exec_funcdef(const sx::FuncDef* f) {
    std::string name(f->name);
    // bash refuses, when the definition runs, a name with an expansion or a quote.
    if (name.find_first_of("$`'\"\\") != std::string::npos) {
        error("`" + name + "': not a valid identifier");
        state_.status = 1;
        return Flow::Normal;
    }
    auto it = state_.funcs.find(name);
    if (it != state_.funcs.end() && (it->second->attrs & kAttrReadonly)) {
        error(name + ": readonly function");
        state_.status = 1;
        return Flow::Normal;
    }
    if (it == state_.funcs.end()) {
        // Charged with the variables (a definition keeps its parse tree alive: eval in a loop adds up).
        if (!variable_bytes_fit(name, function_bytes(name))) {
            state_.status = 1;
            return Flow::Normal;
        }
        state_.vars.add_bytes(static_cast<int64_t>(function_bytes(name)));
    }
    auto fn = std::make_shared<Function>();
    fn->name = name;
    fn->def = f;
    fn->owner = *owner_hold_;
    fn->source = current_source_file();
    fn->line = lineno_;
    if (it != state_.funcs.end()) {
        fn->attrs = it->second->attrs;
        state_.retire_function(std::move(it->second));  // it may be running
        it->second = std::move(fn);
    } else {
        state_.funcs.emplace(std::move(name), std::move(fn));
    }
    state_.status = 0;
    return Flow::Normal;
}

Flow Exec::exec_coproc(const sx::Coproc* c) {
    // A coprocess: the body runs as a background job connected to two pipes, NAME[0] to read its output
    // and NAME[1] to write to its input.
    std::string name = c->name.empty() ? std::string("COPROC") : std::string(c->name);
    PipeEnds to_child = make_charged_pipe(cancel_, session_.memory);
    PipeEnds from_child = make_charged_pipe(cancel_, session_.memory);
    int rfd = alloc_fd(60);
    set_fd(rfd, from_child.reader);
    int wfd = alloc_fd(60);
    set_fd(wfd, to_child.writer);
    auto state = std::make_shared<ShellState>(state_.job_copy(to_child.reader));
    state->fds[1] = from_child.writer;
    if (static_cast<size_t>(rfd) < state->fds.size()) state->fds[static_cast<size_t>(rfd)].reset();
    if (static_cast<size_t>(wfd) < state->fds.size()) state->fds[static_cast<size_t>(wfd)].reset();
    int64_t pid = start_job(state, c->body, "coproc " + name);
    if (pid < 0) {
        state_.status = 1;
        return Flow::Normal;
    }
    (void)assign_array(name, {to_dec(rfd), to_dec(wfd)}, false);
    (void)assign(name + "_PID", to_dec(pid));
    state_.status = 0;
    return Flow::Normal;
}

}  // namespace bashkit::interp
