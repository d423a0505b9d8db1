// md5sum sha1sum sha224sum sha256sum sha384sum sha512sum (digests by OpenSSL's EVP interface) and cksum
// (the POSIX CRC), with GNU coreutils 9.1's output formats, --check mode, messages and statuses.
#include <openssl/evp.h>

#include <array>
#include <memory>

#include "base/lazy_library.hpp"
#include "utils/data/blake2b.hpp"
#include "utils/data/tools.hpp"

namespace bashkit::utils::data {

namespace {

// libcrypto, loaded by the first digest (base/lazy_library.hpp), not at start-up.
#define BASHKIT_CRYPTO_FUNCTIONS(X)                                                                  \
    X(EVP_MD_CTX_new) X(EVP_MD_CTX_free) X(EVP_DigestInit_ex) X(EVP_DigestUpdate) X(EVP_DigestFinal_ex) \
    X(EVP_md5) X(EVP_sha1) X(EVP_sha224) X(EVP_sha256) X(EVP_sha384) X(EVP_sha512)    \
    X(EVP_sha512_224) X(EVP_sha512_256)

struct CryptoApi {
    BASHKIT_CRYPTO_FUNCTIONS(BASHKIT_API_MEMBER)
};
BASHKIT_DEFINE_API(CryptoApi, crypto_api, BASHKIT_SONAME_LIBCRYPTO, BASHKIT_CRYPTO_FUNCTIONS)

// Only after crypto_api() returned non-null (run_sum checks first).
const CryptoApi& crypto() { return *crypto_api(nullptr); }

struct Algo {
    const char* prog;
    const char* tag;  // --tag name: MD5, SHA1, SHA256...
    decltype(&::EVP_md5) CryptoApi::*md;
    size_t bytes;
    bool blake = false;  // BLAKE2b of `bytes` bytes (our own, b2sum -l); `md` is unused
};

constexpr Algo kMd5{"md5sum", "MD5", &CryptoApi::EVP_md5, 16};
constexpr Algo kSha1{"sha1sum", "SHA1", &CryptoApi::EVP_sha1, 20};
constexpr Algo kSha224{"sha224sum", "SHA224", &CryptoApi::EVP_sha224, 28};
constexpr Algo kSha256{"sha256sum", "SHA256", &CryptoApi::EVP_sha256, 32};
constexpr Algo kSha384{"sha384sum", "SHA384", &CryptoApi::EVP_sha384, 48};
constexpr Algo kSha512{"sha512sum", "SHA512", &CryptoApi::EVP_sha512, 64};
constexpr Algo kSha512_224{"shasum", "SHA512/224", &CryptoApi::EVP_sha512_224, 28};
constexpr Algo kSha512_256{"shasum", "SHA512/256", &CryptoApi::EVP_sha512_256, 32};
constexpr Algo kBlake2b{"b2sum", "BLAKE2b", nullptr, 64, true};

std::string to_hex(const unsigned char* p, size_t n) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string hex;
    for (size_t i = 0; i < n; ++i) {
        hex.push_back(kHex[p[i] >> 4]);
        hex.push_back(kHex[p[i] & 15]);
    }
    return hex;
}

struct MdCtxFree {
    void operator()(EVP_MD_CTX* c) const { crypto().EVP_MD_CTX_free(c); }
};

// Digests a whole input; the error of a failed read otherwise (cancelled included).
// universal: shasum -U, CR LF and lone CR read as LF.
vfs::Errc digest_input(CommandContext& ctx, const Algo& algo, const std::string& name, std::string& hex,
                       bool universal = false) {
    text::Input in;
    if (vfs::Errc e = in.open_input(ctx, name); e != vfs::Errc::ok) return e;
    if (algo.blake) {
        Blake2b b(algo.bytes);
        std::string buf(64 * 1024, '\0');
        for (;;) {
            text::ReadResult r = in.read(buf.data(), buf.size());
            if (r.err != vfs::Errc::ok) return r.err;
            if (r.n == 0) break;
            b.update(std::string_view(buf.data(), r.n));
        }
        auto out = b.final();
        hex = to_hex(out.data(), algo.bytes);
        return vfs::Errc::ok;
    }
    std::unique_ptr<EVP_MD_CTX, MdCtxFree> md(crypto().EVP_MD_CTX_new());
    if (!md || crypto().EVP_DigestInit_ex(md.get(), (crypto().*algo.md)(), nullptr) != 1) return vfs::Errc::io_error;
    bool pending_cr = false;
    std::string buf(64 * 1024, '\0');
    for (;;) {
        text::ReadResult r = in.read(buf.data(), buf.size());
        if (r.err != vfs::Errc::ok) return r.err;
        if (r.n == 0) break;
        if (ctx.cancelled()) return vfs::Errc::cancelled;
        size_t n = r.n;
        if (universal) {
            std::string conv;
            for (size_t i = 0; i < n; ++i) {
                if (pending_cr && buf[i] == '\n') {
                    pending_cr = false;
                    continue;
                }
                pending_cr = buf[i] == '\r';
                conv.push_back(pending_cr ? '\n' : buf[i]);
            }
            if (crypto().EVP_DigestUpdate(md.get(), conv.data(), conv.size()) != 1) return vfs::Errc::io_error;
            continue;
        }
        if (crypto().EVP_DigestUpdate(md.get(), buf.data(), n) != 1) return vfs::Errc::io_error;
    }
    std::array<unsigned char, EVP_MAX_MD_SIZE> out{};
    unsigned int len = 0;
    if (crypto().EVP_DigestFinal_ex(md.get(), out.data(), &len) != 1) return vfs::Errc::io_error;
    static constexpr char kHex[] = "0123456789abcdef";
    hex.clear();
    for (unsigned int i = 0; i < len; ++i) {
        hex.push_back(kHex[out[i] >> 4]);
        hex.push_back(kHex[out[i] & 15]);
    }
    return vfs::Errc::ok;
}

bool needs_escape(std::string_view name) { return name.find_first_of("\\\n") != std::string_view::npos; }

std::string escape_name(std::string_view name) {
    std::string r;
    for (char c : name) {
        if (c == '\\') r += "\\\\";
        else if (c == '\n') r += "\\n";
        else r.push_back(c);
    }
    return r;
}

bool is_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// One line of a checksum file: "HEX  NAME", "HEX *NAME", "HEX NAME" or "ALGO (NAME) = HEX", any of them
// with a leading backslash meaning NAME is escaped (\\ and \n).
// For b2sum without -l (bytes 0) the length comes from the line: the hex digits, or the tag's BLAKE2b-BITS.
bool parse_check_line(const Algo& algo, std::string_view line, std::string& hex, std::string& name,
                      size_t& bytes) {
    size_t i = 0;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    bool escaped = false;
    if (i < line.size() && line[i] == '\\') {
        escaped = true;
        ++i;
    }
    std::string_view rest = line.substr(i);
    size_t hexlen = algo.bytes * 2;
    std::string_view raw_name;
    std::string_view tag(algo.tag);
    if (algo.blake && algo.bytes == 0) {
        if (rest.starts_with("BLAKE2b")) {
            size_t k = 7, bits = 512;
            if (k < rest.size() && rest[k] == '-') {
                bits = 0;
                ++k;
                while (k < rest.size() && std::isdigit(static_cast<unsigned char>(rest[k])) && bits < 100000)
                    bits = bits * 10 + static_cast<size_t>(rest[k++] - '0');
            }
            if (bits == 0 || bits % 8 || bits > 512) return false;
            tag = rest.substr(0, k);
            hexlen = bits / 4;
        } else {
            size_t k = 0;
            while (k < rest.size() && is_hex(rest[k])) ++k;
            if (k == 0 || k % 2 || k > 128) return false;
            hexlen = k;
        }
    }
    bytes = hexlen / 2;
    if (rest.size() > tag.size() + 2 && rest.substr(0, tag.size()) == tag &&
        (rest.substr(tag.size(), 2) == " (" || rest[tag.size()] == '(')) {
        size_t open = rest.find('(', tag.size());
        size_t close = rest.rfind(") = ");
        if (close == std::string_view::npos || close < open) return false;
        raw_name = rest.substr(open + 1, close - open - 1);
        std::string_view h = rest.substr(close + 4);
        if (h.size() != hexlen) return false;
        for (char c : h)
            if (!is_hex(c)) return false;
        hex.assign(h);
    } else {
        if (rest.size() < hexlen + 2) return false;
        for (size_t k = 0; k < hexlen; ++k)
            if (!is_hex(rest[k])) return false;
        hex.assign(rest.substr(0, hexlen));
        size_t k = hexlen;
        if (rest[k] != ' ' && rest[k] != '\t') return false;
        ++k;
        if (k < rest.size() && (rest[k] == ' ' || rest[k] == '*') && k + 1 < rest.size()) ++k;
        raw_name = rest.substr(k);
        if (raw_name.empty()) return false;
    }
    for (char& c : hex) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    name.clear();
    if (!escaped) {
        name.assign(raw_name);
        return true;
    }
    for (size_t k = 0; k < raw_name.size(); ++k) {
        if (raw_name[k] != '\\') {
            name.push_back(raw_name[k]);
            continue;
        }
        if (k + 1 >= raw_name.size()) return false;
        char n = raw_name[++k];
        if (n == '\\') name.push_back('\\');
        else if (n == 'n') name.push_back('\n');
        else return false;
    }
    return true;
}

struct CheckOpts {
    bool quiet = false, status_only = false, strict = false, warn = false, ignore_missing = false;
};

std::string plural(uint64_t n, const char* one, const char* many) {
    return "WARNING: " + std::to_string(n) + " " + (n == 1 ? one : many);
}

int check_file(CommandContext& ctx, const Algo& algo, const std::string& file, const CheckOpts& co,
               text::Output& out) {
    text::Input in;
    if (vfs::Errc e = in.open_input(ctx, file); e != vfs::Errc::ok) {
        text::file_error(ctx, file, e);
        return 1;
    }
    const std::string shown = file == "-" ? "standard input" : file;
    text::LineReader lr(in);
    std::string_view line;
    uint64_t lineno = 0, misformatted = 0, read_failures = 0, mismatched = 0, matched = 0, properly = 0;
    while (lr.next(line)) {
        ++lineno;
        if (ctx.cancelled()) return out.status(130);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.empty() || line[0] == '#') continue;
        std::string hex, name;
        Algo line_algo = algo;
        if (!parse_check_line(algo, line, hex, name, line_algo.bytes)) {
            ++misformatted;
            if (co.warn) {
                out.flush();
                ctx.error(text::quote_name(shown) + ": " + std::to_string(lineno) + ": improperly formatted " +
                          algo.tag + " checksum line");
            }
            continue;
        }
        ++properly;
        std::string actual;
        vfs::Errc e = digest_input(ctx, line_algo, name, actual);
        if (e == vfs::Errc::cancelled) return out.status(130);
        if (e != vfs::Errc::ok) {
            if (co.ignore_missing && e == vfs::Errc::no_such_file) continue;
            ++read_failures;
            out.flush();
            text::file_error(ctx, name, e);
            if (!co.status_only) out.put(name + ": FAILED open or read\n");
            continue;
        }
        const std::string shown_name = name.find('\n') != std::string::npos ? "\\" + escape_name(name) : name;
        if (actual == hex) {
            ++matched;
            if (!co.status_only && !co.quiet) out.put(shown_name + ": OK\n");
        } else {
            ++mismatched;
            if (!co.status_only) out.put(shown_name + ": FAILED\n");
        }
    }
    if (lr.error() == vfs::Errc::cancelled) return out.status(130);
    if (lr.error() != vfs::Errc::ok) {
        out.flush();
        text::file_error(ctx, file, lr.error());
        return 1;
    }
    out.flush();
    if (properly == 0) {
        ctx.error(text::quote_name(shown) + ": no properly formatted checksum lines found");
        return 1;
    }
    if (!co.status_only) {
        if (misformatted) ctx.error(plural(misformatted, "line is improperly formatted", "lines are improperly formatted"));
        if (read_failures) ctx.error(plural(read_failures, "listed file could not be read", "listed files could not be read"));
        if (mismatched) ctx.error(plural(mismatched, "computed checksum did NOT match", "computed checksums did NOT match"));
        if (co.ignore_missing && matched == 0 && mismatched == 0) {
            ctx.error(text::quote_name(shown) + ": no file was verified");
        }
    }
    if (co.ignore_missing && matched == 0 && mismatched == 0) return 1;
    bool ok = mismatched == 0 && read_failures == 0 && !(co.strict && misformatted);
    return ok ? 0 : 1;
}

