// Shell builtins, part 2: read, mapfile, getopts, let, type/command/builtin, trap, aliases, jobs, the
// directory stack, and the small ones.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "interp/builtins/builtin.hpp"
#include "interp/exec.hpp"
#include "interp/pattern.hpp"
#include "interp/quote.hpp"
#include "interp/syntax/printer.hpp"

namespace bashkit::interp {

namespace {

struct SigName {
    int num;
    const char* name;
};
constexpr SigName kSignals[] = {
    {1, "HUP"},   {2, "INT"},    {3, "QUIT"},   {4, "ILL"},    {5, "TRAP"},   {6, "ABRT"},  {7, "BUS"},
    {8, "FPE"},   {9, "KILL"},   {10, "USR1"},  {11, "SEGV"},  {12, "USR2"},  {13, "PIPE"}, {14, "ALRM"},
    {15, "TERM"}, {16, "STKFLT"}, {17, "CHLD"}, {18, "CONT"},  {19, "STOP"},  {20, "TSTP"}, {21, "TTIN"},
    {22, "TTOU"}, {23, "URG"},   {24, "XCPU"},  {25, "XFSZ"},  {26, "VTALRM"}, {27, "PROF"}, {28, "WINCH"},
    {29, "IO"},   {30, "PWR"},   {31, "SYS"},
};

// Signal spec -> number (EXIT 0, ERR/DEBUG/RETURN pseudo numbers); -1 when unknown.
int signal_number(std::string s) {
    for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (s == "EXIT" || s == "0") return kTrapExit;
    if (s == "ERR") return kTrapErr;
    if (s == "DEBUG") return kTrapDebug;
    if (s == "RETURN") return kTrapReturn;
    int64_t n = 0;
    if (parse_int(s, n)) {
        if (n >= 0 && n <= 64) return static_cast<int>(n);
        return -1;
    }
    if (s.starts_with("SIG")) s = s.substr(3);
    for (const auto& sg : kSignals)
        if (s == sg.name) return sg.num;
    return -1;
}

std::string signal_name(int n) {
    if (n == kTrapExit) return "EXIT";
    if (n == kTrapErr) return "ERR";
    if (n == kTrapDebug) return "DEBUG";
    if (n == kTrapReturn) return "RETURN";
    for (const auto& sg : kSignals)
        if (sg.num == n) return std::string("SIG") + sg.name;
    return std::to_string(n);
}

constexpr const char* kKeywords[] = {"!", "[[", "]]", "case", "coproc", "do", "done", "elif", "else", "esac",
                                     "fi", "for", "function", "if", "in", "select", "then", "time", "until",
                                     "while", "{", "}"};

bool is_keyword(std::string_view s) {
    for (const char* k : kKeywords)
        if (s == k) return true;
    return false;
}

}  // namespace

// ---------------------------------------------------------------- read

BuiltinResult builtin_read(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    bool raw = false;
    std::string array;
    char delim = '\n';
    int64_t nchars = -1;
    bool exact = false;
    int fdn = 0;
    std::string prompt;
    double timeout_s = -1;
    size_t i = 1;
    auto need = [&](size_t k, char opt) -> bool {
        if (k + 1 >= a.size()) {
            sh.builtin_error("read", std::string("-") + opt + ": option requires an argument");
            sh.write_err("read: usage: read [-ers] [-a array] [-d delim] [-i text] [-n nchars] [-N nchars] [-p prompt] [-t timeout] [-u fd] [name ...]\n");
            return false;
        }
        return true;
    };
    for (; i < a.size(); ++i) {
        const std::string& s = a[i];
        if (s == "--") {
            ++i;
            break;
        }
        if (s.size() < 2 || s[0] != '-') break;
        for (size_t k = 1; k < s.size(); ++k) {
            char c = s[k];
            if (c == 'r') raw = true;
            else if (c == 's' || c == 'e') {
            } else if (std::strchr("adinNptu", c)) {
                std::string arg;
                if (k + 1 < s.size()) {
                    arg = s.substr(k + 1);
                } else {
                    if (!need(i, c)) return 2;
                    arg = a[++i];
                }
                k = s.size();
                switch (c) {
                    case 'a': array = arg; break;
                    case 'd': delim = arg.empty() ? '\0' : arg[0]; break;
                    case 'i': break;
                    case 'n':
                    case 'N':
                        if (!parse_int(arg, nchars) || nchars < 0) {
                            sh.builtin_error("read", arg + ": invalid number");
                            return 1;
                        }
                        exact = c == 'N';
                        break;
                    case 'p': prompt = arg; break;
                    case 't': {
                        bool ok = !arg.empty();
                        for (char ch : arg)
                            if (!(std::isdigit(static_cast<unsigned char>(ch)) || ch == '.')) ok = false;
                        if (!ok) {
                            sh.builtin_error("read", arg + ": invalid timeout specification");
                            return 1;
                        }
                        timeout_s = std::strtod(arg.c_str(), nullptr);
                        break;
                    }
                    case 'u': {
                        int64_t v = -1;
                        if (!parse_int(arg, v) || v < 0 || v > 1023) {
                            sh.builtin_error("read", arg + ": invalid file descriptor specification");
                            return 1;
                        }
                        fdn = static_cast<int>(v);
                        break;
                    }
                }
            } else {
                sh.builtin_error("read", std::string("-") + c + ": invalid option");
                sh.write_err("read: usage: read [-ers] [-a array] [-d delim] [-i text] [-n nchars] [-N nchars] [-p prompt] [-t timeout] [-u fd] [name ...]\n");
                return 2;
            }
        }
    }
    std::vector<std::string> names(a.begin() + static_cast<ptrdiff_t>(i), a.end());
    for (const auto& n : names) {
        std::string base = n.substr(0, n.find('['));
        if (!valid_name(base)) return sh.builtin_error("read", "`" + n + "': not a valid identifier");
    }
    StreamPtr src = sh.fd(fdn);
    if (!src) return sh.builtin_error("read", std::to_string(fdn) + ": invalid file descriptor: Bad file descriptor");
    if (timeout_s >= 0) {
        auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::microseconds(static_cast<int64_t>(std::min(timeout_s, 1e9) * 1e6));
        if (timeout_s == 0) return src->wait_readable(deadline) ? 0 : 1;
        if (!src->wait_readable(deadline)) {
            for (const auto& n : names) (void)sh.assign(n, "");
            if (names.empty() && array.empty()) (void)sh.assign("REPLY", "");
            return 142;
        }
    }

    // Read the raw input.
    std::string line;
    std::vector<bool> quoted;  // per byte of line: escaped by a backslash
    bool eof = false;
    if (nchars == 0) {
        // read -n 0: succeeds without reading.
    } else if (nchars > 0) {
        int64_t got = 0;
        while (got < nchars) {
            char c;
            IoResult r = src->read(&c, 1);
            if (!r.ok() || r.n == 0) {
                eof = true;
                break;
            }
            if (!exact && c == delim) break;
            if (!raw && c == '\\') {
                char d;
                IoResult r2 = src->read(&d, 1);
                if (!r2.ok() || r2.n == 0) {
                    eof = true;
                    break;
                }
                if (d == '\n') continue;
                line.push_back(d);
                quoted.push_back(true);
                ++got;
                continue;
            }
            line.push_back(c);
            quoted.push_back(false);
            // Count characters, not bytes: continuation bytes of UTF-8 do not count.
            if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++got;
        }
        // Complete a partial UTF-8 character.
        while (!line.empty()) {
            unsigned char lead = 0;
            size_t k = line.size();
            size_t back = 0;
            while (k > 0 && back < 4) {
                --k;
                ++back;
                if ((static_cast<unsigned char>(line[k]) & 0xC0) != 0x80) {
                    lead = static_cast<unsigned char>(line[k]);
                    break;
                }
            }
            size_t want = lead < 0x80 ? 1 : (lead >> 5) == 6 ? 2 : (lead >> 4) == 14 ? 3 : (lead >> 3) == 30 ? 4 : 1;
            if (back >= want) break;
            char c;
            IoResult r = src->read(&c, 1);
            if (!r.ok() || r.n == 0) break;
            line.push_back(c);
            quoted.push_back(false);
        }
    } else {
        while (true) {
            std::string chunk;
            IoResult r = src->read_until(delim, chunk, sh.s_.limits.max_variable_bytes);
            if (!r.ok() || chunk.empty()) {
                eof = true;
                break;
            }
            bool ended = chunk.back() == delim;
            if (ended) chunk.pop_back();
            else eof = true;
            if (raw) {
                line += chunk;
                quoted.resize(line.size(), false);
                break;
            }
            // Backslash processing: \x is x (quoted); a backslash before the delimiter continues the line.
            bool cont = false;
            for (size_t k = 0; k < chunk.size(); ++k) {
                if (chunk[k] == '\\') {
                    if (k + 1 < chunk.size()) {
                        line.push_back(chunk[++k]);
                        quoted.push_back(true);
                    } else if (ended && delim == '\n') {
                        cont = true;
                    }
                    continue;
                }
                line.push_back(chunk[k]);
                quoted.push_back(false);
            }
            if (!cont || !ended) break;
        }
    }
    if (line.size() > sh.s_.limits.max_variable_bytes) line.resize(sh.s_.limits.max_variable_bytes);
    (void)prompt;

    const Var* ifsv = sh.st_.vars.find("IFS");
    std::string ifs = ifsv && ifsv->set ? ifsv->str : std::string(" \t\n");
    auto is_ifs = [&](size_t k) { return !quoted[k] && ifs.find(line[k]) != std::string::npos; };
    auto is_ws = [&](size_t k) {
        char c = line[k];
        return is_ifs(k) && (c == ' ' || c == '\t' || c == '\n');
    };
    auto status = eof ? 1 : 0;

    if (names.empty() && array.empty()) {
        if (!sh.assign("REPLY", line)) return 1;
        return status;
    }

    size_t pos = 0;
    // get_word_from_string: skips leading IFS white space, takes up to an IFS char, then skips one
    // delimiter (white space around it included).
    auto next_word = [&](size_t& p) {
        while (p < line.size() && is_ws(p)) ++p;
        size_t b = p;
        while (p < line.size() && !is_ifs(p)) ++p;
        std::string w = line.substr(b, p - b);
        while (p < line.size() && is_ws(p)) ++p;
        if (p < line.size() && is_ifs(p) && !is_ws(p)) {
            ++p;
            while (p < line.size() && is_ws(p)) ++p;
        }
        return w;
    };
    while (pos < line.size() && is_ws(pos)) ++pos;

    if (!array.empty()) {
        std::vector<std::string> words;
        while (pos < line.size()) words.push_back(next_word(pos));
        Var* v = sh.lookup_mut(array);
        if (v && v->readonly()) return sh.builtin_error("read", array + ": readonly variable");
        if (!sh.assign_array(array, words, false)) return 1;
        return status;
    }
    for (size_t k = 0; k < names.size(); ++k) {
        std::string val;
        if (k + 1 == names.size()) {
            size_t start = pos;
            size_t p = pos;
            std::string w = next_word(p);
            if (p >= line.size()) {
                val = w;
            } else {
                size_t end = line.size();
                while (end > start && is_ws(end - 1)) --end;
                val = line.substr(start, end - start);
            }
            pos = line.size();
        } else {
            val = pos < line.size() ? next_word(pos) : std::string();
        }
        const std::string& n = names[k];
        size_t lb = n.find('[');
        bool ok = lb == std::string::npos ? sh.assign(n, val)
                                          : sh.assign_elem(n.substr(0, lb), n.substr(lb + 1, n.size() - lb - 2), val, false);
        if (!ok) return 1;
    }
    return status;
}

// ---------------------------------------------------------------- mapfile / readarray

BuiltinResult builtin_mapfile(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    char delim = '\n';
    int64_t count = 0, origin = 0, skip = 0, quantum = 5000;
    bool strip = false;
    int fdn = 0;
    std::string callback;
    size_t i = 1;
    for (; i < a.size(); ++i) {
        const std::string& s = a[i];
        if (s == "--") {
            ++i;
            break;
        }
        if (s.size() < 2 || s[0] != '-') break;
        char c = s[1];
        if (c == 't' && s.size() == 2) {
            strip = true;
            continue;
        }
        std::string arg;
        if (s.size() > 2) arg = s.substr(2);
        else if (i + 1 < a.size()) arg = a[++i];
        else {
            sh.builtin_error(a[0], std::string("-") + c + ": option requires an argument");
            return 2;
        }
        int64_t v = 0;
        switch (c) {
            case 'd': delim = arg.empty() ? '\0' : arg[0]; break;
            case 'n':
                if (!parse_int(arg, count) || count < 0) return sh.builtin_error(a[0], arg + ": invalid line count");
                break;
            case 'O':
                if (!parse_int(arg, origin) || origin < 0) return sh.builtin_error(a[0], arg + ": invalid array origin");
                break;
            case 's':
                if (!parse_int(arg, skip) || skip < 0) return sh.builtin_error(a[0], arg + ": invalid line count");
                break;
            case 'u':
                if (!parse_int(arg, v) || v < 0 || v > 1023) return sh.builtin_error(a[0], arg + ": invalid file descriptor specification");
                fdn = static_cast<int>(v);
                break;
            case 'C': callback = arg; break;
            case 'c':
                if (!parse_int(arg, quantum) || quantum <= 0) return sh.builtin_error(a[0], arg + ": invalid callback quantum");
                break;
            default:
                sh.builtin_error(a[0], std::string("-") + c + ": invalid option");
                return 2;
        }
    }
    std::string name = i < a.size() ? a[i] : "MAPFILE";
    if (!valid_name(name)) return sh.builtin_error(a[0], "`" + name + "': not a valid identifier");
    StreamPtr src = sh.fd(fdn);
    if (!src) return sh.builtin_error(a[0], std::to_string(fdn) + ": invalid file descriptor: Bad file descriptor");
    Var* v = sh.lookup_mut(name);
    if (v && v->readonly()) return sh.builtin_error(a[0], name + ": readonly variable");
    if (!v || !v->is_indexed() || origin == 0) {
        if (origin == 0) (void)sh.assign_array(name, {}, false);
        else if (!v || !v->is_indexed()) (void)sh.assign_array(name, {}, true);
    }
    int64_t idx = origin, read_lines = 0;
    while (count == 0 || read_lines < count) {
        if (sh.check_cancel()) break;
        std::string line;
        IoResult r = src->read_until(delim, line, sh.s_.limits.max_variable_bytes);
        if (!r.ok() || line.empty()) break;
        if (skip > 0) {
            --skip;
            continue;
        }
        if (strip && line.back() == delim) line.pop_back();
        if (!sh.assign_elem(name, to_dec(idx), line, false, true)) return 1;
        if (!callback.empty() && (read_lines + 1) % quantum == 0) {
            Flow f = sh.run_source(callback + " " + to_dec(idx) + " " + quote_for_reuse(line, QuoteStyle::Single), sh.source_name_, true);
            if (f != Flow::Normal) {
                return {sh.st_.status, f};
            }
        }
        ++idx;
        ++read_lines;
    }
    return 0;
}

// ---------------------------------------------------------------- getopts

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
    return sh.do_getopts(a[1], a[2], args);
}

