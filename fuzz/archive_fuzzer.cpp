// libFuzzer target for archive extraction: tar, unzip and gunzip (libarchive and zlib) reading a fuzzed
// archive into a MemoryFs whose tree already has a directory outside the extraction root and symlinks from
// the root to it. Input: one byte of flags, then the archive's bytes. Flags: the low three bits pick the
// command (0 tar x, 1 tar xz, 2 unzip -o, 3 zcat, 4 tar tv, 5 tar x -k --strip-components=1, 6 unzip
// answering no, 7 gunzip in place); the session is fresh (100 ms, 64 MiB with the tree's bytes), the
// utilities' ArchiveLimits are small (8 MiB expanded, 500 members).
//
// Properties: no crash, sanitizer report, leak or hang; nothing outside the root /x changes (every entry,
// its type, mode, size, content and link target); no new symlink under /x resolves outside it; no file under
// /x is a hard link of a file outside it; the session still answers `echo ok`.
#include <map>
#include <string>
#include <vector>

#include "utils/archive/archive.hpp"
#include "fuzz/fuzz_input.hpp"
#include "fuzz/session.hpp"

namespace vfs = bashkit::vfs;
using bashkit::fuzz::finding;

namespace {

const bashkit::interp::CommandRegistry& registry() {
    static const bashkit::interp::CommandRegistry r = [] {
        bashkit::interp::CommandRegistry reg;
        bashkit::utils::register_all(reg);
        bashkit::utils::ArchiveLimits limits;
        limits.max_expanded_bytes = uint64_t{8} << 20;
        limits.max_entries = 500;
        limits.max_archive_bytes = uint64_t{8} << 20;
        bashkit::utils::register_archive_utils(reg, limits);
        return reg;
    }();
    return r;
}

bool under_root(std::string_view p) { return p == "/x" || p.starts_with("/x/"); }

struct Entry {
    vfs::Stat st;
    std::string data;  // content of a file, target of a symlink
};

// Every entry of the tree, by path (not following symlinks).
void walk(vfs::FileSystem& fs, const std::string& dir, std::map<std::string, Entry>& out, int depth = 0) {
    auto list = fs.readdir(dir);
    if (!list || depth > 64) return;
    for (const vfs::DirEntry& d : *list) {
        std::string p = dir == "/" ? "/" + d.name : dir + "/" + d.name;
        auto st = fs.lstat(p);
        if (!st) continue;
        Entry e{*st, {}};
        if (st->is_symlink()) {
            if (auto t = fs.readlink(p)) e.data = *t;
        } else if (st->is_regular()) {
            if (auto c = fs.read_file(p, uint64_t{16} << 20)) e.data = *c;
        }
        out.emplace(p, std::move(e));
        if (st->is_directory()) walk(fs, p, out, depth + 1);
    }
}

bool same(const Entry& a, const Entry& b) {
    return a.st.type == b.st.type && a.st.mode == b.st.mode && a.st.ino == b.st.ino && a.st.size == b.st.size &&
           a.data == b.data;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 1 || size > 65536) return 0;
    unsigned flags = data[0];
    std::string_view archive(reinterpret_cast<const char*>(data) + 1, size - 1);

    bashkit::fuzz::Session s;
    vfs::MemoryFs& fs = s.fs;
    (void)fs.mkdir_all("/outside/dir");
    (void)fs.write_file("/outside/secret", "SECRET\n");
    (void)fs.write_file("/outside/dir/f", "f\n");
    (void)fs.mkdir("/x");
    (void)fs.write_file("/x/old", "old\n");
    (void)fs.symlink("/outside", "/x/up");
    (void)fs.symlink("../outside", "/x/rel");
    (void)fs.write_file("/a.bin", archive);
    s.start(registry());

    std::map<std::string, Entry> before;
    walk(fs, "/", before);
    static const char* const kCommands[] = {
        "tar xf /a.bin -C /x",
        "tar xzf /a.bin -C /x",
        "unzip -o -q /a.bin -d /x",
        "zcat /a.bin > /x/out",
        "tar tvf /a.bin > /x/out",
        "cd /x && tar x -k --strip-components=1 -f /a.bin",
        "unzip /a.bin -d /x </dev/null",
        "cp /a.bin /x/a.gz && gunzip -f /x/a.gz",
    };
    bashkit::interp::ExecResult r = s.sh->run(kCommands[flags & 7]);

    std::map<std::string, Entry> after;
    walk(fs, "/", after);
    std::map<uint64_t, std::string> outside_inodes;
    for (const auto& [p, e] : before) {
        if (under_root(p)) continue;
        auto it = after.find(p);
        if (it == after.end()) finding("an entry outside the root went away", p, r.err);
        if (!same(e, it->second)) finding("an entry outside the root changed", p, r.err);
        if (e.st.is_regular()) outside_inodes[e.st.ino] = p;
    }
    std::string real_root = fs.realpath("/x").value_or("/x");
    for (const auto& [p, e] : after) {
        if (!under_root(p)) {
            if (!before.contains(p)) finding("an entry appeared outside the root", p, r.err);
            continue;
        }
        if (e.st.is_regular() && outside_inodes.contains(e.st.ino))
            finding("a file under the root is a hard link of one outside", p, outside_inodes[e.st.ino]);
        auto old = before.find(p);
        if (e.st.is_symlink() && !(old != before.end() && same(old->second, e))) {
            auto real = fs.realpath(p);
            if (real && *real != real_root && !real->starts_with(real_root + "/"))
                finding("an extracted symlink resolves outside the root", p, *real);
        }
    }
    bashkit::fuzz::check_answers_ok(*s.sh, s.fs, std::string(kCommands[flags & 7]) + " (the archive is the input)");
    return 0;
}
