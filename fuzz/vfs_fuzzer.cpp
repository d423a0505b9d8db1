// libFuzzer target for path resolution in the VFS: a fuzzed sequence of operations on one tree made of a
// MountTable over an OverlayFs ("/": a read-only MemoryFs lower layer, a MemoryFs upper one), a HostFs over a
// host folder ("/host") and a read-only MemoryFs ("/ro"), with mounts and umounts as operations too.
//
// Input: lines "OP ARG [ARG|DATA]": w/a PATH DATA (write/append), r PATH (read), m/M PATH (mkdir, mkdir -p),
// d PATH (rmdir), u PATH (unlink), v FROM TO (rename), s TARGET LINK (symlink), l FROM TO (hard link),
// k PATH (readlink), p PATH (realpath), t PATH N (truncate), c PATH MODE (chmod, octal), o PATH FLAGS (open,
// write, read, seek), e PATH (readdir), R PATH (rm -rf), x PATH (stat), U PATH (utimes), h PATH (chown),
// n PATH RO (mount a MemoryFs), N PATH (umount).
//
// The host folder's parent holds a sibling directory "outside" (a file and a directory), and the host folder
// has links planted on the host: a relative and an absolute symlink to it, and a hard link to a file in it.
// Properties: no crash, sanitizer report, leak or hang; nothing outside the host folder is created, changed
// or removed (checked after every input); no stat, lstat or open handle reaches the outside directory or its
// secret file (their host inode numbers); realpath gives a normalised absolute path naming the same file as
// the path; readdir never lists "", ".", "..", a name with '/', or (on the overlay) a whiteout.
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "fuzz/fuzz_input.hpp"
#include "vfs/host_fs.hpp"
#include "vfs/memory_fs.hpp"
#include "vfs/mount_table.hpp"
#include "vfs/overlay_fs.hpp"

namespace vfs = bashkit::vfs;
using bashkit::fuzz::finding;

namespace {

struct Host {
    std::string dir;      // the temporary folder: dir/inside is mounted, dir/outside must stay as it is
    std::string outside;  // dir/outside
    ino_t secret_ino = 0, outside_ino = 0, subdir_ino = 0;

    Host() {
        char tmpl[] = "/tmp/bashkit-vfs-fuzz-XXXXXX";
        if (!mkdtemp(tmpl)) std::abort();
        dir = tmpl;
        outside = dir + "/outside";
        std::filesystem::create_directories(outside + "/sub");
        std::ofstream(outside + "/secret") << "secret\n";
        std::ofstream(outside + "/linked") << "linked\n";
        struct stat st{};
        ::lstat((outside + "/secret").c_str(), &st);
        secret_ino = st.st_ino;
        ::lstat(outside.c_str(), &st);
        outside_ino = st.st_ino;
        ::lstat((outside + "/sub").c_str(), &st);
        subdir_ino = st.st_ino;
        std::atexit([] { std::error_code ec; std::filesystem::remove_all(instance().dir, ec); });
    }
    static Host& instance() {
        static Host* h = new Host;  // never destroyed: the atexit cleanup reads it
        return *h;
    }
    std::string inside() const { return dir + "/inside"; }

    // A fresh inside folder, with links planted on the host.
    void reset() {
        std::error_code ec;
        std::filesystem::remove_all(inside(), ec);
        std::filesystem::create_directories(inside() + "/d", ec);
        std::ofstream(inside() + "/a") << "a\n";
        (void)::symlink("../outside", (inside() + "/esc").c_str());
        (void)::symlink(outside.c_str(), (inside() + "/abs").c_str());
        (void)::symlink((outside + "/secret").c_str(), (inside() + "/abs-secret").c_str());
        (void)::link((outside + "/linked").c_str(), (inside() + "/hard").c_str());
    }

    // What the outside holds: names, types, sizes, modes, contents. Also: the folder holds inside and outside
    // only.
    std::string describe() const {
        std::vector<std::string> lines;
        std::error_code ec;
        for (auto it = std::filesystem::recursive_directory_iterator(outside, ec);
             it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
            if (ec) break;
            struct stat st{};
            ::lstat(it->path().c_str(), &st);
            std::string line = it->path().string() + " " + std::to_string(st.st_mode) + " " + std::to_string(st.st_size);
            if (S_ISREG(st.st_mode)) {
                std::ifstream f(it->path());
                line += " " + std::string(std::istreambuf_iterator<char>(f), {});
            }
            lines.push_back(std::move(line));
        }
        for (const auto& e : std::filesystem::directory_iterator(dir, ec)) lines.push_back("top " + e.path().filename().string());
        std::sort(lines.begin(), lines.end());
        std::string out;
        for (const auto& l : lines) out += l + "\n";
        return out;
    }
};

struct Tree {
    std::shared_ptr<vfs::MemoryFs> lower = std::make_shared<vfs::MemoryFs>();
    std::shared_ptr<vfs::MemoryFs> upper = std::make_shared<vfs::MemoryFs>();
    std::shared_ptr<vfs::OverlayFs> overlay;
    std::shared_ptr<vfs::FileSystem> host;
    vfs::MountTable table;
    uint64_t host_dev = 0;