int Exec::do_getopts(std::string_view optstring, std::string_view varname, const std::vector<std::string>& args) {
    if (!valid_name(varname)) return builtin_error("getopts", "`" + std::string(varname) + "': not a valid identifier");
    bool silent = !optstring.empty() && optstring[0] == ':';
    if (silent) optstring.remove_prefix(1);
    const std::string* opterr = get_scalar("OPTERR");
    bool report = !silent && !(opterr && *opterr == "0");
    int64_t optind = 1;
    if (const std::string* s = get_scalar("OPTIND")) parse_int(*s, optind);
    if (optind < 1) optind = 1;
    if (optind != st_.getopts_optind) {
        st_.getopts_pos = 0;
        st_.getopts_optind = optind;
    }
    auto finish = [&](int64_t ind) {
        int pos = st_.getopts_pos;
        (void)assign("OPTIND", to_dec(ind));
        st_.getopts_pos = pos;
        st_.getopts_optind = ind;
    };
    size_t k = static_cast<size_t>(optind - 1);
    if (st_.getopts_pos == 0) {
        if (k >= args.size() || args[k].size() < 2 || args[k][0] != '-') {
            (void)assign(varname, "?");
            finish(optind);
            return 1;
        }
        if (args[k] == "--") {
            (void)assign(varname, "?");
            finish(optind + 1);
            return 1;
        }
        st_.getopts_pos = 1;
    }
    const std::string& word = args[k];
    char c = word[static_cast<size_t>(st_.getopts_pos)];
    ++st_.getopts_pos;
    bool last_in_word = static_cast<size_t>(st_.getopts_pos) >= word.size();
    size_t where = optstring.find(c);
    if (where == std::string_view::npos || c == ':') {
        if (last_in_word) {
            st_.getopts_pos = 0;
            ++optind;
        }
        if (silent) {
            (void)assign(varname, "?");
            (void)assign("OPTARG", std::string(1, c));
        } else {
            if (report) error(std::string("illegal option -- ") + c);
            (void)assign(varname, "?");
            unset_var("OPTARG");
        }
        finish(optind);
        return 0;
    }
    bool takes_arg = where + 1 < optstring.size() && optstring[where + 1] == ':';
    if (takes_arg) {
        std::string arg;
        if (!last_in_word) {
            arg = word.substr(static_cast<size_t>(st_.getopts_pos));
            st_.getopts_pos = 0;
            ++optind;
        } else if (k + 1 < args.size()) {
            arg = args[k + 1];
            st_.getopts_pos = 0;
            optind += 2;
        } else {
            st_.getopts_pos = 0;
            ++optind;
            if (silent) {
                (void)assign(varname, ":");
                (void)assign("OPTARG", std::string(1, c));
            } else {
                if (report) error(std::string("option requires an argument -- ") + c);
                (void)assign(varname, "?");
                unset_var("OPTARG");
            }
            finish(optind);
            return 0;
        }
        (void)assign("OPTARG", arg);
    } else {
        if (last_in_word) {
            st_.getopts_pos = 0;
            ++optind;
        }
        unset_var("OPTARG");
    }
    (void)assign(varname, std::string(1, c));
    finish(optind);
    return 0;
}

