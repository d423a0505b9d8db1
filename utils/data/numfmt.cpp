// numfmt (GNU coreutils 9.1): numbers to and from human-readable strings (--from --to --from-unit --to-unit
// --round --padding --format --suffix --field -d --header --invalid -z --grouping --debug), with GNU's long
// double arithmetic, rounding and messages. Under LC_ALL=C grouping adds no separators, as in GNU.
#include <cctype>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "utils/common/args.hpp"
#include "utils/common/io.hpp"
#include "utils/common/quote.hpp"
#include "utils/data/tools.hpp"

namespace bashkit::utils::data {

namespace {

enum : int {
    kFrom = kOptFirstLongOnly,
    kFromUnit,
    kTo,
    kToUnit,
    kRound,
    kPadding,
    kSuffix,
    kFormat,
    kField,
    kHeader,
    kInvalid,
    kGrouping,
    kDebug,
};

constexpr OptionSpec kSpecs[] = {
    {kFrom, 0, "from", ArgKind::required},
    {kFromUnit, 0, "from-unit", ArgKind::required},
    {kTo, 0, "to", ArgKind::required},
    {kToUnit, 0, "to-unit", ArgKind::required},
    {kRound, 0, "round", ArgKind::required},
    {kPadding, 0, "padding", ArgKind::required},
    {kSuffix, 0, "suffix", ArgKind::required},
    {kFormat, 0, "format", ArgKind::required},
    {kField, 0, "field", ArgKind::required},
    {'d', 'd', "delimiter", ArgKind::required},
    {kHeader, 0, "header", ArgKind::optional},
    {kInvalid, 0, "invalid", ArgKind::required},
    {kGrouping, 0, "grouping"},
    {kDebug, 0, "debug"},
    {'z', 'z', "zero-terminated"},
    {kOptHelp, 0, "help"},
    {kOptVersion, 0, "version"},
};

constexpr std::string_view kHelp =
    "Usage: numfmt [OPTION]... [NUMBER]...\n"
    "Reformat NUMBER(s), or the numbers from standard input if none are specified.\n"
    "\n"
    "Mandatory arguments to long options are mandatory for short options too.\n"
    "      --debug          print warnings about invalid input\n"
    "  -d, --delimiter=X    use X instead of whitespace for field delimiter\n"
    "      --field=FIELDS   replace the numbers in these input fields (default=1)\n"
    "                         see FIELDS below\n"
    "      --format=FORMAT  use printf style floating-point FORMAT;\n"
    "                         see FORMAT below for details\n"
    "      --from=UNIT      auto-scale input numbers to UNITs; default is 'none';\n"
    "                         see UNIT below\n"
    "      --from-unit=N    specify the input unit size (instead of the default 1)\n"
    "      --grouping       use locale-defined grouping of digits, e.g. 1,000,000\n"
    "                         (which means it has no effect in the C/POSIX locale)\n"
    "      --header[=N]     print (without converting) the first N header lines;\n"
    "                         N defaults to 1 if not specified\n"
    "      --invalid=MODE   failure mode for invalid numbers: MODE can be:\n"
    "                         abort (default), fail, warn, ignore\n"
    "      --padding=N      pad the output to N characters; positive N will\n"
    "                         right-align; negative N will left-align;\n"
    "                         padding is ignored if the output is wider than N;\n"
    "                         the default is to automatically pad if a whitespace\n"
    "                         is found\n"
    "      --round=METHOD   use METHOD for rounding when scaling; METHOD can be:\n"
    "                         up, down, from-zero (default), towards-zero, nearest\n"
    "      --suffix=SUFFIX  add SUFFIX to output numbers, and accept optional\n"
    "                         SUFFIX in input numbers\n"
    "      --to=UNIT        auto-scale output numbers to UNITs; see UNIT below\n"
    "      --to-unit=N      the output unit size (instead of the default 1)\n"
    "  -z, --zero-terminated    line delimiter is NUL, not newline\n"
    "      --help     display this help and exit\n"
    "      --version  output version information and exit\n"
    "\n"
    "UNIT options:\n"
    "  none       no auto-scaling is done; suffixes will trigger an error\n"
    "  auto       accept optional single/two letter suffix:\n"
    "               1K = 1000,\n"
    "               1Ki = 1024,\n"
    "               1M = 1000000,\n"
    "               1Mi = 1048576,\n"
    "  si         accept optional single letter suffix:\n"
    "               1K = 1000,\n"
    "               1M = 1000000,\n"
    "               ...\n"
    "  iec        accept optional single letter suffix:\n"
    "               1K = 1024,\n"
    "               1M = 1048576,\n"
    "               ...\n"
    "  iec-i      accept optional two-letter suffix:\n"
    "               1Ki = 1024,\n"
    "               1Mi = 1048576,\n"
    "               ...\n"
    "\n"
    "FIELDS supports cut(1) style field ranges:\n"
    "  N    N'th field, counted from 1\n"
    "  N-   from N'th field, to end of line\n"
    "  N-M  from N'th to M'th field (inclusive)\n"
    "  -M   from first to M'th field (inclusive)\n"
    "  -    all fields\n"
    "Multiple fields/ranges can be separated with commas\n"
    "\n"
    "FORMAT must be suitable for printing one floating-point argument '%f'.\n"
    "Optional quote (%'f) will enable --grouping (if supported by current locale).\n"
    "Optional width value (%10f) will pad output. Optional zero (%010f) width\n"
    "will zero pad the number. Optional negative values (%-10f) will left align.\n"
    "Optional precision (%.1f) will override the input determined precision.\n"
    "\n"
    "Exit status is 0 if all input numbers were successfully converted.\n"
    "By default, numfmt will stop at the first conversion error with exit status 2.\n"
    "With --invalid='fail' a warning is printed for each conversion error\n"
    "and the exit status is 2.  With --invalid='warn' each conversion error is\n"
    "diagnosed, but the exit status is 0.  With --invalid='ignore' conversion\n"
    "errors are not diagnosed and the exit status is 0.\n";

enum class Scale { none, automatic, si, iec, iec_i };
enum class Round { up, down, from_zero, towards_zero, nearest };
enum class Invalid { abort, fail, warn, ignore };

constexpr unsigned kMaxUnscaledDigits = 18;
constexpr unsigned kMaxAcceptableDigits = 27;
constexpr std::string_view kSuffixes = "KMGTPEZY";

enum class Sse { ok, ok_precision_loss, overflow, invalid_number, forbidden_suffix, invalid_suffix, missing_i };

long double powerld(long double base, unsigned x) {
    long double r = 1;
    while (x--) r *= base;
    return r;
}

long double absld(long double v) { return v < 0 ? -v : v; }

long double expld(long double val, unsigned base, unsigned* x) {
    unsigned power = 0;
    if (std::isfinite(val)) {
        while (absld(val) >= base) {
            ++power;
            val /= base;
        }
    }
    if (x) *x = power;
    return val;
}

intmax_t round_ceiling(long double v) {
    auto i = static_cast<intmax_t>(v);
    if (i < v) ++i;
    return i;
}
intmax_t round_floor(long double v) {
    auto i = static_cast<intmax_t>(v);
    if (i > v) --i;
    return i;
}

long double simple_round(long double val, Round r) {
    constexpr long double kMax = static_cast<long double>(INTMAX_MAX);
    auto mul = static_cast<intmax_t>(val / kMax);
    val -= kMax * mul;
    intmax_t rv = 0;
    switch (r) {
        case Round::up: rv = round_ceiling(val); break;
        case Round::down: rv = round_floor(val); break;
        case Round::from_zero: rv = val < 0 ? round_floor(val) : round_ceiling(val); break;
        case Round::towards_zero: rv = val < 0 ? round_ceiling(val) : round_floor(val); break;
        case Round::nearest: rv = static_cast<intmax_t>(val < 0 ? val - 0.5L : val + 0.5L); break;
    }
    return kMax * mul + rv;
}

std::string format_ld(const char* fmt, int prec, long double v) {
    char buf[256];
    int n = std::snprintf(buf, sizeof buf, fmt, prec, v);
    return std::string(buf, n < 0 ? 0 : std::min<size_t>(static_cast<size_t>(n), sizeof buf - 1));
}

struct Settings {
    Scale from = Scale::none, to = Scale::none;
    uintmax_t from_unit = 1, to_unit = 1;
    Round round = Round::from_zero;
    long padding = 0;
    bool left_align = false;
    bool auto_padding = false;
    long zero_padding = 0;
    int user_precision = -1;
    std::string suffix;
    bool have_suffix = false;
    std::string prefix_fmt, suffix_fmt;
    bool grouping = false;
    char delimiter = 0;  // 0: whitespace
    Invalid invalid = Invalid::abort;
    bool debug = false;
    std::vector<std::pair<uintmax_t, uintmax_t>> fields{{1, 1}};  // inclusive ranges
};

class Numfmt {
public:
    Numfmt(CommandContext& ctx, Settings& s, Output& out) : ctx_(ctx), s_(s), out_(out) {}

