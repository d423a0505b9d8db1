// Shell options: the set -o / shopt table, and the set and shopt builtins.
#include "interp/builtins/builtin.hpp"
#include "interp/exec.hpp"
#include "interp/quote.hpp"

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

namespace {
// Sets an option; the editing modes exclude each other (`set -o vi` turns emacs off).
void set_opt(Options& opts, int o, bool on) {
    opts[static_cast<size_t>(o)] = on;
    if (on && o == OptVi) opts[OptEmacs] = false;
    if (on && o == OptEmacs) opts[OptVi] = false;
}
}  // namespace

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

// ---------------------------------------------------------------- set / shopt

BuiltinResult builtin_set(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    if (a.size() == 1) {
        std::string out;
        for (const auto& [name, v] : sh.state_.vars.visible()) {
            const Var* d = v;
            if (v->dyn != DynVar::None) d = sh.lookup(*name);
            if (!d) continue;
            if (d->is_array()) {
                if (d->count() == 0 && !d->set) continue;
                out += *name + "=" + array_body(*d) + "\n";
            } else if (d->set) {
                out += *name + "=" + quote_set_value(d->str()) + "\n";
            }
        }
        std::vector<std::string> names;
        for (const auto& [k, f] : sh.state_.funcs) names.push_back(k);
        std::sort(names.begin(), names.end());
        for (const auto& n : names) sh.print_function(*sh.state_.funcs[n], out);
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
            sh.state_.opts[OptXtrace] = false;
            sh.state_.opts[OptVerbose] = false;
            ++i;
            set_params = i < a.size() || true;
            break;
        }
        if (s == "+") continue;  // a lone `+` is an empty flag word, ignored like bash
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
                            out += sh.state_.opts[static_cast<size_t>(o)] ? "on\n" : "off\n";
                        } else {
                            out += std::string("set ") + (sh.state_.opts[static_cast<size_t>(o)] ? "-o " : "+o ") + kOpts[o].name + "\n";
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
                set_opt(sh.state_.opts, o, on);
                break;
            }
            int o = find_set_letter(c);
            if (o < 0) {
                sh.builtin_error("set", std::string(1, s[0]) + c + ": invalid option");
                sh.write_err("set: usage: set [-abefhkmnptuvxBCEHPT] [-o option-name] [--] [-] [arg ...]\n");
                return 2;
            }
            sh.state_.opts[static_cast<size_t>(o)] = on;
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
        bool on = sh.state_.opts[static_cast<size_t>(o)];
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
            bool on = sh.state_.opts[static_cast<size_t>(o)];
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
        if (set) set_opt(sh.state_.opts, o, true);
        else if (unset) set_opt(sh.state_.opts, o, false);
        else {
            if (!sh.state_.opts[static_cast<size_t>(o)]) status = 1;
            if (!quiet) out += line(o);
        }
    }
    sh.write_out(out);
    return status;
}

}  // namespace bashkit::interp
