// HostFs: the conformance suite over a fresh host folder per test (both confinement strategies), plus what
// only HostFs promises (owner, chown, host files seen as they are, read-only, FIFOs, name rules).
#include "vfs/host_fs.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/vfs/filesystem_conformance.hpp"
#include "tests/vfs/host_test_util.hpp"

namespace bashkit::vfs {
namespace {

template <HostFsOptions::Confinement kHow>
struct HostFsFactory {
    static std::unique_ptr<FileSystem> make() {
        HostFsOptions o;
        o.confinement = kHow;
        o.remove_root_on_destroy = true;
        auto fs = HostFs::open(testing_util::make_temp_dir("hostfs"), o);
        return fs ? std::unique_ptr<FileSystem>(std::move(*fs)) : nullptr;
    }
    static constexpr bool kHardLinks = false;  // HostFs makes no hard links (see host_fs.hpp)
    static constexpr bool kSpecialModeBits = false;  // masked off on the host
};


}  // namespace

BASHKIT_FS_CONFORMANCE(HostFs,
                       conformance::factory<HostFsFactory<HostFsOptions::Confinement::automatic>>("Automatic"),
                       conformance::factory<HostFsFactory<HostFsOptions::Confinement::nofollow_walk>>("NofollowWalk"));

}  // namespace bashkit::vfs