    // False when conversion must stop (--invalid=abort); valid tells whether every field converted.
    bool line(std::string_view line, bool& valid) {
        size_t pos = 0;
        uintmax_t field = 0;
        while (true) {
            ++field;
            size_t start = pos, end = pos;
            if (s_.delimiter) {
                while (end < line.size() && line[end] != s_.delimiter) ++end;
            } else {
                while (end < line.size() && is_sep(line[end])) ++end;
                while (end < line.size() && !is_sep(line[end])) ++end;
            }
            std::string text(line.substr(start, end - start));
            bool ok = process_field(text, field);
            if (!ok) {
                valid = false;
                if (s_.invalid == Invalid::abort) return false;
            }
            if (end < line.size()) {
                out_.put(s_.delimiter ? s_.delimiter : ' ');
                pos = end + 1;
            } else {
                break;
            }
        }
        return true;
    }

private:
    static bool is_sep(char c) { return c == ' ' || c == '\t' || c == '\n'; }

    bool include(uintmax_t field) const {
        for (const auto& [lo, hi] : s_.fields)
            if (field >= lo && field <= hi) return true;
        return false;
    }

    void report(std::string_view msg) {
        if (s_.invalid == Invalid::ignore) return;
        out_.flush();  // glibc's error() flushes stdout first
        ctx_.error(msg);
    }

