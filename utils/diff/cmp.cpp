// cmp (GNU diffutils 3.8 under LC_ALL=C): -b -l -s -n N -i SKIP[:SKIP2], operands FILE1 [FILE2 [SKIP1
// [SKIP2]]]; exit 0 (same), 1 (different), 2 (trouble).
#include <algorithm>

#include "utils/diff/tools.hpp"

namespace bashkit::utils::diffutil {

namespace {

constexpr OptionSpec kCmpSpecs[] = {
    {'b', 'b', "print-bytes"},
    {'l', 'l', "verbose"},
    {'s', 's', "quiet"},
    {'s', 's', "silent"},
    {'n', 'n', "bytes", ArgKind::required},
    {'i', 'i', "ignore-initial", ArgKind::required},
    {kOptHelp, 0, "help"},
    {kOptVersion, 0, "version"},
};

int cmp_usage(CommandContext& ctx, std::string_view message) {
    if (!message.empty()) ctx.error(message);
    ctx.error("Try 'cmp --help' for more information.");
    return 2;
}

// cat -v style: ^A, M-x, ^?.
std::string show_byte(unsigned char c) {
    std::string s;
    if (c >= 128) {
        s = "M-";
        c = static_cast<unsigned char>(c - 128);
    }
    if (c < 32) {
        s += '^';
        s += static_cast<char>(c + 64);
    } else if (c == 127) {
        s += "^?";
    } else {
        s += static_cast<char>(c);
    }
    return s;
}

std::string octal(unsigned char c, int width) {
    std::string s;
    do {
        s.insert(s.begin(), static_cast<char>('0' + (c & 7)));
        c = static_cast<unsigned char>(c >> 3);
    } while (c);
    while (static_cast<int>(s.size()) < width) s.insert(s.begin(), ' ');
    return s;
}

// A skip count: decimal with an optional suffix (kB, K, MB, M, ...).
bool parse_skip(const std::string& s, uint64_t& v) { return text::parse_size(s, v, true); }

}  // namespace

int cmd_cmp(CommandContext& ctx) {
    ParsedArgs p = parse_args(ctx.argv, kCmpSpecs);
    bool print_bytes = false, verbose = false, silent = false;
    bool limited = false;
    uint64_t limit = 0, skip[2] = {0, 0};
    for (const auto& opt : p.options) {
        switch (opt.id) {
        case kOptHelp:
            return text::print_help(ctx, "[OPTION]... FILE1 [FILE2 [SKIP1 [SKIP2]]]\nCompare two files byte by byte.\n");
        case kOptVersion:
            (void)ctx.out.write("cmp (GNU diffutils) 3.8 (bashkit)\n");
            return 0;
        case 'b': print_bytes = true; break;
        case 'l': verbose = true; break;
        case 's': silent = true; break;
        case 'n':
            if (!parse_skip(opt.value, limit)) return cmp_usage(ctx, "invalid --bytes value '" + opt.value + "'");
            limited = true;
            break;
        case 'i': {
            std::string v = opt.value;
            size_t colon = v.find(':');
            std::string first = v.substr(0, colon);
            std::string second = colon == std::string::npos ? first : v.substr(colon + 1);
            if (!parse_skip(first, skip[0]) || !parse_skip(second, skip[1]))
                return cmp_usage(ctx, "invalid --ignore-initial value '" + opt.value + "'");
            break;
        }
        default: break;
        }
    }
    if (!p.ok()) return cmp_usage(ctx, p.error);
    if (silent && verbose) return cmp_usage(ctx, "options -l and -s are incompatible");
    const auto& ops = p.operands;
    if (ops.empty()) return cmp_usage(ctx, "missing operand after 'cmp'");
    // GNU checks the SKIP operands before it complains about a fifth one.
    for (size_t k = 2; k < std::min<size_t>(ops.size(), 4); ++k) {
        if (!parse_skip(ops[k], skip[k - 2]))
            return cmp_usage(ctx, "invalid --ignore-initial value '" + ops[k] + "'");
    }
    if (ops.size() > 4) return cmp_usage(ctx, "extra operand '" + ops[4] + "'");
    std::string names[2] = {ops[0], ops.size() > 1 ? ops[1] : std::string("-")};
    std::string data[2];
    interp::MemoryCharge held(ctx.memory);  // both inputs, read whole
    for (int f = 0; f < 2; ++f) {
        text::Input in;
        vfs::Errc e = in.open_input(ctx, names[f]);
        if (e == vfs::Errc::ok) e = text::read_all(ctx, in, data[f]);
        held.add(data[f].capacity());
        if (e != vfs::Errc::ok) {
            if (!silent) text::file_error(ctx, names[f], e);
            return 2;
        }
    }
    if (ctx.cancelled()) return 130;
    std::string_view a = data[0], b = data[1];
    a = a.substr(std::min<uint64_t>(skip[0], a.size()));
    b = b.substr(std::min<uint64_t>(skip[1], b.size()));
    uint64_t n = std::min(a.size(), b.size());
    if (limited) n = std::min(n, limit);
    text::Output out(ctx);
    int status = 0;
    uint64_t lines = 0;  // newlines in the common prefix
    if (verbose) {
        uint64_t max_off = std::min<uint64_t>(std::max(a.size(), b.size()), limited ? limit : UINT64_MAX);
        int width = static_cast<int>(std::to_string(max_off).size());
        for (uint64_t k = 0; k < n; ++k) {
            if (a[k] == b[k]) continue;
            status = 1;
            std::string off = std::to_string(k + 1);
            while (static_cast<int>(off.size()) < width) off.insert(off.begin(), ' ');
            unsigned char x = static_cast<unsigned char>(a[k]), y = static_cast<unsigned char>(b[k]);
            if (print_bytes) {
                std::string sx = show_byte(x);
                while (sx.size() < 4) sx.push_back(' ');
                out.put(off + " " + octal(x, 3) + " " + sx + " " + octal(y, 3) + " " + show_byte(y) + "\n");
            } else {
                out.put(off + " " + octal(x, 3) + " " + octal(y, 3) + "\n");
            }
        }
    } else {
        for (uint64_t k = 0; k < n; ++k) {
            if (a[k] != b[k]) {
                if (!silent) {
                    std::string msg = names[0] + " " + names[1] + " differ: " + (print_bytes ? "byte " : "char ") +
                                      std::to_string(k + 1) + ", line " + std::to_string(lines + 1);
                    if (print_bytes) {
                        unsigned char x = static_cast<unsigned char>(a[k]), y = static_cast<unsigned char>(b[k]);
                        msg += " is " + octal(x, 3) + " " + show_byte(x) + " " + octal(y, 3) + " " + show_byte(y);
                    }
                    out.put(msg + "\n");
                }
                return out.status(1);
            }
            if (a[k] == '\n') ++lines;
        }
    }
    if (a.size() != b.size() && (!limited || limit > n)) {
        // One file is a prefix of the other.
        status = 1;
        if (!silent) {
            // Written at once, ahead of the buffered stdout (as cmp's unbuffered stderr is).
            const std::string& shorter = a.size() < b.size() ? names[0] : names[1];
            if (n == 0) {
                ctx.error("EOF on " + shorter + " which is empty");
            } else if (verbose) {
                ctx.error("EOF on " + shorter + " after byte " + std::to_string(n));
            } else {
                std::string_view pre = a.substr(0, n);
                uint64_t nl = static_cast<uint64_t>(std::count(pre.begin(), pre.end(), '\n'));
                if (pre.back() == '\n')
                    ctx.error("EOF on " + shorter + " after byte " + std::to_string(n) + ", line " + std::to_string(nl));
                else
                    ctx.error("EOF on " + shorter + " after byte " + std::to_string(n) + ", in line " +
                              std::to_string(nl + 1));
            }
        }
    }
    return out.status(status);
}

}  // namespace bashkit::utils::diffutil
