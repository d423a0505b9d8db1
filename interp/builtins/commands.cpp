// Finding and describing commands: type, command, builtin, enable, alias, unalias, hash, help, caller,
// compgen.
#include <algorithm>
#include <cstring>

#include "interp/builtins/builtin.hpp"
#include "interp/exec.hpp"
#include "interp/pattern.hpp"
#include "interp/quote.hpp"

namespace bashkit::interp {

namespace {

constexpr const char* kKeywords[] = {"!", "[[", "]]", "case", "coproc", "do", "done", "elif", "else", "esac",
                                     "fi", "for", "function", "if", "in", "select", "then", "time", "until",
                                     "while", "{", "}"};

bool is_keyword(std::string_view s) {
    for (const char* k : kKeywords)
        if (s == k) return true;
    return false;
}

}  // namespace

// ---------------------------------------------------------------- type / command / builtin

static std::string describe_command(Exec& sh, std::string_view name, bool& found, int mode) {
    // mode 0: `type` (verbose), 1: type -t, 2: command -v / type -p, 3: command -V
    found = true;
    std::string n(name);
    if (mode != 2 || true) {
        auto al = sh.state_.aliases.find(n);
        if (al != sh.state_.aliases.end() && mode != 2) {
            if (mode == 1) return "alias\n";
            return n + " is aliased to `" + al->second + "'\n";
        }
        if (al != sh.state_.aliases.end() && mode == 2) return "alias " + n + "=" + quote_for_reuse(al->second, QuoteStyle::Single) + "\n";
    }
    if (is_keyword(name)) {
        if (mode == 1) return "keyword\n";
        if (mode == 2) return n + "\n";
        return n + " is a shell keyword\n";
    }
    auto fn = sh.state_.funcs.find(n);
    if (fn != sh.state_.funcs.end()) {
        if (mode == 1) return "function\n";
        if (mode == 2) return n + "\n";
        std::string out = n + " is a function\n";
        sh.print_function(*fn->second, out);
        return out;
    }
    if (find_builtin(name) && !sh.session_.find_custom(name)) {
        if (mode == 1) return "builtin\n";
        if (mode == 2) return n + "\n";
        return n + " is a shell builtin\n";
    }
    std::string path;
    if (name.find('/') != std::string_view::npos) {
        auto st = sh.session_.fs.stat(sh.abs_path(name));
        if ((st && st->is_regular() && (st->mode & 0111)) || !sh.virtual_bin_name(name).empty()) path = n;
    } else if (sh.session_.find_utility(name) || name == "bash" || name == "sh") {
        path = "/usr/bin/" + n;
        auto st = sh.session_.fs.stat(path);
        if (!st) {
            std::string in_path = sh.find_in_path(n);
            if (!in_path.empty()) path = in_path;
        }
    } else {
        path = sh.find_in_path(n);
    }
    if (path.empty()) {
        found = false;
        return {};
    }
    if (mode == 1) return "file\n";
    if (mode == 2) return path + "\n";
    if (sh.state_.hashed.count(n)) return n + " is hashed (" + path + ")\n";
    return n + " is " + path + "\n";
}

BuiltinResult builtin_type(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    int mode = 0;
    bool all = false, path_only = false, no_funcs = false;
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
                case 't': mode = 1; break;
                case 'p': mode = 2; path_only = true; break;
                case 'P': mode = 2; path_only = true; no_funcs = true; break;
                case 'a': all = true; break;
                case 'f': no_funcs = true; break;
                default:
                    sh.builtin_error("type", std::string("-") + s[k] + ": invalid option");
                    sh.write_err("type: usage: type [-afptP] name [name ...]\n");
                    return 2;
            }
        }
    }
    (void)all;
    int status = 0;
    std::string out;
    for (; i < a.size(); ++i) {
        bool found = false;
        std::string d;
        if (path_only) {
            if ((!no_funcs && (sh.state_.funcs.count(a[i]) || is_keyword(a[i]))) || find_builtin(a[i]) ||
                sh.state_.aliases.count(a[i])) {
                found = true;
            } else {
                std::string p = sh.session_.find_utility(a[i]) ? "/usr/bin/" + a[i] : sh.find_in_path(a[i]);
                if (!p.empty()) {
                    found = true;
                    d = p + "\n";
                }
            }
        } else {
            d = describe_command(sh, a[i], found, mode);
        }
        if (!found) {
            if (mode != 1 && !path_only) sh.builtin_error("type", a[i] + ": not found");
            status = 1;
            continue;
        }
        out += d;
    }
    sh.write_out(out);
    return status;
}

