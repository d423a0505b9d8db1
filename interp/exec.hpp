// The evaluator: shell state, and the Exec object that runs the AST over it on one thread.
// Internal to interp/ (the public API is shell.hpp).
#pragma once

#include <atomic>
#include <bitset>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "interp/command.hpp"
#include "interp/dev_fs.hpp"
#include "interp/governor.hpp"
#include "interp/limits.hpp"
#include "interp/shell.hpp"
#include "interp/stream.hpp"
#include "interp/syntax/ast.hpp"
#include "interp/syntax/parser.hpp"
#include "interp/vars.hpp"
#include "vfs/filesystem.hpp"

namespace bashkit::interp {

namespace sx = bashkit::syntax;

// How a command list ends: normally, or unwinding for break/continue/return/exit.
enum class [[nodiscard]] Flow : uint8_t { Normal, Break, Continue, Return, Exit };

// The outcome of an expansion step: fine, the command fails (status set), or the shell must exit
// (a fatal expansion error in a non-interactive shell: unbound variable, bad substitution, ${x?}).
enum class [[nodiscard]] Outcome : uint8_t { Ok, Fail, Fatal };

// ---------------------------------------------------------------- options

enum Opt : uint8_t {
    // set -o
    OptAllexport, OptBraceexpand, OptEmacs, OptErrexit, OptErrtrace, OptFunctrace, OptHashall,
    OptHistexpand, OptHistory, OptIgnoreeof, OptInteractiveComments, OptKeyword, OptMonitor,
    OptNoclobber, OptNoexec, OptNoglob, OptNolog, OptNotify, OptNounset, OptOnecmd, OptPhysical,
    OptPipefail, OptPosix, OptPrivileged, OptVerbose, OptVi, OptXtrace,
    kSetOptCount,
    // shopt
    ShAutocd = kSetOptCount, ShAssocExpandOnce, ShCdableVars, ShCdspell, ShCheckhash, ShCheckjobs,
    ShCheckwinsize, ShCmdhist, ShCompat31, ShCompat32, ShCompat40, ShCompat41, ShCompat42, ShCompat43,
    ShCompat44, ShCompleteFullquote, ShDirexpand, ShDirspell, ShDotglob, ShExecfail, ShExpandAliases,
    ShExtdebug, ShExtglob, ShExtquote, ShFailglob, ShForceFignore, ShGlobasciiranges, ShGlobskipdots,
    ShGlobstar, ShGnuErrfmt, ShHistappend, ShHistreedit, ShHistverify, ShHostcomplete, ShHuponexit,
    ShInheritErrexit, ShInteractiveComments, ShLastpipe, ShLithist, ShLocalvarInherit, ShLocalvarUnset,
    ShLoginShell, ShMailwarn, ShNoEmptyCmdCompletion, ShNocaseglob, ShNocasematch, ShNoexpandTranslation,
    ShNullglob, ShPatsubReplacement, ShProgcomp, ShProgcompAlias, ShPromptvars, ShRestrictedShell,
    ShShiftVerbose, ShSourcepath, ShVarredirClose, ShXpgEcho,
    kOptCount
};

struct OptInfo {
    const char* name;
    char letter;  // set -<letter>, 0 when none
    bool def;
};
const OptInfo& opt_info(int opt);
// -1 when unknown.
int find_set_option(std::string_view name);
int find_shopt(std::string_view name);
int find_set_letter(char c);

using Options = std::bitset<kOptCount>;
Options default_options();

// ---------------------------------------------------------------- functions, frames, jobs

struct Function {
    std::string name;
    const sx::FuncDef* def = nullptr;
    std::shared_ptr<const sx::ParseResult> owner;  // keeps the tree alive
    std::string source;                            // BASH_SOURCE of the definition
    uint32_t line = 0;                             // its line there (declare -F under extdebug)
    uint16_t attrs = 0;                            // kAttrExport, kAttrReadonly, kAttrTrace
};
using FunctionPtr = std::shared_ptr<const Function>;
// What a function definition and an alias are charged to the memory budget (with the variables).
inline size_t function_bytes(std::string_view name) { return 4096 + name.size(); }
inline size_t alias_bytes(std::string_view name, std::string_view value) { return 64 + name.size() + value.size(); }

struct CallFrame {
    std::vector<std::string> params;  // $1 ...
    // The function called (null for frames[0]), not copies of its name and source: a call copies no string.
    // Not a FunctionPtr either: counting a reference is two atomic instructions per call once the process has
    // a second thread (the deadline watch). ShellState::funcs or ::retired_funcs owns it.
    const Function* fn = nullptr;
    // frames[0]'s BASH_SOURCE: the script file ("main" for a script read from stdin, empty for -c).
    std::string script;
    std::string_view funcname() const { return fn ? std::string_view(fn->name) : std::string_view(); }
    // BASH_SOURCE: where the function was defined; for frames[0], the script.
    std::string_view source() const { return fn ? std::string_view(fn->source) : std::string_view(script); }
    uint32_t call_line = 0;           // BASH_LINENO: where this frame was called from
    uint32_t scope = 0;               // variable scope level of its locals
    bool main_entry = false;          // frames[0] of a script file: the debug stack ends with ("main", file, 0)
    // Files being `source`d while this frame is the innermost, outermost first (each a debug stack entry).
    struct Sourced {
        std::string file;
        uint32_t call_line = 0;
    };
    std::vector<Sourced> sourced;
};
// One entry of bash's debug stack (FUNCNAME, BASH_SOURCE, BASH_LINENO, caller), innermost first.
struct DebugEntry {
    std::string_view funcname;  // a function, "source" or "main"
    std::string_view source;
    uint32_t line = 0;          // where it was called from
};

class StackThread;
struct Job {
    int id = 0;
    int64_t pid = 0;
    std::string command;
    std::shared_ptr<CancelToken> token;
    std::unique_ptr<StackThread> thread;
    std::atomic<bool> done{false};
    std::atomic<int> status{0};
    int signal = 0;  // set by kill: the job reports 128 + signal
    bool reported = false;
    bool hidden = false;  // a process substitution: waited for by `wait`, not listed by `jobs`
    ~Job();
};

struct JobTable {
    std::vector<std::shared_ptr<Job>> jobs;
    int next_id = 1;
};

struct Trap {
    std::string action;
    std::shared_ptr<const sx::ParseResult> parsed;  // cache of action
};

// Everything a subshell copies. What must hold across its fields is how a copy is made, and that is private:
// the copy constructor is, and each kind of copy is a named operation below (subshell_copy, job_copy,
// restore_copy, command_copy) saying what that kind changes. The fields themselves are public on purpose:
// each is an independent piece of the shell's state (no field constrains another), written by the evaluator
// and the builtins in hundreds of places; accessors returning references would hide nothing. Values with
// invariants of their own keep them in their own types (VarStore's budget charge, Var's number beside its
// text, JobTable).
struct ShellState {
    VarStore vars;
    using FunctionMap = std::unordered_map<std::string, FunctionPtr, VarStore::Hash, std::equal_to<>>;
    FunctionMap funcs;
    Options opts = default_options();
    std::string cwd = "/";
    std::vector<StreamPtr> fds;
    std::map<int, Trap> traps;  // 0 EXIT, signal numbers, kTrapErr, kTrapDebug, kTrapReturn
    // In a subshell the parent's traps are shown by `trap` but never run, until the subshell sets one.
    bool traps_display_only = false;
    std::map<std::string, std::string> aliases;
    std::vector<std::string> dirstack;
    std::vector<CallFrame> frames;  // frames[0] is the main script
    // The functions unset or redefined while a function runs, kept until no function runs: a frame points
    // at its function without owning it (`f() { unset -f f; echo still here; }`). A copy of the state (a
    // subshell, a job) copies them with the frames that may point at them.
    std::vector<FunctionPtr> retired_funcs;
    // Removes a function (unset -f), uncharging its bytes from the variable budget.
    void erase_function(FunctionMap::iterator it) {
        vars.add_bytes(-static_cast<int64_t>(function_bytes(it->first)));
        retire_function(std::move(it->second));
        funcs.erase(it);
    }
    void retire_function(FunctionPtr f) {
        if (frames.size() > 1) retired_funcs.push_back(std::move(f));
    }
    std::map<std::string, std::string> hashed;  // `hash`
    std::shared_ptr<JobTable> jobs = std::make_shared<JobTable>();
    std::string script_name = "bashkit";
    std::string last_arg;  // $_
    int status = 0;
    int64_t last_bg_pid = 0;  // 0: no background job yet
    int64_t bashpid = 0;
    uint32_t scope = 0;
    uint32_t subshell_level = 0;
    uint32_t umask = 022;
    uint64_t rng = 0;
    int last_random = 0;
    std::vector<int> pipestatus;  // PIPESTATUS (empty until the first command, as in bash)
    int64_t seconds_base = 0;  // SECONDS = now - seconds_base
    int getopts_pos = 0;       // index into the current option cluster
    int64_t getopts_optind = 1;
    bool exited = false;
    // The script comes from a file or stdin, not -c: a fatal expansion error (set -u, ${x:?}) exits with
    // status 1 there and 127 with -c, as bash does.
    bool script_input = false;
    // An interactive shell (`bash -i`): $- has i, and a fatal expansion error (set -u, ${x?}) abandons only the
    // current line.
    bool interactive = false;
    // Makes this copy of a shell's state the state of a subshell: one level deeper, its own $BASHPID, the
    // given job table, the parent's traps shown by `trap` but not run (until the subshell sets its own), and
    // $RANDOM reseeded, as bash reseeds it in a child (`(echo $RANDOM)` is not the parent's next value). The
    // seed mixes the parent's with the new pid: two subshells differ, a session with a fixed seed repeats.
    void enter_subshell(std::shared_ptr<JobTable> job_table, int64_t pid) {
        jobs = std::move(job_table);
        ++subshell_level;
        bashpid = pid;
        traps_display_only = !traps.empty();
        uint64_t x = rng ^ (static_cast<uint64_t>(pid) * 0x9E3779B97F4A7C15ull);
        x ^= x >> 30;
        x *= 0xbf58476d1ce4e5b9ull;
        x ^= x >> 27;
        x *= 0x94d049bb133111ebull;
        x ^= x >> 31;
        rng = static_cast<uint32_t>(x);
    }
    // The ways to copy a shell's state, each saying what its kind of copy changes (the copy constructor is
    // private, so that no copy is made by hand and forgets part of it):
    // A subshell's copy of this state: ( ), $( ), a pipeline stage. Its job table is a snapshot (`jobs` in
    // a subshell lists the parent's jobs).
    ShellState subshell_copy(int64_t pid) const {
        ShellState copy = *this;
        copy.enter_subshell(std::make_shared<JobTable>(*jobs), pid);
        return copy;
    }
    // The copy for a job (a background command, a process substitution), before start_job() makes it a
    // subshell with its own pid and no jobs (enter_subshell). `input`, when not null, replaces its standard
    // input (a background job without job control reads from /dev/null).
    ShellState job_copy(StreamPtr input = nullptr) const {
        ShellState copy = *this;
        if (input) {
            if (copy.fds.empty()) copy.fds.resize(1);
            copy.fds[0] = std::move(input);
        }
        return copy;
    }
    // The copy a snapshot is read into (state_from_json): kept apart until the snapshot is read whole.
    ShellState restore_copy() const { return *this; }
    // The copy a utility's command runs in (find -exec, xargs, env): the same shell, like a child process,
    // with its own standard streams and no jobs of its own.
    ShellState command_copy(StreamPtr in, StreamPtr out, StreamPtr err) const {
        ShellState copy = *this;
        copy.fds.assign({std::move(in), std::move(out), std::move(err)});
        copy.jobs = std::make_shared<JobTable>();
        return copy;
    }

