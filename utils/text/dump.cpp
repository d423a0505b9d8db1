// Byte dumps: od (GNU), xxd (vim's), hexdump -C (util-linux) and strings (binutils).
#include <cstring>

#include "utils/text/tools.hpp"

namespace bashkit::utils::text {

namespace {

// Reads the concatenation of several inputs as one stream (od, hexdump), reporting open errors as it goes.
class MultiReader {
public:
    MultiReader(CommandContext& ctx, std::vector<std::string> files, std::string prog_style)
        : ctx_(ctx), files_(std::move(files)), style_(std::move(prog_style)) {
        if (files_.empty()) files_.push_back("-");
    }
    // Fills up to n bytes (less only at the end of all inputs).
    size_t read(char* buf, size_t n) {
        size_t got = 0;
        while (got < n) {
            if (!open_) {
                if (idx_ >= files_.size()) break;
                const std::string& f = files_[idx_++];
                if (auto e = in_.open_input(ctx_, f); e != vfs::Errc::ok) {
                    file_error(ctx_, f, e);
                    failed_ = true;
                    ++open_failures_;
                    continue;
                }
                open_ = true;
                cur_ = f;
            }
            auto r = in_.read(buf + got, n - got);
            got += r.n;
            if (r.err == vfs::Errc::cancelled) {
                cancelled_ = true;
                break;
            }
            if (r.err != vfs::Errc::ok) {
                file_error(ctx_, cur_, r.err);
                failed_ = true;
                open_ = false;
                continue;
            }
            if (r.n == 0) open_ = false;
        }
        return got;
    }
    // Skips n bytes; returns how many could not be skipped.
    uint64_t skip(uint64_t n) {
        std::string tmp(64 * 1024, '\0');
        while (n > 0) {
            size_t want = static_cast<size_t>(std::min<uint64_t>(n, tmp.size()));
            size_t got = read(tmp.data(), want);
            n -= got;
            if (got < want) break;
        }
        return n;
    }
    bool failed() const { return failed_; }
    bool cancelled() const { return cancelled_; }
    size_t open_failures() const { return open_failures_; }
    size_t input_count() const { return files_.size(); }

private:
    CommandContext& ctx_;
    std::vector<std::string> files_;
    std::string style_;
    size_t idx_ = 0;
    Input in_;
    std::string cur_;
    bool open_ = false, failed_ = false, cancelled_ = false;
    size_t open_failures_ = 0;
};

// ---------------------------------------------------------------------------------------------------------
// od

struct OdSpec {
    char kind;  // a c d u o x
    int size;   // bytes per value
    int width;  // field width without the separating space
    bool dump = false;  // z suffix
    int pad = 0;
};

int od_width(char kind, int size) {
    switch (kind) {
        case 'a':
        case 'c': return 3;
        case 'x': return size * 2;
        case 'o': return size == 1 ? 3 : size == 2 ? 6 : size == 4 ? 11 : 22;
        case 'u': return size == 1 ? 3 : size == 2 ? 5 : size == 4 ? 10 : 20;
        case 'd': return size == 1 ? 4 : size == 2 ? 6 : size == 4 ? 11 : 20;
    }
    return 1;
}

bool parse_od_type(CommandContext& ctx, const std::string& s, std::vector<OdSpec>& specs) {
    size_t i = 0;
    while (i < s.size()) {
        char k = s[i++];
        OdSpec sp{k, 1, 0};
        if (k == 'a' || k == 'c') {
            sp.size = 1;
        } else if (k == 'd' || k == 'u' || k == 'o' || k == 'x') {
            sp.size = 4;
            if (i < s.size()) {
                char c = s[i];
                if (c == 'C') sp.size = 1, ++i;
                else if (c == 'S') sp.size = 2, ++i;
                else if (c == 'I') sp.size = 4, ++i;
                else if (c == 'L') sp.size = 8, ++i;
                else if (c >= '0' && c <= '9') {
                    size_t j = i;
                    while (j < s.size() && s[j] >= '0' && s[j] <= '9') ++j;
                    uint64_t v;
                    (void)parse_uint(s.substr(i, j - i), v);
                    if (v != 1 && v != 2 && v != 4 && v != 8) {
                        ctx.error("invalid type string " + quote(s) + ";\nthis system doesn't provide a " +
                                  s.substr(i, j - i) + "-byte integral type");
                        return false;
                    }
                    sp.size = static_cast<int>(v);
                    i = j;
                }
            }
        } else if (k == 'f') {
            ctx.error("floating point types are not supported");
            return false;
        } else {
            ctx.error("invalid character " + quote(std::string(1, k)) + " in type string " + quote(s));
            return false;
        }
        if (i < s.size() && s[i] == 'z') {
            sp.dump = true;
            ++i;
        }
        sp.width = od_width(sp.kind, sp.size);
        specs.push_back(sp);
    }
    return true;
}

const char* const kAsciiNames[] = {"nul", "soh", "stx", "etx", "eot", "enq", "ack", "bel", "bs",  "ht",  "nl",
                                   "vt",  "ff",  "cr",  "so",  "si",  "dle", "dc1", "dc2", "dc3", "dc4", "nak",
                                   "syn", "etb", "can", "em",  "sub", "esc", "fs",  "gs",  "rs",  "us",  "sp"};

std::string od_value(const OdSpec& sp, const unsigned char* p) {
    char b[64];
    if (sp.kind == 'a') {
        int c = p[0] & 0x7f;
        if (c <= 32) return kAsciiNames[c];
        if (c == 127) return "del";
        return std::string(1, static_cast<char>(c));
    }
    if (sp.kind == 'c') {
        unsigned char c = p[0];
        switch (c) {
            case 0: return "\\0";
            case '\a': return "\\a";
            case '\b': return "\\b";
            case '\f': return "\\f";
            case '\n': return "\\n";
            case '\r': return "\\r";
            case '\t': return "\\t";
            case '\v': return "\\v";
        }
        if (c >= 32 && c < 127) return std::string(1, static_cast<char>(c));
        std::snprintf(b, sizeof b, "%03o", c);
        return b;
    }
    uint64_t v = 0;
    for (int k = sp.size - 1; k >= 0; --k) v = (v << 8) | p[k];
    switch (sp.kind) {
        case 'x': std::snprintf(b, sizeof b, "%0*llx", sp.size * 2, static_cast<unsigned long long>(v)); break;
        case 'o': std::snprintf(b, sizeof b, "%0*llo", sp.width, static_cast<unsigned long long>(v)); break;
        case 'u': std::snprintf(b, sizeof b, "%llu", static_cast<unsigned long long>(v)); break;
        case 'd': {
            long long s;
            if (sp.size == 8) s = static_cast<long long>(v);
            else {
                uint64_t sign = 1ull << (sp.size * 8 - 1);
                s = (v & sign) ? static_cast<long long>(v) - static_cast<long long>(sign << 1) : static_cast<long long>(v);
            }
            std::snprintf(b, sizeof b, "%lld", s);
            break;
        }
    }
    return b;
}

bool parse_offset(std::string_view s, uint64_t& out) {
    // od accepts decimal, 0x hex, leading-0 octal, with b/k/m suffixes (multipliers 512/1024/1048576).
    uint64_t mult = 1;
    if (!s.empty()) {
        char last = s.back();
        if (last == 'b' && !(s.size() > 2 && (s[1] == 'x' || s[1] == 'X'))) mult = 512, s.remove_suffix(1);
        else if (last == 'k') mult = 1024, s.remove_suffix(1);
        else if (last == 'm') mult = 1024 * 1024, s.remove_suffix(1);
    }
    if (s.empty()) return false;
    int base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s.remove_prefix(2);
    } else if (s.size() > 1 && s[0] == '0') {
        base = 8;
    }
    uint64_t v = 0;
    for (char c : s) {
        int d;
        if (c >= '0' && c <= '9') d = c - '0';
        else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
        else return false;
        if (d >= base) return false;
        if (v > (UINT64_MAX - static_cast<uint64_t>(d)) / static_cast<uint64_t>(base)) return false;
        v = v * static_cast<uint64_t>(base) + static_cast<uint64_t>(d);
    }
    if (v != 0 && mult > UINT64_MAX / v) return false;
    out = v * mult;
    return true;
}

}  // namespace

