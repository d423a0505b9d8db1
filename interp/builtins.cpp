// Shell builtins, part 1: the table, options, echo/printf, cd/pwd, variables and declarations, set/shopt,
// control flow, eval/source.
#include <algorithm>
#include <cstring>

#include "interp/builtin_names.hpp"
#include "interp/builtins/builtin.hpp"
#include "interp/exec.hpp"
#include "interp/printf.hpp"
#include "interp/quote.hpp"
#include "interp/syntax/printer.hpp"

namespace bashkit::interp {

// ---------------------------------------------------------------- options

namespace {
constexpr OptInfo kOpts[kOptCount] = {
    {"allexport", 'a', false}, {"braceexpand", 'B', true}, {"emacs", 0, false}, {"errexit", 'e', false},
    {"errtrace", 'E', false}, {"functrace", 'T', false}, {"hashall", 'h', true}, {"histexpand", 'H', false},
    {"history", 0, false}, {"ignoreeof", 0, false}, {"interactive-comments", 0, true}, {"keyword", 'k', false},
    {"monitor", 'm', false}, {"noclobber", 'C', false}, {"noexec", 'n', false}, {"noglob", 'f', false},
    {"nolog", 0, false}, {"notify", 'b', false}, {"nounset", 'u', false}, {"onecmd", 't', false},
    {"physical", 'P', false}, {"pipefail", 0, false}, {"posix", 0, false}, {"privileged", 'p', false},
    {"verbose", 'v', false}, {"vi", 0, false}, {"xtrace", 'x', false},
    // shopt
    {"autocd", 0, false}, {"assoc_expand_once", 0, false}, {"cdable_vars", 0, false}, {"cdspell", 0, false},
    {"checkhash", 0, false}, {"checkjobs", 0, false}, {"checkwinsize", 0, true}, {"cmdhist", 0, true},
    {"compat31", 0, false}, {"compat32", 0, false}, {"compat40", 0, false}, {"compat41", 0, false},
    {"compat42", 0, false}, {"compat43", 0, false}, {"compat44", 0, false}, {"complete_fullquote", 0, true},
    {"direxpand", 0, false}, {"dirspell", 0, false}, {"dotglob", 0, false}, {"execfail", 0, false},
    {"expand_aliases", 0, false}, {"extdebug", 0, false}, {"extglob", 0, false}, {"extquote", 0, true},
    {"failglob", 0, false}, {"force_fignore", 0, true}, {"globasciiranges", 0, true}, {"globskipdots", 0, true},
    {"globstar", 0, false}, {"gnu_errfmt", 0, false}, {"histappend", 0, false}, {"histreedit", 0, false},
    {"histverify", 0, false}, {"hostcomplete", 0, true}, {"huponexit", 0, false}, {"inherit_errexit", 0, false},
    {"interactive_comments", 0, true}, {"lastpipe", 0, false}, {"lithist", 0, false},
    {"localvar_inherit", 0, false}, {"localvar_unset", 0, false}, {"login_shell", 0, false},
    {"mailwarn", 0, false}, {"no_empty_cmd_completion", 0, false}, {"nocaseglob", 0, false},
    {"nocasematch", 0, false}, {"noexpand_translation", 0, false}, {"nullglob", 0, false},
    {"patsub_replacement", 0, true}, {"progcomp", 0, true}, {"progcomp_alias", 0, false}, {"promptvars", 0, true},
    {"restricted_shell", 0, false}, {"shift_verbose", 0, false}, {"sourcepath", 0, true},
    {"varredir_close", 0, false}, {"xpg_echo", 0, false},
};
}  // namespace

const OptInfo& opt_info(int opt) { return kOpts[opt]; }

int find_set_option(std::string_view name) {
    for (int i = 0; i < kSetOptCount; ++i)
        if (name == kOpts[i].name) return i;
    return -1;
}
int find_shopt(std::string_view name) {
    for (int i = kSetOptCount; i < kOptCount; ++i)
        if (name == kOpts[i].name) return i;
    return -1;
}
int find_set_letter(char c) {
    for (int i = 0; i < kSetOptCount; ++i)
        if (kOpts[i].letter == c) return i;
    return -1;
}
Options default_options() {
    Options o;
    for (int i = 0; i < kOptCount; ++i) o[static_cast<size_t>(i)] = kOpts[i].def;
    return o;
}

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

Flow Exec::run_builtin(const BuiltinInfo& b, std::vector<std::string>& argv,
                       const std::vector<const sx::Assign*>* decls) {
    broken_pipe_ = false;
    BuiltinContext ctx{*this, argv, decls};
    BuiltinResult r{0};
    // A command boundary: a builtin over the memory budget (printf, read, mapfile...) fails alone (what it
    // ran itself, eval or source, was contained by the commands inside).
    try {
        r = b.fn(ctx);
    } catch (...) {
        StreamPtr e = fd(2);
        if (e) report_exception(b.name, *e);
        r = BuiltinResult{1};
    }
    st_.status = r.status;
    if (broken_pipe_ && is_subshell_ && r.flow == Flow::Normal) {
        exit_status_ = 141;
        st_.status = 141;
        return Flow::Exit;
    }
    return r.flow;
}

// ---------------------------------------------------------------- trivial

BuiltinResult builtin_colon(BuiltinContext&) { return 0; }
BuiltinResult builtin_true(BuiltinContext&) { return 0; }
BuiltinResult builtin_false(BuiltinContext&) { return 1; }

// ---------------------------------------------------------------- echo / printf

BuiltinResult builtin_echo(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    bool newline = true;
    bool escapes = sh.st_.opts[ShXpgEcho];
    size_t i = 1;
    for (; i < a.size(); ++i) {
        const std::string& s = a[i];
        if (s.size() < 2 || s[0] != '-') break;
        bool ok = true;
        for (size_t k = 1; k < s.size(); ++k)
            if (s[k] != 'n' && s[k] != 'e' && s[k] != 'E') ok = false;
        if (!ok) break;
        for (size_t k = 1; k < s.size(); ++k) {
            if (s[k] == 'n') newline = false;
            else if (s[k] == 'e') escapes = true;
            else escapes = false;
        }
    }
    std::string out;
    for (size_t k = i; k < a.size(); ++k) {
        if (k > i) out.push_back(' ');
        if (escapes) {
            DecodeResult d = ansi_c_decode(a[k], EscapeMode::Echo);
            out += d.bytes;
            if (d.saw_c) {
                newline = false;
                break;
            }
        } else {
            out += a[k];
        }
    }
    if (newline) out.push_back('\n');
    if (!sh.write_out(out)) {
        if (sh.broken_pipe_) return 141;
        return sh.builtin_error("echo", "write error: Bad file descriptor");
    }
    return 0;
}

BuiltinResult builtin_printf(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    size_t i = 1;
    std::string var;
    while (i < a.size()) {
        if (a[i] == "--") {
            ++i;
            break;
        }
        if (a[i] == "-v" && i + 1 < a.size()) {
            var = a[i + 1];
            i += 2;
            continue;
        }
        if (a[i].starts_with("-v") && a[i].size() > 2) {
            var = a[i].substr(2);
            ++i;
            continue;
        }
        if (a[i].size() > 1 && a[i][0] == '-' && a[i] != "-") {
            sh.builtin_error("printf", a[i] + ": invalid option");
            sh.write_err("printf: usage: printf [-v var] format [arguments]\n");
            return 2;
        }
        break;
    }
    if (i >= a.size()) {
        sh.write_err("printf: usage: printf [-v var] format [arguments]\n");
        return 2;
    }
    if (!var.empty()) {
        std::string base = var.substr(0, var.find('['));
        if (!valid_name(base)) return sh.builtin_error("printf", "`" + var + "': not a valid identifier");
    }
    PrintfContext pctx;
    pctx.max_output = std::min(sh.s_.limits.max_printf_width * 4 + 4096, sh.s_.limits.max_variable_bytes);
    pctx.now = sh.s_.clock->now().sec;
    pctx.shell_start = sh.s_.wall_start;
    std::span<const std::string> args(a.data() + i + 1, a.size() - i - 1);
    PrintfResult r = format(a[i], args, pctx);
    for (const auto& d : r.diagnostics) sh.error(d);
    for (const auto& [name, val] : r.assignments) (void)sh.assign(name, to_dec(val));
    if (!var.empty()) {
        size_t lb = var.find('[');
        bool ok = lb == std::string::npos
                      ? sh.assign(var, r.output)
                      : sh.assign_elem(var.substr(0, lb), var.substr(lb + 1, var.size() - lb - 2), r.output, false);
        if (!ok) return 1;
    } else if (!r.output.empty() && !sh.write_out(r.output)) {
        if (sh.broken_pipe_) return 141;
        return sh.builtin_error("printf", "write error: Bad file descriptor");
    }
    return r.status;
}

// ---------------------------------------------------------------- cd / pwd / dirs

namespace {
// Lexical normalisation of an absolute path.
std::string normalize(std::string_view p) {
    std::vector<std::string_view> parts;
    size_t i = 0;
    while (i < p.size()) {
        while (i < p.size() && p[i] == '/') ++i;
        size_t j = i;
        while (j < p.size() && p[j] != '/') ++j;
        std::string_view c = p.substr(i, j - i);
        i = j;
        if (c.empty() || c == ".") continue;
        if (c == "..") {
            if (!parts.empty()) parts.pop_back();
            continue;
        }
        parts.push_back(c);
    }
    std::string out;
    for (auto c : parts) {
        out.push_back('/');
        out.append(c);
    }
    if (out.empty()) out = "/";
    // POSIX leaves a leading "//" implementation-defined; bash keeps it.
    if (p.size() >= 2 && p[0] == '/' && p[1] == '/' && (p.size() == 2 || p[2] != '/')) out.insert(0, "/");
    return out;
}
}  // namespace

bool Exec::cd_to(const std::string& target, bool physical, bool print) {
    std::string path = target.starts_with("/") ? target : (st_.cwd == "/" ? "/" : st_.cwd + "/") + target;
    std::string logical = normalize(path);
    std::string dest = logical;
    if (physical) {
        auto rp = s_.fs.realpath(path);
        if (!rp) {
            builtin_error("cd", target + ": " + std::string(vfs::error_message(rp.error())));
            return false;
        }
        dest = *rp;
    }
    auto st = s_.fs.stat(physical ? dest : path);
    if (!st) {
        // The lexical path may not exist while the physical one does (a/.. through a symlink).
        builtin_error("cd", target + ": " + std::string(vfs::error_message(st.error())));
        return false;
    }
    if (!st->is_directory()) {
        builtin_error("cd", target + ": Not a directory");
        return false;
    }
    std::string old = st_.cwd;
    st_.cwd = dest;
    (void)assign("OLDPWD", old);
    (void)assign("PWD", dest);
    if (print) write_out(dest + "\n");
    return true;
}

BuiltinResult builtin_cd(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    bool physical = sh.st_.opts[OptPhysical];
    size_t i = 1;
    for (; i < a.size(); ++i) {
        const std::string& s = a[i];
        if (s == "--") {
            ++i;
            break;
        }
        if (s.size() < 2 || s[0] != '-') break;
        bool ok = true;
        for (size_t k = 1; k < s.size(); ++k) {
            if (s[k] == 'P') physical = true;
            else if (s[k] == 'L') physical = false;
            else if (s[k] == 'e' || s[k] == '@') {
            } else ok = false;
        }
        if (!ok) {
            sh.builtin_error("cd", s + ": invalid option");
            sh.write_err("cd: usage: cd [-L|[-P [-e]] [-@]] [dir]\n");
            return 2;
        }
    }
    if (a.size() - i > 1) return sh.builtin_error("cd", "too many arguments");
    std::string target;
    bool print = false;
    if (i >= a.size()) {
        const std::string* h = sh.get_scalar("HOME");
        if (!h) return sh.builtin_error("cd", "HOME not set");
        target = *h;
        if (target.empty()) return 0;
    } else {
        target = a[i];
        if (target == "-") {
            const std::string* o = sh.get_scalar("OLDPWD");
            if (!o || o->empty()) return sh.builtin_error("cd", "OLDPWD not set");
            target = *o;
            print = true;
        } else if (!target.empty() && target[0] != '/' && !target.starts_with("./") && !target.starts_with("../") &&
                   target != "." && target != "..") {
            if (const std::string* cdpath = sh.get_scalar("CDPATH"); cdpath && !cdpath->empty()) {
                size_t start = 0;
                while (start <= cdpath->size()) {
                    size_t colon = cdpath->find(':', start);
                    std::string dir = cdpath->substr(start, colon == std::string::npos ? std::string::npos : colon - start);
                    if (!dir.empty()) {
                        std::string cand = sh.abs_path(dir + "/" + target);
                        if (sh.s_.fs.is_directory(cand)) {
                            return sh.cd_to(cand, physical, true) ? 0 : 1;
                        }
                    }
                    if (colon == std::string::npos) break;
                    start = colon + 1;
                }
            }
        }
    }
    if (target.empty()) return 0;
    return sh.cd_to(target, physical, print) ? 0 : 1;
}

BuiltinResult builtin_pwd(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    bool physical = sh.st_.opts[OptPhysical];
    for (size_t i = 1; i < a.size(); ++i) {
        if (a[i] == "-P") physical = true;
        else if (a[i] == "-L") physical = false;
        else if (a[i] == "--") break;
        else if (a[i][0] == '-') {
            sh.builtin_error("pwd", a[i] + ": invalid option");
            sh.write_err("pwd: usage: pwd [-LP]\n");
            return 2;
        }
    }
    std::string p = sh.st_.cwd;
    if (physical) {
        auto rp = sh.s_.fs.realpath(p);
        if (rp) p = *rp;
    }
    if (!sh.write_out(p + "\n")) return sh.broken_pipe_ ? 141 : 1;
    return 0;
}

// ---------------------------------------------------------------- declarations

namespace {
std::string attr_flags(const Var& v) {
    std::string f;
    if (v.attrs & kAttrIndexed) f += 'a';
    if (v.attrs & kAttrAssoc) f += 'A';
    if (v.attrs & kAttrInteger) f += 'i';
    if (v.attrs & kAttrNameref) f += 'n';
    if (v.attrs & kAttrReadonly) f += 'r';
    if (v.attrs & kAttrTrace) f += 't';
    if (v.attrs & kAttrExport) f += 'x';
    if (v.attrs & kAttrCapital) f += 'c';
    if (v.attrs & kAttrLower) f += 'l';
    if (v.attrs & kAttrUpper) f += 'u';
    return f;
}

std::string assoc_key(const std::string& k) {
    bool plain = !k.empty();
    for (unsigned char c : k)
        if (!(std::isalnum(c) || c == '_' || c == '-' || c == '.' || c == '/' || c == ':' || c == '@' || c >= 0x80)) plain = false;
    if (plain) return k;
    return quote_declare_value(k);
}

// name=value text for `set` and `declare -p` of arrays.
std::string array_body(const Var& v) {
    std::string out = "(";
    bool first = true;
    if (v.is_indexed() && v.idx) {
        for (const auto& [k, s] : v.idx->m) {
            if (!first) out += ' ';
            first = false;
            out += "[" + to_dec(k) + "]=" + quote_declare_value(s);
        }
    } else if (v.is_assoc() && v.assoc) {
        for (const auto& [k, s] : v.assoc->ordered()) {
            out += "[" + assoc_key(*k) + "]=" + quote_declare_value(*s) + " ";
        }
    }
    out += ")";
    return out;
}
}  // namespace

void Exec::print_declare(std::string_view name, const Var& v, std::string& out) {
    std::string flags = attr_flags(v);
    out += "declare -";
    out += flags.empty() ? "-" : flags;
    out += ' ';
    out += name;
    if (v.is_array()) {
        if (v.set || v.count() > 0) out += "=" + array_body(v);
    } else if (v.set) {
        out += "=" + quote_declare_value(v.str);
    }
    out += '\n';
}

void Exec::print_function(const Function& f, std::string& out) {
    // Re-print the definition through the syntax printer.
    sx::Arena arena;
    auto* script = arena.node<sx::Script>(f.def->pos);
    auto* stmt = arena.node<sx::Stmt>(f.def->pos);
    stmt->cmd = const_cast<sx::FuncDef*>(f.def);
    std::vector<sx::Stmt*> v{stmt};
    script->body = arena.list<sx::Stmt*>(v);
    std::string text = sx::print(*script);
    while (!text.empty() && text.back() == '\n') text.pop_back();
    out += text;
    out += '\n';
}

// declare, typeset and local (local_mode: the variables are made in the function scope).
BuiltinResult declare_impl(BuiltinContext& ctx, std::string_view cmd, bool local_mode) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& argv = ctx.args;
    uint16_t add = 0, remove = 0;
    bool print = false, funcs = false, func_names = false, global = false;
    size_t i = 1;
    const std::vector<const sx::Assign*>* decls = ctx.decls;
    auto decl_at = [&](size_t k) -> const sx::Assign* {
        return decls && k < decls->size() ? (*decls)[k] : nullptr;
    };
    for (; i < argv.size(); ++i) {
        const std::string& s = argv[i];
        if (decl_at(i)) break;
        if (s == "--") {
            ++i;
            break;
        }
        if (s.size() < 2 || (s[0] != '-' && s[0] != '+')) break;
        bool on = s[0] == '-';
        for (size_t k = 1; k < s.size(); ++k) {
            uint16_t bit = 0;
            switch (s[k]) {
                case 'a': bit = kAttrIndexed; break;
                case 'A': bit = kAttrAssoc; break;
                case 'i': bit = kAttrInteger; break;
                case 'l': bit = kAttrLower; break;
                case 'u': bit = kAttrUpper; break;
                case 'n': bit = kAttrNameref; break;
                case 'r': bit = kAttrReadonly; break;
                case 'x': bit = kAttrExport; break;
                case 't': bit = kAttrTrace; break;
                case 'c': bit = kAttrCapital; break;
                case 'p': print = true; continue;
                case 'f': funcs = true; continue;
                case 'F': funcs = func_names = true; continue;
                case 'g': global = true; continue;
                case 'I': continue;
                default:
                    sh.builtin_error(cmd, std::string("-") + s[k] + ": invalid option");
                    sh.write_err(std::string(cmd) + ": usage: " + find_builtin(cmd)->help + "\n");
                    return 2;
            }
            if (on) add |= bit;
            else remove |= bit;
        }
    }
    if (local_mode && sh.st_.frames.size() <= 1 && sh.call_depth_ == 0) {
        return sh.builtin_error(cmd, "can only be used in a function");
    }
    bool in_function = sh.st_.scope > 0 && sh.st_.frames.size() > 1;
    uint32_t scope = (global || !in_function) ? 0 : sh.st_.frames.back().scope;
    if (local_mode) scope = sh.st_.frames.back().scope;

