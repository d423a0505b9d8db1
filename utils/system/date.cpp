// date: print a time (now from ctx.clock, -d STRING, -f FILE, -r FILE) in a format and a time zone (TZ of
// the command's environment, -u). Setting the clock (-s, MMDDhhmm operands) is refused: the sandbox's user
// may not.
#include <cctype>
#include <span>

#include "utils/system/tools.hpp"
#include "utils/text/util.hpp"

namespace bashkit::utils::systemutil {

namespace {

enum : int {
    kOptRfc3339 = kOptFirstLongOnly,
    kOptDebug,
};

constexpr OptionSpec kDateOpts[] = {
    {'d', 'd', "date", ArgKind::required},
    {'f', 'f', "file", ArgKind::required},
    {'I', 'I', "iso-8601", ArgKind::optional},
    {'R', 'R', "rfc-email", ArgKind::none},
    {'R', 0, "rfc-822", ArgKind::none},
    {'R', 0, "rfc-2822", ArgKind::none},
    {kOptRfc3339, 0, "rfc-3339", ArgKind::required},
    {'r', 'r', "reference", ArgKind::required},
    {'s', 's', "set", ArgKind::required},
    {'u', 'u', "utc", ArgKind::none},
    {'u', 0, "universal", ArgKind::none},
    {kOptDebug, 0, "debug", ArgKind::none},
    {kOptHelp, 0, "help", ArgKind::none},
    {kOptVersion, 0, "version", ArgKind::none},
};

constexpr std::string_view kDateHelp =
    "Usage: date [OPTION]... [+FORMAT]\n"
    "Display the current time in the given FORMAT.\n"
    "\n"
    "  -d, --date=STRING          display time described by STRING, not 'now'\n"
    "  -f, --file=DATEFILE        like --date; once for each line of DATEFILE\n"
    "  -I[FMT], --iso-8601[=FMT]  output date/time in ISO 8601 format.\n"
    "                               FMT='date' for date only (the default),\n"
    "                               'hours', 'minutes', 'seconds', or 'ns'\n"
    "  -R, --rfc-email            output date and time in RFC 5322 format\n"
    "      --rfc-3339=FMT         output date/time in RFC 3339 format (date, seconds, ns)\n"
    "  -r, --reference=FILE       display the last modification time of FILE\n"
    "  -u, --utc, --universal     print or set Coordinated Universal Time (UTC)\n"
    "      --help     display this help and exit\n"
    "      --version  output version information and exit\n";

// argmatch: an exact name or an unambiguous prefix. -1 when invalid.
int argmatch(std::string_view arg, std::span<const std::string_view> names) {
    int found = -1, i = 0;
    for (std::string_view n : names) {
        if (n == arg) return i;
        if (!arg.empty() && n.starts_with(arg)) {
            if (found >= 0) return -2;
            found = i;
        }
        ++i;
    }
    return found;
}

int bad_argument(CommandContext& ctx, std::string_view arg, std::string_view option,
                 std::span<const std::string_view> names, bool ambiguous) {
    std::string m = std::string(ambiguous ? "ambiguous" : "invalid") + " argument " + quote(arg) + " for " +
                    quote(option) + "\nValid arguments are:\n";
    for (std::string_view n : names) m += "  - " + quote(n) + "\n";
    m.pop_back();
    return usage_error(ctx, m);
}

}  // namespace

// coreutils' quote() in the C locale (locale quoting style): 'text' with \' \\ and C escapes.
std::string quote(std::string_view s) {
    std::string out = "'";
    for (unsigned char c : s) {
        switch (c) {
            case '\'': out += "\\'"; break;
            case '\\': out += "\\\\"; break;
            case '\a': out += "\\a"; break;
            case '\b': out += "\\b"; break;
            case '\f': out += "\\f"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            case '\v': out += "\\v"; break;
            default:
                if (c < 0x20 || c >= 0x7f) {
                    out.push_back('\\');
                    out.push_back(static_cast<char>('0' + (c >> 6)));
                    out.push_back(static_cast<char>('0' + ((c >> 3) & 7)));
                    out.push_back(static_cast<char>('0' + (c & 7)));
                } else {
                    out.push_back(static_cast<char>(c));
                }
        }
    }
    out.push_back('\'');
    return out;
}

int cmd_date(CommandContext& ctx) {
    ParsedArgs p = parse_args(ctx.argv, kDateOpts);
    std::string format;
    bool have_format = false;
    int sources = 0;
    std::string date_str, file_name, ref_name;
    bool have_date = false, have_file = false, have_ref = false, set = false, utc = false;
    auto set_format = [&](std::string f) -> bool {
        if (have_format) {
            ctx.error("multiple output formats specified");
            return false;
        }
        format = std::move(f);
        have_format = true;
        return true;
    };
    for (const auto& o : p.options) {
        switch (o.id) {
            case kOptHelp: return write_out(ctx, kDateHelp) ? 0 : 1;
            case kOptVersion: return write_out(ctx, "date (bashkit) 1.0\n") ? 0 : 1;
            case 'd':
                date_str = o.value;
                if (!have_date) ++sources;
                have_date = true;
                break;
            case 'f':
                file_name = o.value;
                if (!have_file) ++sources;
                have_file = true;
                break;
            case 'r':
                ref_name = o.value;
                if (!have_ref) ++sources;
                have_ref = true;
                break;
            case 's': set = true; break;
            case 'u': utc = true; break;
            case kOptDebug: break;
            case 'R':
                if (!set_format("%a, %d %b %Y %H:%M:%S %z")) return 1;
                break;
            case 'I': {
                static constexpr std::string_view names[] = {"hours", "minutes", "date", "seconds", "ns"};
                int k = o.has_value ? argmatch(o.value, names) : 2;
                if (k < 0) return bad_argument(ctx, o.value, "--iso-8601", names, k == -2);
                static constexpr std::string_view fmts[] = {"%Y-%m-%dT%H%:z", "%Y-%m-%dT%H:%M%:z", "%Y-%m-%d",
                                                            "%Y-%m-%dT%H:%M:%S%:z", "%Y-%m-%dT%H:%M:%S,%N%:z"};
                if (!set_format(std::string(fmts[k]))) return 1;
                break;
            }
            case kOptRfc3339: {
                static constexpr std::string_view names[] = {"date", "seconds", "ns"};
                int k = argmatch(o.value, names);
                if (k < 0) return bad_argument(ctx, o.value, "--rfc-3339", names, k == -2);
                static constexpr std::string_view fmts[] = {"%Y-%m-%d", "%Y-%m-%d %H:%M:%S%:z",
                                                            "%Y-%m-%d %H:%M:%S.%N%:z"};
                if (!set_format(std::string(fmts[k]))) return 1;
                break;
            }
            default: break;
        }
    }
    if (!p.ok()) return usage_error(ctx, p.error);
    if (sources > 1) return usage_error(ctx, "the options to specify dates for printing are mutually exclusive");
    if (set && sources) return usage_error(ctx, "the options to print and set the time may not be used together");
    std::vector<std::string>& ops = p.operands;
    std::string set_operand;
    if (!ops.empty() && ops[0].starts_with("+")) {
        if (ops.size() > 1) return usage_error(ctx, "extra operand " + quote(ops[1]));
        if (!set_format(ops[0].substr(1))) return 1;
    } else if (!ops.empty()) {
        if (ops.size() > 1) return usage_error(ctx, "extra operand " + quote(ops[1]));
        if (set || sources) {
            ctx.error("the argument " + quote(ops[0]) + " lacks a leading '+';");
            (void)ctx.err.write("when using an option to specify date(s), any non-option\nargument must be a format string beginning with '+'\n");
            return usage_error(ctx, "");
        }
        set_operand = ops[0];
    }
    if (!have_format) format = "%a %b %e %H:%M:%S %Z %Y";

    TimeZone tz = utc ? TimeZone::fixed(0, "UTC") : TimeZone::from_tz(ctx.env.get("TZ"), &ctx.fs);
    const vfs::TimeSpec now = ctx.clock.now();
    auto print = [&](int64_t sec, int64_t nsec) -> bool {
        std::string s = format_time(format, tz.local(sec, nsec));
        s.push_back('\n');
        return write_out(ctx, s);
    };

    if (set || !set_operand.empty()) {
        if (!set_operand.empty()) {
            // MMDDhhmm[[CC]YY][.ss]: check the shape, then refuse like a non-root user.
            std::string_view v = set_operand;
            size_t dot = v.find('.');
            std::string_view main = v.substr(0, dot);
            bool ok = (main.size() == 8 || main.size() == 10 || main.size() == 12) &&
                      (dot == std::string_view::npos || v.size() - dot == 3);
            for (char c : v)
                if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.') ok = false;
            if (!ok) {
                ctx.error("invalid date " + quote(set_operand));
                return 1;
            }
        } else {
            int64_t s, ns;
            const std::string& arg = p.last('s')->value;
            if (!parse_date(arg, now.sec, now.nsec, tz, &ctx.fs, s, ns)) {
                ctx.error("invalid date " + quote(arg));
                return 1;
            }
        }
        ctx.error("cannot set date: Operation not permitted");
        return 1;
    }

    if (have_ref) {
        auto st = ctx.fs.stat(ctx.resolve(ref_name));
        if (!st) {
            ctx.error(text::quote_name(ref_name) + ": " + std::string(vfs::error_message(st.error())));
            return 1;
        }
        return print(st->mtime.sec, st->mtime.nsec) ? 0 : 1;
    }
    if (have_file) {
        text::Input in;
        vfs::Errc e = in.open_input(ctx, file_name);
        if (e != vfs::Errc::ok) {
            ctx.error(text::quote_name(file_name) + ": " + std::string(vfs::error_message(e)));
            return 1;
        }
        text::LineReader lr(in);
        std::string_view line;
        int status = 0;
        while (lr.next(line)) {
            if (ctx.cancelled()) return 130;
            if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
            int64_t s, ns;
            if (!parse_date(line, now.sec, now.nsec, tz, &ctx.fs, s, ns)) {
                ctx.error("invalid date " + quote(line));
                status = 1;
                continue;
            }
            if (!print(s, ns)) return 1;
        }
        if (lr.error() != vfs::Errc::ok) {
            ctx.error(text::quote_name(file_name) + ": " + std::string(vfs::error_message(lr.error())));
            return 1;
        }
        return status;
    }
    int64_t sec = now.sec, nsec = now.nsec;
    if (have_date && !parse_date(date_str, now.sec, now.nsec, tz, &ctx.fs, sec, nsec)) {
        ctx.error("invalid date " + quote(date_str));
        return 1;
    }
    return print(sec, nsec) ? 0 : 1;
}

}  // namespace bashkit::utils::systemutil
