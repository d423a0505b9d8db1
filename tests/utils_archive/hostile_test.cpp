// Hostile archives: members that try to land outside the extraction directory (../, absolute names,
// symlinks and hard links leading out, a symlink already in the tree), bombs that trip ArchiveLimits,
// truncated and corrupt input. Every one must give a clear error and a non-zero status, write nothing
// outside the target, never leave a partial file in place of a good one, and never crash the host.
// The archives are made here with libarchive's write API (and zlib), not committed as binaries.
#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <string>
#include <vector>

#include "utils/archive/archive.hpp"
#include "tests/utils_archive/make_archive.hpp"
#include "utils/registry.hpp"
#include "interp/shell.hpp"
#include "vfs/memory_fs.hpp"

namespace bashkit {
namespace {

using testing::make_archive;
using testing::Member;

// gzip of `n` zero bytes.
std::string gzip_zeros(uint64_t n) {
    z_stream zs{};
    deflateInit2(&zs, 9, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY);
    std::string in(1 << 20, '\0'), out;
    std::string buf(1 << 16, '\0');
    for (uint64_t left = n;;) {
        size_t take = std::min<uint64_t>(left, in.size());
        left -= take;
        zs.next_in = reinterpret_cast<Bytef*>(in.data());
        zs.avail_in = static_cast<uInt>(take);
        const int flush = left == 0 ? Z_FINISH : Z_NO_FLUSH;
        do {
            zs.next_out = reinterpret_cast<Bytef*>(buf.data());
            zs.avail_out = static_cast<uInt>(buf.size());
            deflate(&zs, flush);
            out.append(buf.data(), buf.size() - zs.avail_out);
        } while (zs.avail_out == 0);
        if (left == 0) break;
    }
    deflateEnd(&zs);
    return out;
}

class Hostile : public ::testing::Test {
protected:
    Hostile() {
        EXPECT_TRUE(fs.mkdir_all("/home/user/x").ok());
        EXPECT_TRUE(fs.mkdir_all("/etc").ok());
        EXPECT_TRUE(fs.mkdir_all("/tmp").ok());
        EXPECT_TRUE(fs.write_file("/etc/secret", "original secret\n").ok());
        utils::register_all(registry);
        utils::ArchiveLimits limits;
        limits.max_expanded_bytes = 1 << 20;
        limits.max_entries = 100;
        limits.max_archive_bytes = 4 << 20;
        utils::register_archive_utils(registry, limits);
    }
    interp::ExecResult run(const std::string& script, std::chrono::milliseconds timeout = std::chrono::seconds(30)) {
        interp::ShellOptions opts;
        opts.cwd = "/home/user/x";
        opts.env = {{"LC_ALL", "C"}};
        opts.limits.timeout = timeout;
        interp::Shell sh(fs, registry, opts);
        return sh.run(script);
    }
    void put(const std::string& path, const std::string& data) { ASSERT_TRUE(fs.write_file(path, data).ok()); }
    std::string content(const std::string& path) {
        auto r = fs.read_file(path);
        return r ? *r : "<missing>";
    }
    // Nothing but the expected names exists outside /home/user/x.
    void expect_outside_untouched() {
        EXPECT_EQ(content("/etc/secret"), "original secret\n");
        for (const char* p : {"/evil", "/etc/evil", "/home/evil", "/home/user/evil", "/tmp/evil", "/etc/passwd"})
            EXPECT_FALSE(fs.lexists(p)) << p;
        auto tmp = fs.readdir("/tmp");
        ASSERT_TRUE(tmp.ok());
        EXPECT_TRUE(tmp->empty());
    }

