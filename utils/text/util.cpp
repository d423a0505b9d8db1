#include "utils/text/util.hpp"

#include <cerrno>
#include <cstring>


namespace bashkit::utils::text {

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

}  // namespace bashkit::utils::text
