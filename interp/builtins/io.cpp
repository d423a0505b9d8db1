// I/O builtins: echo, printf, read, mapfile/readarray.
#include <algorithm>
#include <bitset>
#include <chrono>
#include <cstring>
#include <span>

#include "interp/builtins/builtin.hpp"
#include "interp/exec.hpp"
#include "interp/printf.hpp"
#include "interp/quote.hpp"

namespace bashkit::interp {

// ---------------------------------------------------------------- echo / printf

BuiltinResult builtin_echo(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    bool newline = true;
    bool escapes = sh.state_.opts[ShXpgEcho];
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
        // a name, or name[subscript] with a subscript that is not empty
        size_t lb = var.find('[');
        bool ok = lb == std::string::npos ? valid_name(var)
                                          : valid_name(std::string_view(var).substr(0, lb)) && var.back() == ']' &&
                                                var.size() > lb + 2;
        if (!ok) return sh.builtin_error("printf", "`" + var + "': not a valid identifier", 2);
    }
    PrintfContext pctx;
    pctx.max_output = std::min(sh.session_.limits.max_printf_width * 4 + 4096, sh.session_.limits.max_variable_bytes);
    pctx.now = sh.session_.clock->now().sec;
    pctx.shell_start = sh.session_.wall_start;
    // %(fmt)T: the TZ of the environment, as bash (a TZ that is not exported is not seen).
    const Var* tzv = sh.state_.vars.find("TZ");
    const std::string* tz = tzv && tzv->set && (tzv->attrs & kAttrExport) && !tzv->is_array() ? &tzv->str() : nullptr;
    if (sh.session_.local_time)
        pctx.local_time = [&sh, tz](int64_t t, std::tm& out) { return sh.session_.local_time(t, tz, out); };
    std::span<const std::string> args(a.data() + i + 1, a.size() - i - 1);
    PrintfResult r = format(a[i], args, pctx);
    for (const auto& d : r.diagnostics) sh.error(d);
    for (const auto& [name, val] : r.assignments) (void)sh.assign(name, to_dec(val));
    if (!var.empty()) {
        size_t lb = var.find('[');
        bool ok = lb == std::string::npos
                      ? sh.assign(var, r.output)
                      : sh.assign_elem_text(var.substr(0, lb), var.substr(lb + 1, var.size() - lb - 2), r.output,
                                            false);
        if (!ok) return 1;
    } else if (!r.output.empty() && !sh.write_out(r.output)) {
        if (sh.broken_pipe_) return 141;
        return sh.builtin_error("printf", "write error: Bad file descriptor");
    }
    return r.status;
}

// ---------------------------------------------------------------- read