    vfs::MemoryFs fs;
    interp::CommandRegistry registry;
};

TEST_F(Hostile, TarDotDotMembersAreRefused) {
    put("/home/user/a.tar", make_archive({{Member::file, "../evil", "x"},
                                          {Member::file, "ok/../../evil", "x"},
                                          {Member::file, "../../../../../etc/evil", "x"},
                                          {Member::file, "good", "fine\n"}}));
    auto r = run("tar xf ../a.tar");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("tar: ../evil: Member name contains '..'"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("Exiting with failure status"), std::string::npos) << r.err;
    EXPECT_EQ(content("/home/user/x/good"), "fine\n");
    expect_outside_untouched();
}

TEST_F(Hostile, TarAbsoluteNamesAreStripped) {
    put("/home/user/a.tar", make_archive({{Member::file, "/etc/evil", "x"}, {Member::file, "/etc/secret", "pwned"}}));
    auto r = run("tar xf ../a.tar");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "tar: Removing leading `/' from member names\n");
    EXPECT_EQ(content("/home/user/x/etc/evil"), "x");
    EXPECT_EQ(content("/home/user/x/etc/secret"), "pwned");
    expect_outside_untouched();
}

TEST_F(Hostile, TarSymlinkToRootThenFileThroughIt) {
    put("/home/user/a.tar", make_archive({{Member::symlink, "l", "", "/"},
                                          {Member::file, "l/etc/evil", "x"},
                                          {Member::symlink, "up", "", "../../.."},
                                          {Member::file, "up/evil", "x"}}));
    auto r = run("tar xf ../a.tar");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("l: Refusing to create a symbolic link to '/'"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("up: Refusing to create a symbolic link to '../../..'"), std::string::npos) << r.err;
    EXPECT_FALSE(fs.is_symlink("/home/user/x/l"));
    EXPECT_FALSE(fs.is_symlink("/home/user/x/up"));
    expect_outside_untouched();
}

TEST_F(Hostile, TarSymlinkThroughAnotherSymlink) {
    // "a" -> "." is harmless, but "a/b" -> "../evil" resolves from the root's parent.
    put("/home/user/a.tar", make_archive({{Member::symlink, "a", "", "."},
                                          {Member::symlink, "a/b", "", "../evil"},
                                          {Member::file, "a/b", "x"}}));
    auto r = run("tar xf ../a.tar");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.err.find("Refusing to create a symbolic link to '../evil'"), std::string::npos) << r.err;
    expect_outside_untouched();
}

TEST_F(Hostile, TarSymlinkOutThroughTheParentOfALink) {
    // "b" -> "." is harmless and "b/.." reads as the root lexically, but the kernel's "b/.." is the root's
    // parent (found by the archive fuzzer).
    put("/home/user/a.tar", make_archive({{Member::symlink, "b", "", "."},
                                          {Member::symlink, "c", "", "b/.."},
                                          {Member::file, "c/evil", "x"}}));
    auto r = run("tar xf ../a.tar");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("c: Refusing to create a symbolic link to 'b/..' outside"), std::string::npos) << r.err;
    EXPECT_FALSE(fs.is_symlink("/home/user/x/c"));
    EXPECT_EQ(content("/home/user/x/c/evil"), "x");  // a directory of the root took its place
    EXPECT_TRUE(fs.is_symlink("/home/user/x/b"));
    expect_outside_untouched();
}

TEST_F(Hostile, TarSymlinkCarriedOutByALinkMadeAfterIt) {
    // "c" -> "b/.." is inside while "b" is missing; "b" -> "." made afterwards carries it out: removed at the end.
    put("/home/user/a.tar", make_archive({{Member::symlink, "c", "", "b/.."}, {Member::symlink, "b", "", "."}}));
    auto r = run("tar xf ../a.tar");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("c: Refusing to create a symbolic link to 'b/..' outside"), std::string::npos) << r.err;
    EXPECT_FALSE(fs.lexists("/home/user/x/c"));
    EXPECT_TRUE(fs.is_symlink("/home/user/x/b"));
    expect_outside_untouched();
}

