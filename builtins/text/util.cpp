#include "builtins/text/util.hpp"

#include <cerrno>
#include <cstring>

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
    static constexpr LongOpt kStd[] = {{"help", Arg::none, kOptHelp}, {"version", Arg::none, kOptVersion}};
    std::vector<LongOpt> longs(spec.longopts.begin(), spec.longopts.end());
    longs.insert(longs.end(), std::begin(kStd), std::end(kStd));
    bool permute = spec.permute && ctx.env.get("POSIXLY_CORRECT") == nullptr;
    const auto& argv = ctx.argv;
    size_t i = 1;
    auto short_kind = [&](char c, Arg& kind) {
        if (c == ':') return false;
        size_t p = spec.shortopts.find(c);
        if (p == std::string_view::npos) return false;
        kind = Arg::none;
        if (p + 1 < spec.shortopts.size() && spec.shortopts[p + 1] == ':') {
            kind = Arg::required;
            if (p + 2 < spec.shortopts.size() && spec.shortopts[p + 2] == ':') kind = Arg::optional;
        }
        return true;
    };
    auto fail = [&](const std::string& msg) {
        usage_error(ctx, msg);
        return false;
    };
    while (i < argv.size()) {
        const std::string& a = argv[i];
        if (a == "--") {
            for (++i; i < argv.size(); ++i) operands.push_back(argv[i]);
            break;
        }
        bool negnum = spec.stop_at_negative_number && a.size() >= 2 && a[0] == '-' &&
                      (a[1] == '.' || (a[1] >= '0' && a[1] <= '9'));
        if (a.size() < 2 || a[0] != '-' || negnum) {
            if (!permute) {
                for (; i < argv.size(); ++i) operands.push_back(argv[i]);
                break;
            }
            operands.push_back(a);
            ++i;
            continue;
        }
        if (a[1] == '-') {
            std::string_view body(a);
            body.remove_prefix(2);
            std::string_view name = body, value;
            bool has_eq = false;
            if (auto eq = body.find('='); eq != std::string_view::npos) {
                name = body.substr(0, eq);
                value = body.substr(eq + 1);
                has_eq = true;
            }
            const LongOpt* hit = nullptr;
            std::vector<const LongOpt*> cands;
            for (const auto& l : longs) {
                if (l.name == name) {
                    hit = &l;
                    break;
                }
                if (l.name.substr(0, name.size()) == name) {
                    bool dup = false;
                    for (auto* c : cands)
                        if (c->id == l.id && c->arg == l.arg) dup = true;
                    if (!dup) cands.push_back(&l);
                }
            }
            if (!hit) {
                if (cands.size() == 1) hit = cands[0];
                else if (cands.empty()) return fail("unrecognized option '" + a + "'");
                else {
                    std::string m = "option '--" + std::string(name) + "' is ambiguous; possibilities:";
                    for (auto* c : cands) m += " '--" + std::string(c->name) + "'";
                    return fail(m);
                }
            }
            ParsedOpt o;
            o.id = hit->id;
            if (hit->arg == Arg::none && has_eq)
                return fail("option '--" + std::string(hit->name) + "' doesn't allow an argument");
            if (has_eq) {
                o.has_value = true;
                o.value = std::string(value);
            } else if (hit->arg == Arg::required) {
                if (i + 1 >= argv.size())
                    return fail("option '--" + std::string(hit->name) + "' requires an argument");
                o.has_value = true;
                o.value = argv[++i];
            }
            opts.push_back(std::move(o));
            ++i;
            continue;
        }
        // Bundled short options.
        size_t j = 1;
        while (j < a.size()) {
            char c = a[j];
            Arg kind;
            if (!short_kind(c, kind)) {
                std::string m = "invalid option -- '";
                m += c;
                m += "'";
                return fail(m);
            }
            ParsedOpt o;
            o.id = static_cast<unsigned char>(c);
            if (kind == Arg::none) {
                opts.push_back(std::move(o));
                ++j;
                continue;
            }
            if (j + 1 < a.size()) {
                o.has_value = true;
                o.value = a.substr(j + 1);
            } else if (kind == Arg::required) {
                if (i + 1 >= argv.size()) {
                    std::string m = "option requires an argument -- '";
                    m += c;
                    m += "'";
                    return fail(m);
                }
                o.has_value = true;
                o.value = argv[++i];
            }
            opts.push_back(std::move(o));
            break;
        }
        ++i;
    }
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