    bool process_field(std::string& text, uintmax_t field) {
        if (!include(field)) {
            out_.put(text);
            return true;
        }
        long double val = 0;
        size_t precision = 0;
        bool ok = parse_number(text, field, val, precision);
        std::string shown;
        if (ok) ok = prepare(val, precision, shown);
        if (!ok && s_.invalid == Invalid::abort) return false;
        if (ok) {
            out_.put(s_.prefix_fmt);
            out_.put(shown);
            out_.put(s_.suffix_fmt);
        } else {
            out_.put(text);
        }
        return ok;
    }

    Sse strtod_int(std::string_view in, size_t& pos, long double& value, bool& negative) {
        Sse e = Sse::ok;
        long double val = 0;
        unsigned digits = 0;
        bool found = false;
        negative = pos < in.size() && in[pos] == '-';
        if (negative) ++pos;
        while (pos < in.size() && std::isdigit(static_cast<unsigned char>(in[pos]))) {
            int d = in[pos] - '0';
            found = true;
            if (val != 0 || d != 0) ++digits;
            if (digits > kMaxUnscaledDigits) e = Sse::ok_precision_loss;
            if (digits > kMaxAcceptableDigits) return Sse::overflow;
            val = val * 10 + d;
            ++pos;
        }
        if (!found && !(pos < in.size() && in[pos] == '.')) return Sse::invalid_number;
        value = negative ? -val : val;
        return e;
    }