int cmd_od(CommandContext& ctx) {
    static constexpr OptionSpec kLong[] = {
        {'A', 0, "address-radix", ArgKind::required}, {'j', 0, "skip-bytes", ArgKind::required},
        {'N', 0, "read-bytes", ArgKind::required}, {'t', 0, "format", ArgKind::required}, {'v', 0, "output-duplicates"},
        {'w', 0, "width", ArgKind::optional}, {300, 0, "endian", ArgKind::required},
        {'S', 0, "strings", ArgKind::optional}, {301, 0, "traditional"},
    };
    std::vector<ParsedOption> opts;
    std::vector<std::string> files;
    if (!parse_getopt(ctx, "A:aBbcDdeFfHhIij:LlN:OoS:st:vw::Xx", kLong, opts, files)) return 1;
    char radix = 'o';
    uint64_t skip = 0, limit = UINT64_MAX;
    bool has_limit = false, dups = false;
    uint64_t width = 16;
    std::vector<OdSpec> specs;
    for (auto& o : opts) {
        switch (o.id) {
            case 'A':
                if (o.value.size() != 1 || std::strchr("doxn", o.value[0]) == nullptr) {
                    ctx.error("invalid output address radix " + quote(o.value) +
                              "; it must be one character from [doxn]");
                    return 1;
                }
                radix = o.value[0];
                break;
            case 'j':
                if (!parse_offset(o.value, skip)) {
                    ctx.error("invalid number " + quote(o.value));
                    return 1;
                }
                break;
            case 'N':
                if (!parse_offset(o.value, limit)) {
                    ctx.error("invalid number " + quote(o.value));
                    return 1;
                }
                has_limit = true;
                break;
            case 't':
                if (!parse_od_type(ctx, o.value, specs)) return 1;
                break;
            case 'v': dups = true; break;
            case 'w':
                if (!o.has_value) width = 32;
                else if (!parse_uint(o.value, width) || width == 0) {
                    ctx.error("invalid number " + quote(o.value));
                    return 1;
                }
                break;
            case 'a': specs.push_back({'a', 1, 3}); break;
            case 'b': specs.push_back({'o', 1, 3}); break;
            case 'c': specs.push_back({'c', 1, 3}); break;
            case 'd': specs.push_back({'u', 2, 5}); break;
            case 'o': specs.push_back({'o', 2, 6}); break;
            case 's': specs.push_back({'d', 2, 6}); break;
            case 'x': specs.push_back({'x', 2, 4}); break;
            case 'i': specs.push_back({'d', 4, 11}); break;
            case 'l': specs.push_back({'d', 8, 20}); break;
            case 'B': specs.push_back({'o', 2, 6}); break;
            case 'D': specs.push_back({'u', 4, 10}); break;
            case 'H': case 'X': specs.push_back({'x', 4, 8}); break;
            case 'I': case 'L': specs.push_back({'d', 8, 20}); break;
            case 'O': specs.push_back({'o', 4, 11}); break;
            case 'e': case 'F': case 'f':
                ctx.error("floating point types are not supported");
                return 1;
            case 'h': specs.push_back({'x', 2, 4}); break;
            case 300: case 301: break;
            case 'S':
                ctx.error("--strings is not supported");
                return 1;
            case kOptHelp:
                return print_help(ctx, "[OPTION]... [FILE]...\nWrite an unambiguous representation, octal bytes by default,\nof FILE to standard output.\n");
            case kOptVersion: return version(ctx);
        }
    }
    if (specs.empty()) specs.push_back({'o', 2, 6});
    // Every value size must divide the line width.
    for (auto& s : specs) {
        if (width % static_cast<uint64_t>(s.size) != 0) {
            ctx.error("invalid number " + quote(std::to_string(width)));
            return 1;
        }
    }
    if (width > (1u << 16)) width = 1u << 16;
    size_t bpb = static_cast<size_t>(width);
    size_t wpb = 0;
    for (auto& s : specs) wpb = std::max(wpb, static_cast<size_t>(s.width + 1) * (bpb / static_cast<size_t>(s.size)));
    for (auto& s : specs) s.pad = static_cast<int>(wpb - static_cast<size_t>(s.width) * (bpb / static_cast<size_t>(s.size)));
    MultiReader rd(ctx, files, "od");
    Output out(ctx);
    auto addr = [&](uint64_t a) {
        char b[40];
        int n = 0;
        switch (radix) {
            case 'o': n = std::snprintf(b, sizeof b, "%07llo", static_cast<unsigned long long>(a)); break;
            case 'd': n = std::snprintf(b, sizeof b, "%07llu", static_cast<unsigned long long>(a)); break;
            case 'x': n = std::snprintf(b, sizeof b, "%06llx", static_cast<unsigned long long>(a)); break;
            default: break;
        }
        out.put(std::string_view(b, static_cast<size_t>(n)));
    };
    uint64_t offset = skip;
    if (skip > 0 && rd.skip(skip) > 0) {
        out.flush();
        ctx.error("cannot skip past end of combined input");
        return out.status(1);
    }
    std::string block(bpb, '\0'), prev;
    bool have_prev = false, starred = false;
    uint64_t left = limit;
    size_t addr_width = radix == 'n' ? 0 : radix == 'x' ? 6 : 7;
    for (;;) {
        size_t want = has_limit ? static_cast<size_t>(std::min<uint64_t>(left, bpb)) : bpb;
        if (want == 0) break;
        size_t n = rd.read(block.data(), want);
        if (rd.cancelled()) return out.status(130);
        if (n == 0) break;
        if (has_limit) left -= n;
        if (!dups && n == bpb && have_prev && block == prev) {
            if (!starred) out.put("*\n");
            starred = true;
            offset += n;
            continue;
        }
        starred = false;
        prev = block;
        have_prev = n == bpb;
        std::string data = block.substr(0, n);
        data.resize(n + 8, '\0');  // zero padding for a partial last value
        for (size_t si = 0; si < specs.size(); ++si) {
            const OdSpec& sp = specs[si];
            if (si == 0) addr(offset);
            else out.put(std::string(addr_width, ' '));
            size_t fields = bpb / static_cast<size_t>(sp.size);
            size_t blank = (bpb - n) / static_cast<size_t>(sp.size);
            int pad_remaining = sp.pad;
            size_t k = 0;
            for (size_t i = fields; i > blank; --i, ++k) {
                int next_pad = static_cast<int>(static_cast<size_t>(sp.pad) * (i - 1) / fields);
                int w = pad_remaining - next_pad + sp.width;
                std::string v = od_value(sp, reinterpret_cast<const unsigned char*>(data.data()) + k * static_cast<size_t>(sp.size));
                if (static_cast<int>(v.size()) < w) out.put(std::string(static_cast<size_t>(w) - v.size(), ' '));
                out.put(v);
                pad_remaining = next_pad;
            }
            if (sp.dump) {
                // Pad the missing fields, then the bytes between > <.
                size_t missing = 0;
                for (size_t i = blank; i > 0; --i) {
                    int next_pad = static_cast<int>(static_cast<size_t>(sp.pad) * (i - 1) / fields);
                    missing += static_cast<size_t>(pad_remaining - next_pad + sp.width);
                    pad_remaining = next_pad;
                }
                out.put(std::string(missing, ' '));
                out.put("  >");
                for (size_t i = 0; i < n; ++i) {
                    auto c = static_cast<unsigned char>(data[i]);
                    out.put(c >= 32 && c < 127 ? static_cast<char>(c) : '.');
                }
                out.put('<');
            }
            out.put('\n');
        }
        offset += n;
        if (out.failed()) break;
    }
    if (radix != 'n' && rd.open_failures() < rd.input_count()) {
        addr(offset);
        out.put('\n');
    }
    return out.status(rd.failed() ? 1 : 0);
}