    ShellState() = default;
    ShellState(ShellState&&) = default;
    ShellState& operator=(ShellState&&) = default;

private:
    ShellState(const ShellState&) = default;
    ShellState& operator=(const ShellState&) = default;
};

inline constexpr int kTrapExit = 0;
inline constexpr int kTrapErr = 1000;
inline constexpr int kTrapDebug = 1001;
inline constexpr int kTrapReturn = 1002;

// Shared by every thread of a session.
struct ShellSession {
    ShellSession(vfs::FileSystem& fs_, const CommandRegistry& reg_) : fs(fs_), registry(reg_) {}
    vfs::FileSystem& fs;
    const CommandRegistry& registry;
    ExecutionLimits limits;
    Identity id;
    const vfs::Clock* clock = nullptr;
    std::unique_ptr<vfs::Clock> own_clock;
    net::HttpClient* http = nullptr;
    ExternalRunner external;   // empty in the sandbox (ShellOptions::external)
    std::function<bool(int64_t, const std::string*, std::tm&)> local_time;  // ShellOptions::local_time
    // The session's one memory budget (governor.hpp), shared by every thread, subshell copy and utility.
    MemoryBudget memory;
    CancelToken run_token;     // the current run()
    CancelToken close_token;   // the session is closing
    std::atomic<uint32_t> threads{0};
    std::atomic<uint32_t> bg_jobs{0};
    std::atomic<int64_t> next_pid{0};
    std::atomic<uint64_t> seed_counter{0};
    std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
    uint64_t base_seed = 0;
    // The evaluation fiber's stack, when there is one: an Exec running inside it uses these bounds.
    uintptr_t eval_stack_low = 0;
    uintptr_t eval_stack_high = 0;
    int64_t wall_start = 0;  // seconds since the epoch when the session started
    // Background threads (jobs, process substitutions) signal completion here.
    std::mutex jobs_mu;
    std::condition_variable jobs_cv;
    std::atomic<uint32_t> live_threads{0};
    // Signals sent to the session's main shell ($$) by another shell of the session (`bash -c "kill -USR1 $$"`,
    // a subshell), one bit per signal number: the main shell runs their traps after its current command.
    std::atomic<uint64_t> pending_signals{0};

