// Hashes, zlib, object formats, and the object database of a Repo: loose objects and packs (.idx v2,
// OFS/REF deltas).
#include <openssl/evp.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstring>

#include "base/lazy_library.hpp"
#include "utils/git/core.hpp"

namespace bashkit::utils::git {

namespace {
#define BASHKIT_GIT_CRYPTO_FUNCTIONS(X) \
    X(EVP_MD_CTX_new) X(EVP_MD_CTX_free) X(EVP_DigestInit_ex) X(EVP_DigestUpdate) X(EVP_DigestFinal_ex) X(EVP_sha1)
struct GitCryptoApi {
    BASHKIT_GIT_CRYPTO_FUNCTIONS(BASHKIT_API_MEMBER)
};
BASHKIT_DEFINE_API(GitCryptoApi, git_crypto_api, BASHKIT_SONAME_LIBCRYPTO, BASHKIT_GIT_CRYPTO_FUNCTIONS)
}  // namespace

const std::string kNullOid(40, '0');
const std::string kEmptyTreeOid = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
const std::string kEmptyBlobOid = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391";

void check_cancel(const CommandContext& ctx) {
    if (ctx.cancelled()) throw Cancelled{};
}

std::string sha1_raw(std::string_view data) {
    std::string why;
    const GitCryptoApi* api = git_crypto_api(&why);
    if (!api) throw Fatal{"libcrypto cannot be loaded: " + why};
    EVP_MD_CTX* md = api->EVP_MD_CTX_new();
    if (!md) throw Fatal{"out of memory (SHA-1)"};
    std::array<unsigned char, EVP_MAX_MD_SIZE> out{};
    unsigned len = 0;
    bool ok = api->EVP_DigestInit_ex(md, api->EVP_sha1(), nullptr) == 1 &&
              api->EVP_DigestUpdate(md, data.data(), data.size()) == 1 &&
              api->EVP_DigestFinal_ex(md, out.data(), &len) == 1;
    api->EVP_MD_CTX_free(md);
    if (!ok || len != 20) throw Fatal{"SHA-1 failed"};
    return std::string(reinterpret_cast<const char*>(out.data()), 20);
}

std::string to_hex(std::string_view raw) {
    static const char* d = "0123456789abcdef";
    std::string s(raw.size() * 2, '\0');
    char* o = s.data();
    for (unsigned char c : raw) {
        *o++ = d[c >> 4];
        *o++ = d[c & 15];
    }
    return s;
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

std::string from_hex(std::string_view hex) {
    if (hex.size() != 40) return {};
    std::string raw(20, '\0');
    for (size_t i = 0; i < 20; ++i) {
        int h = hexval(hex[2 * i]), l = hexval(hex[2 * i + 1]);
        if (h < 0 || l < 0) return {};
        raw[i] = char(h * 16 + l);
    }
    return raw;
}

bool is_hex_oid(std::string_view s) {
    if (s.size() != 40) return false;
    for (char c : s)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    return true;
}

std::string inflate_all(const CommandContext& ctx, std::string_view in, uint64_t max_out, size_t* consumed,
                        const std::string& what) {
    z_stream zs{};
    if (inflateInit(&zs) != Z_OK) throw Fatal{"zlib init failed"};
    // Ended on every way out: the cancel check and the memory charge throw too.
    struct End {
        z_stream& z;
        ~End() { inflateEnd(&z); }
    } end{zs};
    interp::MemoryCharge held(ctx.memory);
    std::string out;
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    zs.avail_in = static_cast<uInt>(std::min<size_t>(in.size(), 0x7fffffff));
    int rc = Z_OK;
    while (rc != Z_STREAM_END) {
        check_cancel(ctx);
        size_t chunk = out.size() < 65536 ? 65536 : out.size();
        if (out.size() + chunk > max_out + 1) chunk = max_out + 1 - out.size();
        if (chunk == 0) {
            throw Fatal{what + " is larger than its header says (or too large)"};
        }
        held.add(chunk);
        size_t old = out.size();
        out.resize(old + chunk);
        zs.next_out = reinterpret_cast<Bytef*>(out.data() + old);
        zs.avail_out = static_cast<uInt>(chunk);
        rc = inflate(&zs, Z_NO_FLUSH);
        out.resize(old + chunk - zs.avail_out);
        if (rc == Z_STREAM_END) break;
        if (rc != Z_OK && !(rc == Z_BUF_ERROR && zs.avail_out == 0)) {
            throw Fatal{"corrupt " + what + " (zlib: " + std::string(zs.msg ? zs.msg : "bad data") + ")"};
        }
        if (zs.avail_in == 0 && zs.avail_out != 0) {
            throw Fatal{"corrupt " + what + " (truncated zlib stream)"};
        }
        if (out.size() > max_out) {
            throw Fatal{what + " inflates past its declared size"};
        }
    }
    if (consumed) *consumed = zs.total_in;
    return out;
}

std::string deflate_all(std::string_view in) {
    uLongf bound = compressBound(static_cast<uLong>(in.size()));
    std::string out(bound, '\0');
    if (compress2(reinterpret_cast<Bytef*>(out.data()), &bound, reinterpret_cast<const Bytef*>(in.data()),
                  static_cast<uLong>(in.size()), Z_DEFAULT_COMPRESSION) != Z_OK)
        throw Fatal{"zlib compression failed"};
    out.resize(bound);
    return out;
}

std::string_view type_name(ObjType t) {
    switch (t) {
        case ObjType::commit: return "commit";
        case ObjType::tree: return "tree";
        case ObjType::blob: return "blob";
        case ObjType::tag: return "tag";
        default: return "none";
    }
}

ObjType type_from_name(std::string_view n) {
    if (n == "commit") return ObjType::commit;
    if (n == "tree") return ObjType::tree;
    if (n == "blob") return ObjType::blob;
    if (n == "tag") return ObjType::tag;
    return ObjType::none;
}

std::string mode_string(uint32_t mode) {
    char buf[16];
    snprintf(buf, sizeof buf, "%o", mode);
    return buf;
}

std::vector<TreeEntry> parse_tree(std::string_view data, const std::string& oid) {
    std::vector<TreeEntry> out;
    size_t i = 0;
    while (i < data.size()) {
        size_t sp = data.find(' ', i);
        if (sp == std::string_view::npos || sp == i || sp - i > 7) throw Fatal{"corrupt tree object " + oid};
        uint32_t mode = 0;
        for (size_t k = i; k < sp; ++k) {
            if (data[k] < '0' || data[k] > '7') throw Fatal{"corrupt tree object " + oid};
            mode = mode * 8 + uint32_t(data[k] - '0');
        }
        size_t nul = data.find('\0', sp + 1);
        if (nul == std::string_view::npos || nul + 21 > data.size()) throw Fatal{"corrupt tree object " + oid};
        TreeEntry e;
        e.mode = mode;
        e.name = std::string(data.substr(sp + 1, nul - sp - 1));
        e.oid = to_hex(data.substr(nul + 1, 20));
        if (e.name.empty() || e.name == "." || e.name == ".." || e.name.find('/') != std::string::npos)
            throw Fatal{"invalid path '" + e.name + "' in tree " + oid};
        out.push_back(std::move(e));
        i = nul + 21;
    }
    return out;
}

static bool tree_less(const TreeEntry& a, const TreeEntry& b) {
    std::string ka = a.name + (a.is_tree() ? "/" : ""), kb = b.name + (b.is_tree() ? "/" : "");
    return ka < kb;
}

std::string format_tree(std::vector<TreeEntry> entries) {
    std::sort(entries.begin(), entries.end(), tree_less);
    std::string out;
    for (const auto& e : entries) {
        out += mode_string(e.mode);
        out += ' ';
        out += e.name;
        out += '\0';
        out += from_hex(e.oid);
    }
    return out;
}

Signature parse_signature(std::string_view raw) {
    Signature s;
    s.raw = std::string(raw);
    size_t lt = raw.find('<'), gt = raw.find('>');
    if (lt == std::string_view::npos || gt == std::string_view::npos || gt < lt) return s;
    s.name = std::string(raw.substr(0, lt));
    while (!s.name.empty() && s.name.back() == ' ') s.name.pop_back();
    s.email = std::string(raw.substr(lt + 1, gt - lt - 1));
    std::string_view rest = raw.substr(gt + 1);
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    size_t sp = rest.find(' ');
    std::string_view t = rest.substr(0, sp);
    for (char c : t)
        if (c >= '0' && c <= '9') s.time = s.time * 10 + (c - '0');
    if (sp != std::string_view::npos) {
        std::string_view tz = rest.substr(sp + 1);
        if (tz.size() == 5 && (tz[0] == '+' || tz[0] == '-')) {
            int v = (tz[1] - '0') * 600 + (tz[2] - '0') * 60 + (tz[3] - '0') * 10 + (tz[4] - '0');
            s.tz = tz[0] == '-' ? -v : v;
            s.tz_text = std::string(tz);
        }
    }
    return s;
}

Commit parse_commit(std::string_view data, const std::string& oid) {
    Commit c;
    c.oid = oid;
    size_t i = 0;
    while (i < data.size()) {
        size_t nl = data.find('\n', i);
        if (nl == std::string_view::npos) nl = data.size();
        std::string_view line = data.substr(i, nl - i);
        i = nl + 1;
        if (line.empty()) {
            c.message = std::string(data.substr(std::min(i, data.size())));
            break;
        }
        if (line.starts_with("tree ")) c.tree = std::string(line.substr(5));
        else if (line.starts_with("parent ")) c.parents.emplace_back(line.substr(7));
        else if (line.starts_with("author ")) c.author = parse_signature(line.substr(7));
        else if (line.starts_with("committer ")) c.committer = parse_signature(line.substr(10));
    }
    if (!is_hex_oid(c.tree)) throw Fatal{"corrupt commit " + oid};
    for (const auto& p : c.parents)
        if (!is_hex_oid(p)) throw Fatal{"corrupt commit " + oid};
    return c;
}

Tag parse_tag(std::string_view data) {
    Tag t;
    size_t i = 0;
    while (i < data.size()) {
        size_t nl = data.find('\n', i);
        if (nl == std::string_view::npos) nl = data.size();
        std::string_view line = data.substr(i, nl - i);
        i = nl + 1;
        if (line.empty()) {
            t.message = std::string(data.substr(std::min(i, data.size())));
            break;
        }
        if (line.starts_with("object ")) t.object = std::string(line.substr(7));
        else if (line.starts_with("type ")) t.type = std::string(line.substr(5));
        else if (line.starts_with("tag ")) t.tag = std::string(line.substr(4));
        else if (line.starts_with("tagger ")) t.tagger = parse_signature(line.substr(7));
    }
    return t;
}

// ---------------------------------------------------------------------------------------------------------
// Packs

struct Repo::Pack {
    std::string pack_path;
    std::unique_ptr<vfs::FileHandle> file;
    uint64_t pack_size = 0;
    std::string idx;  // the whole .idx
    uint32_t count = 0;
    size_t off_sha = 0, off_crc = 0, off_ofs = 0, off_large = 0;

    uint32_t be32(size_t at) const {
        const auto* p = reinterpret_cast<const unsigned char*>(idx.data() + at);
        return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
    }
    std::string_view sha_at(uint32_t i) const { return std::string_view(idx).substr(off_sha + 20 * size_t(i), 20); }
    std::optional<uint64_t> offset_of(uint32_t i) const {
        uint32_t o = be32(off_ofs + 4 * size_t(i));
        if (!(o & 0x80000000u)) return o;
        size_t at = off_large + 8 * size_t(o & 0x7fffffffu);
        if (at + 8 > idx.size() - 40) return std::nullopt;
        return (uint64_t(be32(at)) << 32) | be32(at + 4);
    }
    // Index of raw sha in the idx, or -1.
    int64_t find(std::string_view raw) const {
        unsigned first = static_cast<unsigned char>(raw[0]);
        uint32_t lo = first ? be32(8 + 4 * (first - 1)) : 0, hi = be32(8 + 4 * first);
        if (hi > count || lo > hi) return -1;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            int c = sha_at(mid).compare(raw);
            if (c == 0) return mid;
            if (c < 0) lo = mid + 1;
            else hi = mid;
        }
        return -1;
    }
    std::string read_at(uint64_t off, size_t n) {
        std::string buf(n, '\0');
        size_t got = 0;
        while (got < n) {
            auto r = file->pread(buf.data() + got, n - got, off + got);
            if (!r || *r == 0) break;
            got += *r;
        }
        buf.resize(got);
        return buf;
    }
};

void Repo::load_packs() {
    if (packs_loaded_) return;
    packs_loaded_ = true;
    auto dir = fs.readdir(gitdir + "/objects/pack");
    if (!dir) return;
    std::vector<std::string> names;
    for (auto& e : *dir)
        if (e.name.size() > 4 && e.name.ends_with(".idx")) names.push_back(e.name);
    std::sort(names.begin(), names.end());
    for (const auto& n : names) {
        check_cancel(ctx);
        std::string base = gitdir + "/objects/pack/" + n.substr(0, n.size() - 4);
        auto idx = fs.read_file(base + ".idx", kMaxIndexBytes);
        if (!idx) continue;
        auto p = std::make_shared<Pack>();
        p->idx = std::move(*idx);
        p->pack_path = base + ".pack";
        const std::string& d = p->idx;
        if (d.size() < 8 + 1024 + 40 || d.compare(0, 4, "\377tOc") != 0 || p->be32(4) != 2)
            throw Fatal{"index file " + base + ".idx is corrupt or not version 2"};
        p->count = p->be32(8 + 4 * 255);
        uint64_t need = 8 + 1024 + uint64_t(p->count) * 28 + 40;
        if (need > d.size()) throw Fatal{"index file " + base + ".idx is too small"};
        p->off_sha = 8 + 1024;
        p->off_crc = p->off_sha + size_t(p->count) * 20;
        p->off_ofs = p->off_crc + size_t(p->count) * 4;
        p->off_large = p->off_ofs + size_t(p->count) * 4;
        auto f = fs.open_read(p->pack_path);
        if (!f) throw Fatal{"packfile " + p->pack_path + " cannot be opened"};
        p->file = std::move(*f);
        auto st = p->file->stat();
        p->pack_size = st ? st->size : 0;
        std::string hdr = p->read_at(0, 12);
        if (hdr.size() < 12 || hdr.compare(0, 4, "PACK") != 0) throw Fatal{"packfile " + p->pack_path + " is corrupt"};
        packs_.push_back(std::move(p));
    }
}

std::string apply_delta(const CommandContext& ctx, std::string_view base, std::string_view delta) {
    size_t i = 0;
    auto varint = [&](uint64_t& v) {
        v = 0;
        int shift = 0;
        while (true) {
            if (i >= delta.size() || shift > 56) throw Fatal{"corrupt delta"};
            unsigned char c = static_cast<unsigned char>(delta[i++]);
            v |= uint64_t(c & 0x7f) << shift;
            shift += 7;
            if (!(c & 0x80)) break;
        }
    };
    uint64_t src = 0, dst = 0;
    varint(src);
    varint(dst);
    if (src != base.size()) throw Fatal{"corrupt delta (base size mismatch)"};
    if (dst > kMaxObjectBytes) throw Fatal{"delta result too large"};
    interp::MemoryCharge held(ctx.memory);
    held.add(dst);
    std::string out;
    out.reserve(dst);
    size_t steps = 0;
    while (i < delta.size()) {
        if ((++steps & 0xfff) == 0) check_cancel(ctx);
        unsigned char op = static_cast<unsigned char>(delta[i++]);
        if (op & 0x80) {
            uint64_t off = 0, size = 0;
            for (int b = 0; b < 4; ++b)
                if (op & (1 << b)) {
                    if (i >= delta.size()) throw Fatal{"corrupt delta"};
                    off |= uint64_t(static_cast<unsigned char>(delta[i++])) << (8 * b);
                }
            for (int b = 0; b < 3; ++b)
                if (op & (0x10 << b)) {
                    if (i >= delta.size()) throw Fatal{"corrupt delta"};
                    size |= uint64_t(static_cast<unsigned char>(delta[i++])) << (8 * b);
                }
            if (size == 0) size = 0x10000;
            if (off + size > base.size() || out.size() + size > dst) throw Fatal{"corrupt delta (copy out of range)"};
            out.append(base.substr(off, size));
        } else if (op) {
            if (i + op > delta.size() || out.size() + op > dst) throw Fatal{"corrupt delta (insert out of range)"};
            out.append(delta.substr(i, op));
            i += op;
        } else {
            throw Fatal{"corrupt delta (opcode 0)"};
        }
    }
    if (out.size() != dst) throw Fatal{"corrupt delta (result size mismatch)"};
    return out;
}

// Reads the object at offset: a delta chain is followed iteratively (no recursion however long it is, up to
// kMaxDeltaDepth links, which also ends a REF_DELTA loop), then the deltas are applied from the base up.
Object Repo::read_pack_at(Pack& start_pack, uint64_t start_offset, int depth) {
    Pack* pack = &start_pack;
    uint64_t offset = start_offset;
    std::vector<std::string> deltas;
    interp::MemoryCharge held(ctx.memory);
    Object base;
    for (;;) {
        check_cancel(ctx);
        if (depth + int(deltas.size()) > kMaxDeltaDepth) throw Fatal{"delta chain too deep in " + pack->pack_path};
        if (offset < 12 || offset >= pack->pack_size) throw Fatal{"bad object offset in " + pack->pack_path};
        std::string hdr = pack->read_at(offset, 32);
        size_t i = 0;
        if (hdr.empty()) throw Fatal{"truncated packfile " + pack->pack_path};
        unsigned char c = static_cast<unsigned char>(hdr[i++]);
        int type = (c >> 4) & 7;
        uint64_t size = c & 15;
        int shift = 4;
        while (c & 0x80) {
            if (i >= hdr.size() || shift > 60) throw Fatal{"corrupt object header in " + pack->pack_path};
            c = static_cast<unsigned char>(hdr[i++]);
            size |= uint64_t(c & 0x7f) << shift;
            shift += 7;
        }
        if (size > kMaxObjectBytes) throw Fatal{"object too large in " + pack->pack_path};
        uint64_t base_off = 0;
        std::string base_oid;
        if (type == 6) {
            if (i >= hdr.size()) throw Fatal{"corrupt packfile " + pack->pack_path};
            c = static_cast<unsigned char>(hdr[i++]);
            uint64_t v = c & 0x7f;
            while (c & 0x80) {
                if (i >= hdr.size() || v > (uint64_t(1) << 56)) throw Fatal{"corrupt packfile " + pack->pack_path};
                c = static_cast<unsigned char>(hdr[i++]);
                v = ((v + 1) << 7) | (c & 0x7f);
            }
            if (v == 0 || v > offset) throw Fatal{"bad delta base offset in " + pack->pack_path};
            base_off = offset - v;
        } else if (type == 7) {
            if (i + 20 > hdr.size()) throw Fatal{"corrupt packfile " + pack->pack_path};
            base_oid = to_hex(std::string_view(hdr).substr(i, 20));
            i += 20;
        } else if (type < 1 || type > 4) {
            throw Fatal{"unknown object type " + std::to_string(type) + " in " + pack->pack_path};
        }
        // Inflate from offset+i, reading the compressed stream in growing chunks.
        uint64_t at = offset + i;
        size_t want = size_t(std::min<uint64_t>(size + 64, 1u << 20));
        std::string data;
        for (;;) {
            uint64_t avail = pack->pack_size > at ? pack->pack_size - at : 0;
            size_t n = size_t(std::min<uint64_t>(want, avail));
            interp::MemoryCharge chunk(ctx.memory);
            chunk.add(n);
            std::string comp = pack->read_at(at, n);
            try {
                data = inflate_all(ctx, comp, size, nullptr, "object in " + pack->pack_path);
                break;
            } catch (const Fatal& f) {
                if (comp.size() < avail && f.message.find("truncated") != std::string::npos) {
                    want = size_t(std::min<uint64_t>(avail, uint64_t(want) * 4));
                    continue;
                }
                throw;
            }
        }
        if (data.size() != size) throw Fatal{"object size mismatch in " + pack->pack_path};
        if (type <= 4) {
            base = Object{static_cast<ObjType>(type), std::move(data)};
            break;
        }
        held.add(data.size());
        deltas.push_back(std::move(data));
        if (type == 6) {
            offset = base_off;
            continue;
        }
        // REF_DELTA: the base in a pack (followed here) or loose.
        load_packs();
        std::string raw = from_hex(base_oid);
        bool found = false;
        for (auto& p : packs_) {
            int64_t k = p->find(raw);
            if (k < 0) continue;
            auto off = p->offset_of(uint32_t(k));
            if (!off) throw Fatal{"corrupt pack index for " + p->pack_path};
            pack = p.get();
            offset = *off;
            found = true;
            break;
        }
        if (found) continue;
        std::string path = gitdir + "/objects/" + base_oid.substr(0, 2) + "/" + base_oid.substr(2);
        if (!fs.stat(path)) throw Fatal{"missing delta base " + base_oid};
        auto b = try_read(base_oid);
        if (!b) throw Fatal{"missing delta base " + base_oid};
        base = std::move(*b);
        break;
    }
    while (!deltas.empty()) {
        check_cancel(ctx);
        base.data = apply_delta(ctx, base.data, deltas.back());
        deltas.pop_back();
    }
    return base;
}

std::optional<Object> Repo::read_packed(const std::string& oid, int depth) {
    load_packs();
    std::string raw = from_hex(oid);
    if (raw.empty()) return std::nullopt;
    for (auto& p : packs_) {
        int64_t k = p->find(raw);
        if (k < 0) continue;
        auto off = p->offset_of(uint32_t(k));
        if (!off) throw Fatal{"corrupt pack index for " + p->pack_path};
        return read_pack_at(*p, *off, depth);
    }
    return std::nullopt;
}

// ---------------------------------------------------------------------------------------------------------
// The object database

std::string Repo::hash(ObjType type, std::string_view data) {
    std::string hdr = std::string(type_name(type)) + " " + std::to_string(data.size());
    hdr += '\0';
    hdr.append(data);
    return to_hex(sha1_raw(hdr));
}

std::optional<Object> Repo::try_read(const std::string& oid) {
    check_cancel(ctx);
    if (!is_hex_oid(oid)) return std::nullopt;
    std::string path = gitdir + "/objects/" + oid.substr(0, 2) + "/" + oid.substr(2);
    auto file = fs.read_file(path, kMaxObjectBytes);
    if (!file) {
        if (file.error() == vfs::Errc::file_too_large) throw Fatal{"object " + oid + " is too large"};
        return read_packed(oid, 0);
    }
    interp::MemoryCharge held(ctx.memory);
    held.add(file->size());
    // The header first: "type size\0".
    std::string head;
    {
        z_stream zs{};
        if (inflateInit(&zs) != Z_OK) throw Fatal{"zlib init failed"};
        char buf[64];
        zs.next_in = reinterpret_cast<Bytef*>(file->data());
        zs.avail_in = static_cast<uInt>(std::min<size_t>(file->size(), 0x7fffffff));
        zs.next_out = reinterpret_cast<Bytef*>(buf);
        zs.avail_out = sizeof buf;
        int rc = inflate(&zs, Z_NO_FLUSH);
        head.assign(buf, sizeof buf - zs.avail_out);
        inflateEnd(&zs);
        if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) throw Fatal{"loose object " + oid + " (stored in " + path + ") is corrupt"};
    }
    size_t nul = head.find('\0');
    size_t sp = head.find(' ');
    if (nul == std::string::npos || sp == std::string::npos || sp > nul)
        throw Fatal{"loose object " + oid + " (stored in " + path + ") is corrupt"};
    ObjType type = type_from_name(std::string_view(head).substr(0, sp));
    uint64_t size = 0;
    for (size_t k = sp + 1; k < nul; ++k) {
        char ch = head[k];
        if (ch < '0' || ch > '9' || size > kMaxObjectBytes) throw Fatal{"loose object " + oid + " (stored in " + path + ") is corrupt"};
        size = size * 10 + uint64_t(ch - '0');
    }
    if (type == ObjType::none) throw Fatal{"loose object " + oid + " (stored in " + path + ") is corrupt"};
    if (size > kMaxObjectBytes) throw Fatal{"object " + oid + " is too large"};
    std::string all;
    try {
        all = inflate_all(ctx, *file, nul + 1 + size, nullptr, "loose object " + oid);
    } catch (const Fatal&) {
        throw Fatal{"loose object " + oid + " (stored in " + path + ") is corrupt"};
    }
    if (all.size() != nul + 1 + size) throw Fatal{"loose object " + oid + " (stored in " + path + ") is corrupt"};
    return Object{type, all.substr(nul + 1)};
}