// ---------------------------------------------------------------------------------------------------------
// hexdump (only the canonical -C format, which is what agents use)

int cmd_hexdump(CommandContext& ctx) {
    static constexpr OptionSpec kLong[] = {
        {'C', 0, "canonical"}, {'n', 0, "length", ArgKind::required}, {'s', 0, "skip", ArgKind::required},
        {'v', 0, "no-squeezing"},
    };
    std::vector<ParsedOption> opts;
    std::vector<std::string> files;
    if (!parse_getopt(ctx, "bcCdoxn:s:ve:f:L::", kLong, opts, files)) return 1;
    uint64_t length = UINT64_MAX, skip = 0;
    bool dups = false, canonical = false;
    for (auto& o : opts) {
        switch (o.id) {
            case 'C': canonical = true; break;
            case 'n':
                if (!parse_offset(o.value, length)) {
                    ctx.error("invalid length argument: " + quote(o.value));
                    return 1;
                }
                break;
            case 's':
                if (!parse_offset(o.value, skip)) {
                    ctx.error("invalid skip argument: " + quote(o.value));
                    return 1;
                }
                break;
            case 'v': dups = true; break;
            case 'b': case 'c': case 'd': case 'o': case 'x': case 'e': case 'f':
                ctx.error(std::string("option -") + static_cast<char>(o.id) + " is not supported (use -C)");
                return 1;
            case 'L': break;
            case kOptHelp:
                return print_help(ctx, "[options] <file>...\nDisplay file contents in hexadecimal, decimal, octal, or ascii.\n");
            case kOptVersion: return version(ctx);
        }
    }
    (void)canonical;
    if (skip > 0 && (files.empty() || files[0] == "-")) {
        ctx.error("stdin: Illegal seek");
        return 1;
    }
    MultiReader rd(ctx, files, "hexdump");
    Output out(ctx);
    uint64_t offset = skip;
    if (skip > 0) rd.skip(skip);
    std::string block(16, '\0'), prev;
    bool have_prev = false, starred = false;
    uint64_t left = length;
    char b[32];
    for (;;) {
        size_t want = static_cast<size_t>(std::min<uint64_t>(left, 16));
        if (want == 0) break;
        size_t n = rd.read(block.data(), want);
        if (rd.cancelled()) return out.status(130);
        if (n == 0) break;
        left -= n;
        if (!dups && n == 16 && have_prev && block == prev) {
            if (!starred) out.put("*\n");
            starred = true;
            offset += n;
            continue;
        }
        starred = false;
        prev = block;
        have_prev = n == 16;
        std::snprintf(b, sizeof b, "%08llx ", static_cast<unsigned long long>(offset));
        std::string line = b;
        for (size_t i = 0; i < 16; ++i) {
            if (i == 8) line += ' ';
            if (i < n) {
                std::snprintf(b, sizeof b, " %02x", static_cast<unsigned char>(block[i]));
                line += b;
            } else {
                line += "   ";
            }
        }
        line += "  |";
        for (size_t i = 0; i < n; ++i) {
            auto c = static_cast<unsigned char>(block[i]);
            line += c >= 32 && c < 127 ? static_cast<char>(c) : '.';
        }
        line += "|\n";
        out.put(line);
        offset += n;
        if (out.failed()) break;
    }
    if (offset > skip) {
        std::snprintf(b, sizeof b, "%08llx\n", static_cast<unsigned long long>(offset));
        out.put(b);
    }
    if (rd.open_failures() == rd.input_count()) {
        out.flush();
        ctx.error("all input file arguments failed");
        return out.status(1);
    }
    return out.status(rd.failed() ? 1 : 0);
}