    int64_t new_pid() { return next_pid.fetch_add(1, std::memory_order_relaxed); }

    // Commands the embedder registered on this session only (Shell::add_command): looked up after
    // functions and before shell builtins and the shared registry. An entry is never freed while the session
    // lives (a replaced or removed one is retired), so a pointer from find_custom stays valid while another
    // thread registers.
    mutable std::shared_mutex custom_mu;
    std::atomic<bool> has_custom{false};
    std::map<std::string, std::shared_ptr<const RegisteredCommand>, std::less<>> custom;
    std::vector<std::shared_ptr<const RegisteredCommand>> retired;
    const RegisteredCommand* find_custom(std::string_view name) const {
        if (!has_custom.load(std::memory_order_acquire)) return nullptr;
        std::shared_lock lock(custom_mu);
        auto it = custom.find(name);
        return it == custom.end() ? nullptr : it->second.get();
    }
    // A session command, else a utility of the shared registry.
    const RegisteredCommand* find_utility(std::string_view name) const {
        if (const RegisteredCommand* c = find_custom(name)) return c;
        return registry.find(name);
    }
    // Names of both, sorted, without duplicates.
    std::vector<std::string> utility_names() const;
};

// A field of word expansion before pathname expansion.
struct Field {
    std::string text;  // after quote removal
    std::string pat;   // the pattern form, valid when diverged (else equals text)
    bool diverged = false;
    bool glob = false;  // has an unquoted glob character
    const std::string& pattern() const { return diverged ? pat : text; }
};

class FieldBuilder;
struct BuiltinInfo;
struct ParamValue;
struct ArithError;
class ArithCache;

// Runs a function on a thread with a stack of a given size (pthreads; std::thread cannot set it), taken from
// a process-wide pool of idle ones (pipeline.cpp). join() waits for the function, not for the thread.
struct StackTask;
class StackThread {
public:
    StackThread() = default;
    ~StackThread();
    StackThread(const StackThread&) = delete;
    StackThread& operator=(const StackThread&) = delete;
    // false when the thread could not be created.
    bool start(size_t stack_bytes, std::function<void()> fn);
    void join();
    void detach();
    bool joinable() const { return started_ && !joined_; }

private:
    std::shared_ptr<StackTask> task_;
    bool started_ = false;
    bool joined_ = false;
};

// The stack bounds of the calling thread, for the overflow backstop.
struct StackBounds {
    uintptr_t low = 0;   // lowest usable address
    uintptr_t high = 0;  // highest
};
StackBounds current_stack_bounds();

// A word as set -x shows it (exec.cpp).
std::string xtrace_quote(std::string_view s);

class Exec : public CommandRunner {
public:
    Exec(ShellSession& session, ShellState& state, const CancelToken& cancel);
    // A child evaluator on the same thread (subshell copy, command substitution): inherits depths.
    Exec(Exec& parent, ShellState& state);
    // A child evaluator for another thread (pipeline stage): inherits depths, measures its own stack.
    Exec(Exec& parent, ShellState& state, bool new_thread);
    ~Exec() override = default;

    ShellSession& session() { return session_; }
    ShellState& state() { return state_; }

    // ---- entry points
    Flow run_script(const sx::Script& script, const std::shared_ptr<const sx::ParseResult>& owner);
    // Parses and runs source text (eval, source, traps). Syntax errors print and give status 2 (or 1).
    // dash_c_name: a `bash -c` run in-process ("bash: -c"): it names its syntax errors so, and an error in
    // [[ ]] leaves $? as it was.
    // subst_line: the text of a command substitution bash parses when it runs (a backquoted text, a `$((`
    // text that is a command substitution), whose lines are numbered from that line, the one the
    // substitution ends on; its syntax errors are "NAME: command substitution: line N: ...".
    Flow run_source(std::string_view text, std::string_view name, bool is_eval, std::string_view dash_c_name = {},
                    uint32_t subst_line = 0);
    // bash's warning for each here-document of `unit` that the end of input closed.
    // text: the whole input the unit was read from, whose first line is first_line.
    void warn_unterminated_heredocs(const sx::ParseResult& unit, std::string_view text, uint32_t first_line);
    // Runs the EXIT trap if set (once).
    void run_exit_trap();
    // Whether the child bash forks for a pipeline stage (piped) or a background job (async) runs the EXIT trap
    // set in it: only when the child's command is a simple command, a `( )` or a group `{ }`, and the group
    // only as a stage of a foreground pipeline or as a background job of its own. For a loop, `if`, `case`,
    // a list (`a && b &`) or a background pipeline's stage the child exits without it.
    static bool forked_child_runs_exit_trap(const sx::Command* c, bool piped, bool async);
    int status() const { return state_.status; }
    int exit_status() const { return exit_status_; }

    // CommandRunner
    using CommandRunner::run_command;
    int run_command(std::span<const std::string> argv, const Environment& env, ByteStream& in, ByteStream& out,
                    ByteStream& err, const RunOptions& options) override;
    CommandKind find_command(std::string_view name, bool with_functions, std::string* path) override;
    std::shared_ptr<CancelToken> child_cancel_token() override;
    int run_script(std::string_view source, std::span<const std::string> args, ByteStream& in, ByteStream& out,
                   ByteStream& err) override;
    std::vector<JobView> running_jobs() override;
    bool signal_job(int64_t pid, int sig) override;