Object Repo::read(const std::string& oid) {
    auto o = try_read(oid);
    if (!o) throw Fatal{"bad object " + oid};
    return std::move(*o);
}

Object Repo::read_typed(const std::string& oid, ObjType want) {
    Object o = read(oid);
    if (o.type != want)
        throw Fatal{"object " + oid + " is a " + std::string(type_name(o.type)) + ", not a " + std::string(type_name(want))};
    return o;
}

bool Repo::has(const std::string& oid) {
    if (!is_hex_oid(oid)) return false;
    if (fs.stat(gitdir + "/objects/" + oid.substr(0, 2) + "/" + oid.substr(2))) return true;
    load_packs();
    std::string raw = from_hex(oid);
    for (auto& p : packs_)
        if (p->find(raw) >= 0) return true;
    return false;
}

std::string Repo::write(ObjType type, std::string_view data) {
    std::string oid = hash(type, data);
    if (has(oid)) return oid;
    std::string body = std::string(type_name(type)) + " " + std::to_string(data.size());
    body += '\0';
    body.append(data);
    interp::MemoryCharge held(ctx.memory);
    held.add(body.size() * 2);
    std::string dir = gitdir + "/objects/" + oid.substr(0, 2);
    (void)fs.mkdir(dir, 0755);
    std::string path = dir + "/" + oid.substr(2);
    std::string tmp = dir + "/tmp_obj_" + oid.substr(2, 8);
    if (auto s = fs.write_file(tmp, deflate_all(body), 0444); !s)
        throw Fatal{"insufficient permission for adding an object to repository database " + gitdir + "/objects"};
    if (auto s = fs.rename(tmp, path); !s) {
        (void)fs.unlink(tmp);
        throw Fatal{"unable to write loose object file " + path};
    }
    return oid;
}

