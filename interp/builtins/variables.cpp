// Variables and positional parameters: unset, shift, getopts, let.
#include <algorithm>

#include "interp/builtins/builtin.hpp"
#include "interp/exec.hpp"

namespace bashkit::interp {

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
            auto it = sh.state_.funcs.find(name);
            if (it != sh.state_.funcs.end()) {
                if (it->second->attrs & kAttrReadonly) {
                    sh.builtin_error("unset", name + ": cannot unset: readonly function");
                    status = 1;
                    continue;
                }
                sh.state_.erase_function(it);
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
                    sh.state_.vars.add_bytes(-static_cast<int64_t>(var_bytes(*v)));
                    v->assoc_mut().clear();
                    continue;
                }
                std::string b = base;
                (void)sh.unset_var(b);
                continue;
            }
            if (v->is_assoc()) {
                std::string key;
                if (sh.subscript_text(v, sub, key) != Outcome::Ok || !(v = sh.lookup_mut(base)) || !v->is_assoc()) {
                    status = 1;
                    continue;
                }
                sub = std::move(key);
                AssocArray& arr = v->assoc_mut();
                if (const std::string* old = arr.get(sub))
                    sh.state_.vars.add_bytes(-static_cast<int64_t>(sub.size() + old->size() + kElemOverhead));
                arr.erase(sub);
            } else if (v->is_indexed()) {
                std::string text;
                if (sh.subscript_text(v, sub, text) != Outcome::Ok || !(v = sh.lookup_mut(base)) || !v->is_indexed()) {
                    status = 1;
                    continue;
                }
                int64_t k = 0;
                Outcome r = sh.arith_text(text, k, false);
                if (r != Outcome::Ok) {
                    status = 1;
                    continue;
                }
                IndexedArray& arr = v->idx_mut();
                if (k < 0) {
                    int64_t n = arr.next_index();
                    if (k + n < 0) {
                        sh.builtin_error("unset", "[" + sub + "]: bad array subscript");  // bash's text
                        status = 1;
                        continue;
                    }
                    k += n;
                }
                if (const std::string* old = arr.get(k)) {
                    sh.state_.vars.add_bytes(-static_cast<int64_t>(old->size() + kElemOverhead));
                    arr.erase(k);
                }
            } else {
                // A scalar is an array of one element: [0] unsets it, another subscript is an error.
                int64_t k = 0;
                if (sh.arith_text(sub, k, false) != Outcome::Ok) {
                    status = 1;
                } else if (k == 0) {
                    (void)sh.unset_var(base);
                } else if (v->set) {
                    sh.builtin_error("unset", base + ": not an array variable");
                    status = 1;
                }
            }
            continue;
        }
        if (!valid_name(name)) {
            if (!vars) {
                // Not a variable name: maybe a function's.
                if (auto it = sh.state_.funcs.find(name); it != sh.state_.funcs.end()) sh.state_.erase_function(it);
                continue;
            }
            sh.builtin_error("unset", "`" + name + "': not a valid identifier");
            status = 1;
            continue;
        }
        Var* raw = sh.state_.vars.find(name);
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
            auto it = sh.state_.funcs.find(name);
            if (it != sh.state_.funcs.end()) sh.state_.erase_function(it);
        }
    }
    return status;
}

BuiltinResult builtin_shift(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    int64_t n = 1;
    if (a.size() > 1 && !parse_int(a[1], n)) return sh.builtin_error("shift", a[1] + ": numeric argument required");
    if (n < 0) return sh.builtin_error("shift", a[1] + ": shift count out of range");
    auto& p = sh.params();
    if (static_cast<size_t>(n) > p.size()) {
        if (sh.state_.opts[ShShiftVerbose]) sh.builtin_error("shift", a[1] + ": shift count out of range");
        return 1;
    }
    p.erase(p.begin(), p.begin() + n);
    return 0;
}

// ---------------------------------------------------------------- getopts

// getopts itself: one option of args per call, state in OPTIND and ShellState::getopts_pos.
template <class SetName>
static int do_getopts_step(Exec& sh, std::string_view optstring, SetName& set_name, const std::vector<std::string>& args);

static int do_getopts(Exec& sh, std::string_view optstring, std::string_view varname, const std::vector<std::string>& args) {
    // bash parses the option even when the name is bad (OPTIND and OPTARG move on) and fails only when
    // it stores the letter: status 1.
    const bool bad_name = !valid_name(varname);
    bool name_failed = false;
    auto set_name = [&](std::string v) {
        if (!bad_name) (void)sh.assign(varname, std::move(v));
        else name_failed = true;
    };
    int st = do_getopts_step(sh, optstring, set_name, args);
    if (name_failed) return sh.builtin_error("getopts", "`" + std::string(varname) + "': not a valid identifier");
    return st;
}

