// csplit (GNU coreutils 9.1 under LC_ALL=C): split a file into pieces at line numbers and at lines matching
// regular expressions (GNU BRE, interp/regex.hpp).
//
// The input is read whole (charged to the session's memory budget) and split into lines. Where the search of
// a pattern starts follows GNU: a line number N ends the piece before line N and the next search starts at N;
// /RE/OFFSET and %RE%OFFSET search from the line after the last line they matched or skipped to (so /x/ /x/
// finds two different lines), the piece ending OFFSET lines after the match. {N} repeats the previous pattern
// N more times (a line number N repeats as 2N, 3N, ...), {*} until the input ends. After a failure the rest
// of the input is written to one more piece (GNU prints its size too), then every piece is removed unless
// -k. Sizes are printed as each piece is closed, unless -s.
#include <algorithm>
#include <cstdio>
#include <optional>

#include "utils/text/tools.hpp"
#include "interp/regex.hpp"

namespace bashkit::utils::text {

namespace {

struct Control {
    std::string spelled;  // the argument, for messages
    bool is_regex = false;
    bool skip = false;        // %RE%
    int64_t line = 0;         // a line number
    int64_t offset = 0;
    uint64_t repeat = 0;      // {N}
    bool forever = false;     // {*}
    std::shared_ptr<interp::Regex> re;
};

// The suffix format of -b: one conversion among d i u o x X (flags, width, precision allowed) and %%.
bool check_suffix(CommandContext& ctx, const std::string& fmt) {
    int convs = 0;
    for (size_t i = 0; i < fmt.size(); ++i) {
        if (fmt[i] != '%') continue;
        if (i + 1 < fmt.size() && fmt[i + 1] == '%') {
            ++i;
            continue;
        }
        size_t j = i + 1;
        while (j < fmt.size() && std::string_view("'-+ #0").find(fmt[j]) != std::string_view::npos) ++j;
        while (j < fmt.size() && fmt[j] >= '0' && fmt[j] <= '9') ++j;
        if (j < fmt.size() && fmt[j] == '.') {
            ++j;
            while (j < fmt.size() && fmt[j] >= '0' && fmt[j] <= '9') ++j;
        }
        if (j >= fmt.size()) {
            ctx.error("missing conversion specifier in suffix");
            return false;
        }
        if (std::string_view("diuoxX").find(fmt[j]) == std::string_view::npos) {
            const unsigned char c = static_cast<unsigned char>(fmt[j]);
            if (c >= 32 && c < 127) ctx.error(std::string("invalid conversion specifier in suffix: ") + fmt[j]);
            else {
                char buf[8];
                std::snprintf(buf, sizeof buf, "\\%.3o", c);
                ctx.error(std::string("invalid conversion specifier in suffix: ") + buf);
            }
            return false;
        }
        if (++convs > 1) {
            ctx.error("too many % conversion specifications in suffix");
            return false;
        }
        i = j;
    }
    if (convs == 0) {
        ctx.error("missing % conversion specification in suffix");
        return false;
    }
    return true;
}

std::string format_suffix(const std::string& fmt, unsigned n) {
    std::string out;
    for (size_t i = 0; i < fmt.size(); ++i) {
        if (fmt[i] != '%') {
            out += fmt[i];
            continue;
        }
        if (fmt[i + 1] == '%') {
            out += '%';
            ++i;
            continue;
        }
        size_t j = i + 1;
        while (std::string_view("diuoxX").find(fmt[j]) == std::string_view::npos) ++j;
        std::string spec = fmt.substr(i, j - i + 1);
        // d and i print the number as unsigned, as GNU csplit does.
        if (spec.back() == 'd' || spec.back() == 'i') spec.back() = 'u';
        char buf[128];
        std::snprintf(buf, sizeof buf, spec.c_str(), n);
        out += buf;
        i = j;
    }
    return out;
}

// coreutils' quote() in the C locale (locale quoting style): a backslash is doubled.
std::string q(std::string_view s) {
    std::string t;
    for (char c : s) {
        if (c == '\\') t += '\\';
        t += c;
    }
    return quote(t).size() == t.size() + 2 ? "'" + t + "'" : quote(s);
}

bool nonempty_digits(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A non-negative decimal, saturating; false when not all digits.
bool to_int(std::string_view s, int64_t& v) {
    if (!nonempty_digits(s)) return false;
    v = 0;
    for (char c : s) {
        if (v > (INT64_MAX - 9) / 10) {
            v = INT64_MAX;
            return true;
        }
        v = v * 10 + (c - '0');
    }
    return true;
}

}  // namespace

int cmd_csplit(CommandContext& ctx) {
    enum : int { kSuppress = kOptFirstLongOnly };
    static constexpr OptionSpec kLong[] = {
        {'b', 0, "suffix-format", ArgKind::required}, {'f', 0, "prefix", ArgKind::required},
        {'k', 0, "keep-files"}, {kSuppress, 0, "suppress-matched"}, {'n', 0, "digits", ArgKind::required},
        {'s', 0, "quiet"}, {'s', 0, "silent"}, {'z', 0, "elide-empty-files"},
    };
    std::vector<ParsedOption> opts;
    std::vector<std::string> args;
    ParseConfig cfg;
    // Patterns like -5 are not options... but GNU csplit parses with getopt too: leave the default.
    if (!parse_getopt(ctx, "f:b:kn:sqz", kLong, opts, args, cfg)) return 1;
    std::string prefix = "xx", suffix;
    int64_t digits = 2;
    bool keep = false, quiet = false, elide = false, suppress = false;
    for (const auto& o : opts) {
        switch (o.id) {
        case 'f': prefix = o.value; break;
        case 'b': suffix = o.value; break;
        case 'k': keep = true; break;
        case 'n':
            if (!to_int(o.value, digits) || digits > 1000) {
                ctx.error("invalid number: " + quote(o.value));
                return 1;
            }
            break;
        case 's':
        case 'q': quiet = true; break;
        case 'z': elide = true; break;
        case kSuppress: suppress = true; break;
        case kOptHelp:
            return print_help(ctx,
                              "[OPTION]... FILE PATTERN...\nOutput pieces of FILE separated by PATTERN(s) to files "
                              "'xx00', 'xx01', ...,\nand output byte counts of each piece to standard output.\n");
        case kOptVersion: return version(ctx);
        default: break;
        }
    }
    if (args.empty()) {
        usage_error(ctx, "missing operand");
        return 1;
    }
    if (args.size() == 1) {
        usage_error(ctx, "missing operand after " + quote(args[0]));
        return 1;
    }
    if (suffix.empty()) suffix = "%0" + std::to_string(digits) + "u";
    else if (!check_suffix(ctx, suffix)) return 1;

    // Patterns.
    std::vector<Control> controls;
    int64_t last_line = 0;
    for (size_t k = 1; k < args.size(); ++k) {
        const std::string& a = args[k];
        if (a.starts_with("{")) {
            if (controls.empty()) {
                ctx.error(q(a) + ": invalid pattern");  // GNU: a repeat count with nothing to repeat
                return 1;
            }
            if (a.back() != '}') {
                ctx.error(q(a) + ": '}' is required in repeat count");
                return 1;
            }
            const std::string_view inner = std::string_view(a).substr(1, a.size() - 2);
            Control& c = controls.back();
            if (inner == "*") {
                c.forever = true;
            } else {
                int64_t n = 0;
                if (!to_int(inner, n)) {
                    ctx.error(q(a.substr(0, a.size() - 1)) + "}: integer required between '{' and '}'");
                    return 1;
                }
                c.repeat = static_cast<uint64_t>(n);
            }
            continue;
        }
        Control c;
        c.spelled = a;
        if (a[0] == '/' || a[0] == '%') {
            const char delim = a[0];
            size_t end = std::string::npos;
            for (size_t i = 1; i < a.size(); ++i) {
                if (a[i] == '\\' && i + 1 < a.size()) {
                    ++i;
                    continue;
                }
                if (a[i] == delim) {
                    end = i;
                    break;
                }
            }
            if (end == std::string::npos) {
                ctx.error(a + ": closing delimiter '" + std::string(1, delim) + "' missing");
                return 1;
            }
            c.is_regex = true;
            c.skip = delim == '%';
            const std::string rest = a.substr(end + 1);
            if (!rest.empty()) {
                std::string_view r = rest;
                bool neg = false;
                if (r[0] == '+' || r[0] == '-') {
                    neg = r[0] == '-';
                    r.remove_prefix(1);
                }
                int64_t off = 0;
                if (!to_int(r, off)) {
                    ctx.error(q(a) + ": integer expected after delimiter");
                    return 1;
                }
                c.offset = neg ? -off : off;
            }
            interp::RegexOptions ro;
            ro.bytes = true;
            auto re = std::make_shared<interp::Regex>(
                interp::Regex::compile(std::string_view(a).substr(1, end - 1), interp::RegexSyntax::kBasic, ro));
            if (!re->ok()) {
                ctx.error(q(a) + ": invalid regular expression: " + re->message());
                return 1;
            }
            c.re = std::move(re);
        } else if (nonempty_digits(a)) {
            to_int(a, c.line);
            if (c.line == 0) {
                ctx.error("0: line number must be greater than zero");
                return 1;
            }
            if (c.line < last_line) {
                ctx.error("line number " + quote(a) + " is smaller than preceding line number, " +
                          std::to_string(last_line));
                return 1;
            }
            if (c.line == last_line) ctx.error("warning: line number " + quote(a) + " is the same as preceding line number");
            last_line = c.line;
        } else {
            ctx.error(q(a) + ": invalid pattern");
            return 1;
        }
        controls.push_back(std::move(c));
    }

    // The input, whole.
    Input in;
    if (auto e = in.open_input(ctx, args[0]); e != vfs::Errc::ok) {
        ctx.error("cannot open " + quote(args[0]) + " for reading: " + errstr(e));
        return 1;
    }
    std::string data;
    interp::MemoryCharge held(ctx.memory);
    if (auto e = read_all(ctx, in, data); e != vfs::Errc::ok) {
        if (e == vfs::Errc::cancelled) return 130;
        ctx.error("read error: " + errstr(e));
        return 1;
    }
    held.add(data.size());
    std::vector<std::string_view> lines;  // each with its newline
    for (size_t pos = 0; pos < data.size();) {
        if ((lines.size() & 0xffff) == 0xffff && ctx.cancelled()) return 130;
        size_t nl = data.find('\n', pos);
        size_t end = nl == std::string::npos ? data.size() : nl + 1;
        lines.push_back(std::string_view(data).substr(pos, end - pos));
        pos = end;
    }
    held.add(lines.size() * sizeof(std::string_view));
    const int64_t total = static_cast<int64_t>(lines.size());

    Output out(ctx);
    std::vector<std::string> created;
    unsigned next_file = 0;
    std::vector<char> suppressed;  // --suppress-matched: lines left out of every piece
    if (suppress) suppressed.assign(lines.size() + 1, 0);
    int64_t first = 1;    // the first line not yet written or skipped
    int64_t current = 0;  // the line searches start after

    // GNU csplit's stdout is block-buffered: the sizes come out at exit, after any message on stderr.
    auto fail = [&](const std::string& message) {
        if (!message.empty()) ctx.error(message);
        if (!keep)
            for (const std::string& name : created) (void)ctx.fs.remove(ctx.resolve(name));
        return out.status(1);
    };
    // Writes lines first..upto (inclusive) to the next piece; false when it could not be written.
    std::string write_error;
    auto piece = [&](int64_t upto) -> bool {
        const std::string name = prefix + format_suffix(suffix, next_file);
        OutputFile file;
        if (auto e = file.open_output(ctx, name); e != vfs::Errc::ok) {
            write_error = quote_name(name) + ": " + errstr(e);
            return false;
        }
        created.push_back(name);
        ++next_file;
        uint64_t bytes = 0;
        std::string chunk;
        for (int64_t i = first; i <= std::min(upto, total); ++i) {
            if (suppress && suppressed[static_cast<size_t>(i)]) continue;
            chunk.append(lines[static_cast<size_t>(i - 1)]);
            if (chunk.size() >= Output::kChunk) {
                if (ctx.cancelled()) return false;
                if (!file.stream()->write(chunk).ok()) {
                    write_error = quote_name(name) + ": write error";
                    return false;
                }
                bytes += chunk.size();
                chunk.clear();
            }
        }
        if (!chunk.empty() && !file.stream()->write(chunk).ok()) {
            write_error = quote_name(name) + ": write error";
            return false;
        }
        bytes += chunk.size();
        file.stream()->close();
        if (elide && bytes == 0) {
            (void)ctx.fs.remove(ctx.resolve(name));
            created.pop_back();
            --next_file;
        } else if (!quiet) {
            out.put(std::to_string(bytes) + "\n");
        }
        return true;
    };
    auto rest_then_fail = [&](const std::string& message) {
        if (first <= total && !piece(total)) return fail(write_error.empty() ? message : write_error);
        return fail(message);
    };

    if (total == 0) {  // GNU opens the first piece before it finds no line, and leaves it there
        if (!piece(0)) return fail(write_error);
        out.buffer().clear();
        created.clear();
        return fail("input disappeared");
    }
    for (const Control& c : controls) {
        const uint64_t runs = c.forever ? UINT64_MAX : c.repeat + 1;
        for (uint64_t rep = 0; rep < runs; ++rep) {
            if (ctx.cancelled()) return fail("interrupted");
            const std::string on_rep = rep ? " on repetition " + std::to_string(rep) : "";
            if (!c.is_regex) {
                const int64_t target = c.line * static_cast<int64_t>(rep + 1);
                if (target > total) {  // {*} included: a line number past the end is an error
                    return rest_then_fail(q(c.spelled) + ": line number out of range" + on_rep);
                }
                if (!piece(target - 1)) return fail(write_error);
                first = std::max(first, target);
                current = target - 1;
                if (suppress) {
                    suppressed[static_cast<size_t>(target)] = 1;
                }
                continue;
            }
            int64_t found = 0;
            for (int64_t i = current + 1; i <= total; ++i) {
                if ((i & 0xfff) == 0 && ctx.cancelled()) return fail("interrupted");
                std::string_view text = lines[static_cast<size_t>(i - 1)];
                if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
                if (c.re->search(text)) {
                    found = i;
                    break;
                }
            }
            if (!found) {
                if (c.forever) break;
                if (c.skip) return fail(q(c.spelled) + ": match not found" + on_rep);
                return rest_then_fail(q(c.spelled) + ": match not found" + on_rep);
            }
            const int64_t brk = found + c.offset;
            if (brk < first || brk > total + 1) {
                // GNU reports this one with error(), which flushes the sizes printed so far; the piece being
                // written (the rest of the input when the break is past its end, nothing when it is behind)
                // is closed after the message.
                out.flush();
                ctx.error(q(c.spelled) + ": line number out of range" + on_rep);
                if (!c.skip) {
                    if (brk <= total) first = total + 1;
                    if (!piece(total)) return fail(write_error);
                }
                return fail("");
            }
            if (!c.skip && !piece(brk - 1)) return fail(write_error);
            first = brk;
            current = std::max(found, brk);
            if (suppress && c.offset == 0) suppressed[static_cast<size_t>(found)] = 1;
        }
    }
    if (!piece(total)) return fail(write_error);
    return out.status(0);
}

}  // namespace bashkit::utils::text
