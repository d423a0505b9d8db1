// The shell builtins' interface: each builtin is a free function over a BuiltinContext, returning its status
// and how the shell goes on (BuiltinResult). The table of names lives in builtins/table.cpp.
// Internal to interp/.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "interp/exec.hpp"

namespace bashkit::interp {

// What a builtin gives back: its exit status and the control flow that follows it (break, continue, return,
// exit: Flow::Normal for almost every builtin). An int converts to a normal result.
struct [[nodiscard]] BuiltinResult {
    int status = 0;
    Flow flow = Flow::Normal;
    BuiltinResult(int s) : status(s) {}  // NOLINT(google-explicit-constructor): `return 1;` reads best
    BuiltinResult(int s, Flow f) : status(s), flow(f) {}
};

// What one builtin call may see.
struct BuiltinContext {
    // The evaluator running the builtin: the shell state (sh.state_), its streams (sh.out(), sh.write_out()),
    // expansion and assignment (sh.assign(), sh.arith_text()), messages (sh.builtin_error()).
    Exec& sh;
    // argv[0] is the builtin's name as called.
    std::vector<std::string>& args;
    // The assignment arguments of a declaration builtin (declare, local, export, readonly): decls->node(i) is
    // the parsed `name=value` word of args[i] or null, decls->value(i) its expanded value. Null when the
    // command had none.
    const Exec::DeclArgs* decls = nullptr;
};

using BuiltinFn = BuiltinResult (*)(BuiltinContext&);

struct BuiltinInfo {
    const char* name;
    BuiltinFn fn;
    bool special;      // a POSIX special builtin
    bool declaration;  // a declaration utility: its name=value arguments are parsed as assignments
    const char* help;  // the usage line `help` prints
};

// The builtin called `name`, or null.
const BuiltinInfo* find_builtin(std::string_view name);
// Every builtin, sorted by name.
std::span<const BuiltinInfo> builtin_table();

// ---- helpers shared by builtin files

// The `(...)` text of an array for `set` and `declare -p` (declarations.cpp).
std::string array_body(const Var& v);

// The signals trap and kill know, by number (jobs.cpp); compgen -A signal lists them.
struct SignalName {
    int num;
    const char* name;
};
std::span<const SignalName> signal_table();

// ---- the builtins, by topic file

// declarations.cpp: declare/typeset, local, export, readonly
BuiltinResult builtin_declare(BuiltinContext& ctx);
BuiltinResult builtin_local(BuiltinContext& ctx);
BuiltinResult builtin_export(BuiltinContext& ctx);
BuiltinResult builtin_readonly(BuiltinContext& ctx);
// options.cpp: set, shopt
BuiltinResult builtin_set(BuiltinContext& ctx);
BuiltinResult builtin_shopt(BuiltinContext& ctx);
// variables.cpp: unset, shift, getopts, let
BuiltinResult builtin_unset(BuiltinContext& ctx);
BuiltinResult builtin_shift(BuiltinContext& ctx);
BuiltinResult builtin_let(BuiltinContext& ctx);
BuiltinResult builtin_getopts(BuiltinContext& ctx);
// flow.cpp: true, false, :, return, exit, logout, break, continue, test, [, eval, source, exec
BuiltinResult builtin_colon(BuiltinContext& ctx);
BuiltinResult builtin_true(BuiltinContext& ctx);
BuiltinResult builtin_false(BuiltinContext& ctx);
BuiltinResult builtin_return(BuiltinContext& ctx);
BuiltinResult builtin_exit(BuiltinContext& ctx);
BuiltinResult builtin_logout(BuiltinContext& ctx);
BuiltinResult builtin_break(BuiltinContext& ctx);
BuiltinResult builtin_continue(BuiltinContext& ctx);
BuiltinResult builtin_eval(BuiltinContext& ctx);
BuiltinResult builtin_source(BuiltinContext& ctx);
BuiltinResult builtin_exec(BuiltinContext& ctx);
BuiltinResult builtin_test(BuiltinContext& ctx);
BuiltinResult builtin_bracket(BuiltinContext& ctx);
// io.cpp: echo, printf, read, mapfile/readarray
BuiltinResult builtin_echo(BuiltinContext& ctx);
BuiltinResult builtin_printf(BuiltinContext& ctx);
BuiltinResult builtin_read(BuiltinContext& ctx);
BuiltinResult builtin_mapfile(BuiltinContext& ctx);
// jobs.cpp: wait, jobs, kill, disown, fg/bg, suspend, trap, umask, ulimit, times
BuiltinResult builtin_wait(BuiltinContext& ctx);
BuiltinResult builtin_jobs(BuiltinContext& ctx);
BuiltinResult builtin_kill(BuiltinContext& ctx);
BuiltinResult builtin_disown(BuiltinContext& ctx);
BuiltinResult builtin_fg(BuiltinContext& ctx);
BuiltinResult builtin_history(BuiltinContext& ctx);
BuiltinResult builtin_suspend(BuiltinContext& ctx);
BuiltinResult builtin_trap(BuiltinContext& ctx);
BuiltinResult builtin_times(BuiltinContext& ctx);
BuiltinResult builtin_ulimit(BuiltinContext& ctx);
BuiltinResult builtin_umask(BuiltinContext& ctx);
// directories.cpp: cd, pwd, pushd, popd, dirs
BuiltinResult builtin_cd(BuiltinContext& ctx);
BuiltinResult builtin_pwd(BuiltinContext& ctx);
BuiltinResult builtin_pushd(BuiltinContext& ctx);
BuiltinResult builtin_popd(BuiltinContext& ctx);
BuiltinResult builtin_dirs(BuiltinContext& ctx);
// commands.cpp: type, command, builtin, enable, alias, unalias, hash, help, caller, compgen
BuiltinResult builtin_type(BuiltinContext& ctx);
BuiltinResult builtin_command(BuiltinContext& ctx);
BuiltinResult builtin_builtin(BuiltinContext& ctx);
BuiltinResult builtin_enable(BuiltinContext& ctx);
BuiltinResult builtin_alias(BuiltinContext& ctx);
BuiltinResult builtin_unalias(BuiltinContext& ctx);
BuiltinResult builtin_hash(BuiltinContext& ctx);
BuiltinResult builtin_help(BuiltinContext& ctx);
BuiltinResult builtin_caller(BuiltinContext& ctx);
BuiltinResult builtin_compgen(BuiltinContext& ctx);

}  // namespace bashkit::interp
