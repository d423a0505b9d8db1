// Running what a simple command names when it is not a function or a shell builtin: a registered utility, a
// script found through PATH, a child bash/sh; and the CommandRunner interface utilities call back through
// (xargs, find -exec, timeout).
#include <pthread.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <utility>

#include "interp/builtins/builtin.hpp"
#include "interp/dev_fs.hpp"
#include "interp/exec.hpp"
#include "interp/external_fds.hpp"
#include "interp/fields.hpp"
#include "interp/pattern.hpp"
#include "interp/quote.hpp"
#include "interp/syntax/printer.hpp"

namespace bashkit::interp {

DeviceSource Exec::device_source() const {
    return DeviceSource{[this](int n) { return fd(n); },
                        [this] { return session_.base_seed ^ (session_.seed_counter.fetch_add(1) + 0x51ed); }, cancel_};
}

int Exec::run_registered(const RegisteredCommand& rc, std::vector<std::string>& argv, const Environment& env) {
    StreamPtr i = fd(0), o = fd(1), e = fd(2);
    BadStream bad;
    // The utility sees /dev through the shell's descriptors: `cat <(cmd)`, `diff <(a) <(b)`.
    DevFs fs(session_.fs, device_source());
    CommandContext ctx{argv,
                       i ? *i : static_cast<ByteStream&>(bad),
                       o ? *o : static_cast<ByteStream&>(bad),
                       e ? *e : static_cast<ByteStream&>(bad),
                       fs,
                       state_.cwd,
                       env,
                       session_.limits,
                       *cancel_,
                       *session_.clock,
                       this,
                       session_.http,
                       state_.umask,
                       &session_.id};
    ctx.memory = &session_.memory;
    // A utility may loop on the flag alone for long, each round slow (awk building 32 MiB strings): the timer
    // thread must watch the deadline from its start, as it did before the watch became lazy. Builtins-only
    // runs (`true`, assignments, `echo`) still never start the thread.
    cancel_->watch();
    // A command boundary: whatever the utility or the embedder's command throws stays here.
    try {
        return rc.fn(ctx);
    } catch (...) {
        report_exception(argv.empty() ? std::string_view(rc.name) : std::string_view(argv[0]), ctx.err);
        return 1;
    }
}

std::string Exec::virtual_bin_name(std::string_view name) const {
    std::string_view base;
    if (name.starts_with("/usr/bin/")) base = name.substr(9);
    else if (name.starts_with("/bin/")) base = name.substr(5);
    if (base.empty() || base.find('/') != std::string_view::npos) return {};
    static constexpr std::string_view kProgramBuiltins[] = {"echo", "printf", "test", "[", "kill", "pwd", "true", "false"};
    const bool program_builtin =
        std::find(std::begin(kProgramBuiltins), std::end(kProgramBuiltins), base) != std::end(kProgramBuiltins);
    if (!session_.find_utility(base) && base != "bash" && base != "sh" && !program_builtin) return {};
    if (session_.fs.lstat(std::string(name))) return {};  // a real file there is run as a file
    return std::string(base);
}

namespace {
thread_local ExternalFds t_external_fds;
}  // namespace

ExternalFds external_more_fds() { return t_external_fds; }
ExternalFdsScope::ExternalFdsScope(ExternalFds fds) : saved_(t_external_fds) { t_external_fds = fds; }
ExternalFdsScope::~ExternalFdsScope() { t_external_fds = saved_; }

Flow Exec::exec_external(std::vector<std::string>& argv, const Environment& env) {
    const std::string& name = argv[0];
    std::string path;
    if (name.find('/') != std::string::npos) {
        path = abs_path(name);
        auto st = session_.fs.stat(path);
        if (!st) {
            error(name + ": " + std::string(vfs::error_message(st.error())));
            // bash: 127 only when the file does not exist (ENOTDIR, ENAMETOOLONG, ELOOP... are 126)
            state_.status = st.error() == vfs::Errc::no_such_file ? 127 : 126;
            return Flow::Normal;
        }
        if (st->is_directory()) {
            error(name + ": Is a directory");
            state_.status = 126;
            return Flow::Normal;
        }
        if (!(st->mode & 0111)) {
            error(name + ": Permission denied");
            state_.status = 126;
            return Flow::Normal;
        }
    } else {
        // bash runs a hashed path without looking at it again (unless shopt checkhash): a program deleted
        // since is "No such file or directory", status 127, even when PATH now has another of the name.
        if (!state_.opts[ShCheckhash]) {
            auto h = state_.hashed.find(name);
            if (h != state_.hashed.end() && !session_.fs.stat(h->second)) {
                error(h->second + ": No such file or directory");
                state_.status = 127;
                return Flow::Normal;
            }
        }
        path = find_in_path(name);
        if (path.empty()) {
            // bash calls command_not_found_handle when it is defined.
            auto h = state_.funcs.find("command_not_found_handle");
            if (h != state_.funcs.end() && !in_not_found_handler_) {
                FunctionPtr fn = h->second;
                std::vector<std::string> args;
                args.reserve(argv.size() + 1);
                args.emplace_back("command_not_found_handle");
                args.insert(args.end(), argv.begin(), argv.end());
                in_not_found_handler_ = true;
                int status = in_subshell([&](Exec& child) { return child.call_function(*fn, args); });
                in_not_found_handler_ = false;
                state_.status = status;
                return Flow::Normal;
            }
            // A name with an unprintable character is shown as $'...', as bash shows it.
            const bool utf8 = !bytes_locale();
            error((needs_ansi_c_quoting(name, utf8) ? ansi_c_quote(name, utf8) : name) + ": command not found");
            state_.status = 127;
            return Flow::Normal;
        }
    }
    if (session_.external) {
        StreamPtr i = fd(0), o = fd(1), e = fd(2);
        BadStream bad;
        std::vector<std::pair<int, ByteStream*>> more;
        for (size_t n = 3; n < state_.fds.size(); ++n)
            if (state_.fds[n]) more.emplace_back(static_cast<int>(n), state_.fds[n].get());
        ExternalFdsScope more_scope(more);
        ExternalCommand cmd{argv, path, env, state_.cwd, i ? *i : static_cast<ByteStream&>(bad),
                            o ? *o : static_cast<ByteStream&>(bad), e ? *e : static_cast<ByteStream&>(bad),
                            *cancel_};
        if (std::optional<int> status = session_.external(cmd)) {
            state_.status = *status;
            if (cancel_->cancelled_fast()) return cancelled_flow();
            return Flow::Normal;
        }
    }
    // $0 of a script found through PATH is its path (put back after: the caller sets $_ from argv).
    std::string invoked;
    if (name.find('/') == std::string::npos) invoked = std::exchange(argv[0], path);
    state_.status = run_script_file(path, argv, env);
    if (!invoked.empty()) argv[0] = std::move(invoked);
    if (cancel_->cancelled_fast()) return cancelled_flow();
    return Flow::Normal;
}

std::string Exec::find_in_path(const std::string& name) {
    auto h = state_.hashed.find(name);
    if (h != state_.hashed.end()) {
        auto st = session_.fs.stat(h->second);
        if (st && st->is_regular()) return h->second;
    }
    const std::string* pathv = get_scalar("PATH");
    if (!pathv) return {};
    std::string_view pv = *pathv;
    size_t start = 0;
    while (start <= pv.size()) {
        size_t colon = pv.find(':', start);
        std::string_view dir = pv.substr(start, colon == std::string_view::npos ? std::string_view::npos : colon - start);
        std::string d = dir.empty() ? state_.cwd : abs_path(dir);
        std::string candidate = d + (d.ends_with('/') ? "" : "/") + name;
        auto st = session_.fs.stat(candidate);
        if (st && st->is_regular() && (st->mode & 0111)) {
            if (state_.opts[OptHashall]) state_.hashed[name] = candidate;
            return candidate;
        }
        if (colon == std::string_view::npos) break;
        start = colon + 1;
    }
    return {};
}

int Exec::run_script_file(const std::string& path, std::vector<std::string>& argv, const Environment& env) {
    auto content = session_.fs.read_file(path, session_.limits.max_variable_bytes);
    if (!content) {
        error(argv[0] + ": " + std::string(vfs::error_message(content.error())));
        return 126;
    }
    std::string_view text = *content;
    // #! line: a shell runs here; another interpreter is looked up in the registry by its name.
    if (text.starts_with("#!")) {
        size_t eol = text.find('\n');
        std::string_view line = text.substr(2, eol == std::string_view::npos ? std::string_view::npos : eol - 2);
        while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
        while (!line.empty() && (line.back() == ' ' || line.back() == '\r' || line.back() == '\t')) line.remove_suffix(1);
        std::string_view interp = line.substr(0, line.find_first_of(" \t"));
        std::string_view rest = interp.size() < line.size() ? line.substr(interp.size() + 1) : std::string_view{};
        std::string_view base = interp.substr(interp.rfind('/') == std::string_view::npos ? 0 : interp.rfind('/') + 1);
        if (base == "env") {
            while (!rest.empty() && (rest.front() == ' ' || rest.front() == '-')) {
                if (rest.starts_with("-S")) rest.remove_prefix(2);
                else rest.remove_prefix(1);
            }
            base = rest.substr(0, rest.find_first_of(" \t"));
            rest = base.size() < rest.size() ? rest.substr(base.size() + 1) : std::string_view{};
        }
        if (!base.empty() && base != "bash" && base != "sh" && base != "dash" && base != "bashkit") {
            const RegisteredCommand* rc = session_.find_utility(base);
            if (!rc) {
                error(argv[0] + ": " + std::string(interp) + ": bad interpreter: No such file or directory");
                return 126;
            }
            std::vector<std::string> nargv;
            nargv.emplace_back(base);
            if (!rest.empty()) nargv.emplace_back(rest);
            nargv.push_back(path);
            for (size_t i = 1; i < argv.size(); ++i) nargv.push_back(argv[i]);
            return run_registered(*rc, nargv, env);
        }
    }
    std::vector<std::string> args(argv.begin(), argv.end());
    args[0] = argv[0];
    return child_shell(text, args, env, fd_or_bad(0), fd_or_bad(1), fd_or_bad(2), path, true, true);
}

int Exec::child_shell(std::string_view source, std::span<const std::string> args, const Environment& env,
                      StreamPtr in, StreamPtr out, StreamPtr err, std::string_view name, bool script_input,
                      bool script_file) {
    if (eval_depth_ + 1 > session_.limits.max_eval_depth || subshell_depth_ + 1 > session_.limits.max_subshell_depth) {
        error("maximum nesting depth exceeded");
        return 1;
    }
    ShellState st;
    init_child_state(st, env);
    st.script_input = script_input;
    st.script_name = args.empty() ? std::string("bashkit") : args[0];
    if (args.size() > 1) st.frames.back().params.assign(args.begin() + 1, args.end());
    // The bottom of the debug stack, as in Shell::run: the script file; "main" for stdin; none for -c
    st.frames.back().main_entry = script_file;
    st.frames.back().script = script_file ? std::string(name) : script_input ? "main" : "";
    st.fds[0] = std::move(in);
    st.fds[1] = std::move(out);
    st.fds[2] = std::move(err);
    if (child_opts_) {
        for (const auto& [o, on] : *child_opts_) st.opts[static_cast<size_t>(o)] = on;
    }
    if (child_interactive_) {
        st.interactive = true;
        st.opts[ShExpandAliases] = true;  // an interactive bash expands aliases
        // The history variables an interactive bash sets (no history is kept).
        const Var* hv = st.vars.find("HOME");
        std::string home = hv && hv->set ? hv->str() : session_.id.home;
        auto set_default = [&](const char* n, std::string v) {
            Var& var = st.vars.global(n);
            if (var.set) return;
            var.set_str(std::move(v));
            var.set = true;
        };
        set_default("HISTFILE", home + "/.bash_history");
        set_default("HISTSIZE", "500");
        set_default("HISTFILESIZE", "500");
    }
    Exec child(*this, st);
    child.call_depth_ = 0;
    child.loop_depth_ = 0;
    child.errexit_suppressed_ = 0;
    child.eval_depth_ = eval_depth_ + 1;
    child.subshell_depth_ = subshell_depth_ + 1;
    child.is_subshell_ = true;
    child.dash_c_top_ = !script_input;
    child.source_name_ = std::string(name);
    std::string dash_c_name = script_input ? std::string() : std::string(name) + ": -c";
    Flow f = child.run_source(source, name, false, dash_c_name);
    int status = f == Flow::Exit ? child.exit_status_ : st.status;
    st.status = status;
    child.exit_status_ = status;
    child.run_exit_trap();
    return st.status;
}

void Exec::init_child_state(ShellState& st, const Environment& env) {
    st.vars.set_budget(&session_.memory);
    st.fds.resize(3);
    st.frames.emplace_back();
    st.cwd = state_.cwd;
    // bash starts in $PWD when the environment has it and it names the working directory, else in the
    // physical directory (`unset PWD; bash -c pwd` in a symlinked directory prints the target).
    bool logical = false;
    {
        const std::string* pwd = env.get("PWD");
        if (pwd && !pwd->empty() && (*pwd)[0] == '/') {
            auto a = session_.fs.stat(*pwd);
            auto b = session_.fs.stat(state_.cwd);
            logical = a && b && a->ino == b->ino && a->dev == b->dev;
        }
        if (!logical) {
            auto real = session_.fs.realpath(state_.cwd);
            if (real) st.cwd = *real;
        }
    }
    st.umask = state_.umask;
    st.bashpid = session_.new_pid();
    st.rng = next_random() * 2654435761u + 1;
    st.seconds_base = state_.seconds_base;
    for (const auto& [k, v] : env.entries()) {
        Var& var = st.vars.global(k);
        var.set_str(v);
        var.set = true;
        var.attrs |= kAttrExport;
    }
    if (!logical) {
        Var& var = st.vars.global("PWD");
        var.set_str(st.cwd);
        var.set = true;
        var.attrs |= kAttrExport;
    }
    // The prompts every bash sets (PS4: the set -x prefix) unless the environment has them.
    for (auto [n, v] : {std::pair{"PS2", "> "}, std::pair{"PS4", "+ "}}) {
        Var& var = st.vars.global(n);
        if (var.set) continue;
        var.set_str(v);
        var.set = true;
    }
    install_dynamic_vars(st);
    // Functions exported with `export -f` are inherited.
    for (const auto& [k, f] : state_.funcs)
        if (f->attrs & kAttrExport) st.funcs.emplace(k, f);
    {
        Var& lvl = st.vars.global("SHLVL");
        int64_t n = 0;
        parse_int(lvl.str(), n);
        lvl.set_str(to_dec(n + 1));
        lvl.set = true;
        lvl.attrs |= kAttrExport;
    }
}

int Exec::bash_command(std::vector<std::string>& argv, const Environment& env) {
    // bash [-eux] [-o opt] [-c command [name [args...]] | file [args...]] ; otherwise the script is stdin.
    std::vector<std::pair<int, bool>> opts;
    size_t i = 1;
    bool has_c = false;
    bool from_file = false;
    bool interactive = false;
    std::string command;
    for (; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (a == "--" || a == "-") {
            ++i;
            break;
        }
        if (a == "--version") {
            write_out("GNU bash, version 5.2.15(1)-release (x86_64-pc-linux-gnu)\n");
            return 0;
        }
        if (a == "--rcfile" || a == "--init-file") {  // the start-up file of an interactive shell: not read
            if (++i >= argv.size()) return builtin_error(argv[0], a + ": option requires an argument", 2);
            continue;
        }
        if (a.starts_with("--")) continue;  // --norc, --noprofile, --posix ...
        if (a.size() < 2 || (a[0] != '-' && a[0] != '+')) break;
        bool on = a[0] == '-';
        for (size_t k = 1; k < a.size(); ++k) {
            char c = a[k];
            if (c == 'c') {
                has_c = true;
            } else if (c == 'o') {
                if (i + 1 >= argv.size()) return builtin_error(argv[0], "-o: option requires an argument", 2);
                int o = find_set_option(argv[++i]);
                if (o < 0) return builtin_error(argv[0], argv[i] + ": invalid option name", 2);
                opts.emplace_back(o, on);
            } else if (c == 'O') {
                if (i + 1 >= argv.size()) return builtin_error(argv[0], "-O: option requires an argument", 2);
                int o = find_shopt(argv[++i]);
                if (o < 0) return builtin_error(argv[0], argv[i] + ": invalid shell option name", 2);
                opts.emplace_back(o, on);
            } else if (c == 'i') {
                interactive = on;
            } else if (c == 's' || c == 'l' || c == 'r') {
            } else {
                int o = find_set_letter(c);
                if (o < 0) return builtin_error(argv[0], std::string("-") + c + ": invalid option", 2);
                opts.emplace_back(o, on);
            }
        }
    }
    std::string source;
    std::vector<std::string> args;
    std::string name = argv[0];
    if (has_c) {
        if (i >= argv.size()) return builtin_error(argv[0], "-c: option requires an argument", 2);
        source = argv[i++];
        args.push_back(i < argv.size() ? argv[i++] : argv[0]);
        for (; i < argv.size(); ++i) args.push_back(argv[i]);
    } else if (i < argv.size()) {
        std::string path = abs_path(argv[i]);
        auto content = session_.fs.read_file(path, session_.limits.max_variable_bytes);
        if (!content) {
            error(argv[i] + ": " + std::string(vfs::error_message(content.error())));
            return content.error() == vfs::Errc::no_such_file ? 127 : 126;
        }
        source = std::move(*content);
        name = argv[i];
        from_file = true;
        for (; i < argv.size(); ++i) args.push_back(argv[i]);
    } else {
        StreamPtr in = fd(0);
        if (in) (void)in->read_all(source, session_.limits.max_variable_bytes);
        args.push_back(argv[0]);
    }
    // An interactive shell starts with line editing in emacs mode, as bash does.
    if (interactive) opts.insert(opts.begin(), {OptEmacs, true});
    child_opts_ = &opts;
    child_interactive_ = interactive;
    int st = child_shell(source, args, env, fd_or_bad(0), fd_or_bad(1), fd_or_bad(2),
                         has_c ? std::string_view(argv[0]) : std::string_view(name), !has_c, !has_c && from_file);
    child_opts_ = nullptr;
    child_interactive_ = false;
    return st;
}

// ---------------------------------------------------------------- CommandRunner

int Exec::run_command(std::span<const std::string> argv, const Environment& env, ByteStream& in, ByteStream& out,
                      ByteStream& err, const RunOptions& options) {
    if (argv.empty()) return 0;
    // Runs in a copy of the shell (like a child process) with the given streams.
    BorrowedStreams borrowed(in, out, err);  // revoked on return: a background job may outlive the call
    ShellState copy = state_.command_copy(borrowed.in, borrowed.out, borrowed.err);
    if (!options.cwd.empty()) copy.cwd = options.cwd;
    if (options.exact_env) {
        std::vector<std::string> drop;
        for (const auto& [name, v] : copy.vars.visible())
            if ((v->attrs & kAttrExport) && !env.get(*name)) drop.push_back(*name);
        for (const std::string& name : drop) copy.vars.lookup_or_create(name).attrs &= ~kAttrExport;
    }
    for (const auto& [k, v] : env.entries()) {
        Var& var = copy.vars.lookup_or_create(k);
        if (var.readonly()) continue;
        var.set_str(v);
        var.set = true;
        var.attrs |= kAttrExport;
    }
    Exec child(*this, copy);
    child.is_subshell_ = true;
    if (options.cancel) {
        child.cancel_ = options.cancel.get();
        child.cancel_hold_ = options.cancel;
    }
    std::vector<std::string> args(argv.begin(), argv.end());
    const UnwindMark mark = child.unwind_mark();
    try {
        Flow f = child.run_argv(args, nullptr, options.skip_functions);
        return f == Flow::Exit ? child.exit_status_ : copy.status;
    } catch (...) {
        child.unwind_to(mark);
        report_exception(argv[0], err);
        return 1;
    }
}

std::shared_ptr<CancelToken> Exec::child_cancel_token() {
    auto token = std::make_shared<CancelToken>();
    token->set_parent(cancel_hold_, cancel_);
    return token;
}

std::vector<CommandRunner::JobView> Exec::running_jobs() {
    std::vector<JobView> out;
    for (const auto& j : state_.jobs->jobs)
        if (!j->hidden && !j->done) out.push_back(JobView{j->pid, j->id, j->command});
    return out;
}

bool Exec::signal_job(int64_t pid, int sig) {
    for (const auto& j : state_.jobs->jobs) {
        if (j->hidden || j->done || j->pid != pid) continue;
        if (sig == 0 || sig == 17 || sig == 18 || sig == 23 || sig == 28) return true;
        j->signal = sig;
        j->token->cancel();
        return true;
    }
    return false;
}

CommandKind Exec::find_command(std::string_view name, bool with_functions, std::string* path) {
    if (name.empty()) return CommandKind::none;
    std::string n(name);
    if (with_functions && state_.funcs.count(n)) return CommandKind::function;
    if (session_.find_custom(name)) return CommandKind::utility;
    if (find_builtin(name)) return CommandKind::builtin;
    if (session_.registry.find(name) || name == "bash" || name == "sh") return CommandKind::utility;
    if (!virtual_bin_name(name).empty()) return CommandKind::utility;
    std::string p;
    if (name.find('/') != std::string_view::npos) {
        p = abs_path(name);
        auto st = session_.fs.stat(p);
        if (!st) return CommandKind::none;  // the caller tells a directory or a non-executable file apart
    } else {
        p = find_in_path(n);
        if (p.empty()) return CommandKind::none;
    }
    if (path) *path = std::move(p);
    return CommandKind::file;
}

int Exec::run_script(std::string_view source, std::span<const std::string> args, ByteStream& in, ByteStream& out,
                     ByteStream& err) {
    Environment env = build_env();
    BorrowedStreams borrowed(in, out, err);  // revoked on return: a background job may outlive the call
    return child_shell(source, args, env, borrowed.in, borrowed.out, borrowed.err,
                       args.empty() ? std::string_view("bashkit") : args[0]);
}

}  // namespace bashkit::interp
