// The stat utility (-c/--format, --printf, -L, -t, default output). The sandbox has no birth times: %w is "-",
// %W is 0, and the default output says " Birth: -".
#include <cctype>

#include "utils/common/args.hpp"
#include "utils/files/common.hpp"
#include "utils/files/files_impl.hpp"

namespace bashkit::utils::files {

namespace {

enum : int { kOptPrintf = kOptFirstLongOnly };

constexpr OptionSpec kStatSpecs[] = {
    {'c', 'c', "format", ArgKind::required},
    {kOptPrintf, 0, "printf", ArgKind::required},
    {'L', 'L', "dereference"},
    {'t', 't', "terse"},
    {'f', 'f', "file-system"},
    {kOptHelp, 0, "help"},
    {kOptVersion, 0, "version"},
};

constexpr std::string_view kStatHelp =
    "Usage: stat [OPTION]... FILE...\n"
    "Display file or file system status.\n"
    "\n"
    "  -L, --dereference     follow links\n"
    "  -c  --format=FORMAT   use the specified FORMAT instead of the default;\n"
    "                          output a newline after each use of FORMAT\n"
    "      --printf=FORMAT   like --format, but interpret backslash escapes,\n"
    "                          and do not output a mandatory trailing newline\n"
    "  -t, --terse           print the information in terse form\n"
    "      --help            display this help and exit\n"
    "\n"
    "Formats: %a %A %b %B %d %D %f %F %g %G %h %i %n %N %o %s %t %T %u %U %w %W %x %X %y %Y %z %Z\n";

std::string hex(uint64_t v) {
    static constexpr char kDigits[] = "0123456789abcdef";
    if (v == 0) return "0";
    std::string s;
    while (v) {
        s.insert(s.begin(), kDigits[v & 15]);
        v >>= 4;
    }
    return s;
}

std::string octal(uint64_t v) {
    if (v == 0) return "0";
    std::string s;
    while (v) {
        s.insert(s.begin(), static_cast<char>('0' + (v & 7)));
        v >>= 3;
    }
    return s;
}

uint64_t dev_major(uint64_t d) { return ((d >> 8) & 0xfff) | ((d >> 32) & ~uint64_t{0xfff}); }
uint64_t dev_minor(uint64_t d) { return (d & 0xff) | ((d >> 12) & ~uint64_t{0xff}); }

struct Target {
    std::string name;
    vfs::Stat st;
    std::string link;  // symlink target when st is a symlink
};

std::string type_name(const vfs::Stat& st) {
    if (st.is_regular() && st.size == 0) return "regular empty file";
    return std::string(vfs::file_type_name(st.type));
}

std::string seconds_string(vfs::TimeSpec t) { return std::to_string(t.sec); }

// One directive; `flags` and `width` are the printf-like modifiers. Returns false for an unknown one.
std::string directive(const CommandContext& ctx, char c, const Target& t, bool& known) {
    const vfs::Stat& st = t.st;
    known = true;
    switch (c) {
        case 'n': return t.name;
        case 'N': return t.st.is_symlink() ? quote(t.name) + " -> " + quote(t.link) : quote(t.name);
        case 's': return std::to_string(st.size);
        case 'a': return octal(st.mode & 07777);
        case 'A': return mode_string(st);
        case 'f': return hex(st.st_mode());
        case 'F': return type_name(st);
        case 'U': return user_name(ctx, st.uid);
        case 'G': return group_name(ctx, st.gid);
        case 'u': return std::to_string(st.uid);
        case 'g': return std::to_string(st.gid);
        case 'i': return std::to_string(st.ino);
        case 'h': return std::to_string(st.nlink);
        case 'b': return std::to_string(st.blocks);
        case 'B': return "512";
        case 'o': return std::to_string(st.blksize);
        case 'd': return std::to_string(st.dev);
        case 'D': return hex(st.dev);
        case 't': return hex(dev_major(st.rdev));
        case 'T': return hex(dev_minor(st.rdev));
        case 'y': return stat_time(st.mtime);
        case 'Y': return seconds_string(st.mtime);
        case 'x': return stat_time(st.atime);
        case 'X': return seconds_string(st.atime);
        case 'z': return stat_time(st.ctime);
        case 'Z': return seconds_string(st.ctime);
        case 'w': return "-";
        case 'W': return "0";
        case 'm': return "/";
        default: known = false; return {};
    }
}

// Expands a format. `escapes`: interpret backslash escapes too (--printf).
std::string expand(const CommandContext& ctx, std::string_view fmt, const Target& t, bool escapes) {
    std::string out;
    for (size_t i = 0; i < fmt.size(); ++i) {
        char c = fmt[i];
        if (escapes && c == '\\' && i + 1 < fmt.size()) {
            char e = fmt[++i];
            switch (e) {
                case 'n': out.push_back('\n'); break;
                case 't': out.push_back('\t'); break;
                case 'r': out.push_back('\r'); break;
                case 'a': out.push_back('\a'); break;
                case 'b': out.push_back('\b'); break;
                case 'f': out.push_back('\f'); break;
                case 'v': out.push_back('\v'); break;
                case 'e': out.push_back('\x1b'); break;
                case '\\': out.push_back('\\'); break;
                case '"': out.push_back('"'); break;
                case '\'': out.push_back('\''); break;
                case 'x': {
                    int v = 0, n = 0;
                    while (n < 2 && i + 1 < fmt.size() && std::isxdigit(static_cast<unsigned char>(fmt[i + 1]))) {
                        char h = fmt[++i];
                        v = v * 16 + (std::isdigit(static_cast<unsigned char>(h)) ? h - '0' : (std::tolower(h) - 'a' + 10));
                        ++n;
                    }
                    if (n == 0) out += "\\x";
                    else out.push_back(static_cast<char>(v));
                    break;
                }
                default:
                    if (e >= '0' && e <= '7') {
                        int v = e - '0', n = 1;
                        while (n < 3 && i + 1 < fmt.size() && fmt[i + 1] >= '0' && fmt[i + 1] <= '7') {
                            v = v * 8 + (fmt[++i] - '0');
                            ++n;
                        }
                        out.push_back(static_cast<char>(v));
                    } else {
                        out.push_back('\\');
                        out.push_back(e);
                    }
            }
            continue;
        }
        if (c != '%') {
            out.push_back(c);
            continue;
        }
        if (i + 1 >= fmt.size()) {
            out.push_back('%');
            continue;
        }
        // %[-#0 +']*[width][.prec]directive
        size_t j = i + 1;
        std::string flags;
        while (j < fmt.size() && std::string_view("-#0 +'").find(fmt[j]) != std::string_view::npos) flags += fmt[j++];
        size_t width = 0;
        while (j < fmt.size() && std::isdigit(static_cast<unsigned char>(fmt[j])) && width < 4096)
            width = width * 10 + static_cast<size_t>(fmt[j++] - '0');
        bool has_prec = false;
        size_t prec = 0;
        if (j < fmt.size() && fmt[j] == '.') {
            has_prec = true;
            ++j;
            while (j < fmt.size() && std::isdigit(static_cast<unsigned char>(fmt[j])) && prec < 4096)
                prec = prec * 10 + static_cast<size_t>(fmt[j++] - '0');
        }
        if (j >= fmt.size()) {
            out.append(fmt.substr(i));
            break;
        }
        char d = fmt[j];
        if (d == '%') {
            out.push_back('%');
            i = j;
            continue;
        }
        bool known = true;
        std::string v = directive(ctx, d, t, known);
        if (!known) {
            out.push_back('?');
            i = j;
            continue;
        }
        bool numeric = std::string_view("sbBodhiugXYZWfDtT").find(d) != std::string_view::npos;
        if (has_prec && !numeric && (d == 'x' || d == 'y' || d == 'z')) {
            // Precision on a time: digits of the fraction.
            size_t dot = v.find('.');
            if (dot != std::string::npos) {
                size_t sp = v.find(' ', dot);
                std::string frac = v.substr(dot + 1, sp - dot - 1);
                frac = frac.substr(0, std::min(prec, frac.size()));
                v = v.substr(0, dot) + (prec ? "." + frac : std::string()) + v.substr(sp);
            }
        } else if (has_prec && !numeric) {
            v = v.substr(0, prec);
        }
        if (v.size() < width) {
            bool left = flags.find('-') != std::string::npos;
            bool zero = flags.find('0') != std::string::npos && numeric && !left;
            std::string padding(width - v.size(), zero ? '0' : ' ');
            v = left ? v + padding : padding + v;
        }
        out += v;
        i = j;
    }
    return out;
}

std::string pad_right(std::string s, size_t w) {
    if (s.size() < w) s.append(w - s.size(), ' ');
    return s;
}
std::string pad_left(std::string s, size_t w) {
    if (s.size() < w) s.insert(0, w - s.size(), ' ');
    return s;
}

std::string default_output(const CommandContext& ctx, const Target& t) {
    const vfs::Stat& st = t.st;
    std::string o;
    o += "  File: " + quotef(t.name);
    if (st.is_symlink()) o += " -> " + quotef(t.link);
    o += "\n";
    o += "  Size: " + pad_right(std::to_string(st.size), 10) + "\tBlocks: " + pad_right(std::to_string(st.blocks), 10) +
         " IO Block: " + pad_right(std::to_string(st.blksize), 6) + " " + type_name(st) + "\n";
    o += "Device: " + std::to_string(dev_major(st.dev)) + "," + std::to_string(dev_minor(st.dev)) +
         "\tInode: " + pad_right(std::to_string(st.ino), 10) + "  Links: " + std::to_string(st.nlink);
    if (st.type == vfs::FileType::char_device || st.type == vfs::FileType::block_device)
        o += "     Device type: " + std::to_string(dev_major(st.rdev)) + "," + std::to_string(dev_minor(st.rdev));
    o += "\n";
    std::string a = octal(st.mode & 07777);
    while (a.size() < 4) a.insert(a.begin(), '0');
    o += "Access: (" + a + "/" + mode_string(st) + ")  Uid: (" + pad_left(std::to_string(st.uid), 5) + "/" +
         pad_left(user_name(ctx, st.uid), 8) + ")   Gid: (" + pad_left(std::to_string(st.gid), 5) + "/" +
         pad_left(group_name(ctx, st.gid), 8) + ")\n";
    o += "Access: " + stat_time(st.atime) + "\n";
    o += "Modify: " + stat_time(st.mtime) + "\n";
    o += "Change: " + stat_time(st.ctime) + "\n";
    o += " Birth: -\n";
    return o;
}

int stat_main(CommandContext& ctx) {
    ParsedArgs p = parse_args(ctx.argv, kStatSpecs);
    bool deref = false, terse = false, escapes = false, have_fmt = false, fs_mode = false;
    std::string fmt;
    for (const auto& opt : p.options) {
        switch (opt.id) {
            case 'c': fmt = opt.value + "\n"; have_fmt = true; escapes = false; break;
            case kOptPrintf: fmt = opt.value; have_fmt = true; escapes = true; break;
            case 'L': deref = true; break;
            case 't': terse = true; break;
            case 'f': fs_mode = true; break;
            case kOptHelp: return print_help(ctx, kStatHelp);
            case kOptVersion: return print_help(ctx, "stat, bashkit 9.1\n");
            default: break;
        }
    }
    if (!p.ok()) return usage_error(ctx, p.error);
    if (p.operands.empty()) return usage_error(ctx, "missing operand");
    if (fs_mode) {
        ctx.error("file system status (-f) is not supported in the sandbox");
        return 1;
    }
    if (!have_fmt && terse) fmt = "%n %s %b %f %u %g %D %i %h %t %T %X %Y %Z %W %o\n";
    int status = 0;
    Output out(ctx);
    for (const auto& op : p.operands) {
        std::string abs = ctx.resolve(op);
        auto st = deref ? ctx.fs.stat(abs) : ctx.fs.lstat(abs);
        if (!st) {
            out.flush();
            ctx.error("cannot statx " + quote(op) + ": " + std::string(errstr(st.error())));
            status = 1;
            continue;
        }
        Target t{op, *st, {}};
        if (st->is_symlink()) {
            auto l = ctx.fs.readlink(abs);
            if (l) t.link = *l;
        }
        if (fmt.empty())
            out.put(default_output(ctx, t));
        else
            out.put(expand(ctx, fmt, t, escapes));
    }
    return out.status(status);
}

}  // namespace

void register_stat(interp::CommandRegistry& r) {
    r.add("stat", "stat [-L] [-c FORMAT] FILE...: display file status", stat_main);
}

}  // namespace bashkit::utils::files