    if (funcs) {
        std::string out;
        int status = 0;
        if (i >= argv.size()) {
            std::vector<std::string> names;
            for (const auto& [k, f] : sh.st_.funcs) names.push_back(k);
            std::sort(names.begin(), names.end());
            for (const auto& n : names) {
                const auto& f = sh.st_.funcs[n];
                if (add && !(f->attrs & add)) continue;
                if (func_names) {
                    out += "declare -f" + std::string((f->attrs & kAttrExport) ? "x" : "") + " " + n + "\n";
                } else {
                    sh.print_function(*f, out);
                }
            }
        } else {
            for (; i < argv.size(); ++i) {
                auto it = sh.st_.funcs.find(argv[i]);
                if (it == sh.st_.funcs.end()) {
                    status = 1;
                    continue;
                }
                if (add || remove) {
                    auto nf = std::make_shared<Function>(*it->second);
                    nf->attrs = static_cast<uint16_t>((nf->attrs | (add & (kAttrExport | kAttrReadonly | kAttrTrace))) & ~remove);
                    it->second = nf;
                    continue;
                }
                if (func_names)
                    out += argv[i] + "\n";
                else
                    sh.print_function(*it->second, out);
            }
        }
        sh.write_out(out);
        return status;
    }

    if (print || (i >= argv.size() && !add && !remove)) {
        std::string out;
        int status = 0;
        if (i >= argv.size()) {
            for (const auto& [name, v] : sh.st_.vars.visible()) {
                if (add && (v->attrs & add) != add) continue;
                if (v->dyn != DynVar::None) {
                    const Var* d = sh.lookup(*name);
                    if (!d) continue;
                    if (print || add) sh.print_declare(*name, *d, out);
                    else if (d->is_array()) out += *name + "=" + array_body(*d) + "\n";
                    else out += *name + "=" + quote_set_value(d->str) + "\n";
                    continue;
                }
                if (!print && !add) {
                    if (!v->set && !v->is_array()) continue;
                    if (v->is_array())
                        out += *name + "=" + array_body(*v) + "\n";
                    else
                        out += *name + "=" + quote_set_value(v->str) + "\n";
                    continue;
                }
                sh.print_declare(*name, *v, out);
            }
        } else {
            for (; i < argv.size(); ++i) {
                const std::string& n = argv[i];
                const Var* v = sh.st_.vars.find(n);
                if (v && v->dyn != DynVar::None) v = sh.lookup(n);
                if (!v) {
                    sh.builtin_error(cmd, n + ": not found");
                    status = 1;
                    continue;
                }
                sh.print_declare(n, *v, out);
            }
        }
        sh.write_out(out);
        return status;
    }