TEST_F(Hostile, TarSymlinkCarriedOutIsRemovedWhenTheArchiveIsDamagedAfterIt) {
    // The same two links, then a damaged header: tar stops early and the link is still checked.
    std::string a = make_archive({{Member::symlink, "c", "", "b/.."}, {Member::symlink, "b", "", "."}});
    a.resize(3 * 512);
    a += std::string(512, 'x');
    put("/home/user/a.tar", a);
    auto r = run("tar xf ../a.tar");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("c: Refusing to create a symbolic link to 'b/..' outside"), std::string::npos) << r.err;
    EXPECT_FALSE(fs.lexists("/home/user/x/c"));
    expect_outside_untouched();
}

TEST_F(Hostile, TarSymlinkToALinkAlreadyThereLeadingOut) {
    ASSERT_TRUE(fs.symlink("/tmp", "/home/user/x/out").ok());
    put("/home/user/a.tar", make_archive({{Member::symlink, "l", "", "out"}, {Member::symlink, "m", "", "out/../x"}}));
    auto r = run("tar xf ../a.tar");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("l: Refusing to create a symbolic link to 'out' outside"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("m: Refusing to create a symbolic link to 'out/../x' outside"), std::string::npos) << r.err;
    EXPECT_FALSE(fs.lexists("/home/user/x/l"));
    EXPECT_FALSE(fs.lexists("/home/user/x/m"));
    expect_outside_untouched();
}

TEST_F(Hostile, TarWritesNotThroughASymlinkAlreadyThere) {
    ASSERT_TRUE(fs.symlink("/tmp", "/home/user/x/out").ok());
    ASSERT_TRUE(fs.symlink("/etc/secret", "/home/user/x/sec").ok());
    put("/home/user/a.tar", make_archive({{Member::file, "out/evil", "x"}, {Member::file, "sec", "replaced"}}));
    auto r = run("tar xf ../a.tar");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("out/evil: Cannot extract through a symbolic link leading outside"), std::string::npos)
        << r.err;
    // A symlink in the place of a member is replaced, not followed.
    EXPECT_FALSE(fs.is_symlink("/home/user/x/sec"));
    EXPECT_EQ(content("/home/user/x/sec"), "replaced");
    expect_outside_untouched();
}

TEST_F(Hostile, TarHardLinksOutAreRefused) {
    put("/home/user/a.tar", make_archive({{Member::hardlink, "h1", "", "../../../etc/secret"},
                                          {Member::hardlink, "h2", "", "/etc/secret"},
                                          {Member::file, "in", "inside"},
                                          {Member::hardlink, "h3", "", "in"}}));
    auto r = run("tar xf ../a.tar; echo appended >> h2");
    EXPECT_NE(r.err.find("h1: Refusing to create a hard link to '../../../etc/secret'"), std::string::npos) << r.err;
    EXPECT_FALSE(fs.lexists("/home/user/x/h1"));
    EXPECT_EQ(content("/home/user/x/h3"), "inside");
    expect_outside_untouched();
}

TEST_F(Hostile, TarGzipBombStopsAtTheLimit) {
    put("/home/user/x/big", "a good file\n");
    put("/home/user/bomb.tgz", make_archive({{Member::file, "small", "ok\n"}, {Member::file, "big", "", "", 64u << 20}},
                                            "tar", "gzip"));
    auto r = run("tar xzf ../bomb.tgz");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("tar: archive expands beyond the limit of 1048576 bytes"), std::string::npos) << r.err;
    EXPECT_EQ(content("/home/user/x/small"), "ok\n");
    EXPECT_EQ(content("/home/user/x/big"), "a good file\n");  // not replaced by a partial file
    auto ents = fs.readdir("/home/user/x");
    ASSERT_TRUE(ents.ok());
    EXPECT_EQ(ents->size(), 2u);  // no temporary left behind
}

