// The host boundary: what a script may leave on the host and what it learns about it, over every way a host
// folder reaches a script (HostFs alone, OverlayFs with a host upper and lower, a MountTable mixing memory and
// host mounts). Each case checks the host itself (lstat, link counts, contents) before and after.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <functional>
#include <string>

#include "tests/vfs/filesystem_conformance.hpp"
#include "tests/vfs/host_test_util.hpp"
#include "vfs/host_fs.hpp"
#include "vfs/limited_fs.hpp"
#include "vfs/memory_fs.hpp"
#include "vfs/mount_table.hpp"
#include "vfs/overlay_fs.hpp"

namespace bashkit::vfs {
namespace {

using testing_util::host_read;
using testing_util::host_snapshot;
using testing_util::host_write;
using testing_util::TempDir;

std::shared_ptr<FileSystem> host_fs(const std::string& path, bool read_only = false) {
    HostFsOptions o;
    o.read_only = read_only;
    auto fs = HostFs::open(path, o);
    return fs ? std::shared_ptr<FileSystem>(std::move(*fs)) : nullptr;
}

mode_t host_mode(const std::string& p) {
    struct stat st;
    return ::lstat(p.c_str(), &st) == 0 ? st.st_mode : 0;
}

nlink_t host_links(const std::string& p) {
    struct stat st;
    return ::lstat(p.c_str(), &st) == 0 ? st.st_nlink : 0;
}

// One way of reaching a host folder. `dir` is the virtual directory that shows `host` (the folder the
// script writes to); `lower` is a read-only host folder shown at the same place (overlay) or empty.
struct Place {
    std::string name;
    std::shared_ptr<FileSystem> fs;
    std::string dir;    // virtual path of the writable host folder
    std::string host;   // that folder on the host
    std::string lower;  // a read-only lower host folder seen at `dir` too (overlay), else empty
};

class HostBoundary : public ::testing::TestWithParam<std::string> {
protected:
    void SetUp() override {
        const std::string& kind = GetParam();
        if (kind == "HostFs") {
            s_.fs = host_fs(upper_.path);
            s_.dir = "/";
        } else if (kind == "Overlay") {
            s_.fs = std::make_shared<OverlayFs>(host_fs(lower_.path, true), host_fs(upper_.path));
            s_.dir = "/";
            s_.lower = lower_.path;
        } else {  // a memory root, the host folder at /mnt/w, an overlay over a host lower at /ovl
            auto table = std::make_shared<MountTable>();
            ASSERT_TRUE(table->mount("/", std::make_shared<MemoryFs>()));
            ASSERT_TRUE(table->mount("/mnt/w", host_fs(upper_.path)));
            ASSERT_TRUE(table->mount("/ovl", std::make_shared<OverlayFs>(host_fs(lower_.path, true),
                                                                          std::make_shared<MemoryFs>())));
            s_.fs = table;
            s_.dir = "/mnt/w";
        }
        ASSERT_NE(s_.fs, nullptr);
        s_.host = upper_.path;
    }
    std::string v(const std::string& rel) const { return s_.dir == "/" ? "/" + rel : s_.dir + "/" + rel; }
    std::string h(const std::string& rel) const { return s_.host + "/" + rel; }

