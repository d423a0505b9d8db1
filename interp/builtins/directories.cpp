// The working directory and the directory stack: cd, pwd, pushd, popd, dirs.
#include <algorithm>

#include "interp/builtins/builtin.hpp"
#include "interp/exec.hpp"

namespace bashkit::interp {

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

static bool cd_to(Exec& sh, const std::string& target, bool physical, bool print) {
    std::string path = target.starts_with("/") ? target : (sh.state_.cwd == "/" ? "/" : sh.state_.cwd + "/") + target;
    std::string logical = normalize(path);
    std::string dest = logical;
    if (physical) {
        auto rp = sh.session_.fs.realpath(path);
        if (!rp) {
            sh.builtin_error("cd", target + ": " + std::string(vfs::error_message(rp.error())));
            return false;
        }
        dest = *rp;
    }
    auto st = sh.session_.fs.stat(physical ? dest : path);
    if (!st) {
        // The lexical path may not exist while the physical one does (a/.. through a symlink).
        sh.builtin_error("cd", target + ": " + std::string(vfs::error_message(st.error())));
        return false;
    }
    if (!st->is_directory()) {
        sh.builtin_error("cd", target + ": Not a directory");
        return false;
    }
    std::string old = sh.state_.cwd;
    sh.state_.cwd = dest;
    (void)sh.assign("OLDPWD", old);
    (void)sh.assign("PWD", dest);
    if (print) sh.write_out(dest + "\n");
    return true;
}

BuiltinResult builtin_cd(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    bool physical = sh.state_.opts[OptPhysical];
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
                        if (sh.session_.fs.is_directory(cand)) {
                            return cd_to(sh, cand, physical, true) ? 0 : 1;
                        }
                    }
                    if (colon == std::string::npos) break;
                    start = colon + 1;
                }
            }
        }
    }
    if (target.empty()) return 0;
    return cd_to(sh, target, physical, print) ? 0 : 1;
}

BuiltinResult builtin_pwd(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    bool physical = sh.state_.opts[OptPhysical];
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
    std::string p = sh.state_.cwd;
    if (physical) {
        auto rp = sh.session_.fs.realpath(p);
        if (rp) p = *rp;
    }
    if (!sh.write_out(p + "\n")) return sh.broken_pipe_ ? 141 : 1;
    return 0;
}

// ---------------------------------------------------------------- directory stack

namespace {
// +N or -N: an index into the directory stack.
bool stack_index(const std::string& s) {
    if (s.size() < 2 || (s[0] != '+' && s[0] != '-')) return false;
    for (size_t i = 1; i < s.size(); ++i)
        if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    return true;
}

// bash's message for a bad argument, then the usage line: status 2.
BuiltinResult dir_usage(Exec& sh, const char* name, const std::string& msg, const char* usage) {
    sh.builtin_error(name, msg);
    sh.write_err(std::string(name) + ": usage: " + usage + "\n");
    return 2;
}

std::string tilde_short(const std::string& p, const std::string& home) {
    if (!home.empty() && home != "/" && (p == home || p.starts_with(home + "/"))) return "~" + p.substr(home.size());
    return p;
}
}  // namespace

BuiltinResult builtin_dirs(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    bool clear = false, full = false, per_line = false, verbose = false;
    for (size_t i = 1; i < a.size(); ++i) {
        const std::string& s = a[i];
        if (stack_index(s)) continue;
        if (s.size() < 2 || s[0] != '-') return dir_usage(sh, "dirs", s + ": invalid option", "dirs [-clpv] [+N] [-N]");
        for (size_t k = 1; k < s.size(); ++k) {
            if (s[k] == 'c') clear = true;
            else if (s[k] == 'l') full = true;
            else if (s[k] == 'p') per_line = true;
            else if (s[k] == 'v') per_line = verbose = true;
            else return dir_usage(sh, "dirs", s + ": invalid option", "dirs [-clpv] [+N] [-N]");
        }
    }
    if (clear) {
        sh.state_.dirstack.clear();
        return 0;
    }
    std::string home = sh.get_str("HOME");
    std::vector<std::string> all{sh.state_.cwd};
    for (auto it = sh.state_.dirstack.rbegin(); it != sh.state_.dirstack.rend(); ++it) all.push_back(*it);
    std::string out;
    for (size_t k = 0; k < all.size(); ++k) {
        std::string d = full ? all[k] : tilde_short(all[k], home);
        if (verbose) out += " " + std::to_string(k) + "  " + d + "\n";
        else if (per_line) out += d + "\n";
        else out += (k ? " " : "") + d;
    }
    if (!per_line) out += "\n";
    sh.write_out(out);
    return 0;
}