    int status = 0;
    for (; i < argv.size(); ++i) {
        const sx::Assign* as = decl_at(i);
        std::string name;
        std::string value;
        bool has_value = false;
        bool append = false;
        if (as) {
            name = std::string(as->name);
        } else {
            const std::string& s = argv[i];
            size_t eq = s.find('=');
            if (eq == std::string::npos) {
                name = s;
            } else {
                name = s.substr(0, eq);
                value = s.substr(eq + 1);
                has_value = true;
                if (!name.empty() && name.back() == '+') {
                    append = true;
                    name.pop_back();
                }
            }
        }
        std::string base = name.substr(0, name.find('['));
        if (!valid_name(base)) {
            sh.builtin_error(cmd, "`" + argv[i] + "': not a valid identifier");
            status = 1;
            continue;
        }
        // The value is expanded before the binding exists (`local a=("${a[@]}")` reads the outer a).
        Exec::AssignValue preval;
        if (as) {
            Ex r = sh.eval_assign_value(as, preval);
            if (r == Ex::Fatal) {
                return {1, Flow::Exit};
            }
            if (r != Ex::Ok) {
                status = 1;
                continue;
            }
        }
        // The binding to work on.
        Var* v = nullptr;
        if (scope == 0 && !global) {
            v = sh.st_.vars.find(base);
            if (!v || (in_function && false)) v = &sh.st_.vars.global(base);
        } else if (scope == 0) {
            v = &sh.st_.vars.global(base);
        } else {
            bool created = false;
            Var* outer = sh.st_.vars.find(base);
            Var copy_from;
            bool inherit = outer && sh.st_.opts[ShLocalvarInherit];
            if (inherit) copy_from = *outer;
            v = &sh.st_.vars.declare_at(base, scope, &created);
            if (created && inherit) {
                *v = copy_from;
                v->attrs &= static_cast<uint16_t>(~kAttrReadonly);
            }
        }
        if (v->readonly() && (has_value || as || (remove & kAttrReadonly) || add)) {
            if (has_value || as) {
                sh.builtin_error(cmd, base + ": readonly variable");
                status = 1;
                continue;
            }
            if (remove & kAttrReadonly) {
                sh.builtin_error(cmd, base + ": readonly variable");
                status = 1;
                continue;
            }
        }
        if ((add & kAttrAssoc) && v->is_indexed()) {
            sh.builtin_error(cmd, base + ": cannot convert indexed to associative array");
            status = 1;
            continue;
        }
        if ((add & kAttrIndexed) && v->is_assoc()) {
            sh.builtin_error(cmd, base + ": cannot convert associative to indexed array");
            status = 1;
            continue;
        }
        if (v->dyn != DynVar::None && (add || remove)) v->dyn = DynVar::None;
        // Attributes first, so the value is converted.
        uint16_t newattrs = static_cast<uint16_t>((v->attrs | add) & ~remove & ~kAttrReadonly);
        if (add & kAttrUpper) newattrs &= static_cast<uint16_t>(~kAttrLower);
        if (add & kAttrLower) newattrs &= static_cast<uint16_t>(~kAttrUpper);
        if ((add & kAttrIndexed) && !v->is_indexed()) {
            auto arr = std::make_shared<IndexedArray>();
            if (v->set) arr->m[0] = v->str;
            v->str.clear();
            v->idx = std::move(arr);
        }
        if ((add & kAttrAssoc) && !v->is_assoc()) {
            v->assoc = std::make_shared<AssocArray>();
            if (v->set && !v->str.empty()) v->assoc->slot("0") = v->str;
            v->str.clear();
        }
        if ((newattrs & kAttrNameref) && !(v->attrs & kAttrNameref) && !has_value && !as && v->set) {
            // declare -n on an existing variable: its value becomes the target name.
            if (!valid_name(v->str)) {
                sh.builtin_error(cmd, v->str + ": invalid variable name for name reference");
                status = 1;
                continue;
            }
        }
        v->attrs = static_cast<uint16_t>(newattrs | (v->attrs & kAttrReadonly));
        if (as) {
            if (as->is_array && !v->is_array() && !(v->attrs & kAttrNameref)) {
                v->attrs |= kAttrIndexed;
                v->idx = std::make_shared<IndexedArray>();
                v->str.clear();
            }
            Ex r = sh.do_assign(as, scope == 0 && !global ? (sh.st_.vars.scope_of(base) < 0 ? 0 : static_cast<uint32_t>(sh.st_.vars.scope_of(base))) : scope, 0, &preval);
            if (r == Ex::Fatal) {
                return {1, Flow::Exit};
            }
            if (r != Ex::Ok) status = 1;
            v = sh.st_.vars.find(base);
            if (v && (add & kAttrNameref) && v->set && !valid_name(v->str.substr(0, v->str.find('[')))) {
                sh.builtin_error(cmd, "`" + v->str + "': invalid variable name for name reference");
                v->attrs &= static_cast<uint16_t>(~kAttrNameref);
                status = 1;
            }
        } else if (has_value) {
            if (v->attrs & kAttrNameref) {
                v->str = value;
                v->set = true;
            } else if (name.find('[') != std::string::npos && name.back() == ']') {
                std::string key = name.substr(base.size() + 1, name.size() - base.size() - 2);
                if (!sh.assign_elem(base, key, value, append)) status = 1;
            } else if (!sh.assign_to(*v, base, value, append)) {
                status = 1;
            }
        } else if (v->is_array() && !v->set) {
            // `declare -a a` leaves it declared without elements.
        }
        if (v && (add & kAttrReadonly)) v->attrs |= kAttrReadonly;
    }
    return status;
}

