#include "vfs/session_tree.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <string>

#include "vfs/host_fs.hpp"
#include "vfs/memory_fs.hpp"

namespace bashkit::vfs {
namespace {

// --- SHA-256 (FIPS 180-4) ---------------------------------------------------------------------------------

constexpr std::array<uint32_t, 64> kK = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

void sha256_block(std::array<uint32_t, 8>& h, const unsigned char* p) {
    uint32_t w[64];
    for (int i = 0; i < 16; ++i) {
        w[i] = (uint32_t{p[4 * i]} << 24) | (uint32_t{p[4 * i + 1]} << 16) | (uint32_t{p[4 * i + 2]} << 8) |
               uint32_t{p[4 * i + 3]};
    }
    for (int i = 16; i < 64; ++i) {
        uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; ++i) {
        uint32_t t1 = hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kK[i] + w[i];
        uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        hh = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += hh;
}

// --- names -------------------------------------------------------------------------------------------------

constexpr std::size_t kMaxIdPart = 40;

std::string sanitise(std::string_view id) {
    std::string out;
    for (char c : id) {
        if (out.size() >= kMaxIdPart) break;
        const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                          c == '.' || c == '_' || c == '-';
        out += keep ? c : '_';
    }
    if (!out.empty() && out[0] == '.') out[0] = '_';
    if (out.empty()) out.push_back('_');
    return out;
}

// mkdir -p on the host for the base directory (plain paths: the embedder's or the temp dir).
Errc make_host_dirs(const std::string& path, mode_t last_mode) {
    std::string prefix;
    std::size_t i = 0;
    while (i <= path.size()) {
        std::size_t slash = path.find('/', i);
        if (slash == std::string::npos) slash = path.size();
        prefix = path.substr(0, slash);
        i = slash + 1;
        if (prefix.empty()) continue;
        const bool last = slash == path.size();
        if (::mkdir(prefix.c_str(), last ? last_mode : 0755) != 0 && errno != EEXIST) return from_errno(errno);
    }
    return Errc::ok;
}

// The default base lives in a shared temp dir: make sure nobody else controls it.
Errc check_private_dir(const std::string& path) {
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) return from_errno(errno);
    if (!S_ISDIR(st.st_mode)) return Errc::permission_denied;  // a symlink or a file planted there
    if (st.st_uid != ::geteuid()) return Errc::permission_denied;
    if ((st.st_mode & 022) != 0) return Errc::permission_denied;
    return Errc::ok;
}

Status make_layout(FileSystem& fs) {
    for (const char* dir : {"/workspace", "/home/user"}) {
        if (Status s = fs.mkdir_all(dir); !s) return s;
    }
    if (!fs.is_directory("/tmp")) {
        if (Status s = fs.mkdir("/tmp", 01777); !s) return s;
    }
    return {};
}

}  // namespace

std::string sha256_hex(std::string_view data) {
    std::array<uint32_t, 8> h = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    std::string msg(data);
    const uint64_t bits = static_cast<uint64_t>(data.size()) * 8;
    msg += static_cast<char>(0x80);
    while (msg.size() % 64 != 56) msg += '\0';
    for (int i = 7; i >= 0; --i) msg += static_cast<char>((bits >> (i * 8)) & 0xff);
    for (std::size_t off = 0; off < msg.size(); off += 64) {
        sha256_block(h, reinterpret_cast<const unsigned char*>(msg.data() + off));
    }
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    for (uint32_t v : h) {
        for (int i = 7; i >= 0; --i) out += kHex[(v >> (i * 4)) & 0xf];
    }
    return out;
}

std::string session_folder_name(std::string_view instance_id, std::string_view session_id) {
    // Length-prefixed, so ("a", "b:c") and ("a:b", "c") hash differently.
    std::string key = "bashkit-session\n" + std::to_string(instance_id.size()) + ":" + std::string(instance_id) +
                      "\n" + std::to_string(session_id.size()) + ":" + std::string(session_id);
    std::string name;
    if (!instance_id.empty()) name = sanitise(instance_id) + "--";
    name += sanitise(session_id);
    name += "-";
    name += sha256_hex(key).substr(0, 16);
    return name;
}

std::string default_session_base() {
    const char* tmp = std::getenv("TMPDIR");
    std::string base = tmp && tmp[0] == '/' ? std::string(tmp) : std::string("/tmp");
    while (base.size() > 1 && base.back() == '/') base.pop_back();
    return base + "/bashkit-sessions-" + std::to_string(::geteuid());
}

Result<SessionTree> open_session_tree(const SessionTreeOptions& options) {
    if (options.session_id.empty()) return Errc::invalid_argument;
    SessionTree tree;
    if (options.ephemeral) {
        MemoryFsOptions mo;
        mo.uid = options.uid;
        mo.gid = options.gid;
        auto mem = std::make_shared<MemoryFs>(mo);
        if (Status s = make_layout(*mem); !s) return s.error();
        tree.fs = std::make_shared<LimitedFs>(mem, options.limits);
        return tree;
    }
    const bool default_base = options.base_dir.empty();
    const std::string base = default_base ? default_session_base() : options.base_dir;
    if (base.empty() || base[0] != '/') return Errc::invalid_argument;
    if (Errc e = make_host_dirs(base, 0700); e != Errc::ok) return e;
    if (default_base) {
        if (Errc e = check_private_dir(base); e != Errc::ok) return e;
    }
    const std::string folder = base + "/" + session_folder_name(options.instance_id, options.session_id);
    if (::mkdir(folder.c_str(), 0755) != 0 && errno != EEXIST) return from_errno(errno);
    struct stat st;
    if (::lstat(folder.c_str(), &st) != 0) return from_errno(errno);
    if (!S_ISDIR(st.st_mode)) return Errc::permission_denied;  // never a symlink planted in its place
    HostFsOptions ho;
    ho.uid = options.uid;
    ho.gid = options.gid;
    auto host = HostFs::open(folder, ho);
    if (!host) return host.error();
    std::shared_ptr<FileSystem> hfs(std::move(*host));
    if (Status s = make_layout(*hfs); !s) return s.error();
    tree.fs = std::make_shared<LimitedFs>(hfs, options.limits);
    tree.host_dir = folder;
    return tree;
}

Status delete_session_tree(const SessionTreeOptions& options) {
    if (options.ephemeral) return {};
    if (options.session_id.empty()) return Errc::invalid_argument;
    const std::string base = options.base_dir.empty() ? default_session_base() : options.base_dir;
    return remove_host_tree(base + "/" + session_folder_name(options.instance_id, options.session_id));
}

}  // namespace bashkit::vfs