namespace bashkit::vfs {
namespace {

using testing_util::host_read;
using testing_util::host_write;
using testing_util::TempDir;

std::unique_ptr<HostFs> open_host(const std::string& path, HostFsOptions o = {}) {
    auto fs = HostFs::open(path, o);
    return fs ? std::move(*fs) : nullptr;
}

TEST(HostFs, OpenRefusesWhatIsNotAFolder) {
    TempDir tmp("hostfs");
    host_write(tmp.path + "/file", "x");
    BK_EXPECT_ERR(HostFs::open(tmp.path + "/missing"), Errc::no_such_file);
    BK_EXPECT_ERR(HostFs::open(tmp.path + "/file"), Errc::not_directory);
    HostFsOptions walk;
    walk.confinement = HostFsOptions::Confinement::nofollow_walk;
    EXPECT_FALSE(open_host(tmp.path, walk)->uses_openat2());
    EXPECT_EQ(open_host(tmp.path)->uses_openat2(), host_has_openat2());
}

TEST(HostFs, SeesAndChangesTheHostFolder) {
    TempDir tmp("hostfs");
    ::mkdir((tmp.path + "/src").c_str(), 0755);
    host_write(tmp.path + "/src/main.c", "int main;");
    ::symlink("src/main.c", (tmp.path + "/main-link").c_str());
    auto fs = open_host(tmp.path);
    EXPECT_EQ(fs->read_file("/main-link").value_or("?"), "int main;");
    EXPECT_EQ(conformance::sorted_names(fs->readdir("/").value()), (std::vector<std::string>{"main-link", "src"}));
    BK_ASSERT_OK(fs->write_file("/src/new.h", "#pragma once"));
    EXPECT_EQ(host_read(tmp.path + "/src/new.h"), "#pragma once");
    struct stat st;
    ASSERT_EQ(::stat((tmp.path + "/src/new.h").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0644u);
    EXPECT_EQ(fs->stat("/src/new.h").value().ino, st.st_ino);
    EXPECT_EQ(fs->stat("/src/new.h").value().mtime, (TimeSpec{st.st_mtim.tv_sec, st.st_mtim.tv_nsec}));
}

TEST(HostFs, TheOwnerIsTheVirtualUser) {
    TempDir tmp("hostfs");
    HostFsOptions o;
    o.uid = 4242;
    o.gid = 77;
    auto fs = open_host(tmp.path, o);
    BK_ASSERT_OK(fs->write_file("/f", "x"));
    EXPECT_EQ(fs->stat("/f").value().uid, 4242u);
    EXPECT_EQ(fs->stat("/").value().gid, 77u);
    auto h = fs->open("/f", OpenFlags::read);
    EXPECT_EQ((*h)->stat().value().uid, 4242u);
    BK_EXPECT_OK(fs->chown("/f", 4242, 77));
    BK_EXPECT_OK(fs->chown("/f", static_cast<uint32_t>(-1), 77));
    BK_EXPECT_ERR(fs->chown("/f", 0, 0), Errc::not_permitted);
    BK_EXPECT_ERR(fs->chown("/f", 4242, 0), Errc::not_permitted);
    struct stat st;
    ASSERT_EQ(::stat((tmp.path + "/f").c_str(), &st), 0);
    EXPECT_EQ(st.st_uid, ::geteuid());  // the host owner never changes
}

TEST(HostFs, ReadOnlyRefusesEveryChange) {
    TempDir tmp("hostfs");
    host_write(tmp.path + "/f", "f");
    ::mkdir((tmp.path + "/d").c_str(), 0755);
    HostFsOptions o;
    o.read_only = true;
    auto fs = open_host(tmp.path, o);
    BK_EXPECT_ERR(fs->write_file("/f", "x"), Errc::read_only);
    BK_EXPECT_ERR(fs->write_file("/new", "x"), Errc::read_only);
    BK_EXPECT_ERR(fs->mkdir("/e"), Errc::read_only);
    BK_EXPECT_ERR(fs->rmdir("/d"), Errc::read_only);
    BK_EXPECT_ERR(fs->unlink("/f"), Errc::read_only);
    BK_EXPECT_ERR(fs->rename("/f", "/g"), Errc::read_only);
    BK_EXPECT_ERR(fs->symlink("f", "/l"), Errc::read_only);
    BK_EXPECT_ERR(fs->link("/f", "/h"), Errc::read_only);
    BK_EXPECT_ERR(fs->chmod("/f", 0600), Errc::read_only);
    BK_EXPECT_ERR(fs->utimes("/f", TimeSet::now(), TimeSet::now()), Errc::read_only);
    BK_EXPECT_ERR(fs->truncate("/f", 0), Errc::read_only);
    EXPECT_EQ(fs->read_file("/f").value_or("?"), "f");
    EXPECT_EQ(host_read(tmp.path + "/f"), "f");
    fs->set_read_only(false);
    BK_EXPECT_OK(fs->write_file("/f", "x"));
}

TEST(HostFs, NamesWithControlBytesAreNeverCreatedButExistingOnesAreSeen) {
    TempDir tmp("hostfs");
    host_write(tmp.path + "/odd\nname", "seen");
    auto fs = open_host(tmp.path);
    EXPECT_EQ(fs->read_file("/odd\nname").value_or("?"), "seen");
    BK_EXPECT_ERR(fs->write_file("/new\nname", "x"), Errc::invalid_argument);
    BK_EXPECT_ERR(fs->mkdir("/\x1b[31m"), Errc::invalid_argument);
    BK_EXPECT_ERR(fs->rename("/odd\nname", "/still\rodd"), Errc::invalid_argument);
    BK_EXPECT_OK(fs->rename("/odd\nname", "/fixed"));
}

TEST(HostFs, DotDotPastTheDescriptorCacheAndDeepTrees) {
    TempDir tmp("hostfs");
    for (auto how : {HostFsOptions::Confinement::automatic, HostFsOptions::Confinement::nofollow_walk}) {
        HostFsOptions o;
        o.confinement = how;
        auto fs = open_host(tmp.path, o);
        std::string deep = "/t";
        for (int i = 0; i < 100; ++i) deep += "/d" + std::to_string(i);
        BK_ASSERT_OK(fs->mkdir_all(deep));
        BK_ASSERT_OK(fs->write_file("/t/marker", "m"));
        // Climb 100 levels by "..", through a symlink at the bottom: physical parents all the way.
        BK_ASSERT_OK(fs->symlink(std::string("/t/d0"), deep + "/up"));
        std::string climb = deep;
        for (int i = 0; i < 100; ++i) climb += "/..";
        EXPECT_EQ(fs->read_file(climb + "/marker").value_or("?"), "m");
        EXPECT_EQ(fs->realpath(deep + "/up/..").value_or("?"), "/t");
        EXPECT_EQ(fs->realpath(climb + "/../../..").value_or("?"), "/");
        BK_ASSERT_OK(fs->remove_all("/t"));
    }
}

TEST(HostFs, ASymlinkSwappedInMidWalkIsFollowedVirtually) {
    TempDir tmp("hostfs");
    TempDir outside("outside");
    host_write(outside.path + "/secret", "TOP SECRET");
    ::mkdir((tmp.path + "/a").c_str(), 0755);
    ::mkdir((tmp.path + "/a/b").c_str(), 0755);
    ::mkdir((tmp.path + "/secret-dir").c_str(), 0755);
    host_write(tmp.path + "/secret-dir/secret", "inside");
    auto fs = open_host(tmp.path);
    EXPECT_TRUE(fs->is_directory("/a/b"));
    // Replace a/b by a link to the outside folder's absolute path: virtually, that path does not exist.
    ASSERT_EQ(::rename((tmp.path + "/a/b").c_str(), (tmp.path + "/a/b.old").c_str()), 0);
    ASSERT_EQ(::symlink(outside.path.c_str(), (tmp.path + "/a/b").c_str()), 0);
    BK_EXPECT_ERR(fs->read_file("/a/b/secret"), Errc::no_such_file);
    // A relative link that climbs out lands at the virtual root instead.
    ASSERT_EQ(::unlink((tmp.path + "/a/b").c_str()), 0);
    ASSERT_EQ(::symlink("../../../../../secret-dir", (tmp.path + "/a/b").c_str()), 0);
    EXPECT_EQ(fs->read_file("/a/b/secret").value_or("?"), "inside");
}

}  // namespace
}  // namespace bashkit::vfs