BuiltinResult builtin_declare(BuiltinContext& ctx) {
    return declare_impl(ctx, ctx.args[0], false);
}

BuiltinResult builtin_local(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    if (sh.call_depth_ == 0 || sh.st_.frames.size() <= 1) return sh.builtin_error("local", "can only be used in a function");
    return declare_impl(ctx, "local", true);
}

BuiltinResult builtin_export(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    bool unexport = false, funcs = false, print = false;
    size_t i = 1;
    for (; i < a.size(); ++i) {
        const std::string& s = a[i];
        if (ctx.decls && i < ctx.decls->size() && (*ctx.decls)[i]) break;
        if (s == "--") {
            ++i;
            break;
        }
        if (s.size() < 2 || s[0] != '-') break;
        for (size_t k = 1; k < s.size(); ++k) {
            if (s[k] == 'n') unexport = true;
            else if (s[k] == 'f') funcs = true;
            else if (s[k] == 'p') print = true;
            else {
                sh.builtin_error("export", std::string("-") + s[k] + ": invalid option");
                sh.write_err("export: usage: export [-fn] [name[=value] ...] or export -p\n");
                return 2;
            }
        }
    }
    if (i >= a.size() || (print && i >= a.size())) {
        std::string out;
        if (funcs) {
            for (const auto& [k, f] : sh.st_.funcs)
                if (f->attrs & kAttrExport) sh.print_function(*f, out);
        } else {
            for (const auto& [name, v] : sh.st_.vars.visible())
                if (v->attrs & kAttrExport) sh.print_declare(*name, *v, out);
        }
        sh.write_out(out);
        return 0;
    }
    if (funcs) {
        int status = 0;
        for (; i < a.size(); ++i) {
            auto it = sh.st_.funcs.find(a[i]);
            if (it == sh.st_.funcs.end()) {
                sh.builtin_error("export", a[i] + ": not a function");
                status = 1;
                continue;
            }
            auto nf = std::make_shared<Function>(*it->second);
            if (unexport) nf->attrs &= static_cast<uint16_t>(~kAttrExport);
            else nf->attrs |= kAttrExport;
            it->second = nf;
        }
        return status;
    }
    int status = 0;
    for (; i < a.size(); ++i) {
        const sx::Assign* as = ctx.decls && i < ctx.decls->size() ? (*ctx.decls)[i] : nullptr;
        std::string name;
        if (as) {
            name = std::string(as->name);
            Ex r = sh.do_assign(as);
            if (r == Ex::Fatal) {
                return {1, Flow::Exit};
            }
            if (r != Ex::Ok) {
                status = 1;
                continue;
            }
        } else {
            const std::string& s = a[i];
            size_t eq = s.find('=');
            name = s.substr(0, eq);
            bool append = false;
            if (eq != std::string::npos && !name.empty() && name.back() == '+') {
                append = true;
                name.pop_back();
            }
            if (!valid_name(name)) {
                sh.builtin_error("export", "`" + s + "': not a valid identifier");
                status = 1;
                continue;
            }
            if (eq != std::string::npos && !sh.assign(name, s.substr(eq + 1), append)) {
                status = 1;
                continue;
            }
        }
        Var* v = sh.lookup_mut(name);
        if (!v) v = &sh.st_.vars.lookup_or_create(name);
        if (unexport)
            v->attrs &= static_cast<uint16_t>(~kAttrExport);
        else
            v->attrs |= kAttrExport;
    }
    return status;
}