enum : int {
    kOptTag = kOptFirstLongOnly,
    kOptQuiet,
    kOptStatus,
    kOptStrict,
    kOptIgnoreMissing,
};

int run_sum(CommandContext& ctx, const Algo& base_algo) {
    Algo algo = base_algo;
    std::string blake_tag;
    if (!algo.blake) {
        if (std::string why; !crypto_api(&why)) {
            (void)ctx.err.write(std::string(algo.prog) + ": libcrypto cannot be loaded: " + why + "\n");
            return 1;
        }
    }
    constexpr OptionSpec kSpecs[] = {
        {'b', 'b', "binary"},
        {'c', 'c', "check"},
        {kOptTag, 0, "tag"},
        {'t', 't', "text"},
        {'z', 'z', "zero"},
        {kOptIgnoreMissing, 0, "ignore-missing"},
        {kOptQuiet, 0, "quiet"},
        {kOptStatus, 0, "status"},
        {kOptStrict, 0, "strict"},
        {'w', 'w', "warn"},
        {kOptHelp, 0, "help"},
        {kOptVersion, 0, "version"},
        {'l', 'l', "length", ArgKind::required},  // b2sum only
    };
    ParsedArgs p = parse_args(ctx.argv, algo.blake ? std::span<const OptionSpec>(kSpecs)
                                                   : std::span<const OptionSpec>(kSpecs).first(std::size(kSpecs) - 1));
    bool binary = false, text_mode = false, check = false, tag = false, zero = false;
    CheckOpts co;
    const char* only_check = nullptr;
    for (const auto& o : p.options) {
        switch (o.id) {
            case 'b': binary = true; text_mode = false; break;
            case 't': text_mode = true; binary = false; break;
            case 'c': check = true; break;
            case kOptTag: tag = true; binary = true; text_mode = false; break;
            case 'z': zero = true; break;
            case kOptIgnoreMissing: co.ignore_missing = true; only_check = "--ignore-missing"; break;
            case kOptQuiet: co.quiet = true; co.status_only = false; co.warn = false; only_check = "--quiet"; break;
            case kOptStatus: co.status_only = true; co.quiet = false; co.warn = false; only_check = "--status"; break;
            case kOptStrict: co.strict = true; only_check = "--strict"; break;
            case 'w': co.warn = true; co.quiet = co.status_only = false; only_check = "--warn"; break;
            case kOptHelp:
                (void)ctx.out.write(std::string("Usage: ") + algo.prog + " [OPTION]... [FILE]...\nPrint or check " +
                                    algo.tag + " checksums.\n");
                return 0;
            case kOptVersion: return version(ctx);
            case 'l': {
                uint64_t bits = 0;
                if (!text::parse_uint(o.value, bits) || bits > 512) {
                    ctx.error("invalid length: " + text::quote(o.value));
                    if (bits > 512) ctx.error("maximum digest length for 'BLAKE2b' is 512 bits");
                    return 1;
                }
                if (bits % 8) {
                    ctx.error("invalid length: " + text::quote(o.value));
                    ctx.error("length is not a multiple of 8");
                    return 1;
                }
                algo.bytes = bits == 0 ? 64 : bits / 8;
                blake_tag = algo.bytes == 64 ? "BLAKE2b" : "BLAKE2b-" + std::to_string(bits);
                algo.tag = blake_tag.c_str();
                break;
            }
        }
    }
    if (!p.ok()) return usage_error(ctx, p.error);
    bool saw_text = false, saw_binary = false;
    for (const auto& o : p.options) {
        if (o.id == 't') saw_text = true;
        if (o.id == 'b') saw_binary = true;
    }
    if (tag && text_mode) return usage_error(ctx, "--tag does not support --text mode");
    if (zero && check) return usage_error(ctx, "the --zero option is not supported when verifying checksums");
    if (tag && check) return usage_error(ctx, "the --tag option is meaningless when verifying checksums");
    if ((saw_text || saw_binary) && check) {
        return usage_error(ctx, "the --binary and --text options are meaningless when verifying checksums");
    }
    if (only_check && !check) {
        return usage_error(ctx, std::string("the ") + only_check + " option is meaningful only when verifying checksums");
    }
    std::vector<std::string> files = p.operands;
    if (files.empty()) files.emplace_back("-");
    text::Output out(ctx);
    int status = 0;
    for (const std::string& f : files) {
        if (ctx.cancelled()) return out.status(130);
        if (check) {
            Algo check_algo = algo;
            if (check_algo.blake) {
                check_algo.bytes = 0;  // the length of each line's digest
                check_algo.tag = "BLAKE2b";
            }
            if (check_file(ctx, check_algo, f, co, out) != 0) status = 1;
            continue;
        }
        std::string hex;
        vfs::Errc e = digest_input(ctx, algo, f, hex);
        if (e == vfs::Errc::cancelled) return out.status(130);
        if (e != vfs::Errc::ok) {
            out.flush();
            text::file_error(ctx, f, e);
            status = 1;
            continue;
        }
        const bool esc = !zero && needs_escape(f);
        std::string line = esc ? "\\" : "";
        const std::string shown = esc ? escape_name(f) : f;
        if (tag) {
            line += std::string(algo.tag) + " (" + shown + ") = " + hex;
        } else {
            line += hex + (binary ? " *" : "  ") + shown;
        }
        line.push_back(zero ? '\0' : '\n');
        out.put(line);
    }
    return out.status(status);
}

