// LimitedFs: the conformance suite with default limits (they must not trip on ordinary work), then every
// limit tripped, with the file left as it was.
#include "vfs/limited_fs.hpp"

#include <dirent.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "tests/vfs/filesystem_conformance.hpp"
#include "tests/vfs/host_test_util.hpp"
#include "vfs/host_fs.hpp"
#include "vfs/memory_fs.hpp"

namespace bashkit::vfs {
namespace {

struct LimitedMemoryFactory {
    static std::unique_ptr<FileSystem> make() { return std::make_unique<LimitedFs>(std::make_shared<MemoryFs>()); }
    static constexpr bool kHardLinks = true;
};

}  // namespace

BASHKIT_FS_CONFORMANCE(LimitedFs, conformance::factory<LimitedMemoryFactory>("OverMemory"));

namespace {

std::shared_ptr<FileSystem> inner_of_kind(bool host) {
    if (!host) return std::make_shared<MemoryFs>();
    HostFsOptions o;
    o.remove_root_on_destroy = true;
    return std::shared_ptr<FileSystem>(std::move(HostFs::open(testing_util::make_temp_dir("limits"), o)).value());
}

class Limits : public ::testing::TestWithParam<bool> {};

TEST_P(Limits, DefaultsAreNamedAndGenerous) {
    FsLimits l;
    EXPECT_EQ(l.max_total_bytes, uint64_t{1} << 30);
    EXPECT_EQ(l.max_file_bytes, uint64_t{256} << 20);
    EXPECT_EQ(l.max_nodes, 100'000u);
    EXPECT_EQ(l.max_path_length, 4096u);
    EXPECT_EQ(l.max_name_length, 255u);
    EXPECT_EQ(l.max_depth, 1024u);
}

TEST_P(Limits, TotalBytesGiveNoSpaceAndTheFileKeepsItsContent) {
    FsLimits l;
    l.max_total_bytes = 100;
    LimitedFs fs(inner_of_kind(GetParam()), l);
    BK_ASSERT_OK(fs.write_file("/a", std::string(60, 'a')));
    BK_ASSERT_OK(fs.write_file("/good", "good content"));
    EXPECT_EQ(fs.bytes_used(), 72u);
    // A handle write past the limit fails whole: nothing of it lands.
    {
        auto h = fs.open("/good", OpenFlags::append);
        BK_ASSERT_OK(h);
        BK_EXPECT_ERR((*h)->write(std::string(29, 'x')), Errc::no_space);
        BK_EXPECT_OK((*h)->write(std::string(28, 'y')));
    }
    EXPECT_EQ(fs.read_file("/good").value_or("?"), "good content" + std::string(28, 'y'));
    EXPECT_EQ(fs.bytes_used(), 100u);
    // Replacing a file atomically: on failure the old content stays and no temporary is left.
    BK_EXPECT_ERR(write_file_atomic(fs, "/a", std::string(61, 'b')), Errc::no_space);
    EXPECT_EQ(fs.read_file("/a").value_or("?"), std::string(60, 'a'));
    EXPECT_EQ(conformance::sorted_names(fs.readdir("/").value()), (std::vector<std::string>{"a", "good"}));
    BK_ASSERT_OK(fs.unlink("/good"));
    EXPECT_EQ(fs.bytes_used(), 60u);
    BK_EXPECT_OK(write_file_atomic(fs, "/a", std::string(40, 'c')));  // old and new fit together
    EXPECT_EQ(fs.read_file("/a").value_or("?"), std::string(40, 'c'));
    EXPECT_EQ(fs.bytes_used(), 40u);
    BK_EXPECT_ERR(fs.truncate("/a", 101), Errc::no_space);
    BK_EXPECT_ERR(fs.symlink(std::string(61, 't'), "/l"), Errc::no_space);
    EXPECT_EQ(fs.read_file("/a").value_or("?"), std::string(40, 'c'));
}

TEST_P(Limits, FileBytesGiveFileTooLarge) {
    FsLimits l;
    l.max_file_bytes = 10;
    LimitedFs fs(inner_of_kind(GetParam()), l);
    BK_ASSERT_OK(fs.write_file("/f", "0123456789"));
    BK_EXPECT_ERR(fs.append_file("/f", "x"), Errc::file_too_large);
    BK_EXPECT_ERR(fs.truncate("/f", 11), Errc::file_too_large);
    auto h = fs.open("/f", OpenFlags::write);
    BK_ASSERT_OK(h);
    BK_EXPECT_ERR((*h)->pwrite("x", UINT64_MAX), Errc::file_too_large);
    BK_EXPECT_ERR((*h)->truncate(11), Errc::file_too_large);
    BK_EXPECT_OK((*h)->pwrite("AB", 8));
    EXPECT_EQ(fs.read_file("/f").value_or("?"), "01234567AB");
    BK_EXPECT_ERR(write_file_atomic(fs, "/f", "much too long"), Errc::file_too_large);
    EXPECT_EQ(fs.read_file("/f").value_or("?"), "01234567AB");
}

TEST_P(Limits, NodeCountDepthAndNames) {
    FsLimits l;
    l.max_nodes = 3;
    l.max_depth = 2;
    l.max_name_length = 8;
    l.max_path_length = 20;
    LimitedFs fs(inner_of_kind(GetParam()), l);
    BK_ASSERT_OK(fs.mkdir("/d"));
    BK_ASSERT_OK(fs.write_file("/d/f", ""));
    BK_EXPECT_ERR(fs.mkdir("/d/e/g"), Errc::name_too_long);  // depth 3
    BK_EXPECT_ERR(fs.write_file("/d/123456789", ""), Errc::name_too_long);
    BK_EXPECT_ERR(fs.write_file("/d/../" + std::string(15, 'p'), ""), Errc::name_too_long);
    BK_ASSERT_OK(fs.symlink("f", "/d/l"));
    EXPECT_EQ(fs.nodes_used(), 3u);
    BK_EXPECT_ERR(fs.write_file("/g", ""), Errc::no_space);
    BK_EXPECT_ERR(fs.mkdir("/e"), Errc::no_space);
    if (GetParam()) {
        BK_EXPECT_ERR(fs.link("/d/f", "/d/h"), Errc::not_permitted);  // no hard links on the host
    } else {
        BK_EXPECT_OK(fs.link("/d/f", "/d/h"));  // a second name is no new node
    }
    BK_EXPECT_OK(fs.write_file("/d/f", "existing files can still be written"));
    BK_ASSERT_OK(fs.unlink("/d/l"));
    BK_EXPECT_OK(fs.mkdir("/e"));
    for (const char* bad : {"/e/a\nb", "/e/\x01", "/e/x\x7f", "/e/tab\t"}) {
        BK_EXPECT_ERR(fs.write_file(bad, ""), Errc::invalid_argument) << bad;
    }
}

TEST_P(Limits, ExistingContentIsCounted) {
    auto inner = inner_of_kind(GetParam());
    BK_ASSERT_OK(inner->mkdir_all("/a/b"));
    BK_ASSERT_OK(inner->write_file("/a/b/f", std::string(30, 'f')));
    if (auto* host = dynamic_cast<HostFs*>(inner.get())) {  // planted on the host: HostFs makes none
        ASSERT_EQ(::link((host->host_root() + "/a/b/f").c_str(), (host->host_root() + "/a/hard").c_str()), 0);
    } else {
        BK_ASSERT_OK(inner->link("/a/b/f", "/a/hard"));
    }
    BK_ASSERT_OK(inner->symlink("b/f", "/a/l"));
    LimitedFs fs(inner);
    EXPECT_EQ(fs.nodes_used(), 4u);     // a, b, f (once), l
    EXPECT_EQ(fs.bytes_used(), 33u);    // 30 + "b/f"
    LimitedFs fresh(inner, FsLimits{}, false);
    EXPECT_EQ(fresh.nodes_used(), 0u);
}

std::size_t host_fd_count() {
    std::size_t n = 0;
    if (DIR* d = ::opendir("/proc/self/fd")) {
        while (::readdir(d)) ++n;
        ::closedir(d);
    }
    return n;
}

TEST_P(Limits, OpenFilesAreCappedAndGivenBackOnClose) {
    FsLimits l;
    EXPECT_EQ(l.max_open_files, 256u);
    l.max_open_files = 5;
    LimitedFs fs(inner_of_kind(GetParam()), l, false);
    BK_ASSERT_OK(fs.mkdir("/d"));
    BK_ASSERT_OK(fs.write_file("/f", "data"));
    const std::size_t fds_before = host_fd_count();
    {
        std::vector<std::unique_ptr<FileHandle>> held;
        held.push_back(std::move(fs.open_read("/f")).value());
        held.push_back(std::move(fs.open_write("/g")).value());
        held.push_back(std::move(fs.open("/d", OpenFlags::read)).value());
        held.push_back(std::move(fs.open_write("/f", true)).value());
        held.push_back(std::move(fs.open_read("/g")).value());
        EXPECT_EQ(fs.open_files(), 5u);
        if (GetParam()) {
            EXPECT_EQ(host_fd_count(), fds_before + 5);  // one host descriptor each
        }
        BK_EXPECT_ERR(fs.open_read("/f"), Errc::too_many_open_files);
        BK_EXPECT_ERR(fs.open_write("/new"), Errc::too_many_open_files);
        BK_EXPECT_ERR(fs.read_file("/f"), Errc::too_many_open_files);
        EXPECT_FALSE(fs.lexists("/new"));  // refused before anything was created
        if (GetParam()) {
            EXPECT_EQ(host_fd_count(), fds_before + 5);
        }
        EXPECT_EQ(error_message(Errc::too_many_open_files), "Too many open files");
        held.pop_back();
        EXPECT_EQ(fs.read_file("/f").value_or("?"), "data");
    }
    EXPECT_EQ(fs.open_files(), 0u);
    EXPECT_EQ(host_fd_count(), fds_before);
}

TEST_P(Limits, AnUnlinkedFileStaysChargedWhileOpen) {
    FsLimits l;
    l.max_total_bytes = 100;
    LimitedFs fs(inner_of_kind(GetParam()), l, false);
    auto h = fs.open_write("/big");
    BK_ASSERT_OK(h);
    BK_ASSERT_OK((*h)->write(std::string(60, 'a')));
    auto reader = fs.open_read("/big");  // a second handle on the same file
    BK_ASSERT_OK(reader);
    BK_ASSERT_OK(fs.unlink("/big"));
    EXPECT_EQ(fs.bytes_used(), 60u);                       // still on the disk
    BK_EXPECT_ERR(fs.write_file("/x", std::string(50, 'x')), Errc::no_space);
    BK_ASSERT_OK((*h)->write(std::string(20, 'b')));    // growth through the handle is counted
    EXPECT_EQ(fs.bytes_used(), 80u);
    h.value().reset();
    EXPECT_EQ(fs.bytes_used(), 80u);                       // the reader still holds it
    reader.value().reset();
    EXPECT_EQ(fs.bytes_used(), 0u);
    BK_EXPECT_OK(fs.write_file("/x", std::string(50, 'x')));
    // Replaced by rename while open: the same.
    auto held = fs.open_read("/x");
    BK_ASSERT_OK(held);
    BK_ASSERT_OK(fs.write_file("/y", "yy"));
    BK_ASSERT_OK(fs.rename("/y", "/x"));
    EXPECT_EQ(fs.bytes_used(), 52u);
    held.value().reset();
    EXPECT_EQ(fs.bytes_used(), 2u);
}

TEST(Limits, AHostTreeCountsWhatTheSessionWrote) {
    testing_util::TempDir tmp("limits-host");
    ASSERT_TRUE(testing_util::host_write(tmp.path + "/existing", std::string(1000, 'e')));
    FsLimits l;
    l.max_total_bytes = 100;
    LimitedFs fs(std::shared_ptr<FileSystem>(std::move(HostFs::open(tmp.path)).value()), l, false);
    EXPECT_EQ(fs.bytes_used(), 0u);
    BK_ASSERT_OK(fs.append_file("/existing", std::string(50, 'g')));  // growth of an existing file
    EXPECT_EQ(fs.bytes_used(), 50u);
    BK_EXPECT_ERR(fs.write_file("/new", std::string(60, 'n')), Errc::no_space);
    EXPECT_FALSE(fs.exists("/new") && fs.stat("/new").value().size > 0);
    BK_ASSERT_OK(fs.unlink("/existing"));  // gives back what it had, never below zero
    EXPECT_EQ(fs.bytes_used(), 0u);
    BK_EXPECT_ERR(fs.write_file("/new", std::string(101, 'n')), Errc::no_space);
}

INSTANTIATE_TEST_SUITE_P(MemoryAndHost, Limits, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& i) { return i.param ? "HostFs" : "MemoryFs"; });

// space() is what df shows: the byte and node limits with their use; an unlimited one is 0; a tree that is
// not a LimitedFs has none.
TEST_P(Limits, SpaceReportsTheLimitsAndTheirUse) {
    FsLimits l;
    l.max_total_bytes = 1000;
    l.max_nodes = 50;
    LimitedFs fs(inner_of_kind(GetParam()), l, /*count_existing=*/false);
    BK_ASSERT_OK(fs.mkdir("/d"));
    BK_ASSERT_OK(fs.write_file("/d/f", std::string(300, 'f')));
    auto sp = fs.space();
    ASSERT_TRUE(sp.has_value());
    EXPECT_EQ(sp->total_bytes, 1000u);
    EXPECT_EQ(sp->used_bytes, 300u);
    EXPECT_EQ(sp->total_nodes, 50u);
    EXPECT_EQ(sp->used_nodes, 2u);
    LimitedFs open_ended(inner_of_kind(GetParam()), FsLimits::unlimited(), false);
    EXPECT_EQ(open_ended.space()->total_bytes, 0u);
    EXPECT_EQ(open_ended.space()->total_nodes, 0u);
    EXPECT_FALSE(MemoryFs().space().has_value());
}

TEST(Limits, NewNameRule) {
    EXPECT_EQ(check_new_name("ok.txt"), Errc::ok);
    EXPECT_EQ(check_new_name("\xc3\xa9t\xc3\xa9"), Errc::ok);  // UTF-8 is fine
    EXPECT_EQ(check_new_name(std::string(255, 'a')), Errc::ok);
    EXPECT_EQ(check_new_name(std::string(256, 'a')), Errc::name_too_long);
    for (std::string bad : {std::string(""), std::string("."), std::string(".."), std::string("a/b"),
                            std::string("a\0b", 3), std::string("\n"), std::string("a\x1f"), std::string("\x7f")}) {
        EXPECT_EQ(check_new_name(bad), Errc::invalid_argument) << bad;
    }
}

}  // namespace
}  // namespace bashkit::vfs
