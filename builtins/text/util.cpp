#include "builtins/text/util.hpp"

#include <cerrno>
#include <cstring>

#include "builtins/common/args.hpp"

namespace bashkit::builtins::text {

std::string_view prog(const CommandContext& ctx) {
    return ctx.argv.empty() ? std::string_view("?") : std::string_view(ctx.argv[0]);
}

void try_help(CommandContext& ctx) {
    std::string m = "Try '";
    m += prog(ctx);
    m += " --help' for more information.\n";
    (void)ctx.err.write(m);
}

void usage_error(CommandContext& ctx, std::string_view message) {
    ctx.error(message);
    try_help(ctx);
}

int print_help(CommandContext& ctx, std::string_view usage) {
    std::string s = "Usage: ";
    s += prog(ctx);
    s += ' ';
    s += usage;
    if (s.back() != '\n') s += '\n';
    (void)ctx.out.write(s);
    return 0;
}

// ---------------------------------------------------------------------------------------------------------

bool parse_options(CommandContext& ctx, const OptionSpec& spec, std::vector<ParsedOpt>& opts,
                   std::vector<std::string>& operands) {
    // The utilities' one getopt_long (builtins/common/args.hpp) over the getopt-style short option string and
    // the long table, with --help and --version last (the order of an ambiguity message's possibilities).
    std::vector<builtins::OptionSpec> specs;
    for (size_t k = 0; k < spec.shortopts.size(); ++k) {
        const char c = spec.shortopts[k];
        if (c == ':') continue;
        builtins::ArgKind kind = builtins::ArgKind::none;
        if (k + 1 < spec.shortopts.size() && spec.shortopts[k + 1] == ':') {
            kind = builtins::ArgKind::required;
            if (k + 2 < spec.shortopts.size() && spec.shortopts[k + 2] == ':') kind = builtins::ArgKind::optional;
        }
        specs.push_back({static_cast<unsigned char>(c), c, {}, kind});
    }
    auto add_long = [&](const LongOpt& l) {
        const builtins::ArgKind kind = l.arg == Arg::none       ? builtins::ArgKind::none
                                       : l.arg == Arg::required ? builtins::ArgKind::required
                                                                : builtins::ArgKind::optional;
        specs.push_back({l.id, 0, l.name, kind});
    };
    for (const auto& l : spec.longopts) add_long(l);
    add_long({"help", Arg::none, kOptHelp});
    add_long({"version", Arg::none, kOptVersion});
    builtins::ParseConfig config;
    const bool permute = spec.permute && ctx.env.get("POSIXLY_CORRECT") == nullptr;
    config.mode = permute ? builtins::ParseMode::Permute : builtins::ParseMode::StopAtOperand;
    config.negative_numbers_are_operands = spec.stop_at_negative_number;
    builtins::ParsedArgs parsed = builtins::parse_args(ctx.argv, specs, config);
    if (!parsed.ok()) {
        usage_error(ctx, parsed.error);
        return false;
    }
    for (auto& o : parsed.options) opts.push_back({o.id, o.has_value, std::move(o.value)});
    for (auto& o : parsed.operands) operands.push_back(std::move(o));
    return true;
}

// ---------------------------------------------------------------------------------------------------------

bool parse_uint(std::string_view s, uint64_t& out) {
    if (s.empty()) return false;
    uint64_t v = 0;
    bool sat = false;
    for (char c : s) {
        if (c < '0' || c > '9') return false;
        if (!sat) {
            if (v > (UINT64_MAX - (c - '0')) / 10) sat = true;
            else v = v * 10 + (c - '0');
        }
    }
    out = sat ? UINT64_MAX : v;
    return true;
}

SizeParse parse_size_checked(std::string_view s, uint64_t& out, bool allow_suffix) {
    size_t i = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    if (i == 0) return SizeParse::invalid;
    uint64_t v;
    if (!parse_uint(s.substr(0, i), v)) return SizeParse::invalid;
    bool over = v == UINT64_MAX && s.substr(0, i) != "18446744073709551615";
    std::string_view suf = s.substr(i);
    uint64_t mult = 1;
    if (!suf.empty()) {
        if (!allow_suffix) return SizeParse::invalid;
        static constexpr std::string_view kUnits = "KMGTPEZYRQ";
        if (suf == "b") mult = 512;
        else {
            char u = suf[0];
            if (u == 'k') u = 'K';
            if (u == 'm') u = 'M';
            size_t p = kUnits.find(u);
            if (p == std::string_view::npos) return SizeParse::invalid;
            std::string_view rest = suf.substr(1);
            uint64_t base;
            if (rest.empty() || rest == "iB") base = 1024;
            else if (rest == "B") base = 1000;
            else return SizeParse::invalid;
            for (size_t k = 0; k <= p; ++k) {
                if (mult > UINT64_MAX / base) {
                    over = true;
                    mult = UINT64_MAX;
                    break;
                }
                mult *= base;
            }
        }
    }
    if (!over && v != 0 && mult > UINT64_MAX / v) over = true;
    if (over) {
        out = UINT64_MAX;
        return SizeParse::overflow;
    }
    out = v * mult;
    return SizeParse::ok;
}

bool parse_size(std::string_view s, uint64_t& out, bool allow_suffix) {
    SizeParse r = parse_size_checked(s, out, allow_suffix);
    return r != SizeParse::invalid;
}

}  // namespace bashkit::builtins::text