// POSIX cksum: CRC-32 (polynomial 0x04C11DB7, most significant bit first) over the data and then its length.
uint32_t crc_table_entry(uint32_t i) {
    uint32_t c = i << 24;
    for (int k = 0; k < 8; ++k) c = (c & 0x80000000u) ? (c << 1) ^ 0x04C11DB7u : c << 1;
    return c;
}

const std::array<uint32_t, 256>& crc_table() {
    static const std::array<uint32_t, 256> t = [] {
        std::array<uint32_t, 256> r{};
        for (uint32_t i = 0; i < 256; ++i) r[i] = crc_table_entry(i);
        return r;
    }();
    return t;
}

}  // namespace

int cmd_md5sum(CommandContext& ctx) { return run_sum(ctx, kMd5); }
int cmd_sha1sum(CommandContext& ctx) { return run_sum(ctx, kSha1); }
int cmd_sha224sum(CommandContext& ctx) { return run_sum(ctx, kSha224); }
int cmd_sha256sum(CommandContext& ctx) { return run_sum(ctx, kSha256); }
int cmd_sha384sum(CommandContext& ctx) { return run_sum(ctx, kSha384); }
int cmd_sha512sum(CommandContext& ctx) { return run_sum(ctx, kSha512); }
int cmd_b2sum(CommandContext& ctx) { return run_sum(ctx, kBlake2b); }

