// OverlayFs: the conformance suite (over an empty lower layer of each kind, so everything happens in the
// upper layer and through whiteouts), then what only the overlay promises: fall-through reads, copy-up,
// whiteouts, opaque directories, merged listings, and a lower folder that never changes.
#include "vfs/overlay_fs.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <set>

#include "tests/vfs/filesystem_conformance.hpp"
#include "tests/vfs/host_test_util.hpp"
#include "vfs/host_fs.hpp"
#include "vfs/memory_fs.hpp"

namespace bashkit::vfs {
namespace {

std::shared_ptr<FileSystem> overlay_temp_host_fs(const char* tag, bool read_only = false) {
    HostFsOptions o;
    o.remove_root_on_destroy = true;
    o.read_only = read_only;
    auto fs = HostFs::open(testing_util::make_temp_dir(tag), o);
    return fs ? std::shared_ptr<FileSystem>(std::move(*fs)) : nullptr;
}

std::shared_ptr<FileSystem> read_only_memory_fs() {
    MemoryFsOptions o;
    o.read_only = true;
    return std::make_shared<MemoryFs>(o);
}

struct OverlayMemoryFactory {
    static std::unique_ptr<FileSystem> make() {
        return std::make_unique<OverlayFs>(read_only_memory_fs(), std::make_shared<MemoryFs>());
    }
    static constexpr bool kHardLinks = true;
};

struct OverlayHostFactory {
    static std::unique_ptr<FileSystem> make() {
        return std::make_unique<OverlayFs>(overlay_temp_host_fs("ovl-lower", true), overlay_temp_host_fs("ovl-upper"));
    }
    static constexpr bool kHardLinks = false;  // HostFs makes no hard links (see host_fs.hpp)
    static constexpr bool kSpecialModeBits = false;  // masked off on the host
};

struct OverlayHostOverMemoryFactory {
    static std::unique_ptr<FileSystem> make() {
        return std::make_unique<OverlayFs>(overlay_temp_host_fs("ovl-lower", true), std::make_shared<MemoryFs>());
    }
    static constexpr bool kHardLinks = true;
};


}  // namespace

BASHKIT_FS_CONFORMANCE(OverlayFs, conformance::factory<OverlayMemoryFactory>("MemoryOverMemory"),
                       conformance::factory<OverlayHostFactory>("HostOverHost"),
                       conformance::factory<OverlayHostOverMemoryFactory>("HostOverMemory"));

}  // namespace bashkit::vfs

namespace bashkit::vfs {
namespace {

using testing_util::host_snapshot;
using testing_util::host_write;
using testing_util::TempDir;

// A host lower folder with some content, read-only, under a memory or host upper layer.
struct Layers {
    TempDir lower_dir{"ovl-lower"};
    TempDir upper_dir{"ovl-upper"};
    std::shared_ptr<OverlayFs> fs;
    std::map<std::string, std::string> lower_before;

