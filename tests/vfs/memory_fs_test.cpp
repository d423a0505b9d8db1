// MemoryFs: the conformance suite, plus what only MemoryFs promises (virtual clock, limits, sparse files,
// read-only mode, no permission enforcement, teardown of deep trees).
#include "vfs/memory_fs.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tests/vfs/filesystem_conformance.hpp"

namespace bashkit::vfs {
namespace {

struct MemoryFsFactory {
    static std::unique_ptr<FileSystem> make() { return std::make_unique<MemoryFs>(); }
    static constexpr bool kHardLinks = true;
};

}  // namespace

BASHKIT_FS_CONFORMANCE(MemoryFs, conformance::factory<MemoryFsFactory>("Plain"));

namespace {

constexpr TimeSpec kT0{1'700'000'000, 100};

struct Clocked {
    std::shared_ptr<ManualClock> clock = std::make_shared<ManualClock>(kT0);
    MemoryFs fs{[this] {
        MemoryFsOptions o;
        o.clock = clock;
        return o;
    }()};
};

TEST(MemoryFs, TimestampsComeFromTheInjectedClock) {
    Clocked c;
    MemoryFs& fs = c.fs;
    EXPECT_EQ(fs.stat("/").value().mtime, kT0);
    BK_ASSERT_OK(fs.mkdir("/d"));
    c.clock->advance(1'000'000'000);  // t1 = t0 + 1s
    const TimeSpec t1{kT0.sec + 1, kT0.nsec};
    BK_ASSERT_OK(fs.write_file("/d/f", ""));
    auto st = fs.stat("/d/f").value();
    EXPECT_EQ(st.atime, t1);
    EXPECT_EQ(st.mtime, t1);
    EXPECT_EQ(st.ctime, t1);
    EXPECT_EQ(fs.stat("/d").value().mtime, t1);  // entry added
    EXPECT_EQ(fs.stat("/").value().mtime, kT0);   // grandparent untouched

    c.clock->advance(500);
    const TimeSpec t2{kT0.sec + 1, kT0.nsec + 500};
    BK_ASSERT_OK(fs.append_file("/d/f", "x"));
    st = fs.stat("/d/f").value();
    EXPECT_EQ(st.atime, t1);  // no atime on write
    EXPECT_EQ(st.mtime, t2);
    EXPECT_EQ(st.ctime, t2);
    EXPECT_EQ(fs.stat("/d").value().mtime, t1);  // content change: directory untouched

    c.clock->advance(500);
    const TimeSpec t3{kT0.sec + 1, kT0.nsec + 1000};
    EXPECT_EQ(fs.read_file("/d/f").value_or("?"), "x");
    EXPECT_EQ(fs.stat("/d/f").value().atime, t1);  // reads do not touch atime (noatime)
    BK_ASSERT_OK(fs.chmod("/d/f", 0600));
    st = fs.stat("/d/f").value();
    EXPECT_EQ(st.ctime, t3);
    EXPECT_EQ(st.mtime, t2);

    c.clock->advance(1);
    const TimeSpec t4{kT0.sec + 1, kT0.nsec + 1001};
    BK_ASSERT_OK(fs.utimes("/d/f", TimeSet::now(), TimeSet::omit()));
    st = fs.stat("/d/f").value();
    EXPECT_EQ(st.atime, t4);
    EXPECT_EQ(st.mtime, t2);
    EXPECT_EQ(st.ctime, t4);

    c.clock->set({2'000'000'000, 0});
    BK_ASSERT_OK(fs.rename("/d/f", "/g"));
    EXPECT_EQ(fs.stat("/g").value().ctime, (TimeSpec{2'000'000'000, 0}));
    EXPECT_EQ(fs.stat("/g").value().mtime, t2);
    EXPECT_EQ(fs.stat("/d").value().mtime, (TimeSpec{2'000'000'000, 0}));
    EXPECT_EQ(fs.stat("/").value().mtime, (TimeSpec{2'000'000'000, 0}));
}

TEST(MemoryFs, TickingClockGivesStrictlyIncreasingTimes) {
    auto clock = std::make_shared<ManualClock>(TimeSpec{10, 999'999'999}, 1);
    EXPECT_EQ(clock->now(), (TimeSpec{10, 999'999'999}));
    EXPECT_EQ(clock->now(), (TimeSpec{11, 0}));
    MemoryFsOptions o;
    o.clock = clock;
    MemoryFs fs(o);
    BK_ASSERT_OK(fs.write_file("/a", ""));
    BK_ASSERT_OK(fs.write_file("/b", ""));
    EXPECT_LT(fs.stat("/a").value().mtime, fs.stat("/b").value().mtime);
    clock->advance(-2'000'000'000);
    EXPECT_LT(clock->now(), fs.stat("/a").value().mtime);
}

TEST(MemoryFs, DefaultsAndOptions) {
    MemoryFs dflt;
    auto root = dflt.stat("/").value();
    EXPECT_EQ(root.ino, 2u);
    EXPECT_EQ(root.mode, 0755u);
    EXPECT_EQ(root.uid, 1000u);
    EXPECT_EQ(root.gid, 1000u);
    EXPECT_EQ(root.dev, 1u);
    EXPECT_EQ(root.size, 4096u);
    BK_ASSERT_OK(dflt.write_file("/f", std::string(5000, 'x')));
    EXPECT_EQ(dflt.stat("/f").value().blocks, 16u);  // two 4 KiB blocks
    BK_ASSERT_OK(dflt.symlink("/f", "/l"));
    EXPECT_EQ(dflt.lstat("/l").value().mode, 0777u);

    // Default limits are finite: a write far past the end fails instead of exhausting memory, and
    // read_file refuses a huge (sparse) file instead of reading it.
    auto far = dflt.open("/far", OpenFlags::write | OpenFlags::create);
    BK_ASSERT_OK(far);
    BK_EXPECT_ERR((*far)->pwrite("x", uint64_t{1} << 40), Errc::no_space);
    BK_EXPECT_ERR((*far)->pwrite("x", UINT64_MAX - 1), Errc::file_too_large);
    BK_ASSERT_OK((*far)->truncate(uint64_t{1} << 40));
    BK_EXPECT_ERR(dflt.read_file("/far"), Errc::file_too_large);
    BK_EXPECT_ERR(dflt.truncate("/far", uint64_t{INT64_MAX} + 1), Errc::file_too_large);

    MemoryFsOptions o;
    o.uid = 0;
    o.gid = 42;
    o.dev = 7;
    o.root_mode = 01777;
    MemoryFs custom(o);
    BK_ASSERT_OK(custom.write_file("/f", "x"));
    auto st = custom.stat("/f").value();
    EXPECT_EQ(st.uid, 0u);
    EXPECT_EQ(st.gid, 42u);
    EXPECT_EQ(st.dev, 7u);
    EXPECT_EQ(custom.stat("/").value().mode, 01777u);
    BK_ASSERT_OK(custom.chown("/f", 5, 6));
    EXPECT_EQ(custom.stat("/f").value().uid, 5u);
    EXPECT_EQ(custom.stat("/f").value().gid, 6u);
    // Modes outside 07777 are dropped.
    BK_ASSERT_OK(custom.chmod("/f", 0170644));
    EXPECT_EQ(custom.stat("/f").value().mode, 0644u);
}

TEST(MemoryFs, PermissionsAreStoredButNotEnforced) {
    MemoryFs fs;
    BK_ASSERT_OK(fs.write_file("/secret", "data"));
    BK_ASSERT_OK(fs.chmod("/secret", 0));
    BK_ASSERT_OK(fs.mkdir("/locked", 0));
    EXPECT_EQ(fs.read_file("/secret").value_or("?"), "data");
    BK_EXPECT_OK(fs.append_file("/secret", "+"));
    BK_EXPECT_OK(fs.write_file("/locked/inside", "ok"));
    EXPECT_EQ(fs.readdir("/locked").value().size(), 1u);
    EXPECT_EQ(fs.stat("/secret").value().mode, 0u);
}

TEST(MemoryFs, ByteLimitGivesNoSpaceAndIsFreedOnUnlink) {
    MemoryFsOptions o;
    o.max_bytes = 100;
    MemoryFs fs(o);
    BK_ASSERT_OK(fs.write_file("/a", std::string(60, 'a')));
    EXPECT_EQ(fs.bytes_used(), 60u);
    BK_EXPECT_ERR(fs.write_file("/b", std::string(41, 'b')), Errc::no_space);
    EXPECT_TRUE(fs.exists("/b"));  // created, then the write failed: like a full disk
    EXPECT_EQ(fs.stat("/b").value().size, 0u);
    BK_ASSERT_OK(fs.write_file("/b", std::string(40, 'b')));
    EXPECT_EQ(fs.bytes_used(), 100u);
    BK_EXPECT_ERR(fs.append_file("/a", "x"), Errc::no_space);
    BK_EXPECT_ERR(fs.symlink("target", "/l"), Errc::no_space);  // targets count too
    // Overwriting in place needs no new space.
    {
        auto h = fs.open("/a", OpenFlags::write);
        BK_ASSERT_OK(h);
        BK_EXPECT_OK((*h)->write(std::string(60, 'A')));
    }
    BK_ASSERT_OK(fs.unlink("/b"));
    EXPECT_EQ(fs.bytes_used(), 60u);
    BK_ASSERT_OK(fs.truncate("/a", 10));
    EXPECT_EQ(fs.bytes_used(), 10u);
    // An unlinked file held open keeps its bytes until the handle closes.
    {
        auto h = fs.open("/a", OpenFlags::read | OpenFlags::write);
        BK_ASSERT_OK(h);
        BK_ASSERT_OK(fs.unlink("/a"));
        EXPECT_EQ(fs.bytes_used(), 10u);
        BK_EXPECT_ERR((*h)->pwrite("x", 100), Errc::no_space);
        BK_EXPECT_OK((*h)->pwrite("x", 50));
        EXPECT_EQ(fs.bytes_used(), 51u);
    }
    EXPECT_EQ(fs.bytes_used(), 0u);
}

// A memory account with a limit, as the session's budget is (sandbox/configured_shell.cpp adapts it).
struct TestAccount final : MemoryAccount {
    explicit TestAccount(uint64_t limit) : limit(limit) {}
    bool try_charge(uint64_t n) override {
        if (n > limit || used > limit - n) return false;
        used += n;
        return true;
    }
    void force_charge(uint64_t n) override { used += n; }
    void release(uint64_t n) override {
        EXPECT_LE(n, used) << "released more than was charged";
        used -= std::min<uint64_t>(n, used);
    }
    uint64_t limit;
    std::atomic<uint64_t> used{0};
};

TEST(MemoryFs, DataBytesAreChargedToTheMemoryAccount) {
    MemoryFs fs;
    BK_ASSERT_OK(fs.write_file("/before", std::string(30, 'x')));
    auto acct = std::make_shared<TestAccount>(100);
    fs.set_memory_account(acct);
    EXPECT_EQ(acct->used, 30u);  // what the tree held when attached
    BK_ASSERT_OK(fs.write_file("/a", std::string(50, 'a')));
    EXPECT_EQ(acct->used, 80u);
    // Past the account: no_space, and the file keeps what it had (nothing is charged).
    BK_EXPECT_ERR(fs.append_file("/a", std::string(21, 'b')), Errc::no_space);
    EXPECT_EQ(fs.read_file("/a").value_or("?"), std::string(50, 'a'));
    EXPECT_EQ(acct->used, 80u);
    EXPECT_EQ(fs.bytes_used(), 80u);
    BK_EXPECT_ERR(fs.symlink(std::string(21, 't'), "/l"), Errc::no_space);  // targets count too
    BK_ASSERT_OK(fs.append_file("/a", std::string(20, 'b')));
    EXPECT_EQ(acct->used, 100u);
    // Overwriting in place and sparse growth cost nothing more.
    BK_ASSERT_OK(fs.write_file("/before", std::string(30, 'y')));
    BK_ASSERT_OK(fs.truncate("/before", 1 << 20));
    EXPECT_EQ(acct->used, 100u);
    // Shrinking, unlinking and renaming over give the bytes back.
    BK_ASSERT_OK(fs.truncate("/before", 10));
    EXPECT_EQ(acct->used, 80u);
    BK_ASSERT_OK(fs.write_file("/c", "0123456789"));
    BK_ASSERT_OK(fs.rename("/c", "/before"));
    EXPECT_EQ(acct->used, 80u);
    // An unlinked file held open keeps its charge until the handle closes.
    {
        auto h = fs.open("/a", OpenFlags::read | OpenFlags::write);
        BK_ASSERT_OK(h);
        BK_ASSERT_OK(fs.unlink("/a"));
        EXPECT_EQ(acct->used, 80u);
    }
    EXPECT_EQ(acct->used, 10u);
    // Another account takes the bytes over; null detaches.
    auto other = std::make_shared<TestAccount>(1000);
    fs.set_memory_account(other);
    EXPECT_EQ(acct->used, 0u);
    EXPECT_EQ(other->used, 10u);
    fs.set_memory_account(nullptr);
    EXPECT_EQ(other->used, 0u);
    BK_ASSERT_OK(fs.write_file("/big", std::string(5000, 'z')));
    EXPECT_EQ(other->used, 0u);
}

TEST(MemoryFs, AccountIsReleasedWhenTheTreeGoes) {
    auto acct = std::make_shared<TestAccount>(1 << 20);
    std::unique_ptr<FileHandle> h;
    {
        MemoryFs fs;
        fs.set_memory_account(acct);
        BK_ASSERT_OK(fs.mkdir_all("/d/e"));
        BK_ASSERT_OK(fs.write_file("/d/e/f", std::string(1000, 'f')));
        BK_ASSERT_OK(fs.write_file("/g", std::string(500, 'g')));
        h = std::move(fs.open("/g", OpenFlags::read)).value();
        EXPECT_EQ(acct->used, 1500u);
    }
    h.reset();  // the last handle keeps the tree's state, and so its charge
    EXPECT_EQ(acct->used, 0u);
    {
        MemoryFs fs;
        fs.set_memory_account(acct);
        BK_ASSERT_OK(fs.write_file("/x", std::string(700, 'x')));
        EXPECT_EQ(acct->used, 700u);
    }
    EXPECT_EQ(acct->used, 0u);
}

TEST(MemoryFs, InodeLimitGivesNoSpace) {
    MemoryFsOptions o;
    o.max_inodes = 4;  // the root and three more
    MemoryFs fs(o);
    EXPECT_EQ(fs.inodes_used(), 1u);
    BK_ASSERT_OK(fs.write_file("/a", ""));
    BK_ASSERT_OK(fs.mkdir("/d"));
    BK_ASSERT_OK(fs.symlink("a", "/l"));
    EXPECT_EQ(fs.inodes_used(), 4u);
    BK_EXPECT_ERR(fs.write_file("/b", ""), Errc::no_space);
    BK_EXPECT_ERR(fs.mkdir("/e"), Errc::no_space);
    BK_EXPECT_ERR(fs.symlink("a", "/m"), Errc::no_space);
    BK_EXPECT_OK(fs.link("/a", "/hard"));  // a hard link is no new inode
    BK_EXPECT_OK(fs.write_file("/a", "existing files can still be written"));
    BK_ASSERT_OK(fs.unlink("/l"));
    EXPECT_EQ(fs.inodes_used(), 3u);
    BK_EXPECT_OK(fs.mkdir("/e"));
}

TEST(MemoryFs, FileSizeLimitGivesFileTooLarge) {
    MemoryFsOptions o;
    o.max_file_size = 10;
    MemoryFs fs(o);
    BK_ASSERT_OK(fs.write_file("/f", "0123456789"));
    BK_EXPECT_ERR(fs.append_file("/f", "x"), Errc::file_too_large);
    BK_EXPECT_ERR(fs.truncate("/f", 11), Errc::file_too_large);
    auto h = fs.open("/f", OpenFlags::write);
    BK_ASSERT_OK(h);
    BK_EXPECT_ERR((*h)->pwrite("x", UINT64_MAX), Errc::file_too_large);  // no overflow
    BK_EXPECT_ERR((*h)->truncate(11), Errc::file_too_large);
    EXPECT_EQ(fs.read_file("/f").value_or("?"), "0123456789");
}

TEST(MemoryFs, HugeSparseFilesCostNoMemory) {
    MemoryFsOptions o;
    o.max_bytes = 1 << 20;
    MemoryFs fs(o);
    BK_ASSERT_OK(fs.write_file("/f", "head"));
    BK_ASSERT_OK(fs.truncate("/f", uint64_t{1} << 40));  // 1 TiB
    auto st = fs.stat("/f").value();
    EXPECT_EQ(st.size, uint64_t{1} << 40);
    EXPECT_EQ(st.blocks, 8u);
    EXPECT_EQ(fs.bytes_used(), 4u);
    auto h = fs.open("/f", OpenFlags::read | OpenFlags::write);
    BK_ASSERT_OK(h);
    char buf[8];
    ASSERT_EQ((*h)->pread(buf, 8, 0).value_or(0), 8u);
    EXPECT_EQ(std::string(buf, 8), std::string("head\0\0\0\0", 8));
    ASSERT_EQ((*h)->pread(buf, 8, (uint64_t{1} << 40) - 2).value_or(0), 2u);
    // Writing far out needs the gap: more than the byte limit.
    BK_EXPECT_ERR((*h)->pwrite("x", uint64_t{1} << 39), Errc::no_space);
    EXPECT_EQ(fs.bytes_used(), 4u);
    BK_EXPECT_ERR(fs.read_file("/f", 1 << 20), Errc::file_too_large);
}

TEST(MemoryFs, ReadOnlyRefusesEveryChange) {
    MemoryFs fs;
    BK_ASSERT_OK(fs.mkdir("/d"));
    BK_ASSERT_OK(fs.write_file("/f", "f"));
    BK_ASSERT_OK(fs.symlink("f", "/l"));
    auto writer = fs.open("/f", OpenFlags::write);
    BK_ASSERT_OK(writer);
    fs.set_read_only(true);
    BK_EXPECT_ERR(fs.write_file("/f", "x"), Errc::read_only);
    BK_EXPECT_ERR(fs.write_file("/new", "x"), Errc::read_only);
    BK_EXPECT_ERR(fs.open("/f", OpenFlags::append), Errc::read_only);
    BK_EXPECT_ERR((*writer)->write("x"), Errc::read_only);
    BK_EXPECT_ERR((*writer)->truncate(0), Errc::read_only);
    BK_EXPECT_ERR(fs.mkdir("/e"), Errc::read_only);
    BK_EXPECT_ERR(fs.rmdir("/d"), Errc::read_only);
    BK_EXPECT_ERR(fs.unlink("/f"), Errc::read_only);
    BK_EXPECT_ERR(fs.rename("/f", "/g"), Errc::read_only);
    BK_EXPECT_ERR(fs.symlink("f", "/m"), Errc::read_only);
    BK_EXPECT_ERR(fs.link("/f", "/h"), Errc::read_only);
    BK_EXPECT_ERR(fs.chmod("/f", 0600), Errc::read_only);
    BK_EXPECT_ERR(fs.chown("/f", 1, 1), Errc::read_only);
    BK_EXPECT_ERR(fs.utimes("/f", TimeSet::now(), TimeSet::now()), Errc::read_only);
    BK_EXPECT_ERR(fs.truncate("/f", 0), Errc::read_only);
    // Existence errors still come first where Linux gives them.
    BK_EXPECT_ERR(fs.mkdir("/d"), Errc::file_exists);
    BK_EXPECT_ERR(fs.unlink("/nope"), Errc::no_such_file);
    // Reading works.
    EXPECT_EQ(fs.read_file("/l").value_or("?"), "f");
    EXPECT_EQ(fs.readdir("/").value().size(), 3u);
    BK_EXPECT_OK(fs.realpath("/l"));
    fs.set_read_only(false);
    BK_EXPECT_OK(fs.write_file("/f", "x"));

    MemoryFsOptions o;
    o.read_only = true;
    MemoryFs ro(o);
    BK_EXPECT_ERR(ro.mkdir("/d"), Errc::read_only);
}

TEST(MemoryFs, HandlesOutliveTheFilesystem) {
    std::unique_ptr<FileHandle> handle;
    std::unique_ptr<FileHandle> dir_handle;
    {
        MemoryFs fs;
        BK_ASSERT_OK(fs.mkdir_all("/a/b"));
        BK_ASSERT_OK(fs.write_file("/a/b/f", "survivor"));
        handle = std::move(fs.open("/a/b/f", OpenFlags::read | OpenFlags::write)).value();
        dir_handle = std::move(fs.open("/a", OpenFlags::read)).value();
    }
    char buf[16];
    auto n = handle->read(buf, sizeof buf);
    BK_ASSERT_OK(n);
    EXPECT_EQ(std::string(buf, *n), "survivor");
    BK_EXPECT_OK(handle->write("!"));
    EXPECT_EQ(handle->stat().value().size, 9u);
    EXPECT_TRUE(dir_handle->stat().value().is_directory());
    handle.reset();
    dir_handle.reset();
}

TEST(MemoryFs, DeepTreesAreTornDownWithoutRecursion) {
    // Renames can build a tree deeper than any path can name; destroying it must not recurse.
    auto fs = std::make_unique<MemoryFs>();
    BK_ASSERT_OK(fs->mkdir("/a"));
    constexpr int kDepth = 50'000;  // a recursive teardown would need tens of MiB of stack
    for (int i = 0; i < kDepth; ++i) {
        ASSERT_TRUE(fs->mkdir("/tmp").ok());
        ASSERT_TRUE(fs->rename("/a", "/tmp/a").ok());
        ASSERT_TRUE(fs->rename("/tmp", "/a").ok());
    }
    EXPECT_EQ(fs->inodes_used(), static_cast<uint64_t>(kDepth) + 2);
    // The deep end is unreachable by path, but rename into its own subtree is still caught.
    BK_EXPECT_ERR(fs->rename("/a", "/a/a/a"), Errc::invalid_argument);
    BK_EXPECT_ERR(fs->remove_all("/a"), Errc::name_too_long);
    fs.reset();
}

TEST(MemoryFs, ReaddirIsSorted) {
    // Not promised by the interface, but MemoryFs keeps names in byte order; tests elsewhere may rely on it.
    MemoryFs fs;
    for (const char* n : {"b", "a", "C", "\xc3\xa9", "a.b", "_"}) BK_ASSERT_OK(fs.write_file(std::string("/") + n, ""));
    std::vector<std::string> names;
    for (const DirEntry& e : fs.readdir("/").value()) names.push_back(e.name);
    EXPECT_EQ(names, (std::vector<std::string>{"C", "_", "a", "a.b", "b", "\xc3\xa9"}));
}

TEST(MemoryFs, EveryWriteIsAtomicForReaders) {
    // Stronger than Linux promises: a reader sees a write entirely or not at all.
    MemoryFs fs;
    BK_ASSERT_OK(fs.write_file("/f", ""));
    constexpr std::size_t kRecord = 4099;  // straddles 4 KiB boundaries
    std::atomic<bool> done{false};
    std::atomic<int> failures{0};
    std::thread writer([&] {
        auto h = fs.open("/f", OpenFlags::append);
        for (int i = 0; i < 300 && h; ++i) {
            if (!(*h)->write(std::string(kRecord, static_cast<char>('a' + i % 26)))) failures++;
        }
        done = true;
    });
    while (!done.load()) {
        std::string content = fs.read_file("/f").value_or("?");
        if (content.size() % kRecord != 0) failures++;
        for (std::size_t r = 0; r + kRecord <= content.size(); r += kRecord) {
            if (content.find_first_not_of(content[r], r) < r + kRecord) failures++;
        }
    }
    writer.join();
    EXPECT_EQ(failures.load(), 0);
    EXPECT_EQ(fs.stat("/f").value().size, 300 * kRecord);
}

TEST(MemoryFs, RenamesRaceWithPathResolution) {
    // Each thread renames directories back and forth under a common parent while others resolve paths
    // through them; under ASan/UBSan this catches use-after-free of inodes during resolution.
    MemoryFs fs;
    BK_ASSERT_OK(fs.mkdir("/p"));
    constexpr int kThreads = 6;
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&fs, &failures, t] {
            const std::string a = std::string("/p/a") + std::to_string(t);
            const std::string b = std::string("/p/b") + std::to_string(t);
            if (!fs.mkdir_all(a + "/x")) failures++;
            if (!fs.write_file(a + "/x/f", "v")) failures++;
            for (int i = 0; i < 300; ++i) {
                if (!fs.rename(a, b)) failures++;
                if (fs.read_file(b + "/x/f").value_or("") != "v") failures++;
                if (!fs.rename(b, a)) failures++;
                (void)fs.readdir("/p");
                (void)fs.realpath(std::string("/p/a") + std::to_string((t + 1) % kThreads) + "/x/f");
                (void)fs.stat(std::string("/p/b") + std::to_string((t + 2) % kThreads) + "/x");
            }
        });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(failures.load(), 0);
    EXPECT_EQ(fs.readdir("/p").value().size(), static_cast<std::size_t>(kThreads));
}

}  // namespace
}  // namespace bashkit::vfs