    // ---- commands (exec.cpp)
    Flow exec_list(sx::List<sx::Stmt*> stmts);
    // Runs one statement. An exception from it (the memory budget, bad_alloc, a throwing custom command)
    // ends that statement with status 1 and a message; frames, scopes and counters are restored to what
    // they were before it (contain.cpp). The script goes on.
    Flow exec_stmt(const sx::Stmt* stmt);
    Flow exec_command(const sx::Command* cmd);
    Flow exec_simple(const sx::Simple* cmd);
    Flow exec_pipeline(const sx::Pipeline* p);
    Flow exec_andor(const sx::AndOr* a);
    Flow exec_if(const sx::If* c);
    Flow exec_while(const sx::While* c);
    Flow exec_for(const sx::For* c);
    Flow exec_arith_for(const sx::ArithFor* c);
    // The DEBUG trap and the trace before one part of an arithmetic for (empty: it counts as `1`).
    Flow arith_part_hooks(const sx::ArithFor* c, const sx::ArithPart& p, bool empty);
    std::string arith_trace_text(const sx::Word* raw);
    Flow exec_select(const sx::Select* c);
    Outcome loop_words(bool has_in, sx::List<sx::Word*> words, std::vector<std::string>& out);
    void xtrace_loop(std::string_view keyword, std::string_view var, const std::vector<std::string>& items);
    Flow exec_case(const sx::Case* c);
    Flow exec_arith_cmd(const sx::ArithCmd* c);
    Flow exec_cond_cmd(const sx::CondCmd* c);
    Flow exec_funcdef(const sx::FuncDef* f);
    Flow exec_subshell_body(sx::List<sx::Stmt*> body);
    Flow exec_background(const sx::Stmt* stmt);
    Flow exec_coproc(const sx::Coproc* c);
    Flow cancelled_flow();
    int alloc_fd(int from);
    // Starts a background thread running cmd (or the list) in `state`; returns its pid or -1.
    int64_t start_job(std::shared_ptr<ShellState> state, const sx::Command* cmd, std::string text);
    int64_t start_list_job(std::shared_ptr<ShellState> state, sx::List<sx::Stmt*> body);
    int64_t start_thread_job(std::shared_ptr<ShellState> state, std::function<Flow(Exec&)> body, std::string text,
                             bool in_table);
    // One line of set -x: the PS4 prefix (xtrace_prefix) and text, on BASH_XTRACEFD or stderr.
    void xtrace_line(std::string_view text);
    std::string xtrace_prefix();
    // `name=value` as set -x shows an assignment (assoc: the target is associative, -1 as it is now; decl: an
    // argument of a declaration builtin, whose array values bash single-quotes).
    struct AssignValue;
    std::string xtrace_assign_text(const sx::Assign* a, const AssignValue& v, int assoc, bool decl);
    bool xtrace_assign_ = false;  // assign_node traces (the assignments of an assignment-only command)
    int run_registered(const RegisteredCommand& rc, std::vector<std::string>& argv, const Environment& env);
    Flow exec_external(std::vector<std::string>& argv, const Environment& env);
    std::string find_in_path(const std::string& name);
    int run_script_file(const std::string& path, std::vector<std::string>& argv, const Environment& env);
    // script_input: the source is a script file or stdin, not -c (ShellState::script_input). The child
    // shares the streams: a background job it starts may keep using them after it returns.
    int child_shell(std::string_view source, std::span<const std::string> args, const Environment& env,
                    StreamPtr in, StreamPtr out, StreamPtr err, std::string_view name, bool script_input = false,
                    bool script_file = false);  // script_file: name is a script file's path (BASH_SOURCE)
    void init_child_state(ShellState& st, const Environment& env);
    int bash_command(std::vector<std::string>& argv, const Environment& env);
    static void install_dynamic_vars(ShellState& st);
    // Waits for the process substitutions still running (their output belongs to this run).
    void wait_hidden_jobs();
    // Runs argv (after expansion): function, builtin, registry, PATH.
    struct DeclArgs;  // below, with the assignments
    // decls: the assignment arguments of a declaration builtin, for run_builtin.
    Flow run_argv(std::vector<std::string>& argv, const sx::Simple* origin, bool skip_functions = false,
                  bool only_builtins = false, const DeclArgs* decls = nullptr);
    Flow call_function(const Function& fn, std::vector<std::string>& argv);
    // In a copy of the state (a subshell): fn runs with a child Exec. Returns the subshell's status.
    template <class Fn>
    int in_subshell(Fn&& fn);
    bool check_cancel();
    // Errexit handling after a command finished with status state_.status.
    Flow after_command(const sx::Command* cmd);