    Sse strtod_human(std::string_view in, size_t& pos, long double& value, size_t& precision) {
        unsigned power = 0;
        long double base = s_.from == Scale::iec || s_.from == Scale::iec_i ? 1024 : 1000;
        precision = 0;
        long double vint = 0;
        bool negative = false;
        Sse e = strtod_int(in, pos, vint, negative);
        if (e != Sse::ok && e != Sse::ok_precision_loss) return e;
        value = vint;
        if (pos < in.size() && in[pos] == '.') {
            ++pos;
            size_t fstart = pos;
            long double vfrac = 0;
            bool negfrac = false;
            Sse e2 = strtod_int(in, pos, vfrac, negfrac);
            if (e2 != Sse::ok && e2 != Sse::ok_precision_loss) return e2;
            if (e2 == Sse::ok_precision_loss) e = e2;
            if (negfrac) return Sse::invalid_number;
            size_t exponent = pos - fstart;
            vfrac /= powerld(10, static_cast<unsigned>(exponent));
            value = negative ? vint - vfrac : vint + vfrac;
            precision = exponent;
        }
        while (pos < in.size() && (in[pos] == ' ' || in[pos] == '\t')) ++pos;
        if (pos < in.size()) {
            size_t k = kSuffixes.find(in[pos]);
            if (in[pos] == '\0' || k == std::string_view::npos) return Sse::invalid_suffix;
            if (s_.from == Scale::none) return Sse::forbidden_suffix;
            power = static_cast<unsigned>(k) + 1;
            ++pos;
            if (s_.from == Scale::automatic && pos < in.size() && in[pos] == 'i') {
                base = 1024;
                ++pos;
            }
            if (s_.from == Scale::iec_i) {
                if (pos < in.size() && in[pos] == 'i')
                    ++pos;
                else
                    return Sse::missing_i;
            }
            precision = 0;
        }
        value *= powerld(base, power);
        return e;
    }

    bool parse_number(std::string& text, uintmax_t field, long double& result, size_t& precision) {
        if (s_.have_suffix && text.size() > s_.suffix.size() && text.ends_with(s_.suffix))
            text.resize(text.size() - s_.suffix.size());
        size_t skip = 0;
        while (skip < text.size() && (text[skip] == ' ' || text[skip] == '\t')) ++skip;
        if (s_.auto_padding) {
            s_.padding = skip > 0 || field > 1 ? static_cast<long>(text.size()) : 0;
            s_.left_align = false;
        }
        std::string_view p = std::string_view(text).substr(skip);
        size_t pos = 0;
        long double val = 0;
        Sse e = strtod_human(p, pos, val, precision);
        bool trailing = (e == Sse::ok || e == Sse::ok_precision_loss) && pos < p.size();
        if (trailing) {
            report("invalid suffix in input " + quote(p) + ": " + quote(p.substr(pos)));
            return false;
        }
        switch (e) {
            case Sse::ok:
            case Sse::ok_precision_loss: break;
            case Sse::overflow: report("value too large to be converted: " + quote(p)); return false;
            case Sse::invalid_number: report("invalid number: " + quote(p)); return false;
            case Sse::forbidden_suffix:
                report("rejecting suffix in input: " + quote(p) + " (consider using --from)");
                return false;
            case Sse::invalid_suffix: report("invalid suffix in input: " + quote(p)); return false;
            case Sse::missing_i:
                report("missing 'i' suffix in input: " + quote(p) + " (e.g Ki/Mi/Gi)");
                return false;
        }
        if (s_.from_unit != 1 || s_.to_unit != 1)
            val = (val * static_cast<long double>(s_.from_unit)) / static_cast<long double>(s_.to_unit);
        result = val;
        return true;
    }

