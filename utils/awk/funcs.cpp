// awk's builtin functions, printf formatting, regular expressions and sub/gsub/gensub.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "utils/awk/parser.hpp"
#include "utils/awk/runtime.hpp"

namespace bashkit::utils::awk {

namespace {

bool is_array_node(const Node* n) { return n->kind == NK::Var || n->kind == NK::Local; }

// snprintf into a std::string, growing as needed.
template <class T>
void append_printf(std::string& out, const std::string& spec, T value) {
    char buf[256];
    int n = std::snprintf(buf, sizeof buf, spec.c_str(), value);
    if (n < 0) return;
    if (static_cast<size_t>(n) < sizeof buf) {
        out.append(buf, static_cast<size_t>(n));
        return;
    }
    size_t old = out.size();
    out.resize(old + static_cast<size_t>(n) + 1);
    std::snprintf(out.data() + old, static_cast<size_t>(n) + 1, spec.c_str(), value);
    out.resize(old + static_cast<size_t>(n));
}

void pad(std::string& out, std::string_view s, long width, bool left) {
    size_t w = width > 0 ? static_cast<size_t>(width) : 0;
    if (!left && s.size() < w) out.append(w - s.size(), ' ');
    out.append(s);
    if (left && s.size() < w) out.append(w - s.size(), ' ');
}

}  // namespace

Array& Runtime::array_of_slot(int slot) {
    Cell& c = globals_[static_cast<size_t>(slot)];
    if (c.kind != Cell::kArray) {
        c.kind = Cell::kArray;
        c.arr = std::make_unique<Array>();
    }
    return *c.arr;
}

// ------------------------------------------------------------------------------------------------ regex

const interp::Regex& Runtime::static_regex(int id) {
    auto& slot = static_re_[icase_ ? 1 : 0][static_cast<size_t>(id)];
    if (!slot) {
        interp::RegexOptions ro;
        ro.icase = icase_;
        ro.dialect = interp::RegexDialect::kGnu;
        const std::string& src = prog_.regexes[static_cast<size_t>(id)].source;
        slot = std::make_unique<interp::Regex>(
            interp::Regex::compile(awk_regex_to_ere(src), interp::RegexSyntax::kExtended, ro));
        if (!slot->ok()) {
            std::string m = slot->message();
            slot.reset();
            fatal("invalid regexp: " + m + ": /" + src + "/");
        }
    }
    return *slot;
}

const interp::Regex& Runtime::dyn_regex(std::string_view src) {
    auto& cache = dyn_re_[icase_ ? 1 : 0];
    auto it = cache.find(src);
    if (it != cache.end()) return *it->second;
    if (cache.size() > 1000) cache.clear();
    interp::RegexOptions ro;
    ro.icase = icase_;
    ro.dialect = interp::RegexDialect::kGnu;
    auto re = std::make_unique<interp::Regex>(
        interp::Regex::compile(awk_regex_to_ere(src), interp::RegexSyntax::kExtended, ro));
    if (!re->ok()) fatal("invalid regexp: " + re->message() + ": /" + std::string(src) + "/");
    auto r = cache.emplace(std::string(src), std::move(re));
    return *r.first->second;
}

const interp::Regex& Runtime::regex_for(const Node* n, Value& tmp) {
    if (n->kind == NK::Regex) return static_regex(n->id);
    const Value& v = eval(n, tmp);
    std::string buf;
    std::string_view s = to_str(v, buf);
    return dyn_regex(s);
}

bool Runtime::re_match(const Node* re_node, std::string_view text) { return static_regex(re_node->id).search(text); }

// ------------------------------------------------------------------------------------------------ printf

void Runtime::format(std::string& out, std::string_view fmt, const std::vector<Value>& args, size_t ai, int line) {
    (void)line;
    const long max_width = static_cast<long>(std::min<size_t>(ctx_.limits.max_printf_width, 1u << 30));
    size_t i = 0;
    std::string buf;
    while (i < fmt.size()) {
        char c = fmt[i];
        if (c != '%') {
            size_t e = fmt.find('%', i);
            if (e == std::string_view::npos) e = fmt.size();
            out.append(fmt.substr(i, e - i));
            i = e;
            continue;
        }
        size_t start = i;
        ++i;
        if (i >= fmt.size()) {
            out += '%';
            break;
        }
        if (fmt[i] == '%') {
            out += '%';
            ++i;
            continue;
        }
        std::string flags;
        while (i < fmt.size() && std::strchr("-+ #0'", fmt[i])) {
            if (fmt[i] != '\'') flags += fmt[i];
            ++i;
        }
        auto need = [&](size_t at) -> const Value& {
            if (ai >= args.size()) {
                fatal("not enough arguments to satisfy format string\n\t`" + std::string(fmt) + "'\n\t" +
                      std::string(at, ' ') + "^ ran out for this one");
            }
            return args[ai++];
        };
        long width = -1;
        if (i < fmt.size() && fmt[i] == '*') {
            double w = to_num(need(i));
            ++i;
            if (w < 0) {
                flags += '-';
                w = -w;
            }
            width = static_cast<long>(w);
        } else {
            while (i < fmt.size() && fmt[i] >= '0' && fmt[i] <= '9') {
                width = (width < 0 ? 0 : width) * 10 + (fmt[i] - '0');
                if (width > max_width) width = max_width;
                ++i;
            }
        }
        if (width > max_width) width = max_width;
        long prec = -1;
        if (i < fmt.size() && fmt[i] == '.') {
            ++i;
            prec = 0;
            if (i < fmt.size() && fmt[i] == '*') {
                double p = to_num(need(i));
                ++i;
                prec = p < 0 ? -1 : static_cast<long>(p);
            } else {
                while (i < fmt.size() && fmt[i] >= '0' && fmt[i] <= '9') {
                    prec = prec * 10 + (fmt[i] - '0');
                    if (prec > max_width) prec = max_width;
                    ++i;
                }
            }
        }
        if (prec > max_width) prec = max_width;
        while (i < fmt.size() && std::strchr("hlLqjzt", fmt[i])) ++i;
        if (i >= fmt.size()) {
            out.append(fmt.substr(start));
            break;
        }
        char conv = fmt[i];
        size_t conv_at = i;
        ++i;
        bool left = flags.find('-') != std::string::npos;
        auto spec = [&](const char* len, char cv) {
            std::string s = "%" + flags;
            if (width >= 0) s += std::to_string(width);
            if (prec >= 0) s += "." + std::to_string(prec);
            s += len;
            s += cv;
            return s;
        };
        switch (conv) {
            case 'c': {
                const Value& v = need(conv_at);
                std::string ch;
                if (v.type == Value::kNum || (v.type == Value::kStrnum && v.numeric())) {
                    double d = to_num(v);
                    auto code = static_cast<int64_t>(d);
                    ch.assign(1, static_cast<char>(code & 0xff));
                } else {
                    std::string_view s = to_str(v, buf);
                    ch.assign(1, s.empty() ? '\0' : s[0]);  // gawk prints a NUL for ""
                }
                pad(out, ch, width, left);
                break;
            }
            case 'd':
            case 'i': {
                double d = to_num(need(conv_at));
                if (std::isnan(d) || std::isinf(d)) {
                    std::string s = std::isnan(d) ? (std::signbit(d) ? "-nan" : "+nan") : (d < 0 ? "-inf" : "+inf");
                    pad(out, s, width, left);
                    break;
                }
                d = std::trunc(d);
                if (d > -9.2e18 && d < 9.2e18) {
                    append_printf(out, spec("ll", 'd'), static_cast<long long>(d));
                } else {
                    std::string f = "%" + flags;
                    if (width >= 0) f += std::to_string(width);
                    f += ".0f";
                    append_printf(out, f, d);
                }
                break;
            }
            case 'o':
            case 'x':
            case 'X':
            case 'u': {
                double d = to_num(need(conv_at));
                d = std::trunc(d);
                unsigned long long u;
                if (d < 0) {
                    if (d < -9.2e18) {
                        append_printf(out, spec("", 'g'), d);
                        break;
                    }
                    u = static_cast<unsigned long long>(static_cast<long long>(d));
                } else if (d >= 18446744073709551615.0) {
                    append_printf(out, spec("", 'g'), d);
                    break;
                } else {
                    u = static_cast<unsigned long long>(d);
                }
                append_printf(out, spec("ll", conv), u);
                break;
            }
            case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case 'a': case 'A': {
                double d = to_num(need(conv_at));
                if (std::isnan(d) || std::isinf(d)) {
                    std::string s = std::isnan(d) ? (std::signbit(d) ? "-nan" : "+nan") : (d < 0 ? "-inf" : "+inf");
                    if (conv >= 'A' && conv <= 'Z')
                        for (auto& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
                    pad(out, s, width, left);
                    break;
                }
                append_printf(out, spec("", conv), d);
                break;
            }
            case 's': {
                const Value& v = need(conv_at);
                std::string_view s = to_str(v, buf);
                if (prec >= 0 && static_cast<size_t>(prec) < s.size()) s = s.substr(0, static_cast<size_t>(prec));
                pad(out, s, width, left);
                break;
            }
            case '%':
                // gawk ignores flags, width and precision on a %% (`%5%` prints one %)
                out += '%';
                break;
            default:
                // not a conversion: print it as written
                out.append(fmt.substr(start, i - start));
                break;
        }
    }
}

// ------------------------------------------------------------------------------------------------ sub/gsub

namespace {

// Appends sub/gsub's replacement (gawk's rules): & is the match; a run of k backslashes before & gives k/2
// backslashes and, when k is odd, a literal &; backslashes not before & are kept as they are.
void sub_replacement(std::string& out, std::string_view repl, std::string_view match) {
    for (size_t i = 0; i < repl.size(); ++i) {
        char c = repl[i];
        if (c == '\\') {
            size_t j = i;
            while (j < repl.size() && repl[j] == '\\') ++j;
            size_t k = j - i;
            if (j < repl.size() && repl[j] == '&') {
                out.append(k / 2, '\\');
                if (k % 2) out += '&';
                else out.append(match);
                i = j;
            } else {
                out.append(k, '\\');
                i = j - 1;
            }
        } else if (c == '&') {
            out.append(match);
        } else {
            out += c;
        }
    }
}

}  // namespace

double Runtime::do_sub(const Node* n, bool global) {
    Value tr;
    const interp::Regex& re = regex_for(n->args[0], tr);
    Value trepl;
    std::string rbuf;
    std::string repl(to_str(eval(n->args[1], trepl), rbuf));
    const Node* target = n->args.size() > 2 ? n->args[2] : nullptr;
    std::string text;
    if (target) {
        if (target->kind == NK::Var || target->kind == NK::Local || target->kind == NK::Field ||
            target->kind == NK::Index) {
            Value& v = lref(target);
            std::string b;
            text = std::string(to_str(v, b));
        } else {
            Value t;
            std::string b;
            text = std::string(to_str(eval(target, t), b));
        }
    } else {
        text = field(0).s;
    }
    std::string out;
    size_t count = 0;
    size_t pos = 0, copied = 0;
    long last_end = -1;
    const size_t len = text.size();
    std::vector<interp::RegexSpan>& sp = spans_;
    while (pos <= len) {
        if (!re.search(text, sp, pos)) break;
        auto mb = static_cast<size_t>(sp[0].begin), me = static_cast<size_t>(sp[0].end);
        if (mb == me && static_cast<long>(mb) == last_end) {
            if (mb >= len) break;
            pos = mb + 1;
            continue;
        }
        out.append(text, copied, mb - copied);
        sub_replacement(out, repl, std::string_view(text).substr(mb, me - mb));
        if ((count & 0x3ff) == 0) need(out.size());
        ++count;
        check_cancel();
        copied = me;
        if (mb == me) {
            if (mb >= len) break;
            out += text[mb];
            copied = mb + 1;
            pos = mb + 1;
        } else {
            pos = me;
            last_end = static_cast<long>(me);
        }
        if (!global) break;
    }
    if (count == 0) return 0;
    if (copied < len) out.append(text, copied, std::string::npos);
    need(out.size());
    if (target) {
        if (target->kind == NK::Var || target->kind == NK::Local || target->kind == NK::Field ||
            target->kind == NK::Index) {
            Value& v = lref(target);
            // Global variables and array elements hold their bytes on the budget (as in assign).
            if (target->kind == NK::Var || target->kind == NK::Index) {
                if (out.size() > v.s.size()) held_.add(out.size() - v.s.size());
                else held_.sub(v.s.size() - out.size());
            }
            v.set_str(std::move(out));
            stored(target);
        }
    } else {
        Value& z = field_ref(0);
        z.set_str(std::move(out));
        field_stored();
    }
    return static_cast<double>(count);
}

std::string Runtime::gensub(const interp::Regex& re, std::string_view repl, std::string_view how,
                            std::string_view text) {
    bool global = !how.empty() && (how[0] == 'g' || how[0] == 'G');
    long which = 1;
    if (!global) {
        double d = str_to_num(how);
        if (d < 1) {
            warning("gensub: third argument `" + std::string(how) + "' treated as 1");
            d = 1;
        }
        which = static_cast<long>(d);
    }
    std::string out;
    size_t pos = 0, copied = 0;
    long last_end = -1;
    long nth = 0;
    const size_t len = text.size();
    std::vector<interp::RegexSpan> sp;
    while (pos <= len) {
        if (!re.search(text, sp, pos)) break;
        auto mb = static_cast<size_t>(sp[0].begin), me = static_cast<size_t>(sp[0].end);
        if (mb == me && static_cast<long>(mb) == last_end) {
            if (mb >= len) break;
            pos = mb + 1;
            continue;
        }
        ++nth;
        if (global || nth == which) {
            out.append(text.substr(copied, mb - copied));
            for (size_t i = 0; i < repl.size(); ++i) {
                char c = repl[i];
                if (c == '\\' && i + 1 < repl.size()) {
                    char e = repl[i + 1];
                    if (e >= '0' && e <= '9') {
                        size_t g = static_cast<size_t>(e - '0');
                        if (g < sp.size() && sp[g].matched())
                            out.append(text.substr(static_cast<size_t>(sp[g].begin),
                                                   static_cast<size_t>(sp[g].end - sp[g].begin)));
                        ++i;
                        continue;
                    }
                    if (e == '&' || e == '\\') {
                        out += e;
                        ++i;
                        continue;
                    }
                    out += c;
                    continue;
                }
                if (c == '&') {
                    out.append(text.substr(mb, me - mb));
                    continue;
                }
                out += c;
            }
            copied = me;
        }
        if (mb == me) {
            if (mb >= len) break;
            pos = mb + 1;
        } else {
            pos = me;
            last_end = static_cast<long>(me);
        }
        if (!global && nth >= which) break;
    }
    if (copied < len) out.append(text.substr(copied));
    return out;
}

// ------------------------------------------------------------------------------------------------ split, match

double Runtime::do_split(const Node* n) {
    Value ts;
    std::string sbuf;
    std::string s(to_str(eval(n->args[0], ts), sbuf));
    if (!is_array_node(n->args[1])) fatal("split: second argument is not an array");
    std::vector<std::string> parts, seps;
    const interp::Regex* force = nullptr;
    std::string fs;
    if (n->args.size() > 2) {
        const Node* f = n->args[2];
        if (f->kind == NK::Regex) {
            force = &static_regex(f->id);
        } else {
            Value tf;
            std::string b;
            fs = std::string(to_str(eval(f, tf), b));
        }
    } else {
        std::string b;
        fs = std::string(to_str(globals_[kFS].v, b));
    }
    bool want_seps = n->args.size() > 3;
    int cnt = split_into(s, fs, force, false, parts, want_seps ? &seps : nullptr);
    Array& a = array_of(n->args[1]);
    a.clear();
    for (int i = 0; i < cnt; ++i) a.get(std::to_string(i + 1)).set_strnum(parts[static_cast<size_t>(i)]);
    if (want_seps) {
        if (!is_array_node(n->args[3])) fatal("split: fourth argument is not an array");
        Array& sa = array_of(n->args[3]);
        sa.clear();
        if (!force && fs == " ") {
            // leading and trailing blanks are seps[0] and seps[n]
            size_t b = 0;
            while (b < s.size() && (s[b] == ' ' || s[b] == '\t' || s[b] == '\n')) ++b;
            if (b > 0) sa.get("0").set_strnum(s.substr(0, b));
            size_t e = s.size();
            while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\n')) --e;
            if (e < s.size() && cnt > 0) sa.get(std::to_string(cnt)).set_strnum(s.substr(e));
        }
        for (size_t i = 0; i < seps.size(); ++i) sa.get(std::to_string(i + 1)).set_strnum(seps[i]);
    }
    return cnt;
}

double Runtime::do_match(const Node* n) {
    Value ts;
    std::string sbuf;
    std::string s(to_str(eval(n->args[0], ts), sbuf));
    Value tr;
    const interp::Regex& re = regex_for(n->args[1], tr);
    std::vector<interp::RegexSpan> sp;
    bool m = re.search(s, sp, 0);
    double rstart = 0, rlength = -1;
    if (m) {
        rstart = static_cast<double>(sp[0].begin + 1);
        rlength = static_cast<double>(sp[0].end - sp[0].begin);
    }
    globals_[kRSTART].kind = Cell::kScalar;
    globals_[kRSTART].v.set_num(rstart);
    globals_[kRLENGTH].kind = Cell::kScalar;
    globals_[kRLENGTH].v.set_num(rlength);
    if (n->args.size() > 2) {
        if (!is_array_node(n->args[2])) fatal("match: third argument is not an array");
        Array& a = array_of(n->args[2]);
        a.clear();
        if (m) {
            for (size_t g = 0; g < sp.size(); ++g) {
                if (!sp[g].matched()) continue;
                std::string k = std::to_string(g);
                a.get(k).set_strnum(s.substr(static_cast<size_t>(sp[g].begin),
                                             static_cast<size_t>(sp[g].end - sp[g].begin)));
                a.get(k + subsep_ + "start").set_num(static_cast<double>(sp[g].begin + 1));
                a.get(k + subsep_ + "length").set_num(static_cast<double>(sp[g].end - sp[g].begin));
            }
        }
    }
    return rstart;
}

// ------------------------------------------------------------------------------------------------ asort

double Runtime::do_asort(const Node* n, bool by_index) {
    if (!is_array_node(n->args[0])) fatal(std::string(by_index ? "asorti" : "asort") + ": first argument not an array");
    Array& src = array_of(n->args[0]);
    std::vector<Value> items;
    items.reserve(src.map.size());
    for (const std::string& k : src.keys()) {
        if (by_index) {
            Value v;
            v.set_strnum(k);
            items.push_back(std::move(v));
        } else {
            items.push_back(*src.find(k));
        }
    }
    std::string how = by_index ? "@ind_str_asc" : "@val_type_asc";
    if (n->args.size() > 2) {
        Value t;
        std::string b;
        how = std::string(to_str(eval(n->args[2], t), b));
    }
    bool desc = how.size() >= 5 && how.compare(how.size() - 5, 5, "_desc") == 0;
    bool numeric = how.find("_num_") != std::string::npos;
    bool strcmp_mode = how.find("_str_") != std::string::npos;
    auto rank = [](const Value& v) { return v.numeric() && v.type != Value::kUninit ? 0 : 1; };
    std::stable_sort(items.begin(), items.end(), [&](const Value& a, const Value& b) {
        int c;
        std::string b1, b2;
        if (numeric) {
            double x = to_num(a), y = to_num(b);
            c = x < y ? -1 : x > y ? 1 : 0;
            if (c == 0) c = to_str(a, b1).compare(to_str(b, b2));
        } else if (strcmp_mode || by_index) {
            c = to_str(a, b1).compare(to_str(b, b2));
        } else {
            int ra = rank(a), rb = rank(b);
            if (ra != rb) {
                c = ra < rb ? -1 : 1;
            } else if (ra == 0) {
                double x = to_num(a), y = to_num(b);
                c = x < y ? -1 : x > y ? 1 : 0;
            } else {
                c = to_str(a, b1).compare(to_str(b, b2));
            }
        }
        return desc ? c > 0 : c < 0;
    });
    Array* dst = &src;
    if (n->args.size() > 1) {
        if (!is_array_node(n->args[1])) fatal(std::string(by_index ? "asorti" : "asort") + ": second argument not an array");
        dst = &array_of(n->args[1]);
    }
    dst->clear();
    for (size_t i = 0; i < items.size(); ++i) dst->get(std::to_string(i + 1)) = std::move(items[i]);
    return static_cast<double>(items.size());
}

std::vector<std::string> Runtime::sorted_keys(Array& a) {
    // PROCINFO["sorted_in"]
    Array& pi = array_of_slot(kPROCINFO);
    Value* how = pi.find("sorted_in");
    std::vector<std::string> keys = a.keys();
    if (!how) return keys;
    std::string b;
    std::string h(to_str(*how, b));
    if (h.empty() || h[0] != '@' || h == "@unsorted") return keys;
    bool desc = h.size() >= 5 && h.compare(h.size() - 5, 5, "_desc") == 0;
    bool by_val = h.rfind("@val_", 0) == 0;
    bool num = h.find("_num_") != std::string::npos;
    bool type = h.find("_type_") != std::string::npos;
    std::stable_sort(keys.begin(), keys.end(), [&](const std::string& x, const std::string& y) {
        int c = 0;
        if (by_val) {
            const Value& vx = *a.find(x);
            const Value& vy = *a.find(y);
            std::string b1, b2;
            if (num) {
                double p = to_num(vx), q = to_num(vy);
                c = p < q ? -1 : p > q ? 1 : 0;
            } else if (type) {
                int rx = vx.numeric() ? 0 : 1, ry = vy.numeric() ? 0 : 1;
                if (rx != ry) {
                    c = rx < ry ? -1 : 1;
                } else if (rx == 0) {
                    double p = to_num(vx), q = to_num(vy);
                    c = p < q ? -1 : p > q ? 1 : 0;
                } else {
                    c = to_str(vx, b1).compare(to_str(vy, b2));
                }
            } else {
                c = to_str(vx, b1).compare(to_str(vy, b2));
            }
            if (c == 0) c = x.compare(y);
        } else if (num) {
            double p = str_to_num(x), q = str_to_num(y);
            c = p < q ? -1 : p > q ? 1 : 0;
            if (c == 0) c = x.compare(y);
        } else {
            c = x.compare(y);
        }
        return desc ? c > 0 : c < 0;
    });
    return keys;
}

// ------------------------------------------------------------------------------------------------ time

std::string Runtime::strftime(std::string_view fmt, double t, bool utc) {
    (void)utc;  // the sandbox has no time zones: always UTC
    auto secs = static_cast<time_t>(t);
    struct tm tm {};
    gmtime_r(&secs, &tm);
    std::string f(fmt);
    // %Z: the zone name is UTC
    std::string g;
    for (size_t i = 0; i < f.size(); ++i) {
        if (f[i] == '%' && i + 1 < f.size()) {
            if (f[i + 1] == 'Z') {
                g += "UTC";
                ++i;
                continue;
            }
            g += f[i];
            g += f[i + 1];
            ++i;
            continue;
        }
        g += f[i];
    }
    if (g.empty()) return {};
    std::string out(g.size() * 4 + 64, '\0');
    while (true) {
        size_t n = std::strftime(out.data(), out.size(), g.c_str(), &tm);
        if (n > 0 || out.size() > (1u << 20)) {
            out.resize(n);
            return out;
        }
        out.resize(out.size() * 2);
    }
}

// ------------------------------------------------------------------------------------------------ dispatch

const Value& Runtime::builtin(const Node* n, Value& tmp) {
    auto arg_num = [&](size_t i) { return num(n->args[i]); };
    auto arg_str = [&](size_t i, std::string& buf) -> std::string {
        Value t;
        return std::string(to_str(eval(n->args[i], t), buf));
    };
    std::string buf;
    switch (static_cast<BuiltinId>(n->id)) {
        case BuiltinId::Length: {
            if (n->args.empty()) {
                tmp.set_num(static_cast<double>(field(0).s.size()));
                return tmp;
            }
            const Node* a = n->args[0];
            if (is_array_node(a)) {
                Cell* c = &cell_of(a);
                while (c->kind == Cell::kRef) c = c->ref;
                if (c->kind == Cell::kArray) {
                    tmp.set_num(static_cast<double>(c->arr->map.size()));
                    return tmp;
                }
            }
            Value t;
            const Value& v = eval(a, t);
            tmp.set_num(static_cast<double>(to_str(v, buf).size()));
            return tmp;
        }
        case BuiltinId::Substr: {
            std::string s = arg_str(0, buf);
            double start = arg_num(1);
            double length = n->args.size() > 2 ? arg_num(2) : static_cast<double>(s.size()) + 1;
            if (std::isnan(start) || std::isnan(length)) {
                tmp.set_str("");
                return tmp;
            }
            double st = std::trunc(start);
            double ln = std::trunc(length);
            if (std::isinf(length) && length > 0) ln = static_cast<double>(s.size()) + 1;
            if (st < 1) st = 1;
            if (ln <= 0 || st > static_cast<double>(s.size())) {
                tmp.set_str("");
                return tmp;
            }
            auto b = static_cast<size_t>(st) - 1;
            size_t l = ln > static_cast<double>(s.size()) ? s.size() : static_cast<size_t>(ln);
            tmp.set_str(s.substr(b, l));
            return tmp;
        }
        case BuiltinId::Index: {
            if (n->args[1]->kind == NK::Regex) fatal("index: regexp constant as second argument is not allowed");
            std::string b2;
            std::string s = arg_str(0, buf);
            std::string t = arg_str(1, b2);
            size_t p;
            if (icase_) {
                auto low = [](std::string x) {
                    for (auto& ch : x) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
                    return x;
                };
                p = low(s).find(low(t));
            } else {
                p = s.find(t);
            }
            tmp.set_num(p == std::string::npos ? 0 : static_cast<double>(p + 1));
            return tmp;
        }
        case BuiltinId::Split:
            tmp.set_num(do_split(n));
            return tmp;
        case BuiltinId::Patsplit: {
            std::string s = arg_str(0, buf);
            Value tr;
            const interp::Regex* re;
            if (n->args.size() > 2) {
                re = &regex_for(n->args[2], tr);
            } else {
                std::string b;
                re = &dyn_regex(std::string(to_str(globals_[kFPAT].v, b)));
            }
            Array& a = array_of(n->args[1]);
            a.clear();
            Array* seps = n->args.size() > 3 ? &array_of(n->args[3]) : nullptr;
            if (seps) seps->clear();
            std::vector<interp::RegexSpan> sp;
            size_t pos = 0, prev = 0;
            int cnt = 0;
            while (pos <= s.size() && re->search(s, sp, pos)) {
                auto mb = static_cast<size_t>(sp[0].begin), me = static_cast<size_t>(sp[0].end);
                if (me == mb) {
                    pos = mb + 1;
                    continue;
                }
                ++cnt;
                if (seps) seps->get(std::to_string(cnt - 1)).set_strnum(s.substr(prev, mb - prev));
                a.get(std::to_string(cnt)).set_strnum(s.substr(mb, me - mb));
                prev = pos = me;
            }
            if (seps && prev < s.size()) seps->get(std::to_string(cnt)).set_strnum(s.substr(prev));
            tmp.set_num(cnt);
            return tmp;
        }
        case BuiltinId::Sub:
        case BuiltinId::Gsub:
            tmp.set_num(do_sub(n, static_cast<BuiltinId>(n->id) == BuiltinId::Gsub));
            return tmp;
        case BuiltinId::Match:
            tmp.set_num(do_match(n));
            return tmp;
        case BuiltinId::Sprintf: {
            std::vector<Value> args;
            args.reserve(n->args.size());
            for (const Node* a : n->args) {
                Value t;
                const Value& v = eval(a, t);
                if (&v == &t)
                    args.push_back(std::move(t));
                else
                    args.push_back(v);
            }
            std::string f(to_str(args[0], buf));
            std::string out;
            format(out, f, args, 1, n->line);
            tmp.set_str(std::move(out));
            return tmp;
        }
        case BuiltinId::Sin: tmp.set_num(std::sin(arg_num(0))); return tmp;
        case BuiltinId::Cos: tmp.set_num(std::cos(arg_num(0))); return tmp;
        case BuiltinId::Atan2: {
            double y = arg_num(0);
            tmp.set_num(std::atan2(y, arg_num(1)));
            return tmp;
        }
        case BuiltinId::Exp: tmp.set_num(std::exp(arg_num(0))); return tmp;
        case BuiltinId::Log: {
            double d = arg_num(0);
            if (d < 0) {
                std::string s;
                format_number(d, "%.6g", s);
                warning("log: received negative argument " + s);
            }
            tmp.set_num(std::log(d));
            return tmp;
        }
        case BuiltinId::Sqrt: {
            double d = arg_num(0);
            if (d < 0) {
                std::string s;
                format_number(d, "%.6g", s);
                warning("sqrt: called with negative argument " + s);
            }
            tmp.set_num(std::sqrt(d));
            return tmp;
        }
        case BuiltinId::Int: tmp.set_num(std::trunc(arg_num(0))); return tmp;
        case BuiltinId::Rand: {
            double r;
            do {
                r = static_cast<double>(rng_() >> 5) * (1.0 / 134217728.0);
                r = (r + static_cast<double>(rng_() >> 6)) * (1.0 / 67108864.0);
                r = std::fmod(r, 1.0);
            } while (r >= 1.0);
            tmp.set_num(r);
            return tmp;
        }
        case BuiltinId::Srand: {
            double prev = seed_;
            if (n->args.empty()) {
                seed_ = static_cast<double>(ctx_.clock.now().sec);
            } else {
                seed_ = std::trunc(arg_num(0));
            }
            rng_.seed(static_cast<uint32_t>(static_cast<int64_t>(seed_)));
            tmp.set_num(prev);
            return tmp;
        }
        case BuiltinId::Tolower:
        case BuiltinId::Toupper: {
            std::string s = arg_str(0, buf);
            bool up = static_cast<BuiltinId>(n->id) == BuiltinId::Toupper;
            for (auto& ch : s) {
                if (up && ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 32);
                if (!up && ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch + 32);
            }
            tmp.set_str(std::move(s));
            return tmp;
        }
        case BuiltinId::System: {
            std::string cmd = arg_str(0, buf);
            flush_all();
            int st = run_command(cmd, ctx_.in, ctx_.out);
            tmp.set_num(st);
            return tmp;
        }
        case BuiltinId::Close: {
            std::string name = arg_str(0, buf);
            tmp.set_num(close_stream(name));
            return tmp;
        }
        case BuiltinId::Fflush: {
            if (n->args.empty()) {
                flush_all();
                tmp.set_num(0);
                return tmp;
            }
            std::string name = arg_str(0, buf);
            auto it = outputs_.find(name);
            if (it == outputs_.end()) {
                if (name == "/dev/stdout") {
                    flush_stdout();
                    tmp.set_num(0);
                    return tmp;
                }
                warning("fflush: `" + name + "' is not an open file, pipe or co-process");
                tmp.set_num(-1);
                return tmp;
            }
            if (it->second->kind == Output::kStdout) flush_stdout();
            flush_output(*it->second);
            tmp.set_num(0);
            return tmp;
        }
        case BuiltinId::Gensub: {
            Value tr;
            const interp::Regex& re = regex_for(n->args[0], tr);
            std::string b2, b3;
            std::string repl = arg_str(1, b2);
            std::string how = arg_str(2, b3);
            std::string target = n->args.size() > 3 ? arg_str(3, buf) : field(0).s;
            tmp.set_str(gensub(re, repl, how, target));
            return tmp;
        }
        case BuiltinId::Asort:
            tmp.set_num(do_asort(n, false));
            return tmp;
        case BuiltinId::Asorti:
            tmp.set_num(do_asort(n, true));
            return tmp;
        case BuiltinId::Systime:
            tmp.set_num(static_cast<double>(ctx_.clock.now().sec));
            return tmp;
        case BuiltinId::Strftime: {
            std::string fmt = "%a %b %e %H:%M:%S %Z %Y";
            double t = static_cast<double>(ctx_.clock.now().sec);
            bool utc = false;
            if (!n->args.empty()) fmt = arg_str(0, buf);
            if (n->args.size() > 1) t = arg_num(1);
            if (n->args.size() > 2) {
                Value tv;
                utc = to_bool(eval(n->args[2], tv));
            }
            if (t < 0) fatal("strftime: second argument less than 0 or too big for time_t");
            tmp.set_str(strftime(fmt, t, utc));
            return tmp;
        }
        case BuiltinId::Mktime: {
            std::string s = arg_str(0, buf);
            long long v[7] = {0, 0, 0, 0, 0, 0, -1};
            int cnt = 0;
            const char* p = s.c_str();
            while (cnt < 7) {
                char* e;
                while (*p == ' ' || *p == '\t') ++p;
                if (!*p) break;
                long long x = std::strtoll(p, &e, 10);
                if (e == p) break;
                v[cnt++] = x;
                p = e;
            }
            if (cnt < 6) {
                tmp.set_num(-1);
                return tmp;
            }
            struct tm tm {};
            tm.tm_year = static_cast<int>(v[0] - 1900);
            tm.tm_mon = static_cast<int>(v[1] - 1);
            tm.tm_mday = static_cast<int>(v[2]);
            tm.tm_hour = static_cast<int>(v[3]);
            tm.tm_min = static_cast<int>(v[4]);
            tm.tm_sec = static_cast<int>(v[5]);
            time_t r = timegm(&tm);
            tmp.set_num(static_cast<double>(r));
            return tmp;
        }
        case BuiltinId::And:
        case BuiltinId::Or:
        case BuiltinId::Xor: {
            auto r = static_cast<uint64_t>(arg_num(0));
            for (size_t i = 1; i < n->args.size(); ++i) {
                auto x = static_cast<uint64_t>(arg_num(i));
                switch (static_cast<BuiltinId>(n->id)) {
                    case BuiltinId::And: r &= x; break;
                    case BuiltinId::Or: r |= x; break;
                    default: r ^= x; break;
                }
            }
            tmp.set_num(static_cast<double>(r));
            return tmp;
        }
        case BuiltinId::Lshift: {
            auto x = static_cast<uint64_t>(arg_num(0));
            auto s = static_cast<unsigned>(arg_num(1));
            tmp.set_num(static_cast<double>(s >= 64 ? 0 : x << s));
            return tmp;
        }
        case BuiltinId::Rshift: {
            auto x = static_cast<uint64_t>(arg_num(0));
            auto s = static_cast<unsigned>(arg_num(1));
            tmp.set_num(static_cast<double>(s >= 64 ? 0 : x >> s));
            return tmp;
        }
        case BuiltinId::Compl: {
            auto x = static_cast<uint64_t>(arg_num(0));
            tmp.set_num(static_cast<double>((~x) & ((uint64_t{1} << 53) - 1)));
            return tmp;
        }
        case BuiltinId::Strtonum: {
            Value t;
            const Value& v = eval(n->args[0], t);
            if (v.type == Value::kNum) {
                tmp.set_num(v.n);
                return tmp;
            }
            std::string s(to_str(v, buf));
            size_t i = 0;
            while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n')) ++i;
            double r = 0;
            if (i + 1 < s.size() && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
                i += 2;
                while (i < s.size() && std::isxdigit(static_cast<unsigned char>(s[i]))) {
                    char c = s[i++];
                    r = r * 16 + (c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
                }
            } else if (i < s.size() && s[i] == '0' && i + 1 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '7') {
                while (i < s.size() && s[i] >= '0' && s[i] <= '7') r = r * 8 + (s[i++] - '0');
            } else {
                r = str_to_num(s);
            }
            tmp.set_num(r);
            return tmp;
        }
        case BuiltinId::Isarray: {
            const Node* a = n->args[0];
            bool arr = false;
            if (is_array_node(a)) {
                Cell* c = &cell_of(a);
                while (c->kind == Cell::kRef) c = c->ref;
                arr = c->kind == Cell::kArray;
            }
            tmp.set_num(arr ? 1 : 0);
            return tmp;
        }
        case BuiltinId::Typeof: {
            const Node* a = n->args[0];
            if (is_array_node(a)) {
                Cell* c = &cell_of(a);
                while (c->kind == Cell::kRef) c = c->ref;
                if (c->kind == Cell::kArray) {
                    tmp.set_str("array");
                    return tmp;
                }
                if (c->kind == Cell::kUntyped) {
                    tmp.set_str("untyped");
                    return tmp;
                }
            }
            if (a->kind == NK::Regex) {
                tmp.set_str("regexp");
                return tmp;
            }
            Value t;
            const Value& v = eval(a, t);
            const char* r = "unassigned";
            switch (v.type) {
                case Value::kNum: r = "number"; break;
                case Value::kStr: r = "string"; break;
                case Value::kStrnum: r = v.numeric() ? "strnum" : "string"; break;
                case Value::kUninit: r = "unassigned"; break;
            }
            tmp.set_str(r);
            return tmp;
        }
    }
    return tmp;
}

}  // namespace bashkit::utils::awk