    // ---- expansion (expand.cpp)
    Outcome expand_words(sx::List<sx::Word*> words, std::vector<std::string>& out);
    const std::string* lone_plain_value(const sx::Word* w);
    const Var* lone_quoted_elements(const sx::Word* w);
    Outcome expand_word_fields(const sx::Word* w, std::vector<std::string>& out);  // split+glob
    Outcome expand_word(const sx::Word* w, std::string& out, bool tilde = true);  // one string, no split/glob
    // Tilde after = and :. number: set to the value when the word is one `$((...))` (null: not asked).
    Outcome expand_assign_value(const sx::Word* w, std::string& out, std::optional<int64_t>* number = nullptr);
    Outcome expand_pattern(const sx::Word* w, std::string& out, bool tilde = false);       // pattern form (quoted chars escaped)
    // Here-document body and here-string
    Outcome expand_heredoc(const sx::Redirect* r, std::string& out);
    Outcome expand_heredoc_text(const sx::Word* body, std::string& out);  // a body as parse_expanding_text gives
    Outcome expand_parts(sx::List<sx::Node*> parts, FieldBuilder& fb, bool quoted);
    // expand_parts with tilde expansion of the leading literal (and after each unquoted ':' when colons).
    Outcome expand_parts_tilde(sx::List<sx::Node*> parts, FieldBuilder& fb, bool colons);
    Outcome expand_part(const sx::Node* part, FieldBuilder& fb, bool quoted);
    Outcome expand_param(const sx::ParamExp* p, FieldBuilder& fb, bool quoted);
    Outcome param_value(const sx::ParamExp* p, ParamValue& v);
    // deferred: a substitution whose text did not parse when the script was read (bash parses a backquoted
    // text, and a `$((` text that is a command substitution, when it runs): its text runs, line by line,
    // up to the line that does not parse (run_source's subst_line).
    Outcome command_subst(sx::List<sx::Stmt*> body, std::string& out, const sx::CmdSubst* deferred = nullptr);
    Outcome arith_subst(const sx::ArithSubst* a, std::string& out);
    Outcome arith_subst_value(const sx::ArithSubst* a, int64_t& v);  // the value of $(( )), errors reported
    Outcome glob_field(const Field& f, std::vector<std::string>& out);
    // bash expands every word of a command or list before pathname expansion: `echo *.txt $(touch new.txt)`
    // lists new.txt. expand_word_fields called with deferred_globs_ set leaves an empty placeholder in `out`
    // for each field to glob and records it there (it clears deferred_globs_: expansions inside glob at
    // once); glob_deferred then replaces the placeholders by the matches.
    std::vector<std::pair<size_t, Field>>* deferred_globs_ = nullptr;
    Outcome glob_deferred(std::vector<std::pair<size_t, Field>>& globs, std::vector<std::string>& out);
    Outcome proc_subst(const sx::ProcSubst* p, std::string& path);
    Outcome brace_words(const sx::Word* w, std::vector<std::vector<std::pair<const sx::Node*, std::string>>>& out);
    // Whether brace expansion (when on) makes several words of w; false too when it fails (the word's own
    // expansion then reports it).
    bool brace_splits(const sx::Word* w);
    std::string tilde_prefix(std::string_view user, bool& ok);
    std::string ifs() const;

    // ---- arithmetic (arith_glue.cpp)
    // Evaluates arithmetic (exact: the tree may be evaluated as it is, syntax::arith_exact); on an error
    // prints bash's message and returns Fail (or Fatal inside an expansion, where fatal_on_error is true).
    Outcome arith(const sx::ArithExpr* expr, const sx::Word* raw, bool exact, int64_t& out, bool fatal_on_error);
    // The shapes of a loop's head and counters, evaluated without the evaluator's machinery (arith_glue.cpp);
    // false, with nothing done, for anything else.
    enum class Quick { Declined, Done, Failed };
    Quick quick_arith(const sx::ArithExpr& e, int64_t& out);
    bool quick_operand(const sx::ArithExpr* e, int64_t& out);
    Outcome arith_text(std::string_view text, int64_t& out, bool fatal_on_error);
    // The text of an arithmetic word, expanded as if in double quotes (as bash expands `$(( ))` and an
    // indexed array's subscript): with keep_single_quotes, '...' stays as written, an arithmetic error.
    Outcome expand_arith_word(const sx::Word* w, std::string& out, bool keep_single_quotes = true);
    Outcome arith_text_prefixed(std::string_view text, int64_t& out, std::string_view prefix);
    // expand_failed: an expansion inside the expression failed (already reported): that is the outcome.
    Outcome arith_report(const ArithError& e, std::string_view prefix, bool fatal_on_error, Outcome expand_failed);
    // Parsed texts of this evaluator's arithmetic, made on first use (arith.hpp: ArithCache).
    ArithCache* arith_cache();
    std::shared_ptr<ArithCache> arith_cache_;
    // Subscripts given as text, parsed as words (subscript_text): a loop's `((c[k$((i%100))]++))` parses
    // `k$((i%100))` once. Direct-mapped, texts of at most 256 bytes: bounded without accounting.
    struct SubscriptWord {
        std::string text;
        std::shared_ptr<sx::ParseResult> tree;
        const sx::Word* word = nullptr;
    };
    std::unique_ptr<std::array<SubscriptWord, 32>> subscript_words_;  // made on first use

    // ---- [[ ]] and test (cond.cpp)
    Outcome eval_cond(const sx::CondExpr* e, bool& result);
    void xtrace_cond(std::string_view test);  // `[[ test ]]` under set -x, with `! ` when negated
    bool cond_negated_ = false;
    int test_command(std::span<const std::string> args, std::string_view name);  // test / [
    bool unary_test(std::string_view op, const std::string& arg, bool& known);
    bool file_test(char op, const std::string& path);

