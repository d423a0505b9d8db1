// Command execution: lists and statements, simple commands and their lookup, functions, eval/source and traps.
// Compound commands are in compound.cpp, set -x tracing in xtrace.cpp, pipelines and jobs in pipeline.cpp,
// utilities and child shells in utilities.cpp.
#include "interp/exec.hpp"
#include "interp/builtins/builtin.hpp"
#include "interp/dev_fs.hpp"

#include <pthread.h>

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

// ---------------------------------------------------------------- small helpers

std::string to_dec(int64_t v) { return std::string(DecText(v).view()); }

bool parse_int(std::string_view s, int64_t& out) {
    size_t i = 0, n = s.size();
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n')) ++i;
    while (n > i && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n')) --n;
    if (i >= n) return false;
    bool neg = false;
    if (s[i] == '-' || s[i] == '+') {
        neg = s[i] == '-';
        ++i;
    }
    if (i >= n) return false;
    uint64_t v = 0;
    for (; i < n; ++i) {
        if (s[i] < '0' || s[i] > '9') return false;
        uint64_t d = static_cast<uint64_t>(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return false;
        v = v * 10 + d;
    }
    if (!neg && v > static_cast<uint64_t>(INT64_MAX)) return false;
    if (neg && v > static_cast<uint64_t>(INT64_MAX) + 1) return false;
    out = neg ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
    return true;
}

bool valid_name(std::string_view s) {
    // ASCII letters, digits and '_' (bash's legal_identifier; no locale has other one-byte letters here): no
    // call into the locale's tables per byte, since every `$name` of a loop body asks.
    auto letter = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
    if (s.empty() || !letter(s[0])) return false;
    for (char c : s.substr(1))
        if (!letter(c) && !(c >= '0' && c <= '9')) return false;
    return true;
}

std::string line_prefix(std::string_view name, uint32_t line) {
    std::string r(name);
    r += ": line ";
    r += std::to_string(line);
    r += ": ";
    return r;
}

std::string syntax_error_report(const sx::ParseError& e, std::string_view head, std::string_view text,
                                uint32_t first_line, bool errexit) {
    std::string out(head);
    out += e.message;
    out += '\n';
    if (errexit || e.message.rfind("syntax error near", 0) != 0) return out;
    size_t start = 0;
    for (uint32_t l = first_line; l < e.pos.line && start != text.npos; ++l) {
        start = text.find('\n', start);
        if (start != text.npos) ++start;
    }
    if (start == text.npos) return out;
    size_t end = text.find('\n', start);
    out += head;
    out += '`';
    out += text.substr(start, end == text.npos ? text.npos : end - start);
    out += "'\n";
    return out;
}

// ---------------------------------------------------------------- Exec

namespace {
uintptr_t stack_limit_for_current_thread() {
    StackBounds b = current_stack_bounds();
    if (!b.low) return 0;
    size_t size = b.high - b.low;
    // Keep a margin for the deepest non-recursive work (a utility, the pattern matcher, RE2).
    size_t margin = std::max<size_t>(size / 8, 512 * 1024);
    if (margin >= size) margin = size / 2;
    return b.low + margin;
}
}  // namespace

Exec::Exec(ShellSession& session, ShellState& state, const CancelToken& cancel)
    : session_(session), state_(state), cancel_(&cancel) {
    auto sp = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
    if (session_.eval_stack_low && sp > session_.eval_stack_low && sp <= session_.eval_stack_high) {
        size_t size = session_.eval_stack_high - session_.eval_stack_low;
        stack_limit_ = session_.eval_stack_low + std::max<size_t>(size / 8, 512 * 1024);
    } else {
        stack_limit_ = stack_limit_for_current_thread();
    }
    if (state_.fds.size() < 3) state_.fds.resize(3);
    if (state_.frames.empty()) state_.frames.emplace_back();
}

Exec::Exec(Exec& parent, ShellState& state)
    : session_(parent.session_),
      state_(state),
      cancel_(parent.cancel_),
      call_depth_(parent.call_depth_),
      subshell_depth_(parent.subshell_depth_),
      eval_depth_(parent.eval_depth_),
      xtrace_level_(parent.xtrace_level_),
      lineno_(parent.lineno_),
      errexit_suppressed_(parent.errexit_suppressed_),
      in_trap_(parent.in_trap_),
      traps_running_(parent.traps_running_),
      stack_limit_(parent.stack_limit_),
      owner_hold_(parent.owner_hold_),
      source_name_(parent.source_name_) {
    cancel_hold_ = parent.cancel_hold_;
    if (state_.fds.size() < 3) state_.fds.resize(3);
    if (state_.frames.empty()) state_.frames.emplace_back();
}

Exec::Exec(Exec& parent, ShellState& state, bool new_thread) : Exec(parent, state) {
    if (new_thread) stack_limit_ = stack_limit_for_current_thread();
}

bool Exec::stack_exhausted() const {
    if (!stack_limit_) return false;
    auto sp = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
    return sp < stack_limit_;
}

// The flag is raised at the deadline by the token's timer thread (limits.hpp), so a load suffices once the
// thread watches the deadline; until then (the first millisecond of a run) poll() reads the clock at every 16th
// check, which sets the thread watching.
bool Exec::check_cancel() { return cancel_->poll(cancel_tick_); }

Flow Exec::cancelled_flow() {
    exit_status_ = session_.run_token.timed_out() || cancel_->timed_out() ? 124 : 130;
    state_.status = exit_status_;
    return Flow::Exit;
}

void Exec::error(std::string_view msg) { error_at(lineno_, msg); }

void Exec::report_error(std::string_view msg) {
    error(msg);
    if (state_.opts[OptErrexit]) report_exit_ = true;
}

void Exec::error_at(uint32_t line, std::string_view msg) {
    std::string_view name = error_name();
    std::string m = line ? line_prefix(name, line) : std::string(name) + ": ";
    m.append(msg);
    m.push_back('\n');
    write_err(m);
}

int Exec::builtin_error(std::string_view name, std::string_view msg, int status) {
    std::string m(name);
    m += ": ";
    m += msg;
    error(m);
    return status;
}

// A word as bash's xtrace shows it: '' for empty, '...' when it holds a shell metacharacter, $'...' when it
// holds an unprintable character, else as it is (in that order: a tab or a newline is single-quoted).
std::string xtrace_quote(std::string_view s) {
    if (s.empty()) return "''";
    if (contains_shell_metas(s)) return single_quote(s);
    if (needs_ansi_c_quoting(s)) return ansi_c_quote(s);
    return std::string(s);
}

// ---------------------------------------------------------------- lists and statements

Flow Exec::run_script(const sx::Script& script, const std::shared_ptr<const sx::ParseResult>& owner) {
    OwnerScope scope(*this, owner);
    return exec_list(script.body);
}

Flow Exec::exec_list(sx::List<sx::Stmt*> stmts) {
    for (const sx::Stmt* s : stmts) {
        Flow f = exec_stmt(s);
        if (f != Flow::Normal) return f;
    }
    return Flow::Normal;
}

Flow Exec::exec_stmt(const sx::Stmt* stmt) {
    if (stmt->background) return exec_background(stmt);
    // An exception from the statement (the memory budget, bad_alloc, a throwing command) fails it alone.
    const UnwindMark mark = unwind_mark();
    Flow f;
    try {
        f = exec_command(stmt->cmd);
    } catch (...) {
        f = command_threw(stmt->cmd, mark);  // contain.cpp
    }
    if (session_.pending_signals.load(std::memory_order_relaxed) != 0 && f == Flow::Normal) [[unlikely]] {
        int saved = state_.status;
        f = run_pending_signals();
        if (f == Flow::Normal) state_.status = saved;
    }
    switch (stmt->cmd->kind) {
        case sx::NodeKind::Simple:
        case sx::NodeKind::Subshell:
        case sx::NodeKind::ArithCmd:
        case sx::NodeKind::CondCmd:
            if (state_.pipestatus.size() != 1) state_.pipestatus.resize(1);
            state_.pipestatus[0] = state_.status;
            break;
        default:
            break;
    }
    return f;
}

Flow Exec::after_command(const sx::Command* cmd) {
    if (report_exit_) {
        report_exit_ = false;
        exit_status_ = state_.status ? state_.status : 1;
        return Flow::Exit;
    }
    if (state_.status == 0 || errexit_suppressed_ > 0 || cmd == inverted_) return Flow::Normal;
    // Functions see the ERR trap only with set -E (call_function sets it aside for the call).
    if (!(traps_running_ & kRunningErr) && !state_.traps.empty() && state_.traps.count(kTrapErr)) {
        // The trap sees PIPESTATUS of a simple command or subshell that failed (not yet of (( )) or [[ ]],
        // as in bash; exec_stmt sets it for them afterwards).
        if (cmd && (cmd->kind == sx::NodeKind::Simple || cmd->kind == sx::NodeKind::Subshell))
            state_.pipestatus.assign(1, state_.status);
        if (run_trap(kTrapErr) == Flow::Exit) return Flow::Exit;
    }
    if (state_.opts[OptErrexit]) {
        exit_status_ = state_.status;
        return Flow::Exit;
    }
    return Flow::Normal;
}

Flow Exec::exec_command(const sx::Command* cmd) {
    if (check_cancel()) return cancelled_flow();
    // A command run by a builtin (eval, source, a trap) is not the builtin's own assignment.
    BuiltinNameScope builtin_name(*this);
    if (state_.opts[OptNoexec]) return Flow::Normal;  // set -n: commands are read, not run
    if (stack_exhausted()) {
        error("maximum nesting depth exceeded");
        exit_status_ = state_.status = 1;
        return Flow::Exit;
    }
    if (cmd->pos.line) lineno_ = cmd->pos.line + line_offset_;
    using K = sx::NodeKind;
    // bash runs the DEBUG trap before a simple command, [[ ]] and (( )) (before their expansions); loops and
    // case run it for their heads themselves.
    if ((cmd->kind == K::Simple || cmd->kind == K::ArithCmd || cmd->kind == K::CondCmd) && debug_armed()) [[unlikely]] {
        if (cmd == debug_done_) {
            debug_done_ = nullptr;  // the parent of this pipeline stage ran it
        } else if (debug_trap(cmd) == Flow::Exit) {
            return Flow::Exit;
        } else if (state_.opts[ShExtdebug] && trap_status_ != 0) {
            // shopt -s extdebug: a failing DEBUG trap skips the command; status 2 in a function or a sourced
            // file returns from it, as `return 2` would.
            if (trap_status_ == 2 && (call_depth_ > 0 || in_source_)) {
                state_.status = 2;
                return Flow::Return;
            }
            return Flow::Normal;
        }
    }

    if (cmd->kind == K::Simple) {
        Flow f = exec_simple(cmd->as<sx::Simple>());
        if (f != Flow::Normal) return f;
        return after_command(cmd);
    }
    if (cmd->kind == K::Pipeline) return exec_pipeline(cmd->as<sx::Pipeline>());
    if (cmd->kind == K::AndOr) return exec_andor(cmd->as<sx::AndOr>());
    if (cmd->kind == K::FuncDef) return exec_funcdef(cmd->as<sx::FuncDef>());

    RedirGuard guard(*this);
    // Process substitutions in the redirections live as long as the command: `{ ...; } > >(tac)` closes
    // the pipe when the group ends, so the reader sees its end.
    struct ProcSubstScope {
        Exec& ex;
        size_t keep;
        ~ProcSubstScope() {
            while (ex.procsubst_fds_.size() > keep) {
                ex.set_fd(ex.procsubst_fds_.back(), nullptr);
                ex.procsubst_fds_.pop_back();
            }
        }
    } procsubst_scope{*this, procsubst_fds_.size()};
    if (!cmd->redirs.empty()) {
        Outcome r = apply_redirs(cmd->redirs, &guard);
        if (r == Outcome::Fatal) return Flow::Exit;
        if (r != Outcome::Ok) {
            state_.status = 1;
            return after_command(cmd);
        }
        // A redirection's error is on its own line (`done > f`); the command's own expansions (a `for`
        // list, a `case` word) are on the command's first line again.
        if (cmd->pos.line) lineno_ = cmd->pos.line + line_offset_;
    }
    Flow f = Flow::Normal;
    bool check = false;
    switch (cmd->kind) {
        case K::Brace:
            f = exec_list(cmd->as<sx::Brace>()->body);
            break;
        case K::Subshell: {
            if (subshell_depth_ + 1 > session_.limits.max_subshell_depth) {
                error("subshell: maximum nesting depth exceeded (" + std::to_string(session_.limits.max_subshell_depth) + ")");
                state_.status = 1;
                break;
            }
            const auto* sub = cmd->as<sx::Subshell>();
            int status = in_subshell([&](Exec& child) {
                child.subshell_depth_ = subshell_depth_ + 1;
                return child.exec_list(sub->body);
            });
            state_.status = status;
            if (cancel_->cancelled_fast()) return cancelled_flow();
            check = true;
            break;
        }
        case K::If:
            f = exec_if(cmd->as<sx::If>());
            break;
        case K::While:
            f = exec_while(cmd->as<sx::While>());
            break;
        case K::For:
            f = exec_for(cmd->as<sx::For>());
            break;
        case K::ArithFor:
            f = exec_arith_for(cmd->as<sx::ArithFor>());
            break;
        case K::Select:
            f = exec_select(cmd->as<sx::Select>());
            break;
        case K::Case:
            f = exec_case(cmd->as<sx::Case>());
            break;
        case K::ArithCmd:
            f = exec_arith_cmd(cmd->as<sx::ArithCmd>());
            check = true;
            break;
        case K::CondCmd:
            f = exec_cond_cmd(cmd->as<sx::CondCmd>());
            check = true;
            break;
        case K::Coproc:
            f = exec_coproc(cmd->as<sx::Coproc>());
            break;
        default:
            break;
    }
    if (f != Flow::Normal) return f;
    if (check) return after_command(cmd);
    return Flow::Normal;
}

Flow Exec::exec_simple(const sx::Simple* c) {
    last_cmdsubst_status_ = -1;
    if (!in_trap_) current_simple_ = c;
    std::vector<std::string> argv;
    ArgvLease lease(*this, argv, !c->words.empty());
    DeclArgs decls;
    if (!c->words.empty()) {
        argv.reserve(c->words.size);
        // Declaration utilities (declare, local, export, readonly...) take assignment arguments. Whether the
        // command is one is decided by its first field, and only asked once an assignment-like word follows.
        int decl_cmd = -1;  // unknown
        auto is_decl_cmd = [&]() {
            if (decl_cmd < 0) {
                decl_cmd = 0;
                if (!state_.funcs.count(argv[0]))
                    if (const BuiltinInfo* b = find_builtin(argv[0])) decl_cmd = b->declaration;
            }
            return decl_cmd == 1;
        };
        // Pathname expansion waits for the last word (glob_deferred), unless a word may be a declaration's
        // assignment: the command's name and options must be known as that word is reached.
        std::vector<std::pair<size_t, Field>> globs;
        bool defer_globs = true;
        for (const sx::Word* w : c->words)
            if (w->decl_assign) defer_globs = false;
        for (uint32_t i = 0; i < c->words.size; ++i) {
            const sx::Word* w = c->words[i];
            // An assignment argument that brace expansion makes several words of is several plain words,
            // which the builtin reads as assignments (`declare x={1..4}` sets x=4; `s+={1,2}` appends both).
            // Not a list: `declare -A h=([k]={p,q})` expands its elements.
            if (w->decl_assign && !argv.empty() && is_decl_cmd() &&
                (w->decl_assign->is_array || !brace_splits(w))) {
                if (decls.nodes.size() < argv.size()) {
                    decls.nodes.resize(argv.size(), nullptr);
                    decls.values.resize(argv.size());
                }
                AssignValue value;
                // `declare -A a=([k]=~)`: the option decides the type before the builtin runs.
                int assoc = -1;
                for (size_t k = 1; k < argv.size() && assoc < 0; ++k)
                    if (argv[k].size() > 1 && argv[k][0] == '-' && argv[k].find('A') != std::string::npos) assoc = 1;
                Outcome r = eval_assign_value(w->decl_assign, value, assoc);
                if (r == Outcome::Fatal) return Flow::Exit;
                if (r == Outcome::Fail) {
                    state_.status = state_.status ? state_.status : 1;
                    return Flow::Normal;
                }
                // set -x shows an array argument's value as it is expanded, before the command line.
                if (value.is_array && state_.opts[OptXtrace])
                    xtrace_line(xtrace_assign_text(w->decl_assign, value, assoc, true));
                argv.emplace_back(w->decl_assign->name);
                decls.nodes.push_back(w->decl_assign);
                decls.values.push_back(std::move(value));
                continue;
            }
            Outcome r;
            if (std::string_view text; literal_as_is(w, text)) {
                argv.emplace_back(text);
                r = Outcome::Ok;
            } else {
                if (defer_globs) deferred_globs_ = &globs;
                r = expand_word_fields(w, argv);
                deferred_globs_ = nullptr;
            }
            if (r == Outcome::Fatal) return Flow::Exit;
            if (r == Outcome::Fail) {
                state_.status = state_.status ? state_.status : 1;
                return Flow::Normal;
            }
        }
        Outcome r = globs.empty() ? Outcome::Ok : glob_deferred(globs, argv);
        if (r == Outcome::Fatal) return Flow::Exit;
        if (r == Outcome::Fail) {
            state_.status = state_.status ? state_.status : 1;
            return Flow::Normal;
        }
        if (!decls.nodes.empty() && decls.nodes.size() < argv.size()) decls.nodes.resize(argv.size(), nullptr);
    }
    // The words are held for as long as the command runs (a function's frame keeps them as $@):
    // `f() { f "$@" "$@"; }` doubles them at each call. Large argument lists are charged to the budget.
    // With them: the values of a declaration's assignment arguments, and the copy of the last word that $_
    // keeps.
    MemoryCharge argv_charge;
    size_t extra = 0;
    if (!argv.empty() && !decls.node(argv.size() - 1)) extra = argv.back().size();
    for (const AssignValue& v : decls.values) extra += v.scalar.capacity();
    bool big_words = argv.size() > 8 || extra >= 16384;
    if (!big_words && argv.size() > 1) {
        size_t bytes = 0;
        for (const std::string& w : argv) bytes += w.size();
        big_words = bytes >= 16384;
    }
    if (big_words && !charge_words(argv, extra, argv_charge)) return Flow::Normal;

    if (argv.empty()) {
        // Assignments and redirections only.
        RedirGuard guard(*this);
        // Words that expanded to nothing (`$(exit 42)`) leave the status of their last substitution.
        int cmdsub_status = last_cmdsubst_status_;
        // set -x traces each assignment once its value is expanded, before it is made (assign_node).
        struct TraceAssigns {
            bool& flag;
            bool saved;
            ~TraceAssigns() { flag = saved; }
        } trace_assigns{xtrace_assign_, xtrace_assign_};
        xtrace_assign_ = state_.opts[OptXtrace];
        for (const sx::Assign* a : c->assigns) {
            Outcome r = do_assign(a);
            if (r == Outcome::Fail) {
                // An assignment error in a plain assignment statement discards the rest of the line.
                exit_status_ = state_.status = 1;
                discard_line_ = true;
            }
            if (r != Outcome::Ok) return Flow::Exit;
            if (last_cmdsubst_status_ >= 0) cmdsub_status = last_cmdsubst_status_;
        }
        if (!c->redirs.empty()) {
            Outcome r = apply_redirs(c->redirs, &guard);
            if (r == Outcome::Fatal) return Flow::Exit;
            if (r != Outcome::Ok) {
                state_.status = 1;
                return Flow::Normal;
            }
        }
        state_.status = cmdsub_status >= 0 ? cmdsub_status : 0;
        state_.last_arg.clear();  // a command without words leaves $_ empty
        return Flow::Normal;
    }

    if (state_.opts[OptXtrace]) xtrace_simple(c, argv, decls);

    // $_ is the command's last word once the command is done, as in bash: a function's body still sees the
    // one before the call (a copy of the last word is charged with the words, charge_words).
    // The command leaves its last word in place (call_function copies it to the parameters rather than
    // moving it): assigned here, it reuses the capacity of the one before.
    const size_t last = argv.size() - 1;
    size_t procsubs = procsubst_fds_.size();
    Flow f = run_argv(argv, c, false, false, decls.nodes.empty() ? nullptr : &decls);
    if (const sx::Assign* a = decls.node(last)) state_.last_arg = decl_word_text(*a, decls.values[last]);
    else state_.last_arg = argv[last];
    // Process substitutions live as long as the command that uses them.
    while (procsubst_fds_.size() > procsubs) {
        set_fd(procsubst_fds_.back(), nullptr);
        procsubst_fds_.pop_back();
    }
    return f;
}

namespace {
// `A+=x cmd`: the temporary A starts from the value it has outside the command.
// `B=(x y) cmd`: bash binds B to the text of the list, "(x y)" (its words expanded and joined by spaces,
// `[k]=v` kept as written), not to an array.
Outcome temp_assign(Exec& ex, const sx::Assign* a, uint32_t scope) {
    if (!a->is_array || a->index) return ex.do_assign(a, scope, kAttrExport);
    std::string text = "(";
    for (const sx::ArrayElem& el : a->elems) {
        if (text.size() > 1) text += ' ';
        std::string part;
        if (el.key) {
            Outcome r = ex.expand_word(el.key, part, false);
            if (r != Outcome::Ok) return r;
            text += "[" + part + (el.append ? "]+=" : "]=");
            part.clear();
        }
        Outcome r = el.value ? ex.expand_word(el.value, part, false) : Outcome::Ok;
        if (r != Outcome::Ok) return r;
        text += part;
    }
    text += ')';
    Exec::AssignValue scalar;
    scalar.scalar = std::move(text);
    return ex.do_assign(a, scope, kAttrExport, &scalar);
}

void temp_append_base(Exec& ex, const sx::Assign* a, uint32_t scope) {
    if (!a->append || a->is_array || a->index) return;
    const std::string* outer = ex.get_scalar(a->name);
    if (!outer) return;
    std::string base = *outer;
    bool created = false;
    Var& v = ex.state_.vars.declare_at(a->name, scope, &created);
    if (!created) return;
    v.set_str(std::move(base));
    v.set = true;
}

// `a[0]=x cmd`: an element cannot be a temporary; bash reports the word (its value is not expanded) and
// runs the command without it.
bool temp_elem_refused(Exec& ex, const sx::Assign* a) {
    if (!a->index) return false;
    ex.error("`" + std::string(a->name) + "[" + sx::print(*a->index) + "]': not a valid identifier");
    return true;
}
}  // namespace

std::string Exec::decl_word_text(const sx::Assign& a, const AssignValue& value) {
    std::string text(a.name);
    if (value.is_array) return text;
    size_t n = text.size() + (value.has_index ? value.index.size() + 2 : 0) + 2 + value.scalar.size();
    // Made after the command, beside the value it copies: the name alone when that copy does not fit.
    if (n >= kBudgetCheckFloor && !session_.memory.fits(n)) return text;
    text.reserve(n);
    if (value.has_index) text.append("[").append(value.index).append("]");
    text.append(a.append ? "+=" : "=").append(value.scalar);
    return text;
}

Flow Exec::run_argv(std::vector<std::string>& argv, const sx::Simple* origin, bool skip_functions,
                    bool only_builtins, const DeclArgs* decls) {
    const std::string& name = argv[0];
    sx::List<sx::Assign*> assigns;
    sx::List<sx::Redirect*> redirs;
    if (origin) {
        assigns = origin->assigns;
        redirs = origin->redirs;
    }
    const Function* fn = nullptr;  // state_.funcs holds it for the call (see call_function)
    const BuiltinInfo* bi = nullptr;
    const RegisteredCommand* rc = nullptr;
    if (!skip_functions && !only_builtins) {
        auto it = state_.funcs.find(name);
        if (it != state_.funcs.end()) fn = it->second.get();
    }
    if (!fn && !only_builtins) rc = session_.find_custom(name);
    if (!fn && !rc) bi = find_builtin(name);
    if (!fn && !bi && !rc && !only_builtins) rc = session_.registry.find(name);
    // `/usr/bin/env`, `/bin/sort`: where `which` and `command -v` say the utilities are.
    std::string vname;
    if (!fn && !bi && !rc && !only_builtins) {
        vname = virtual_bin_name(name);
        if (!vname.empty()) rc = session_.find_utility(vname);
        if (!vname.empty() && !rc) bi = find_builtin(vname);  // /bin/echo: the builtin coreutils also ships
    }

    // Temporary assignments live in a scope of their own around the command, made one after the other
    // (`A=1 B=$A cmd` gives B=1). Popped on every way out, an exception included.
    struct TempScope {
        Exec& e;
        uint32_t scope = 0;
        ~TempScope() {
            if (!scope) return;
            e.state_.vars.pop_scope(scope);
            --e.state_.scope;
        }
    } temp{*this};
    if (fn || bi) {
        if (!assigns.empty()) {
            temp.scope = ++state_.scope;
            for (const sx::Assign* a : assigns) {
                if (temp_elem_refused(*this, a)) continue;
                temp_append_base(*this, a, temp.scope);
                Outcome r = temp_assign(*this, a, temp.scope);
                if (r == Outcome::Fatal) return Flow::Exit;
            }
        }
        RedirGuard guard(*this);
        Flow f = Flow::Normal;
        Outcome r = redirs.empty() ? Outcome::Ok : apply_redirs(redirs, &guard);
        if (r == Outcome::Fatal) {
            f = Flow::Exit;
        } else if (r != Outcome::Ok) {
            state_.status = 1;
        } else if (fn) {
            f = call_function(*fn, argv);
        } else {
            f = run_builtin(*bi, argv, decls);
            if (bi->fn == &builtin_exec && argv.size() == 1) guard.keep();
        }
        return f;
    }

    // A utility from the registry, or a script found through PATH: the temporary assignments are exported
    // to it.
    if (!assigns.empty()) {
        temp.scope = ++state_.scope;
        for (const sx::Assign* a : assigns) {
            if (temp_elem_refused(*this, a)) continue;
            const Var* cur = lookup(a->name);
            if (cur && cur->readonly()) {
                std::string v;
                if (expand_assign_value(a->value, v) == Outcome::Fatal) return Flow::Exit;
                report_error(std::string(a->name) + ": readonly variable");
                continue;
            }
            temp_append_base(*this, a, temp.scope);
            Outcome r = temp_assign(*this, a, temp.scope);
            if (r == Outcome::Fatal) return Flow::Exit;
        }
    }
    RedirGuard guard(*this);
    if (!redirs.empty()) {
        Outcome r = apply_redirs(redirs, &guard);
        if (r == Outcome::Fatal && !only_builtins && !cancel_->cancelled_fast()) {
            // bash expands the redirections of a command it runs as a process in the child it forked for
            // it: an expansion error that ends a shell (set -u, ${x:?}) ends only that child, and its
            // status is the command's (`set -u; cat <<< "$u"; echo $?` prints 127 with -c).
            state_.status = exit_status_;
            exit_status_ = 0;
            return Flow::Normal;
        }
        if (r == Outcome::Fatal) return Flow::Exit;
        if (r != Outcome::Ok) {
            state_.status = 1;
            return Flow::Normal;
        }
    }
    if (only_builtins) {
        error(name + ": not a shell builtin");
        state_.status = 1;
        return Flow::Normal;
    }
    Environment env = build_env();
    if (!rc && (name == "bash" || name == "sh" || vname == "bash" || vname == "sh")) {
        // A child interpreter, unless the sandbox registered its own.
        state_.status = bash_command(argv, env);
        if (cancel_->cancelled_fast()) return cancelled_flow();
        return Flow::Normal;
    }
    if (rc) {
        state_.status = run_registered(*rc, argv, env);
        if (cancel_->cancelled_fast()) return cancelled_flow();
        return Flow::Normal;
    }
    return exec_external(argv, env);
}

// ---------------------------------------------------------------- functions

Flow Exec::call_function(const Function& function, std::vector<std::string>& argv) {
    if (call_depth_ >= session_.limits.max_call_depth) {
        error(function.name + ": maximum function nesting level exceeded (" + std::to_string(session_.limits.max_call_depth) + ")");
        exit_status_ = state_.status = 1;
        return Flow::Exit;
    }
    // state_.funcs owns the function, or state_.retired_funcs once it is unset or redefined during the call.
    const Function* fn = &function;
    // The last word is copied, not moved: the caller sets $_ from it once the call is done.
    std::vector<std::string> params;
    if (argv.size() > 1) {
        params.reserve(argv.size() - 1);
        params.insert(params.end(), std::make_move_iterator(argv.begin() + 1), std::make_move_iterator(argv.end() - 1));
        params.push_back(argv.back());
    }
    CallFrame& frame = state_.frames.emplace_back();  // the last that may throw: nothing to undo before here
    frame.params = std::move(params);
    frame.fn = fn;
    frame.call_line = lineno_;
    frame.scope = ++state_.scope;
    ++call_depth_;
    uint32_t saved_loop = loop_depth_;
    loop_depth_ = 0;
    OwnerScope owner_scope(*this, fn->owner);  // fn keeps its tree alive
    uint32_t saved_line = lineno_;
    auto leave = [&] {
        loop_depth_ = saved_loop;
        --call_depth_;
    };
    auto pop_frame = [&] {
        state_.vars.pop_scope(state_.frames.back().scope);
        state_.frames.pop_back();
        --state_.scope;
        lineno_ = saved_line;
        if (state_.frames.size() == 1 && !state_.retired_funcs.empty()) [[unlikely]]
            state_.retired_funcs.clear();  // no function runs any more
    };

    // A function sees the DEBUG and RETURN traps only when traced (set -T, declare -ft), the ERR trap only
    // with set -E: bash sets the others aside for the call, and puts each back unless the function set its own.
    struct Aside {
        int which;
        Trap trap;
    };
    std::vector<Aside> aside;
    bool traced = false;
    if (!state_.traps.empty()) [[unlikely]] {
        traced = state_.opts[OptFunctrace] || (fn->attrs & kAttrTrace);
        auto set_aside = [&](int which) {
            auto it = state_.traps.find(which);
            if (it == state_.traps.end()) return;
            aside.push_back({which, std::move(it->second)});
            state_.traps.erase(it);
        };
        if (!traced) {
            set_aside(kTrapDebug);
            set_aside(kTrapReturn);
        }
        if (!state_.opts[OptErrtrace]) set_aside(kTrapErr);
    }
    auto put_back = [&] {
        for (Aside& a : aside)
            if (!state_.traps.count(a.which)) state_.traps.emplace(a.which, std::move(a.trap));
    };

    Flow f = Flow::Normal;
    try {
        // A traced function runs the DEBUG trap once more as it starts, on the line of its definition.
        if (traced && debug_armed()) {
            lineno_ = fn->def->pos.line;
            f = debug_trap(current_simple_);
        }
        if (f == Flow::Normal) f = exec_command(fn->def->body);
    } catch (...) {
        // Undone on the way out of an exception too: no stale FUNCNAME frame or local scope remains.
        leave();
        pop_frame();
        put_back();
        throw;
    }

    leave();
    const bool returned = f == Flow::Return;
    if (f == Flow::Return) f = Flow::Normal;
    if (f == Flow::Break || f == Flow::Continue) {
        levels_ = 0;
        f = Flow::Normal;
    }
    if (f == Flow::Normal && !state_.traps.empty()) f = run_return_trap(returned);
    pop_frame();
    put_back();
    return f;
}

// ---------------------------------------------------------------- eval / source

Flow Exec::run_source(std::string_view text, std::string_view name, bool is_eval, std::string_view dash_c_name,
                      uint32_t subst_line) {
    if (eval_depth_ + 1 > session_.limits.max_eval_depth) {
        error("maximum eval/source nesting depth exceeded (" + std::to_string(session_.limits.max_eval_depth) + ")");
        state_.status = 1;
        return Flow::Normal;
    }
    sx::ParseOptions po;
    po.extglob = true;
    // One top-level command line at a time, as bash: the lines before a syntax error run.
    sx::ScriptReader reader(std::make_shared<const std::string>(text), po);
    ++eval_depth_;
    uint32_t base_line = subst_line ? subst_line : lineno_;
    // Line numbers inside eval continue from the eval command's line.
    // (It replaces the offset of the text running the eval: lineno_ already counts it.)
    const uint32_t saved_offset = line_offset_;
    if ((is_eval || subst_line) && base_line > 0) line_offset_ = base_line - 1;
    Flow f = Flow::Normal;
    while (!reader.at_end()) {
        const size_t unit_start = reader.offset();
        reader.options().aliases = parse_aliases();
        auto unit = std::make_shared<sx::ParseResult>(std::move(reader.next().result));
        // set -v: each line as it is read (an eval's text too), before it runs.
        if (state_.opts[OptVerbose]) [[unlikely]] {
            std::string shown(text.substr(unit_start, reader.offset() - unit_start));
            if (!shown.empty() && shown.back() != '\n') shown.push_back('\n');
            write_err(shown);
        }
        if (!unit->ok()) {
            // bash: "NAME: eval: line N: ..." (N counted from the eval's line), "NAME: command substitution:
            // line N: ...", a sourced file's own name.
            const sx::ParseError& e = *unit->error;
            std::string head = is_eval || subst_line
                                   ? std::string(error_name()) + (subst_line ? ": command substitution" : ": eval") +
                                         ": line " + std::to_string(base_line + e.pos.line - 1) + ": "
                                   : line_prefix(dash_c_name.empty() ? name : dash_c_name, e.pos.line);
            const bool errexit = state_.opts[OptErrexit];
            write_err(syntax_error_report(e, head, text, 1, errexit));
            if (errexit) {  // bash's parser_error ends the shell (a subshell) with status 2
                exit_status_ = state_.status = 2;
                if (!is_subshell_) state_.exited = true;
                f = Flow::Exit;
                break;
            }
            if (e.discard_line) {  // bash reads on from the next line
                state_.status = 1;
                continue;
            }
            if (!(e.keeps_status && !dash_c_name.empty())) state_.status = 2;
            break;
        }
        warn_unterminated_heredocs(*unit, text, 1);
        f = run_script(*unit->script, unit);
        if (line_discarded(f)) f = Flow::Normal;
        if (f != Flow::Normal) break;
    }
    line_offset_ = saved_offset;
    --eval_depth_;
    lineno_ = base_line;
    return f;
}

void Exec::warn_unterminated_heredocs(const sx::ParseResult& unit, std::string_view text, uint32_t first_line) {
    if (unit.unterminated_heredocs.empty()) return;
    // bash blames the line of the input's last byte (the end of input closed the here-document).
    uint32_t last = first_line + line_offset_;
    if (!text.empty()) last += static_cast<uint32_t>(std::count(text.begin(), text.end() - 1, '\n'));
    for (const auto& [line, delim] : unit.unterminated_heredocs)
        write_err(line_prefix(source_name_, last) + "warning: here-document at line " +
                  std::to_string(line + line_offset_) + " delimited by end-of-file (wanted `" + delim + "')\n");
}

Flow Exec::run_trap(int which) {
    // A subshell runs none of the parent's traps, except ERR with set -E (errtrace) and DEBUG and RETURN
    // with set -T (functrace), which it inherits.
    if (state_.traps_display_only && !(which == kTrapErr && state_.opts[OptErrtrace]) &&
        !((which == kTrapDebug || which == kTrapReturn) && state_.opts[OptFunctrace]))
        return Flow::Normal;
    auto it = state_.traps.find(which);
    if (it == state_.traps.end() || it->second.action.empty()) return Flow::Normal;
    std::string action = it->second.action;
    int saved_status = state_.status;
    bool saved_in_trap = in_trap_;
    uint8_t saved_running = traps_running_;
    in_trap_ = true;
    if (which == kTrapDebug) traps_running_ |= kRunningDebug;
    else if (which == kTrapErr) traps_running_ |= kRunningErr;
    else if (which == kTrapReturn) traps_running_ |= kRunningReturn;
    uint32_t saved_line = lineno_;
    // The DEBUG, ERR and RETURN traps see the line of their command; a signal's trap counts its own lines.
    if (which < kTrapErr) lineno_ = 1;
    ++xtrace_level_;
    Flow f = run_source(action, source_name_, true);
    --xtrace_level_;
    trap_status_ = state_.status;
    lineno_ = saved_line;
    in_trap_ = saved_in_trap;
    traps_running_ = saved_running;
    if (f == Flow::Exit) return Flow::Exit;
    state_.status = saved_status;
    return Flow::Normal;
}

Flow Exec::run_return_trap(bool returned) {
    if ((traps_running_ & kRunningReturn) || !state_.traps.count(kTrapReturn)) return Flow::Normal;
    // In the trap $? is still the status from before a `return`; its value becomes $? after the trap.
    const int value = state_.status;
    if (returned) state_.status = status_before_return_;
    Flow f = run_trap(kTrapReturn);
    if (f == Flow::Normal) state_.status = value;
    return f;
}

Flow Exec::debug_trap(const sx::Command* cmd, const std::string* text) {
    if (!in_trap_) {  // $BASH_COMMAND is not updated inside traps
        current_simple_ = cmd;
        command_head_ = text;
    }
    Flow f = run_trap(kTrapDebug);
    command_head_ = nullptr;
    return f;
}

Flow Exec::run_pending_signals() {
    // Only the main shell ($$) takes them: another shell of the session leaves them for it.
    if (state_.bashpid != session_.id.pid) return Flow::Normal;
    uint64_t bits = session_.pending_signals.exchange(0);
    for (int sig = 1; sig < 64; ++sig) {
        if (!(bits & (uint64_t{1} << sig))) continue;
        auto it = state_.traps.find(sig);
        if (it == state_.traps.end()) {
            // No trap: the signal's default action (those that do not stop a shell are ignored).
            if (sig == 17 || sig == 18 || sig == 23 || sig == 28) continue;
            exit_status_ = state_.status = 128 + sig;
            return Flow::Exit;
        }
        if (run_trap(sig) == Flow::Exit) return Flow::Exit;
    }
    return Flow::Normal;
}

bool Exec::forked_child_runs_exit_trap(const sx::Command* c, bool piped, bool async) {
    switch (c->kind) {
        case sx::NodeKind::Simple:
        case sx::NodeKind::Subshell:
            return true;
        case sx::NodeKind::Brace:
            return piped != async;
        default:
            return false;
    }
}

void Exec::run_exit_trap() {
    if (exit_trap_done_) return;
    exit_trap_done_ = true;
    if (state_.traps_display_only) return;
    auto it = state_.traps.find(kTrapExit);
    if (it == state_.traps.end() || it->second.action.empty()) return;
    std::string action = it->second.action;
    state_.traps.erase(it);
    int saved = exit_status_;
    state_.status = saved;
    bool saved_in_trap = in_trap_;
    in_trap_ = true;
    lineno_ = 1;  // the trap counts its own lines (and set -x shows it at the level of the script)
    Flow f = run_source(action, source_name_, true);
    in_trap_ = saved_in_trap;
    if (f == Flow::Exit) {
        state_.status = exit_status_;
    } else {
        state_.status = saved;
        exit_status_ = saved;
    }
}

}  // namespace bashkit::interp