// ---------------------------------------------------------------- let

BuiltinResult builtin_let(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    if (a.size() < 2) return sh.builtin_error("let", "expression expected");
    int64_t v = 0;
    for (size_t i = 1; i < a.size(); ++i) {
        Ex r = sh.arith_text_prefixed(a[i], v, "let: ");
        if (r == Ex::Fatal) {
            return {1, Flow::Exit};
        }
        if (r != Ex::Ok) return 1;
    }
    return v != 0 ? 0 : 1;
}

// ---------------------------------------------------------------- type / command / builtin

std::string Exec::describe_command(std::string_view name, bool& found, int mode) {
    // mode 0: `type` (verbose), 1: type -t, 2: command -v / type -p, 3: command -V
    found = true;
    std::string n(name);
    if (mode != 2 || true) {
        auto al = st_.aliases.find(n);
        if (al != st_.aliases.end() && mode != 2) {
            if (mode == 1) return "alias\n";
            return n + " is aliased to `" + al->second + "'\n";
        }
        if (al != st_.aliases.end() && mode == 2) return "alias " + n + "=" + quote_for_reuse(al->second, QuoteStyle::Single) + "\n";
    }
    if (is_keyword(name)) {
        if (mode == 1) return "keyword\n";
        if (mode == 2) return n + "\n";
        return n + " is a shell keyword\n";
    }
    auto fn = st_.funcs.find(n);
    if (fn != st_.funcs.end()) {
        if (mode == 1) return "function\n";
        if (mode == 2) return n + "\n";
        std::string out = n + " is a function\n";
        print_function(*fn->second, out);
        return out;
    }
    if (find_builtin(name) && !s_.find_custom(name)) {
        if (mode == 1) return "builtin\n";
        if (mode == 2) return n + "\n";
        return n + " is a shell builtin\n";
    }
    std::string path;
    if (name.find('/') != std::string_view::npos) {
        auto st = s_.fs.stat(abs_path(name));
        if ((st && st->is_regular() && (st->mode & 0111)) || !virtual_bin_name(name).empty()) path = n;
    } else if (s_.find_utility(name) || name == "bash" || name == "sh") {
        path = "/usr/bin/" + n;
        auto st = s_.fs.stat(path);
        if (!st) {
            std::string in_path = find_in_path(n);
            if (!in_path.empty()) path = in_path;
        }
    } else {
        path = find_in_path(n);
    }
    if (path.empty()) {
        found = false;
        return {};
    }
    if (mode == 1) return "file\n";
    if (mode == 2) return path + "\n";
    if (st_.hashed.count(n)) return n + " is hashed (" + path + ")\n";
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
            if ((!no_funcs && (sh.st_.funcs.count(a[i]) || is_keyword(a[i]))) || find_builtin(a[i]) ||
                sh.st_.aliases.count(a[i])) {
                found = true;
            } else {
                std::string p = sh.s_.find_utility(a[i]) ? "/usr/bin/" + a[i] : sh.find_in_path(a[i]);
                if (!p.empty()) {
                    found = true;
                    d = p + "\n";
                }
            }
        } else {
            d = sh.describe_command(a[i], found, mode);
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
        int status = 0;
        std::string out;
        for (; i < a.size(); ++i) {
            bool found = false;
            std::string d = sh.describe_command(a[i], found, mode);
            if (!found) {
                if (mode == 0) sh.builtin_error("command", a[i] + ": not found");
                status = 1;
                continue;
            }
            out += d;
        }
        sh.write_out(out);
        return status;
    }
    std::vector<std::string> rest(a.begin() + static_cast<ptrdiff_t>(i), a.end());
    Flow f = sh.run_argv(rest, nullptr, true, false, ctx.decls);
    return {sh.st_.status, f};
}