    // ---- variables (vars_exec.cpp)
    const Var* lookup(std::string_view name);  // resolves namerefs and dynamic variables
    // bash's debug stack, innermost first; the views point into state_.frames.
    std::vector<DebugEntry> debug_stack() const;
    // The file whose text runs now (a function defined now gets it as its BASH_SOURCE).
    std::string_view current_source_file() const;
    // The name bash puts before its messages: ${BASH_SOURCE[0]} when it is not empty (a function defined by
    // `bash -c` names "environment"), else $0 (source_name_).
    std::string_view error_name() const;
    Var* lookup_mut(std::string_view name);    // resolves namerefs
    const std::string* get_scalar(std::string_view name);
    // bash's character mode follows its locale, read from the first of LC_ALL, LC_CTYPE and LANG that is set
    // and not empty: a UTF-8 codeset counts a valid UTF-8 sequence as one character, `C`, `POSIX` or any other
    // name counts bytes (patterns, ${#x}, ${x:o:n}, case changes). With none set the session is UTF-8.
    bool bytes_locale();
    // bytes_locale() for matching `pattern` against `text`; false without asking when both are ASCII, where
    // both readings agree (the locale variables are then not looked up at each case arm or [[ == ]]).
    bool bytes_locale_for(std::string_view pattern, std::string_view text);
    std::string get_str(std::string_view name);  // "" when unset
    // Assignments; false when refused (readonly, limits): a message was printed.
    bool assign(std::string_view name, std::string_view value, bool append = false);
    // written: the subscript as the script wrote it, which a `bad array subscript` message shows instead of
    // key (`a[$i]=x`, as bash reports an assignment statement's).
    bool assign_elem(std::string_view name, std::string_view key, std::string_view value, bool append,
                     bool key_is_arith_done = false, std::string_view written = {});
    // assign_elem's last steps, for a variable found and writable: whether an element's value fits the
    // limits, and storing it at a non-negative index (a scalar becomes element 0 of a new indexed array).
    bool element_fits(std::string_view name, std::string_view value);
    bool store_element(Var& v, std::string_view name, int64_t idx, std::string_view value, bool append);
    bool assign_array(std::string_view name, const std::vector<std::string>& values, bool append);
    // A subscript given as text at run time (`${!ref}`, a nameref, `unset`, `test -v`, `printf -v`, `read`,
    // `declare 'a[k]=v'`): bash expands it as a word (parameters, $( ), $(( )), quote removal; no tilde,
    // splitting or globbing): the key of an associative array, the text of an arithmetic subscript.
    Outcome subscript_text(const Var* arr, std::string_view text, std::string& out);
    // assign_elem for a `name[text]` reference given as text at run time (subscript_text).
    bool assign_elem_text(std::string_view name, std::string_view text, std::string_view value, bool append);
    // `number`: the value is that number's decimal text, kept beside it (assign_number).
    bool assign_to(Var& v, std::string_view name, std::string_view value, bool append,
                   const int64_t* number = nullptr);
    // An arithmetic assignment to a scalar (`i++`, `(( x = y + 1 ))`): assign() of the number's decimal text,
    // with the number kept beside the text, so that the next arithmetic read does not parse it.
    bool assign_number(std::string_view name, int64_t value);
    bool assign_number(Var& v, std::string_view name, int64_t value);
    // An assignment's value, expanded (before the target binding is looked up or made).
    struct AssignValue {
        struct Elem {
            bool keyed = false;
            bool append = false;
            std::string key;
            std::string value;
            std::string word;  // a plain element as written, for bash's warning in a keyed assoc list
        };
        bool is_array = false;
        bool has_index = false;
        std::string index;
        std::string scalar;
        std::vector<Elem> elems;
        // `x=$((...))`: the scalar is this number's decimal text (the variable keeps the number: no parse of
        // it at its next arithmetic read).
        bool has_number = false;
        int64_t number = 0;
    };
    // assoc: the target is an associative array (-1: as the variable is now), whose `[k]=v` values get no
    // tilde expansion in bash 5.2.
    Outcome eval_assign_value(const sx::Assign* a, AssignValue& out, int assoc = -1);
    // The assignment arguments of a declaration builtin's command line (declare, local, export, readonly):
    // nodes[i] is the parsed `name=value` word of argv[i] or null, and values[i] its value, expanded with the
    // other words of the command, before its temporary bindings and redirections apply (as bash does:
    // `local x=1 y=$x` reads the outer x).
    struct DeclArgs {
        std::vector<const sx::Assign*> nodes;
        std::vector<AssignValue> values;
        const sx::Assign* node(size_t i) const { return i < nodes.size() ? nodes[i] : nullptr; }
        const AssignValue* value(size_t i) const { return node(i) && i < values.size() ? &values[i] : nullptr; }
    };
    void xtrace_simple(const sx::Simple* c, const std::vector<std::string>& argv, const DeclArgs& decls);
    // $_ after a declaration whose last word is an assignment argument: that word as expanded (`name=value`,
    // the name of an array assignment).
    std::string decl_word_text(const sx::Assign& a, const AssignValue& value);
    Outcome do_assign(const sx::Assign* a, uint32_t scope_override = UINT32_MAX, uint16_t add_attrs = 0,
                 const AssignValue* pre = nullptr);
    Outcome assign_node(const sx::Assign* a, uint32_t scope_override, uint16_t add_attrs, const AssignValue* pre);
    bool unset_var(std::string_view name);
    std::string resolve_nameref(std::string_view name, bool& ok);
    void set_special(std::string_view name);  // after assigning a variable with side effects
    Environment build_env(const std::vector<std::pair<std::string, std::string>>* extra = nullptr);
    std::vector<std::string>& params() { return state_.frames.back().params; }
    void set_pipestatus(const std::vector<int>& statuses);
    bool check_var_limits(const Var& v, std::string_view name);
    // Whether `more` bytes of variable values fit (max_total_variable_bytes, the session's memory budget);
    // prints the error when not.
    bool variable_bytes_fit(std::string_view name, size_t more);
    std::string dyn_value(DynVar d);
    uint64_t next_random();

    // ---- redirections (redirect.cpp)
    class RedirGuard;
    Outcome apply_redirs(sx::List<sx::Redirect*> redirs, RedirGuard* guard);
    StreamPtr open_path(const std::string& path, int how, int& err);  // how: 0 read 1 write 2 append 3 rw
    StreamPtr fd(int n) const;
    StreamPtr fd_or_bad(int n) const;  // fd(n), or a stream failing with EBADF when n is closed
    ByteStream& out();
    ByteStream& err();
    ByteStream& in();
    void set_fd(int n, StreamPtr s);
    // Writes to stdout/stderr; a broken pipe marks the shell to stop with 141.
    bool write_out(std::string_view s);
    void write_err(std::string_view s);
    // "bashkit: line N: <msg>\n" on stderr.
    void error(std::string_view msg);
    void error_at(uint32_t line, std::string_view msg);
    // An error bash reports with report_error (readonly variable, bad array subscript, failglob, a bad
    // indirect expansion): under set -e the shell exits after the current command, even where errexit is
    // otherwise ignored (an `if` condition, `||`, a discarded line). report_exit_ carries it there.
    void report_error(std::string_view msg);
    std::string abs_path(std::string_view p) const;
    // The utility (or bash/sh) that `/usr/bin/NAME` or `/bin/NAME` stands for when nothing is at that path
    // in the FileSystem (`which` reports registered utilities there); empty otherwise.
    std::string virtual_bin_name(std::string_view name) const;

    // ---- shell builtins (builtins/: free functions over a BuiltinContext, builtin.hpp)
    // What /dev/fd/N, /dev/stdin, /dev/urandom ... of this shell refer to (dev_fs.hpp).
    DeviceSource device_source() const;
    // Runs a builtin: sets $? to its status and returns its flow. decls: the assignment arguments of a
    // declaration builtin (BuiltinContext::decls).
    Flow run_builtin(const BuiltinInfo& b, std::vector<std::string>& argv, const DeclArgs* decls);

