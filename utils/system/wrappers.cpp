// nice and stdbuf (GNU coreutils): they run a command; the sandbox has no scheduler priority and no stdio
// buffers to change, so the options are checked like GNU checks them and then have no effect. nice with no
// command prints the session's niceness, which is always 0.
#include <string>

#include "utils/system/tools.hpp"
#include "utils/text/util.hpp"

namespace bashkit::utils::systemutil {

namespace {

bool parse_long(std::string_view s, long& out) {
    if (s.empty()) return false;
    size_t i = 0;
    bool neg = false;
    if (s[0] == '+' || s[0] == '-') neg = s[i++] == '-';
    if (i >= s.size()) return false;
    long v = 0;
    for (; i < s.size(); ++i) {
        if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
        if (v < 100000000) v = v * 10 + (s[i] - '0');
    }
    out = neg ? -v : v;
    return true;
}

}  // namespace

int cmd_nice(CommandContext& ctx) {
    // nice [-n N | -N | --adjustment=N] [COMMAND [ARG]...]; "-5" and "--5"-like words are the old syntax.
    std::vector<std::string> args(ctx.argv.begin(), ctx.argv.end());
    std::string adjustment;
    bool have_adj = false;
    size_t i = 1;
    for (; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a.size() > 1 && a[0] == '-' && (std::isdigit(static_cast<unsigned char>(a[1])) ||
                                            ((a[1] == '-' || a[1] == '+') && a.size() > 2 &&
                                             std::isdigit(static_cast<unsigned char>(a[2]))))) {
            adjustment = a.substr(1);
            have_adj = true;
            continue;
        }
        break;
    }
    static constexpr OptionSpec specs[] = {
        {'n', 'n', "adjustment", ArgKind::required}, {kOptHelp, 0, "help"}, {kOptVersion, 0, "version"}};
    std::vector<std::string> rest = {args[0]};
    rest.insert(rest.end(), args.begin() + static_cast<long>(i), args.end());
    ParseConfig cfg;
    cfg.mode = ParseMode::StopAtOperand;
    ParsedArgs p = parse_args(rest, specs, cfg);
    for (const auto& o : p.options) {
        if (o.id == kOptHelp)
            return write_out(ctx, "Usage: nice [OPTION] [COMMAND [ARG]...]\n"
                                  "Run COMMAND with an adjusted niceness, which affects process scheduling.\n"
                                  "With no COMMAND, print the current niceness.\n")
                       ? 0
                       : 1;
        if (o.id == kOptVersion) return write_out(ctx, "nice (GNU coreutils) 9.1\n") ? 0 : 1;
        if (o.id == 'n') {
            adjustment = o.value;
            have_adj = true;
        }
    }
    if (!p.ok()) return usage_error(ctx, p.error, 125);
    long adj = 0;
    if (have_adj && !parse_long(adjustment, adj)) {
        ctx.error("invalid adjustment " + quote(adjustment));
        return 125;
    }
    if (p.operands.empty()) {
        if (have_adj) return usage_error(ctx, "a command must be given with an adjustment", 125);
        return write_out(ctx, "0\n") ? 0 : 1;
    }
    ExecOptions eo;
    eo.prog = "nice";
    return exec_command(ctx, p.operands, eo);
}

int cmd_stdbuf(CommandContext& ctx) {
    static constexpr OptionSpec specs[] = {
        {'i', 'i', "input", ArgKind::required},
        {'o', 'o', "output", ArgKind::required},
        {'e', 'e', "error", ArgKind::required},
        {kOptHelp, 0, "help"},
        {kOptVersion, 0, "version"},
    };
    ParseConfig cfg;
    cfg.mode = ParseMode::StopAtOperand;
    ParsedArgs p = parse_args(ctx.argv, specs, cfg);
    bool any = false;
    for (const auto& o : p.options) {
        if (o.id == kOptHelp)
            return write_out(ctx, "Usage: stdbuf OPTION... COMMAND\n"
                                  "Run COMMAND, with modified buffering operations for its standard streams.\n")
                       ? 0
                       : 1;
        if (o.id == kOptVersion) return write_out(ctx, "stdbuf (GNU coreutils) 9.1\n") ? 0 : 1;
        if (o.id == 'i' || o.id == 'o' || o.id == 'e') {
            any = true;
            if (o.value == "L") {
                if (o.id == 'i') return usage_error(ctx, "line buffering stdin is meaningless", 125);
                continue;
            }
            uint64_t n = 0;
            if (!text::parse_size(o.value, n)) {
                ctx.error("invalid mode " + quote(o.value));
                return 125;
            }
        }
    }
    if (!p.ok()) return usage_error(ctx, p.error, 125);
    if (p.operands.empty()) return usage_error(ctx, "missing operand", 125);
    if (!any) return usage_error(ctx, "you must specify a buffering mode option", 125);
    ExecOptions eo;
    eo.prog = "stdbuf";
    eo.timeout_style = true;
    return exec_command(ctx, p.operands, eo);
}

}  // namespace bashkit::utils::systemutil
