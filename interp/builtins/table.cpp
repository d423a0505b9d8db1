// The table of shell builtins (name -> function, sorted), the lookup every simple command makes, and
// Exec::run_builtin, which calls one and turns its result into $? and the flow.
#include <cstring>

#include "interp/builtin_names.hpp"
#include "interp/builtins/builtin.hpp"
#include "interp/exec.hpp"

namespace bashkit::interp {

// ---------------------------------------------------------------- table

namespace {
// name, function, special (POSIX), declaration utility, help
const BuiltinInfo kBuiltins[] = {
    {".", &builtin_source, true, false, ". filename [arguments]"},
    {":", &builtin_colon, true, false, ": [arguments]"},
    {"[", &builtin_bracket, false, false, "[ arg... ]"},
    {"alias", &builtin_alias, false, false, "alias [-p] [name[=value] ... ]"},
    {"bg", &builtin_fg, false, false, "bg [job_spec ...]"},
    {"break", &builtin_break, true, false, "break [n]"},
    {"builtin", &builtin_builtin, false, false, "builtin [shell-builtin [arg ...]]"},
    {"caller", &builtin_caller, false, false, "caller [expr]"},
    {"cd", &builtin_cd, false, false, "cd [-L|[-P [-e]] [-@]] [dir]"},
    {"command", &builtin_command, false, false, "command [-pVv] command [arg ...]"},
    {"compgen", &builtin_compgen, false, false, "compgen [-abcdefgjksuv] [-o option] [-A action] [-G globpat] [-W wordlist] [-P prefix] [-S suffix] [-X filterpat] [word]"},
    {"continue", &builtin_continue, true, false, "continue [n]"},
    {"declare", &builtin_declare, false, true, "declare [-aAfFgiIlnrtux] [name[=value] ...] or declare -p [-aAfFilnrtux] [name ...]"},
    {"dirs", &builtin_dirs, false, false, "dirs [-clpv] [+N] [-N]"},
    {"disown", &builtin_disown, false, false, "disown [-h] [-ar] [jobspec ... | pid ...]"},
    {"echo", &builtin_echo, false, false, "echo [-neE] [arg ...]"},
    {"enable", &builtin_enable, false, false, "enable [-a] [-dnps] [-f filename] [name ...]"},
    {"eval", &builtin_eval, true, false, "eval [arg ...]"},
    {"exec", &builtin_exec, true, false, "exec [-cl] [-a name] [command [argument ...]] [redirection ...]"},
    {"exit", &builtin_exit, true, false, "exit [n]"},
    {"export", &builtin_export, true, true, "export [-fn] [name[=value] ...] or export -p"},
    {"false", &builtin_false, false, false, "false"},
    {"fg", &builtin_fg, false, false, "fg [job_spec]"},
    {"getopts", &builtin_getopts, false, false, "getopts optstring name [arg ...]"},
    {"hash", &builtin_hash, false, false, "hash [-lr] [-p pathname] [-dt] [name ...]"},
    {"help", &builtin_help, false, false, "help [-dms] [pattern ...]"},
    {"history", &builtin_history, false, false, "history [-c] [-d offset] [n] or history -anrw [filename] or history -ps arg [arg...]"},
    {"jobs", &builtin_jobs, false, false, "jobs [-lnprs] [jobspec ...] or jobs -x command [args]"},
    {"kill", &builtin_kill, false, false, "kill [-s sigspec | -n signum | -sigspec] pid | jobspec ... or kill -l [sigspec]"},
    {"let", &builtin_let, false, false, "let arg [arg ...]"},
    {"local", &builtin_local, false, true, "local [option] name[=value] ..."},
    {"logout", &builtin_logout, false, false, "logout [n]"},
    {"mapfile", &builtin_mapfile, false, false, "mapfile [-d delim] [-n count] [-O origin] [-s count] [-t] [-u fd] [-C callback] [-c quantum] [array]"},
    {"popd", &builtin_popd, false, false, "popd [-n] [+N | -N]"},
    {"printf", &builtin_printf, false, false, "printf [-v var] format [arguments]"},
    {"pushd", &builtin_pushd, false, false, "pushd [-n] [+N | -N | dir]"},
    {"pwd", &builtin_pwd, false, false, "pwd [-LP]"},
    {"read", &builtin_read, false, false, "read [-ers] [-a array] [-d delim] [-i text] [-n nchars] [-N nchars] [-p prompt] [-t timeout] [-u fd] [name ...]"},
    {"readarray", &builtin_mapfile, false, false, "readarray [-d delim] [-n count] [-O origin] [-s count] [-t] [-u fd] [-C callback] [-c quantum] [array]"},
    {"readonly", &builtin_readonly, true, true, "readonly [-aAf] [name[=value] ...] or readonly -p"},
    {"return", &builtin_return, true, false, "return [n]"},
    {"set", &builtin_set, true, false, "set [-abefhkmnptuvxBCEHPT] [-o option-name] [--] [-] [arg ...]"},
    {"shift", &builtin_shift, true, false, "shift [n]"},
    {"shopt", &builtin_shopt, false, false, "shopt [-pqsu] [-o] [optname ...]"},
    {"source", &builtin_source, false, false, "source filename [arguments]"},
    {"suspend", &builtin_suspend, false, false, "suspend [-f]"},
    {"test", &builtin_test, false, false, "test [expr]"},
    {"times", &builtin_times, true, false, "times"},
    {"trap", &builtin_trap, true, false, "trap [-lp] [[arg] signal_spec ...]"},
    {"true", &builtin_true, false, false, "true"},
    {"type", &builtin_type, false, false, "type [-afptP] name [name ...]"},
    {"typeset", &builtin_declare, false, true, "typeset [-aAfFgiIlnrtux] name[=value] ... or typeset -p [-aAfFilnrtux] [name ...]"},
    {"ulimit", &builtin_ulimit, false, false, "ulimit [-SHabcdefiklmnpqrstuvxPRT] [limit]"},
    {"umask", &builtin_umask, false, false, "umask [-p] [-S] [mode]"},
    {"unalias", &builtin_unalias, false, false, "unalias [-a] name [name ...]"},
    {"unset", &builtin_unset, true, false, "unset [-f] [-v] [-n] [name ...]"},
    {"wait", &builtin_wait, false, false, "wait [-fn] [-p var] [id ...]"},
};
}  // namespace

std::span<const BuiltinInfo> builtin_table() { return kBuiltins; }

bool is_shell_builtin(std::string_view name) { return find_builtin(name) != nullptr; }

const BuiltinInfo* find_builtin(std::string_view name) {
    // Runs for every simple command, so no strlen per probe: the table is sorted by name (ASCII), so the
    // names with one first byte are a contiguous run, indexed once; a run holds at most a few names.
    struct Index {
        uint8_t begin[256] = {};
        uint8_t end[256] = {};
        uint8_t len[std::size(kBuiltins)] = {};
        Index() {
            for (size_t i = std::size(kBuiltins); i-- > 0;) {
                auto c = static_cast<unsigned char>(kBuiltins[i].name[0]);
                if (end[c] == 0) end[c] = static_cast<uint8_t>(i + 1);
                begin[c] = static_cast<uint8_t>(i);
                len[i] = static_cast<uint8_t>(std::strlen(kBuiltins[i].name));
            }
        }
    };
    static_assert(std::size(kBuiltins) < 255);
    static const Index index;
    if (name.empty() || name.size() > 16) return nullptr;
    auto c = static_cast<unsigned char>(name[0]);
    for (uint8_t i = index.begin[c]; i < index.end[c]; ++i)
        if (index.len[i] == name.size() && std::memcmp(kBuiltins[i].name, name.data(), name.size()) == 0)
            return &kBuiltins[i];
    return nullptr;
}

Flow Exec::run_builtin(const BuiltinInfo& b, std::vector<std::string>& argv, const DeclArgs* decls) {
    broken_pipe_ = false;
    BuiltinContext ctx{*this, argv, decls};
    BuiltinResult r{0};
    // A command boundary: a builtin over the memory budget (printf, read, mapfile...) fails alone (what it
    // ran itself, eval or source, was contained by the commands inside).
    assign_arith_error_ = false;
    {
        BuiltinNameScope name(*this, b.name);
        try {
            r = b.fn(ctx);
        } catch (...) {
            StreamPtr e = fd(2);
            if (e) report_exception(b.name, *e);
            r = BuiltinResult{1};
        }
    }
    state_.status = r.status;
    if (assign_fatal()) return Flow::Exit;  // declare -i n='a b', read into an integer variable...
    if (broken_pipe_ && is_subshell_ && r.flow == Flow::Normal) {
        exit_status_ = 141;
        state_.status = 141;
        return Flow::Exit;
    }
    return r.flow;
}

}  // namespace bashkit::interp