BuiltinResult builtin_builtin(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    if (a.size() < 2) return 0;
    const BuiltinInfo* b = find_builtin(a[1]);
    if (!b) return sh.builtin_error("builtin", a[1] + ": not a shell builtin");
    std::vector<std::string> rest(a.begin() + 1, a.end());
    Flow f = sh.run_builtin(*b, rest, ctx.decls);
    return {sh.st_.status, f};
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

// ---------------------------------------------------------------- trap

BuiltinResult builtin_trap(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    size_t i = 1;
    bool print = false, list = false;
    for (; i < a.size(); ++i) {
        const std::string& s = a[i];
        if (s == "--") {
            ++i;
            break;
        }
        if (s == "-p") print = true;
        else if (s == "-l") list = true;
        else break;
    }
    if (list) {
        std::string out;
        for (size_t k = 0; k < std::size(kSignals); ++k) {
            char buf[32];
            std::snprintf(buf, sizeof buf, "%2d) SIG%s", kSignals[k].num, kSignals[k].name);
            out += buf;
            out += (k % 5 == 4 || k + 1 == std::size(kSignals)) ? "\n" : "\t";
        }
        sh.write_out(out);
        return 0;
    }
    auto show = [&](int n, std::string& out) {
        auto it = sh.st_.traps.find(n);
        if (it == sh.st_.traps.end()) return;
        out += "trap -- " + quote_for_reuse(it->second.action, QuoteStyle::Single) + " " + signal_name(n) + "\n";
        if (it->second.action.empty()) {
            out.replace(out.size() - signal_name(n).size() - 4, 3, "''");
        }
    };
    if (i >= a.size() || print) {
        std::string out;
        if (i >= a.size()) {
            for (const auto& [n, t] : sh.st_.traps) show(n, out);
        } else {
            for (; i < a.size(); ++i) {
                int n = signal_number(a[i]);
                if (n < 0) {
                    sh.builtin_error("trap", a[i] + ": invalid signal specification");
                    continue;
                }
                show(n, out);
            }
        }
        sh.write_out(out);
        return 0;
    }
    std::string action = a[i];
    bool reset = action == "-";
    size_t first_sig = i + 1;
    // `trap SIG...` with a first argument that is a signal number resets those signals.
    int64_t maybe = 0;
    if (parse_int(action, maybe) && signal_number(action) >= 0) {
        reset = true;
        first_sig = i;
    }
    if (first_sig >= a.size()) {
        int n = signal_number(action);
        if (n >= 0) {
            sh.st_.traps.erase(n);
            return 0;
        }
        sh.builtin_error("trap", action + ": invalid signal specification");
        return 1;
    }
    if (sh.st_.traps_display_only) {
        // The first trap set in a subshell drops the parent's (except ignored signals).
        for (auto it = sh.st_.traps.begin(); it != sh.st_.traps.end();) {
            if (!it->second.action.empty())
                it = sh.st_.traps.erase(it);
            else
                ++it;
        }
        sh.st_.traps_display_only = false;
    }
    int status = 0;
    for (size_t k = first_sig; k < a.size(); ++k) {
        int n = signal_number(a[k]);
        if (n < 0) {
            sh.builtin_error("trap", a[k] + ": invalid signal specification");
            status = 1;
            continue;
        }
        if (reset)
            sh.st_.traps.erase(n);
        else
            sh.st_.traps[n] = Trap{action, nullptr};
    }
    return status;
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
        for (const auto& [k, v] : sh.st_.aliases) out += "alias " + k + "=" + quote_for_reuse(v, QuoteStyle::Single) + "\n";
        sh.write_out(out);
        return 0;
    }
    int status = 0;
    for (; i < a.size(); ++i) {
        size_t eq = a[i].find('=');
        if (eq == std::string::npos) {
            auto it = sh.st_.aliases.find(a[i]);
            if (it == sh.st_.aliases.end()) {
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
        auto old = sh.st_.aliases.find(name);
        size_t before = old == sh.st_.aliases.end() ? 0 : alias_bytes(old->first, old->second);
        size_t after = alias_bytes(name, value);
        if (after > before && !sh.variable_bytes_fit("alias", after - before)) {
            status = 1;
            continue;
        }
        sh.st_.vars.add_bytes(static_cast<int64_t>(after) - static_cast<int64_t>(before));
        sh.st_.aliases[name] = std::move(value);
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
            for (const auto& [k, v] : sh.st_.aliases) sh.st_.vars.add_bytes(-static_cast<int64_t>(alias_bytes(k, v)));
            sh.st_.aliases.clear();
            continue;
        }
        auto it = sh.st_.aliases.find(a[i]);
        if (it == sh.st_.aliases.end()) {
            sh.builtin_error("unalias", a[i] + ": not found");
            status = 1;
            continue;
        }
        sh.st_.vars.add_bytes(-static_cast<int64_t>(alias_bytes(it->first, it->second)));
        sh.st_.aliases.erase(it);
    }
    return status;
}

// ---------------------------------------------------------------- jobs

std::shared_ptr<Job> Exec::find_job(const std::string& spec, bool& bad) {
    bad = false;
    auto& all = st_.jobs->jobs;
    if (!spec.starts_with("%")) {
        int64_t pid = 0;
        if (!parse_int(spec, pid)) {
            bad = true;
            return nullptr;
        }
        for (auto& j : all)
            if (j->pid == pid) return j;
        return nullptr;
    }
    std::vector<std::shared_ptr<Job>> jobs;
    for (auto& j : all)
        if (!j->hidden) jobs.push_back(j);
    if (spec.starts_with("%")) {
        std::string s = spec.substr(1);
        if (s.empty() || s == "%" || s == "+") {
            if (!jobs.empty()) return jobs.back();
            bad = true;
            return nullptr;
        }
        if (s == "-") {
            if (jobs.size() >= 2) return jobs[jobs.size() - 2];
            if (!jobs.empty()) return jobs.back();
            bad = true;
            return nullptr;
        }
        int64_t n = 0;
        if (parse_int(s, n)) {
            for (auto& j : jobs)
                if (j->id == n) return j;
            bad = true;
            return nullptr;
        }
        for (auto it = jobs.rbegin(); it != jobs.rend(); ++it)
            if ((*it)->command.starts_with(s)) return *it;
        bad = true;
        return nullptr;
    }
    int64_t pid = 0;
    if (!parse_int(spec, pid)) {
        bad = true;
        return nullptr;
    }
    for (auto& j : jobs)
        if (j->pid == pid) return j;
    return nullptr;
}

int Exec::wait_job(Job& j) {
    std::unique_lock lock(s_.jobs_mu);
    while (!j.done.load()) {
        if (cancel_->cancelled()) return -1;
        s_.jobs_cv.wait_for(lock, std::chrono::milliseconds(20));
    }
    j.reported = true;
    return j.signal ? 128 + j.signal : j.status.load();
}

BuiltinResult builtin_wait(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    bool any = false;
    std::string pvar;
    size_t i = 1;
    for (; i < a.size(); ++i) {
        if (a[i] == "-n") any = true;
        else if (a[i] == "-f") {
        } else if (a[i] == "-p" && i + 1 < a.size()) pvar = a[++i];
        else if (a[i] == "--") {
            ++i;
            break;
        } else break;
    }
    auto& jobs = sh.st_.jobs->jobs;
    auto prune = [&]() {
        jobs.erase(std::remove_if(jobs.begin(), jobs.end(), [](const std::shared_ptr<Job>& j) { return j->done && j->reported; }),
                   jobs.end());
    };
    if (i >= a.size()) {
        if (any) {
            // The next job to finish.
            bool pending = false;
            for (auto& j : jobs)
                if (!j->reported) pending = true;
            if (!pending) return 127;
            std::unique_lock lock(sh.s_.jobs_mu);
            while (true) {
                for (auto& j : jobs) {
                    if (!j->reported && j->done.load()) {
                        j->reported = true;
                        int st = j->signal ? 128 + j->signal : j->status.load();
                        if (!pvar.empty()) {
                            lock.unlock();
                            (void)sh.assign(pvar, to_dec(j->pid));
                        }
                        lock = std::unique_lock<std::mutex>();
                        prune();
                        return st;
                    }
                }
                if (sh.cancel_->cancelled()) {
                    Flow flow = sh.cancelled_flow();
                    return {sh.exit_status_, flow};
                }
                sh.s_.jobs_cv.wait_for(lock, std::chrono::milliseconds(20));
            }
        }
        for (auto& j : jobs) {
            int st = sh.wait_job(*j);
            if (st < 0) {
                Flow flow = sh.cancelled_flow();
                return {sh.exit_status_, flow};
            }
        }
        jobs.clear();
        return 0;
    }
    int status = 0;
    for (; i < a.size(); ++i) {
        bool bad = false;
        auto j = sh.find_job(a[i], bad);
        if (!j) {
            if (bad && a[i].starts_with("%"))
                sh.builtin_error("wait", a[i] + ": no such job");
            else if (bad)
                sh.builtin_error("wait", "`" + a[i] + "': not a pid or valid job spec");
            else
                sh.builtin_error("wait", "pid " + a[i] + " is not a child of this shell");
            status = 127;
            continue;
        }
        int st = sh.wait_job(*j);
        if (st < 0) {
            Flow flow = sh.cancelled_flow();
            return {sh.exit_status_, flow};
        }
        status = st;
        if (!pvar.empty()) (void)sh.assign(pvar, to_dec(j->pid));
    }
    prune();
    return status;
}

BuiltinResult builtin_jobs(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    bool pids = false, long_fmt = false;
    for (size_t i = 1; i < a.size(); ++i) {
        if (a[i] == "-p") pids = true;
        else if (a[i] == "-l") long_fmt = true;
    }
    std::vector<std::shared_ptr<Job>> jobs;
    for (auto& j : sh.st_.jobs->jobs)
        if (!j->hidden) jobs.push_back(j);
    std::string out;
    for (size_t k = 0; k < jobs.size(); ++k) {
        auto& j = jobs[k];
        if (pids) {
            out += to_dec(j->pid) + "\n";
            continue;
        }
        char mark = k + 1 == jobs.size() ? '+' : (k + 2 == jobs.size() ? '-' : ' ');
        bool done = j->done.load();
        std::string state = done ? (j->status.load() == 0 ? "Done" : "Exit " + std::to_string(j->status.load())) : "Running";
        std::string line = "[" + std::to_string(j->id) + "]" + mark + "  ";
        if (long_fmt) line += to_dec(j->pid) + " ";
        line += state;
        if (line.size() < 30) line += std::string(30 - line.size(), ' ');
        line += j->command + (done ? "" : " &");
        out += line + "\n";
        if (done) j->reported = true;
    }
    auto& table = sh.st_.jobs->jobs;
    table.erase(std::remove_if(table.begin(), table.end(),
                               [](const std::shared_ptr<Job>& j) { return j->done && j->reported; }),
                table.end());
    sh.write_out(out);
    return 0;
}

BuiltinResult builtin_kill(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    int sig = 15;
    size_t i = 1;
    if (i < a.size() && (a[i] == "-l" || a[i] == "-L")) {
        std::string out;
        if (i + 1 < a.size()) {
            for (size_t k = i + 1; k < a.size(); ++k) {
                int64_t n = 0;
                if (parse_int(a[k], n)) {
                    if (n > 128) n -= 128;
                    std::string nm = signal_name(static_cast<int>(n));
                    out += (nm.starts_with("SIG") ? nm.substr(3) : nm) + "\n";
                } else {
                    out += std::to_string(signal_number(a[k])) + "\n";
                }
            }
        } else {
            for (size_t k = 0; k < std::size(kSignals); ++k) {
                char buf[32];
                std::snprintf(buf, sizeof buf, "%2d) SIG%s", kSignals[k].num, kSignals[k].name);
                out += buf;
                out += (k % 5 == 4 || k + 1 == std::size(kSignals)) ? "\n" : "\t";
            }
        }
        sh.write_out(out);
        return 0;
    }
    if (i < a.size() && (a[i] == "-s" || a[i] == "-n")) {
        if (i + 1 >= a.size()) return sh.builtin_error("kill", a[i] + ": option requires an argument");
        sig = signal_number(a[i + 1]);
        if (sig < 0) return sh.builtin_error("kill", a[i + 1] + ": invalid signal specification");
        i += 2;
    } else if (i < a.size() && a[i].size() > 1 && a[i][0] == '-' && a[i] != "--") {
        sig = signal_number(a[i].substr(1));
        if (sig < 0) return sh.builtin_error("kill", a[i].substr(1) + ": invalid signal specification");
        ++i;
    }
    if (i < a.size() && a[i] == "--") ++i;
    if (i >= a.size()) {
        sh.write_err("kill: usage: kill [-s sigspec | -n signum | -sigspec] pid | jobspec ... or kill -l [sigspec]\n");
        return 2;
    }
    int status = 0;
    for (; i < a.size(); ++i) {
        int64_t pid = 0;
        if (!a[i].starts_with("%") && parse_int(a[i], pid) && (pid == sh.s_.id.pid || pid == sh.st_.bashpid)) {
            // Signalling ourselves: run the trap, or end the shell.
            if (sig == 0) continue;
            auto it = sh.st_.traps.find(sig);
            if (it != sh.st_.traps.end()) {
                if (!it->second.action.empty()) sh.run_trap(sig);
                continue;
            }
            if (sig == 17 || sig == 18 || sig == 23 || sig == 28) continue;
            sh.exit_status_ = 128 + sig;
            return {sh.exit_status_, Flow::Exit};
        }
        bool bad = false;
        auto j = sh.find_job(a[i], bad);
        if (!j) {
            if (a[i].starts_with("%"))
                sh.builtin_error("kill", a[i] + ": no such job");
            else if (bad)
                sh.builtin_error("kill", a[i] + ": arguments must be process or job IDs");
            else
                sh.builtin_error("kill", "(" + a[i] + ") - No such process");
            status = 1;
            continue;
        }
        if (sig == 0) {
            if (j->done) status = 1;
            continue;
        }
        if (sig == 17 || sig == 18 || sig == 28 || sig == 23) continue;
        if (!j->done) {
            j->signal = sig;
            j->token->cancel();
        }
    }
    return status;
}

BuiltinResult builtin_disown(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    auto& jobs = sh.st_.jobs->jobs;
    if (a.size() == 1 || a[1] == "-a") {
        jobs.clear();
        return 0;
    }
    for (size_t i = 1; i < a.size(); ++i) {
        bool bad = false;
        auto j = sh.find_job(a[i], bad);
        if (!j) {
            sh.builtin_error("disown", a[i] + ": no such job");
            return 1;
        }
        std::erase(jobs, j);
    }
    return 0;
}

BuiltinResult builtin_fg(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    return sh.builtin_error(a[0], "no job control");
}
BuiltinResult builtin_suspend(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    return sh.builtin_error("suspend", "cannot suspend a non-interactive shell");
}

// ---------------------------------------------------------------- directory stack

namespace {
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
        if (s.size() > 1 && s[0] == '-' && !std::isdigit(static_cast<unsigned char>(s[1]))) {
            for (size_t k = 1; k < s.size(); ++k) {
                if (s[k] == 'c') clear = true;
                else if (s[k] == 'l') full = true;
                else if (s[k] == 'p') per_line = true;
                else if (s[k] == 'v') per_line = verbose = true;
                else return sh.builtin_error("dirs", s + ": invalid option");
            }
        }
    }
    if (clear) {
        sh.st_.dirstack.clear();
        return 0;
    }
    std::string home = sh.get_str("HOME");
    std::vector<std::string> all{sh.st_.cwd};
    for (auto it = sh.st_.dirstack.rbegin(); it != sh.st_.dirstack.rend(); ++it) all.push_back(*it);
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
    bool no_cd = false;
    std::string arg;
    for (size_t i = 1; i < a.size(); ++i) {
        if (a[i] == "-n") no_cd = true;
        else if (a[i] == "--") continue;
        else arg = a[i];
    }
    if (arg.empty()) {
        if (sh.st_.dirstack.empty()) return sh.builtin_error("pushd", "no other directory");
        std::string top = sh.st_.dirstack.back();
        std::string cur = sh.st_.cwd;
        if (!no_cd && !sh.cd_to(top, false, false)) return 1;
        sh.st_.dirstack.back() = cur;
    } else if ((arg[0] == '+' || arg[0] == '-') && arg.size() > 1 && std::isdigit(static_cast<unsigned char>(arg[1]))) {
        int64_t n = 0;
        parse_int(arg.substr(1), n);
        std::vector<std::string> all{sh.st_.cwd};
        for (auto it = sh.st_.dirstack.rbegin(); it != sh.st_.dirstack.rend(); ++it) all.push_back(*it);
        if (n >= static_cast<int64_t>(all.size())) return sh.builtin_error("pushd", arg + ": directory stack index out of range");
        size_t k = arg[0] == '+' ? static_cast<size_t>(n) : all.size() - 1 - static_cast<size_t>(n);
        std::rotate(all.begin(), all.begin() + static_cast<ptrdiff_t>(k), all.end());
        if (!sh.cd_to(all[0], false, false)) return 1;
        sh.st_.dirstack.assign(all.rbegin(), all.rend() - 1);
    } else {
        std::string cur = sh.st_.cwd;
        if (!no_cd) {
            if (!sh.cd_to(arg, sh.st_.opts[OptPhysical], false)) return 1;
            sh.st_.dirstack.push_back(cur);
        } else {
            sh.st_.dirstack.insert(sh.st_.dirstack.end() - (sh.st_.dirstack.empty() ? 0 : 0), sh.abs_path(arg));
        }
    }
    std::vector<std::string> none{"dirs"};
    BuiltinContext dirs{sh, none};
    return builtin_dirs(dirs);
}