BuiltinResult builtin_command(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    size_t i = 1;
    int mode = -1;
    for (; i < a.size(); ++i) {
        const std::string& s = a[i];
        if (s == "--") {
            ++i;
            break;
        }
        if (s.size() < 2 || s[0] != '-') break;
        for (size_t k = 1; k < s.size(); ++k) {
            if (s[k] == 'v') mode = 2;
            else if (s[k] == 'V') mode = 0;
            else if (s[k] == 'p') {
            } else {
                sh.builtin_error("command", std::string("-") + s[k] + ": invalid option");
                sh.write_err("command: usage: command [-pVv] command [arg ...]\n");
                return 2;
            }
        }
    }
    if (i >= a.size()) return 0;
    if (mode >= 0) {
        // Like bash, the status is 0 when any of the names was found.
        bool any = false;
        std::string out;
        for (; i < a.size(); ++i) {
            bool found = false;
            std::string d = describe_command(sh, a[i], found, mode);
            if (!found) {
                if (mode == 0) sh.builtin_error("command", a[i] + ": not found");
                continue;
            }
            any = true;
            out += d;
        }
        sh.write_out(out);
        return any ? 0 : 1;
    }
    std::vector<std::string> rest(a.begin() + static_cast<ptrdiff_t>(i), a.end());
    Flow f = sh.run_argv(rest, nullptr, true, false, ctx.decls);
    return {sh.state_.status, f};
}

BuiltinResult builtin_builtin(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    size_t i = 1;
    if (i < a.size() && a[i] == "--") ++i;
    else if (i < a.size() && a[i].size() > 1 && a[i][0] == '-') {
        sh.builtin_error("builtin", a[i].substr(0, 2) + ": invalid option");
        sh.write_err("builtin: usage: builtin [shell-builtin [arg ...]]\n");
        return 2;
    }
    if (i >= a.size()) return 0;
    const BuiltinInfo* b = find_builtin(a[i]);
    if (!b) return sh.builtin_error("builtin", a[i] + ": not a shell builtin");
    std::vector<std::string> rest(a.begin() + static_cast<ptrdiff_t>(i), a.end());
    Flow f = sh.run_builtin(*b, rest, ctx.decls);
    return {sh.state_.status, f};
}

BuiltinResult builtin_enable(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    if (a.size() == 1 || (a.size() == 2 && (a[1] == "-a" || a[1] == "-p"))) {
        std::string out;
        for (const auto& b : builtin_table()) out += std::string("enable ") + b.name + "\n";
        sh.write_out(out);
        return 0;
    }
    for (size_t i = 1; i < a.size(); ++i) {
        if (a[i][0] == '-') continue;
        if (!find_builtin(a[i])) return sh.builtin_error("enable", a[i] + ": not a shell builtin");
    }
    return 0;
}

// ---------------------------------------------------------------- alias