int cmd_cksum(CommandContext& ctx) {
    constexpr OptionSpec kSpecs[] = {
        {kOptHelp, 0, "help"},
        {kOptVersion, 0, "version"},
    };
    ParsedArgs p = parse_args(ctx.argv, kSpecs);
    for (const auto& o : p.options) {
        if (o.id == kOptHelp) {
            (void)ctx.out.write("Usage: cksum [FILE]...\nPrint the POSIX CRC checksum and byte count of each FILE.\n");
            return 0;
        }
        if (o.id == kOptVersion) return version(ctx);
    }
    if (!p.ok()) return usage_error(ctx, p.error);
    const auto& table = crc_table();
    std::vector<std::string> files = p.operands;
    const bool named = !files.empty();
    if (!named) files.emplace_back("-");
    text::Output out(ctx);
    int status = 0;
    std::string buf(64 * 1024, '\0');
    for (const std::string& f : files) {
        text::Input in;
        vfs::Errc e = in.open_input(ctx, f);
        uint32_t crc = 0;
        uint64_t size = 0;
        while (e == vfs::Errc::ok) {
            text::ReadResult r = in.read(buf.data(), buf.size());
            if (r.err != vfs::Errc::ok) {
                e = r.err;
                break;
            }
            if (r.n == 0) break;
            size += r.n;
            for (size_t i = 0; i < r.n; ++i) {
                crc = (crc << 8) ^ table[((crc >> 24) ^ static_cast<unsigned char>(buf[i])) & 0xff];
            }
        }
        if (e == vfs::Errc::cancelled) return out.status(130);
        if (e != vfs::Errc::ok) {
            out.flush();
            text::file_error(ctx, f, e);
            status = 1;
            continue;
        }
        for (uint64_t n = size; n; n >>= 8) crc = (crc << 8) ^ table[((crc >> 24) ^ (n & 0xff)) & 0xff];
        crc = ~crc;
        std::string line = std::to_string(crc) + " " + std::to_string(size);
        if (named) line += " " + f;
        line.push_back('\n');
        out.put(line);
    }
    return out.status(status);
}

}  // namespace bashkit::utils::data