    // Helpers for builtins.
    int builtin_error(std::string_view name, std::string_view msg, int status = 1);
    void print_declare(std::string_view name, const Var& v, std::string& out);
    static void print_function(const Function& f, std::string& out);
    // Runs the trap of `which` (a signal, kTrapErr, kTrapDebug, kTrapReturn) if set; Exit when its action
    // exited the shell (exit_status_ set), else Normal ($? is kept).
    Flow run_trap(int which);
    // The DEBUG trap, before each simple command, [[ ]], (( )), and each round of for, select, case and the
    // parts of an arithmetic for, as bash runs it. `text`, when not null, is what $BASH_COMMAND shows in the
    // trap (the head of a loop or case); a simple command, [[ ]] and (( )) show themselves.
    bool debug_armed() const {
        return !state_.traps.empty() && !(traps_running_ & kRunningDebug) && state_.traps.count(kTrapDebug) != 0;
    }
    Flow debug_trap(const sx::Command* cmd, const std::string* text = nullptr);
    // The RETURN trap as a function or a sourced file ends (returned: it ended with `return`).
    Flow run_return_trap(bool returned);
    int status_before_return_ = 0;
    // The traps of signals another shell of the session sent to this one (ShellSession::pending_signals).
    Flow run_pending_signals();

    // ---- state of this evaluator (not copied into subshells)
    ShellSession& session_;
    ShellState& state_;
    const CancelToken* cancel_;
    uint32_t call_depth_ = 0;
    uint32_t subshell_depth_ = 0;
    uint32_t eval_depth_ = 0;
    // The words of a simple command, in a vector whose buffer the next command reuses (a small pool, for
    // the commands of functions a command calls): an allocation and a free less per command.
    static constexpr size_t kArgvPool = 8;
    std::vector<std::vector<std::string>> argv_pool_;
    struct ArgvLease {
        // `argv` takes a pooled buffer when the command has words (an assignment-only command needs none).
        ArgvLease(Exec& e, std::vector<std::string>& v, bool words) : ex(e), argv(v) {
            if (!words) return;
            if (ex.argv_pool_.capacity() < kArgvPool) ex.argv_pool_.reserve(kArgvPool);  // the destructor never allocates
            if (!ex.argv_pool_.empty()) {
                argv = std::move(ex.argv_pool_.back());
                ex.argv_pool_.pop_back();
            }
        }
        ~ArgvLease() {
            if (argv.capacity() == 0 || argv.capacity() > 64 || ex.argv_pool_.size() >= ex.argv_pool_.capacity()) return;
            argv.clear();
            ex.argv_pool_.push_back(std::move(argv));
        }
        ArgvLease(const ArgvLease&) = delete;
        ArgvLease& operator=(const ArgvLease&) = delete;
        Exec& ex;
        std::vector<std::string>& argv;
    };
    std::vector<AssignValue::Elem> spare_elems_;  // see assign_node
    uint32_t loop_depth_ = 0;
    // bash's indirection level: nesting of $( ), eval, source and trap actions; the xtrace prefix repeats the
    // first character of PS4 once more for each level.
    uint32_t xtrace_level_ = 0;
    uint32_t levels_ = 0;       // pending break/continue levels
    int exit_status_ = 0;       // for Flow::Exit
    uint32_t lineno_ = 0;
    int errexit_suppressed_ = 0;  // inside if/while conditions, && || non-final members, !
    bool in_trap_ = false;
    // The kinds of trap whose action is running: none of them runs again inside itself (a DEBUG trap runs
    // inside an ERR trap and the other way round, as in bash).
    static constexpr uint8_t kRunningDebug = 1, kRunningErr = 2, kRunningReturn = 4;
    uint8_t traps_running_ = 0;
    int trap_status_ = 0;  // the status the last trap action ended with (extdebug's DEBUG trap)
    const sx::Command* debug_done_ = nullptr;  // a pipeline stage whose DEBUG trap the parent ran
    const std::string* command_head_ = nullptr;  // $BASH_COMMAND in a DEBUG trap for a loop or case head
    bool report_exit_ = false;  // report_error under set -e: after_command / line_discarded exit
    // The value given to an integer variable was a bad expression (convert_value): bash's assignment jumps to
    // the top level, so the command that assigned ends the line (a -c shell: the shell) with status 1.
    // Set with the message printed; the assigning command turns it into that Flow::Exit (assign_fatal).
    bool assign_arith_error_ = false;
    const char* running_builtin_ = nullptr;  // names the messages of an assignment it makes ("declare: ")
    // Whether assign_arith_error_ is set (it is cleared): exit_status_, $? and discard_line_ are set for the
    // Flow::Exit the caller returns.
    bool assign_fatal();
    const sx::Command* inverted_ = nullptr;  // the command of `! cmd` now running: no errexit, no ERR trap
    // A write of the running builtin to fd 1 failed with EPIPE (set by write_out, reset and read by
    // run_builtin only: a subshell's builtin then ends the subshell with 141, as bash's SIGPIPE does).
    // It stays a member on purpose: it stands for a signal pending on the shell, raised by whichever of a
    // builtin's writes meets the closed pipe (some forty sites), not for a result the builtin chooses; the
    // builtin still returns its own status (1 for a failed write) as a value.
    bool broken_pipe_ = false;
    bool is_subshell_ = false;
    bool exit_trap_done_ = false;  // run, or not to run (forked_child_runs_exit_trap)
    // The pipeline this evaluator runs as a background job (`a | b &`): its stages are asynchronous.
    const sx::Pipeline* async_pipeline_ = nullptr;
    uint32_t cancel_tick_ = 0;
    uintptr_t stack_limit_ = 0;   // lowest address we allow the stack to reach
    std::string cmdsubst_status_note_;
    int last_cmdsubst_status_ = -1;  // status of the last $( ) in the current simple command
    // The parse tree the running commands belong to (a function defined now keeps it alive). A pointer to the
    // handle that owns it (a script unit's, a function's, a job's own copy), so that entering a function or a
    // script unit costs no reference count: each of those handles outlives the commands run under it.
    std::shared_ptr<const sx::ParseResult> owner_own_;  // a background job's reference: it outlives its parent
    const std::shared_ptr<const sx::ParseResult>* owner_hold_ = &owner_own_;
    // Clears running_builtin_ for what runs inside (the commands of eval, source or a trap; the elements of a
    // declaration's array list) and puts it back on the way out.
    struct BuiltinNameScope {
        const char*& slot;
        const char* saved;
        explicit BuiltinNameScope(Exec& e, const char* name = nullptr) : slot(e.running_builtin_), saved(e.running_builtin_) {
            slot = name;
        }
        ~BuiltinNameScope() { slot = saved; }
        BuiltinNameScope(const BuiltinNameScope&) = delete;
        BuiltinNameScope& operator=(const BuiltinNameScope&) = delete;
    };
    struct OwnerScope {
        Exec& e;
        const std::shared_ptr<const sx::ParseResult>* saved;
        OwnerScope(Exec& ex, const std::shared_ptr<const sx::ParseResult>& owner) : e(ex), saved(ex.owner_hold_) {
            e.owner_hold_ = &owner;
        }
        ~OwnerScope() { e.owner_hold_ = saved; }
        OwnerScope(const OwnerScope&) = delete;
        OwnerScope& operator=(const OwnerScope&) = delete;
    };
    Var scratch_;  // value of a dynamic variable
    std::string source_name_ = "bashkit";
    // An error that makes bash discard the rest of the current top-level command line (an arithmetic error in
    // $(( ))): the Flow::Exit it returns stops at the loop that reads lines (script, eval, source), which goes
    // on with the next line with exit_status_ as $?.
    bool discard_line_ = false;
    // Whether a Flow::Exit reaching a line loop only ends the line (clears the flag; $? is set).
    int fatal_expansion_status() {
        if (state_.interactive && (!is_subshell_ || dash_c_top_)) {
            discard_line_ = true;  // an interactive shell goes on with the next line
            return 1;
        }
        // (with set -e on, bash's -c shell exits 1 too)
        return (is_subshell_ && !dash_c_top_) || state_.script_input || state_.opts[OptErrexit] ? 1 : 127;
    }
    bool dash_c_top_ = false;  // the top level of an in-process `bash -c` (not one of its subshells)
    bool line_discarded(Flow f) {
        if (f != Flow::Exit || !discard_line_) return false;
        discard_line_ = false;
        if (report_exit_) {  // set -e: the shell exits instead
            report_exit_ = false;
            return false;
        }
        state_.status = exit_status_;
        return true;
    }
    std::shared_ptr<const CancelToken> cancel_hold_;  // keeps a job's token alive
    // The aliases the parser expands in the next command line read (bash reads one line, with the aliases
    // defined when it is read, then runs it): none unless `shopt -s expand_aliases`.
    const std::map<std::string, std::string>* parse_aliases() const {
        return state_.opts[ShExpandAliases] ? &state_.aliases : nullptr;
    }
    uint32_t line_offset_ = 0;  // added to node lines (eval text starts at the eval's line)
    bool pending_trap_exit_ = false;
    bool in_source_ = false;
    std::vector<int> procsubst_fds_;
    std::map<char, std::string> ulimits_;
    const sx::Command* current_simple_ = nullptr;
    bool in_not_found_handler_ = false;  // BASH_COMMAND (not updated inside traps)
    std::string command_text(const sx::Command* c);
    const std::vector<std::pair<int, bool>>* child_opts_ = nullptr;  // options for the next child_shell
    bool child_interactive_ = false;  // the next child_shell is interactive (bash -i)

