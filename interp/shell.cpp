// Shell: the session object. Owns the state and an evaluation thread with a large stack; run() parses on
// the caller's thread and evaluates on the session's thread.
#include "interp/shell.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <random>
#include <shared_mutex>
#include <thread>

#include "interp/builtins/builtin.hpp"
#include "interp/exec.hpp"
#include "interp/fiber.hpp"
#include "interp/state.hpp"

namespace bashkit::interp {

namespace {

// fd 0/1/2 of the session: forwards to the streams of the current run (nothing between runs), so a dup
// made in one run (`exec 3>&1`) or a background job outliving its run never touches a dead stream.
// Every operation counts itself in flight for as long as it uses the target: set() waits until none is, so
// once a run's end has set the target to null, its caller may destroy the stream (a background job writing
// at that moment used to write into a freed sink). Background jobs read /dev/null, not fd 0, so an operation
// that blocks on a host stream (holding set() back) is one the script asked for with a dup.
// No lock: an operation raises the count, then reads the target; set() stores the target, then waits for the
// count to reach zero. Both sequentially consistent, so an operation either is counted before set() looks
// (set() waits for it) or reads the new target. A run's start and end set all three, and a lock there cost a
// third of a warm `execute("true")`.
class ProxyStream : public ByteStream {
public:
    explicit ProxyStream(bool input) : input_(input) {}
    bool readable() const override { return input_; }
    bool writable() const override { return !input_; }
    // For when no other thread of the session is alive, so none can be in an operation (see bind_streams).
    void set_alone(ByteStream* t) { target_.store(t, std::memory_order_relaxed); }
    void set(ByteStream* t) {
        target_.store(t);
        for (int n = inflight_.load(); n != 0; n = inflight_.load()) inflight_.wait(n);
    }
    IoResult read(char* buf, size_t n) override {
        InFlight f(*this);
        return f.target ? f.target->read(buf, n) : IoResult{};
    }
    IoResult write(std::string_view data) override {
        InFlight f(*this);
        return f.target ? f.target->write(data) : IoResult{data.size(), 0};
    }
    IoResult read_until(char delim, std::string& out, size_t max) override {
        InFlight f(*this);
        return f.target ? f.target->read_until(delim, out, max) : IoResult{};
    }
    bool wait_readable(std::chrono::steady_clock::time_point deadline) override {
        InFlight f(*this);
        return f.target ? f.target->wait_readable(deadline) : true;
    }
    std::string describe() const override { return "pipe"; }
    int host_fd() const override {
        InFlight f(*this);
        return f.target ? f.target->host_fd() : -1;
    }
    bool unread(std::string_view data) override {
        InFlight f(*this);
        return f.target && f.target->unread(data);
    }

private:
    struct InFlight {
        const ProxyStream& p;
        ByteStream* target;
        explicit InFlight(const ProxyStream& proxy) : p(proxy) {
            p.inflight_.fetch_add(1);
            target = p.target_.load();
        }
        ~InFlight() {
            if (p.inflight_.fetch_sub(1) == 1) p.inflight_.notify_all();
        }
        InFlight(const InFlight&) = delete;
        InFlight& operator=(const InFlight&) = delete;
    };
    mutable std::atomic<int> inflight_{0};
    std::atomic<ByteStream*> target_{nullptr};
    bool input_;
};

// Collects output like StringSink and hands every write to a callback as it happens. The mutex is shared by
// the stdout and stderr sinks of one run, so callbacks never run at once.
class StreamingSink : public ByteStream {
public:
    StreamingSink(size_t cap, const std::function<void(std::string_view)>& fn, std::mutex& mu)
        : sink_(cap), fn_(fn), mu_(mu) {}
    bool writable() const override { return true; }
    std::string describe() const override { return "pipe"; }
    IoResult write(std::string_view data) override {
        // One lock around both, so the chunks reach the callback in the order the result holds them.
        std::lock_guard lock(mu_);
        IoResult r = sink_.write(data);
        if (fn_ && !data.empty()) fn_(data);
        return r;
    }
    StringSink& sink() { return sink_; }

private:
    StringSink sink_;
    const std::function<void(std::string_view)>& fn_;
    std::mutex& mu_;
};

bool reserved_word(std::string_view n) {
    static constexpr std::string_view kWords[] = {"!", "[[", "]]", "{", "}", "case", "coproc", "do", "done",
                                                  "elif", "else", "esac", "fi", "for", "function", "if", "in",
                                                  "select", "then", "time", "until", "while"};
    for (std::string_view w : kWords)
        if (n == w) return true;
    return false;
}

// The time an EXIT trap may take when the session closes.
constexpr std::chrono::milliseconds kExitTrapGrace{2000};

}  // namespace

std::vector<std::string> ShellSession::utility_names() const {
    std::vector<std::string> names = registry.names();
    {
        std::shared_lock lock(custom_mu);
        for (const auto& [n, c] : custom) names.push_back(n);
    }
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
}

class ShellImpl {
public:
    ShellImpl(vfs::FileSystem& fs, const CommandRegistry& registry, ShellOptions options);
    ~ShellImpl();