TEST_F(Hostile, TarManySmallMembersTripTheEntryLimit) {
    std::vector<Member> ms;
    for (int i = 0; i < 150; ++i) ms.push_back({Member::file, "f" + std::to_string(i), "x"});
    put("/home/user/many.tar", make_archive(ms));
    auto r = run("tar xf ../many.tar");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("tar: archive has more members than the limit of 100"), std::string::npos) << r.err;
    auto r2 = run("tar tf ../many.tar >/dev/null");
    EXPECT_EQ(r2.exit_code, 2);
}

TEST_F(Hostile, GunzipBombStopsAtTheLimit) {
    put("/home/user/x/z.gz", gzip_zeros(64u << 20));
    auto r = run("gunzip z.gz");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err, "gzip: z.gz: expands beyond the limit of 1048576 bytes\n");
    EXPECT_FALSE(fs.lexists("/home/user/x/z"));
    EXPECT_TRUE(fs.lexists("/home/user/x/z.gz"));
    auto ents = fs.readdir("/home/user/x");
    ASSERT_TRUE(ents.ok());
    EXPECT_EQ(ents->size(), 1u);
    auto r2 = run("zcat z.gz | wc -c");
    EXPECT_EQ(r2.out, "1048576\n");
    EXPECT_NE(r2.err.find("expands beyond the limit"), std::string::npos);
}

TEST_F(Hostile, ZipBombStopsAtTheLimit) {
    put("/home/user/x/b.zip", make_archive({{Member::file, "ok", "fine\n"}, {Member::file, "zeros", "", "", 64u << 20}}, "zip"));
    auto r = run("unzip -q b.zip");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("unzip: archive expands beyond the limit of 1048576 bytes"), std::string::npos) << r.err;
    EXPECT_EQ(content("/home/user/x/ok"), "fine\n");
    EXPECT_FALSE(fs.lexists("/home/user/x/zeros"));
}

TEST_F(Hostile, ZipTraversalIsRefused) {
    put("/home/user/x/t.zip", make_archive({{Member::file, "../evil", "x"},
                                            {Member::file, "/etc/evil", "x"},
                                            {Member::symlink, "l", "", "/etc"},
                                            {Member::file, "good", "g"}},
                                           "zip"));
    auto r = run("unzip t.zip");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.err.find("../evil: refusing to extract"), std::string::npos) << r.err;
    EXPECT_NE(r.out.find("warning:  stripped absolute path spec from /etc/evil"), std::string::npos) << r.out;
    EXPECT_EQ(content("/home/user/x/etc/evil"), "x");
    EXPECT_EQ(content("/home/user/x/good"), "g");
    EXPECT_FALSE(fs.is_symlink("/home/user/x/l"));
    expect_outside_untouched();
}

TEST_F(Hostile, TruncatedAndCorruptInputsFailCleanly) {
    const std::string tgz = make_archive({{Member::file, "a", std::string(100000, 'a')}, {Member::file, "b", "b"}}, "tar", "gzip");
    put("/home/user/x/trunc.tgz", tgz.substr(0, tgz.size() / 2));
    std::string flipped = tgz;
    for (size_t i = 40; i < flipped.size() - 20; i += 7) flipped[i] = static_cast<char>(flipped[i] ^ 0x5a);
    put("/home/user/x/corrupt.tgz", flipped);
    std::string noise;
    uint32_t s = 12345;
    for (int i = 0; i < 5000; ++i) {
        s = s * 1103515245 + 12345;
        noise.push_back(static_cast<char>(s >> 16));
    }
    put("/home/user/x/noise", noise);
    put("/home/user/x/noise.gz", "\x1f\x8b\x08\x00" + noise);
    put("/home/user/x/noise.zip", "PK\x03\x04" + noise);
    const std::string zip = make_archive({{Member::file, "a", std::string(50000, 'z')}}, "zip");
    put("/home/user/x/trunc.zip", zip.substr(0, zip.size() / 2));
    ASSERT_TRUE(fs.mkdir_all("/home/user/x/o").ok());
    for (const char* cmd : {"tar xzf trunc.tgz -C o", "tar xzf corrupt.tgz -C o", "tar xf noise -C o",
                            "tar tf noise.gz", "gunzip -c noise.gz", "gunzip -c corrupt.tgz", "gzip -t trunc.tgz",
                            "unzip -q -d o noise.zip", "unzip -q -d o trunc.zip", "unzip -l noise"}) {
        auto r = run(cmd);
        EXPECT_NE(r.exit_code, 0) << cmd << "\n" << r.out << r.err;
        EXPECT_FALSE(r.err.empty()) << cmd;
    }
    // No member half written: whatever was extracted is complete.
    if (fs.lexists("/home/user/x/o/a")) {
        EXPECT_TRUE(content("/home/user/x/o/a") == std::string(100000, 'a'));
    }
    auto ents = fs.readdir("/home/user/x/o");
    ASSERT_TRUE(ents.ok());
    for (const auto& e : *ents) EXPECT_EQ(e.name.find(".bkx"), std::string::npos) << e.name;
    expect_outside_untouched();
}

