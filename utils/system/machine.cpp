// tput, free, uptime and uuidgen: answers about a machine the sandbox does not expose.
//
// - tput answers from a built-in copy of the xterm and xterm-256color terminfo entries (what ncurses prints for
//   the capabilities scripts use: colours, bold, underline, cursor moves, clear), and the dumb terminal;
//   no terminal is attached, so cols/lines are terminfo's 80 and 24 and init/reset fail as they do without one.
// - free shows the session's memory budget: total is ExecutionLimits::max_memory_bytes, used what the session
//   holds on it, no swap, no caches.
// - uptime shows the session's clock, an uptime of 0, no user and no load.
// - uuidgen makes random (version 4) UUIDs, or time-based (version 1) ones with a random node.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "utils/system/tools.hpp"
#include "utils/text/util.hpp"

namespace bashkit::utils::systemutil {

namespace {

// ---------------------------------------------------------------------------------------------------------
// tput

struct Cap {
    std::string_view name;
    std::string_view value;  // string capability; "%p1" marks the parameters handled in code
};

constexpr Cap kXterm[] = {
    {"sgr0", "\x1b(B\x1b[m"}, {"bold", "\x1b[1m"}, {"dim", "\x1b[2m"}, {"smul", "\x1b[4m"}, {"rmul", "\x1b[24m"},
    {"rev", "\x1b[7m"}, {"el", "\x1b[K"}, {"el1", "\x1b[1K"}, {"ed", "\x1b[J"}, {"clear", "\x1b[H\x1b[2J\x1b[3J"},
    {"civis", "\x1b[?25l"}, {"cnorm", "\x1b[?12l\x1b[?25h"}, {"cvvis", "\x1b[?12;25h"}, {"smso", "\x1b[7m"},
    {"rmso", "\x1b[27m"}, {"sitm", "\x1b[3m"}, {"ritm", "\x1b[23m"}, {"blink", "\x1b[5m"}, {"op", "\x1b[39;49m"},
    {"cuu1", "\x1b[A"}, {"cud1", "\n"}, {"cub1", "\b"}, {"cuf1", "\x1b[C"}, {"home", "\x1b[H"}, {"bel", "\a"},
    {"smcup", "\x1b[?1049h\x1b[22;0;0t"}, {"rmcup", "\x1b[?1049l\x1b[23;0;0t"}, {"sc", "\x1b""7"}, {"rc", "\x1b""8"},
    {"invis", "\x1b[8m"}, {"smam", "\x1b[?7h"}, {"rmam", "\x1b[?7l"}, {"cr", "\r"}, {"ind", "\n"}, {"ri", "\x1bM"},
    {"ht", "\t"}, {"il1", "\x1b[L"}, {"dl1", "\x1b[M"}, {"dch1", "\x1b[P"}, {"smkx", "\x1b[?1h\x1b="},
    {"rmkx", "\x1b[?1l\x1b>"},
};

int cmd_tput_one(CommandContext& ctx, std::string_view term, const std::vector<std::string>& a, size_t& i,
                 std::string& out) {
    const std::string& cap = a[i++];
    auto num = [&](int& v) -> bool {
        if (i >= a.size()) {
            v = 0;
            return true;
        }
        v = std::atoi(a[i++].c_str());
        return true;
    };
    const bool dumb = term == "dumb";
    const bool c256 = term == "xterm-256color";
    if (cap == "cols") return out += "80\n", 0;
    if (cap == "lines") return out += "24\n", 0;
    if (cap == "colors") return out += dumb ? "-1\n" : c256 ? "256\n" : "8\n", 0;
    if (cap == "longname") {
        out += dumb ? "80-column dumb tty" : c256 ? "xterm with 256 colors" : "xterm terminal emulator (X Window System)";
        return 0;
    }
    if (cap == "init" || cap == "reset") {
        ctx.error("terminal attributes: No such device or address");
        (void)ctx.err.write("\n");
        return 10;
    }
    if (cap == "am") return 0;
    if (cap == "hs") return 1;
    if (dumb) {
        if (cap == "clear") return 2;
        return 1;
    }
    if (cap == "setaf" || cap == "setab" || cap == "setf" || cap == "setb") {
        int n;
        num(n);
        const bool fg = cap == "setaf" || cap == "setf";
        const std::string base = fg ? "3" : "4";
        if (!c256 || n < 8)
            out += "\x1b[" + base + std::to_string(n) + "m";
        else if (n < 16)
            out += "\x1b[" + std::string(fg ? "9" : "10") + std::to_string(n - 8) + "m";
        else
            out += "\x1b[" + base + "8;5;" + std::to_string(n) + "m";
        return 0;
    }
    if (cap == "cup") {
        int r, c;
        num(r);
        num(c);
        out += "\x1b[" + std::to_string(r + 1) + ";" + std::to_string(c + 1) + "H";
        return 0;
    }
    if (cap == "hpa" || cap == "vpa") {
        int n;
        num(n);
        out += "\x1b[" + std::to_string(n + 1) + (cap == "hpa" ? "G" : "d");
        return 0;
    }
    if (cap == "cuu" || cap == "cud" || cap == "cuf" || cap == "cub" || cap == "ech" || cap == "dch" ||
        cap == "il" || cap == "dl") {
        int n;
        num(n);
        const char* f = cap == "cuu" ? "A" : cap == "cud" ? "B" : cap == "cuf" ? "C" : cap == "cub" ? "D"
                        : cap == "ech" ? "X" : cap == "dch" ? "P" : cap == "il" ? "L" : "M";
        out += "\x1b[" + std::to_string(n) + f;
        return 0;
    }
    for (const auto& c : kXterm)
        if (c.name == cap) {
            out += c.value;
            return 0;
        }
    ctx.error("unknown terminfo capability " + quote(cap));
    return 4;
}

}  // namespace

int cmd_tput(CommandContext& ctx) {
    std::vector<std::string> a(ctx.argv.begin() + 1, ctx.argv.end());
    std::string term;
    bool from_stdin = false;
    size_t i = 0;
    for (; i < a.size() && a[i].size() > 1 && a[i][0] == '-'; ++i) {
        if (a[i] == "-S") from_stdin = true;
        else if (a[i] == "-x") continue;
        else if (a[i] == "-V") return write_out(ctx, "ncurses 6.4.20221231\n") ? 0 : 1;
        else if (a[i].rfind("-T", 0) == 0) {
            if (a[i].size() > 2) term = a[i].substr(2);
            else if (i + 1 < a.size()) term = a[++i];
        } else break;
    }
    if (term.empty()) {
        if (const std::string* t = ctx.env.get("TERM")) term = *t;
    }
    if (term.empty()) {
        ctx.error("No value for $TERM and no -T specified");
        return 2;
    }
    if (term != "xterm" && term != "xterm-256color" && term != "dumb") {
        ctx.error("unknown terminal \"" + term + "\"");
        return 3;
    }
    std::vector<std::string> caps(a.begin() + static_cast<long>(i), a.end());
    if (from_stdin) {
        text::Input in;
        in.open_stdin(ctx);
        text::LineReader r(in);
        std::string_view line;
        caps.clear();
        while (r.next(line)) {
            if (ctx.cancelled()) return 130;
            size_t p = 0;
            while (p < line.size()) {
                while (p < line.size() && line[p] == ' ') ++p;
                size_t e = p;
                while (e < line.size() && line[e] != ' ') ++e;
                if (e > p) caps.emplace_back(line.substr(p, e - p));
                p = e;
            }
        }
    }
    if (caps.empty()) {
        (void)ctx.err.write("Usage: tput [options] [command]\n");
        return 2;
    }
    std::string out;
    int status = 0;
    size_t k = 0;
    while (k < caps.size()) {
        status = cmd_tput_one(ctx, term, caps, k, out);
        if (status == 4 || status == 10) break;
    }
    if (!out.empty() && !write_out(ctx, out)) return 1;
    return status;
}

// ---------------------------------------------------------------------------------------------------------
// free

int cmd_free(CommandContext& ctx) {
    static constexpr OptionSpec specs[] = {
        {'b', 'b', "bytes"}, {'k', 'k', "kibi"}, {'m', 'm', "mebi"}, {'g', 'g', "gibi"},
        {'h', 'h', "human"}, {'t', 't', "total"}, {'w', 'w', "wide"}, {kOptHelp, 0, "help"},
        {'V', 'V', "version"},
    };
    ParsedArgs p = parse_args(ctx.argv, specs);
    char unit = 'k';
    bool total = false, wide = false;
    for (const auto& o : p.options) {
        switch (o.id) {
            case 'b': case 'k': case 'm': case 'g': case 'h': unit = static_cast<char>(o.id); break;
            case 't': total = true; break;
            case 'w': wide = true; break;
            case 'V': return write_out(ctx, "free from procps-ng 4.0.2\n") ? 0 : 1;
            case kOptHelp:
                return write_out(ctx, "\nUsage:\n free [options]\n\nOptions:\n -b, --bytes  show output in bytes\n"
                                      " -k, --kibi   show output in kibibytes\n -m, --mebi   show output in mebibytes\n"
                                      " -g, --gibi   show output in gibibytes\n -h, --human  show human-readable output\n"
                                      " -t, --total  show total for RAM + swap\n -w, --wide   wide output\n")
                           ? 0
                           : 1;
        }
    }
    if (!p.ok()) {
        ctx.error(p.error);
        (void)ctx.err.write("\nUsage:\n free [options]\n");
        return 1;
    }
    if (!p.operands.empty()) {
        ctx.error("extra operand " + quote(p.operands[0]));
        return 1;
    }
    const uint64_t total_b = ctx.memory && ctx.memory->limit() ? ctx.memory->limit() : ctx.limits.max_memory_bytes;
    const uint64_t used_b = ctx.memory ? ctx.memory->used() : 0;
    auto fmt = [&](uint64_t bytes) -> std::string {
        char buf[32];
        switch (unit) {
            case 'b': return std::to_string(bytes);
            case 'm': return std::to_string(bytes >> 20);
            case 'g': return std::to_string(bytes >> 30);
            case 'h': {
                static const char* units[] = {"B", "Ki", "Mi", "Gi", "Ti", "Pi"};
                double v = static_cast<double>(bytes);
                int u = 0;
                while (v >= 1024 && u < 5) {
                    v /= 1024;
                    ++u;
                }
                if (u == 0) std::snprintf(buf, sizeof buf, "%" PRIu64 "B", bytes);
                else if (v < 10) std::snprintf(buf, sizeof buf, "%.1f%s", v, units[u]);
                else std::snprintf(buf, sizeof buf, "%.0f%s", static_cast<double>(static_cast<uint64_t>(v)), units[u]);
                return buf;
            }
            default: return std::to_string(bytes >> 10);
        }
    };
    auto col = [](const std::string& s) { return std::string(s.size() < 12 ? 12 - s.size() : 0, ' ') + s; };
    auto label = [](std::string_view s) { return std::string(s) + std::string(8 - s.size(), ' '); };
    std::string out = label("");
    for (const char* h : {"total", "used", "free", "shared"}) out += col(h);
    if (wide) out += col("buffers") + col("cache");
    else out += col("buff/cache");
    out += col("available") + "\n";
    out += label("Mem:") + col(fmt(total_b)) + col(fmt(used_b)) + col(fmt(total_b - used_b)) + col(fmt(0));
    if (wide) out += col(fmt(0));
    out += col(fmt(0)) + col(fmt(total_b - used_b)) + "\n";
    out += label("Swap:") + col(fmt(0)) + col(fmt(0)) + col(fmt(0)) + "\n";
    if (total) out += label("Total:") + col(fmt(total_b)) + col(fmt(used_b)) + col(fmt(total_b - used_b)) + "\n";
    return write_out(ctx, out) ? 0 : 1;
}

// ---------------------------------------------------------------------------------------------------------
// uptime

int cmd_uptime(CommandContext& ctx) {
    static constexpr OptionSpec specs[] = {
        {'p', 'p', "pretty"}, {'s', 's', "since"}, {'h', 'h', "help"}, {'V', 'V', "version"}};
    ParsedArgs p = parse_args(ctx.argv, specs);
    bool pretty = false, since = false;
    for (const auto& o : p.options) {
        if (o.id == 'p') pretty = true;
        if (o.id == 's') since = true;
        if (o.id == 'V') return write_out(ctx, "uptime from procps-ng 4.0.2\n") ? 0 : 1;
        if (o.id == 'h')
            return write_out(ctx, "\nUsage:\n uptime [options]\n\nOptions:\n -p, --pretty   show uptime in pretty format\n"
                                  " -h, --help     display this help and exit\n -s, --since    system up since\n")
                       ? 0
                       : 1;
    }
    if (!p.ok() || !p.operands.empty()) {
        if (!p.ok()) ctx.error(p.error);
        (void)ctx.err.write("\nUsage:\n uptime [options]\n");
        return 1;
    }
    const vfs::TimeSpec now = ctx.clock.now();
    const TimeZone tz = TimeZone::from_tz(ctx.env.get("TZ"), &ctx.fs);
    const LocalTime t = tz.local(now.sec);
    if (pretty) return write_out(ctx, "up 0 minutes\n") ? 0 : 1;
    if (since) return write_out(ctx, format_time("%Y-%m-%d %H:%M:%S\n", t)) ? 0 : 1;
    return write_out(ctx, format_time(" %H:%M:%S", t) + " up 0 min,  0 user,  load average: 0.00, 0.00, 0.00\n") ? 0
                                                                                                                 : 1;
}

// ---------------------------------------------------------------------------------------------------------
// uuidgen

int cmd_uuidgen(CommandContext& ctx) {
    static constexpr OptionSpec specs[] = {
        {'r', 'r', "random"}, {'t', 't', "time"}, {'x', 'x', "hex"}, {'h', 'h', "help"}, {'V', 'V', "version"}};
    ParsedArgs p = parse_args(ctx.argv, specs);
    bool time_based = false;
    for (const auto& o : p.options) {
        if (o.id == 't') time_based = true;
        if (o.id == 'r') time_based = false;
        if (o.id == 'V') return write_out(ctx, "uuidgen from util-linux 2.38.1\n") ? 0 : 1;
        if (o.id == 'h')
            return write_out(ctx, "\nUsage:\n uuidgen [options]\n\nOptions:\n -r, --random     generate random-based uuid\n"
                                  " -t, --time       generate time-based uuid\n")
                       ? 0
                       : 1;
    }
    if (!p.ok()) return usage_error(ctx, p.error, 1);
    if (!p.operands.empty()) {
        ctx.error("unexpected argument: " + p.operands[0]);
        return 1;
    }
    static thread_local std::mt19937_64 gen{std::random_device{}()};
    unsigned char b[16];
    for (auto& x : b) x = static_cast<unsigned char>(gen());
    if (time_based) {
        // 100 ns intervals since 1582-10-15.
        const vfs::TimeSpec now = ctx.clock.now();
        const uint64_t ts = static_cast<uint64_t>(now.sec) * 10000000ULL + static_cast<uint64_t>(now.nsec) / 100 +
                            0x01B21DD213814000ULL;
        const uint32_t low = static_cast<uint32_t>(ts);
        const uint16_t mid = static_cast<uint16_t>(ts >> 32);
        const uint16_t hi = static_cast<uint16_t>((ts >> 48) & 0x0fff) | 0x1000;
        b[0] = static_cast<unsigned char>(low >> 24);
        b[1] = static_cast<unsigned char>(low >> 16);
        b[2] = static_cast<unsigned char>(low >> 8);
        b[3] = static_cast<unsigned char>(low);
        b[4] = static_cast<unsigned char>(mid >> 8);
        b[5] = static_cast<unsigned char>(mid);
        b[6] = static_cast<unsigned char>(hi >> 8);
        b[7] = static_cast<unsigned char>(hi);
        b[10] |= 0x01;  // a random node is marked multicast (RFC 4122 4.5)
    } else {
        b[6] = static_cast<unsigned char>((b[6] & 0x0f) | 0x40);
    }
    b[8] = static_cast<unsigned char>((b[8] & 0x3f) | 0x80);
    char out[40];
    std::snprintf(out, sizeof out, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x\n", b[0],
                  b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    return write_out(ctx, out) ? 0 : 1;
}

}  // namespace bashkit::utils::systemutil

namespace bashkit::utils::systemutil {

// who, users and w: nobody is logged in to the sandbox (as in a container without utmp).
int cmd_who(CommandContext& ctx) {
    if (ctx.argv.size() > 1 && ctx.argv[1] == "--version") return write_out(ctx, "who (GNU coreutils) 9.1\n") ? 0 : 1;
    return 0;
}

int cmd_users(CommandContext& ctx) {
    if (ctx.argv.size() > 2) return usage_error(ctx, "extra operand " + quote(ctx.argv[2]));
    return 0;
}

int cmd_w(CommandContext& ctx) {
    const TimeZone tz = TimeZone::from_tz(ctx.env.get("TZ"), &ctx.fs);
    const LocalTime t = tz.local(ctx.clock.now().sec);
    bool header = true;
    for (size_t i = 1; i < ctx.argv.size(); ++i)
        if (ctx.argv[i] == "-h" || ctx.argv[i] == "--no-header") header = false;
    std::string out;
    if (header) {
        out = format_time(" %H:%M:%S", t) + " up 0 min,  0 user,  load average: 0.00, 0.00, 0.00\n";
        out += "USER     TTY      FROM             LOGIN@   IDLE   JCPU   PCPU WHAT\n";
    }
    return write_out(ctx, out) ? 0 : 1;
}

}  // namespace bashkit::utils::systemutil

namespace bashkit::utils::systemutil {

// ps: the session is one shell; its background jobs are not visible to utilities, so ps shows the shell
// ($$ of the session's Identity) and itself. Options are accepted and ignored except -h/--no-headers.
int cmd_ps(CommandContext& ctx) {
    bool header = true;
    for (size_t i = 1; i < ctx.argv.size(); ++i)
        if (ctx.argv[i] == "--no-headers" || ctx.argv[i] == "h") header = false;
    const int64_t pid = ctx.identity ? ctx.identity->pid : 1000;
    char line[96];
    std::string out;
    if (header) out = "    PID TTY          TIME CMD\n";
    std::snprintf(line, sizeof line, "%7lld ?        00:00:00 bash\n", static_cast<long long>(pid));
    out += line;
    // The background jobs, as pgrep sees them; ps's own pid follows the largest one.
    int64_t last = pid;
    for (const JobProcess& j : job_processes(ctx)) {
        std::snprintf(line, sizeof line, "%7lld ?        00:00:00 ", static_cast<long long>(j.pid));
        out += line;
        out += j.name + "\n";
        last = std::max(last, j.pid);
    }
    std::snprintf(line, sizeof line, "%7lld ?        00:00:00 ps\n", static_cast<long long>(last + 1));
    out += line;
    return write_out(ctx, out) ? 0 : 1;
}

}  // namespace bashkit::utils::systemutil
