// MountTable: the conformance suite over tables whose root is a HostFs, and an overlay of a host folder
// with a memory upper layer; then mount-specific behaviour: longest prefix, listings that show mount points,
// read-only mounts, EXDEV across mounts, symlinks that cross mounts, mount/umount while in use.
#include "vfs/mount_table.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "tests/vfs/filesystem_conformance.hpp"
#include "tests/vfs/host_test_util.hpp"
#include "vfs/host_fs.hpp"
#include "vfs/memory_fs.hpp"
#include "vfs/overlay_fs.hpp"

namespace bashkit::vfs {
namespace {

std::shared_ptr<FileSystem> temp_host_fs(const char* tag, bool read_only = false) {
    HostFsOptions o;
    o.remove_root_on_destroy = true;
    o.read_only = read_only;
    auto fs = HostFs::open(testing_util::make_temp_dir(tag), o);
    return fs ? std::shared_ptr<FileSystem>(std::move(*fs)) : nullptr;
}

struct MountHostRootFactory {
    static std::unique_ptr<FileSystem> make() {
        auto table = std::make_unique<MountTable>();
        if (!table->mount("/", temp_host_fs("mnt-root"))) return nullptr;
        return table;
    }
    static constexpr bool kHardLinks = false;  // HostFs makes no hard links (see host_fs.hpp)
    static constexpr bool kSpecialModeBits = false;  // masked off on the host
};

struct MountOverlayRootFactory {
    static std::unique_ptr<FileSystem> make() {
        auto table = std::make_unique<MountTable>();
        auto overlay = std::make_shared<OverlayFs>(temp_host_fs("mnt-lower", true), std::make_shared<MemoryFs>());
        if (!table->mount("/", overlay)) return nullptr;
        return table;
    }
    static constexpr bool kHardLinks = true;
};


}  // namespace

BASHKIT_FS_CONFORMANCE(MountTable, conformance::factory<MountHostRootFactory>("HostRoot"),
                       conformance::factory<MountOverlayRootFactory>("OverlayRoot"));

}  // namespace bashkit::vfs