// ---------------------------------------------------------------------------------------------------------
// xxd

namespace {

int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

bool parse_xxd_num(std::string_view s, int64_t& out) {
    bool neg = false;
    if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
        neg = s[0] == '-';
        s.remove_prefix(1);
    }
    uint64_t v;
    if (!parse_offset(s, v) || v > static_cast<uint64_t>(INT64_MAX)) return false;
    out = neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
    return true;
}

}  // namespace

int cmd_xxd(CommandContext& ctx) {
    // xxd's own option syntax: single-dash words (-ps, -len), values attached or separate.
    std::vector<std::string> args(ctx.argv.begin() + 1, ctx.argv.end());
    bool plain = false, reverse = false, upper = false, include = false;
    int64_t len = -1, seek = 0;
    int64_t cols = -1, group = -1;
    std::vector<std::string> files;
    auto fail_usage = [&](const std::string& m) {
        ctx.error(m);
        return 1;
    };
    for (size_t i = 0; i < args.size(); ++i) {
        std::string a = args[i];
        if (a.size() < 2 || a[0] != '-' || !files.empty()) {
            files.push_back(a);
            continue;
        }
        auto value = [&](std::string_view name, std::string& v) -> bool {
            // -l5, -l 5, -len 5
            std::string_view rest = std::string_view(a).substr(1);
            size_t k = 0;
            while (k < rest.size() && k < name.size() && rest[k] == name[k]) ++k;
            std::string_view tail = rest.substr(k);
            if (!tail.empty() && ((tail[0] >= '0' && tail[0] <= '9') || tail[0] == '-' || tail[0] == '+')) {
                v = std::string(tail);
                return true;
            }
            if (!tail.empty()) return false;
            if (i + 1 >= args.size()) return false;
            v = args[++i];
            return true;
        };
        std::string v;
        char c = a[1];
        if (a == "--") {
            for (++i; i < args.size(); ++i) files.push_back(args[i]);
            break;
        }
        if (a == "-h" || a == "-help" || a == "--help") {
            (void)ctx.out.write("Usage:\n       xxd [options] [infile [outfile]]\n    or\n       xxd -r [-s [-]offset] [-c cols] [-ps] [infile [outfile]]\n");
            return 0;
        }
        switch (c) {
            case 'p': plain = true; break;
            case 'r': reverse = true; break;
            case 'u': upper = true; break;
            case 'i': include = true; break;
            case 'l':
                if (!value("len", v) || !parse_xxd_num(v, len)) return fail_usage("invalid length " + quote(v));
                break;
            case 's':
                if (!value("seek", v) || !parse_xxd_num(v, seek)) return fail_usage("invalid seek " + quote(v));
                break;
            case 'c':
                if (!value("cols", v) || !parse_xxd_num(v, cols) || cols < 0 || cols > 256)
                    return fail_usage("invalid number of columns (max. 256).");
                break;
            case 'g':
                if (!value("groupsize", v) || !parse_xxd_num(v, group) || group < 0)
                    return fail_usage("invalid group size");
                break;
            case 'v':
                (void)ctx.out.write("xxd (bashkit) 1.0\n");
                return 0;
            default:
                // xxd prints its usage alone for an unknown option, with status 1.
                (void)ctx.err.write("Usage:\n       xxd [options] [infile [outfile]]\n    or\n       xxd -r [-s [-]offset] [-c cols] [-ps] [infile [outfile]]\n");
                return 1;
        }
    }
    if (files.size() > 2) {
        ctx.error("too many arguments");
        return 1;
    }
    std::string name = files.empty() ? "-" : files[0];
    Input in;
    if (auto e = in.open_input(ctx, name); e != vfs::Errc::ok) {
        ctx.error(name + ": " + errstr(e));
        return 2;
    }
    OutputFile outf;
    interp::ByteStream* target = nullptr;
    if (files.size() == 2 && files[1] != "-") {
        if (auto e = outf.open_output(ctx, files[1]); e != vfs::Errc::ok) {
            ctx.error(files[1] + ": " + errstr(e));
            return 3;
        }
        target = outf.stream();
    }
    Output out(ctx, target);
    if (reverse) {
        std::string data;
        if (auto e = read_all(ctx, in, data); e != vfs::Errc::ok) {
            ctx.error(name + ": " + errstr(e));
            return 2;
        }
        std::string bin;
        if (plain) {
            int hi = -1;
            for (char ch : data) {
                int h = hexval(ch);
                if (h < 0) continue;
                if (hi < 0) hi = h;
                else {
                    bin.push_back(static_cast<char>(hi * 16 + h));
                    hi = -1;
                }
            }
            out.put(bin);
        } else {
            // "offset: hex hex ...  ascii" lines; data is placed at the offsets (gaps are zero-filled).
            std::string result;
            size_t p = 0;
            while (p < data.size()) {
                size_t e = data.find('\n', p);
                if (e == std::string::npos) e = data.size();
                std::string_view line(data.data() + p, e - p);
                p = e + 1;
                size_t colon = line.find(':');
                if (colon == std::string_view::npos) continue;
                uint64_t off = 0;
                bool ok = colon > 0;
                for (size_t k = 0; k < colon; ++k) {
                    int h = hexval(line[k]);
                    if (h < 0) {
                        ok = false;
                        break;
                    }
                    off = off * 16 + static_cast<uint64_t>(h);
                }
                if (!ok) continue;
                int64_t at = static_cast<int64_t>(off) + seek;
                if (at < 0) continue;
                std::string bytes;
                int hi = -1;
                int spaces = 0;
                for (size_t k = colon + 1; k < line.size(); ++k) {
                    int h = hexval(line[k]);
                    if (h < 0) {
                        if (line[k] == ' ') {
                            if (++spaces >= 2 && hi < 0 && !bytes.empty()) break;  // the ascii column
                        } else {
                            break;
                        }
                        continue;
                    }
                    spaces = 0;
                    if (hi < 0) hi = h;
                    else {
                        bytes.push_back(static_cast<char>(hi * 16 + h));
                        hi = -1;
                    }
                }
                auto pos = static_cast<size_t>(at);
                if (pos > (1u << 30)) continue;
                if (result.size() < pos) result.resize(pos, '\0');
                if (result.size() < pos + bytes.size()) result.resize(pos + bytes.size());
                result.replace(pos, bytes.size(), bytes);
            }
            out.put(result);
        }
        return out.status(0);
    }
    if (cols < 0) cols = plain ? 30 : include ? 12 : 16;
    if (cols == 0) cols = plain ? 30 : 16;
    if (group < 0) group = plain ? 0 : 2;
    std::string data;
    {
        // Skip and limit while reading.
        if (seek < 0) {
            if (in.is_stream()) {
                ctx.error("Sorry, cannot seek.");
                return 4;
            }
            std::string all;
            if (auto e = read_all(ctx, in, all); e != vfs::Errc::ok) {
                ctx.error(name + ": " + errstr(e));
                return 2;
            }
            size_t back = static_cast<size_t>(std::min<int64_t>(-seek, static_cast<int64_t>(all.size())));
            seek = static_cast<int64_t>(all.size() - back);
            data = all.substr(all.size() - back);
        } else {
            std::string tmp(64 * 1024, '\0');
            int64_t skipped = 0;
            for (;;) {
                auto r = in.read(tmp.data(), tmp.size());
                if (r.err != vfs::Errc::ok) {
                    ctx.error(name + ": " + errstr(r.err));
                    return 2;
                }
                if (r.n == 0) break;
                std::string_view d(tmp.data(), r.n);
                if (skipped < seek) {
                    size_t s = static_cast<size_t>(std::min<int64_t>(seek - skipped, static_cast<int64_t>(d.size())));
                    skipped += static_cast<int64_t>(s);
                    d.remove_prefix(s);
                }
                data.append(d);
                if (len >= 0 && static_cast<int64_t>(data.size()) >= len) break;
            }
        }
        if (len >= 0 && static_cast<int64_t>(data.size()) > len) data.resize(static_cast<size_t>(len));
    }
    const char* hexd = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    auto c = static_cast<size_t>(cols);
    if (plain) {
        std::string line;
        for (size_t i = 0; i < data.size(); ++i) {
            auto b = static_cast<unsigned char>(data[i]);
            line += hexd[b >> 4];
            line += hexd[b & 15];
            if ((i + 1) % c == 0) {
                line += '\n';
                out.put(line);
                line.clear();
            }
        }
        if (!line.empty()) {
            line += '\n';
            out.put(line);
        }
        return out.status(0);
    }
    if (include) {
        std::string line;
        for (size_t i = 0; i < data.size(); ++i) {
            if (i % c == 0) line += "  ";
            auto b = static_cast<unsigned char>(data[i]);
            line += "0x";
            line += hexd[b >> 4];
            line += hexd[b & 15];
            if (i + 1 < data.size()) line += (i + 1) % c == 0 ? ",\n" : ", ";
            else line += '\n';
        }
        out.put(line);
        return out.status(0);
    }
    auto g = static_cast<size_t>(group == 0 ? c : group);
    size_t hex_width = c * 2 + (c + g - 1) / g;
    char b[32];
    for (size_t start = 0; start < data.size(); start += c) {
        size_t n = std::min(c, data.size() - start);
        std::snprintf(b, sizeof b, "%08llx: ", static_cast<unsigned long long>(static_cast<uint64_t>(seek) + start));
        std::string line = b;
        size_t hex_start = line.size();
        for (size_t i = 0; i < n; ++i) {
            auto v = static_cast<unsigned char>(data[start + i]);
            line += hexd[v >> 4];
            line += hexd[v & 15];
            if ((i + 1) % g == 0) line += ' ';
        }
        if (line.size() - hex_start < hex_width) line.append(hex_width - (line.size() - hex_start), ' ');
        line += ' ';
        for (size_t i = 0; i < n; ++i) {
            auto v = static_cast<unsigned char>(data[start + i]);
            line += v >= 32 && v < 127 ? static_cast<char>(v) : '.';
        }
        line += '\n';
        out.put(line);
        if (out.failed()) break;
    }
    return out.status(0);
}