    TempDir upper_{"boundary-up"};
    TempDir lower_{"boundary-low"};
    TempDir outside_{"boundary-out"};
    Place s_;
};

TEST_P(HostBoundary, SetuidSetgidAndStickyNeverReachTheHost) {
    FileSystem& fs = *s_.fs;
    BK_ASSERT_OK(fs.write_file(v("created"), "x", 06755));
    EXPECT_EQ(host_mode(h("created")) & 07777, 0755u);
    {
        auto f = fs.open(v("opened"), OpenFlags::write | OpenFlags::create | OpenFlags::exclusive, 04777);
        BK_ASSERT_OK(f);
    }
    EXPECT_EQ(host_mode(h("opened")) & 07777, 0777u);
    BK_ASSERT_OK(fs.mkdir(v("dir"), 03777));
    EXPECT_EQ(host_mode(h("dir")) & 07777, 0777u);
    BK_ASSERT_OK(fs.mkdir_all(v("deep/er"), 02755));
    EXPECT_EQ(host_mode(h("deep/er")) & 07000, 0u);
    BK_ASSERT_OK(fs.chmod(v("created"), 04711));
    EXPECT_EQ(host_mode(h("created")) & 07777, 0711u);
    BK_ASSERT_OK(fs.chmod(v("dir"), 01777));
    EXPECT_EQ(host_mode(h("dir")) & 07777, 0777u);
    BK_ASSERT_OK(fs.chmod(v("created"), 07777));
    EXPECT_EQ(fs.stat(v("created")).value().mode, 0777u);  // stat shows what the host has
    // Through a symlink to the file, and write_file_atomic (sed -i, editors) keeping the old mode.
    BK_ASSERT_OK(fs.symlink("created", v("link")));
    BK_ASSERT_OK(fs.chmod(v("link"), 06755));
    EXPECT_EQ(host_mode(h("created")) & 07777, 0755u);
    BK_ASSERT_OK(write_file_atomic(fs, v("created"), "new", 04755));
    EXPECT_EQ(host_mode(h("created")) & 07000, 0u);
    // Nothing anywhere below the folder carries one of the bits.
    for (const auto& [rel, desc] : host_snapshot(s_.host)) {
        mode_t m = host_mode(s_.host + (rel == "." ? "" : rel));
        EXPECT_EQ(m & 07000, 0u) << rel << " " << desc;
    }
}

TEST_P(HostBoundary, AFileWithSeveralLinksIsNeverChanged) {
    FileSystem& fs = *s_.fs;
    const std::string secret = outside_.path + "/secret";
    ASSERT_TRUE(host_write(secret, "outside"));
    ASSERT_EQ(::chmod(secret.c_str(), 0600), 0);
    ASSERT_EQ(::link(secret.c_str(), h("planted").c_str()), 0);
    const auto before = host_snapshot(outside_.path);

    EXPECT_EQ(fs.read_file(v("planted")).value_or("?"), "outside");  // reading is the host's choice
    BK_EXPECT_ERR(fs.write_file(v("planted"), "evil"), Errc::not_permitted);
    BK_EXPECT_ERR(fs.append_file(v("planted"), "evil"), Errc::not_permitted);
    BK_EXPECT_ERR(fs.open(v("planted"), OpenFlags::read | OpenFlags::write), Errc::not_permitted);
    BK_EXPECT_ERR(fs.truncate(v("planted"), 0), Errc::not_permitted);
    BK_EXPECT_ERR(fs.chmod(v("planted"), 0666), Errc::not_permitted);
    BK_EXPECT_ERR(fs.utimes(v("planted"), TimeSet::now(), TimeSet::now()), Errc::not_permitted);
    // Through a symlink made by the script too.
    BK_ASSERT_OK(fs.symlink("planted", v("via")));
    BK_EXPECT_ERR(fs.write_file(v("via"), "evil"), Errc::not_permitted);
    // No new hard links on the host either.
    BK_ASSERT_OK(fs.write_file(v("mine"), "mine"));
    BK_EXPECT_ERR(fs.link(v("mine"), v("mine2")), Errc::not_permitted);
    BK_EXPECT_ERR(fs.link(v("planted"), v("more")), Errc::not_permitted);
    EXPECT_EQ(host_snapshot(outside_.path), before);
    EXPECT_EQ(host_links(secret), 2u);
    // Replacing the name (what sed -i and mv do) leaves the outside file alone; so does removing it.
    BK_ASSERT_OK(write_file_atomic(fs, v("planted"), "replaced"));
    EXPECT_EQ(host_read(secret), "outside");
    EXPECT_EQ(host_links(secret), 1u);
    EXPECT_EQ(fs.read_file(v("planted")).value_or("?"), "replaced");
    EXPECT_EQ(host_mode(secret) & 07777, 0600u);
}

TEST_P(HostBoundary, HostSymlinkTargetsNeverShowAHostPath) {
    FileSystem& fs = *s_.fs;
    char canon[PATH_MAX];
    ASSERT_NE(::realpath(s_.host.c_str(), canon), nullptr);
    const std::string root = canon;
    ASSERT_EQ(::mkdir(h("sub").c_str(), 0755), 0);
    ASSERT_TRUE(host_write(h("sub/file"), "inside"));
    ASSERT_TRUE(host_write(outside_.path + "/secret", "outside"));
    // Planted on the host: one into the folder (by its canonical path), one out of it, one relative.
    ASSERT_EQ(::symlink((root + "/sub/file").c_str(), h("in").c_str()), 0);
    ASSERT_EQ(::symlink((outside_.path + "/secret").c_str(), h("out").c_str()), 0);
    ASSERT_EQ(::symlink(outside_.path.c_str(), h("outdir").c_str()), 0);
    ASSERT_EQ(::symlink("sub/file", h("rel").c_str()), 0);

    // Only a host folder at the root of the tree can show an inside target as the same absolute path.
    if (s_.dir == "/") {
        EXPECT_EQ(fs.readlink(v("in")).value_or("?"), "/sub/file");
        EXPECT_EQ(fs.read_file(v("in")).value_or("?"), "inside");
        EXPECT_EQ(fs.lstat(v("in")).value().size, std::string("/sub/file").size());
    } else {
        EXPECT_EQ(fs.readlink(v("in")).value_or("?"), "/sub/file");  // relative to the mount's root
    }
    EXPECT_EQ(fs.readlink(v("out")).value_or("?"), std::string(kHostLinkOutsideRoot));
    EXPECT_EQ(fs.lstat(v("out")).value().size, kHostLinkOutsideRoot.size());
    BK_EXPECT_ERR(fs.read_file(v("out")), Errc::no_such_file);
    BK_EXPECT_ERR(fs.readdir(v("outdir")), Errc::no_such_file);
    EXPECT_EQ(fs.readlink(v("rel")).value_or("?"), "sub/file");
    EXPECT_EQ(fs.read_file(v("rel")).value_or("?"), "inside");
    for (const DirEntry& e : fs.readdir(s_.dir).value()) {
        auto t = fs.readlink(join_path(s_.dir, e.name));
        if (!t) continue;
        EXPECT_EQ(t->find(s_.host), std::string::npos) << e.name << " -> " << *t;
        EXPECT_EQ(t->find(outside_.path), std::string::npos) << e.name << " -> " << *t;
        EXPECT_EQ(t->find(root), std::string::npos) << e.name << " -> " << *t;
    }
    // Links the script makes read back as its own text and resolve in the virtual tree.
    const std::string target = v("sub/file");
    BK_ASSERT_OK(fs.symlink(target, v("mine")));
    EXPECT_EQ(fs.readlink(v("mine")).value_or("?"), target);
    EXPECT_EQ(fs.lstat(v("mine")).value().size, target.size());
    EXPECT_EQ(fs.read_file(v("mine")).value_or("?"), "inside");
    BK_ASSERT_OK(fs.symlink("/etc/../nowhere//x", v("odd")));
    EXPECT_EQ(fs.readlink(v("odd")).value_or("?"), "/etc/../nowhere//x");
    // On the host, the script's absolute links point into the folder.
    if (s_.dir == "/") {
        char buf[PATH_MAX];
        ssize_t n = ::readlink(h("mine").c_str(), buf, sizeof buf);
        ASSERT_GT(n, 0);
        EXPECT_EQ(std::string(buf, static_cast<std::size_t>(n)), root + target);
        EXPECT_EQ(host_read(h("mine")), "inside");
    }
}

TEST_P(HostBoundary, TheLowerLayerOfAnOverlayIsLeftAsItWas) {
    if (s_.lower.empty() && GetParam() != "Mixed") GTEST_SKIP() << "no host lower layer";
    FileSystem& fs = *s_.fs;
    const std::string secret = outside_.path + "/secret";
    ASSERT_TRUE(host_write(secret, "outside"));
    ASSERT_EQ(::link(secret.c_str(), (lower_.path + "/planted").c_str()), 0);
    ASSERT_TRUE(host_write(lower_.path + "/plain", "plain"));
    ASSERT_EQ(::chmod((lower_.path + "/plain").c_str(), 0755), 0);
    const auto before_lower = host_snapshot(lower_.path);
    const auto before_out = host_snapshot(outside_.path);
    const std::string dir = GetParam() == "Mixed" ? "/ovl" : "/";
    auto at = [&](const std::string& rel) { return join_path(dir, rel); };
    // Writing a planted link copies it up: the outside file keeps its content.
    BK_ASSERT_OK(fs.append_file(at("planted"), "+up"));
    EXPECT_EQ(fs.read_file(at("planted")).value_or("?"), "outside+up");
    BK_ASSERT_OK(fs.chmod(at("plain"), 04755));
    EXPECT_EQ(host_snapshot(lower_.path), before_lower);
    EXPECT_EQ(host_snapshot(outside_.path), before_out);
    if (GetParam() == "Overlay") {  // the copy in the host upper has no setuid bit
        EXPECT_EQ(host_mode(upper_.path + "/plain") & 07777, 0755u);
        EXPECT_EQ(host_links(upper_.path + "/planted"), 1u);
    }
}

// Over the host's "/" itself (--host, DangerousLocalSandbox) there is no sandbox and nothing outside: the
// bits and hard links are the caller's.
TEST(HostBoundaryWholeHost, KeepsModeBitsAndHardLinks) {
    TempDir tmp("boundary-whole");
    auto fs = host_fs("/");
    ASSERT_NE(fs, nullptr);
    char canon[PATH_MAX];
    ASSERT_NE(::realpath(tmp.path.c_str(), canon), nullptr);
    const std::string dir = canon;
    BK_ASSERT_OK(fs->write_file(dir + "/f", "x", 0644));
    BK_ASSERT_OK(fs->chmod(dir + "/f", 02755));
    EXPECT_EQ(host_mode(dir + "/f") & 07777, 02755u);
    BK_ASSERT_OK(fs->link(dir + "/f", dir + "/g"));
    BK_ASSERT_OK(fs->append_file(dir + "/g", "y"));
    EXPECT_EQ(host_read(dir + "/f"), "xy");
    BK_ASSERT_OK(fs->symlink("/etc/hostname", dir + "/l"));
    EXPECT_EQ(fs->readlink(dir + "/l").value_or("?"), "/etc/hostname");
}

INSTANTIATE_TEST_SUITE_P(Kinds, HostBoundary, ::testing::Values("HostFs", "Overlay", "Mixed"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace bashkit::vfs