namespace bashkit::vfs {
namespace {

using conformance::sorted_names;

struct Mixed {
    std::shared_ptr<MemoryFs> root = std::make_shared<MemoryFs>();
    std::shared_ptr<FileSystem> host = temp_host_fs("mnt-host");
    std::shared_ptr<MemoryFs> ro = std::make_shared<MemoryFs>();
    std::shared_ptr<MemoryFs> deep = std::make_shared<MemoryFs>();
    MountTable table;
    Mixed() {
        EXPECT_TRUE(root->mkdir("/workspace").ok());
        EXPECT_TRUE(root->write_file("/root-file", "root").ok());
        EXPECT_TRUE(host->write_file("/h.txt", "host").ok());
        EXPECT_TRUE(ro->write_file("/r.txt", "read only").ok());
        EXPECT_TRUE(deep->write_file("/d.txt", "deep").ok());
        EXPECT_TRUE(table.mount("/", root).ok());
        EXPECT_TRUE(table.mount("/workspace", host).ok());
        EXPECT_TRUE(table.mount("/opt/ro", ro, true).ok());
        EXPECT_TRUE(table.mount("/workspace/nested/deep", deep).ok());
    }
};

TEST(MountTable, LongestPrefixWinsAndListingsShowMountPoints) {
    Mixed m;
    MountTable& t = m.table;
    EXPECT_EQ(t.read_file("/workspace/h.txt").value_or("?"), "host");
    EXPECT_EQ(t.read_file("/workspace/nested/deep/d.txt").value_or("?"), "deep");
    EXPECT_EQ(t.read_file("/opt/ro/r.txt").value_or("?"), "read only");
    EXPECT_EQ(sorted_names(t.readdir("/").value()), (std::vector<std::string>{"opt", "root-file", "workspace"}));
    EXPECT_EQ(sorted_names(t.readdir("/opt").value()), (std::vector<std::string>{"ro"}));  // synthetic
    EXPECT_EQ(sorted_names(t.readdir("/workspace").value()), (std::vector<std::string>{"h.txt", "nested"}));
    EXPECT_TRUE(t.is_directory("/workspace/nested"));  // leads to a mount, not in the host folder
    EXPECT_FALSE(m.host->lexists("/nested"));
    BK_EXPECT_ERR(t.write_file("/opt/x", "x"), Errc::read_only);  // synthetic directories hold nothing
    BK_EXPECT_ERR(t.rmdir("/opt"), Errc::busy);
    // Each mount has its own device number; files of one mount share it.
    EXPECT_NE(t.stat("/workspace/h.txt").value().dev, t.stat("/root-file").value().dev);
    EXPECT_EQ(t.stat("/workspace/h.txt").value().dev, t.stat("/workspace").value().dev);
    auto h = t.open("/workspace/h.txt", OpenFlags::read);
    BK_ASSERT_OK(h);
    EXPECT_EQ((*h)->stat().value().dev, t.stat("/workspace/h.txt").value().dev);
}

TEST(MountTable, ReadOnlyMountsAndCrossMountRenames) {
    Mixed m;
    MountTable& t = m.table;
    BK_EXPECT_ERR(t.write_file("/opt/ro/r.txt", "x"), Errc::read_only);
    BK_EXPECT_ERR(t.open("/opt/ro/r.txt", OpenFlags::append), Errc::read_only);
    BK_EXPECT_ERR(t.mkdir("/opt/ro/d"), Errc::read_only);
    BK_EXPECT_ERR(t.unlink("/opt/ro/r.txt"), Errc::read_only);
    BK_EXPECT_ERR(t.utimes("/opt/ro/r.txt", TimeSet::now(), TimeSet::now()), Errc::read_only);
    BK_EXPECT_ERR(t.rename("/opt/ro/r.txt", "/workspace/r.txt"), Errc::cross_device);
    BK_EXPECT_ERR(t.rename("/workspace/h.txt", "/h.txt"), Errc::cross_device);
    BK_EXPECT_ERR(t.link("/workspace/h.txt", "/h.txt"), Errc::cross_device);
    BK_EXPECT_ERR(t.rename("/workspace", "/ws"), Errc::busy);
    BK_EXPECT_ERR(t.rename("/root-file", "/workspace"), Errc::busy);
    BK_EXPECT_OK(t.rename("/workspace/h.txt", "/workspace/h2.txt"));
    EXPECT_EQ(m.host->read_file("/h2.txt").value_or("?"), "host");
    EXPECT_EQ(t.read_file("/opt/ro/r.txt").value_or("?"), "read only");
    EXPECT_TRUE(t.open("/opt/ro/r.txt", OpenFlags::read).ok());
}

TEST(MountTable, SymlinksCrossMountsInTheVirtualTree) {
    Mixed m;
    MountTable& t = m.table;
    // A link in the host mount to a file of the read-only memory mount, absolute and relative.
    BK_ASSERT_OK(t.symlink("/opt/ro/r.txt", "/workspace/abs"));
    BK_ASSERT_OK(t.symlink("../opt/ro/r.txt", "/workspace/rel"));
    BK_ASSERT_OK(t.symlink("/workspace", "/ws"));
    EXPECT_EQ(t.read_file("/workspace/abs").value_or("?"), "read only");
    EXPECT_EQ(t.read_file("/workspace/rel").value_or("?"), "read only");
    EXPECT_EQ(t.read_file("/ws/nested/deep/d.txt").value_or("?"), "deep");
    EXPECT_EQ(t.realpath("/ws/abs").value_or("?"), "/opt/ro/r.txt");
    EXPECT_EQ(t.realpath("/ws/nested/deep/..").value_or("?"), "/workspace/nested");
    BK_EXPECT_ERR(t.write_file("/workspace/abs", "x"), Errc::read_only);  // writes land in the target's mount
    // The host folder stores the target verbatim; the host mount alone would not find it.
    EXPECT_EQ(m.host->readlink("/abs").value_or("?"), "/opt/ro/r.txt");
    BK_EXPECT_ERR(m.host->read_file("/abs"), Errc::no_such_file);
}

TEST(MountTable, MountAndUmountAtRunTime) {
    MountTable t;
    EXPECT_TRUE(t.readdir("/").value().empty());  // nothing mounted: an empty synthetic root
    BK_EXPECT_ERR(t.write_file("/x", "x"), Errc::read_only);
    auto a = std::make_shared<MemoryFs>();
    BK_ASSERT_OK(a->write_file("/f", "a"));
    BK_ASSERT_OK(t.mount("/data/", a));
    BK_EXPECT_ERR(t.mount("/data", a), Errc::busy);
    BK_EXPECT_ERR(t.mount("relative", a), Errc::invalid_argument);
    BK_EXPECT_ERR(t.mount("/x", nullptr), Errc::invalid_argument);
    EXPECT_EQ(t.read_file("/data/f").value_or("?"), "a");
    auto h = t.open("/data/f", OpenFlags::read);
    BK_ASSERT_OK(t.umount("/data"));
    BK_EXPECT_ERR(t.umount("/data"), Errc::invalid_argument);
    BK_EXPECT_ERR(t.stat("/data/f"), Errc::no_such_file);
    char c;
    EXPECT_EQ((*h)->read(&c, 1).value_or(0), 1u);  // handles outlive the mount
    ASSERT_EQ(t.mounts().size(), 0u);
    // Mount and umount while other threads resolve paths.
    BK_ASSERT_OK(t.mount("/", std::make_shared<MemoryFs>()));
    std::atomic<bool> stop{false};
    std::atomic<int> bad{0};
    std::thread reader([&] {
        while (!stop.load()) {
            auto r = t.read_file("/data/f");
            if (r && *r != "a") bad++;
            (void)t.readdir("/");
        }
    });
    for (int i = 0; i < 300; ++i) {
        BK_ASSERT_OK(t.mount("/data", a));
        BK_ASSERT_OK(t.umount("/data"));
    }
    stop = true;
    reader.join();
    EXPECT_EQ(bad.load(), 0);
}

}  // namespace
}  // namespace bashkit::vfs