BuiltinResult builtin_pushd(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    bool no_cd = false, opts_done = false;
    std::string arg;
    bool have_arg = false;
    for (size_t i = 1; i < a.size(); ++i) {
        const std::string& s = a[i];
        if (!opts_done && s == "--") {
            opts_done = true;
        } else if (!opts_done && s == "-n") {
            no_cd = true;
        } else if (!opts_done && s.size() > 1 && s[0] == '-' && !stack_index(s)) {
            return dir_usage(sh, "pushd", s + ": invalid number", "pushd [-n] [+N | -N | dir]");
        } else if (have_arg) {
            return sh.builtin_error("pushd", "too many arguments");
        } else {
            arg = s;
            have_arg = true;
        }
    }
    if (arg.empty()) {
        if (sh.state_.dirstack.empty()) return sh.builtin_error("pushd", "no other directory");
        std::string top = sh.state_.dirstack.back();
        std::string cur = sh.state_.cwd;
        if (!no_cd && !cd_to(sh, top, false, false)) return 1;
        sh.state_.dirstack.back() = cur;
    } else if ((arg[0] == '+' || arg[0] == '-') && arg.size() > 1 && std::isdigit(static_cast<unsigned char>(arg[1]))) {
        int64_t n = 0;
        parse_int(arg.substr(1), n);
        std::vector<std::string> all{sh.state_.cwd};
        for (auto it = sh.state_.dirstack.rbegin(); it != sh.state_.dirstack.rend(); ++it) all.push_back(*it);
        if (n >= static_cast<int64_t>(all.size())) return sh.builtin_error("pushd", arg + ": directory stack index out of range");
        size_t k = arg[0] == '+' ? static_cast<size_t>(n) : all.size() - 1 - static_cast<size_t>(n);
        std::rotate(all.begin(), all.begin() + static_cast<ptrdiff_t>(k), all.end());
        if (!cd_to(sh, all[0], false, false)) return 1;
        sh.state_.dirstack.assign(all.rbegin(), all.rend() - 1);
    } else {
        std::string cur = sh.state_.cwd;
        if (!no_cd) {
            if (!cd_to(sh, arg, sh.state_.opts[OptPhysical], false)) return 1;
            sh.state_.dirstack.push_back(cur);
        } else {
            sh.state_.dirstack.insert(sh.state_.dirstack.end() - (sh.state_.dirstack.empty() ? 0 : 0), sh.abs_path(arg));
        }
    }
    std::vector<std::string> none{"dirs"};
    BuiltinContext dirs{sh, none};
    return builtin_dirs(dirs);
}

BuiltinResult builtin_popd(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    bool no_cd = false, opts_done = false;
    std::string arg;
    for (size_t i = 1; i < a.size(); ++i) {
        const std::string& s = a[i];
        if (!opts_done && s == "--") opts_done = true;
        else if (!opts_done && s == "-n") no_cd = true;
        else if (stack_index(s)) arg = s;
        else if (s.size() > 1 && (s[0] == '-' || s[0] == '+'))
            return dir_usage(sh, "popd", s + ": invalid number", "popd [-n] [+N | -N]");
        else
            return dir_usage(sh, "popd", s + ": invalid argument", "popd [-n] [+N | -N]");
    }
    if (sh.state_.dirstack.empty()) return sh.builtin_error("popd", "directory stack empty");
    if (!arg.empty() && (arg[0] == '+' || arg[0] == '-')) {
        int64_t n = 0;
        parse_int(arg.substr(1), n);
        std::vector<std::string> all{sh.state_.cwd};
        for (auto it = sh.state_.dirstack.rbegin(); it != sh.state_.dirstack.rend(); ++it) all.push_back(*it);
        if (n >= static_cast<int64_t>(all.size())) return sh.builtin_error("popd", arg + ": directory stack index out of range");
        size_t k = arg[0] == '+' ? static_cast<size_t>(n) : all.size() - 1 - static_cast<size_t>(n);
        if (k == 0) {
            if (!no_cd && !cd_to(sh, all[1], false, false)) return 1;
        }
        all.erase(all.begin() + static_cast<ptrdiff_t>(k));
        sh.state_.dirstack.assign(all.rbegin(), all.rend() - 1);
    } else {
        std::string top = sh.state_.dirstack.back();
        if (!no_cd && !cd_to(sh, top, false, false)) return 1;
        sh.state_.dirstack.pop_back();
    }
    std::vector<std::string> none{"dirs"};
    BuiltinContext dirs{sh, none};
    return builtin_dirs(dirs);
}

}  // namespace bashkit::interp