    int run(std::string_view script, const Shell::Source& src, ByteStream& in, ByteStream& out, ByteStream& err);
    int run_unguarded(std::string_view script, const Shell::Source& src, ByteStream& in, ByteStream& out,
                      ByteStream& err);
    int close(ByteStream& in, ByteStream& out, ByteStream& err);
    bool closed = false;
    bool last_exited = false;
    bool last_stopped = false;
    bool last_timed_out = false;
    bool last_cancelled = false;

    ShellSession session;
    ShellState state;
    std::shared_ptr<ProxyStream> proxies[3];
    std::mutex run_mu;

    // Evaluation runs on a large stack of its own: a fiber switched to from the caller's thread.
    EvalFiber fiber;

    // Runs fn on the evaluation fiber (or here, without one) and returns when it has. The std::function
    // holds only a reference to fn, which fits its inline storage: no allocation per run.
    template <class F>
    void post_and_wait(F&& fn) {
        std::function<void()> call = [&fn] { fn(); };
        run_on_fiber(call);
    }
    void run_on_fiber(std::function<void()>& fn);
    // Points the session's fd 0-2 at a run's streams, or at none (nullptr).
    void bind_streams(ByteStream* in, ByteStream* out, ByteStream* err);
};

ShellImpl::ShellImpl(vfs::FileSystem& fs, const CommandRegistry& registry, ShellOptions options)
    : session(fs, registry) {
    session.limits = options.limits;
    session.memory.set_limit(options.limits.max_memory_bytes);
    state.vars.set_budget(&session.memory);
    session.id = options.identity;
    if (session.id.home.empty()) session.id.home = session.id.user == "root" ? "/root" : "/home/" + session.id.user;
    session.http = options.http;
    session.external = std::move(options.external);
    session.local_time = std::move(options.local_time);
    if (options.clock) {
        session.clock = options.clock;
    } else {
        session.own_clock = std::make_unique<vfs::SystemClock>();
        session.clock = session.own_clock.get();
    }
    if (options.random_seed) {
        session.base_seed = options.random_seed;
    } else {
        // Not cryptographic: $RANDOM and /dev/urandom of the sandbox only need to differ between sessions.
        uint64_t x = static_cast<uint64_t>(std::chrono::high_resolution_clock::now().time_since_epoch().count());
        x ^= reinterpret_cast<uintptr_t>(this) * 0x9E3779B97F4A7C15ull;
        x ^= x >> 31;
        x *= 0xbf58476d1ce4e5b9ull;
        x ^= x >> 27;
        session.base_seed = x ? x : 1;
    }
    session.next_pid = session.id.pid + 1;
    session.wall_start = session.clock->now().sec;

    for (int i = 0; i < 3; ++i) proxies[i] = std::make_shared<ProxyStream>(i == 0);
    state.fds = {proxies[0], proxies[1], proxies[2]};
    state.frames.emplace_back();
    state.frames.back().params = options.args;
    state.script_name = options.script_name;
    state.bashpid = session.id.pid;
    state.rng = static_cast<uint32_t>(session.base_seed ^ (session.base_seed >> 32));
    state.seconds_base = session.wall_start;

    std::string cwd = options.cwd;
    if (cwd.empty()) cwd = fs.is_directory(session.id.home) ? session.id.home : "/";
    state.cwd = cwd;

    auto set = [&](const std::string& name, const std::string& value, uint16_t attrs = 0) {
        Var& v = state.vars.global(name);
        v.set_str(value);
        v.set = true;
        v.attrs |= attrs;
    };
    const Identity& id = session.id;
    if (options.env_is_complete) {
        set("PATH", "/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin:.");
        set("SHELL", "/bin/bash");
    } else {
        set("HOME", id.home, kAttrExport);
        set("PATH", "/usr/local/bin:/usr/bin:/bin", kAttrExport);
        set("USER", id.user, kAttrExport);
        set("LOGNAME", id.user, kAttrExport);
        set("SHELL", "/bin/bash", kAttrExport);
    }
    set("PWD", cwd, kAttrExport);
    set("SHLVL", "1", kAttrExport);
    state.vars.global("OLDPWD").attrs |= kAttrExport;  // declared and exported, without a value until a cd
    set("HOSTNAME", id.host);
    set("IFS", " \t\n");
    set("PS2", "> ");
    set("PS4", "+ ");
    set("OPTIND", "1");
    set("OPTERR", "1");
    set("UID", std::to_string(id.uid), kAttrInteger | kAttrReadonly);
    set("EUID", std::to_string(id.uid), kAttrInteger | kAttrReadonly);
    set("PPID", std::to_string(id.ppid), kAttrInteger | kAttrReadonly);
    set("BASH", "/bin/bash");
    set("BASH_VERSION", "5.2.15(1)-release");
    set("OSTYPE", "linux-gnu");
    set("HOSTTYPE", "x86_64");
    set("MACHTYPE", "x86_64-pc-linux-gnu");
    set("BASHOPTS", "checkwinsize:cmdhist:complete_fullquote:extquote:force_fignore:globasciiranges:globskipdots:hostcomplete:interactive_comments:patsub_replacement:progcomp:promptvars:sourcepath", kAttrReadonly);
    set("SHELLOPTS", "braceexpand:hashall:interactive-comments", kAttrReadonly);
    {
        Var& v = state.vars.global("BASH_VERSINFO");
        v.attrs = kAttrIndexed | kAttrReadonly;
        v.idx = std::make_shared<IndexedArray>();
        const char* parts[] = {"5", "2", "15", "1", "release", "x86_64-pc-linux-gnu"};
        for (int i = 0; i < 6; ++i) v.idx->slot(i) = parts[i];
        v.set = true;
    }
    Exec::install_dynamic_vars(state);
    for (const auto& [k, v] : options.env) set(k, v, kAttrExport);

    fiber.allocate(session.limits.eval_stack_bytes);
    session.eval_stack_low = fiber.low();
    session.eval_stack_high = fiber.high();
}

void ShellImpl::bind_streams(ByteStream* in, ByteStream* out, ByteStream* err) {
    ByteStream* targets[3] = {in, out, err};
    // Background jobs are the only threads of a session that outlive a run's commands, and only a run starts
    // them. With none alive nothing is in a proxy operation, so plain stores do: the synchronised set() is a
    // sequentially consistent store and a wait, a tenth of a warm execute("true") for the six of a run.
    // A job's last proxy operation comes before its decrement of live_threads, which this load sees.
    const bool alone = session.live_threads.load() == 0;
    for (int i = 0; i < 3; ++i) {
        if (alone)
            proxies[i]->set_alone(targets[i]);
        else
            proxies[i]->set(targets[i]);
    }
}

void ShellImpl::run_on_fiber(std::function<void()>& fn) {
    if (fiber.ok())
        fiber.run(fn);
    else
        fn();  // no big stack: the stack guard still bounds the depth on the caller's stack
}

int ShellImpl::close(ByteStream& in, ByteStream& out, ByteStream& err) {
    std::lock_guard run_lock(run_mu);
    int status = state.status;
    if (closed) return status;
    closed = true;
    bind_streams(&in, &out, &err);
    // The EXIT trap at the end of the session gets a short grace, never a fresh full timeout (a trap that
    // loops would otherwise hold close() and the destructor for as long again).
    std::chrono::milliseconds grace = kExitTrapGrace;
    if (session.limits.timeout.count() > 0) grace = std::min(grace, session.limits.timeout);
    auto now = CancelToken::Clock::now();
    session.run_token.reset(now + grace, now);
    post_and_wait([&] {
        Exec ex(session, state, session.run_token);
        ex.exit_status_ = state.status;
        try {
            ex.run_exit_trap();
        } catch (...) {
            ex.report_exception("EXIT trap", err);
        }
        status = ex.exit_status_;
    });
    session.run_token.set_deadline(CancelToken::Clock::time_point::max());
    // Background jobs end with the shell.
    session.run_token.cancel();
    {
        std::unique_lock lock(session.jobs_mu);
        session.jobs_cv.wait(lock, [&] { return session.live_threads.load() == 0; });
    }
    session.run_token.reset();
    bind_streams(nullptr, nullptr, nullptr);
    state.status = status;
    return status;
}

ShellImpl::~ShellImpl() {
    // Cancel background work, run the EXIT trap, stop the evaluation thread.
    NullStream null;
    close(null, null, null);
    std::lock_guard run_lock(run_mu);
    session.run_token.cancel();
    session.close_token.cancel();
    {
        std::unique_lock lock(session.jobs_mu);
        session.jobs_cv.wait(lock, [&] { return session.live_threads.load() == 0; });
    }
}

int ShellImpl::run(std::string_view script, const Shell::Source& src, ByteStream& in, ByteStream& out,
                   ByteStream& err) {
    std::lock_guard run_lock(run_mu);
    last_timed_out = last_cancelled = false;
    // The public API: an exception (a parse of a huge script without memory, ...) is that run's failure.
    try {
        return run_unguarded(script, src, in, out, err);
    } catch (...) {
        bind_streams(nullptr, nullptr, nullptr);
        session.run_token.set_deadline(CancelToken::Clock::time_point::max());
        std::string m = "bashkit: ";
        try {
            throw;
        } catch (const std::bad_alloc&) {
            m += memory_limit_message(session.limits.max_memory_bytes);
        } catch (const std::exception& e) {
            m += e.what();
        } catch (...) {
            m += "unknown error";
        }
        try {
            (void)err.write(m + "\n");
        } catch (...) {
        }
        state.status = 1;
        return 1;
    }
}

int ShellImpl::run_unguarded(std::string_view script, const Shell::Source& src, ByteStream& in, ByteStream& out,
                             ByteStream& err) {
    bind_streams(&in, &out, &err);
    // No background job alive (its last use of the token comes before its decrement of live_threads).
    const bool alone = session.live_threads.load() == 0;
    if (session.limits.timeout.count() > 0) {
        auto now = CancelToken::Clock::now();
        session.run_token.reset(now + session.limits.timeout, now, alone);
    } else {
        session.run_token.reset(CancelToken::Clock::time_point::max(), {}, alone);
    }
    int status = 0;
    std::string source_name(src.name);
    std::string syntax_name(src.syntax_name.empty() ? src.name : src.syntax_name);
    auto shared_text = std::make_shared<const std::string>(script);
    const std::string* text = shared_text.get();  // the reader owns it: no second reference to count
    post_and_wait([&] {
        state.script_input = src.script_input;
        // set -n stops a script's commands until its end (a script read from stdin comes in several runs);
        // the next command of the API runs again (bash's interactive shell ignores -n, and a session is one).
        if (!src.script_input) state.opts[OptNoexec] = false;
        // The bottom of bash's debug stack: the script file, or "main" as the file of functions read
        // from stdin (-c and the API have none)
        CallFrame& main_frame = state.frames.front();
        main_frame.main_entry = src.script_file;
        main_frame.script = src.script_file ? std::string(src.name) : src.script_input ? "main" : "";
        Exec ex(session, state, session.run_token);
        ex.source_name_ = source_name;
        // bash reads a script one top-level command line at a time and runs it before reading the next.
        sx::ParseOptions po;
        po.extglob = true;
        po.stream_input = src.script_input;
        sx::ScriptReader reader(std::move(shared_text), po, src.first_line);
        std::optional<sx::ParseError> syntax_error;
        auto report_syntax = [&](const sx::ParseError& e) {
            ex.write_err(syntax_error_report(e, line_prefix(syntax_name, e.pos.line), *text, src.first_line,
                                             state.opts[OptErrexit]));
        };
        Flow f = Flow::Normal;
        try {
            while (!reader.at_end()) {
                const size_t unit_start = reader.offset();
                reader.options().aliases = ex.parse_aliases();
                auto unit = std::make_shared<sx::ParseResult>(std::move(reader.next().result));
                // set -v: each line as it is read, before it runs.
                if (state.opts[OptVerbose]) {
                    std::string shown(std::string_view(*text).substr(unit_start, reader.offset() - unit_start));
                    if (!shown.empty() && shown.back() != '\n') shown.push_back('\n');
                    ex.write_err(shown);
                }
                if (!unit->ok() && unit->error->discard_line && !state.opts[OptErrexit]) {
                    report_syntax(*unit->error);
                    state.status = 1;
                    continue;
                }
                if (!unit->ok()) {
                    syntax_error = unit->error;
                    break;
                }
                ex.warn_unterminated_heredocs(*unit, *text, src.first_line);
                f = ex.run_script(*unit->script, unit);
                if (ex.line_discarded(f)) f = Flow::Normal;
                if (f != Flow::Normal) break;
            }
        } catch (...) {
            // The public API: nothing thrown by the script's commands leaves run().
            ex.report_exception(source_name, err);
            state.status = 1;
            f = Flow::Normal;
        }
        status = f == Flow::Exit ? ex.exit_status_ : state.status;
        ex.wait_hidden_jobs();
        state.status = status;
        if (session.run_token.timed_out()) {
            // Whole seconds as "300 s"; a sub-second or fractional timeout (set per command) as "0.5 s".
            int64_t ms = session.limits.timeout.count();
            std::string secs = std::to_string(ms / 1000);
            if (ms % 1000) {
                std::string frac = std::to_string(1000 + ms % 1000).substr(1);
                while (frac.back() == '0') frac.pop_back();
                secs += "." + frac;
            }
            ex.write_err(source_name + ": execution timed out after " + secs + " s\n");
            status = 124;
        } else if (session.run_token.cancelled_fast() && f == Flow::Exit && status == 130) {
            ex.write_err(source_name + ": execution cancelled\n");
        } else if (f == Flow::Exit && state.exited) {
            ex.exit_status_ = status;
            ex.run_exit_trap();
            status = ex.exit_status_;
        }
        if (syntax_error && !(f == Flow::Exit)) {
            report_syntax(*syntax_error);
            // With set -e bash's parser_error exits with 2 whatever the error.
            if (!syntax_error->keeps_status || state.opts[OptErrexit]) status = 2;
        }
        last_exited = state.exited;
        last_stopped = f == Flow::Exit || syntax_error.has_value();
        last_timed_out = session.run_token.timed_out();
        last_cancelled = !last_timed_out && session.run_token.cancelled_fast();
        state.exited = false;
        state.status = status;
    });
    session.run_token.set_deadline(CancelToken::Clock::time_point::max());
    bind_streams(nullptr, nullptr, nullptr);
    return status;
}

// ---------------------------------------------------------------- Shell


Shell::Shell(vfs::FileSystem& fs, const CommandRegistry& registry, ShellOptions options)
    : impl_(std::make_unique<ShellImpl>(fs, registry, std::move(options))) {}

Shell::~Shell() = default;

ExecResult Shell::run(std::string_view script, std::string_view stdin_data) {
    StringSource in{std::string(stdin_data)};
    StringSink out(impl_->session.limits.max_output_bytes);
    StringSink err(impl_->session.limits.max_output_bytes);
    ExecResult r;
    r.exit_code = impl_->run(script, Shell::Source{}, in, out, err);
    r.timed_out = impl_->last_timed_out;
    r.cancelled = impl_->last_cancelled;
    r.out = out.take(&r.out_truncated);
    r.err = err.take(&r.err_truncated);
    return r;
}

ExecResult Shell::run(std::string_view script, std::string_view stdin_data, const OutputCallbacks& callbacks) {
    StringSource in{std::string(stdin_data)};
    std::mutex mu;
    StreamingSink out(impl_->session.limits.max_output_bytes, callbacks.on_stdout, mu);
    StreamingSink err(impl_->session.limits.max_output_bytes, callbacks.on_stderr, mu);
    ExecResult r;
    r.exit_code = impl_->run(script, Shell::Source{}, in, out, err);
    r.timed_out = impl_->last_timed_out;
    r.cancelled = impl_->last_cancelled;
    r.out = out.sink().take(&r.out_truncated);
    r.err = err.sink().take(&r.err_truncated);
    return r;
}

void Shell::check_command_name(std::string_view name, const CommandRegistry& registry, bool replace) {
    std::string n(name);
    auto refuse = [&](const std::string& why) { throw std::invalid_argument("add_command: " + why); };
    if (n.empty()) refuse("the command name is empty");
    for (unsigned char c : n) {
        if (c <= ' ' || c == '/' || c == '=' || c == '$' || c == '`' || c == '\\' || c == '"' || c == '\'' ||
            c == ';' || c == '&' || c == '|' || c == '<' || c == '>' || c == '(' || c == ')' || c == 0x7f)
            refuse("'" + n + "' is not a valid command name");
    }
    if (reserved_word(n)) refuse("'" + n + "' is a shell keyword");
    if (const BuiltinInfo* b = find_builtin(n)) {
        if (b->special || b->declaration) refuse("'" + n + "' is a special shell builtin and cannot be replaced");
        if (!replace) refuse("'" + n + "' is a shell builtin; pass replace=true to override it");
    }
    if (!replace && (registry.find(n) || n == "bash" || n == "sh"))
        refuse("'" + n + "' is a built-in utility; pass replace=true to override it");
}

void Shell::add_command(std::string name, std::string help, CommandFn fn, bool replace) {
    if (!fn) throw std::invalid_argument("add_command: '" + name + "': no function given");
    ShellSession& s = impl_->session;
    check_command_name(name, s.registry, replace);
    auto refuse = [&](const std::string& why) { throw std::invalid_argument("add_command: " + why); };
    auto cmd = std::make_shared<const RegisteredCommand>(RegisteredCommand{name, std::move(help), std::move(fn)});
    std::unique_lock lock(s.custom_mu);
    auto it = s.custom.find(name);
    if (it != s.custom.end()) {
        if (!replace) refuse("'" + name + "' is already registered in this session; pass replace=true to override it");
        s.retired.push_back(std::move(it->second));
        it->second = std::move(cmd);
    } else {
        s.custom.emplace(std::move(name), std::move(cmd));
    }
    s.has_custom.store(true, std::memory_order_release);
}

bool Shell::remove_command(std::string_view name) {
    ShellSession& s = impl_->session;
    std::unique_lock lock(s.custom_mu);
    auto it = s.custom.find(name);
    if (it == s.custom.end()) return false;
    s.retired.push_back(std::move(it->second));
    s.custom.erase(it);
    return true;
}

int Shell::run(std::string_view script, ByteStream& in, ByteStream& out, ByteStream& err) {
    return impl_->run(script, Shell::Source{}, in, out, err);
}

int Shell::run_file(std::string_view path, std::vector<std::string> args, ByteStream& in, ByteStream& out,
                    ByteStream& err) {
    auto content = impl_->session.fs.read_file(std::string(path), impl_->session.limits.max_variable_bytes);
    if (!content) {
        std::string msg = "bashkit: " + std::string(path) + ": " + std::string(vfs::error_message(content.error())) + "\n";
        (void)err.write(msg);
        return 127;
    }
    impl_->state.script_name = std::string(path);
    impl_->state.frames.front().params = std::move(args);
    Source src;
    src.name = path;
    src.script_input = true;
    src.script_file = true;
    return impl_->run(*content, src, in, out, err);
}

ExecResult Shell::close() {
    NullStream in;
    StringSink out(impl_->session.limits.max_output_bytes);
    StringSink err(impl_->session.limits.max_output_bytes);
    ExecResult r;
    r.exit_code = impl_->close(in, out, err);
    r.out = out.take(&r.out_truncated);
    r.err = err.take(&r.err_truncated);
    return r;
}

void Shell::cancel() { impl_->session.run_token.cancel(); }

bool Shell::exited() const { return impl_->last_exited; }

bool Shell::stopped() const { return impl_->last_stopped; }

bool Shell::timed_out() const { return impl_->last_timed_out; }

bool Shell::cancelled() const { return impl_->last_cancelled; }

int Shell::run(std::string_view script, ByteStream& in, ByteStream& out, ByteStream& err, const Source& source) {
    return impl_->run(script, source, in, out, err);
}

std::string Shell::get_var(std::string_view name) const {
    const Var* v = impl_->state.vars.find(name);
    if (!v) return {};
    const std::string* s = v->scalar_value();
    return s ? *s : std::string();
}

void Shell::set_var(std::string_view name, std::string_view value, bool exported) {
    Var& v = impl_->state.vars.lookup_or_create(name);
    v.set_str(std::string(value));
    v.set = true;
    if (exported) v.attrs |= kAttrExport;
}

std::string Shell::save_state() const {
    std::lock_guard run_lock(impl_->run_mu);
    return state_to_json(impl_->state);
}

void Shell::restore_state(std::string_view json) {
    std::lock_guard run_lock(impl_->run_mu);
    state_from_json(json, impl_->state);
}

std::string Shell::cwd() const { return impl_->state.cwd; }

std::map<std::string, std::string> Shell::parse_aliases() const {
    if (!impl_->state.opts[ShExpandAliases]) return {};
    return impl_->state.aliases;
}

const ExecutionLimits& Shell::limits() const { return impl_->session.limits; }

MemoryBudget& Shell::memory() { return impl_->session.memory; }

void Shell::reset_standard_fds() {
    std::lock_guard run_lock(impl_->run_mu);
    std::vector<StreamPtr>& fds = impl_->state.fds;
    if (fds.size() < 3) fds.resize(3);
    for (int i = 0; i < 3; ++i) fds[i] = impl_->proxies[i];
}

void Shell::set_timeout(std::chrono::milliseconds timeout) {
    std::lock_guard run_lock(impl_->run_mu);
    impl_->session.limits.timeout = timeout;
}

}  // namespace bashkit::interp