template <class SetName>
static int do_getopts_step(Exec& sh, std::string_view optstring, SetName& set_name, const std::vector<std::string>& args) {
    bool silent = !optstring.empty() && optstring[0] == ':';
    if (silent) optstring.remove_prefix(1);
    const std::string* opterr = sh.get_scalar("OPTERR");
    bool report = !silent && !(opterr && *opterr == "0");
    int64_t optind = 1;
    if (const std::string* s = sh.get_scalar("OPTIND")) parse_int(*s, optind);
    if (optind < 1) optind = 1;
    if (optind != sh.state_.getopts_optind) {
        sh.state_.getopts_pos = 0;
        sh.state_.getopts_optind = optind;
    }
    auto finish = [&](int64_t ind) {
        int pos = sh.state_.getopts_pos;
        (void)sh.assign("OPTIND", to_dec(ind));
        sh.state_.getopts_pos = pos;
        sh.state_.getopts_optind = ind;
    };
    size_t k = static_cast<size_t>(optind - 1);
    if (sh.state_.getopts_pos == 0) {
        if (k >= args.size()) {
            // Past the last argument bash pulls OPTIND back to one past it and clears OPTARG.
            set_name("?");
            sh.unset_var("OPTARG");
            finish(static_cast<int64_t>(args.size()) + 1);
            return 1;
        }
        if (args[k].size() < 2 || args[k][0] != '-') {
            set_name("?");
            finish(optind);
            return 1;
        }
        if (args[k] == "--") {
            set_name("?");
            finish(optind + 1);
            return 1;
        }
        sh.state_.getopts_pos = 1;
    }
    const std::string& word = args[k];
    char c = word[static_cast<size_t>(sh.state_.getopts_pos)];
    ++sh.state_.getopts_pos;
    bool last_in_word = static_cast<size_t>(sh.state_.getopts_pos) >= word.size();
    size_t where = optstring.find(c);
    if (where == std::string_view::npos || c == ':') {
        if (last_in_word) {
            sh.state_.getopts_pos = 0;
            ++optind;
        }
        if (silent) {
            set_name("?");
            (void)sh.assign("OPTARG", std::string(1, c));
        } else {
            if (report) sh.error(std::string("illegal option -- ") + c);
            set_name("?");
            sh.unset_var("OPTARG");
        }
        finish(optind);
        return 0;
    }
    bool takes_arg = where + 1 < optstring.size() && optstring[where + 1] == ':';
    if (takes_arg) {
        std::string arg;
        if (!last_in_word) {
            arg = word.substr(static_cast<size_t>(sh.state_.getopts_pos));
            sh.state_.getopts_pos = 0;
            ++optind;
        } else if (k + 1 < args.size()) {
            arg = args[k + 1];
            sh.state_.getopts_pos = 0;
            optind += 2;
        } else {
            sh.state_.getopts_pos = 0;
            ++optind;
            if (silent) {
                set_name(":");
                (void)sh.assign("OPTARG", std::string(1, c));
            } else {
                if (report) sh.error(std::string("option requires an argument -- ") + c);
                set_name("?");
                sh.unset_var("OPTARG");
            }
            finish(optind);
            return 0;
        }
        (void)sh.assign("OPTARG", arg);
    } else {
        if (last_in_word) {
            sh.state_.getopts_pos = 0;
            ++optind;
        }
        sh.unset_var("OPTARG");
    }
    set_name(std::string(1, c));
    finish(optind);
    return 0;
}

BuiltinResult builtin_getopts(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    if (a.size() < 3) {
        sh.write_err("getopts: usage: getopts optstring name [arg ...]\n");
        return 2;
    }
    std::vector<std::string> args;
    if (a.size() > 3) args.assign(a.begin() + 3, a.end());
    else args = sh.params();
    return do_getopts(sh, a[1], a[2], args);
}


// ---------------------------------------------------------------- let

BuiltinResult builtin_let(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    if (a.size() < 2) return sh.builtin_error("let", "expression expected");
    int64_t v = 0;
    for (size_t i = 1; i < a.size(); ++i) {
        Outcome r = sh.arith_text_prefixed(a[i], v, "let: ");
        if (r == Outcome::Fatal) {
            return {1, Flow::Exit};
        }
        if (r != Outcome::Ok) return 1;
    }
    return v != 0 ? 0 : 1;
}

}  // namespace bashkit::interp
