// seq: print a sequence of numbers, with GNU's precision and equal-width rules.
#include <charconv>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "utils/text/tools.hpp"

namespace bashkit::utils::text {

namespace {

constexpr int kNoPrecision = -1;  // exponent or hex notation: use %Lg

struct Operand {
    long double value = 0;
    int precision = 0;  // digits after the point, or kNoPrecision
    size_t width = 0;
    bool integer = false;  // plain integer text (fast path candidate)
};

bool scan(CommandContext& ctx, const std::string& arg, Operand& op) {
    std::string s = arg;
    const char* c = s.c_str();
    char* end = nullptr;
    // strtold accepts leading whitespace; GNU seq passes it through the same way.
    op.value = std::strtold(c, &end);
    if (end == c || *end != '\0') {
        usage_error(ctx, "invalid floating point argument: " + quote(arg));
        return false;
    }
    if (std::isnan(op.value)) {
        usage_error(ctx, "invalid 'not-a-number' argument: " + quote(arg));
        return false;
    }
    std::string_view a = arg;
    size_t skip = 0;
    while (skip < a.size() && (a[skip] == ' ' || a[skip] == '\t' || a[skip] == '\n')) ++skip;
    a.remove_prefix(skip);
    if (!a.empty() && a[0] == '+') a.remove_prefix(1);
    op.width = a.size();
    op.precision = 0;
    bool hex = a.find_first_of("xX") != std::string_view::npos;
    if (hex || !std::isfinite(op.value)) {
        op.precision = kNoPrecision;
        return true;
    }
    size_t dot = a.find('.');
    size_t epos = a.find_first_of("eE");
    if (dot != std::string_view::npos) {
        size_t frac_end = epos == std::string_view::npos ? a.size() : epos;
        size_t frac = frac_end - dot - 1;
        op.precision = static_cast<int>(frac);
        if (frac == 0) op.width -= 1;
        else if (dot == 0 || !(a[dot - 1] >= '0' && a[dot - 1] <= '9')) op.width += 1;
    }
    if (epos != std::string_view::npos) {
        long ex = std::strtol(std::string(a.substr(epos + 1)).c_str(), nullptr, 10);
        if (ex < -100000) ex = -100000;
        if (ex > 100000) ex = 100000;
        if (ex < 0) op.precision += static_cast<int>(-ex);
        else op.precision -= std::min(op.precision, static_cast<int>(ex));
        op.width -= a.size() - epos;
        if (ex < 0) {
            if (dot != std::string_view::npos) {
                if (epos == dot + 1) op.width += 1;
            } else {
                op.width += 1;
            }
            ex = -ex;
        } else if (dot != std::string_view::npos && op.precision == 0 && ex) {
            op.width -= 1;
        }
        op.width += static_cast<size_t>(ex);
    }
    op.integer = dot == std::string_view::npos && epos == std::string_view::npos;
    return true;
}

// Checks a user format: exactly one floating directive. Returns it rewritten for long double.
bool check_format(CommandContext& ctx, const std::string& fmt, std::string& out) {
    size_t directives = 0;
    out.clear();
    for (size_t i = 0; i < fmt.size(); ++i) {
        if (fmt[i] != '%') {
            out += fmt[i];
            continue;
        }
        if (i + 1 < fmt.size() && fmt[i + 1] == '%') {
            out += "%%";
            ++i;
            continue;
        }
        size_t j = i + 1;
        while (j < fmt.size() && std::strchr("-+ #0'", fmt[j])) ++j;
        uint64_t width = 0, precision = 0;
        size_t ws = j;
        while (j < fmt.size() && fmt[j] >= '0' && fmt[j] <= '9') ++j;
        (void)parse_uint(std::string_view(fmt).substr(ws, j - ws), width);
        if (j < fmt.size() && fmt[j] == '.') {
            size_t ps = ++j;
            while (j < fmt.size() && fmt[j] >= '0' && fmt[j] <= '9') ++j;
            (void)parse_uint(std::string_view(fmt).substr(ps, j - ps), precision);
        }
        if (width > ctx.limits.max_printf_width || precision > ctx.limits.max_printf_width) {
            ctx.error("format " + quote(fmt) + " has a width or precision over the limit");
            return false;
        }
        if (j >= fmt.size()) {
            ctx.error("format " + quote(fmt) + " ends in %");
            return false;
        }
        char conv = fmt[j];
        if (!std::strchr("aAeEfFgG", conv)) {
            ctx.error("format " + quote(fmt) + " has unknown %" + std::string(1, conv) + " directive");
            return false;
        }
        if (++directives > 1) {
            ctx.error("format " + quote(fmt) + " has too many % directives");
            return false;
        }
        std::string spec = fmt.substr(i, j - i);
        std::erase(spec, '\'');
        out += spec;
        out += 'L';
        out += conv;
        i = j;
    }
    if (directives == 0) {
        ctx.error("format " + quote(fmt) + " has no % directive");
        return false;
    }
    return true;
}

std::string format_ld(const std::string& fmt, long double v) {
    char buf[512];
    int n = std::snprintf(buf, sizeof buf, fmt.c_str(), v);
    if (n < 0) return {};
    if (static_cast<size_t>(n) < sizeof buf) return std::string(buf, static_cast<size_t>(n));
    std::string big(static_cast<size_t>(n) + 1, '\0');
    std::snprintf(big.data(), big.size(), fmt.c_str(), v);
    big.resize(static_cast<size_t>(n));
    return big;
}

}  // namespace

int cmd_seq(CommandContext& ctx) {
    static constexpr OptionSpec kLong[] = {
        {'f', 0, "format", ArgKind::required}, {'s', 0, "separator", ArgKind::required}, {'w', 0, "equal-width"},
    };
    std::vector<ParsedOption> opts;
    std::vector<std::string> args;
    ParseConfig config;
    config.negative_numbers_are_operands = true;  // seq -1 2
    if (!parse_getopt(ctx, "f:s:w", kLong, opts, args, config)) return 1;
    std::string user_fmt, sep = "\n";
    bool have_fmt = false, equal = false;
    for (auto& o : opts) {
        switch (o.id) {
            case 'f': user_fmt = o.value; have_fmt = true; break;
            case 's': sep = o.value; break;
            case 'w': equal = true; break;
            case kOptHelp:
                return print_help(ctx, "[OPTION]... LAST\n  or:  seq [OPTION]... FIRST LAST\n  or:  seq [OPTION]... FIRST INCREMENT LAST\nPrint numbers from FIRST to LAST, in steps of INCREMENT.\n");
            case kOptVersion: return version(ctx);
        }
    }
    if (args.empty()) {
        usage_error(ctx, "missing operand");
        return 1;
    }
    if (args.size() > 3) {
        usage_error(ctx, "extra operand " + quote(args[3]));
        return 1;
    }
    std::string fmt;
    if (have_fmt && !check_format(ctx, user_fmt, fmt)) return 1;
    if (have_fmt && equal) {
        usage_error(ctx, "format string may not be specified when printing equal width strings");
        return 1;
    }
    Operand first, step, last;
    first.value = 1;
    first.width = 1;
    first.integer = true;
    step = first;
    if (args.size() == 1) {
        if (!scan(ctx, args[0], last)) return 1;
    } else {
        if (!scan(ctx, args[0], first)) return 1;
        if (args.size() == 3) {
            if (!scan(ctx, args[1], step)) return 1;
            if (step.value == 0) {
                usage_error(ctx, "invalid Zero increment value: " + quote(args[1]));
                return 1;
            }
        }
        if (!scan(ctx, args.back(), last)) return 1;
    }
    Output out(ctx);
    // Integer fast path.
    auto fits = [](const Operand& o) { return o.integer && std::fabs(o.value) < 9.0e17L; };
    if (!have_fmt && fits(first) && fits(step) && fits(last)) {
        auto a = static_cast<long long>(first.value), d = static_cast<long long>(step.value),
             z = static_cast<long long>(last.value);
        int width = 0;
        if (equal) width = static_cast<int>(std::max(first.width, last.width));
        bool any = false;
        char b[64];
        uint64_t iter = 0;
        for (long long x = a; d > 0 ? x <= z : x >= z; x += d) {
            if (any) out.put(sep);
            size_t n;
            if (equal)
                n = static_cast<size_t>(std::snprintf(b, sizeof b, "%0*lld", width, x));
            else
                n = static_cast<size_t>(std::to_chars(b, b + sizeof b, x).ptr - b);  // %lld without printf's cost
            out.put(std::string_view(b, n));
            any = true;
            if ((++iter & 0xfff) == 0) {
                if (ctx.cancelled()) return out.status(130);
                if (out.failed()) return out.status(0);
            }
        }
        if (any) out.put('\n');
        return out.status(0);
    }
    interp::MemoryCharge line_held(ctx.memory);  // the width of one formatted number
    if (!have_fmt) {
        int prec = std::max(first.precision, step.precision);
        if (first.precision == kNoPrecision || step.precision == kNoPrecision || last.precision == kNoPrecision) {
            fmt = "%Lg";
        } else if (equal) {
            size_t fw = first.width + static_cast<size_t>(prec - first.precision);
            size_t lw = last.width + static_cast<size_t>(prec - last.precision);
            if (last.precision && prec == 0) --lw;
            if (last.precision == 0 && prec) ++lw;
            if (first.precision == 0 && prec) ++fw;
            fmt = "%0" + std::to_string(std::max(fw, lw)) + "." + std::to_string(prec) + "Lf";
            // `seq -w 1e-99999999 1`: every number is that wide; refuse before formatting one.
            line_held.add(std::max(fw, lw) + static_cast<size_t>(prec) * 2);
        } else {
            fmt = "%." + std::to_string(prec) + "Lf";
        }
    }
    long double a = first.value, d = step.value, z = last.value;
    if (d > 0 ? a > z : a < z) return out.status(0);
    std::string prev = format_ld(fmt, a);
    out.put(prev);
    for (uint64_t i = 1;; ++i) {
        long double x = a + static_cast<long double>(i) * d;
        if (d > 0 ? x > z : x < z) {
            std::string xs = format_ld(fmt, x);
            if (xs == format_ld(fmt, z) && xs != prev) {
                out.put(sep);
                out.put(xs);
            }
            break;
        }
        std::string xs = format_ld(fmt, x);
        out.put(sep);
        out.put(xs);
        prev = std::move(xs);
        if ((i & 0xfff) == 0) {
            if (ctx.cancelled()) return out.status(130);
            if (out.failed()) return out.status(0);
        }
        if (std::isinf(x)) break;
    }
    out.put('\n');
    return out.status(0);
}

}  // namespace bashkit::utils::text