BuiltinResult builtin_readonly(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    bool funcs = false, print = false;
    uint16_t type = 0;
    size_t i = 1;
    for (; i < a.size(); ++i) {
        const std::string& s = a[i];
        if (ctx.decls && i < ctx.decls->size() && (*ctx.decls)[i]) break;
        if (s == "--") {
            ++i;
            break;
        }
        if (s.size() < 2 || s[0] != '-') break;
        for (size_t k = 1; k < s.size(); ++k) {
            if (s[k] == 'f') funcs = true;
            else if (s[k] == 'p') print = true;
            else if (s[k] == 'a') type = kAttrIndexed;
            else if (s[k] == 'A') type = kAttrAssoc;
            else {
                sh.builtin_error("readonly", std::string("-") + s[k] + ": invalid option");
                return 2;
            }
        }
    }
    if (i >= a.size()) {
        std::string out;
        if (funcs) {
            for (const auto& [k, f] : sh.st_.funcs)
                if (f->attrs & kAttrReadonly) sh.print_function(*f, out);
        } else {
            for (const auto& [name, v] : sh.st_.vars.visible())
                if (v->attrs & kAttrReadonly) sh.print_declare(*name, *v, out);
        }
        (void)print;
        sh.write_out(out);
        return 0;
    }
    if (funcs) {
        int status = 0;
        for (; i < a.size(); ++i) {
            auto it = sh.st_.funcs.find(a[i]);
            if (it == sh.st_.funcs.end()) {
                sh.builtin_error("readonly", a[i] + ": not a function");
                status = 1;
                continue;
            }
            auto nf = std::make_shared<Function>(*it->second);
            nf->attrs |= kAttrReadonly;
            it->second = nf;
        }
        return status;
    }
    int status = 0;
    for (; i < a.size(); ++i) {
        const sx::Assign* as = ctx.decls && i < ctx.decls->size() ? (*ctx.decls)[i] : nullptr;
        std::string name;
        if (as) {
            name = std::string(as->name);
            Var* cur = sh.lookup_mut(name);
            if (type && (!cur || !cur->is_array())) {
                Var& nv = cur ? *cur : sh.st_.vars.lookup_or_create(name);
                nv.attrs |= type;
                if (type == kAttrAssoc) nv.assoc = std::make_shared<AssocArray>();
                else nv.idx = std::make_shared<IndexedArray>();
            }
            Ex r = sh.do_assign(as);
            if (r == Ex::Fatal) {
                return {1, Flow::Exit};
            }
            if (r != Ex::Ok) {
                status = 1;
                continue;
            }
        } else {
            const std::string& s = a[i];
            size_t eq = s.find('=');
            name = s.substr(0, eq);
            if (!valid_name(name)) {
                sh.builtin_error("readonly", "`" + s + "': not a valid identifier");
                status = 1;
                continue;
            }
            if (eq != std::string::npos && !sh.assign(name, s.substr(eq + 1))) {
                status = 1;
                continue;
            }
        }
        Var* v = sh.lookup_mut(name);
        if (!v) v = &sh.st_.vars.lookup_or_create(name);
        if (type && !v->is_array()) {
            v->attrs |= type;
            if (type == kAttrAssoc) v->assoc = std::make_shared<AssocArray>();
            else v->idx = std::make_shared<IndexedArray>();
        }
        v->attrs |= kAttrReadonly;
    }
    return status;
}