    std::string human(long double val, int precision) {
        std::string fmt = "%";
        if (s_.grouping) fmt += '\'';
        if (s_.zero_padding) fmt += "0" + std::to_string(s_.zero_padding);
        if (s_.to == Scale::none) {
            val *= powerld(10, static_cast<unsigned>(precision));
            val = simple_round(val, s_.round);
            val /= powerld(10, static_cast<unsigned>(precision));
            return format_ld((fmt + ".*Lf").c_str(), precision, val);
        }
        unsigned base = s_.to == Scale::si ? 1000 : 1024;
        unsigned power = 0;
        val = expld(val, base, &power);
        unsigned adjust = 0;
        if (s_.user_precision != -1)
            adjust = std::min(power * 3, static_cast<unsigned>(s_.user_precision));
        else if (absld(val) < 10)
            adjust = 1;
        val *= powerld(10, adjust);
        val = simple_round(val, s_.round);
        val /= powerld(10, adjust);
        if (absld(val) >= base) {
            val /= base;
            ++power;
        }
        bool show_point = val != 0 && absld(val) < 10 && power > 0;
        int prec = s_.user_precision == -1 ? (show_point ? 1 : 0) : s_.user_precision;
        std::string r = format_ld((fmt + ".*Lf").c_str(), prec, val);
        if (power > 0) {
            r += kSuffixes[power - 1];
            if (s_.to == Scale::iec_i) r += 'i';
        }
        return r;
    }

    bool prepare(long double val, size_t precision, std::string& shown) {
        size_t used = s_.user_precision == -1 ? precision : static_cast<size_t>(s_.user_precision);
        unsigned x = 0;
        expld(val, 10, &x);
        char g[64];
        std::snprintf(g, sizeof g, "%Lg", val);
        if (s_.to == Scale::none && x + used > kMaxUnscaledDigits) {
            if (used)
                report("value/precision too large to be printed: '" + std::string(g) + "/" + std::to_string(used) +
                       "' (consider using --to)");
            else
                report("value too large to be printed: '" + std::string(g) + "' (consider using --to)");
            return false;
        }
        if (x > kMaxAcceptableDigits - 1) {
            report("value too large to be printed: '" + std::string(g) + "' (cannot handle values > 999Y)");
            return false;
        }
        std::string buf = human(val, static_cast<int>(used));
        if (s_.have_suffix) buf += s_.suffix;
        if (s_.padding > 0 && buf.size() < static_cast<size_t>(s_.padding)) {
            std::string pad(static_cast<size_t>(s_.padding) - buf.size(), ' ');
            buf = s_.left_align ? buf + pad : pad + buf;
        }
        shown = std::move(buf);
        return true;
    }