    explicit Layers(bool host_upper) {
        const std::string& l = lower_dir.path;
        ::mkdir((l + "/d").c_str(), 0750);
        ::mkdir((l + "/d/sub").c_str(), 0755);
        ::mkdir((l + "/gone").c_str(), 0755);
        host_write(l + "/d/a.txt", "lower a");
        host_write(l + "/d/sub/deep.txt", "deep");
        host_write(l + "/gone/x", "x");
        host_write(l + "/top.txt", "top");
        ::symlink("d/a.txt", (l + "/link").c_str());
        // An absolute link planted on the host names a host path: into the folder by its canonical path.
        char canon[PATH_MAX];
        ::symlink((std::string(::realpath(l.c_str(), canon)) + "/d").c_str(), (l + "/abs-dir-link").c_str());
        ::chmod((l + "/top.txt").c_str(), 0640);
        lower_before = host_snapshot(l);
        HostFsOptions ro;
        ro.read_only = true;
        std::shared_ptr<FileSystem> lower(std::move(HostFs::open(l, ro)).value());
        std::shared_ptr<FileSystem> upper;
        if (host_upper) {
            upper = std::shared_ptr<FileSystem>(std::move(HostFs::open(upper_dir.path)).value());
        } else {
            upper = std::make_shared<MemoryFs>();
        }
        fs = std::make_shared<OverlayFs>(lower, upper);
    }
    bool lower_unchanged() const { return host_snapshot(lower_dir.path) == lower_before; }
};

class Overlay : public ::testing::TestWithParam<bool> {};

TEST_P(Overlay, ReadsFallThroughToTheLowerLayer) {
    Layers L(GetParam());
    OverlayFs& fs = *L.fs;
    EXPECT_EQ(fs.read_file("/d/a.txt").value_or("?"), "lower a");
    EXPECT_EQ(fs.read_file("/link").value_or("?"), "lower a");
    EXPECT_EQ(fs.read_file("/abs-dir-link/sub/deep.txt").value_or("?"), "deep");
    EXPECT_EQ(fs.stat("/top.txt").value().mode, 0640u);
    EXPECT_EQ(fs.stat("/d").value().mode, 0750u);
    EXPECT_EQ(conformance::sorted_names(fs.readdir("/").value()),
              (std::vector<std::string>{"abs-dir-link", "d", "gone", "link", "top.txt"}));
    EXPECT_EQ(fs.realpath("/abs-dir-link/sub/..").value_or("?"), "/d");
    EXPECT_TRUE(L.lower_unchanged());
}

TEST_P(Overlay, WritesCopyUpAndLeaveTheLowerLayerAlone) {
    Layers L(GetParam());
    OverlayFs& fs = *L.fs;
    const TimeSpec lower_mtime = fs.stat("/top.txt").value().mtime;
    BK_ASSERT_OK(fs.append_file("/d/a.txt", " + upper"));
    EXPECT_EQ(fs.read_file("/d/a.txt").value_or("?"), "lower a + upper");
    EXPECT_EQ(fs.upper().read_file("/d/a.txt").value_or("?"), "lower a + upper");
    EXPECT_EQ(fs.upper().stat("/d").value().mode, 0750u);  // the directory came up with its mode
    BK_ASSERT_OK(fs.chmod("/top.txt", 0600));               // copy-up keeps content and times
    EXPECT_EQ(fs.read_file("/top.txt").value_or("?"), "top");
    EXPECT_EQ(fs.stat("/top.txt").value().mode, 0600u);
    EXPECT_EQ(fs.stat("/top.txt").value().mtime, lower_mtime);
    BK_ASSERT_OK(fs.write_file("/link", "through the link"));  // the target is copied up, the link stays
    EXPECT_TRUE(fs.is_symlink("/link"));
    EXPECT_EQ(fs.read_file("/d/a.txt").value_or("?"), "through the link");
    BK_ASSERT_OK(fs.truncate("/d/sub/deep.txt", 2));
    EXPECT_EQ(fs.read_file("/d/sub/deep.txt").value_or("?"), "de");
    BK_ASSERT_OK(fs.write_file("/d/sub/new.txt", "new"));
    EXPECT_EQ(conformance::sorted_names(fs.readdir("/d/sub").value()),
              (std::vector<std::string>{"deep.txt", "new.txt"}));
    // An open handle on a lower file still reads the lower data; writing opens the copy.
    auto r = fs.open("/gone/x", OpenFlags::read);
    BK_ASSERT_OK(r);
    BK_ASSERT_OK(fs.write_file("/gone/x", "changed"));
    char buf[8];
    EXPECT_EQ(std::string(buf, (*r)->read(buf, sizeof buf).value_or(0)), "x");
    EXPECT_TRUE(L.lower_unchanged());
}

TEST_P(Overlay, DeletesLeaveWhiteoutsAndRecreatedDirectoriesAreOpaque) {
    Layers L(GetParam());
    OverlayFs& fs = *L.fs;
    BK_ASSERT_OK(fs.unlink("/top.txt"));
    EXPECT_FALSE(fs.lexists("/top.txt"));
    BK_EXPECT_ERR(fs.read_file("/top.txt"), Errc::no_such_file);
    BK_ASSERT_OK(fs.remove_all("/gone"));
    EXPECT_FALSE(fs.lexists("/gone"));
    EXPECT_EQ(conformance::sorted_names(fs.readdir("/").value()),
              (std::vector<std::string>{"abs-dir-link", "d", "link"}));
    // Whiteouts never show, and their names are reserved.
    BK_EXPECT_ERR(fs.write_file("/.wh.top.txt", ""), Errc::not_permitted);
    // Recreating: the old lower content does not come back.
    BK_ASSERT_OK(fs.mkdir("/gone"));
    EXPECT_TRUE(fs.readdir("/gone").value().empty());
    BK_ASSERT_OK(fs.write_file("/top.txt", "new top"));
    EXPECT_EQ(fs.read_file("/top.txt").value_or("?"), "new top");
    EXPECT_EQ(fs.stat("/top.txt").value().mode, 0644u);
    // rmdir of a merged directory that looks empty.
    BK_ASSERT_OK(fs.unlink("/d/sub/deep.txt"));
    BK_ASSERT_OK(fs.rmdir("/d/sub"));
    EXPECT_FALSE(fs.lexists("/d/sub"));
    BK_EXPECT_ERR(fs.rmdir("/d"), Errc::not_empty);
    EXPECT_TRUE(L.lower_unchanged());
}

TEST_P(Overlay, RenamesAndHardLinks) {
    Layers L(GetParam());
    OverlayFs& fs = *L.fs;
    BK_ASSERT_OK(fs.rename("/top.txt", "/d/moved.txt"));
    EXPECT_FALSE(fs.lexists("/top.txt"));
    EXPECT_EQ(fs.read_file("/d/moved.txt").value_or("?"), "top");
    BK_ASSERT_OK(fs.rename("/d/moved.txt", "/top.txt"));  // back over its own whiteout
    EXPECT_EQ(fs.read_file("/top.txt").value_or("?"), "top");
    // A directory with lower content cannot be renamed in place: mv copies instead.
    BK_EXPECT_ERR(fs.rename("/d", "/e"), Errc::cross_device);
    BK_ASSERT_OK(fs.mkdir("/fresh"));
    BK_ASSERT_OK(fs.write_file("/fresh/f", "f"));
    BK_ASSERT_OK(fs.rename("/fresh", "/fresh2"));
    EXPECT_EQ(fs.read_file("/fresh2/f").value_or("?"), "f");
    // A fresh directory renamed over a lower directory emptied by whiteouts hides the lower content.
    BK_ASSERT_OK(fs.unlink("/gone/x"));
    BK_ASSERT_OK(fs.rename("/fresh2", "/gone"));
    EXPECT_EQ(conformance::sorted_names(fs.readdir("/gone").value()), (std::vector<std::string>{"f"}));
    if (GetParam()) {  // a host upper makes no hard links
        BK_EXPECT_ERR(fs.link("/d/a.txt", "/hard"), Errc::not_permitted);
        EXPECT_TRUE(L.lower_unchanged());
        return;
    }
    BK_ASSERT_OK(fs.link("/d/a.txt", "/hard"));
    BK_ASSERT_OK(fs.append_file("/hard", "!"));
    EXPECT_EQ(fs.read_file("/d/a.txt").value_or("?"), "lower a!");
    EXPECT_EQ(fs.stat("/hard").value().ino, fs.stat("/d/a.txt").value().ino);
    EXPECT_TRUE(L.lower_unchanged());
}

TEST_P(Overlay, InodeNumbersOfTheTwoLayersNeverCollide) {
    Layers L(GetParam());
    OverlayFs& fs = *L.fs;
    BK_ASSERT_OK(fs.write_file("/u1", ""));
    BK_ASSERT_OK(fs.write_file("/u2", ""));
    std::set<uint64_t> seen;
    for (const DirEntry& e : fs.readdir("/").value()) {
        auto st = fs.lstat("/" + e.name);
        BK_ASSERT_OK(st);
        EXPECT_EQ(st->ino, e.ino) << e.name;
        EXPECT_EQ(st->dev, 3u);
        EXPECT_TRUE(seen.insert(st->ino).second) << e.name;
    }
}

INSTANTIATE_TEST_SUITE_P(MemoryAndHostUpper, Overlay, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& i) { return i.param ? "HostUpper" : "MemoryUpper"; });

TEST(Overlay, WhiteoutsPersistInAHostUpperLayer) {
    TempDir lower("ovl-lower"), upper("ovl-upper");
    host_write(lower.path + "/keep", "k");
    host_write(lower.path + "/drop", "d");
    const std::string long_name(253, 'n');  // too long for ".wh." + name: hashed whiteout
    host_write(lower.path + "/" + long_name, "l");
    auto open_overlay = [&] {
        HostFsOptions ro;
        ro.read_only = true;
        return std::make_shared<OverlayFs>(std::shared_ptr<FileSystem>(std::move(HostFs::open(lower.path, ro)).value()),
                                           std::shared_ptr<FileSystem>(std::move(HostFs::open(upper.path)).value()));
    };
    {
        auto fs = open_overlay();
        BK_ASSERT_OK(fs->unlink("/drop"));
        BK_ASSERT_OK(fs->unlink("/" + long_name));
        BK_ASSERT_OK(fs->write_file("/keep", "changed"));
    }
    auto fs = open_overlay();
    EXPECT_EQ(conformance::sorted_names(fs->readdir("/").value()), (std::vector<std::string>{"keep"}));
    EXPECT_EQ(fs->read_file("/keep").value_or("?"), "changed");
    EXPECT_EQ(testing_util::host_read(lower.path + "/drop"), "d");
    EXPECT_EQ(testing_util::host_read(lower.path + "/keep"), "k");
}

}  // namespace
}  // namespace bashkit::vfs
