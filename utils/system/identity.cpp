// Who and where: which, whoami, id, groups, logname, hostname, uname, arch, nproc, tty, true, false.
//
// Every value is virtual: the session's Identity (user, host, uid, gid) and fixed machine values (Linux,
// x86_64, one processor: commands run one at a time, see xargs -P). which looks the virtual PATH up in the
// FileSystem; the in-process utilities have no files, so a registered utility counts as present in /usr/bin
// and in /bin (a merged-/usr Debian has both), as do the shell builtins that coreutils also ships as
// programs (echo, printf, test, [, kill, pwd, true, false).
#include "utils/system/tools.hpp"
#include "utils/text/util.hpp"

namespace bashkit::utils::systemutil {

namespace {

constexpr std::string_view kSysname = "Linux";
constexpr std::string_view kRelease = "6.1.0-bashkit";
constexpr std::string_view kVersion = "#1 SMP PREEMPT_DYNAMIC bashkit";
constexpr std::string_view kMachine = "x86_64";
constexpr std::string_view kOs = "GNU/Linux";

const interp::Identity& identity(const CommandContext& ctx) {
    static const interp::Identity fallback;
    return ctx.identity ? *ctx.identity : fallback;
}

// Options only --help / --version; anything else is a usage error.
bool simple_options(CommandContext& ctx, std::string_view help, int& status, std::vector<std::string>& operands,
                    int bad_status = 1) {
    static constexpr OptionSpec specs[] = {{kOptHelp, 0, "help"}, {kOptVersion, 0, "version"}};
    ParsedArgs p = parse_args(ctx.argv, specs);
    for (const auto& o : p.options) {
        if (o.id == kOptHelp) {
            status = write_out(ctx, help) ? 0 : 1;
            return false;
        }
        if (o.id == kOptVersion) {
            status = write_out(ctx, ctx.argv[0] + " (bashkit) 1.0\n") ? 0 : 1;
            return false;
        }
    }
    if (!p.ok()) {
        status = usage_error(ctx, p.error, bad_status);
        return false;
    }
    operands = std::move(p.operands);
    return true;
}

bool program_builtin(std::string_view name) {
    for (std::string_view n : {"echo", "printf", "test", "[", "kill", "pwd", "true", "false"})
        if (n == name) return true;
    return false;
}

}  // namespace

int cmd_which(CommandContext& ctx) {
    // debianutils which: getopts "a"; the usage goes to stdout.
    bool all = false;
    size_t i = 1;
    for (; i < ctx.argv.size(); ++i) {
        const std::string& a = ctx.argv[i];
        if (a == "--") {
            ++i;
            break;
        }
        if (a.size() < 2 || a[0] != '-') break;
        for (size_t k = 1; k < a.size(); ++k) {
            if (a[k] != 'a') {
                (void)ctx.err.write("Illegal option -" + std::string(1, a[k]) + "\n");
                (void)write_out(ctx, "Usage: /usr/bin/which [-a] args\n");
                return 2;
            }
            all = true;
        }
    }
    int status = i < ctx.argv.size() ? 0 : 1;
    const std::string* pathv = ctx.env.get("PATH");
    std::string path = pathv ? *pathv : std::string();
    if (!path.empty() && path.back() == ':') path.push_back(':');
    std::string out;
    auto executable = [&](const std::string& p) {
        auto st = ctx.fs.stat(ctx.resolve(p));
        return st && st->is_regular() && (st->mode & 0111);
    };
    for (; i < ctx.argv.size(); ++i) {
        const std::string& name = ctx.argv[i];
        bool found = false;
        if (name.find('/') != std::string::npos) {
            if (executable(name)) {
                out += name + "\n";
                found = true;
            }
        } else if (!name.empty()) {
            bool virtual_program = program_builtin(name);
            if (!virtual_program && ctx.runner) {
                interp::CommandKind k = ctx.runner->find_command(name, false, nullptr);
                virtual_program = k == interp::CommandKind::utility;
            }
            size_t start = 0;
            while (start <= path.size()) {
                size_t colon = path.find(':', start);
                std::string dir = path.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
                if (dir.empty()) dir = ".";
                std::string cand = dir + "/" + name;
                if (executable(cand) || (virtual_program && (dir == "/usr/bin" || dir == "/bin"))) {
                    out += cand + "\n";
                    found = true;
                    if (!all) break;
                }
                if (colon == std::string::npos) break;
                start = colon + 1;
            }
        }
        if (!found) status = 1;
    }
    if (!write_out(ctx, out)) return 1;
    return status;
}

int cmd_whoami(CommandContext& ctx) {
    int st = 0;
    std::vector<std::string> ops;
    if (!simple_options(ctx, "Usage: whoami [OPTION]...\nPrint the user name associated with the current effective user ID.\n", st, ops))
        return st;
    if (!ops.empty()) return usage_error(ctx, "extra operand " + quote(ops[0]));
    return write_out(ctx, identity(ctx).user + "\n") ? 0 : 1;
}

int cmd_logname(CommandContext& ctx) {
    int st = 0;
    std::vector<std::string> ops;
    if (!simple_options(ctx, "Usage: logname [OPTION]\nPrint the user's login name.\n", st, ops)) return st;
    if (!ops.empty()) return usage_error(ctx, "extra operand " + quote(ops[0]));
    return write_out(ctx, identity(ctx).user + "\n") ? 0 : 1;
}

int cmd_groups(CommandContext& ctx) {
    int st = 0;
    std::vector<std::string> ops;
    if (!simple_options(ctx, "Usage: groups [OPTION]... [USERNAME]...\nPrint group memberships for each USERNAME.\n", st, ops))
        return st;
    const interp::Identity& id = identity(ctx);
    if (ops.empty()) return write_out(ctx, id.user + "\n") ? 0 : 1;
    std::string out;
    int status = 0;
    for (const std::string& u : ops) {
        if (u == id.user) {
            out += u + " : " + id.user + "\n";
        } else if (u == "root") {
            out += "root : root\n";
        } else {
            ctx.error(quote(u) + ": no such user");
            status = 1;
        }
    }
    if (!write_out(ctx, out)) return 1;
    return status;
}

int cmd_id(CommandContext& ctx) {
    static constexpr OptionSpec specs[] = {
        {'u', 'u', "user"}, {'g', 'g', "group"}, {'G', 'G', "groups"}, {'n', 'n', "name"},
        {'r', 'r', "real"}, {'z', 'z', "zero"},   {'a', 'a', {}},       {kOptHelp, 0, "help"},
        {kOptVersion, 0, "version"},
    };
    ParsedArgs p = parse_args(ctx.argv, specs);
    bool u = false, g = false, G = false, n = false, r = false, z = false;
    for (const auto& o : p.options) {
        switch (o.id) {
            case kOptHelp:
                return write_out(ctx,
                                 "Usage: id [OPTION]... [USER]...\n"
                                 "Print user and group information for each specified USER,\n"
                                 "or (when USER omitted) for the current process.\n")
                           ? 0
                           : 1;
            case kOptVersion: return write_out(ctx, "id (bashkit) 1.0\n") ? 0 : 1;
            case 'u': u = true; break;
            case 'g': g = true; break;
            case 'G': G = true; break;
            case 'n': n = true; break;
            case 'r': r = true; break;
            case 'z': z = true; break;
            default: break;
        }
    }
    if (!p.ok()) return usage_error(ctx, p.error);
    if (u + g + G > 1) {
        ctx.error("cannot print \"only\" of more than one choice");
        return 1;
    }
    if (!(u || g || G) && (n || r)) {
        ctx.error("cannot print only names or real IDs in default format");
        return 1;
    }
    if (z && !(u || g || G)) {
        ctx.error("option --zero not permitted in default format");
        return 1;
    }
    const interp::Identity& id = identity(ctx);
    struct Who {
        std::string user, group;
        uint32_t uid, gid;
    };
    std::vector<Who> who;
    int status = 0;
    if (p.operands.empty()) {
        who.push_back({id.user, id.user, id.uid, id.gid});
    } else {
        for (const std::string& name : p.operands) {
            if (name == id.user || name == std::to_string(id.uid))
                who.push_back({id.user, id.user, id.uid, id.gid});
            else if (name == "root" || name == "0")
                who.push_back({"root", "root", 0, 0});
            else {
                ctx.error(quote(name) + ": no such user");
                status = 1;
            }
        }
    }
    std::string out;
    const char end = z ? '\0' : '\n';
    for (const Who& w : who) {
        if (u) {
            out += n ? w.user : std::to_string(w.uid);
            out.push_back(end);
        } else if (g || G) {
            out += n ? w.group : std::to_string(w.gid);
            out.push_back(G && z ? '\0' : end);
            if (G && z) out.push_back('\0');
        } else {
            out += "uid=" + std::to_string(w.uid) + "(" + w.user + ") gid=" + std::to_string(w.gid) + "(" + w.group +
                   ") groups=" + std::to_string(w.gid) + "(" + w.group + ")\n";
        }
    }
    if (!write_out(ctx, out)) return 1;
    return status;
}

int cmd_hostname(CommandContext& ctx) {
    static constexpr OptionSpec specs[] = {
        {'s', 's', "short"}, {'f', 'f', "fqdn"},      {'f', 0, "long"},  {'d', 'd', "domain"},
        {'i', 'i', "ip-address"}, {'I', 'I', "all-ip-addresses"}, {'A', 'A', "all-fqdns"},
        {kOptHelp, 'h', "help"}, {kOptVersion, 'V', "version"},
    };
    ParsedArgs p = parse_args(ctx.argv, specs);
    char mode = 0;
    for (const auto& o : p.options) {
        if (o.id == kOptHelp)
            return write_out(ctx, "Usage: hostname [-s|-f|-d|-i|-I|-A]\nShow the system's host name.\n") ? 0 : 1;
        if (o.id == kOptVersion) return write_out(ctx, "hostname (bashkit) 1.0\n") ? 0 : 1;
        mode = static_cast<char>(o.id);
    }
    if (!p.ok()) return usage_error(ctx, p.error);
    if (!p.operands.empty()) {
        ctx.error("you must be root to change the host name");
        return 1;
    }
    std::string host = identity(ctx).host;
    std::string out;
    switch (mode) {
        case 's': out = host.substr(0, host.find('.')); break;
        case 'd': out = host.find('.') == std::string::npos ? "" : host.substr(host.find('.') + 1); break;
        case 'i': out = "127.0.1.1"; break;
        case 'I': out = "127.0.1.1 "; break;
        default: out = host; break;
    }
    return write_out(ctx, out + "\n") ? 0 : 1;
}

int cmd_uname(CommandContext& ctx) {
    static constexpr OptionSpec specs[] = {
        {'a', 'a', "all"},           {'s', 's', "kernel-name"},   {'n', 'n', "nodename"},
        {'r', 'r', "kernel-release"}, {'v', 'v', "kernel-version"}, {'m', 'm', "machine"},
        {'p', 'p', "processor"},     {'i', 'i', "hardware-platform"}, {'o', 'o', "operating-system"},
        {kOptHelp, 0, "help"},       {kOptVersion, 0, "version"},
    };
    ParsedArgs p = parse_args(ctx.argv, specs);
    unsigned mask = 0;
    enum : unsigned { S = 1, N = 2, R = 4, V = 8, M = 16, P = 32, I = 64, O = 128 };
    for (const auto& o : p.options) {
        switch (o.id) {
            case kOptHelp:
                return write_out(ctx,
                                 "Usage: uname [OPTION]...\n"
                                 "Print certain system information.  With no OPTION, same as -s.\n")
                           ? 0
                           : 1;
            case kOptVersion: return write_out(ctx, "uname (bashkit) 1.0\n") ? 0 : 1;
            case 'a': mask |= S | N | R | V | M | O | 0x100; break;
            case 's': mask |= S; break;
            case 'n': mask |= N; break;
            case 'r': mask |= R; break;
            case 'v': mask |= V; break;
            case 'm': mask |= M; break;
            case 'p': mask |= P; break;
            case 'i': mask |= I; break;
            case 'o': mask |= O; break;
            default: break;
        }
    }
    if (!p.ok()) return usage_error(ctx, p.error);
    if (!p.operands.empty()) return usage_error(ctx, "extra operand " + quote(p.operands[0]));
    if (mask == 0) mask = S;
    std::vector<std::string_view> parts;
    const std::string& host = identity(ctx).host;
    if (mask & S) parts.push_back(kSysname);
    if (mask & N) parts.push_back(host);
    if (mask & R) parts.push_back(kRelease);
    if (mask & V) parts.push_back(kVersion);
    if (mask & M) parts.push_back(kMachine);
    // -a leaves out the processor and platform when they are unknown.
    if ((mask & P) && !(mask & 0x100)) parts.push_back("unknown");
    if ((mask & I) && !(mask & 0x100)) parts.push_back("unknown");
    if (mask & O) parts.push_back(kOs);
    std::string out;
    for (size_t k = 0; k < parts.size(); ++k) {
        if (k) out.push_back(' ');
        out += parts[k];
    }
    return write_out(ctx, out + "\n") ? 0 : 1;
}

int cmd_arch(CommandContext& ctx) {
    int st = 0;
    std::vector<std::string> ops;
    if (!simple_options(ctx, "Usage: arch [OPTION]...\nPrint machine architecture.\n", st, ops)) return st;
    if (!ops.empty()) return usage_error(ctx, "extra operand " + quote(ops[0]));
    return write_out(ctx, std::string(kMachine) + "\n") ? 0 : 1;
}

int cmd_nproc(CommandContext& ctx) {
    enum : int { kAll = kOptFirstLongOnly, kIgnore };
    static constexpr OptionSpec specs[] = {
        {kAll, 0, "all"}, {kIgnore, 0, "ignore", ArgKind::required}, {kOptHelp, 0, "help"}, {kOptVersion, 0, "version"}};
    ParsedArgs p = parse_args(ctx.argv, specs);
    long ignore = 0;
    for (const auto& o : p.options) {
        if (o.id == kOptHelp)
            return write_out(ctx, "Usage: nproc [OPTION]...\nPrint the number of processing units available.\n") ? 0 : 1;
        if (o.id == kOptVersion) return write_out(ctx, "nproc (bashkit) 1.0\n") ? 0 : 1;
        if (o.id == kIgnore) {
            char* end = nullptr;
            ignore = std::strtol(o.value.c_str(), &end, 10);
            if (o.value.empty() || *end || ignore < 0) {
                ctx.error("invalid number: " + quote(o.value));
                return 1;
            }
        }
    }
    if (!p.ok()) return usage_error(ctx, p.error);
    if (!p.operands.empty()) return usage_error(ctx, "extra operand " + quote(p.operands[0]));
    (void)ignore;  // one processing unit: ignoring some still leaves one
    return write_out(ctx, "1\n") ? 0 : 1;
}

int cmd_tty(CommandContext& ctx) {
    static constexpr OptionSpec specs[] = {
        {'s', 's', "silent"}, {'s', 0, "quiet"}, {kOptHelp, 0, "help"}, {kOptVersion, 0, "version"}};
    ParsedArgs p = parse_args(ctx.argv, specs);
    bool silent = false;
    for (const auto& o : p.options) {
        if (o.id == kOptHelp)
            return write_out(ctx, "Usage: tty [OPTION]...\nPrint the file name of the terminal connected to standard input.\n") ? 0 : 1;
        if (o.id == kOptVersion) return write_out(ctx, "tty (bashkit) 1.0\n") ? 0 : 1;
        if (o.id == 's') silent = true;
    }
    if (!p.ok()) return usage_error(ctx, p.error, 2);
    if (!p.operands.empty()) return usage_error(ctx, "extra operand " + quote(p.operands[0]), 2);
    if (ctx.in.is_tty()) {
        if (!silent) return write_out(ctx, "/dev/pts/0\n") ? 0 : 3;
        return 0;
    }
    if (!silent && !write_out(ctx, "not a tty\n")) return 3;
    return 1;
}

int cmd_true(CommandContext& ctx) {
    if (ctx.argv.size() == 2 && ctx.argv[1] == "--help")
        return write_out(ctx, "Usage: true [ignored command line arguments]\n  or:  true OPTION\nExit with a status code indicating success.\n") ? 0 : 1;
    if (ctx.argv.size() == 2 && ctx.argv[1] == "--version") return write_out(ctx, "true (bashkit) 1.0\n") ? 0 : 1;
    return 0;
}

int cmd_false(CommandContext& ctx) {
    if (ctx.argv.size() == 2 && ctx.argv[1] == "--help")
        (void)write_out(ctx, "Usage: false [ignored command line arguments]\n  or:  false OPTION\nExit with a status code indicating failure.\n");
    else if (ctx.argv.size() == 2 && ctx.argv[1] == "--version")
        (void)write_out(ctx, "false (bashkit) 1.0\n");
    return 1;
}

}  // namespace bashkit::utils::systemutil