    CommandContext& ctx_;
    Settings& s_;
    Output& out_;
};

int bad_arg(CommandContext& ctx, std::string_view value, std::string_view option,
            std::initializer_list<std::string_view> valid) {
    ctx.error("invalid argument " + quote(value) + " for '" + std::string(option) + "'");
    std::string list = "Valid arguments are:\n";
    for (auto v : valid) list += "  - '" + std::string(v) + "'\n";
    ctx.err.write(list);
    return usage_error(ctx, "");
}

std::optional<Scale> parse_scale(std::string_view v, bool allow_auto) {
    if (v == "none") return Scale::none;
    if (v == "auto" && allow_auto) return Scale::automatic;
    if (v == "si") return Scale::si;
    if (v == "iec") return Scale::iec;
    if (v == "iec-i") return Scale::iec_i;
    return std::nullopt;
}

// GNU's argmatch: an exact name or an unambiguous prefix.
template <typename T>
std::optional<T> argmatch(std::string_view v, std::initializer_list<std::pair<std::string_view, T>> names) {
    std::optional<T> found;
    for (const auto& [name, value] : names) {
        if (name == v) return value;
        if (!v.empty() && name.starts_with(v)) {
            if (found && *found != value) return std::nullopt;
            found = value;
        }
    }
    return found;
}

std::optional<uintmax_t> parse_unit(std::string_view s) {
    size_t i = 0;
    uintmax_t n = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
        if (n > (UINTMAX_MAX - 9) / 10) return std::nullopt;
        n = n * 10 + static_cast<uintmax_t>(s[i] - '0');
        ++i;
    }
    if (i == 0) return std::nullopt;
    if (i < s.size()) {
        size_t k = kSuffixes.find(s[i]);
        if (k == std::string_view::npos) return std::nullopt;
        unsigned base = 1000;
        ++i;
        if (i < s.size() && s[i] == 'i') {
            base = 1024;
            ++i;
        }
        if (i != s.size()) return std::nullopt;
        for (size_t p = 0; p <= k; ++p) {
            if (n > UINTMAX_MAX / base) return std::nullopt;
            n *= base;
        }
    }
    if (n == 0) return std::nullopt;
    return n;
}

bool parse_long(std::string_view s, long& out) {
    if (s.empty()) return false;
    size_t i = 0;
    bool neg = false;
    if (s[0] == '-' || s[0] == '+') {
        neg = s[0] == '-';
        ++i;
    }
    if (i == s.size()) return false;
    long v = 0;
    for (; i < s.size(); ++i) {
        if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
        if (v > (LONG_MAX - 9) / 10) return false;
        v = v * 10 + (s[i] - '0');
    }
    out = neg ? -v : v;
    return true;
}

// cut-style FIELDS. Returns the message of a usage error, empty when fine.
std::string parse_fields(std::string_view spec, std::vector<std::pair<uintmax_t, uintmax_t>>& out) {
    out.clear();
    if (spec == "-") {
        out.emplace_back(1, UINTMAX_MAX);
        return "";
    }
    size_t i = 0;
    while (true) {
        size_t j = spec.find_first_of(", \t", i);
        std::string_view item = spec.substr(i, j == std::string_view::npos ? std::string_view::npos : j - i);
        auto num = [](std::string_view d, uintmax_t& v) {
            if (d.empty()) return false;
            v = 0;
            for (char c : d) {
                if (!std::isdigit(static_cast<unsigned char>(c))) return false;
                v = v > UINTMAX_MAX / 10 ? UINTMAX_MAX : v * 10 + static_cast<uintmax_t>(c - '0');
            }
            return true;
        };
        size_t dash = item.find('-');
        uintmax_t lo = 0, hi = 0;
        if (dash == std::string_view::npos) {
            if (!num(item, lo)) return "invalid field value " + quote(item);
            if (lo == 0) return "fields are numbered from 1";
            hi = lo;
        } else {
            std::string_view a = item.substr(0, dash), b = item.substr(dash + 1);
            if (a.empty() && b.empty()) return "invalid range with no endpoint: -";
            if (a.empty()) {
                lo = 1;
            } else if (!num(a, lo)) {
                return "invalid field range";
            }
            if (b.empty()) {
                hi = UINTMAX_MAX;
            } else if (!num(b, hi)) {
                return "invalid field range";
            }
            if (lo == 0 || (!b.empty() && hi == 0)) return "fields are numbered from 1";
            if (hi < lo) return "invalid decreasing range";
        }
        out.emplace_back(lo, hi);
        if (j == std::string_view::npos) break;
        i = j + 1;
    }
    return "";
}

// Parses --format into prefix, padding, precision and suffix. Returns the error message, empty when fine.
std::string parse_format(const std::string& fmt, Settings& s) {
    size_t i = 0;
    while (true) {
        if (i >= fmt.size()) return "format " + quote(fmt) + " has no % directive";
        if (fmt[i] == '%' && (i + 1 >= fmt.size() || fmt[i + 1] != '%')) break;
        i += (fmt[i] == '%') + 1;
    }
    size_t prefix_len = 0;
    prefix_len = i;
    ++i;
    bool zero = false;
    while (true) {
        size_t skip = 0;
        while (i + skip < fmt.size() && fmt[i + skip] == ' ') ++skip;
        i += skip;
        if (i < fmt.size() && fmt[i] == '\'') {
            s.grouping = true;
            ++i;
        } else if (i < fmt.size() && fmt[i] == '0') {
            zero = true;
            ++i;
        } else if (!skip) {
            break;
        }
    }
    size_t start = i;
    if (i < fmt.size() && (fmt[i] == '-' || fmt[i] == '+')) ++i;
    while (i < fmt.size() && std::isdigit(static_cast<unsigned char>(fmt[i]))) ++i;
    long pad = 0;
    bool have_pad = i > start && parse_long(std::string_view(fmt).substr(start, i - start), pad);
    if (!have_pad) i = start;
    if (have_pad && pad != 0) {
        if (pad < 0) {
            s.left_align = true;
            s.padding = -pad;
        } else if (zero) {
            s.zero_padding = pad;
        } else {
            s.padding = pad;
        }
    }
    if (i >= fmt.size()) return "format " + quote(fmt) + " ends in %";
    if (fmt[i] == '.') {
        ++i;
        size_t ps = i;
        while (i < fmt.size() && std::isdigit(static_cast<unsigned char>(fmt[i]))) ++i;
        if (i < fmt.size() && (fmt[i] == '-' || fmt[i] == '+' || fmt[i] == ' '))
            return "invalid precision in format " + quote(fmt);
        long prec = 0;
        if (i > ps && !parse_long(std::string_view(fmt).substr(ps, i - ps), prec))
            return "invalid precision in format " + quote(fmt);
        s.user_precision = static_cast<int>(std::min(prec, 1000L));
    }
    if (i >= fmt.size() || fmt[i] != 'f')
        return "invalid format " + quote(fmt) + ", directive must be %[0]['][-][N][.][N]f";
    ++i;
    size_t suffix_pos = i;
    for (; i < fmt.size(); i += (fmt[i] == '%') + 1)
        if (fmt[i] == '%' && (i + 1 >= fmt.size() || fmt[i + 1] != '%'))
            return "format " + quote(fmt) + " has too many % directives";
    // GNU prints the prefix through printf (%% is one %) and the suffix as it is.
    for (size_t k = 0; k < prefix_len; k += (fmt[k] == '%') + 1) s.prefix_fmt += fmt[k];
    s.suffix_fmt = fmt.substr(suffix_pos);
    return "";
}

}  // namespace