BuiltinResult builtin_alias(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    size_t i = 1;
    if (i < a.size() && a[i] == "-p") ++i;
    if (i < a.size() && a[i] == "--") ++i;
    std::string out;
    if (i >= a.size()) {
        for (const auto& [k, v] : sh.state_.aliases) out += "alias " + k + "=" + quote_for_reuse(v, QuoteStyle::Single) + "\n";
        sh.write_out(out);
        return 0;
    }
    int status = 0;
    for (; i < a.size(); ++i) {
        size_t eq = a[i].find('=');
        if (eq == std::string::npos) {
            auto it = sh.state_.aliases.find(a[i]);
            if (it == sh.state_.aliases.end()) {
                sh.builtin_error("alias", a[i] + ": not found");
                status = 1;
            } else {
                out += "alias " + it->first + "=" + quote_for_reuse(it->second, QuoteStyle::Single) + "\n";
            }
            continue;
        }
        std::string name = a[i].substr(0, eq);
        if (name.empty() || name.find_first_of(" \t\n/$`=|&;()<>'\"\\") != std::string::npos) {
            sh.builtin_error("alias", "`" + name + "': invalid alias name");
            status = 1;
            continue;
        }
        // Aliases are charged to the memory budget with the variables (a subshell copies both).
        std::string value = a[i].substr(eq + 1);
        auto old = sh.state_.aliases.find(name);
        size_t before = old == sh.state_.aliases.end() ? 0 : alias_bytes(old->first, old->second);
        size_t after = alias_bytes(name, value);
        if (after > before && !sh.variable_bytes_fit("alias", after - before)) {
            status = 1;
            continue;
        }
        sh.state_.vars.add_bytes(static_cast<int64_t>(after) - static_cast<int64_t>(before));
        sh.state_.aliases[name] = std::move(value);
    }
    sh.write_out(out);
    return status;
}

BuiltinResult builtin_unalias(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    if (a.size() < 2) {
        sh.write_err("unalias: usage: unalias [-a] name [name ...]\n");
        return 2;
    }
    int status = 0;
    for (size_t i = 1; i < a.size(); ++i) {
        if (a[i] == "-a") {
            for (const auto& [k, v] : sh.state_.aliases) sh.state_.vars.add_bytes(-static_cast<int64_t>(alias_bytes(k, v)));
            sh.state_.aliases.clear();
            continue;
        }
        auto it = sh.state_.aliases.find(a[i]);
        if (it == sh.state_.aliases.end()) {
            sh.builtin_error("unalias", a[i] + ": not found");
            status = 1;
            continue;
        }
        sh.state_.vars.add_bytes(-static_cast<int64_t>(alias_bytes(it->first, it->second)));
        sh.state_.aliases.erase(it);
    }
    return status;
}

// ---------------------------------------------------------------- small ones

BuiltinResult builtin_hash(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    if (a.size() == 1) {
        if (sh.state_.hashed.empty()) {
            sh.write_out("hash: hash table empty\n");
            return 0;
        }
        std::string out = "hits\tcommand\n";
        for (const auto& [k, v] : sh.state_.hashed) out += "   1\t" + v + "\n";
        sh.write_out(out);
        return 0;
    }
    int status = 0;
    for (size_t i = 1; i < a.size(); ++i) {
        if (a[i] == "-r") {
            sh.state_.hashed.clear();
            continue;
        }
        if (a[i] == "-d" || a[i] == "-t" || a[i] == "-l") continue;
        if (a[i] == "-p" && i + 2 < a.size()) {
            sh.state_.hashed[a[i + 2]] = a[i + 1];
            i += 2;
            continue;
        }
        if (find_builtin(a[i]) || sh.state_.funcs.count(a[i])) continue;
        if (sh.session_.find_utility(a[i])) continue;
        std::string p = sh.find_in_path(a[i]);
        if (p.empty()) {
            sh.builtin_error("hash", a[i] + ": not found");
            status = 1;
        }
    }
    return status;
}