    bool stack_exhausted() const;

    // ---- containment (contain.cpp)
    // Inside a catch handler: the text for the exception being handled ("memory limit exceeded (1024 MiB)"
    // for the budget and bad_alloc, what() otherwise).
    std::string exception_text() const noexcept;
    // Inside a catch handler: "bashkit: NAME: TEXT" on `to` (never throws).
    void report_exception(std::string_view name, ByteStream& to) const noexcept;
    // The evaluator's nesting state, to restore after an exception unwound through it.
    struct UnwindMark {
        size_t frames;
        uint32_t scope, call_depth, loop_depth, eval_depth, subst_depth, line_offset;
        int errexit_suppressed;
        bool in_trap, in_source;
        uint8_t traps_running;
    };
    UnwindMark unwind_mark() const {
        return UnwindMark{state_.frames.size(), state_.scope,   call_depth_,         loop_depth_, eval_depth_,
                          xtrace_level_,     line_offset_, errexit_suppressed_, in_trap_,   in_source_,
                          traps_running_};
    }
    void unwind_to(const UnwindMark& m) noexcept;
    // Charges a large argument list (and `extra` bytes held with it) to the budget for as long as `held`
    // lives; false (status 1, message) when it does not fit or has more than max_array_entries words.
    bool charge_words(const std::vector<std::string>& words, size_t extra, MemoryCharge& held);
    Flow command_threw(const sx::Command* cmd, const UnwindMark& m) noexcept;
};

// Guard that restores file descriptors changed by redirections of one command.
class Exec::RedirGuard {
public:
    explicit RedirGuard(Exec& e) : e_(e) {}
    ~RedirGuard() {
        if (!saved_.empty()) restore();  // most commands have no redirections: no call
    }
    void save(int fd);
    void restore();
    void keep() { saved_.clear(); }  // exec: the changes stay

private:
    Exec& e_;
    std::vector<std::pair<int, StreamPtr>> saved_;
};

template <class Fn>
int Exec::in_subshell(Fn&& fn) {
    ShellState copy = state_.subshell_copy(session_.new_pid());
    Exec child(*this, copy);
    child.is_subshell_ = true;
    Flow f = fn(child);
    int status = f == Flow::Exit ? child.exit_status_ : copy.status;
    if (f != Flow::Exit) child.exit_status_ = status;
    copy.status = status;
    child.run_exit_trap();
    return copy.status;
}

// bash's message prefix for the current position: "bashkit: line N: ".
std::string line_prefix(std::string_view name, uint32_t line);
// bash's report of a syntax error, each line after `head` ("bash: -c: line 3: ", "bash: eval: line 1: "):
// the message, then after an unexpected token the offending line (line e.pos.line of text, whose first line
// is numbered first_line).
// With `set -e` on (errexit) bash reports only the message and exits with status 2 (its parser_error).
std::string syntax_error_report(const syntax::ParseError& e, std::string_view head, std::string_view text,
                                uint32_t first_line, bool errexit = false);

// The decimal text of a number, on the stack: an assignment of a counter builds no string.
struct DecText {
    explicit DecText(int64_t v) {
        auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);  // two digits per step; 24 bytes suffice
        (void)ec;
        len = static_cast<size_t>(end - buf);
    }
    std::string_view view() const { return {buf, len}; }
    char buf[24];
    size_t len;
};
// Decimal text of a number.
std::string to_dec(int64_t v);
// Parses a decimal integer with optional sign and surrounding blanks (as `test` and `shift` do).
bool parse_int(std::string_view s, int64_t& out);
bool valid_name(std::string_view s);

}  // namespace bashkit::interp