int cmd_numfmt(CommandContext& ctx) {
    ParsedArgs p = parse_args(ctx.argv, kSpecs);
    Settings s;
    std::string format;
    bool have_format = false;
    uintmax_t header = 0;
    char line_delim = '\n';
    for (const auto& o : p.options) {
        switch (o.id) {
            case kFrom: {
                auto v = parse_scale(o.value, true);
                if (!v) return bad_arg(ctx, o.value, "--from", {"none", "auto", "si", "iec", "iec-i"});
                s.from = *v;
                break;
            }
            case kTo: {
                auto v = parse_scale(o.value, false);
                if (!v) return bad_arg(ctx, o.value, "--to", {"none", "si", "iec", "iec-i"});
                s.to = *v;
                break;
            }
            case kFromUnit:
            case kToUnit: {
                auto v = parse_unit(o.value);
                if (!v) {
                    ctx.error("invalid unit size: " + quote(o.value));
                    return 1;
                }
                (o.id == kFromUnit ? s.from_unit : s.to_unit) = *v;
                break;
            }
            case kRound: {
                auto v = argmatch<Round>(o.value, {{"up", Round::up},
                                                   {"down", Round::down},
                                                   {"from-zero", Round::from_zero},
                                                   {"towards-zero", Round::towards_zero},
                                                   {"nearest", Round::nearest}});
                if (!v)
                    return bad_arg(ctx, o.value, "--round", {"up", "down", "from-zero", "towards-zero", "nearest"});
                s.round = *v;
                break;
            }
            case kPadding: {
                long v = 0;
                if (!parse_long(o.value, v) || v == 0) {
                    ctx.error("invalid padding value " + quote(o.value));
                    return 1;
                }
                s.left_align = v < 0;
                s.padding = v < 0 ? -v : v;
                break;
            }
            case kSuffix: s.suffix = o.value; s.have_suffix = true; break;
            case kFormat: format = o.value; have_format = true; break;
            case kField: {
                std::string err = parse_fields(o.value, s.fields);
                if (!err.empty()) return usage_error(ctx, err);
                break;
            }
            case 'd':
                if (o.value.size() != 1) {
                    ctx.error("the delimiter must be a single character");
                    return 1;
                }
                s.delimiter = o.value[0];
                break;
            case kHeader:
                header = 1;
                if (o.has_value) {
                    uint64_t v = 0;
                    if (!text::parse_uint(o.value, v) || v == 0) {
                        ctx.error("invalid header value " + quote(o.value));
                        return 1;
                    }
                    header = v;
                }
                break;
            case kInvalid: {
                auto v = argmatch<Invalid>(o.value, {{"abort", Invalid::abort},
                                                     {"fail", Invalid::fail},
                                                     {"warn", Invalid::warn},
                                                     {"ignore", Invalid::ignore}});
                if (!v) return bad_arg(ctx, o.value, "--invalid", {"abort", "fail", "warn", "ignore"});
                s.invalid = *v;
                break;
            }
            case kGrouping: s.grouping = true; break;
            case kDebug: s.debug = true; break;
            case 'z': line_delim = '\0'; break;
            case kOptHelp: return write_out(ctx, kHelp) ? 0 : 1;
            case kOptVersion: return write_out(ctx, "numfmt (GNU coreutils) 9.1\n") ? 0 : 1;
            default: break;
        }
    }
    if (!p.ok()) return usage_error(ctx, p.error);
    if (have_format && s.grouping) {
        ctx.error("--grouping cannot be combined with --format");
        return 1;
    }
    if (have_format) {
        std::string err = parse_format(format, s);
        if (!err.empty()) {
            ctx.error(err);
            return 1;
        }
    }
    if (s.grouping && s.to != Scale::none) {
        ctx.error("grouping cannot be combined with --to");
        return 1;
    }
    if (s.debug && s.from == Scale::none && s.to == Scale::none && !s.grouping && s.padding == 0 && !have_format)
        ctx.error("no conversion option specified");
    s.auto_padding = s.padding == 0 && s.delimiter == 0;

    Output out(ctx);
    Numfmt nf(ctx, s, out);
    bool valid = true;
    bool stopped = false;
    if (!p.operands.empty()) {
        if (s.debug && header) ctx.error("--header ignored with command-line input");
        for (const auto& op : p.operands) {
            if (ctx.cancelled()) return out.status(130);
            if (!nf.line(op, valid)) {
                stopped = true;
                break;
            }
            out.put(line_delim);
        }
    } else {
        Input in;
        in.open_stdin(ctx);
        LineReader reader(in, line_delim);
        std::string_view l;
        bool terminated = false;
        while (reader.next(l, terminated)) {
            if (ctx.cancelled()) return out.status(130);
            if (out.failed()) break;
            if (header > 0) {
                --header;
                out.put(l);
                if (terminated) out.put(line_delim);
                continue;
            }
            if (!nf.line(l, valid)) {
                stopped = true;
                break;
            }
            if (terminated) out.put(line_delim);
        }
    }
    if (stopped) return out.status(2);
    int status = !valid && (s.invalid == Invalid::abort || s.invalid == Invalid::fail) ? 2 : 0;
    return out.status(status);
}

}  // namespace bashkit::utils::data