BuiltinResult builtin_unset(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    bool funcs = false, vars = false, nameref = false;
    size_t i = 1;
    for (; i < a.size(); ++i) {
        const std::string& s = a[i];
        if (s == "--") {
            ++i;
            break;
        }
        if (s.size() < 2 || s[0] != '-') break;
        for (size_t k = 1; k < s.size(); ++k) {
            if (s[k] == 'f') funcs = true;
            else if (s[k] == 'v') vars = true;
            else if (s[k] == 'n') nameref = true;
            else {
                sh.builtin_error("unset", std::string("-") + s[k] + ": invalid option");
                sh.write_err("unset: usage: unset [-f] [-v] [-n] [name ...]\n");
                return 2;
            }
        }
    }
    int status = 0;
    for (; i < a.size(); ++i) {
        std::string name = a[i];
        if (funcs) {
            auto it = sh.st_.funcs.find(name);
            if (it != sh.st_.funcs.end()) {
                if (it->second->attrs & kAttrReadonly) {
                    sh.builtin_error("unset", name + ": cannot unset: readonly function");
                    status = 1;
                    continue;
                }
                sh.st_.vars.add_bytes(-static_cast<int64_t>(function_bytes(it->first)));
                sh.st_.funcs.erase(it);
            }
            continue;
        }
        size_t lb = name.find('[');
        if (lb != std::string::npos && name.back() == ']') {
            std::string base = name.substr(0, lb);
            std::string sub = name.substr(lb + 1, name.size() - lb - 2);
            if (!valid_name(base)) {
                sh.builtin_error("unset", "`" + name + "': not a valid identifier");
                status = 1;
                continue;
            }
            Var* v = sh.lookup_mut(base);
            if (!v) continue;
            if (v->readonly()) {
                sh.builtin_error("unset", base + ": cannot unset: readonly variable");
                status = 1;
                continue;
            }
            if (sub == "@" || sub == "*") {
                if (v->is_assoc()) {
                    sh.st_.vars.add_bytes(-static_cast<int64_t>(var_bytes(*v)));
                    v->assoc_mut().clear();
                    continue;
                }
                std::string b = base;
                (void)sh.unset_var(b);
                continue;
            }
            if (v->is_assoc()) {
                AssocArray& arr = v->assoc_mut();
                if (const std::string* old = arr.get(sub))
                    sh.st_.vars.add_bytes(-static_cast<int64_t>(sub.size() + old->size() + kElemOverhead));
                arr.erase(sub);
            } else if (v->is_indexed()) {
                int64_t k = 0;
                Ex r = sh.arith_text(sub, k, false);
                if (r != Ex::Ok) {
                    status = 1;
                    continue;
                }
                IndexedArray& arr = v->idx_mut();
                if (k < 0) {
                    int64_t n = arr.next_index();
                    if (k + n < 0) {
                        sh.builtin_error("unset", base + "[" + sub + "]: bad array subscript");
                        status = 1;
                        continue;
                    }
                    k += n;
                }
                auto it = arr.m.find(k);
                if (it != arr.m.end()) {
                    sh.st_.vars.add_bytes(-static_cast<int64_t>(it->second.size() + kElemOverhead));
                    arr.m.erase(it);
                }
            } else {
                int64_t k = 0;
                if (sh.arith_text(sub, k, false) == Ex::Ok && k == 0) (void)sh.unset_var(base);
            }
            continue;
        }
        if (!valid_name(name)) {
            if (!vars) {
                // Not a variable name: maybe a function's.
                if (sh.st_.funcs.erase(name)) sh.st_.vars.add_bytes(-static_cast<int64_t>(function_bytes(name)));
                continue;
            }
            sh.builtin_error("unset", "`" + name + "': not a valid identifier");
            status = 1;
            continue;
        }
        Var* raw = sh.st_.vars.find(name);
        if (raw && !nameref && (raw->attrs & kAttrNameref) && raw->set) {
            bool ok;
            std::string target = sh.resolve_nameref(name, ok);
            if (ok && target != name) {
                if (!sh.unset_var(target)) status = 1;
                continue;
            }
        }
        if (raw) {
            if (!sh.unset_var(name)) status = 1;
            continue;
        }
        if (!vars) {
            auto it = sh.st_.funcs.find(name);
            if (it != sh.st_.funcs.end()) {
                sh.st_.vars.add_bytes(-static_cast<int64_t>(function_bytes(it->first)));
                sh.st_.funcs.erase(it);
            }
        }
    }
    return status;
}

