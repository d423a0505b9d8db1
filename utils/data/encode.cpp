// base64 and base32 (GNU coreutils): encode with line wrapping, decode in groups the way gnulib's
// base64_decode_ctx/base32_decode_ctx do (newlines skipped; a bad or short group ends with
// "invalid input", after the bytes that could be decoded).
#include <array>

#include "utils/data/tools.hpp"

namespace bashkit::utils::data {

namespace {

constexpr int kOptWrap = 'w';

// group: base64/base32 style (padded groups); the others are basenc's encodings.
enum class CodecKind { group, base16, base2msbf, base2lsbf, z85 };

struct Codec {
    const char* name;
    std::string_view alphabet;
    size_t group_in;   // bytes per encoded group (3 or 5)
    size_t group_out;  // characters per group (4 or 8)
    CodecKind kind = CodecKind::group;
};

constexpr Codec kBase64{"base64", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", 3, 4};
constexpr Codec kBase32{"base32", "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 5, 8};
constexpr Codec kBase64Url{"base64url", "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_", 3, 4};
constexpr Codec kBase32Hex{"base32hex", "0123456789ABCDEFGHIJKLMNOPQRSTUV", 5, 8};
constexpr Codec kBase16{"base16", "0123456789ABCDEF", 1, 2, CodecKind::base16};
constexpr Codec kBase2Msb{"base2msbf", "01", 1, 8, CodecKind::base2msbf};
constexpr Codec kBase2Lsb{"base2lsbf", "01", 1, 8, CodecKind::base2lsbf};
constexpr Codec kZ85{"z85",
                     "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#", 4, 5,
                     CodecKind::z85};

// basenc's byte-wise encodings (base16, base2, z85) of the whole groups of `in`; z85 leaves a partial group.
void encode_other(const Codec& c, std::string_view in, size_t wrap, size_t& column, std::string& out,
                  size_t& consumed) {
    auto put = [&](char ch) {
        out.push_back(ch);
        if (wrap && ++column == wrap) {
            out.push_back('\n');
            column = 0;
        }
    };
    size_t i = 0;
    if (c.kind == CodecKind::z85) {
        for (; i + 4 <= in.size(); i += 4) {
            uint32_t v = 0;
            for (size_t k = 0; k < 4; ++k) v = (v << 8) | static_cast<unsigned char>(in[i + k]);
            char digits[5];
            for (int k = 4; k >= 0; --k) {
                digits[k] = c.alphabet[v % 85];
                v /= 85;
            }
            for (char d : digits) put(d);
        }
        consumed = i;
        return;
    }
    for (; i < in.size(); ++i) {
        auto b = static_cast<unsigned char>(in[i]);
        if (c.kind == CodecKind::base16) {
            put(c.alphabet[b >> 4]);
            put(c.alphabet[b & 15]);
        } else {
            for (int k = 0; k < 8; ++k) {
                int bit = c.kind == CodecKind::base2msbf ? (b >> (7 - k)) & 1 : (b >> k) & 1;
                put(bit ? '1' : '0');
            }
        }
    }
    consumed = i;
}

// Decodes one whole group of basenc's byte-wise encodings; false when a character is not of the alphabet
// (or a z85 group overflows 32 bits).
bool decode_other(const Codec& c, const std::array<int, 256>& t, std::string_view g, std::string& out) {
    if (c.kind == CodecKind::z85) {
        uint64_t v = 0;
        for (char ch : g) {
            int d = t[static_cast<unsigned char>(ch)];
            if (d < 0) return false;
            v = v * 85 + static_cast<uint64_t>(d);
        }
        if (v > 0xffffffffULL) return false;
        for (int k = 3; k >= 0; --k) out.push_back(static_cast<char>((v >> (8 * k)) & 0xff));
        return true;
    }
    unsigned v = 0;
    for (size_t k = 0; k < g.size(); ++k) {
        int d = t[static_cast<unsigned char>(g[k])];
        if (d < 0) return false;
        if (c.kind == CodecKind::base16)
            v = (v << 4) | static_cast<unsigned>(d);
        else if (c.kind == CodecKind::base2msbf)
            v = (v << 1) | static_cast<unsigned>(d);
        else
            v |= static_cast<unsigned>(d) << k;
    }
    out.push_back(static_cast<char>(v));
    return true;
}

std::array<int, 256> reverse_table(const Codec& c) {
    std::array<int, 256> t{};
    t.fill(-1);
    for (size_t i = 0; i < c.alphabet.size(); ++i) t[static_cast<unsigned char>(c.alphabet[i])] = static_cast<int>(i);
    return t;
}

// Encodes whole groups of `in` (and, when last, the padded tail), keeping the wrap column.
void encode(const Codec& c, std::string_view in, bool last, size_t wrap, size_t& column, std::string& out,
            size_t& consumed) {
    auto put = [&](char ch) {
        out.push_back(ch);
        if (wrap && ++column == wrap) {
            out.push_back('\n');
            column = 0;
        }
    };
    size_t i = 0;
    for (; i + c.group_in <= in.size(); i += c.group_in) {
        uint64_t bits = 0;
        for (size_t k = 0; k < c.group_in; ++k) bits = (bits << 8) | static_cast<unsigned char>(in[i + k]);
        const int per = c.group_in == 3 ? 6 : 5;
        for (size_t k = 0; k < c.group_out; ++k) {
            put(c.alphabet[(bits >> (per * (c.group_out - 1 - k))) & ((1u << per) - 1)]);
        }
    }
    if (last && i < in.size()) {
        size_t rest = in.size() - i;
        uint64_t bits = 0;
        for (size_t k = 0; k < c.group_in; ++k) {
            bits = (bits << 8) | (k < rest ? static_cast<unsigned char>(in[i + k]) : 0u);
        }
        const int per = c.group_in == 3 ? 6 : 5;
        // characters carrying data: ceil(rest*8 / per)
        size_t used = (rest * 8 + per - 1) / per;
        for (size_t k = 0; k < c.group_out; ++k) {
            put(k < used ? c.alphabet[(bits >> (per * (c.group_out - 1 - k))) & ((1u << per) - 1)] : '=');
        }
        i = in.size();
    }
    consumed = i;
}

// gnulib decode_4: emits the bytes a (possibly short) quartet holds; false when it is not a valid group.
bool decode_group64(const std::array<int, 256>& t, const char* g, size_t n, std::string& out) {
    auto v = [&](size_t k) { return t[static_cast<unsigned char>(g[k])]; };
    if (n < 2 || v(0) < 0 || v(1) < 0) return false;
    out.push_back(static_cast<char>((v(0) << 2) | (v(1) >> 4)));
    if (n == 2) return false;
    if (g[2] == '=') return n == 4 && g[3] == '=';
    if (v(2) < 0) return false;
    out.push_back(static_cast<char>(((v(1) << 4) & 0xf0) | (v(2) >> 2)));
    if (n == 3) return false;
    if (g[3] == '=') return n == 4;
    if (v(3) < 0) return false;
    out.push_back(static_cast<char>(((v(2) << 6) & 0xc0) | v(3)));
    return true;
}

// gnulib decode_8: a short group is invalid as a whole; padding may start at 2, 4, 5 or 7.
bool decode_group32(const std::array<int, 256>& t, const char* g, size_t n, std::string& out) {
    if (n < 8) return false;
    auto v = [&](size_t k) { return t[static_cast<unsigned char>(g[k])]; };
    auto pad_from = [&](size_t k) {
        for (size_t j = k; j < 8; ++j)
            if (g[j] != '=') return false;
        return true;
    };
    if (v(0) < 0 || v(1) < 0) return false;
    out.push_back(static_cast<char>((v(0) << 3) | (v(1) >> 2)));
    if (g[2] == '=') return pad_from(2);
    if (v(2) < 0 || v(3) < 0) return false;
    out.push_back(static_cast<char>(((v(1) << 6) & 0xc0) | (v(2) << 1) | (v(3) >> 4)));
    if (g[4] == '=') return pad_from(4);
    if (v(4) < 0) return false;
    out.push_back(static_cast<char>(((v(3) << 4) & 0xf0) | (v(4) >> 1)));
    if (g[5] == '=') return pad_from(5);
    if (v(5) < 0 || v(6) < 0) return false;
    out.push_back(static_cast<char>(((v(4) << 7) & 0x80) | (v(5) << 2) | (v(6) >> 3)));
    if (g[7] == '=') return true;
    if (v(7) < 0) return false;
    out.push_back(static_cast<char>(((v(6) << 5) & 0xe0) | v(7)));
    return true;
}

enum : int { kEncFirst = kOptFirstLongOnly };
constexpr const Codec* kBasencCodecs[] = {&kBase64, &kBase64Url, &kBase32, &kBase32Hex,
                                          &kBase16, &kBase2Msb,  &kBase2Lsb, &kZ85};

// select: basenc, whose encoding comes from an option (--base64 ... --z85).
int run_codec(CommandContext& ctx, const Codec& given, bool select = false) {
    const Codec* chosen = select ? nullptr : &given;
    constexpr OptionSpec kSpecs[] = {
        {'d', 'd', "decode"},
        {'i', 'i', "ignore-garbage"},
        {kOptWrap, 'w', "wrap", ArgKind::required},
        {kOptHelp, 0, "help"},
        {kOptVersion, 0, "version"},
        {kEncFirst + 0, 0, "base64"},
        {kEncFirst + 1, 0, "base64url"},
        {kEncFirst + 2, 0, "base32"},
        {kEncFirst + 3, 0, "base32hex"},
        {kEncFirst + 4, 0, "base16"},
        {kEncFirst + 5, 0, "base2msbf"},
        {kEncFirst + 6, 0, "base2lsbf"},
        {kEncFirst + 7, 0, "z85"},
    };
    ParsedArgs p = parse_args(ctx.argv, select ? std::span<const OptionSpec>(kSpecs)
                                               : std::span<const OptionSpec>(kSpecs).first(5));
    for (const auto& o : p.options)
        if (o.id >= kEncFirst && o.id < kEncFirst + 8) chosen = kBasencCodecs[o.id - kEncFirst];
    bool decode = false, ignore = false;
    size_t wrap = 76;
    for (const auto& o : p.options) {
        switch (o.id) {
            case 'd': decode = true; break;
            case 'i': ignore = true; break;
            case kOptWrap: {
                uint64_t w = 0;
                if (!text::parse_uint(o.value, w)) {
                    ctx.error("invalid wrap size: " + text::quote(o.value));
                    return 1;
                }
                wrap = static_cast<size_t>(w);
                break;
            }
            case kOptHelp: {
                if (select) {
                    (void)ctx.out.write(
                        "Usage: basenc [OPTION]... [FILE]\n"
                        "basenc encode or decode FILE, or standard input, to standard output.\n\n"
                        "      --base64          same as 'base64' program (RFC4648 section 4)\n"
                        "      --base64url       file- and url-safe base64 (RFC4648 section 5)\n"
                        "      --base32          same as 'base32' program (RFC4648 section 6)\n"
                        "      --base32hex       extended hex alphabet base32 (RFC4648 section 7)\n"
                        "      --base16          hex encoding (RFC4648 section 8)\n"
                        "      --base2msbf       bit string with most significant bit (msb) first\n"
                        "      --base2lsbf       bit string with least significant bit (lsb) first\n"
                        "  -d, --decode          decode data\n"
                        "  -i, --ignore-garbage  when decoding, ignore non-alphabet characters\n"
                        "  -w, --wrap=COLS       wrap encoded lines after COLS character (default 76).\n"
                        "                          Use 0 to disable line wrapping\n"
                        "      --z85             ascii85-like encoding (ZeroMQ spec:32/Z85);\n"
                        "                        when encoding, input length must be a multiple of 4;\n"
                        "                        when decoding, input length must be a multiple of 5\n");
                    return 0;
                }
                const Codec& codec = given;
                std::string h = std::string("Usage: ") + codec.name + " [OPTION]... [FILE]\n" +
                                (codec.group_in == 3 ? "Base64" : "Base32") +
                                " encode or decode FILE, or standard input, to standard output.\n\n"
                                "  -d, --decode          decode data\n"
                                "  -i, --ignore-garbage  when decoding, ignore non-alphabet characters\n"
                                "  -w, --wrap=COLS       wrap encoded lines after COLS character (default 76).\n"
                                "                          Use 0 to disable line wrapping\n";
                (void)ctx.out.write(h);
                return 0;
            }
            case kOptVersion: return version(ctx);
        }
    }
    if (!p.ok()) return usage_error(ctx, p.error);
    if (!chosen) return usage_error(ctx, "missing encoding type");
    const Codec& codec = *chosen;
    if (p.operands.size() > 1) return usage_error(ctx, "extra operand " + text::quote(p.operands[1]));
    std::string name = p.operands.empty() ? "-" : p.operands[0];

    text::Input in;
    if (vfs::Errc e = in.open_input(ctx, name); e != vfs::Errc::ok) {
        text::file_error(ctx, name, e);
        return 1;
    }
    text::Output out(ctx);
    const auto table = reverse_table(codec);
    std::string pending;  // encode: bytes not yet in a whole group; decode: characters of a partial group
    std::string chunk(64 * 1024, '\0');
    size_t column = 0;
    std::string buf;
    for (;;) {
        text::ReadResult r = in.read(chunk.data(), chunk.size());
        if (r.err != vfs::Errc::ok) {
            if (r.err == vfs::Errc::cancelled) return out.status(130);
            out.flush();
            text::file_error(ctx, name, r.err);
            return out.status(1);
        }
        const bool last = r.n == 0;
        if (!decode) {
            pending.append(chunk.data(), r.n);
            buf.clear();
            size_t used = 0;
            if (codec.kind == CodecKind::group)
                encode(codec, pending, last, wrap, column, buf, used);
            else
                encode_other(codec, pending, wrap, column, buf, used);
            pending.erase(0, used);
            out.put(buf);
            if (last && !pending.empty()) {  // z85: a partial group
                out.flush();
                ctx.error("invalid input (length must be multiple of 4 characters)");
                return out.status(1);
            }
            if (last) {
                if (wrap && column > 0) out.put('\n');
                return out.status(0);
            }
        } else {
            buf.clear();
            for (size_t k = 0; k < r.n; ++k) {
                char c = chunk[k];
                if (c == '\n') continue;
                if (ignore && c != '=' && table[static_cast<unsigned char>(c)] < 0) continue;
                pending.push_back(c);
                if (codec.kind != CodecKind::group && !ignore && table[static_cast<unsigned char>(c)] < 0) {
                    out.put(buf);
                    out.flush();
                    ctx.error("invalid input");
                    return out.status(1);
                }
                if (codec.kind != CodecKind::group && table[static_cast<unsigned char>(c)] < 0) {
                    pending.pop_back();
                    continue;
                }
                if (pending.size() == codec.group_out) {
                    bool ok = codec.kind != CodecKind::group
                                  ? decode_other(codec, table, pending, buf)
                                  : codec.group_in == 3 ? decode_group64(table, pending.data(), pending.size(), buf)
                                                        : decode_group32(table, pending.data(), pending.size(), buf);
                    pending.clear();
                    if (!ok) {
                        out.put(buf);
                        out.flush();
                        ctx.error("invalid input");
                        return out.status(1);
                    }
                }
            }
            out.put(buf);
            if (last) {
                if (!pending.empty()) {
                    buf.clear();
                    if (codec.kind != CodecKind::group) {
                        // a partial group: nothing more to decode
                    } else if (codec.group_in == 3) {
                        (void)decode_group64(table, pending.data(), pending.size(), buf);
                    } else {
                        (void)decode_group32(table, pending.data(), pending.size(), buf);
                    }
                    out.put(buf);
                    out.flush();
                    ctx.error("invalid input");
                    return out.status(1);
                }
                return out.status(0);
            }
        }
        if (out.failed()) return out.status(1);
    }
}

}  // namespace

int cmd_base64(CommandContext& ctx) { return run_codec(ctx, kBase64); }
int cmd_base32(CommandContext& ctx) { return run_codec(ctx, kBase32); }
int cmd_basenc(CommandContext& ctx) { return run_codec(ctx, kBase64, true); }

int version(CommandContext& ctx) {
    std::string s = ctx.argv.empty() ? "bashkit" : ctx.argv[0];
    s += " (bashkit) 1.0\n";
    (void)ctx.out.write(s);
    return 0;
}

}  // namespace bashkit::utils::data