TEST_F(Hostile, MutatedArchivesNeverCrash) {
    // Deterministic byte mutations of small valid archives: any outcome but a crash or a write outside.
    const std::vector<Member> ms = {{Member::dir, "d"}, {Member::file, "d/a", std::string(3000, 'q')},
                                    {Member::symlink, "d/l", "", "a"}, {Member::file, "b", "bee\n"}};
    const std::string inputs[] = {make_archive(ms), make_archive(ms, "tar", "gzip"), make_archive(ms, "zip")};
    const char* cmds[] = {"tar xf m -C o 2>/dev/null; tar tvf m >/dev/null 2>&1",
                          "tar xzf m -C o 2>/dev/null; gunzip -c m >/dev/null 2>&1; gzip -l m >/dev/null 2>&1",
                          "unzip -o -q -d o m 2>/dev/null; unzip -l m >/dev/null 2>&1"};
    uint32_t seed = 7;
    auto next = [&]() { return seed = seed * 1664525 + 1013904223; };
    ASSERT_TRUE(fs.mkdir_all("/home/user/x/o").ok());
    for (int kind = 0; kind < 3; ++kind) {
        for (int round = 0; round < 150; ++round) {
            std::string m = inputs[kind];
            const int flips = 1 + static_cast<int>(next() % 8);
            for (int f = 0; f < flips; ++f) m[next() % m.size()] = static_cast<char>(next() >> 24);
            if (next() % 4 == 0) m.resize(next() % m.size());
            put("/home/user/x/m", m);
            auto r = run(cmds[kind]);
            (void)r;
        }
    }
    expect_outside_untouched();
}

TEST_F(Hostile, EndlessInputStopsAtTheTimeout) {
    // The cancel token reaches the compression and decompression loops: an endless stream ends with the run.
    const auto start = std::chrono::steady_clock::now();
    auto r = run("gzip -c /dev/zero | gunzip -c | wc -c", std::chrono::milliseconds(1500));
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
    auto r2 = run("gzip -c /dev/zero > z.gz", std::chrono::milliseconds(1000));
    EXPECT_EQ(r2.exit_code, 124) << r2.err;
    EXPECT_FALSE(fs.lexists("/home/user/x/z.gz/x"));
}

TEST_F(Hostile, ExtractionRootMayBeASymlinkOfItsOwn) {
    // -C through a symlink is what the user asked for: the root is where it resolves.
    ASSERT_TRUE(fs.mkdir_all("/home/user/real").ok());
    ASSERT_TRUE(fs.symlink("/home/user/real", "/home/user/x/link").ok());
    put("/home/user/a.tar", make_archive({{Member::file, "f", "data"}}));
    auto r = run("tar xf ../a.tar -C link");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(content("/home/user/real/f"), "data");
}

}  // namespace
}  // namespace bashkit