// ---------------------------------------------------------------- set / shopt

BuiltinResult builtin_set(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    if (a.size() == 1) {
        std::string out;
        for (const auto& [name, v] : sh.st_.vars.visible()) {
            const Var* d = v;
            if (v->dyn != DynVar::None) d = sh.lookup(*name);
            if (!d) continue;
            if (d->is_array()) {
                if (d->count() == 0 && !d->set) continue;
                out += *name + "=" + array_body(*d) + "\n";
            } else if (d->set) {
                out += *name + "=" + quote_set_value(d->str) + "\n";
            }
        }
        std::vector<std::string> names;
        for (const auto& [k, f] : sh.st_.funcs) names.push_back(k);
        std::sort(names.begin(), names.end());
        for (const auto& n : names) sh.print_function(*sh.st_.funcs[n], out);
        sh.write_out(out);
        return 0;
    }
    size_t i = 1;
    bool set_params = false;
    for (; i < a.size(); ++i) {
        const std::string& s = a[i];
        if (s == "--") {
            ++i;
            set_params = true;
            break;
        }
        if (s == "-") {
            sh.st_.opts[OptXtrace] = false;
            sh.st_.opts[OptVerbose] = false;
            ++i;
            set_params = i < a.size() || true;
            break;
        }
        if (s.size() < 2 || (s[0] != '-' && s[0] != '+')) break;
        bool on = s[0] == '-';
        for (size_t k = 1; k < s.size(); ++k) {
            char c = s[k];
            if (c == 'o') {
                if (i + 1 >= a.size() || (k + 1 < s.size())) {
                    // List the options.
                    std::string out;
                    for (int o = 0; o < kSetOptCount; ++o) {
                        if (on) {
                            std::string nm = kOpts[o].name;
                            out += nm;
                            out += nm.size() < 15 ? std::string(15 - nm.size(), ' ') : std::string();
                            out += "\t";
                            out += sh.st_.opts[static_cast<size_t>(o)] ? "on\n" : "off\n";
                        } else {
                            out += std::string("set ") + (sh.st_.opts[static_cast<size_t>(o)] ? "-o " : "+o ") + kOpts[o].name + "\n";
                        }
                    }
                    sh.write_out(out);
                    continue;
                }
                const std::string& name = a[++i];
                int o = find_set_option(name);
                if (o < 0) {
                    sh.builtin_error("set", name + ": invalid option name");
                    return 2;
                }
                sh.st_.opts[static_cast<size_t>(o)] = on;
                break;
            }
            int o = find_set_letter(c);
            if (o < 0) {
                sh.builtin_error("set", std::string(1, s[0]) + c + ": invalid option");
                sh.write_err("set: usage: set [-abefhkmnptuvxBCEHPT] [-o option-name] [--] [-] [arg ...]\n");
                return 2;
            }
            sh.st_.opts[static_cast<size_t>(o)] = on;
        }
    }
    if (i < a.size() || set_params) {
        if (i < a.size() || set_params) {
            std::vector<std::string> p(a.begin() + static_cast<ptrdiff_t>(i), a.end());
            if (i < a.size() || a[i - 1] == "--") sh.params() = std::move(p);
        }
    }
    return 0;
}

BuiltinResult builtin_shopt(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    bool set = false, unset = false, print = false, quiet = false, oflag = false;
    size_t i = 1;
    for (; i < a.size(); ++i) {
        const std::string& s = a[i];
        if (s == "--") {
            ++i;
            break;
        }
        if (s.size() < 2 || s[0] != '-') break;
        for (size_t k = 1; k < s.size(); ++k) {
            switch (s[k]) {
                case 's': set = true; break;
                case 'u': unset = true; break;
                case 'p': print = true; break;
                case 'q': quiet = true; break;
                case 'o': oflag = true; break;
                default:
                    sh.builtin_error("shopt", std::string("-") + s[k] + ": invalid option");
                    sh.write_err("shopt: usage: shopt [-pqsu] [-o] [optname ...]\n");
                    return 2;
            }
        }
    }
    if (set && unset) return sh.builtin_error("shopt", "cannot set and unset shell options simultaneously");
    auto lookup_opt = [&](const std::string& n) { return oflag ? find_set_option(n) : find_shopt(n); };
    auto line = [&](int o) {
        bool on = sh.st_.opts[static_cast<size_t>(o)];
        if (print || set || unset) {
            if (oflag) return std::string("set ") + (on ? "-o " : "+o ") + kOpts[o].name + "\n";
            return std::string("shopt ") + (on ? "-s " : "-u ") + kOpts[o].name + "\n";
        }
        std::string nm = kOpts[o].name;
        std::string out = nm;
        out += nm.size() < 15 ? std::string(15 - nm.size(), ' ') : std::string();
        out += "\t";
        out += on ? "on\n" : "off\n";
        return out;
    };
    int lo = oflag ? 0 : kSetOptCount, hi = oflag ? kSetOptCount : kOptCount;
    if (i >= a.size()) {
        if (quiet) return 0;
        std::string out;
        for (int o = lo; o < hi; ++o) {
            bool on = sh.st_.opts[static_cast<size_t>(o)];
            if (set && !on) continue;
            if (unset && on) continue;
            out += line(o);
        }
        sh.write_out(out);
        return 0;
    }
    int status = 0;
    std::string out;
    for (; i < a.size(); ++i) {
        int o = lookup_opt(a[i]);
        if (o < 0) {
            sh.builtin_error("shopt", a[i] + ": invalid shell option name");
            status = 1;
            continue;
        }
        if (set) sh.st_.opts[static_cast<size_t>(o)] = true;
        else if (unset) sh.st_.opts[static_cast<size_t>(o)] = false;
        else {
            if (!sh.st_.opts[static_cast<size_t>(o)]) status = 1;
            if (!quiet) out += line(o);
        }
    }
    sh.write_out(out);
    return status;
}

// ---------------------------------------------------------------- control flow