// ---------------------------------------------------------------------------------------------------------
// shasum: Perl's Digest::SHA front end (6.02): its options, output, check-file syntax and messages. -0 (BITS
// mode, digests of bit strings) is not supported: OpenSSL digests whole bytes.
namespace bashkit::utils::data {

namespace {

enum : int {
    kShaTag = kOptFirstLongOnly,
    kShaStrict,
    kShaIgnoreMissing,
};

const Algo* sha_algo(uint64_t n) {
    switch (n) {
        case 1: return &kSha1;
        case 224: return &kSha224;
        case 256: return &kSha256;
        case 384: return &kSha384;
        case 512: return &kSha512;
        case 512224: return &kSha512_224;
        case 512256: return &kSha512_256;
        default: return nullptr;
    }
}

int sha_usage(CommandContext& ctx, std::string_view msg) {
    (void)ctx.err.write(std::string(msg) + "Type shasum -h for help\n");
    return 1;
}

struct ShaCheck {
    bool status = false, quiet = false, warn = false, strict = false, ignore_missing = false;
    uint64_t alg = 1;
};

// die_status: set when the check file cannot be opened (Perl's die exits with errno).
bool sha_verify(CommandContext& ctx, const std::string& file, const ShaCheck& o, text::Output& out,
                int& die_status) {
    text::Input in;
    if (vfs::Errc e = in.open_input(ctx, file); e != vfs::Errc::ok) {
        out.flush();
        (void)ctx.err.write("shasum: " + file + ": " + std::string(text::errstr(e)) + "\n");
        die_status = e == vfs::Errc::no_such_file ? 2 : e == vfs::Errc::permission_denied ? 13 : 1;
        return false;
    }
    const std::string shown = file == "-" ? "standard input" : file;
    auto warn = [&](const std::string& m) {
        out.flush();
        (void)ctx.err.write("shasum: " + m + "\n");
    };
    text::LineReader lr(in);
    std::string_view line;
    uint64_t lineno = 0, fmt_errs = 0, read_errs = 0, match_errs = 0, fmt_ok = 0, ok_count = 0;
    bool err = false;
    while (lr.next(line)) {
        ++lineno;
        if (ctx.cancelled()) return false;
        if (!line.empty() && line[0] == '#') continue;
        size_t i = 0;
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
        bool bslash = i < line.size() && line[i] == '\\';
        size_t j = i + (bslash ? 1 : 0);
        const Algo* algo = nullptr;
        std::string sum, fname;
        char modesym = 0;
        bool parsed = false;
        if (line.substr(j).starts_with("SHA")) {
            // SHA<alg> (<name>) = <hex>: the name is the longest run that still leaves ") = HEX" at the end.
            std::string_view rest = line.substr(j + 3);
            size_t sp = rest.find_first_of(" \t\r\n\v\f");
            if (sp != std::string_view::npos && sp > 0 && rest.substr(sp).starts_with(" (")) {
                std::string alg_name;
                for (char c : rest.substr(0, sp))
                    if (c != '/') alg_name += c;
                std::string_view after = rest.substr(sp + 2);
                size_t close = after.rfind(") = ");
                while (close != std::string_view::npos && close > 0) {
                    std::string_view hex = after.substr(close + 4);
                    size_t h = 0;
                    while (h < hex.size() && is_hex(hex[h])) ++h;
                    if (h > 0) {
                        fname.assign(after.substr(0, close));
                        sum.assign(hex.substr(0, h));
                        uint64_t n = 0;
                        parsed = text::parse_uint(alg_name, n);
                        algo = parsed ? sha_algo(n) : nullptr;
                        modesym = '*';
                        break;
                    }
                    close = close == 0 ? std::string_view::npos : after.rfind(") = ", close - 1);
                }
            }
        } else {
            size_t h = j;
            while (h < line.size() && is_hex(line[h])) ++h;
            if (h > j && h + 2 < line.size() + 0 && (line[h] == ' ' || line[h] == '\t') &&
                std::string_view(" *^U").find(line[h + 1]) != std::string_view::npos && h + 2 < line.size()) {
                sum.assign(line.substr(j, h - j));
                modesym = line[h + 1];
                fname.assign(line.substr(h + 2));
                uint64_t n = 0;
                switch (sum.size()) {
                    case 40: n = 1; break;
                    case 56: n = o.alg == 512224 ? 512224 : 224; break;
                    case 64: n = o.alg == 512256 ? 512256 : 256; break;
                    case 96: n = 384; break;
                    case 128: n = 512; break;
                }
                algo = sha_algo(n);
                parsed = true;
            }
        }
        if (!parsed || !algo) {
            if (o.warn) warn(shown + ": " + std::to_string(lineno) + ": improperly formatted SHA checksum line");
            ++fmt_errs;
            if (o.strict) err = true;
            continue;
        }
        ++fmt_ok;
        if (bslash) {
            std::string u;
            for (size_t k = 0; k < fname.size(); ++k) {
                if (fname[k] == '\\' && k + 1 < fname.size() && (fname[k + 1] == '\\' || fname[k + 1] == 'n')) {
                    u.push_back(fname[k + 1] == 'n' ? '\n' : '\\');
                    ++k;
                } else {
                    u.push_back(fname[k]);
                }
            }
            fname = std::move(u);
        }
        if (o.ignore_missing && !ctx.fs.lexists(ctx.resolve(fname))) continue;
        std::string digest;
        vfs::Errc e = digest_input(ctx, *algo, fname, digest, modesym == 'U');
        if (e == vfs::Errc::cancelled) return false;
        bool matched = false;
        std::string rsp = fname + ": ";
        if (e != vfs::Errc::ok) {
            warn(fname + ": " + std::string(text::errstr(e)));
            rsp += "FAILED open or read\n";
            err = true;
            ++read_errs;
        } else {
            for (char& c : sum) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            if (sum == digest) {
                rsp += "OK\n";
                matched = true;
                ++ok_count;
            } else {
                rsp += "FAILED\n";
                err = true;
                ++match_errs;
            }
        }
        if (!(o.status || (o.quiet && matched))) {
            out.put(rsp);
            out.flush();
        }
    }
    if (lr.error() != vfs::Errc::ok) return false;
    if (fmt_ok == 0) {
        warn(shown + ": no properly formatted SHA checksum lines found");
        err = true;
    } else if (!o.status) {
        if (fmt_errs)
            warn("WARNING: " + std::to_string(fmt_errs) + " line" + (fmt_errs > 1 ? "s are" : " is") +
                 " improperly formatted");
        if (read_errs)
            warn("WARNING: " + std::to_string(read_errs) + " listed file" + (read_errs > 1 ? "s" : "") +
                 " could not be read");
        if (match_errs)
            warn("WARNING: " + std::to_string(match_errs) + " computed checksum" + (match_errs > 1 ? "s" : "") +
                 " did NOT match");
    }
    if (o.ignore_missing && ok_count == 0 && fmt_ok) {
        if (!o.status) warn(shown + ": no file was verified");
        err = true;
    }
    return !err;
}

}  // namespace

int cmd_shasum(CommandContext& ctx) {
    if (std::string why; !crypto_api(&why)) {
        (void)ctx.err.write("shasum: libcrypto cannot be loaded: " + why + "\n");
        return 1;
    }
    constexpr OptionSpec kSpecs[] = {
        {'b', 'b', "binary"},         {'c', 'c', "check"},      {'t', 't', "text"},
        {'a', 'a', "algorithm", ArgKind::required},            {'s', 's', "status"},
        {'w', 'w', "warn"},           {'q', 'q', "quiet"},      {'h', 'h', "help"},
        {'v', 'v', "version"},        {'0', '0', "01"},         {'U', 'U', "UNIVERSAL"},
        {kShaTag, 0, "tag"},          {kShaStrict, 0, "strict"}, {kShaIgnoreMissing, 0, "ignore-missing"},
    };
    ParsedArgs p = parse_args(ctx.argv, kSpecs);
    if (!p.ok()) {
        // Getopt::Long's wording: "Unknown option: x", "Option a requires an argument".
        const std::string& e = p.error;
        std::string name;
        if (auto q = e.find('\''); q != std::string::npos) {
            auto q2 = e.find('\'', q + 1);
            name = e.substr(q + 1, q2 == std::string::npos ? std::string::npos : q2 - q - 1);
            while (!name.empty() && name[0] == '-') name.erase(0, 1);
            if (auto eq = name.find('='); eq != std::string::npos) name.resize(eq);
        }
        if (e.find("requires an argument") != std::string::npos)
            return sha_usage(ctx, "Option " + name + " requires an argument\n");
        return sha_usage(ctx, "Unknown option: " + name + "\n");
    }
    bool binary = false, text_mode = false, bits = false, universal = false, check = false, tag = false;
    bool help = false, show_version = false;
    ShaCheck o;
    bool have_alg = false;
    std::string alg_text;
    for (const auto& opt : p.options) {
        switch (opt.id) {
            case 'b': binary = true; break;
            case 't': text_mode = true; break;
            case '0': bits = true; break;
            case 'U': universal = true; break;
            case 'c': check = true; break;
            case 's': o.status = true; break;
            case 'w': o.warn = true; break;
            case 'q': o.quiet = true; break;
            case 'h': help = true; break;
            case 'v': show_version = true; break;
            case 'a': alg_text = opt.value; have_alg = true; break;
            case kShaTag: tag = true; break;
            case kShaStrict: o.strict = true; break;
            case kShaIgnoreMissing: o.ignore_missing = true; break;
        }
    }
    if (have_alg) {
        std::string_view v = alg_text;
        bool neg = !v.empty() && (v[0] == '-' || v[0] == '+');
        uint64_t n = 0;
        if (!text::parse_uint(neg ? v.substr(1) : v, n))
            return sha_usage(ctx, "Value \"" + alg_text + "\" invalid for option a (number expected)\n");
        o.alg = neg && v[0] == '-' ? 0 : n;
    }
    if (help) {
        return write_out(ctx,
                         "Usage: shasum [OPTION]... [FILE]...\n"
                         "Print or check SHA checksums.\n"
                         "With no FILE, or when FILE is -, read standard input.\n"
                         "\n"
                         "  -a, --algorithm   1 (default), 224, 256, 384, 512, 512224, 512256\n"
                         "  -b, --binary      read in binary mode\n"
                         "  -c, --check       read SHA sums from the FILEs and check them\n"
                         "      --tag         create a BSD-style checksum\n"
                         "  -t, --text        read in text mode (default)\n"
                         "  -U, --UNIVERSAL   read in Universal Newlines mode\n"
                         "                        produces same digest on Windows/Unix/Mac\n"
                         "  -0, --01          read in BITS mode (not supported here)\n"
                         "\n"
                         "The following five options are useful only when verifying checksums:\n"
                         "      --ignore-missing  don't fail or report status for missing files\n"
                         "  -q, --quiet       don't print OK for each successfully verified file\n"
                         "  -s, --status      don't output anything, status code shows success\n"
                         "      --strict      exit non-zero for improperly formatted checksum lines\n"
                         "  -w, --warn        warn about improperly formatted checksum lines\n"
                         "\n"
                         "  -h, --help        display this help and exit\n"
                         "  -v, --version     output version information and exit\n")
                   ? 0
                   : 1;
    }
    if ((binary ? 1 : 0) + (text_mode ? 1 : 0) + (bits ? 1 : 0) + (universal ? 1 : 0) > 1)
        return sha_usage(ctx, "shasum: Ambiguous file mode\n");
    if (o.warn && !check) return sha_usage(ctx, "shasum: --warn option used only when verifying checksums\n");
    if (o.status && !check) return sha_usage(ctx, "shasum: --status option used only when verifying checksums\n");
    if (o.quiet && !check) return sha_usage(ctx, "shasum: --quiet option used only when verifying checksums\n");
    if (o.ignore_missing && !check)
        return sha_usage(ctx, "shasum: --ignore-missing option used only when verifying checksums\n");
    if (o.strict && !check) return sha_usage(ctx, "shasum: --strict option used only when verifying checksums\n");
    if (tag && text_mode) return sha_usage(ctx, "shasum: --tag does not support --text mode\n");
    if (tag && universal) return sha_usage(ctx, "shasum: --tag does not support Universal Newlines mode\n");
    if (tag && bits) return sha_usage(ctx, "shasum: --tag does not support BITS mode\n");
    const Algo* algo = sha_algo(o.alg);
    if (!algo) return sha_usage(ctx, "shasum: Unrecognized algorithm\n");
    if (show_version) return write_out(ctx, "6.02\n") ? 0 : 1;
    if (bits) {
        (void)ctx.err.write("shasum: BITS mode (-0) is not supported\n");
        return 1;
    }
    const char modesym = binary ? '*' : (universal ? 'U' : ' ');
    std::vector<std::string> files = p.operands;
    if (files.empty()) files.emplace_back("-");
    text::Output out(ctx);
    int status = 0;
    for (const std::string& f : files) {
        if (ctx.cancelled()) return out.status(130);
        if (check) {
            int die_status = 0;
            if (!sha_verify(ctx, f, o, out, die_status)) status = 1;
            if (die_status) return out.status(die_status);
            if (ctx.cancelled()) return out.status(130);
            continue;
        }
        std::string hex;
        vfs::Errc e = digest_input(ctx, *algo, f, hex, universal);
        if (e == vfs::Errc::cancelled) return out.status(130);
        if (e != vfs::Errc::ok) {
            out.flush();
            (void)ctx.err.write("shasum: " + f + ": " + std::string(text::errstr(e)) + "\n");
            status = 1;
            continue;
        }
        std::string line;
        std::string shown = f;
        if (f.find_first_of("\n\\") != std::string::npos) {
            line = "\\";
            shown = escape_name(f);
        }
        if (tag)
            line += std::string(algo->tag) + " (" + shown + ") = " + hex + "\n";
        else
            line += hex + " " + modesym + shown + "\n";
        out.put(line);
        out.flush();
    }
    return out.status(status);
}

}  // namespace bashkit::utils::data