// ---------------------------------------------------------------------------------------------------------
// strings

int cmd_strings(CommandContext& ctx) {
    static constexpr OptionSpec kLong[] = {
        {'a', 0, "all"}, {'n', 0, "bytes", ArgKind::required}, {'t', 0, "radix", ArgKind::required},
        {'e', 0, "encoding", ArgKind::required}, {'f', 0, "print-file-name"}, {'d', 0, "data"},
        {'s', 0, "output-separator", ArgKind::required}, {'w', 0, "include-all-whitespace"},
    };
    // strings accepts -NUMBER as -n NUMBER.
    for (size_t i = 1; i < ctx.argv.size(); ++i) {
        const std::string& a = ctx.argv[i];
        if (a.size() > 1 && a[0] == '-' && a[1] >= '0' && a[1] <= '9') ctx.argv[i] = "-n" + a.substr(1);
        if (a == "--") break;
    }
    std::vector<ParsedOption> opts;
    std::vector<std::string> files;
    if (!parse_getopt(ctx, "adfn:ot:e:s:wT:", kLong, opts, files)) return 1;
    uint64_t min = 4;
    char radix = 0;
    bool print_name = false, all_ws = false;
    std::string sep = "\n";
    for (auto& o : opts) {
        switch (o.id) {
            case 'a': case 'd': case 'T': break;
            case 'n':
                if (!parse_uint(o.value, min) || min == 0) {
                    ctx.error("invalid minimum string length " + o.value);
                    return 1;
                }
                break;
            case 'o': radix = 'o'; break;
            case 't':
                if (o.value.size() != 1 || std::strchr("odx", o.value[0]) == nullptr) {
                    ctx.error("invalid radix " + o.value);
                    return 1;
                }
                radix = o.value[0];
                break;
            case 'e':
                if (o.value != "s" && o.value != "S") {
                    ctx.error("only 8-bit encodings (-e s, -e S) are supported");
                    return 1;
                }
                break;
            case 'f': print_name = true; break;
            case 's': sep = o.value; break;
            case 'w': all_ws = true; break;
            case kOptHelp:
                return print_help(ctx, "[option(s)] [file(s)]\n Display printable strings in [file(s)] (stdin by default)\n");
            case kOptVersion: return version(ctx);
        }
    }
    if (files.empty()) files.push_back("-");
    Output out(ctx);
    int status = 0;
    std::string buf(64 * 1024, '\0');
    for (const auto& f : files) {
        Input in;
        if (f != "-") {
            // binutils says "No such file" for anything it cannot read as a file, directories included.
            auto st = ctx.fs.stat(ctx.resolve(f));
            if (!st || st->is_directory()) {
                out.flush();
                ctx.error("'" + f + "': No such file");
                status = 1;
                continue;
            }
        }
        if (auto e = in.open_input(ctx, f); e != vfs::Errc::ok) {
            out.flush();
            ctx.error(quote_name(f) + ": " + errstr(e));
            status = 1;
            continue;
        }
        std::string cur;
        uint64_t pos = 0, start = 0;
        auto emit = [&]() {
            if (cur.size() >= min) {
                if (print_name) {
                    out.put(f == "-" ? std::string_view("{standard input}") : std::string_view(f));
                    out.put(": ");
                }
                if (radix) {
                    char b[40];
                    const char* fmt = radix == 'o' ? "%7llo " : radix == 'd' ? "%7llu " : "%7llx ";
                    int n = std::snprintf(b, sizeof b, fmt, static_cast<unsigned long long>(start));
                    out.put(std::string_view(b, static_cast<size_t>(n)));
                }
                out.put(cur);
                out.put(sep);
            }
            cur.clear();
        };
        for (;;) {
            auto r = in.read(buf.data(), buf.size());
            if (r.err == vfs::Errc::cancelled) return out.status(130);
            if (r.err != vfs::Errc::ok) {
                out.flush();
                ctx.error(quote_name(f) + ": " + errstr(r.err));
                status = 1;
                break;
            }
            if (r.n == 0) break;
            for (size_t i = 0; i < r.n; ++i, ++pos) {
                auto c = static_cast<unsigned char>(buf[i]);
                bool printable = (c >= 32 && c < 127) || c == '\t' || (all_ws && (c == '\n' || c == '\r' || c == '\v' || c == '\f'));
                if (printable) {
                    if (cur.empty()) start = pos;
                    cur.push_back(static_cast<char>(c));
                } else {
                    emit();
                }
            }
            if (out.failed()) break;
        }
        emit();
    }
    return out.status(status);
}

}  // namespace bashkit::utils::text