namespace {
bool numeric_arg(const std::string& s, int64_t& n) { return parse_int(s, n); }
}  // namespace

BuiltinResult builtin_shift(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    int64_t n = 1;
    if (a.size() > 1 && !numeric_arg(a[1], n)) return sh.builtin_error("shift", a[1] + ": numeric argument required");
    if (n < 0) return sh.builtin_error("shift", a[1] + ": shift count out of range");
    auto& p = sh.params();
    if (static_cast<size_t>(n) > p.size()) {
        if (sh.st_.opts[ShShiftVerbose]) sh.builtin_error("shift", a[1] + ": shift count out of range");
        return 1;
    }
    p.erase(p.begin(), p.begin() + n);
    return 0;
}

BuiltinResult builtin_return(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    int64_t n = sh.st_.status;
    if (a.size() > 1 && !numeric_arg(a[1], n)) {
        sh.builtin_error("return", a[1] + ": numeric argument required");
        n = 2;
    }
    if (sh.call_depth_ == 0 && !sh.in_source_) {
        return sh.builtin_error("return", "can only `return' from a function or sourced script", 2);
    }
    return {static_cast<int>(static_cast<uint8_t>(n)), Flow::Return};
}

BuiltinResult builtin_exit(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    int64_t n = sh.st_.status;
    if (a.size() > 1 && !numeric_arg(a[1], n)) {
        sh.builtin_error("exit", a[1] + ": numeric argument required");
        n = 2;
    } else if (a.size() > 2) {
        sh.builtin_error("exit", "too many arguments");
        return 1;
    }
    sh.exit_status_ = static_cast<int>(static_cast<uint8_t>(n));
    if (!sh.is_subshell_) sh.st_.exited = true;
    return {sh.exit_status_, Flow::Exit};
}

BuiltinResult builtin_logout(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    return sh.builtin_error("logout", "not login shell: use `exit'");
}

BuiltinResult builtin_break(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    int64_t n = 1;
    if (a.size() > 1 && (!numeric_arg(a[1], n) || n < 1)) {
        sh.builtin_error("break", a[1] + ": loop count out of range");
        n = 1;
        if (!numeric_arg(a[1], n)) {
            sh.exit_status_ = 128;
            return {128, Flow::Exit};
        }
        return 1;
    }
    if (sh.loop_depth_ == 0) {
        sh.builtin_error("break", "only meaningful in a `for', `while', or `until' loop");
        return 0;
    }
    sh.levels_ = static_cast<uint32_t>(std::min<int64_t>(n, sh.loop_depth_));
    return {0, Flow::Break};
}

BuiltinResult builtin_continue(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    int64_t n = 1;
    if (a.size() > 1 && (!numeric_arg(a[1], n) || n < 1)) {
        sh.builtin_error("continue", a[1] + ": loop count out of range");
        return 1;
    }
    if (sh.loop_depth_ == 0) {
        sh.builtin_error("continue", "only meaningful in a `for', `while', or `until' loop");
        return 0;
    }
    sh.levels_ = static_cast<uint32_t>(std::min<int64_t>(n, sh.loop_depth_));
    return {0, Flow::Continue};
}

// ---------------------------------------------------------------- test

BuiltinResult builtin_test(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    return sh.test_command(std::span<const std::string>(a.data() + 1, a.size() - 1), "test");
}

BuiltinResult builtin_bracket(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    if (a.back() != "]") return sh.builtin_error("[", "missing `]'", 2);
    return sh.test_command(std::span<const std::string>(a.data() + 1, a.size() - 2), "[");
}

// ---------------------------------------------------------------- eval / source

BuiltinResult builtin_eval(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    std::string text;
    size_t i = 1;
    if (i < a.size() && a[i] == "--") ++i;
    for (; i < a.size(); ++i) {
        if (!text.empty()) text.push_back(' ');
        text += a[i];
    }
    if (text.empty()) return 0;
    sh.st_.status = 0;
    Flow f = sh.run_source(text, sh.source_name_, true);
    return {sh.st_.status, f};
}

BuiltinResult builtin_source(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    size_t i = 1;
    if (i < a.size() && a[i] == "--") ++i;
    if (i >= a.size()) {
        sh.builtin_error(a[0], "filename argument required");
        sh.write_err(a[0] + ": usage: " + a[0] + " filename [arguments]\n");
        return 2;
    }
    std::string file = a[i];
    std::string path;
    if (file.find('/') == std::string::npos && sh.st_.opts[ShSourcepath]) {
        const std::string* pv = sh.get_scalar("PATH");
        if (pv) {
            size_t start = 0;
            while (start <= pv->size()) {
                size_t colon = pv->find(':', start);
                std::string dir = pv->substr(start, colon == std::string::npos ? std::string::npos : colon - start);
                std::string cand = sh.abs_path((dir.empty() ? std::string(".") : dir) + "/" + file);
                if (sh.s_.fs.is_regular_file(cand)) {
                    path = cand;
                    break;
                }
                if (colon == std::string::npos) break;
                start = colon + 1;
            }
        }
    }
    if (path.empty()) path = sh.abs_path(file);
    auto content = sh.s_.fs.read_file(path, sh.s_.limits.max_variable_bytes);
    if (!content) {
        return sh.builtin_error(a[0], file + ": " + std::string(vfs::error_message(content.error())));
    }
    if (sh.s_.fs.is_directory(path)) return sh.builtin_error(a[0], file + ": is a directory");
    // Arguments replace the positional parameters for the duration.
    bool with_args = i + 1 < a.size();
    std::vector<std::string> saved;
    if (with_args) {
        saved = sh.params();
        sh.params().assign(a.begin() + static_cast<ptrdiff_t>(i) + 1, a.end());
    }
    std::string saved_name = sh.source_name_;
    sh.source_name_ = file;
    bool saved_in_source = sh.in_source_;
    sh.in_source_ = true;
    uint32_t saved_offset = sh.line_offset_;
    sh.line_offset_ = 0;
    sh.st_.status = 0;
    Flow f = sh.run_source(*content, file, false);
    sh.line_offset_ = saved_offset;
    sh.in_source_ = saved_in_source;
    sh.source_name_ = saved_name;
    if (with_args) sh.params() = std::move(saved);
    if (f == Flow::Return) f = Flow::Normal;
    return {sh.st_.status, f};
}

}  // namespace bashkit::interp