BuiltinResult builtin_help(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    std::string out;
    if (a.size() == 1) {
        out = "bashkit shell builtins (bash 5.2 compatible). Type `help name' for more about `name'.\n\n";
        for (const auto& b : builtin_table()) out += std::string(" ") + b.help + "\n";
        std::vector<std::string> names = sh.session_.utility_names();
        if (!names.empty()) {
            out += "\nUtilities:\n";
            for (const auto& n : names) out += " " + sh.session_.find_utility(n)->help + "\n";
        }
        sh.write_out(out);
        return 0;
    }
    int status = 0;
    for (size_t i = 1; i < a.size(); ++i) {
        if (a[i][0] == '-') continue;
        bool any = false;
        for (const auto& b : builtin_table()) {
            if (pattern_match(a[i], b.name)) {
                out += std::string(b.name) + ": " + b.help + "\n";
                any = true;
            }
        }
        if (!any) {
            if (const RegisteredCommand* rc = sh.session_.find_utility(a[i])) {
                out += rc->name + ": " + rc->help + "\n";
                any = true;
            }
        }
        if (!any) {
            sh.builtin_error("help", "no help topics match `" + a[i] + "'.  Try `help help' or `man -k " + a[i] + "' or `info " + a[i] + "'.");
            status = 1;
        }
    }
    sh.write_out(out);
    return status;
}

BuiltinResult builtin_caller(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    int64_t n = 0;
    bool with_expr = a.size() > 1;
    if (with_expr && (!parse_int(a[1], n) || n < 0)) return sh.builtin_error("caller", a[1] + ": invalid number");
    // caller N: the line entry N was called from, then the function and file of entry N+1 (bash's debug
    // stack); without N, the line and the file only ("NULL" when there is no caller).
    std::vector<DebugEntry> stack = sh.debug_stack();
    size_t k = static_cast<size_t>(n);
    if (!with_expr) {
        if (stack.empty()) return 1;
        std::string src = stack.size() > 1 ? std::string(stack[1].source) : std::string("NULL");
        sh.write_out(to_dec(stack[0].line) + " " + src + "\n");
        return 0;
    }
    if (k + 1 >= stack.size()) return 1;
    sh.write_out(to_dec(stack[k].line) + " " + std::string(stack[k + 1].funcname) + " " +
                 std::string(stack[k + 1].source) + "\n");
    return 0;
}