BuiltinResult builtin_read(BuiltinContext& ctx) {
    Exec& sh = ctx.sh;
    std::vector<std::string>& a = ctx.args;
    bool raw = false;
    std::string array;
    bool has_array = false;
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
        const std::string_view s = a[i];
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
                    arg = std::string(s.substr(k + 1));
                } else {
                    if (!need(i, c)) return 2;
                    arg = a[++i];
                }
                k = s.size();
                switch (c) {
                    case 'a':
                        array = arg;
                        has_array = true;
                        break;
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
    // (a view of the arguments: a read per line of a `while read` loop copied them)
    const std::span<const std::string> names(a.begin() + static_cast<ptrdiff_t>(i), a.end());
    // The -a name is a plain name (no subscript); an empty one is refused too, as bash does.
    if (has_array && !valid_name(array)) return sh.builtin_error("read", "`" + array + "': not a valid identifier");
    for (const auto& n : names) {
        const std::string_view base = std::string_view(n).substr(0, n.find('['));
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
    std::vector<bool> quoted;  // per byte of line: escaped by a backslash (empty with -r: none is)
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
            if (c == '\0') continue;  // bash drops NUL bytes (they would end its C strings)
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
            IoResult r = src->read_until(delim, chunk, sh.session_.limits.max_variable_bytes);
            if (!r.ok() || chunk.empty()) {
                eof = true;
                break;
            }
            bool ended = chunk.back() == delim;
            if (ended) chunk.pop_back();
            else eof = true;
            std::erase(chunk, '\0');  // bash drops NUL bytes (they would end its C strings)
            if (raw) {
                line = std::move(chunk);
                break;
            }
            // Backslash processing: \x is x (quoted); a backslash before the delimiter continues the line.
            bool cont = false;
            // Like bash, backslash-newline is removed whatever the delimiter, and an escaped delimiter
            // is kept as a literal character and the read goes on.
            for (size_t k = 0; k < chunk.size(); ++k) {
                if (chunk[k] == '\\') {
                    if (k + 1 < chunk.size()) {
                        if (chunk[++k] == '\n') continue;
                        line.push_back(chunk[k]);
                        quoted.push_back(true);
                    } else if (ended) {
                        cont = true;
                        if (delim != '\n') {
                            line.push_back(delim);
                            quoted.push_back(true);
                        }
                    }
                    continue;
                }
                line.push_back(chunk[k]);
                quoted.push_back(false);
            }
            if (!cont || !ended) break;
        }
    }
    if (line.size() > sh.session_.limits.max_variable_bytes) line.resize(sh.session_.limits.max_variable_bytes);
    (void)prompt;

    // The bytes of IFS, and those of them that are IFS white space, as sets (one test per byte of the line).
    std::bitset<256> ifs_set, ifs_ws;
    {
        const Var* ifsv = sh.state_.vars.find("IFS");
        for (char c : ifsv && ifsv->set ? std::string_view(ifsv->str()) : std::string_view(" \t\n")) {
            ifs_set.set(static_cast<unsigned char>(c));
            if (c == ' ' || c == '\t' || c == '\n') ifs_ws.set(static_cast<unsigned char>(c));
        }
    }
    auto is_ifs = [&](size_t k) {
        return ifs_set[static_cast<unsigned char>(line[k])] && (quoted.empty() || !quoted[k]);
    };
    auto is_ws = [&](size_t k) {
        return ifs_ws[static_cast<unsigned char>(line[k])] && (quoted.empty() || !quoted[k]);
    };
    auto status = eof ? 1 : 0;

    if (names.empty() && array.empty()) {
        if (!sh.assign("REPLY", line)) return 1;
        return status;
    }
    if (exact) {
        // read -N: no splitting and no trimming; everything goes to the first name (or one element).
        if (!array.empty()) {
            Var* v = sh.lookup_mut(array);
            if (v && v->readonly()) return sh.builtin_error("read", array + ": readonly variable");
            if (!sh.assign_array(array, {line}, false)) return 1;
            return status;
        }
        for (size_t k = 0; k < names.size(); ++k)
            if (!sh.assign(names[k], k == 0 ? line : std::string())) return 1;
        return status;
    }

    size_t pos = 0;
    // get_word_from_string: skips leading IFS white space, takes up to an IFS char, then skips one
    // delimiter (white space around it included).
    auto next_word = [&](size_t& p) {
        while (p < line.size() && is_ws(p)) ++p;
        size_t b = p;
        while (p < line.size() && !is_ifs(p)) ++p;
        std::string_view w = std::string_view(line).substr(b, p - b);
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
        while (pos < line.size()) words.emplace_back(next_word(pos));
        Var* v = sh.lookup_mut(array);
        if (v && v->readonly()) return sh.builtin_error("read", array + ": readonly variable");
        if (!sh.assign_array(array, words, false)) return 1;
        return status;
    }
    for (size_t k = 0; k < names.size(); ++k) {
        std::string_view val;  // a view of line: no copy before the assignment's own
        if (k + 1 == names.size()) {
            size_t start = pos;
            size_t p = pos;
            std::string_view w = next_word(p);
            if (p >= line.size()) {
                val = w;
            } else {
                size_t end = line.size();
                while (end > start && is_ws(end - 1)) --end;
                val = std::string_view(line).substr(start, end - start);
            }
            pos = line.size();
        } else {
            val = pos < line.size() ? next_word(pos) : std::string_view();
        }
        const std::string& n = names[k];
        size_t lb = n.find('[');
        bool ok = lb == std::string::npos ? sh.assign(n, val)
                                          : sh.assign_elem_text(n.substr(0, lb), n.substr(lb + 1, n.size() - lb - 2), val, false);
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
        IoResult r = src->read_until(delim, line, sh.session_.limits.max_variable_bytes);
        if (!r.ok() || line.empty()) break;
        if (skip > 0) {
            --skip;
            continue;
        }
        // A NUL delimiter is never kept: bash's strings end at a NUL
        if ((strip || delim == '\0') && line.back() == delim) line.pop_back();
        // bash's element is a C string: it ends at the first NUL (the delimiter after it is lost too)
        if (size_t nul = line.find('\0'); nul != std::string::npos) line.resize(nul);
        if (!sh.assign_elem(name, to_dec(idx), line, false, true)) return 1;
        if (!callback.empty() && (read_lines + 1) % quantum == 0) {
            Flow f = sh.run_source(callback + " " + to_dec(idx) + " " + quote_for_reuse(line, QuoteStyle::Single), sh.source_name_, true);
            if (f != Flow::Normal) {
                return {sh.state_.status, f};
            }
        }
        ++idx;
        ++read_lines;
    }
    return 0;
}

}  // namespace bashkit::interp
