// The FileSystem conformance tests (see filesystem_conformance.hpp), compiled once for every implementation.
#include "tests/vfs/filesystem_conformance.hpp"

namespace bashkit::vfs {


using conformance::describe;
using conformance::kOldTime;
using conformance::sorted_names;

// ---------------------------------------------------------------------------------------------------------
// Basics

TEST_P(FileSystemConformance, FreshRootIsAnEmptyDirectory) {
    FileSystem& fs = this->fs();
    auto st = fs.stat("/");
    BK_ASSERT_OK(st);
    EXPECT_TRUE(st->is_directory());
    EXPECT_GE(st->nlink, 2u);
    BK_ASSERT_OK(fs.lstat("/"));
    auto entries = fs.readdir("/");
    BK_ASSERT_OK(entries);
    EXPECT_TRUE(entries->empty());
    EXPECT_EQ(fs.realpath("/").value_or("?"), "/");
    EXPECT_EQ(fs.realpath("//.//..").value_or("?"), "/");
}

TEST_P(FileSystemConformance, BadPathArgumentsAreRejectedByEveryOperation) {
    FileSystem& fs = this->fs();
    BK_ASSERT_OK(fs.write_file("/f", "x"));
    const std::string long_name = std::string("/") + std::string(kMaxNameLength + 1, 'n');
    std::string long_path;
    while (long_path.size() < kMaxPathLength + 10) long_path += "/abcdefgh";
    const std::string with_nul = std::string("/f\0x", 4);
    struct Bad {
        std::string path;
        Errc expected;
    };
    const std::vector<Bad> bad = {
        {"", Errc::no_such_file},
        {"f", Errc::invalid_argument},
        {"./f", Errc::invalid_argument},
        {with_nul, Errc::invalid_argument},
        {long_name, Errc::name_too_long},
        {long_path, Errc::name_too_long},
    };
    for (const Bad& b : bad) {
        const std::string& p = b.path;
        SCOPED_TRACE(std::string("path of ") + std::to_string(p.size()) + " bytes: " + p.substr(0, 20));
        EXPECT_EQ(fs.stat(p).error(), b.expected);
        EXPECT_EQ(fs.lstat(p).error(), b.expected);
        EXPECT_EQ(fs.open(p, OpenFlags::read).error(), b.expected);
        EXPECT_EQ(fs.open(p, OpenFlags::write | OpenFlags::create).error(), b.expected);
        EXPECT_EQ(fs.readdir(p).error(), b.expected);
        EXPECT_EQ(fs.mkdir(p).error(), b.expected);
        EXPECT_EQ(fs.rmdir(p).error(), b.expected);
        EXPECT_EQ(fs.unlink(p).error(), b.expected);
        EXPECT_EQ(fs.rename(p, "/g").error(), b.expected);
        EXPECT_EQ(fs.rename("/f", p).error(), b.expected);
        EXPECT_EQ(fs.symlink("/f", p).error(), b.expected);
        EXPECT_EQ(fs.readlink(p).error(), b.expected);
        EXPECT_EQ(fs.link(p, "/h").error(), b.expected);
        EXPECT_EQ(fs.link("/f", p).error(), b.expected);
        EXPECT_EQ(fs.chmod(p, 0600).error(), b.expected);
        EXPECT_EQ(fs.chown(p, 0, 0).error(), b.expected);
        EXPECT_EQ(fs.utimes(p, TimeSet::now(), TimeSet::now()).error(), b.expected);
        EXPECT_EQ(fs.truncate(p, 0).error(), b.expected);
        EXPECT_EQ(fs.realpath(p).error(), b.expected);
    }
    EXPECT_EQ(describe(fs, "/f"), "file:x");  // nothing was renamed or removed
    // A name of exactly kMaxNameLength bytes is fine.
    const std::string max_name = std::string("/") + std::string(kMaxNameLength, 'm');
    BK_EXPECT_OK(fs.write_file(max_name, "ok"));
    EXPECT_EQ(describe(fs, max_name), "file:ok");
}

TEST_P(FileSystemConformance, WriteFileThenReadItBack) {
    FileSystem& fs = this->fs();
    BK_ASSERT_OK(fs.write_file("/a.txt", "hello\n"));
    EXPECT_EQ(fs.read_file("/a.txt").value_or("?"), "hello\n");
    auto st = fs.stat("/a.txt");
    BK_ASSERT_OK(st);
    EXPECT_EQ(st->type, FileType::regular);
    EXPECT_TRUE(st->is_regular());
    EXPECT_EQ(st->size, 6u);
    EXPECT_EQ(st->nlink, 1u);
    EXPECT_EQ(st->mode, 0644u);
    EXPECT_EQ(st->st_mode(), 0100644u);
    // Overwrite truncates; append appends; binary bytes survive.
    BK_ASSERT_OK(fs.write_file("/a.txt", "x"));
    EXPECT_EQ(fs.read_file("/a.txt").value_or("?"), "x");
    const std::string binary("\0\xff\n\r\x80", 5);
    BK_ASSERT_OK(fs.append_file("/a.txt", binary));
    EXPECT_EQ(fs.read_file("/a.txt").value_or("?"), "x" + binary);
    BK_ASSERT_OK(fs.append_file("/new.txt", "n"));
    EXPECT_EQ(fs.read_file("/new.txt").value_or("?"), "n");
    BK_ASSERT_OK(fs.write_file("/empty", ""));
    EXPECT_EQ(fs.stat("/empty").value().size, 0u);
    EXPECT_EQ(fs.read_file("/empty").value_or("?"), "");
    // read_file's cap.
    BK_EXPECT_ERR(fs.read_file("/a.txt", 3), Errc::file_too_large);
    EXPECT_EQ(fs.read_file("/a.txt", 6).value_or("?"), "x" + binary);
}

TEST_P(FileSystemConformance, ModesAreExactWithoutUmask) {
    FileSystem& fs = this->fs();
    auto h = fs.open("/p600", OpenFlags::write | OpenFlags::create, 0600);
    BK_ASSERT_OK(h);
    EXPECT_EQ(fs.stat("/p600").value().mode, 0600u);
    BK_ASSERT_OK(fs.write_file("/p777", "", 0777));
    EXPECT_EQ(fs.stat("/p777").value().mode, 0777u);
    BK_ASSERT_OK(fs.mkdir("/d700", 0700));
    EXPECT_EQ(fs.stat("/d700").value().mode, 0700u);
    BK_ASSERT_OK(fs.mkdir("/d777", 0777));
    EXPECT_EQ(fs.stat("/d777").value().mode, 0777u);
    BK_ASSERT_OK(fs.mkdir("/dflt"));
    EXPECT_EQ(fs.stat("/dflt").value().mode, 0755u);
    EXPECT_EQ(fs.stat("/dflt").value().st_mode(), 040755u);
    // An existing file keeps its mode when opened with another one.
    BK_ASSERT_OK(fs.write_file("/p600", "x", 0666));
    EXPECT_EQ(fs.stat("/p600").value().mode, 0600u);
}

// ---------------------------------------------------------------------------------------------------------
// open and handles

TEST_P(FileSystemConformance, OpenErrors) {
    using F = OpenFlags;
    this->run_cases({
        BK_CASE(fs.open("/nope", F::read), Errc::no_such_file),
        BK_CASE(fs.open("/nope", F::write), Errc::no_such_file),
        BK_CASE(fs.open("/nope/x", F::write | F::create), Errc::no_such_file),
        BK_CASE(fs.open("/f/x", F::read), Errc::not_directory),
        BK_CASE(fs.open("/f/x", F::write | F::create), Errc::not_directory),
        BK_CASE(fs.open("/f/", F::read), Errc::not_directory),
        BK_CASE(fs.open("/lf/", F::read), Errc::not_directory),
        BK_CASE(fs.open("/new/", F::write | F::create), Errc::is_directory),
        BK_CASE(fs.open("/dang/", F::write | F::create | F::exclusive), Errc::is_directory),
        BK_CASE(fs.open("/d", F::write), Errc::is_directory),
        BK_CASE(fs.open("/d", F::read | F::write), Errc::is_directory),
        BK_CASE(fs.open("/d", F::write | F::create), Errc::is_directory),
        BK_CASE(fs.open("/d", F::append), Errc::is_directory),
        BK_CASE(fs.open("/d/.", F::write | F::create), Errc::is_directory),
        BK_CASE(fs.open("/ld", F::write | F::truncate), Errc::is_directory),
        BK_CASE(fs.open("/d", F::read), Errc::ok),
        BK_CASE(fs.open("/ld/", F::read | F::no_follow), Errc::ok),
        BK_CASE(fs.open("/f", F::write | F::create | F::exclusive), Errc::file_exists),
        BK_CASE(fs.open("/d", F::write | F::create | F::exclusive), Errc::file_exists),
        BK_CASE(fs.open("/dang", F::write | F::create | F::exclusive), Errc::file_exists),
        BK_CASE(fs.open("/lf", F::read | F::no_follow), Errc::symlink_loop),
        BK_CASE(fs.open("/ld", F::read | F::no_follow), Errc::symlink_loop),
        BK_CASE(fs.open("/loop1", F::read), Errc::symlink_loop),
        BK_CASE(fs.open("/loop1", F::write | F::create), Errc::symlink_loop),
        BK_CASE(fs.open("/dang", F::read), Errc::no_such_file),
        BK_CASE(fs.open("/f", F::none), Errc::invalid_argument),
        BK_CASE(fs.open("/f", F::create), Errc::invalid_argument),
        BK_CASE(fs.open("/f", F::read | F::no_follow), Errc::ok),
        BK_CASE(fs.open("/lf", F::read), Errc::ok),
    });
}

TEST_P(FileSystemConformance, CreateThroughDanglingSymlinkCreatesItsTarget) {
    FileSystem& fs = this->fs();
    conformance::build_standard_tree(fs);
    auto h = fs.open("/dang", OpenFlags::write | OpenFlags::create);
    BK_ASSERT_OK(h);
    BK_ASSERT_OK((*h)->write("via link"));
    EXPECT_EQ(describe(fs, "/nowhere"), "file:via link");
    EXPECT_EQ(describe(fs, "/dang"), "link:nowhere");
    // Into a directory through a symlink to it.
    BK_ASSERT_OK(fs.write_file("/ld/new", "n"));
    EXPECT_EQ(describe(fs, "/d/new"), "file:n");
}

// lstat_in(dir, names) answers for each name what lstat(dir + "/" + name) does: through a symlink to a
// directory, on a file, a missing or dangling directory, a loop, and for names that are not one component.
TEST_P(FileSystemConformance, LstatInIsLstatOfEachName) {
    FileSystem& fs = this->fs();
    conformance::build_standard_tree(fs);
    const std::vector<std::string> names = {"in", "sub", "f", "g", "ld", "lf", "dang", "loop1", "missing", "d",
                                            "", ".", "..", "d/in", "sub/", "in/x"};
    for (const char* dir : {"/", "/d", "/d/", "/ld", "/ld/", "/d/sub", "/e", "/f", "/lf", "/nowhere", "/dang",
                            "/loop1", "/d/../d", "/missing/x"}) {
        auto many = fs.lstat_in(dir, names);
        ASSERT_EQ(many.size(), names.size()) << dir;
        for (size_t i = 0; i < names.size(); ++i) {
            auto one = fs.lstat(join_in_dir(dir, names[i]));
            SCOPED_TRACE(std::string(dir) + " + '" + names[i] + "'");
            ASSERT_EQ(many[i].ok(), one.ok());
            if (!one.ok()) {
                EXPECT_EQ(many[i].error(), one.error());
                continue;
            }
            EXPECT_EQ(many[i]->type, one->type);
            EXPECT_EQ(many[i]->size, one->size);
            EXPECT_EQ(many[i]->ino, one->ino);
            EXPECT_EQ(many[i]->dev, one->dev);
            EXPECT_EQ(many[i]->mode, one->mode);
            EXPECT_EQ(many[i]->mtime.sec, one->mtime.sec);
            EXPECT_EQ(many[i]->mtime.nsec, one->mtime.nsec);
        }
    }
    EXPECT_TRUE(fs.lstat_in("/d", {}).empty());
}

TEST_P(FileSystemConformance, ReadingADirectoryIsIsDirectory) {
    FileSystem& fs = this->fs();
    BK_ASSERT_OK(fs.mkdir("/d"));
    auto h = fs.open("/d", OpenFlags::read);
    BK_ASSERT_OK(h);
    char buf[16];
    BK_EXPECT_ERR((*h)->read(buf, sizeof buf), Errc::is_directory);
    auto st = (*h)->stat();
    BK_ASSERT_OK(st);
    EXPECT_TRUE(st->is_directory());
    BK_EXPECT_ERR(fs.read_file("/d"), Errc::is_directory);
    BK_EXPECT_ERR(fs.write_file("/d", "x"), Errc::is_directory);
    BK_EXPECT_ERR(fs.append_file("/d", "x"), Errc::is_directory);
}

TEST_P(FileSystemConformance, OpenFlagsTruncateAppendAndOverwrite) {
    FileSystem& fs = this->fs();
    BK_ASSERT_OK(fs.write_file("/f", "hello"));
    {
        // write without truncate overwrites in place
        auto h = fs.open("/f", OpenFlags::write);
        BK_ASSERT_OK(h);
        BK_ASSERT_OK((*h)->write("J"));
    }
    EXPECT_EQ(fs.read_file("/f").value_or("?"), "Jello");
    {
        // append writes at the end whatever the offset
        auto h = fs.open("/f", OpenFlags::append);
        BK_ASSERT_OK(h);
        BK_ASSERT_OK((*h)->seek(0, Whence::set));
        BK_ASSERT_OK((*h)->write("!"));
        BK_ASSERT_OK((*h)->write("?"));
    }
    EXPECT_EQ(fs.read_file("/f").value_or("?"), "Jello!?");
    {
        // read|write sees and changes the same bytes
        auto h = fs.open("/f", OpenFlags::read | OpenFlags::write);
        BK_ASSERT_OK(h);
        char buf[2];
        EXPECT_EQ((*h)->read(buf, 2).value_or(0), 2u);
        BK_ASSERT_OK((*h)->write("LL"));
    }
    EXPECT_EQ(fs.read_file("/f").value_or("?"), "JeLLo!?");
    {
        auto h = fs.open("/f", OpenFlags::write | OpenFlags::truncate);
        BK_ASSERT_OK(h);
        EXPECT_EQ(fs.stat("/f").value().size, 0u);
        BK_ASSERT_OK((*h)->write("new"));
    }
    EXPECT_EQ(fs.read_file("/f").value_or("?"), "new");
    // open_write / open_read helpers
    {
        auto w = fs.open_write("/g");
        BK_ASSERT_OK(w);
        BK_ASSERT_OK((*w)->write("one"));
    }
    {
        auto w = fs.open_write("/g", true);
        BK_ASSERT_OK(w);
        BK_ASSERT_OK((*w)->write("two"));
    }
    auto r = fs.open_read("/g");
    BK_ASSERT_OK(r);
    char buf[16];
    auto n = (*r)->read(buf, sizeof buf);
    BK_ASSERT_OK(n);
    EXPECT_EQ(std::string(buf, *n), "onetwo");
    BK_EXPECT_ERR(fs.open_read("/missing"), Errc::no_such_file);
}

TEST_P(FileSystemConformance, HandleReadSeekPreadPwrite) {
    FileSystem& fs = this->fs();
    BK_ASSERT_OK(fs.write_file("/f", "0123456789"));
    auto h = fs.open("/f", OpenFlags::read | OpenFlags::write);
    BK_ASSERT_OK(h);
    FileHandle& f = **h;
    char buf[8];
    EXPECT_EQ(f.read(buf, 4).value_or(99), 4u);
    EXPECT_EQ(std::string(buf, 4), "0123");
    // pread does not move the offset
    EXPECT_EQ(f.pread(buf, 3, 7).value_or(99), 3u);
    EXPECT_EQ(std::string(buf, 3), "789");
    EXPECT_EQ(f.pread(buf, 8, 10).value_or(99), 0u);
    EXPECT_EQ(f.pread(buf, 8, 1000).value_or(99), 0u);
    EXPECT_EQ(f.read(buf, 2).value_or(99), 2u);
    EXPECT_EQ(std::string(buf, 2), "45");
    // seek
    EXPECT_EQ(f.seek(0, Whence::cur).value_or(99), 6u);
    EXPECT_EQ(f.seek(-3, Whence::end).value_or(99), 7u);
    EXPECT_EQ(f.read(buf, 8).value_or(99), 3u);
    EXPECT_EQ(f.read(buf, 8).value_or(99), 0u);  // end of file
    EXPECT_EQ(f.seek(2, Whence::set).value_or(99), 2u);
    EXPECT_EQ(f.seek(-1, Whence::cur).value_or(99), 1u);
    BK_EXPECT_ERR(f.seek(-2, Whence::cur), Errc::invalid_argument);
    BK_EXPECT_ERR(f.seek(-1, Whence::set), Errc::invalid_argument);
    EXPECT_EQ(f.seek(0, Whence::cur).value_or(99), 1u);  // a failed seek leaves the offset
    // pwrite does not move the offset
    EXPECT_EQ(f.pwrite("AB", 8).value_or(99), 2u);
    EXPECT_EQ(f.seek(0, Whence::cur).value_or(99), 1u);
    EXPECT_EQ(fs.read_file("/f").value_or("?"), "01234567AB");
    // writing past the end leaves a hole of zeros
    EXPECT_EQ(f.seek(12, Whence::set).value_or(99), 12u);
    EXPECT_EQ(f.write("Z").value_or(99), 1u);
    EXPECT_EQ(fs.read_file("/f").value_or("?"), std::string("01234567AB\0\0Z", 13));
    EXPECT_EQ(f.stat().value().size, 13u);
    // a zero-length write is fine
    EXPECT_EQ(f.write("").value_or(99), 0u);
    // ftruncate
    BK_ASSERT_OK(f.truncate(3));
    EXPECT_EQ(fs.read_file("/f").value_or("?"), "012");
    BK_ASSERT_OK(f.truncate(5));
    EXPECT_EQ(fs.read_file("/f").value_or("?"), std::string("012\0\0", 5));
}

TEST_P(FileSystemConformance, HandleAccessModeIsEnforced) {
    FileSystem& fs = this->fs();
    BK_ASSERT_OK(fs.write_file("/f", "data"));
    char buf[4];
    {
        auto r = fs.open("/f", OpenFlags::read);
        BK_ASSERT_OK(r);
        BK_EXPECT_ERR((*r)->write("x"), Errc::bad_descriptor);
        BK_EXPECT_ERR((*r)->pwrite("x", 0), Errc::bad_descriptor);
        BK_EXPECT_ERR((*r)->truncate(0), Errc::invalid_argument);
    }
    {
        auto w = fs.open("/f", OpenFlags::write);
        BK_ASSERT_OK(w);
        BK_EXPECT_ERR((*w)->read(buf, 4), Errc::bad_descriptor);
        BK_EXPECT_ERR((*w)->pread(buf, 4, 0), Errc::bad_descriptor);
    }
    EXPECT_EQ(fs.read_file("/f").value_or("?"), "data");
}

TEST_P(FileSystemConformance, BigFilesStreamInChunks) {
    FileSystem& fs = this->fs();
    constexpr std::size_t kChunk = 64 * 1024 + 7;  // not a power of two, to cross boundaries
    constexpr int kChunks = 80;                     // ~5 MiB
    {
        auto w = fs.open_write("/big");
        BK_ASSERT_OK(w);
        std::string chunk(kChunk, '\0');
        for (int i = 0; i < kChunks; ++i) {
            for (std::size_t j = 0; j < kChunk; ++j) chunk[j] = static_cast<char>((i * 31 + j) & 0xff);
            ASSERT_EQ((*w)->write(chunk).value_or(0), kChunk);
        }
    }
    EXPECT_EQ(fs.stat("/big").value().size, kChunk * kChunks);
    auto r = fs.open_read("/big");
    BK_ASSERT_OK(r);
    std::vector<char> buf(4096 * 3 + 1);
    uint64_t pos = 0;
    bool same = true;
    for (;;) {
        auto n = (*r)->read(buf.data(), buf.size());
        BK_ASSERT_OK(n);
        if (*n == 0) break;
        for (std::size_t k = 0; k < *n && same; ++k, ++pos) {
            uint64_t i = pos / kChunk;
            uint64_t j = pos % kChunk;
            same = buf[k] == static_cast<char>((i * 31 + j) & 0xff);
        }
        if (!same) break;
    }
    EXPECT_TRUE(same) << "mismatch at byte " << pos;
    EXPECT_EQ(pos, kChunk * kChunks);
    // pread from the middle
    char probe[3];
    ASSERT_EQ((*r)->pread(probe, 3, kChunk * 40 + 5).value_or(0), 3u);
    EXPECT_EQ(probe[0], static_cast<char>((40 * 31 + 5) & 0xff));
}

TEST_P(FileSystemConformance, OpenHandleSurvivesUnlink) {
    FileSystem& fs = this->fs();
    BK_ASSERT_OK(fs.write_file("/f", "still here"));
    auto r = fs.open("/f", OpenFlags::read);
    auto w = fs.open("/f", OpenFlags::write | OpenFlags::append);
    BK_ASSERT_OK(r);
    BK_ASSERT_OK(w);
    BK_ASSERT_OK(fs.unlink("/f"));
    BK_EXPECT_ERR(fs.stat("/f"), Errc::no_such_file);
    BK_ASSERT_OK((*w)->write("!"));
    char buf[32];
    auto n = (*r)->read(buf, sizeof buf);
    BK_ASSERT_OK(n);
    EXPECT_EQ(std::string(buf, *n), "still here!");
    auto st = (*r)->stat();
    BK_ASSERT_OK(st);
    EXPECT_EQ(st->nlink, 0u);
    EXPECT_EQ(st->size, 11u);
    // A new file of the same name is a different file.
    BK_ASSERT_OK(fs.write_file("/f", "new"));
    EXPECT_EQ((*r)->pread(buf, sizeof buf, 0).value_or(0), 11u);
    EXPECT_NE(fs.stat("/f").value().ino, st->ino);
    EXPECT_EQ(fs.read_file("/f").value_or("?"), "new");
    // Closing the handles afterwards is fine.
    r.value().reset();
    w.value().reset();
    EXPECT_EQ(fs.read_file("/f").value_or("?"), "new");
}

TEST_P(FileSystemConformance, OpenHandleFollowsRename) {
    FileSystem& fs = this->fs();
    BK_ASSERT_OK(fs.mkdir("/d"));
    BK_ASSERT_OK(fs.write_file("/f", "a"));
    auto w = fs.open("/f", OpenFlags::append);
    BK_ASSERT_OK(w);
    BK_ASSERT_OK(fs.rename("/f", "/d/moved"));
    BK_ASSERT_OK((*w)->write("b"));
    EXPECT_EQ(fs.read_file("/d/moved").value_or("?"), "ab");
    // Replaced by a rename over it: the handle keeps the old file.
    BK_ASSERT_OK(fs.write_file("/other", "other"));
    BK_ASSERT_OK(fs.rename("/other", "/d/moved"));
    BK_ASSERT_OK((*w)->write("c"));
    EXPECT_EQ(fs.read_file("/d/moved").value_or("?"), "other");
    EXPECT_EQ((*w)->stat().value().size, 3u);
}

// ---------------------------------------------------------------------------------------------------------
// stat

TEST_P(FileSystemConformance, StatErrorsAndTrailingSlashes) {
    this->run_cases({
        BK_CASE(fs.stat("/nope"), Errc::no_such_file),
        BK_CASE(fs.stat("/nope/x"), Errc::no_such_file),
        BK_CASE(fs.stat("/d/nope/x"), Errc::no_such_file),
        BK_CASE(fs.stat("/f/x"), Errc::not_directory),
        BK_CASE(fs.stat("/f/"), Errc::not_directory),
        BK_CASE(fs.stat("/f/."), Errc::not_directory),
        BK_CASE(fs.stat("/f/.."), Errc::not_directory),
        BK_CASE(fs.stat("/lf/"), Errc::not_directory),
        BK_CASE(fs.lstat("/lf/"), Errc::not_directory),
        BK_CASE(fs.lstat("/f/"), Errc::not_directory),
        BK_CASE(fs.stat("/dang"), Errc::no_such_file),
        BK_CASE(fs.stat("/dang/"), Errc::no_such_file),
        BK_CASE(fs.stat("/loop1"), Errc::symlink_loop),
        BK_CASE(fs.stat("/loop1/x"), Errc::symlink_loop),
        BK_CASE(fs.lstat("/loop1/x"), Errc::symlink_loop),
        BK_CASE(fs.lstat("/loop1"), Errc::ok),
        BK_CASE(fs.lstat("/dang"), Errc::ok),
        BK_CASE(fs.stat("/d/"), Errc::ok),
        BK_CASE(fs.stat("//d//sub//"), Errc::ok),
        BK_CASE(fs.stat("/d/./sub/../in"), Errc::ok),
        BK_CASE(fs.stat("/ld/in"), Errc::ok),
        BK_CASE(fs.stat("/ld/"), Errc::ok),
    });
}

TEST_P(FileSystemConformance, StatReportsTypesSizesAndLinks) {
    FileSystem& fs = this->fs();
    conformance::build_standard_tree(fs);
    auto f = fs.stat("/f");
    auto lf = fs.lstat("/lf");
    auto via = fs.stat("/lf");
    auto d = fs.stat("/d");
    auto ld = fs.stat("/ld/");
    auto lld = fs.lstat("/ld/");
    auto dang = fs.lstat("/dang");
    for (auto* r : {&f, &lf, &via, &d, &ld, &lld, &dang}) BK_ASSERT_OK(*r);
    EXPECT_EQ(f->type, FileType::regular);
    EXPECT_EQ(f->size, 1u);
    EXPECT_EQ(lf->type, FileType::symlink);
    EXPECT_TRUE(lf->is_symlink());
    EXPECT_EQ(lf->size, 1u);  // length of "f"
    EXPECT_EQ(lf->st_mode() & 0170000u, 0120000u);
    EXPECT_EQ(dang->size, 7u);  // "nowhere"
    EXPECT_EQ(via->ino, f->ino);
    EXPECT_NE(lf->ino, f->ino);
    EXPECT_EQ(d->type, FileType::directory);
    EXPECT_EQ(ld->ino, d->ino);
    EXPECT_EQ(lld->ino, d->ino);  // lstat with a trailing slash follows
    EXPECT_EQ(f->dev, d->dev);
    // Directory link counts: 2 + subdirectories.
    EXPECT_EQ(d->nlink, 3u);
    EXPECT_EQ(fs.stat("/e").value().nlink, 2u);
    BK_ASSERT_OK(fs.mkdir("/e/x"));
    BK_ASSERT_OK(fs.mkdir("/e/y"));
    EXPECT_EQ(fs.stat("/e").value().nlink, 4u);
    BK_ASSERT_OK(fs.rmdir("/e/x"));
    EXPECT_EQ(fs.stat("/e").value().nlink, 3u);
    BK_ASSERT_OK(fs.rename("/e/y", "/d/y"));
    EXPECT_EQ(fs.stat("/e").value().nlink, 2u);
    EXPECT_EQ(fs.stat("/d").value().nlink, 4u);
    // Owner: whatever it is, files and directories created by one user agree, and chown to it works.
    EXPECT_EQ(f->uid, d->uid);
    EXPECT_EQ(f->gid, d->gid);
    BK_EXPECT_OK(fs.chown("/f", f->uid, f->gid));
    BK_EXPECT_OK(fs.chown("/lf", f->uid, f->gid));
    EXPECT_EQ(fs.stat("/f").value().uid, f->uid);
    // Blocks cover the data.
    BK_ASSERT_OK(fs.write_file("/blk", std::string(10000, 'b')));
    EXPECT_GE(fs.stat("/blk").value().blocks * 512, 10000u);
    EXPECT_GT(fs.stat("/blk").value().blksize, 0u);
}

TEST_P(FileSystemConformance, InodeNumbersAreUniqueAndStable) {
    FileSystem& fs = this->fs();
    conformance::build_standard_tree(fs);
    std::set<uint64_t> seen;
    for (const char* p : {"/", "/d", "/d/in", "/d/sub", "/e", "/f", "/g", "/ld", "/lf", "/dang", "/loop1", "/loop2"}) {
        auto st = fs.lstat(p);
        BK_ASSERT_OK(st);
        EXPECT_TRUE(seen.insert(st->ino).second) << p << " reuses inode " << st->ino;
    }
    uint64_t ino = fs.stat("/d/in").value().ino;
    BK_ASSERT_OK(fs.rename("/d/in", "/e/in"));
    EXPECT_EQ(fs.stat("/e/in").value().ino, ino);
    // readdir reports the same numbers
    auto entries = fs.readdir("/");
    BK_ASSERT_OK(entries);
    for (const DirEntry& e : *entries) EXPECT_EQ(e.ino, fs.lstat("/" + e.name).value().ino) << e.name;
}

// ---------------------------------------------------------------------------------------------------------
// Directories

TEST_P(FileSystemConformance, ReaddirListsNamesAndTypes) {
    FileSystem& fs = this->fs();
    conformance::build_standard_tree(fs);
    auto root = fs.readdir("/");
    BK_ASSERT_OK(root);
    EXPECT_EQ(sorted_names(*root),
              (std::vector<std::string>{"d", "dang", "e", "f", "g", "ld", "lf", "loop1", "loop2"}));
    for (const DirEntry& e : *root) {
        FileType want = fs.lstat("/" + e.name).value().type;
        // An implementation may say unknown (like DT_UNKNOWN); if it says something, it must be right.
        if (e.type != FileType::unknown) {
            EXPECT_EQ(e.type, want) << e.name;
        }
    }
    EXPECT_EQ(sorted_names(fs.readdir("/ld").value()), (std::vector<std::string>{"in", "sub"}));
    EXPECT_EQ(sorted_names(fs.readdir("/ld/").value()), (std::vector<std::string>{"in", "sub"}));
    EXPECT_EQ(sorted_names(fs.readdir("/d/sub/..").value()), (std::vector<std::string>{"in", "sub"}));
    EXPECT_TRUE(fs.readdir("/e").value().empty());
    this->run_cases({
        BK_CASE(fs.readdir("/f"), Errc::not_directory),
        BK_CASE(fs.readdir("/lf"), Errc::not_directory),
        BK_CASE(fs.readdir("/nope"), Errc::no_such_file),
        BK_CASE(fs.readdir("/dang"), Errc::no_such_file),
        BK_CASE(fs.readdir("/loop1"), Errc::symlink_loop),
        BK_CASE(fs.readdir("/f/x"), Errc::not_directory),
    });
}

TEST_P(FileSystemConformance, MkdirErrors) {
    this->run_cases({
        BK_CASE(fs.mkdir("/d"), Errc::file_exists),
        BK_CASE(fs.mkdir("/f"), Errc::file_exists),
        BK_CASE(fs.mkdir("/f/"), Errc::file_exists),
        BK_CASE(fs.mkdir("/dang"), Errc::file_exists),
        BK_CASE(fs.mkdir("/dang/"), Errc::file_exists),
        BK_CASE(fs.mkdir("/ld"), Errc::file_exists),
        BK_CASE(fs.mkdir("/ld/"), Errc::file_exists),
        BK_CASE(fs.mkdir("/d/."), Errc::file_exists),
        BK_CASE(fs.mkdir("/d/.."), Errc::file_exists),
        BK_CASE(fs.mkdir("/"), Errc::file_exists),
        BK_CASE(fs.mkdir("/x/y"), Errc::no_such_file),
        BK_CASE(fs.mkdir("/f/y"), Errc::not_directory),
        BK_CASE(fs.mkdir("/loop1/x"), Errc::symlink_loop),
        BK_CASE(fs.mkdir("/n1/"), Errc::ok),
        BK_CASE(fs.mkdir("/n2//"), Errc::ok),
        BK_CASE(fs.mkdir("/ld/n3"), Errc::ok),
        BK_CASE(fs.mkdir("/d/sub/../n4"), Errc::ok),
    });
    FileSystem& fs = this->fs();
    BK_ASSERT_OK(fs.mkdir("/a"));
    BK_ASSERT_OK(fs.mkdir("/a/b/"));
    EXPECT_TRUE(fs.is_directory("/a/b"));
}

TEST_P(FileSystemConformance, MkdirAll) {
    FileSystem& fs = this->fs();
    conformance::build_standard_tree(fs);
    BK_EXPECT_OK(fs.mkdir_all("/a/b/c", 0700));
    EXPECT_TRUE(fs.is_directory("/a/b/c"));
    EXPECT_EQ(fs.stat("/a/b").value().mode, 0700u);
    BK_EXPECT_OK(fs.mkdir_all("/a/b/c"));  // existing: fine
    BK_EXPECT_OK(fs.mkdir_all("/"));
    BK_EXPECT_OK(fs.mkdir_all("/ld/x/y"));  // through a symlink to a directory
    EXPECT_TRUE(fs.is_directory("/d/x/y"));
    BK_EXPECT_OK(fs.mkdir_all("//p//q/./r/../s/"));
    EXPECT_TRUE(fs.is_directory("/p/q/s"));
    EXPECT_TRUE(fs.is_directory("/p/q/r"));
    std::string failed;
    BK_EXPECT_ERR(fs.mkdir_all("/f/x", 0755, &failed), Errc::not_directory);
    EXPECT_EQ(failed, "/f");
    BK_EXPECT_ERR(fs.mkdir_all("/d/in", 0755, &failed), Errc::file_exists);
    EXPECT_EQ(failed, "/d/in");
    BK_EXPECT_ERR(fs.mkdir_all("/dang/x", 0755, &failed), Errc::file_exists);
    EXPECT_EQ(failed, "/dang");
    BK_EXPECT_ERR(fs.mkdir_all("/loop1/x"), Errc::symlink_loop);
    BK_EXPECT_ERR(fs.mkdir_all("relative/x"), Errc::invalid_argument);
}

TEST_P(FileSystemConformance, RmdirErrors) {
    this->run_cases({
        BK_CASE(fs.rmdir("/f"), Errc::not_directory),
        BK_CASE(fs.rmdir("/f/"), Errc::not_directory),
        BK_CASE(fs.rmdir("/d"), Errc::not_empty),
        BK_CASE(fs.rmdir("/ld"), Errc::not_directory),
        BK_CASE(fs.rmdir("/ld/"), Errc::not_directory),
        BK_CASE(fs.rmdir("/dang"), Errc::not_directory),
        BK_CASE(fs.rmdir("/e/."), Errc::invalid_argument),
        BK_CASE(fs.rmdir("/e/.."), Errc::not_empty),
        BK_CASE(fs.rmdir("/nope"), Errc::no_such_file),
        BK_CASE(fs.rmdir("/nope/x"), Errc::no_such_file),
        BK_CASE(fs.rmdir("/"), Errc::busy),
        BK_CASE(fs.rmdir("/e"), Errc::ok),
        BK_CASE(fs.rmdir("/e/"), Errc::ok),
        BK_CASE(fs.rmdir("/ld/sub"), Errc::ok),
    });
    FileSystem& fs = this->fs();
    BK_ASSERT_OK(fs.mkdir("/x"));
    BK_ASSERT_OK(fs.rmdir("/x"));
    EXPECT_FALSE(fs.lexists("/x"));
}

TEST_P(FileSystemConformance, UnlinkErrors) {
    this->run_cases({
        BK_CASE(fs.unlink("/d"), Errc::is_directory),
        BK_CASE(fs.unlink("/d/"), Errc::is_directory),
        BK_CASE(fs.unlink("/e/."), Errc::is_directory),
        BK_CASE(fs.unlink("/f/"), Errc::not_directory),
        BK_CASE(fs.unlink("/lf/"), Errc::not_directory),
        BK_CASE(fs.unlink("/ld/"), Errc::not_directory),
        BK_CASE(fs.unlink("/f/x"), Errc::not_directory),
        BK_CASE(fs.unlink("/nope"), Errc::no_such_file),
        BK_CASE(fs.unlink("/nope/x"), Errc::no_such_file),
        BK_CASE(fs.unlink("/loop1/x"), Errc::symlink_loop),
        BK_CASE(fs.unlink("/f"), Errc::ok),
        BK_CASE(fs.unlink("/loop1"), Errc::ok),
        BK_CASE(fs.unlink("/dang"), Errc::ok),
        BK_CASE(fs.unlink("/ld/in"), Errc::ok),
    });
    FileSystem& fs = this->fs();
    conformance::build_standard_tree(fs);
    // Removing a symlink removes the link, never its target.
    BK_ASSERT_OK(fs.unlink("/lf"));
    BK_ASSERT_OK(fs.unlink("/ld"));
    EXPECT_EQ(describe(fs, "/lf"), "missing");
    EXPECT_EQ(describe(fs, "/f"), "file:f");
    EXPECT_EQ(describe(fs, "/d/in"), "file:in");
}

// ---------------------------------------------------------------------------------------------------------
// rename

TEST_P(FileSystemConformance, RenameTable) {
    struct Case {
        const char* from;
        const char* to;
        Errc expected;
        std::vector<std::pair<const char*, const char*>> after;  // path -> describe() afterwards
    };
    const std::vector<Case> cases = {
        {"/f", "/g", Errc::ok, {{"/f", "missing"}, {"/g", "file:f"}}},
        {"/f", "/new", Errc::ok, {{"/f", "missing"}, {"/new", "file:f"}}},
        {"/f", "/d/in", Errc::ok, {{"/d/in", "file:f"}}},
        {"/d/in", "/e/in2", Errc::ok, {{"/d/in", "missing"}, {"/e/in2", "file:in"}}},
        {"/f", "/f", Errc::ok, {{"/f", "file:f"}}},
        {"/d", "/d", Errc::ok, {{"/d/in", "file:in"}}},
        {"/d", "/e", Errc::ok, {{"/d", "missing"}, {"/e/in", "file:in"}, {"/e/sub", "dir"}}},
        {"/d", "/x/", Errc::ok, {{"/x/in", "file:in"}}},
        {"/d/", "/x/", Errc::ok, {{"/x/in", "file:in"}}},
        {"/d", "/e/", Errc::ok, {{"/e/in", "file:in"}}},
        {"/e/", "/d/sub/", Errc::ok, {{"/e", "missing"}, {"/d/sub", "dir"}}},
        {"/d/sub", "/e", Errc::ok, {{"/d/sub", "missing"}, {"/e", "dir"}}},
        {"/ld", "/x", Errc::ok, {{"/x", "link:d"}, {"/ld", "missing"}, {"/d", "dir"}}},
        {"/lf", "/g", Errc::ok, {{"/g", "link:f"}, {"/f", "file:f"}}},
        {"/f", "/lf", Errc::ok, {{"/lf", "file:f"}, {"/f", "missing"}}},
        {"/f", "/ld", Errc::ok, {{"/ld", "file:f"}, {"/d", "dir"}}},
        {"/f", "/dang", Errc::ok, {{"/dang", "file:f"}, {"/nowhere", "missing"}}},
        {"/dang", "/x", Errc::ok, {{"/x", "link:nowhere"}}},
        {"/loop1", "/x", Errc::ok, {{"/x", "link:loop2"}}},
        {"/d/sub/../in", "/e/./moved", Errc::ok, {{"/e/moved", "file:in"}}},
        {"/f", "/d", Errc::is_directory, {{"/f", "file:f"}}},
        {"/d", "/f", Errc::not_directory, {{"/d", "dir"}}},
        {"/d", "/ld", Errc::not_directory, {}},
        {"/e", "/ld", Errc::not_directory, {}},
        {"/e", "/ld/", Errc::not_directory, {}},
        {"/d", "/dang", Errc::not_directory, {}},
        {"/e", "/f/", Errc::not_directory, {}},
        {"/f/", "/x", Errc::not_directory, {{"/f", "file:f"}}},
        {"/f", "/x/", Errc::not_directory, {{"/f", "file:f"}}},
        {"/f", "/d/sub/", Errc::not_directory, {}},
        {"/ld/", "/x", Errc::not_directory, {}},
        {"/f", "/g/x", Errc::not_directory, {}},
        {"/nope", "/f/x", Errc::not_directory, {}},
        {"/e", "/d", Errc::not_empty, {{"/e", "dir"}, {"/d/in", "file:in"}}},
        {"/d/sub", "/d", Errc::not_empty, {}},
        {"/d", "/d/sub", Errc::invalid_argument, {{"/d/sub", "dir"}}},
        {"/d", "/d/x", Errc::invalid_argument, {{"/d/x", "missing"}}},
        {"/d", "/d/sub/x", Errc::invalid_argument, {}},
        {"/d", "/ld/x", Errc::invalid_argument, {}},
        {"/nope", "/x", Errc::no_such_file, {{"/x", "missing"}}},
        {"/f", "/nope/x", Errc::no_such_file, {{"/f", "file:f"}}},
        {"/loop1/x", "/y", Errc::symlink_loop, {}},
        {"/f", "/loop1/x", Errc::symlink_loop, {}},
        {"/d/.", "/x", Errc::busy, {}},
        {"/d/..", "/x", Errc::busy, {}},
        {"/e", "/d/.", Errc::busy, {}},
        {"/e", "/d/..", Errc::busy, {}},
        {"/", "/x", Errc::busy, {}},
    };
    for (const Case& c : cases) {
        auto fs = GetParam().make();
        conformance::build_standard_tree(*fs);
        ASSERT_FALSE(::testing::Test::HasFatalFailure());
        SCOPED_TRACE(std::string("rename ") + c.from + " " + c.to);
        EXPECT_EQ(fs->rename(c.from, c.to).error(), c.expected);
        for (const auto& [path, want] : c.after) EXPECT_EQ(describe(*fs, path), want) << path;
    }
}

TEST_P(FileSystemConformance, RenameMovesAWholeSubtree) {
    FileSystem& fs = this->fs();
    BK_ASSERT_OK(fs.mkdir_all("/a/b/c"));
    BK_ASSERT_OK(fs.write_file("/a/b/c/file", "deep"));
    BK_ASSERT_OK(fs.symlink("../b/c/file", "/a/b/rel"));
    BK_ASSERT_OK(fs.mkdir("/z"));
    BK_ASSERT_OK(fs.rename("/a", "/z/a2"));
    EXPECT_EQ(describe(fs, "/a"), "missing");
    EXPECT_EQ(describe(fs, "/z/a2/b/c/file"), "file:deep");
    EXPECT_EQ(fs.read_file("/z/a2/b/rel").value_or("?"), "deep");
    EXPECT_EQ(fs.realpath("/z/a2/b/c/..").value_or("?"), "/z/a2/b");
    // and back up again over an empty directory
    BK_ASSERT_OK(fs.mkdir("/back"));
    BK_ASSERT_OK(fs.rename("/z/a2/b", "/back"));
    EXPECT_EQ(describe(fs, "/back/c/file"), "file:deep");
    EXPECT_EQ(fs.realpath("/back/c/..").value_or("?"), "/back");
}

TEST_P(FileSystemConformance, RenameOntoAnotherHardLinkOfTheSameFileDoesNothing) {
    if (!GetParam().hard_links) GTEST_SKIP() << "no hard links";
    FileSystem& fs = this->fs();
    BK_ASSERT_OK(fs.write_file("/f", "f"));
    BK_ASSERT_OK(fs.link("/f", "/hf"));
    BK_EXPECT_OK(fs.rename("/f", "/hf"));
    EXPECT_EQ(describe(fs, "/f"), "file:f");
    EXPECT_EQ(describe(fs, "/hf"), "file:f");
    EXPECT_EQ(fs.stat("/f").value().nlink, 2u);
}

// ---------------------------------------------------------------------------------------------------------
// Symlinks

TEST_P(FileSystemConformance, SymlinkAndReadlink) {
    FileSystem& fs = this->fs();
    BK_ASSERT_OK(fs.mkdir_all("/a/b"));
    BK_ASSERT_OK(fs.write_file("/a/b/t", "target"));
    // Targets are stored verbatim, whatever they are.
    const std::vector<std::string> targets = {"t", "./t", "../b/t", "/a/b/t", "//a//b/t/", "no such", "\xff\x01 x"};
    for (std::size_t i = 0; i < targets.size(); ++i) {
        std::string link = std::string("/a/b/l") + std::to_string(i);
        BK_ASSERT_OK(fs.symlink(targets[i], link));
        EXPECT_EQ(fs.readlink(link).value_or("?"), targets[i]);
        EXPECT_EQ(fs.lstat(link).value().size, targets[i].size());
    }
    // Relative targets resolve from the link's directory, absolute ones from the root.
    for (int i : {0, 1, 2, 3}) {
        EXPECT_EQ(fs.read_file(std::string("/a/b/l") + std::to_string(i)).value_or("?"), "target") << i;
    }
    BK_EXPECT_ERR(fs.read_file("/a/b/l4"), Errc::not_directory);  // "t/" names a file
    BK_EXPECT_ERR(fs.read_file("/a/b/l5"), Errc::no_such_file);
    // A relative link keeps working when reached through another link.
    BK_ASSERT_OK(fs.symlink("a/b", "/ab"));
    EXPECT_EQ(fs.read_file("/ab/l2").value_or("?"), "target");
    // A chain of links.
    BK_ASSERT_OK(fs.symlink("l0", "/a/b/chain1"));
    BK_ASSERT_OK(fs.symlink("/ab/chain1", "/chain2"));
    EXPECT_EQ(fs.read_file("/chain2").value_or("?"), "target");
    EXPECT_EQ(fs.readlink("/chain2").value_or("?"), "/ab/chain1");
    // Writing through a symlink writes the target.
    BK_ASSERT_OK(fs.write_file("/chain2", "changed"));
    EXPECT_EQ(fs.read_file("/a/b/t").value_or("?"), "changed");
    EXPECT_TRUE(fs.is_symlink("/chain2"));
    // Errors.
    this->run_cases({
        BK_CASE(fs.symlink("x", "/f"), Errc::file_exists),
        BK_CASE(fs.symlink("x", "/d"), Errc::file_exists),
        BK_CASE(fs.symlink("x", "/dang"), Errc::file_exists),
        BK_CASE(fs.symlink("", "/emp"), Errc::no_such_file),
        BK_CASE(fs.symlink("x", "/nl/"), Errc::no_such_file),
        BK_CASE(fs.symlink("x", "/nope/l"), Errc::no_such_file),
        BK_CASE(fs.symlink("x", "/f/l"), Errc::not_directory),
        BK_CASE(fs.symlink("x", "/ld/l"), Errc::ok),
        BK_CASE(fs.readlink("/f"), Errc::invalid_argument),
        BK_CASE(fs.readlink("/d"), Errc::invalid_argument),
        BK_CASE(fs.readlink("/"), Errc::invalid_argument),
        BK_CASE(fs.readlink("/ld/"), Errc::invalid_argument),
        BK_CASE(fs.readlink("/nope"), Errc::no_such_file),
        BK_CASE(fs.readlink("/loop1"), Errc::ok),
        BK_CASE(fs.readlink("/dang"), Errc::ok),
    });
}

TEST_P(FileSystemConformance, SymlinkLoopsAreDetected) {
    FileSystem& fs = this->fs();
    BK_ASSERT_OK(fs.symlink("self", "/self"));
    BK_ASSERT_OK(fs.symlink("b", "/a"));
    BK_ASSERT_OK(fs.symlink("a", "/b"));
    BK_ASSERT_OK(fs.mkdir("/dir"));
    BK_ASSERT_OK(fs.symlink("../dir/up", "/dir/up"));  // loops through ".."
    BK_ASSERT_OK(fs.symlink(".", "/dir/dot"));         // not a loop: dot/dot/dot is /dir
    for (const char* p : {"/self", "/a", "/b", "/dir/up", "/a/x"}) {
        SCOPED_TRACE(p);
        BK_EXPECT_ERR(fs.stat(p), Errc::symlink_loop);
        BK_EXPECT_ERR(fs.realpath(p), Errc::symlink_loop);
        BK_EXPECT_ERR(fs.open(p, OpenFlags::read), Errc::symlink_loop);
        BK_EXPECT_ERR(fs.open(p, OpenFlags::write | OpenFlags::create), Errc::symlink_loop);
        BK_EXPECT_ERR(fs.readdir(p), Errc::symlink_loop);
        BK_EXPECT_ERR(fs.chmod(p, 0600), Errc::symlink_loop);
    }
    BK_EXPECT_OK(fs.lstat("/self"));
    BK_EXPECT_OK(fs.unlink("/self"));
    EXPECT_EQ(fs.realpath("/dir/dot/dot/dot/dot").value_or("?"), "/dir");
}

TEST_P(FileSystemConformance, AtMostFortySymlinksPerResolution) {
    FileSystem& fs = this->fs();
    BK_ASSERT_OK(fs.mkdir("/t"));
    BK_ASSERT_OK(fs.write_file("/t/file", "end"));
    // /c/l0 -> /t, l<i> -> l<i-1>: reaching /t through l<n-1> follows n links.
    BK_ASSERT_OK(fs.mkdir("/c"));
    BK_ASSERT_OK(fs.symlink("/t", "/c/l0"));
    for (int i = 1; i < 45; ++i) {
        BK_ASSERT_OK(fs.symlink(std::string("l") + std::to_string(i - 1), std::string("/c/l") + std::to_string(i)));
    }
    static_assert(kMaxSymlinkHops == 40);
    EXPECT_EQ(fs.read_file("/c/l39/file").value_or("?"), "end");   // 40 links
    BK_EXPECT_ERR(fs.read_file("/c/l40/file"), Errc::symlink_loop);  // 41 links
    EXPECT_EQ(fs.realpath("/c/l39").value_or("?"), "/t");
    BK_EXPECT_ERR(fs.realpath("/c/l40"), Errc::symlink_loop);
    BK_EXPECT_OK(fs.stat("/c/l39"));
    BK_EXPECT_ERR(fs.stat("/c/l40"), Errc::symlink_loop);
    BK_EXPECT_OK(fs.lstat("/c/l44"));
}

TEST_P(FileSystemConformance, SymlinksNeverEscapeTheRoot) {
    FileSystem& fs = this->fs();
    BK_ASSERT_OK(fs.mkdir_all("/etc"));
    BK_ASSERT_OK(fs.write_file("/etc/passwd", "virtual passwd\n"));
    BK_ASSERT_OK(fs.mkdir_all("/home/user/work"));
    // Relative targets with more ".." than there are levels stop at the virtual root.
    BK_ASSERT_OK(fs.symlink("../../../../../../../../etc/passwd", "/home/user/work/up"));
    BK_ASSERT_OK(fs.symlink("/etc/passwd", "/home/user/work/abs"));
    BK_ASSERT_OK(fs.symlink("/../../../etc/passwd", "/home/user/work/absup"));
    BK_ASSERT_OK(fs.symlink("../../../../../../..", "/home/user/work/top"));
    BK_ASSERT_OK(fs.symlink("/", "/home/user/work/root"));
    for (const char* link : {"/home/user/work/up", "/home/user/work/abs", "/home/user/work/absup"}) {
        SCOPED_TRACE(link);
        EXPECT_EQ(fs.read_file(link).value_or("?"), "virtual passwd\n");
        EXPECT_EQ(fs.realpath(link).value_or("?"), "/etc/passwd");
    }
    EXPECT_EQ(fs.realpath("/home/user/work/top").value_or("?"), "/");
    EXPECT_EQ(fs.realpath("/home/user/work/root").value_or("?"), "/");
    EXPECT_EQ(fs.realpath("/home/user/work/root/..").value_or("?"), "/");
    EXPECT_EQ(fs.realpath("/home/user/work/top/../../etc").value_or("?"), "/etc");
    EXPECT_EQ(fs.read_file("/home/user/work/top/etc/passwd").value_or("?"), "virtual passwd\n");
    EXPECT_EQ(fs.read_file("/../../../etc/passwd").value_or("?"), "virtual passwd\n");
    EXPECT_EQ(sorted_names(fs.readdir("/home/user/work/top/..").value()),
              (std::vector<std::string>{"etc", "home"}));
    // Creating through an escaping link also lands inside.
    BK_ASSERT_OK(fs.symlink("../../../../../../tmp-escape", "/home/user/work/out"));
    BK_ASSERT_OK(fs.write_file("/home/user/work/out", "inside"));
    EXPECT_EQ(describe(fs, "/tmp-escape"), "file:inside");
    BK_ASSERT_OK(fs.mkdir("/home/user/work/top/made-at-root"));
    EXPECT_TRUE(fs.is_directory("/made-at-root"));
    // A link to a missing absolute path dangles inside the tree.
    BK_ASSERT_OK(fs.symlink("/bin/sh", "/home/user/sh"));
    BK_EXPECT_ERR(fs.stat("/home/user/sh"), Errc::no_such_file);
}

TEST_P(FileSystemConformance, Realpath) {
    FileSystem& fs = this->fs();
    conformance::build_standard_tree(fs);
    BK_ASSERT_OK(fs.mkdir_all("/x/y"));
    BK_ASSERT_OK(fs.symlink("/d/sub", "/x/y/l"));
    BK_ASSERT_OK(fs.symlink("../y/l", "/x/y/rel"));
    const std::vector<std::pair<std::string, std::string>> table = {
        {"/", "/"},
        {"/d", "/d"},
        {"//d//./in", "/d/in"},
        {"/d/sub/../in", "/d/in"},
        {"/ld", "/d"},
        {"/ld/", "/d"},
        {"/ld/in", "/d/in"},
        {"/ld/..", "/"},  // physical: the parent of the link's target
        {"/lf", "/f"},
        {"/x/y/l", "/d/sub"},
        {"/x/y/l/..", "/d"},
        {"/x/y/rel/../in", "/d/in"},
        {"/x/y/../y/./l/.", "/d/sub"},
        {"/..", "/"},
    };
    for (const auto& [in, want] : table) EXPECT_EQ(fs.realpath(in).value_or("?"), want) << in;
    this->run_cases({
        BK_CASE(fs.realpath("/nope"), Errc::no_such_file),
        BK_CASE(fs.realpath("/d/nope"), Errc::no_such_file),
        BK_CASE(fs.realpath("/dang"), Errc::no_such_file),
        BK_CASE(fs.realpath("/f/"), Errc::not_directory),
        BK_CASE(fs.realpath("/f/x"), Errc::not_directory),
        BK_CASE(fs.realpath("/loop1"), Errc::symlink_loop),
    });
}

// ---------------------------------------------------------------------------------------------------------
// Hard links

TEST_P(FileSystemConformance, HardLinks) {
    FileSystem& fs = this->fs();
    conformance::build_standard_tree(fs);
    if (!GetParam().hard_links) {
        BK_EXPECT_ERR(fs.link("/f", "/h"), Errc::not_permitted);
        return;
    }
    BK_ASSERT_OK(fs.link("/f", "/h"));
    auto f = fs.stat("/f");
    auto h = fs.stat("/h");
    BK_ASSERT_OK(f);
    BK_ASSERT_OK(h);
    EXPECT_EQ(f->ino, h->ino);
    EXPECT_EQ(f->nlink, 2u);
    BK_ASSERT_OK(fs.append_file("/h", "+"));
    EXPECT_EQ(fs.read_file("/f").value_or("?"), "f+");
    BK_ASSERT_OK(fs.unlink("/f"));
    EXPECT_EQ(fs.read_file("/h").value_or("?"), "f+");
    EXPECT_EQ(fs.stat("/h").value().nlink, 1u);
    // A link to a symlink is a second symlink (link does not follow).
    BK_ASSERT_OK(fs.link("/lf", "/hl"));
    EXPECT_EQ(describe(fs, "/hl"), "link:f");
    EXPECT_EQ(fs.lstat("/hl").value().ino, fs.lstat("/lf").value().ino);
    BK_ASSERT_OK(fs.link("/ld/in", "/e/in"));
    EXPECT_EQ(fs.stat("/e/in").value().ino, fs.stat("/d/in").value().ino);
    this->run_cases({
        BK_CASE(fs.link("/d", "/d2"), Errc::not_permitted),
        BK_CASE(fs.link("/ld/", "/d2"), Errc::not_permitted),
        BK_CASE(fs.link("/f", "/f"), Errc::file_exists),
        BK_CASE(fs.link("/f", "/g"), Errc::file_exists),
        BK_CASE(fs.link("/f", "/d"), Errc::file_exists),
        BK_CASE(fs.link("/f", "/dang"), Errc::file_exists),
        BK_CASE(fs.link("/nope", "/z"), Errc::no_such_file),
        BK_CASE(fs.link("/f", "/x/z"), Errc::no_such_file),
        BK_CASE(fs.link("/f", "/nl/"), Errc::no_such_file),
        BK_CASE(fs.link("/lf/", "/q"), Errc::not_directory),
        BK_CASE(fs.link("/dang", "/q"), Errc::ok),
    });
}

// ---------------------------------------------------------------------------------------------------------
// Metadata changes

TEST_P(FileSystemConformance, Chmod) {
    FileSystem& fs = this->fs();
    conformance::build_standard_tree(fs);
    BK_ASSERT_OK(fs.chmod("/f", 0600));
    EXPECT_EQ(fs.stat("/f").value().mode, 0600u);
    BK_ASSERT_OK(fs.chmod("/d", 0711));
    EXPECT_EQ(fs.stat("/d").value().mode, 0711u);
    const Mode special = GetParam().special_mode_bits ? 07000 : 0;  // masked off on the host
    BK_ASSERT_OK(fs.chmod("/e", 01777));  // sticky
    EXPECT_EQ(fs.stat("/e").value().mode, 01777u & (0777 | special));
    BK_ASSERT_OK(fs.chmod("/g", 04755));  // setuid
    EXPECT_EQ(fs.stat("/g").value().mode, 04755u & (0777 | special));
    BK_ASSERT_OK(fs.chmod("/g", 0));
    EXPECT_EQ(fs.stat("/g").value().mode, 0u);
    // follows symlinks: the target changes, the link does not
    Mode link_mode = fs.lstat("/lf").value().mode;
    BK_ASSERT_OK(fs.chmod("/lf", 0640));
    EXPECT_EQ(fs.stat("/f").value().mode, 0640u);
    EXPECT_EQ(fs.lstat("/lf").value().mode, link_mode);
    // ctime moves
    BK_ASSERT_OK(fs.utimes("/f", TimeSet::at(kOldTime), TimeSet::at(kOldTime)));
    TimeSpec before = fs.stat("/f").value().ctime;
    BK_ASSERT_OK(fs.chmod("/f", 0644));
    EXPECT_GE(fs.stat("/f").value().ctime, before);
    EXPECT_EQ(fs.stat("/f").value().mtime, kOldTime);  // chmod leaves mtime
    this->run_cases({
        BK_CASE(fs.chmod("/nope", 0600), Errc::no_such_file),
        BK_CASE(fs.chmod("/dang", 0600), Errc::no_such_file),
        BK_CASE(fs.chmod("/loop1", 0600), Errc::symlink_loop),
        BK_CASE(fs.chmod("/f/", 0600), Errc::not_directory),
        BK_CASE(fs.chmod("/f/x", 0600), Errc::not_directory),
        BK_CASE(fs.chown("/nope", 0, 0), Errc::no_such_file),
        BK_CASE(fs.chown("/dang", 0, 0), Errc::no_such_file),
    });
}

TEST_P(FileSystemConformance, Utimes) {
    FileSystem& fs = this->fs();
    conformance::build_standard_tree(fs);
    const TimeSpec a{1'234'567'890, 123'456'789};
    const TimeSpec m{1'500'000'000, 987'654'321};
    BK_ASSERT_OK(fs.utimes("/f", TimeSet::at(a), TimeSet::at(m)));
    auto st = fs.stat("/f");
    BK_ASSERT_OK(st);
    EXPECT_EQ(st->atime, a);
    EXPECT_EQ(st->mtime, m);
    // omit leaves a time alone
    const TimeSpec m2{1'600'000'000, 5};
    BK_ASSERT_OK(fs.utimes("/f", TimeSet::omit(), TimeSet::at(m2)));
    EXPECT_EQ(fs.stat("/f").value().atime, a);
    EXPECT_EQ(fs.stat("/f").value().mtime, m2);
    // now is at least as late as anything set before
    BK_ASSERT_OK(fs.utimes("/f", TimeSet::now(), TimeSet::now()));
    EXPECT_GT(fs.stat("/f").value().mtime, m2);
    EXPECT_GT(fs.stat("/f").value().atime, a);
    // directories and symlinks through follow
    BK_ASSERT_OK(fs.utimes("/ld", TimeSet::at(a), TimeSet::at(m)));
    EXPECT_EQ(fs.stat("/d").value().mtime, m);
    // follow=false changes the link itself (touch -h), even a dangling one
    BK_ASSERT_OK(fs.utimes("/lf", TimeSet::at(a), TimeSet::at(a), false));
    EXPECT_EQ(fs.lstat("/lf").value().mtime, a);
    EXPECT_NE(fs.stat("/f").value().mtime, a);
    BK_EXPECT_OK(fs.utimes("/dang", TimeSet::at(a), TimeSet::at(a), false));
    EXPECT_EQ(fs.lstat("/dang").value().mtime, a);
    // times before the epoch
    const TimeSpec old{-86400, 0};
    BK_ASSERT_OK(fs.utimes("/g", TimeSet::at(old), TimeSet::at(old)));
    EXPECT_EQ(fs.stat("/g").value().mtime, old);
    this->run_cases({
        BK_CASE(fs.utimes("/nope", TimeSet::now(), TimeSet::now()), Errc::no_such_file),
        BK_CASE(fs.utimes("/dang", TimeSet::now(), TimeSet::now()), Errc::no_such_file),
        BK_CASE(fs.utimes("/f/x", TimeSet::now(), TimeSet::now()), Errc::not_directory),
        BK_CASE(fs.utimes("/loop1", TimeSet::now(), TimeSet::now()), Errc::symlink_loop),
        BK_CASE(fs.utimes("/f", TimeSet::at({0, 1'000'000'000}), TimeSet::omit()), Errc::invalid_argument),
    });
}

TEST_P(FileSystemConformance, WritesAndEntryChangesMoveTimestamps) {
    FileSystem& fs = this->fs();
    BK_ASSERT_OK(fs.mkdir("/d"));
    BK_ASSERT_OK(fs.write_file("/d/f", "x"));
    auto age = [&](const char* p) { BK_ASSERT_OK(fs.utimes(p, TimeSet::at(kOldTime), TimeSet::at(kOldTime))); };
    auto mtime = [&](const char* p) { return fs.stat(p).value().mtime; };
    auto ctime = [&](const char* p) { return fs.stat(p).value().ctime; };

    age("/d/f");
    BK_ASSERT_OK(fs.append_file("/d/f", "y"));
    EXPECT_GT(mtime("/d/f"), kOldTime) << "write";
    EXPECT_GT(ctime("/d/f"), kOldTime);

    age("/d/f");
    { auto h = fs.open("/d/f", OpenFlags::write | OpenFlags::truncate); BK_ASSERT_OK(h); }
    EXPECT_GT(mtime("/d/f"), kOldTime) << "open with truncate";

    age("/d/f");
    BK_ASSERT_OK(fs.truncate("/d/f", 10));
    EXPECT_GT(mtime("/d/f"), kOldTime) << "truncate";

    age("/d/f");
    { auto h = fs.open("/d/f", OpenFlags::read); BK_ASSERT_OK(h); char c; (void)(*h)->read(&c, 1); }
    EXPECT_EQ(mtime("/d/f"), kOldTime) << "reading does not modify";

    struct DirOp {
        const char* what;
        std::function<Status()> op;
    };
    const std::vector<DirOp> ops = {
        {"create file", [&] { return fs.write_file("/d/new", ""); }},
        {"mkdir", [&] { return fs.mkdir("/d/sub"); }},
        {"symlink", [&] { return fs.symlink("x", "/d/ln"); }},
        {"rename within", [&] { return fs.rename("/d/new", "/d/new2"); }},
        {"unlink", [&] { return fs.unlink("/d/new2"); }},
        {"rmdir", [&] { return fs.rmdir("/d/sub"); }},
        {"rename out", [&] { return fs.rename("/d/ln", "/ln"); }},
        {"rename in", [&] { return fs.rename("/ln", "/d/ln"); }},
    };
    for (const DirOp& op : ops) {
        age("/d");
        BK_ASSERT_OK(op.op());
        EXPECT_GT(mtime("/d"), kOldTime) << op.what;
        EXPECT_GT(ctime("/d"), kOldTime) << op.what;
    }
    // Modifying a file's content leaves its directory alone.
    age("/d");
    BK_ASSERT_OK(fs.append_file("/d/f", "z"));
    EXPECT_EQ(mtime("/d"), kOldTime);
}

TEST_P(FileSystemConformance, TruncatePath) {
    FileSystem& fs = this->fs();
    conformance::build_standard_tree(fs);
    BK_ASSERT_OK(fs.write_file("/t", "abcdef"));
    BK_ASSERT_OK(fs.truncate("/t", 3));
    EXPECT_EQ(fs.read_file("/t").value_or("?"), "abc");
    BK_ASSERT_OK(fs.truncate("/t", 6));
    EXPECT_EQ(fs.read_file("/t").value_or("?"), std::string("abc\0\0\0", 6));
    BK_ASSERT_OK(fs.truncate("/lf", 0));
    EXPECT_EQ(fs.read_file("/f").value_or("?"), "");
    // A large sparse size reads as zeros at the end.
    BK_ASSERT_OK(fs.truncate("/t", 64ull << 20));
    EXPECT_EQ(fs.stat("/t").value().size, 64ull << 20);
    auto h = fs.open_read("/t");
    BK_ASSERT_OK(h);
    char buf[4] = {1, 1, 1, 1};
    EXPECT_EQ((*h)->pread(buf, 4, (64ull << 20) - 4).value_or(0), 4u);
    EXPECT_EQ(std::string(buf, 4), std::string(4, '\0'));
    BK_ASSERT_OK(fs.truncate("/t", 0));
    this->run_cases({
        BK_CASE(fs.truncate("/d", 0), Errc::is_directory),
        BK_CASE(fs.truncate("/ld", 0), Errc::is_directory),
        BK_CASE(fs.truncate("/nope", 0), Errc::no_such_file),
        BK_CASE(fs.truncate("/dang", 0), Errc::no_such_file),
        BK_CASE(fs.truncate("/f/", 0), Errc::not_directory),
        BK_CASE(fs.truncate("/loop1", 0), Errc::symlink_loop),
    });
}

// ---------------------------------------------------------------------------------------------------------
// Helpers

TEST_P(FileSystemConformance, ExistenceHelpers) {
    FileSystem& fs = this->fs();
    conformance::build_standard_tree(fs);
    struct Row {
        const char* path;
        bool exists, lexists, dir, file, link;
    };
    const std::vector<Row> rows = {
        {"/", true, true, true, false, false},
        {"/d", true, true, true, false, false},
        {"/f", true, true, false, true, false},
        {"/ld", true, true, true, false, true},
        {"/lf", true, true, false, true, true},
        {"/dang", false, true, false, false, true},
        {"/loop1", false, true, false, false, true},
        {"/nope", false, false, false, false, false},
        {"/f/x", false, false, false, false, false},
        {"relative", false, false, false, false, false},
    };
    for (const Row& r : rows) {
        EXPECT_EQ(fs.exists(r.path), r.exists) << r.path;
        EXPECT_EQ(fs.lexists(r.path), r.lexists) << r.path;
        EXPECT_EQ(fs.is_directory(r.path), r.dir) << r.path;
        EXPECT_EQ(fs.is_regular_file(r.path), r.file) << r.path;
        EXPECT_EQ(fs.is_symlink(r.path), r.link) << r.path;
    }
}

TEST_P(FileSystemConformance, RemoveAndRemoveAll) {
    FileSystem& fs = this->fs();
    conformance::build_standard_tree(fs);
    BK_ASSERT_OK(fs.remove("/f"));
    BK_ASSERT_OK(fs.remove("/e"));
    BK_ASSERT_OK(fs.remove("/lf"));
    BK_EXPECT_ERR(fs.remove("/d"), Errc::not_empty);
    BK_EXPECT_ERR(fs.remove("/nope"), Errc::no_such_file);
    EXPECT_FALSE(fs.lexists("/f") || fs.lexists("/e") || fs.lexists("/lf"));

    // remove_all never follows symlinks out of the tree it removes.
    BK_ASSERT_OK(fs.mkdir_all("/keep/inner"));
    BK_ASSERT_OK(fs.write_file("/keep/inner/file", "kept"));
    BK_ASSERT_OK(fs.mkdir_all("/t/a/b/c"));
    BK_ASSERT_OK(fs.write_file("/t/a/b/c/f1", "1"));
    BK_ASSERT_OK(fs.write_file("/t/a/f2", "2"));
    BK_ASSERT_OK(fs.symlink("/keep", "/t/a/b/to-keep"));
    BK_ASSERT_OK(fs.symlink("../../../keep/inner", "/t/a/b/rel-keep"));
    BK_ASSERT_OK(fs.symlink("/t", "/t/a/loop"));
    BK_ASSERT_OK(fs.remove_all("/t"));
    EXPECT_FALSE(fs.lexists("/t"));
    EXPECT_EQ(describe(fs, "/keep/inner/file"), "file:kept");
    BK_EXPECT_OK(fs.remove_all("/t"));  // missing: fine
    BK_EXPECT_OK(fs.remove_all("/g"));  // a file
    EXPECT_FALSE(fs.lexists("/g"));
    BK_EXPECT_OK(fs.remove_all("/ld"));  // a symlink to a directory: only the link goes
    EXPECT_FALSE(fs.lexists("/ld"));
    EXPECT_EQ(describe(fs, "/d/in"), "file:in");
    // Deep trees are fine (no recursion).
    std::string deep = "/deep";
    for (int i = 0; i < 300; ++i) deep += "/x";
    BK_ASSERT_OK(fs.mkdir_all(deep));
    BK_ASSERT_OK(fs.write_file(deep + "/leaf", "leaf"));
    BK_EXPECT_OK(fs.remove_all("/deep"));
    EXPECT_FALSE(fs.lexists("/deep"));
}

// ---------------------------------------------------------------------------------------------------------
// Threads

TEST_P(FileSystemConformance, ConcurrentAccessFromSeveralThreads) {
    FileSystem& fs = this->fs();
    BK_ASSERT_OK(fs.mkdir("/shared"));
    BK_ASSERT_OK(fs.write_file("/log", ""));
    constexpr int kThreads = 8;
    constexpr int kFiles = 40;
    std::atomic<int> failures{0};
    std::atomic<bool> stop_readers{false};
    auto fail = [&](const std::string&) { failures.fetch_add(1); };

    auto worker = [&](int t) {
        const std::string own = std::string("/t") + std::to_string(t);
        if (!fs.mkdir_all(own + "/sub/deeper")) fail("mkdir_all");
        if (!fs.mkdir_all("/common/a/b/c")) fail("mkdir_all common");  // every thread races on this
        auto log = fs.open("/log", OpenFlags::append);
        if (!log) return fail("open log");
        for (int i = 0; i < kFiles; ++i) {
            const std::string name = std::to_string(t) + std::string("-") + std::to_string(i);
            const std::string content = std::string("thread ") + std::to_string(t) + std::string(" file ") + std::to_string(i) + "\n";
            if (!fs.write_file("/shared/" + name, content)) fail("write shared");
            if (!fs.write_file(own + std::string("/f") + std::to_string(i), content)) fail("write own");
            if (fs.read_file(own + std::string("/f") + std::to_string(i)).value_or("") != content) fail("read own");
            if (!fs.rename(own + std::string("/f") + std::to_string(i), own + std::string("/sub/g") + std::to_string(i))) fail("rename");
            if (!fs.symlink(std::string("g") + std::to_string(i), own + std::string("/sub/l") + std::to_string(i))) fail("symlink");
            if (fs.read_file(own + std::string("/sub/l") + std::to_string(i)).value_or("") != content) fail("read via link");
            if (i % 2 == 0 && !fs.unlink(own + std::string("/sub/g") + std::to_string(i))) fail("unlink");
            if (!(*log)->write("<" + name + ">\n")) fail("append log");
            if (!fs.readdir("/shared")) fail("readdir shared");
            if (!fs.utimes(own, TimeSet::now(), TimeSet::now())) fail("utimes");
        }
    };
    auto reader = [&] {
        while (!stop_readers.load()) {
            auto entries = fs.readdir("/shared");
            if (!entries) fail("reader readdir");
            for (const DirEntry& e : entries.value_or(std::vector<DirEntry>{})) {
                auto st = fs.lstat("/shared/" + e.name);
                if (!st || !st->is_regular()) fail("reader lstat");
                // A file may be seen empty between its creation and its write, never half-written.
                std::string content = fs.read_file("/shared/" + e.name).value_or("?");
                if (!content.empty() && content.rfind("thread ", 0) != 0) fail("reader read");
            }
            (void)fs.stat("/log");
            (void)fs.realpath("/t0/sub/l0");
        }
    };
    std::vector<std::thread> threads;
    std::thread r1(reader), r2(reader);
    for (int t = 0; t < kThreads; ++t) threads.emplace_back(worker, t);
    for (auto& th : threads) th.join();
    stop_readers.store(true);
    r1.join();
    r2.join();

    EXPECT_EQ(failures.load(), 0);
    EXPECT_EQ(fs.readdir("/shared").value().size(), static_cast<std::size_t>(kThreads * kFiles));
    EXPECT_TRUE(fs.is_directory("/common/a/b/c"));
    for (int t = 0; t < kThreads; ++t) {
        const std::string own = std::string("/t") + std::to_string(t);
        // g<i> for odd i remain, l<i> for every i
        EXPECT_EQ(fs.readdir(own + "/sub").value().size(), static_cast<std::size_t>(kFiles / 2 + kFiles + 1));
        EXPECT_EQ(fs.read_file(own + "/sub/l1").value_or("?"),
                  std::string("thread ") + std::to_string(t) + " file 1\n");
        BK_EXPECT_ERR(fs.stat(own + "/sub/l0"), Errc::no_such_file);
    }
    // Appends never interleave inside one write.
    std::string log = fs.read_file("/log").value_or("");
    std::size_t lines = 0;
    std::size_t pos = 0;
    while (pos < log.size()) {
        std::size_t nl = log.find('\n', pos);
        ASSERT_NE(nl, std::string::npos);
        std::string line = log.substr(pos, nl - pos);
        EXPECT_TRUE(line.size() > 2 && line.front() == '<' && line.back() == '>' &&
                    line.find('<', 1) == std::string::npos)
            << line;
        ++lines;
        pos = nl + 1;
    }
    EXPECT_EQ(lines, static_cast<std::size_t>(kThreads * kFiles));
}

TEST_P(FileSystemConformance, ConcurrentReadersAndWriterOnOneFile) {
    FileSystem& fs = this->fs();
    BK_ASSERT_OK(fs.write_file("/f", ""));
    constexpr int kWrites = 2000;
    std::atomic<int> failures{0};
    std::atomic<bool> done{false};
    std::thread writer([&] {
        auto h = fs.open("/f", OpenFlags::write | OpenFlags::append);
        if (!h) {
            failures++;
            done = true;
            return;
        }
        for (int i = 0; i < kWrites; ++i) {
            if (!(*h)->write("0123456789")) failures++;
            if (i % 500 == 499) {
                // churn the directory the readers resolve through
                if (!fs.write_file("/f.tmp", "0123456789")) failures++;
                if (!fs.rename("/f.tmp", "/g")) failures++;
            }
        }
        done = true;
    });
    auto reader = [&] {
        while (!done.load()) {
            auto h = fs.open("/f", OpenFlags::read);
            if (!h) {
                failures++;
                continue;
            }
            char buf[4096];
            uint64_t total = 0;
            for (;;) {
                auto n = (*h)->read(buf, sizeof buf);
                if (!n) {
                    failures++;
                    break;
                }
                if (*n == 0) break;
                for (std::size_t k = 0; k < *n; ++k) {
                    if (buf[k] != static_cast<char>('0' + (total + k) % 10)) {
                        failures++;
                        break;
                    }
                }
                total += *n;
            }
            // Linux does not promise a reader never sees part of a concurrent write (a write that straddles a
            // page can be half visible), so only the bytes are checked, not that total is a multiple of 10.
        }
    };
    std::thread r1(reader), r2(reader);
    writer.join();
    r1.join();
    r2.join();
    EXPECT_EQ(failures.load(), 0);
    EXPECT_EQ(fs.stat("/f").value().size, static_cast<uint64_t>(kWrites) * 10);
}

}  // namespace bashkit::vfs