BuiltinResult builtin_compgen(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    std::vector<std::string> cands;
    std::string prefix, suffix, filter, word, glob, func;
    bool have_word = false, have_func = false;
    auto add_action = [&](const std::string& act) {
        if (act == "builtin" || act == "b") {
            for (const auto& b : builtin_table()) cands.emplace_back(b.name);
        } else if (act == "keyword" || act == "k") {
            for (const char* k : kKeywords) cands.emplace_back(k);
        } else if (act == "alias" || act == "a") {
            for (const auto& [k, v] : sh.state_.aliases) cands.push_back(k);
        } else if (act == "function") {
            for (const auto& [k, v] : sh.state_.funcs) cands.push_back(k);
        } else if (act == "variable" || act == "v") {
            for (const auto& [n, v] : sh.state_.vars.visible()) cands.push_back(*n);
        } else if (act == "export" || act == "e") {
            for (const auto& [n, v] : sh.state_.vars.visible())
                if (v->exported()) cands.push_back(*n);
        } else if (act == "command" || act == "c") {
            for (const auto& [k, v] : sh.state_.aliases) cands.push_back(k);
            for (const auto& b : builtin_table()) cands.emplace_back(b.name);
            for (const auto& [k, v] : sh.state_.funcs) cands.push_back(k);
            for (const char* k : kKeywords) cands.emplace_back(k);
            for (const auto& n : sh.session_.utility_names()) cands.push_back(n);
        } else if (act == "file" || act == "f" || act == "directory" || act == "d") {
            bool dirs_only = act == "directory" || act == "d";
            std::string dir = ".", base;
            (void)base;
            auto ents = sh.session_.fs.readdir(sh.state_.cwd);
            if (ents)
                for (const auto& e : *ents) {
                    if (dirs_only && !sh.session_.fs.is_directory(sh.abs_path(e.name))) continue;
                    cands.push_back(e.name);
                }
            (void)dir;
        } else if (act == "user" || act == "u") {
            cands.push_back(sh.session_.id.user);
        } else if (act == "group" || act == "g") {
            cands.push_back(sh.session_.id.user);
        } else if (act == "job" || act == "j") {
            for (auto& j : sh.state_.jobs->jobs) cands.push_back(j->command);
        } else if (act == "signal") {
            for (const auto& sg : signal_table()) cands.push_back(std::string("SIG") + sg.name);
        } else if (act == "shopt") {
            for (int o = kSetOptCount; o < kOptCount; ++o) cands.emplace_back(opt_info(o).name);
        } else if (act == "setopt") {
            for (int o = 0; o < kSetOptCount; ++o) cands.emplace_back(opt_info(o).name);
        } else if (act == "helptopic") {
            for (const auto& b : builtin_table()) cands.emplace_back(b.name);
        }
    };
    for (size_t i = 1; i < a.size(); ++i) {
        const std::string& s = a[i];
        if (s == "--") {
            if (i + 1 < a.size()) {
                word = a[i + 1];
                have_word = true;
            }
            break;
        }
        if (s.size() < 2 || s[0] != '-') {
            word = s;
            have_word = true;
            continue;
        }
        for (size_t k = 1; k < s.size(); ++k) {
            char c = s[k];
            if (std::strchr("abcdefgjksuv", c)) {
                add_action(std::string(1, c));
                continue;
            }
            std::string arg;
            if (k + 1 < s.size()) arg = s.substr(k + 1);
            else if (i + 1 < a.size()) arg = a[++i];
            k = s.size();
            switch (c) {
                case 'W': {
                    std::vector<std::string> words;
                    const Var* ifsv = sh.state_.vars.find("IFS");
                    std::string ifs = ifsv && ifsv->set ? ifsv->str() : " \t\n";
                    std::string cur;
                    for (char ch : arg) {
                        if (ifs.find(ch) != std::string::npos) {
                            if (!cur.empty()) cands.push_back(cur);
                            cur.clear();
                        } else {
                            cur.push_back(ch);
                        }
                    }
                    if (!cur.empty()) cands.push_back(cur);
                    break;
                }
                case 'A': add_action(arg); break;
                case 'P': prefix = arg; break;
                case 'S': suffix = arg; break;
                case 'X': filter = arg; break;
                case 'G': glob = arg; break;
                case 'F':
                    func = arg;
                    have_func = true;
                    break;
                case 'o': case 'C': break;
                default:
                    sh.builtin_error("compgen", std::string("-") + c + ": invalid option");
                    return 2;
            }
        }
    }
    // -F FUNC: bash calls FUNC as a completion function (`FUNC compgen WORD ''`, in this shell) and adds the
    // elements of COMPREPLY, which it does not match against the word.
    std::vector<std::string> replies;
    if (have_func) {
        sh.error("compgen: warning: -F option may not work as you expect");
        auto it = sh.state_.funcs.find(func);
        if (it == sh.state_.funcs.end()) {
            sh.error("completion: function `" + func + "' not found");
            return 1;
        }
        FunctionPtr fn = it->second;
        (void)sh.unset_var("COMPREPLY");  // the function's answer only
        std::vector<std::string> args{func, "compgen", have_word ? word : std::string(), std::string()};
        Flow f = sh.call_function(*fn, args);
        if (f == Flow::Exit) return {sh.state_.status, f};
        if (const Var* cr = sh.lookup("COMPREPLY")) {
            if (cr->is_indexed()) {
                if (cr->idx)
                    for (const auto& [k, v] : *cr->idx) replies.push_back(v);
            } else if (const std::string* one = cr->scalar_value()) {
                replies.push_back(*one);
            }
        }
    }
    std::string out;
    int n = 0;
    auto emit = [&](const std::string& c, bool match_word) {
        if (match_word && have_word && !c.starts_with(word)) return;
        if (!filter.empty()) {
            bool neg = filter[0] == '!';
            bool m = pattern_match(neg ? filter.substr(1) : filter, c);
            if (neg ? !m : m) return;
        }
        out += prefix + c + suffix + "\n";
        ++n;
    };
    for (const auto& c : cands) emit(c, true);
    for (const auto& c : replies) emit(c, false);
    (void)glob;
    sh.write_out(out);
    return n > 0 ? 0 : 1;
}

}  // namespace bashkit::interp