BuiltinResult builtin_popd(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    bool no_cd = false;
    std::string arg;
    for (size_t i = 1; i < a.size(); ++i) {
        if (a[i] == "-n") no_cd = true;
        else arg = a[i];
    }
    if (sh.st_.dirstack.empty()) return sh.builtin_error("popd", "directory stack empty");
    if (!arg.empty() && (arg[0] == '+' || arg[0] == '-')) {
        int64_t n = 0;
        parse_int(arg.substr(1), n);
        std::vector<std::string> all{sh.st_.cwd};
        for (auto it = sh.st_.dirstack.rbegin(); it != sh.st_.dirstack.rend(); ++it) all.push_back(*it);
        if (n >= static_cast<int64_t>(all.size())) return sh.builtin_error("popd", arg + ": directory stack index out of range");
        size_t k = arg[0] == '+' ? static_cast<size_t>(n) : all.size() - 1 - static_cast<size_t>(n);
        if (k == 0) {
            if (!no_cd && !sh.cd_to(all[1], false, false)) return 1;
        }
        all.erase(all.begin() + static_cast<ptrdiff_t>(k));
        sh.st_.dirstack.assign(all.rbegin(), all.rend() - 1);
    } else {
        std::string top = sh.st_.dirstack.back();
        if (!no_cd && !sh.cd_to(top, false, false)) return 1;
        sh.st_.dirstack.pop_back();
    }
    std::vector<std::string> none{"dirs"};
    BuiltinContext dirs{sh, none};
    return builtin_dirs(dirs);
}