std::vector<std::string> Repo::find_prefix(const std::string& hex) {
    std::vector<std::string> out;
    if (hex.size() < 4 || hex.size() > 40) return out;
    for (char c : hex)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return out;
    if (auto dir = fs.readdir(gitdir + "/objects/" + hex.substr(0, 2)))
        for (auto& e : *dir)
            if (e.name.size() == 38 && e.name.compare(0, hex.size() - 2, hex, 2) == 0)
                out.push_back(hex.substr(0, 2) + e.name);
    load_packs();
    unsigned first = unsigned(hexval(hex[0]) * 16 + hexval(hex[1]));
    for (auto& p : packs_) {
        uint32_t lo = first ? p->be32(8 + 4 * (first - 1)) : 0, hi = std::min(p->be32(8 + 4 * first), p->count);
        for (uint32_t i = lo; i < hi; ++i) {
            if ((i & 0xffff) == 0) check_cancel(ctx);
            std::string h = to_hex(p->sha_at(i));
            if (h.compare(0, hex.size(), hex) == 0) out.push_back(h);
        }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

Commit Repo::commit(const std::string& oid) { return parse_commit(read_typed(oid, ObjType::commit).data, oid); }

std::vector<TreeEntry> Repo::tree(const std::string& oid) {
    return parse_tree(read_typed(oid, ObjType::tree).data, oid);
}

std::map<std::string, std::pair<uint32_t, std::string>> Repo::flatten(const std::string& tree_oid) {
    std::map<std::string, std::pair<uint32_t, std::string>> out;
    struct Item {
        std::string oid, prefix;
        int depth;
    };
    std::vector<Item> stack{{tree_oid, "", 0}};
    while (!stack.empty()) {
        check_cancel(ctx);
        Item it = std::move(stack.back());
        stack.pop_back();
        if (it.depth > 4096) throw Fatal{"tree too deep"};
        for (auto& e : tree(it.oid)) {
            std::string p = it.prefix + e.name;
            if (!verify_path(p)) throw Fatal{"invalid path '" + p + "'"};
            if (e.is_tree()) stack.push_back({e.oid, p + "/", it.depth + 1});
            else out[p] = {e.mode, e.oid};
        }
    }
    return out;
}

std::vector<FlatEntry> Repo::flatten_sorted(const std::string& tree_oid,
                                            const std::function<bool(const std::string&, const std::string&)>& skip,
                                            std::vector<std::string>* skipped) {
    if (skip && skip("", tree_oid)) {
        if (skipped) skipped->push_back("");
        return {};
    }
    std::vector<FlatEntry> out;
    interp::MemoryCharge held(ctx.memory);
    // Depth first in each tree's own order (a subtree's name sorts as "name/"), which is the byte order of
    // the whole paths for a well-formed tree.
    struct Level {
        std::vector<TreeEntry> entries;
        size_t next = 0;
        std::string prefix;
    };
    std::vector<Level> stack;
    stack.push_back({tree(tree_oid), 0, ""});
    while (!stack.empty()) {
        check_cancel(ctx);
        Level& l = stack.back();
        if (l.next == l.entries.size()) {
            stack.pop_back();
            continue;
        }
        TreeEntry& e = l.entries[l.next++];
        std::string p = l.prefix + e.name;
        if (!verify_path(p)) throw Fatal{"invalid path '" + p + "'"};
        if (e.is_tree()) {
            if (stack.size() > 4096) throw Fatal{"tree too deep"};
            if (skip && skip(p + "/", e.oid)) {
                if (skipped) skipped->push_back(p + "/");
                continue;
            }
            std::vector<TreeEntry> sub = tree(e.oid);
            stack.push_back({std::move(sub), 0, p + "/"});
            continue;
        }
        held.add(sizeof(FlatEntry) + p.size() + e.oid.size());
        out.push_back({std::move(p), e.mode, std::move(e.oid)});
    }
    // A tree not sorted as git sorts (not written by git): still in path order.
    if (!std::is_sorted(out.begin(), out.end(), [](const FlatEntry& a, const FlatEntry& b) { return a.path < b.path; }))
        std::sort(out.begin(), out.end(), [](const FlatEntry& a, const FlatEntry& b) { return a.path < b.path; });
    return out;
}

std::string Repo::abbrev(const std::string& oid, size_t len) {
    if (oid.size() <= len) return oid;
    size_t n = len;
    while (n < 40 && find_prefix(oid.substr(0, n)).size() > 1) ++n;
    return oid.substr(0, n);
}

}  // namespace bashkit::utils::git
