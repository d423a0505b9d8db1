// See printf.hpp. Follows bash 5.2's printf.def: the format is scanned once per pass and reused while
// arguments remain; numeric conversions go to snprintf with intmax_t / long double like bash's own calls to
// printf(3), %s %c %b %q %Q %T are padded here, byte-wise like glibc.
#include "interp/printf.hpp"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <type_traits>

#include "interp/quote.hpp"

namespace bashkit::interp {
namespace {

constexpr std::string_view kFlagChars = "#'-+ 0";
constexpr std::string_view kLengthMods = "hjlLtz";
// More significant digits than the exact decimal expansion of any long double has.
constexpr int64_t kMaxExactDigits = 17000;

// Concatenation without operator+ on temporaries (g++ 12 reports a false -Wrestrict for those).
std::string concat(std::initializer_list<std::string_view> a, std::initializer_list<std::string_view> b = {}) {
    std::string s;
    for (auto p : a) s.append(p);
    for (auto p : b) s.append(p);
    return s;
}

bool is_dec_digit(char c) { return c >= '0' && c <= '9'; }

bool valid_identifier(std::string_view s) {
    if (s.empty()) return false;
    auto word = [](char c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
    if (!word(s[0])) return false;
    for (char c : s)
        if (!word(c) && !is_dec_digit(c)) return false;
    return true;
}

// Digits at fmt[i..], saturating just above INT_MAX so that "too big for printf(3)" stays visible.
int64_t read_decimal(std::string_view fmt, size_t& i) {
    int64_t v = 0;
    while (i < fmt.size() && is_dec_digit(fmt[i])) {
        if (v <= INT_MAX) v = v * 10 + (fmt[i] - '0');
        ++i;
    }
    return v;
}

class Formatter {
public:
    Formatter(std::string_view fmt, std::span<const std::string> args, const PrintfContext& ctx)
        : fmt_(fmt), args_(args), ctx_(ctx) {}

    PrintfResult run() {
        // A pass costs the format's length even when it prints nothing (say "%s\\Uffffffff..."), so the
        // passes over a long format are bounded too, not only the output.
        uint64_t steps = 0;
        do {
            steps += fmt_.size() + 1;
            if (steps > ctx_.max_steps) {
                diag({"format too costly for its arguments"});
                r_.status = 1;
                return std::move(r_);
            }
            pass_start_ = r_.output.size();
            if (!one_pass()) return std::move(r_);
        } while (next_ < args_.size() && next_ != 0);
        if (conversion_error_) r_.status = 1;
        return std::move(r_);
    }

private:
    // ---- output ----

    bool too_large(size_t extra) const { return extra > ctx_.max_output || r_.output.size() > ctx_.max_output - extra; }

    bool fail_too_large() {
        r_.diagnostics.emplace_back("printf: output too large");
        r_.status = 1;
        return false;
    }

    bool put(std::string_view s) {
        if (too_large(s.size())) return fail_too_large();
        r_.output.append(s);
        return true;
    }

    // s padded with spaces to width (bytes), left-justified when ljust.
    bool put_padded(std::string_view s, int64_t width, bool ljust) {
        size_t pad = width > 0 && static_cast<uint64_t>(width) > s.size() ? static_cast<size_t>(width) - s.size() : 0;
        if (static_cast<uint64_t>(width) > ctx_.max_output || too_large(s.size() + pad)) return fail_too_large();
        if (!ljust) r_.output.append(pad, ' ');
        r_.output.append(s);
        if (ljust) r_.output.append(pad, ' ');
        return true;
    }

    void diag(std::initializer_list<std::string_view> parts) { r_.diagnostics.push_back(concat({"printf: "}, parts)); }

    // ---- arguments ----

    bool have_arg() const { return next_ < args_.size(); }

    std::string_view take_str() { return have_arg() ? std::string_view(args_[next_++]) : std::string_view(); }

    void invalid_number(const std::string& s) {
        std::string_view what = "invalid number";
        if (s.size() > 1 && s[0] == '0' && is_dec_digit(s[1])) what = "invalid octal number";
        else if (s.size() > 1 && s[0] == '0' && s[1] == 'x') what = "invalid hex number";
        diag({s, ": ", what});
        conversion_error_ = true;
    }

    void out_of_range(std::string_view s) { diag({"warning: ", s, ": Numerical result out of range"}); }

    // 'c or "c: the code of the character after the quote.
    int64_t char_code(const std::string& s) const {
        if (s.size() < 2) return 0;
        if (ctx_.utf8) {
            Utf8Char ch = decode_utf8(s, 1);
            if (ch.len > 0) return ch.cp;
            // glibc's decoder (bash's mbtowc) also takes a four-byte form past U+10FFFF: \xF4\x91\x84\x91 is
            // 0x111111.
            auto b = [&](size_t i) { return static_cast<unsigned char>(s[i]); };
            if (s.size() >= 5 && b(1) >= 0xF4 && b(1) <= 0xF7 && (b(2) & 0xC0) == 0x80 && (b(3) & 0xC0) == 0x80 &&
                (b(4) & 0xC0) == 0x80)
                return (int64_t{b(1) & 0x07} << 18) | ((b(2) & 0x3F) << 12) | ((b(3) & 0x3F) << 6) | (b(4) & 0x3F);
        }
        return static_cast<unsigned char>(s[1]);
    }

    template <typename T, typename Parse>
    T take_number(Parse parse) {
        if (!have_arg()) return T{};
        const std::string& s = args_[next_++];
        if (!s.empty() && (s[0] == '\'' || s[0] == '"')) return static_cast<T>(char_code(s));
        errno = 0;
        char* end = nullptr;
        T v = parse(s.c_str(), &end);
        if (static_cast<size_t>(end - s.c_str()) != s.size()) invalid_number(s);
        else if (errno == ERANGE) out_of_range(s);
        return v;
    }

    intmax_t take_int() {
        return take_number<intmax_t>([](const char* p, char** e) { return std::strtoimax(p, e, 0); });
    }
    uintmax_t take_uint() {
        return take_number<uintmax_t>([](const char* p, char** e) { return std::strtoumax(p, e, 0); });
    }
    long double take_float() {
        return take_number<long double>([](const char* p, char** e) { return std::strtold(p, e); });
    }

    // A `*` width or precision. Like bash, the range warning names the argument after the number and a
    // last argument is truncated to int without a warning.
    int take_star() {
        intmax_t v = take_int();
        if (!have_arg()) return static_cast<int>(static_cast<uint32_t>(static_cast<uintmax_t>(v)));
        if (v > INT_MAX) {
            out_of_range(args_[next_]);
            v = INT_MAX;
        } else if (v < INT_MIN) {
            out_of_range(args_[next_]);
            v = INT_MIN;
        }
        return static_cast<int>(v);
    }

    // ---- one conversion specification ----

    struct Spec {
        size_t start = 0;          // index of '%'
        std::string flags;         // as written
        bool ljust = false;        // '-' flag
        bool star_width = false;
        int64_t width = 0;         // literal or from `*` (then possibly negative)
        bool have_width = false;
        bool has_dot = false;
        bool star_prec = false;
        bool neg_literal_prec = false;  // ".-N": glibc rejects the specification
        std::string_view neg_prec_text; // "-N" as written
        int64_t precision = -1;    // -1: none
        bool literal_prec_digits = false;
    };

    // Effective width/precision for the padded conversions, as bash's printstr reads them.
    static int64_t str_width(const Spec& sp, bool* ljust) {
        *ljust = sp.ljust;
        if (!sp.have_width) return 0;
        if (sp.width < 0) {
            *ljust = true;
            return -sp.width;
        }
        return sp.width;
    }
    static int64_t str_precision(const Spec& sp) {
        if (!sp.has_dot) return -1;
        if (sp.star_prec) return sp.precision;  // negative: none
        if (sp.neg_literal_prec) return 0;
        return sp.precision < 0 ? 0 : sp.precision;
    }

    bool put_str(const Spec& sp, std::string_view s) {
        bool ljust;
        int64_t width = str_width(sp, &ljust);
        int64_t prec = str_precision(sp);
        if (prec >= 0 && static_cast<uint64_t>(prec) < s.size()) s = s.substr(0, static_cast<size_t>(prec));
        return put_padded(s, width, ljust);
    }

    // printf(3) with one conversion: what bash gets back from glibc for "%<flags><width>.<prec><mod><conv>".
    template <typename T>
    bool put_c_format(const Spec& sp, std::string_view mod, char conv, T value) {
        if (!sp.star_width && sp.width > INT_MAX) return true;  // glibc fails (EOVERFLOW): nothing printed
        if (sp.has_dot && !sp.star_prec && sp.precision > INT_MAX) return true;
        if (sp.neg_literal_prec) {
            // glibc does not accept ".-": it prints the specification back with the precision as 0.
            std::string text = concat({"%", sp.flags});
            if (sp.have_width) text += sp.star_width ? "*" : std::to_string(sp.width);
            text += ".0";
            text += sp.neg_prec_text;
            text += mod == "j" ? "l" : mod;  // bash asks for long when the value fits, always on LP64
            text += conv;
            return put(text);
        }
        std::string f = "%";
        for (char c : sp.flags)
            if (c != '\'') f += c;  // no thousands grouping in C.UTF-8
        int64_t width = sp.width;
        if (sp.have_width) {
            if (width < 0) {
                f += '-';
                width = -width;
            }
            f += std::to_string(width);
        }
        int64_t prec = sp.has_dot ? (sp.star_prec ? sp.precision : std::max<int64_t>(sp.precision, 0)) : -1;
        if constexpr (std::is_floating_point_v<T>) {
            // Precisions that cannot change the output are lowered so that the size check below only refuses
            // output that would really be large: inf and nan ignore the precision, and %g without `#` drops
            // trailing zeros, which is every digit past the ~16500 of a long double's exact decimal expansion.
            if (!std::isfinite(value)) {
                prec = -1;
            } else if ((conv == 'g' || conv == 'G') && sp.flags.find('#') == std::string::npos && prec > kMaxExactDigits) {
                prec = kMaxExactDigits;
            }
        }
        if (prec >= 0) {
            f += '.';
            f += std::to_string(prec);
        }
        f += mod;
        f += conv;
        // Bound the work before asking snprintf: glibc allocates a buffer of the precision's size. The output is
        // at least the width; a precision may still collapse (%g), so it is only bounded for the allocation.
        const uint64_t prec_bound = std::max<uint64_t>(ctx_.max_output, kMaxExactDigits);
        if (static_cast<uint64_t>(width) > ctx_.max_output || (prec > 0 && static_cast<uint64_t>(prec) > prec_bound))
            return fail_too_large();
        int n = std::snprintf(nullptr, 0, f.c_str(), value);
        if (n < 0) return true;
        if (too_large(static_cast<size_t>(n))) return fail_too_large();
        size_t old = r_.output.size();
        r_.output.resize(old + static_cast<size_t>(n) + 1);
        std::snprintf(r_.output.data() + old, static_cast<size_t>(n) + 1, f.c_str(), value);
        r_.output.resize(old + static_cast<size_t>(n));
        return true;
    }

    bool put_time(const Spec& sp, std::string_view timefmt) {
        std::string tf(timefmt.empty() ? std::string_view("%X") : timefmt);
        int64_t arg = have_arg() ? static_cast<int64_t>(take_int()) : -1;
        int64_t secs = arg == -1 ? ctx_.now : arg == -2 ? ctx_.shell_start : arg;
        std::tm tm{};
        auto convert = [&](int64_t t) {
            if (ctx_.local_time) return ctx_.local_time(t, tm);
            auto tt = static_cast<std::time_t>(t);
            if (gmtime_r(&tt, &tm) == nullptr) return false;
#if defined(__GLIBC__) || defined(__APPLE__)
            tm.tm_zone = "UTC";  // what bash shows with TZ=UTC (gmtime_r says "GMT")
#endif
            return true;
        };
        bool ok = convert(secs);
        if (!ok) {
            secs = 0;
            ok = convert(secs);
        }
        // %s is the seconds themselves: strftime would go through mktime and the host's time zone.
        std::string f;
        for (size_t i = 0; i < tf.size(); ++i) {
            if (tf[i] == '%' && i + 1 < tf.size()) {
                if (tf[i + 1] == 's') {
                    f += std::to_string(secs);
                } else {
                    f += tf[i];
                    f += tf[i + 1];
                }
                ++i;
            } else {
                f += tf[i];
            }
        }
        char buf[128];
        size_t n = ok ? std::strftime(buf, sizeof buf, f.c_str(), &tm) : 0;
        return put_str(sp, std::string_view(buf, n));
    }

    // Returns false when formatting stops (error, \c, output too large).
    bool one_pass() {
        const std::string_view f = fmt_;
        for (size_t i = 0; i < f.size(); ++i) {
            char ch = f[i];
            if (ch == '\\') {
                std::string bytes;
                size_t next = decode_escape(f, i, EscapeMode::PrintfFormat, bytes, nullptr, &esc_diags_, ctx_.utf8);
                flush_escape_diags();
                if (!put(bytes)) return false;
                i = next - 1;
                continue;
            }
            if (ch != '%') {
                if (!put(std::string_view(&f[i], 1))) return false;
                continue;
            }
            Spec sp;
            sp.start = i++;
            if (i < f.size() && f[i] == '%') {
                if (!put("%")) return false;
                continue;
            }
            while (i < f.size() && kFlagChars.find(f[i]) != std::string_view::npos) {
                if (f[i] == '-') sp.ljust = true;
                sp.flags += f[i++];
            }
            if (i < f.size() && f[i] == '*') {
                ++i;
                sp.star_width = sp.have_width = true;
                sp.width = take_star();
            } else if (i < f.size() && is_dec_digit(f[i])) {
                sp.have_width = true;
                sp.width = read_decimal(f, i);
            }
            if (i < f.size() && f[i] == '.') {
                ++i;
                sp.has_dot = true;
                if (i < f.size() && f[i] == '*') {
                    ++i;
                    sp.star_prec = true;
                    sp.precision = take_star();
                } else {
                    size_t neg = i;
                    if (i < f.size() && f[i] == '-') {
                        sp.neg_literal_prec = true;
                        ++i;
                    }
                    sp.literal_prec_digits = i < f.size() && is_dec_digit(f[i]);
                    sp.precision = read_decimal(f, i);
                    if (sp.neg_literal_prec) sp.neg_prec_text = f.substr(neg, i - neg);
                }
            }
            while (i < f.size() && kLengthMods.find(f[i]) != std::string_view::npos) ++i;
            if (i >= f.size()) {
                diag({"`", f.substr(sp.start), "': missing format character"});
                r_.status = 1;
                return false;
            }
            char conv = f[i];
            switch (conv) {
                case 'c': {
                    std::string_view a = take_str();
                    char c = a.empty() ? '\0' : a[0];
                    if (!put_c_format(sp, "", 'c', static_cast<int>(static_cast<unsigned char>(c)))) return false;
                    break;
                }
                case 's': {
                    std::string_view a = take_str();
                    if (sp.neg_literal_prec || (!sp.star_width && sp.width > INT_MAX) ||
                        (sp.has_dot && !sp.star_prec && sp.precision > INT_MAX)) {
                        if (!put_c_format(sp, "", 's', "")) return false;
                        break;
                    }
                    if (!put_str(sp, a)) return false;
                    break;
                }
                case '(': {
                    size_t j = closing_paren(i);
                    if (j == std::string_view::npos || j + 1 >= f.size() || f[j + 1] != 'T') {
                        std::string bad = j != std::string_view::npos && j + 1 < f.size() ? std::string(1, f[j + 1]) : std::string();
                        diag({"warning: `", bad, "': invalid time format specification"});
                        if (!put("%")) return false;
                        i = sp.start;
                        continue;
                    }
                    if (!put_time(sp, f.substr(i + 1, j - i - 1))) return false;
                    i = j + 1;
                    break;
                }
                case 'n': {
                    std::string var(take_str());
                    if (!var.empty()) {
                        if (!valid_identifier(var)) {
                            diag({"`", var, "': not a valid identifier"});
                            r_.status = 1;
                            return false;
                        }
                        r_.assignments.emplace_back(var, static_cast<int64_t>(r_.output.size() - pass_start_));
                    }
                    break;
                }
                case 'b': {
                    std::string_view a = take_str();
                    DecodeResult d = ansi_c_decode(a, EscapeMode::PrintfArg, ctx_.utf8);
                    for (const auto& m : d.diagnostics) diag({m});
                    if (!put_str(sp, d.bytes)) return false;
                    if (d.saw_c) return false;  // bash stops with status 0, even after an invalid number
                    break;
                }
                case 'q':
                case 'Q': {
                    std::string_view a = take_str();
                    Spec qs = sp;
                    if (conv == 'Q' && sp.has_dot && !sp.star_prec) {
                        if (sp.literal_prec_digits) {
                            if (static_cast<uint64_t>(sp.precision) < a.size()) a = a.substr(0, static_cast<size_t>(sp.precision));
                            qs.has_dot = false;
                        }
                    } else if (conv == 'Q' && sp.star_prec) {
                        qs.has_dot = false;
                    }
                    if (!put_str(qs, quote_for_reuse(a, QuoteStyle::Backslash, ctx_.utf8))) return false;
                    break;
                }
                case 'd':
                case 'i':
                    if (!put_c_format(sp, "j", conv, take_int())) return false;
                    break;
                case 'o':
                case 'u':
                case 'x':
                case 'X':
                    if (!put_c_format(sp, "j", conv, take_uint())) return false;
                    break;
                case 'e':
                case 'E':
                case 'f':
                case 'F':
                case 'g':
                case 'G':
                case 'a':
                case 'A':
                    if (!put_c_format(sp, "L", conv, take_float())) return false;
                    break;
                default:
                    diag({"`", std::string_view(&f[i], 1), "': invalid format character"});
                    r_.status = 1;
                    return false;
            }
        }
        return true;
    }

    // The ')' that closes the '(' at open, as bash's nesting count finds it; npos when none does. Computed for
    // the whole format at the first use, so a format full of unclosed "%(" stays linear.
    size_t closing_paren(size_t open) {
        if (parens_.empty()) {
            parens_.assign(fmt_.size(), std::string_view::npos);
            std::vector<size_t> stack;
            for (size_t k = 0; k < fmt_.size(); ++k) {
                if (fmt_[k] == '(') {
                    stack.push_back(k);
                } else if (fmt_[k] == ')' && !stack.empty()) {
                    parens_[stack.back()] = k;
                    stack.pop_back();
                }
            }
        }
        return parens_[open];
    }

    void flush_escape_diags() {
        for (const auto& m : esc_diags_) diag({m});
        esc_diags_.clear();
    }

    std::string_view fmt_;
    std::span<const std::string> args_;
    const PrintfContext& ctx_;
    PrintfResult r_;
    size_t next_ = 0;
    size_t pass_start_ = 0;
    bool conversion_error_ = false;
    std::vector<std::string> esc_diags_;
    std::vector<size_t> parens_;
};

}  // namespace

PrintfResult format(std::string_view fmt, std::span<const std::string> args, const PrintfContext& ctx) {
    return Formatter(fmt, args, ctx).run();
}

}  // namespace bashkit::interp
