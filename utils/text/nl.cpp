// nl: number lines, with logical pages (header/body/footer sections) as GNU nl.
#include <optional>

#include "utils/text/tools.hpp"
#include "interp/regex.hpp"

namespace bashkit::utils::text {

namespace {

struct Style {
    char kind = 'n';  // a t n p
    std::optional<interp::Regex> re;
};

bool parse_style(CommandContext& ctx, const std::string& v, const char* what, Style& s) {
    if (v == "a" || v == "t" || v == "n") {
        s.kind = v[0];
        s.re.reset();
        return true;
    }
    if (!v.empty() && v[0] == 'p') {
        auto re = interp::Regex::compile(std::string_view(v).substr(1), interp::RegexSyntax::kBasic);
        if (!re.ok()) {
            ctx.error(re.message());
            return false;
        }
        s.kind = 'p';
        s.re.emplace(std::move(re));
        return true;
    }
    usage_error(ctx, std::string("invalid ") + what + " numbering style: " + quote(v));
    return false;
}

bool parse_int(std::string_view s, int64_t& out) {
    bool neg = false;
    size_t i = 0;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
    uint64_t v;
    if (!parse_uint(s.substr(i), v) || v > static_cast<uint64_t>(INT64_MAX)) return false;
    out = neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
    return true;
}

}  // namespace

int cmd_nl(CommandContext& ctx) {
    static constexpr OptionSpec kLong[] = {
        {'b', 0, "body-numbering", ArgKind::required}, {'d', 0, "section-delimiter", ArgKind::required},
        {'f', 0, "footer-numbering", ArgKind::required}, {'h', 0, "header-numbering", ArgKind::required},
        {'i', 0, "line-increment", ArgKind::required}, {'l', 0, "join-blank-lines", ArgKind::required},
        {'n', 0, "number-format", ArgKind::required}, {'p', 0, "no-renumber"},
        {'s', 0, "number-separator", ArgKind::required}, {'v', 0, "starting-line-number", ArgKind::required},
        {'w', 0, "number-width", ArgKind::required},
    };
    std::vector<ParsedOption> opts;
    std::vector<std::string> files;
    if (!parse_getopt(ctx, "b:d:f:h:i:l:n:ps:v:w:", kLong, opts, files)) return 1;
    Style styles[3];  // header, body, footer
    styles[1].kind = 't';
    std::string delim = "\\:";
    int64_t incr = 1, start = 1, width = 6, join = 1;
    std::string format = "rn", sep = "\t";
    bool renumber = true;
    for (auto& o : opts) {
        switch (o.id) {
            case 'b': if (!parse_style(ctx, o.value, "body", styles[1])) return 1; break;
            case 'h': if (!parse_style(ctx, o.value, "header", styles[0])) return 1; break;
            case 'f': if (!parse_style(ctx, o.value, "footer", styles[2])) return 1; break;
            case 'd':
                delim = o.value;
                if (delim.size() == 1) delim += ':';
                break;
            case 'i':
                if (!parse_int(o.value, incr)) {
                    ctx.error("invalid line number increment: " + quote(o.value));
                    return 1;
                }
                break;
            case 'l':
                if (!parse_int(o.value, join) || join < 1) {
                    ctx.error("invalid line number of blank lines: " + quote(o.value));
                    return 1;
                }
                break;
            case 'n':
                if (o.value != "ln" && o.value != "rn" && o.value != "rz") {
                    usage_error(ctx, "invalid line numbering format: " + quote(o.value));
                    return 1;
                }
                format = o.value;
                break;
            case 'p': renumber = false; break;
            case 's': sep = o.value; break;
            case 'v':
                if (!parse_int(o.value, start)) {
                    ctx.error("invalid starting line number: " + quote(o.value));
                    return 1;
                }
                break;
            case 'w':
                if (!parse_int(o.value, width) || width < 1 || width > (1 << 20)) {
                    ctx.error("invalid line number field width: " + quote(o.value) + ": Numerical result out of range");
                    return 1;
                }
                break;
            case kOptHelp:
                return print_help(ctx, "[OPTION]... [FILE]...\nWrite each FILE to standard output, with line numbers added.\n");
            case kOptVersion: return version(ctx);
        }
    }
    if (files.empty()) files.push_back("-");
    Output out(ctx);
    int64_t lineno = start;
    int section = 1;
    int64_t blank_run = 0;
    std::string blank_prefix(static_cast<size_t>(width) + sep.size(), ' ');
    std::string d1 = delim, d2 = delim + delim, d3 = delim + delim + delim;
    char b[64];
    const int status = for_each_line(ctx, out, files, [&](std::string_view line, bool) {
        if (!delim.empty() && (line == d3 || line == d2 || line == d1)) {
            section = line == d3 ? 0 : line == d2 ? 1 : 2;
            if (renumber) lineno = start;
            out.put('\n');
            blank_run = 0;
            return;
        }
        const Style& st = styles[section];
        bool number = false;
        switch (st.kind) {
            case 'a':
                if (line.empty()) {
                    ++blank_run;
                    if (blank_run >= join) {
                        number = true;
                        blank_run = 0;
                    }
                } else {
                    blank_run = 0;
                    number = true;
                }
                break;
            case 't': number = !line.empty(); break;
            case 'p': number = st.re->search(line); break;
            default: break;
        }
        if (number) {
            int n;
            auto v = static_cast<long long>(lineno);
            int w = static_cast<int>(width);
            if (format == "ln") n = std::snprintf(b, sizeof b, "%-*lld", w, v);
            else if (format == "rz") n = std::snprintf(b, sizeof b, "%0*lld", w, v);
            else n = std::snprintf(b, sizeof b, "%*lld", w, v);
            if (n >= static_cast<int>(sizeof b)) {
                std::string big(static_cast<size_t>(n) + 1, '\0');
                if (format == "ln") std::snprintf(big.data(), big.size(), "%-*lld", w, v);
                else if (format == "rz") std::snprintf(big.data(), big.size(), "%0*lld", w, v);
                else std::snprintf(big.data(), big.size(), "%*lld", w, v);
                big.resize(static_cast<size_t>(n));
                out.put(big);
            } else {
                out.put(std::string_view(b, static_cast<size_t>(n)));
            }
            out.put(sep);
            lineno += incr;
        } else {
            out.put(blank_prefix);
        }
        out.put(line);
        out.put('\n');
    });
    return out.status(status);
}

}  // namespace bashkit::utils::text