    Tree() {
        (void)lower->mkdir_all("/lower/d");
        (void)lower->write_file("/lower/a", "lower a\n");
        (void)lower->symlink("/host/esc", "/lower/esc");
        (void)lower->symlink("../../host/abs/secret", "/lower/d/up");
        (void)lower->mkdir("/host");
        lower->set_read_only(true);
        overlay = std::make_shared<vfs::OverlayFs>(lower, upper);
        (void)table.mount("/", overlay);
        auto h = vfs::HostFs::open(Host::instance().inside());
        if (!h) std::abort();
        host = std::shared_ptr<vfs::FileSystem>(std::move(*h));
        (void)table.mount("/host", host);
        auto ro = std::make_shared<vfs::MemoryFs>();
        (void)ro->write_file("/f", "ro\n");
        (void)table.mount("/ro", ro, /*read_only=*/true);
        if (auto st = table.stat("/host")) host_dev = st->dev;
    }
};

void check_stat(const Host& h, const Tree& t, const vfs::Stat& st, std::string_view what) {
    if (st.dev != t.host_dev) return;
    if (st.ino == h.secret_ino || st.ino == h.outside_ino || st.ino == h.subdir_ino)
        finding("a path reaches outside the host folder", what);
}

// The words of a line: up to n, the last one taking the rest of the line.
std::vector<std::string> words(std::string_view line, size_t n) {
    std::vector<std::string> out;
    while (out.size() + 1 < n) {
        size_t sp = line.find(' ');
        if (sp == std::string_view::npos) break;
        out.emplace_back(line.substr(0, sp));
        line.remove_prefix(sp + 1);
    }
    out.emplace_back(line);
    while (out.size() < n) out.emplace_back();
    return out;
}

void check_path(const Host& h, Tree& t, const std::string& p) {
    vfs::MountTable& fs = t.table;
    if (auto st = fs.stat(p)) {
        check_stat(h, t, *st, p);
        auto real = fs.realpath(p);
        if (real) {
            if (real->empty() || (*real)[0] != '/' || vfs::normalize_path(*real) != *real)
                finding("realpath is not a normalised absolute path", p, *real);
            auto again = fs.stat(*real);
            if (!again || again->dev != st->dev || again->ino != st->ino)
                finding("realpath names another file than the path", p, *real);
        }
    }
    if (auto st = fs.lstat(p)) check_stat(h, t, *st, p);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > 4096) return 0;
    Host& h = Host::instance();
    h.reset();
    static const std::string kOutside = h.describe();
    {
        Tree t;
        vfs::MountTable& fs = t.table;
        std::string_view in(reinterpret_cast<const char*>(data), size);
        int ops = 0;
        while (!in.empty() && ops++ < 64) {
            size_t nl = in.find('\n');
            std::string_view line = in.substr(0, nl);
            in.remove_prefix(nl == std::string_view::npos ? in.size() : nl + 1);
            if (line.size() < 2) continue;
            char op = line[0];
            auto w = words(line.substr(2), 2);
            const std::string& p = w[0];
            switch (op) {
                case 'w': (void)fs.write_file(p, w[1]); break;
                case 'a': (void)fs.append_file(p, w[1]); break;
                case 'r': (void)fs.read_file(p, 1 << 20); break;
                case 'm': (void)fs.mkdir(p); break;
                case 'M': (void)fs.mkdir_all(p); break;
                case 'd': (void)fs.rmdir(p); break;
                case 'u': (void)fs.unlink(p); break;
                case 'v': (void)fs.rename(p, w[1]); break;
                case 's': (void)fs.symlink(p, w[1]); break;
                case 'l': (void)fs.link(p, w[1]); break;
                case 'k': {
                    auto l = fs.readlink(p);
                    if (l && l->find(h.dir) != std::string::npos) finding("readlink shows the host folder", p, *l);
                    break;
                }
                case 'p': {
                    auto r = fs.realpath(p);
                    if (r && r->find(h.dir) != std::string::npos) finding("realpath shows the host folder", p, *r);
                    break;
                }
                case 't': (void)fs.truncate(p, std::strtoull(w[1].c_str(), nullptr, 10) % (1 << 20)); break;
                case 'c': (void)fs.chmod(p, vfs::Mode(std::strtoul(w[1].c_str(), nullptr, 8) & 07777)); break;
                case 'h': (void)fs.chown(p, 1000, uint32_t(std::strtoul(w[1].c_str(), nullptr, 10))); break;
                case 'U': (void)fs.utimes(p, vfs::TimeSet::omit(), vfs::TimeSet::now(), w[1].empty()); break;
                case 'o': {
                    auto flags = vfs::OpenFlags(std::strtoul(w[1].c_str(), nullptr, 10) & 0x7f);
                    auto f = fs.open(p, flags, 0644);
                    if (!f) break;
                    vfs::FileHandle& fh = **f;
                    if (auto st = fh.stat()) check_stat(h, t, *st, p);
                    char buf[64];
                    (void)fh.write("xyz");
                    (void)fh.seek(0, vfs::Whence::set);
                    (void)fh.read(buf, sizeof buf);
                    (void)fh.pread(buf, sizeof buf, 1);
                    (void)fh.pwrite("q", 2);
                    (void)fh.truncate(1);
                    break;
                }
                case 'e': {
                    auto list = fs.readdir(p);
                    if (!list) break;
                    for (const vfs::DirEntry& d : *list) {
                        if (d.name.empty() || d.name == "." || d.name == ".." || d.name.find('/') != std::string::npos)
                            finding("readdir lists a bad name", p, d.name);
                        if (d.name.starts_with(".wh.") && !p.starts_with("/host") && !p.starts_with("/ro"))
                            finding("readdir lists a whiteout", p, d.name);
                    }
                    break;
                }
                case 'R': (void)fs.remove_all(p); break;
                case 'x': break;
                case 'n': (void)fs.mount(p, std::make_shared<vfs::MemoryFs>(), !w[1].empty()); break;
                case 'N': (void)fs.umount(p); break;
                default: continue;
            }
            check_path(h, t, p);
            if (!w[1].empty() && w[1][0] == '/') check_path(h, t, w[1]);
        }
    }
    std::string now = h.describe();
    if (now != kOutside) finding("the outside of the host folder changed", kOutside, now);
    return 0;
}