// ---------------------------------------------------------------- small ones

BuiltinResult builtin_hash(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    if (a.size() == 1) {
        if (sh.st_.hashed.empty()) {
            sh.write_out("hash: hash table empty\n");
            return 0;
        }
        std::string out = "hits\tcommand\n";
        for (const auto& [k, v] : sh.st_.hashed) out += "   1\t" + v + "\n";
        sh.write_out(out);
        return 0;
    }
    int status = 0;
    for (size_t i = 1; i < a.size(); ++i) {
        if (a[i] == "-r") {
            sh.st_.hashed.clear();
            continue;
        }
        if (a[i] == "-d" || a[i] == "-t" || a[i] == "-l") continue;
        if (a[i] == "-p" && i + 2 < a.size()) {
            sh.st_.hashed[a[i + 2]] = a[i + 1];
            i += 2;
            continue;
        }
        if (find_builtin(a[i]) || sh.st_.funcs.count(a[i])) continue;
        if (sh.s_.find_utility(a[i])) continue;
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
        std::vector<std::string> names = sh.s_.utility_names();
        if (!names.empty()) {
            out += "\nUtilities:\n";
            for (const auto& n : names) out += " " + sh.s_.find_utility(n)->help + "\n";
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
            if (const RegisteredCommand* rc = sh.s_.find_utility(a[i])) {
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

BuiltinResult builtin_umask(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    bool symbolic = false, print = false;
    size_t i = 1;
    for (; i < a.size(); ++i) {
        if (a[i] == "-S") symbolic = true;
        else if (a[i] == "-p") print = true;
        else break;
    }
    auto sym = [](uint32_t m) {
        std::string out;
        const char* who = "ugo";
        for (int k = 0; k < 3; ++k) {
            uint32_t bits = (~m >> (6 - 3 * k)) & 7;
            out += who[k];
            out += '=';
            if (bits & 4) out += 'r';
            if (bits & 2) out += 'w';
            if (bits & 1) out += 'x';
            if (k < 2) out += ',';
        }
        return out;
    };
    if (i >= a.size()) {
        char buf[16];
        std::snprintf(buf, sizeof buf, "%04o", sh.st_.umask);
        std::string out = symbolic ? sym(sh.st_.umask) : std::string(buf);
        if (print) out = "umask " + std::string(symbolic ? "-S " : "") + out;
        sh.write_out(out + "\n");
        return 0;
    }
    const std::string& m = a[i];
    if (std::all_of(m.begin(), m.end(), [](char c) { return c >= '0' && c <= '7'; })) {
        uint32_t v = 0;
        for (char c : m) v = v * 8 + static_cast<uint32_t>(c - '0');
        if (v > 0777) return sh.builtin_error("umask", m + ": octal number out of range");
        sh.st_.umask = v;
        return 0;
    }
    // Symbolic: u=rwx,g=rx,o=
    uint32_t allowed = ~sh.st_.umask & 0777;
    size_t p = 0;
    while (p < m.size()) {
        uint32_t who = 0;
        while (p < m.size() && std::strchr("ugoa", m[p])) {
            switch (m[p]) {
                case 'u': who |= 0700; break;
                case 'g': who |= 0070; break;
                case 'o': who |= 0007; break;
                default: who |= 0777; break;
            }
            ++p;
        }
        if (!who) who = 0777;
        if (p >= m.size() || !std::strchr("=+-", m[p])) return sh.builtin_error("umask", "`" + m.substr(p, 1) + "': invalid symbolic mode operator");
        char op = m[p++];
        uint32_t perm = 0;
        while (p < m.size() && std::strchr("rwx", m[p])) {
            perm |= m[p] == 'r' ? 0444 : m[p] == 'w' ? 0222 : 0111;
            ++p;
        }
        perm &= who;
        if (op == '=') allowed = (allowed & ~who) | perm;
        else if (op == '+') allowed |= perm;
        else allowed &= ~perm;
        if (p < m.size() && m[p] == ',') ++p;
        else if (p < m.size()) return sh.builtin_error("umask", "`" + m.substr(p, 1) + "': invalid symbolic mode character");
    }
    sh.st_.umask = ~allowed & 0777;
    return 0;
}

BuiltinResult builtin_ulimit(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    // Limits of the sandbox are set by the embedder; ulimit reports them and accepts changes for the
    // session without touching the host.
    char which = 'f';
    bool all = false;
    std::string value;
    for (size_t i = 1; i < a.size(); ++i) {
        const std::string& s = a[i];
        if (s.size() > 1 && s[0] == '-') {
            for (size_t k = 1; k < s.size(); ++k) {
                if (s[k] == 'a') all = true;
                else if (s[k] == 'S' || s[k] == 'H') {
                } else which = s[k];
            }
        } else {
            value = s;
        }
    }
    if (all) {
        sh.write_out(
            "real-time non-blocking time  (microseconds, -R) unlimited\n"
            "core file size              (blocks, -c) 0\n"
            "data seg size               (kbytes, -d) unlimited\n"
            "scheduling priority                 (-e) 0\n"
            "file size                   (blocks, -f) unlimited\n"
            "pending signals                     (-i) 63459\n"
            "max locked memory           (kbytes, -l) 8192\n"
            "max memory size             (kbytes, -m) unlimited\n"
            "open files                          (-n) 1024\n"
            "pipe size                (512 bytes, -p) 8\n"
            "POSIX message queues         (bytes, -q) 819200\n"
            "real-time priority                  (-r) 0\n"
            "stack size                  (kbytes, -s) 8192\n"
            "cpu time                   (seconds, -t) unlimited\n"
            "max user processes                  (-u) 63459\n"
            "virtual memory              (kbytes, -v) unlimited\n"
            "file locks                          (-x) unlimited\n");
        return 0;
    }
    if (!value.empty()) {
        int64_t n = 0;
        if (value != "unlimited" && value != "hard" && value != "soft" && !parse_int(value, n))
            return sh.builtin_error("ulimit", value + ": invalid number");
        sh.ulimits_[which] = value;
        return 0;
    }
    auto it = sh.ulimits_.find(which);
    if (it != sh.ulimits_.end()) {
        sh.write_out(it->second + "\n");
        return 0;
    }
    const char* v = "unlimited";
    switch (which) {
        case 'n': v = "1024"; break;
        case 's': v = "8192"; break;
        case 'c': v = "0"; break;
        case 'u': v = "63459"; break;
        case 'p': v = "8"; break;
        case 'l': v = "8192"; break;
        default: break;
    }
    sh.write_out(std::string(v) + "\n");
    return 0;
}

BuiltinResult builtin_times(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    sh.write_out("0m0.000s 0m0.000s\n0m0.000s 0m0.000s\n");
    return 0;
}

BuiltinResult builtin_caller(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    int64_t n = 0;
    bool with_expr = a.size() > 1;
    if (with_expr && (!parse_int(a[1], n) || n < 0)) return sh.builtin_error("caller", a[1] + ": invalid number");
    // frames: [0] main, [1..] function calls; the innermost is last.
    size_t depth = sh.st_.frames.size();
    // The main level of a -c script has no caller frame.
    if (depth <= 1 || static_cast<size_t>(n) + 2 >= depth) return 1;
    const CallFrame& f = sh.st_.frames[depth - 1 - static_cast<size_t>(n)];
    std::string caller_name = depth - 2 - static_cast<size_t>(n) == 0 ? "main" : sh.st_.frames[depth - 2 - static_cast<size_t>(n)].funcname;
    std::string src = f.source.empty() ? "environment" : f.source;
    if (!with_expr) {
        sh.write_out(to_dec(f.call_line) + " " + (src == "environment" ? std::string("environment") : src) + "\n");
        return 0;
    }
    sh.write_out(to_dec(f.call_line) + " " + caller_name + " " + src + "\n");
    return 0;
}

BuiltinResult builtin_compgen(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    std::vector<std::string> cands;
    std::string prefix, suffix, filter, word, glob;
    bool have_word = false;
    auto add_action = [&](const std::string& act) {
        if (act == "builtin" || act == "b") {
            for (const auto& b : builtin_table()) cands.emplace_back(b.name);
        } else if (act == "keyword" || act == "k") {
            for (const char* k : kKeywords) cands.emplace_back(k);
        } else if (act == "alias" || act == "a") {
            for (const auto& [k, v] : sh.st_.aliases) cands.push_back(k);
        } else if (act == "function") {
            for (const auto& [k, v] : sh.st_.funcs) cands.push_back(k);
        } else if (act == "variable" || act == "v") {
            for (const auto& [n, v] : sh.st_.vars.visible()) cands.push_back(*n);
        } else if (act == "export" || act == "e") {
            for (const auto& [n, v] : sh.st_.vars.visible())
                if (v->exported()) cands.push_back(*n);
        } else if (act == "command" || act == "c") {
            for (const auto& [k, v] : sh.st_.aliases) cands.push_back(k);
            for (const auto& b : builtin_table()) cands.emplace_back(b.name);
            for (const auto& [k, v] : sh.st_.funcs) cands.push_back(k);
            for (const char* k : kKeywords) cands.emplace_back(k);
            for (const auto& n : sh.s_.utility_names()) cands.push_back(n);
        } else if (act == "file" || act == "f" || act == "directory" || act == "d") {
            bool dirs_only = act == "directory" || act == "d";
            std::string dir = ".", base;
            (void)base;
            auto ents = sh.s_.fs.readdir(sh.st_.cwd);
            if (ents)
                for (const auto& e : *ents) {
                    if (dirs_only && !sh.s_.fs.is_directory(sh.abs_path(e.name))) continue;
                    cands.push_back(e.name);
                }
            (void)dir;
        } else if (act == "user" || act == "u") {
            cands.push_back(sh.s_.id.user);
        } else if (act == "group" || act == "g") {
            cands.push_back(sh.s_.id.user);
        } else if (act == "job" || act == "j") {
            for (auto& j : sh.st_.jobs->jobs) cands.push_back(j->command);
        } else if (act == "signal") {
            for (const auto& sg : kSignals) cands.push_back(std::string("SIG") + sg.name);
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
                    const Var* ifsv = sh.st_.vars.find("IFS");
                    std::string ifs = ifsv && ifsv->set ? ifsv->str : " \t\n";
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
                case 'o': case 'F': case 'C': break;
                default:
                    sh.builtin_error("compgen", std::string("-") + c + ": invalid option");
                    return 2;
            }
        }
    }
    std::string out;
    int n = 0;
    std::vector<std::string> seen;
    for (const auto& c : cands) {
        if (have_word && !c.starts_with(word)) continue;
        if (!filter.empty()) {
            bool neg = filter[0] == '!';
            bool m = pattern_match(neg ? filter.substr(1) : filter, c);
            if (neg ? !m : m) continue;
        }
        out += prefix + c + suffix + "\n";
        ++n;
    }
    (void)glob;
    (void)seen;
    sh.write_out(out);
    return n > 0 ? 0 : 1;
}

BuiltinResult builtin_exec(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    size_t i = 1;
    std::string argv0;
    for (; i < a.size(); ++i) {
        if (a[i] == "--") {
            ++i;
            break;
        }
        if (a[i] == "-c" || a[i] == "-l") continue;
        if (a[i] == "-a" && i + 1 < a.size()) {
            argv0 = a[++i];
            continue;
        }
        break;
    }
    if (i >= a.size()) return 0;  // redirections only: kept by the caller
    std::vector<std::string> rest(a.begin() + static_cast<ptrdiff_t>(i), a.end());
    Flow f = sh.run_argv(rest, nullptr, false, false, ctx.decls);
    if (f == Flow::Exit) {
        return {sh.exit_status_, f};
    }
    // The shell is replaced: it ends with the command's status.
    sh.exit_status_ = sh.st_.status;
    if (sh.exit_status_ == 127) {
        // bash: exec of a missing command ends a non-interactive shell with 127.
    }
    return {sh.exit_status_, Flow::Exit};
}

}  // namespace bashkit::interp

namespace bashkit::interp {

void Exec::wait_hidden_jobs() {
    for (auto& j : st_.jobs->jobs)
        if (j->hidden && wait_job(*j) < 0) return;
    auto& table = st_.jobs->jobs;
    table.erase(std::remove_if(table.begin(), table.end(),
                               [](const std::shared_ptr<Job>& j) { return j->hidden && j->done; }),
                table.end());
}

}  // namespace bashkit::interp
