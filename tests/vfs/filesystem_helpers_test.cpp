// The pure parts of vfs/filesystem.hpp: error codes and texts, Result, path helpers, clocks.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "vfs/filesystem.hpp"

namespace bashkit::vfs {
namespace {

const std::vector<Errc> kAllErrors = {
    Errc::not_permitted, Errc::no_such_file, Errc::io_error, Errc::bad_descriptor, Errc::permission_denied,
    Errc::busy, Errc::file_exists, Errc::cross_device, Errc::not_directory, Errc::is_directory,
    Errc::invalid_argument, Errc::too_many_open_files, Errc::file_too_large, Errc::no_space, Errc::read_only,
    Errc::too_many_links, Errc::name_too_long, Errc::not_empty, Errc::symlink_loop, Errc::not_supported,
    Errc::quota_exceeded, Errc::cancelled,
};

TEST(Errc, MessagesAreTheCoreutilsOnes) {
    const std::vector<std::pair<Errc, std::string_view>> table = {
        {Errc::no_such_file, "No such file or directory"},
        {Errc::is_directory, "Is a directory"},
        {Errc::not_directory, "Not a directory"},
        {Errc::file_exists, "File exists"},
        {Errc::not_empty, "Directory not empty"},
        {Errc::permission_denied, "Permission denied"},
        {Errc::symlink_loop, "Too many levels of symbolic links"},
        {Errc::name_too_long, "File name too long"},
        {Errc::invalid_argument, "Invalid argument"},
        {Errc::cross_device, "Invalid cross-device link"},
        {Errc::no_space, "No space left on device"},
        {Errc::file_too_large, "File too large"},
        {Errc::read_only, "Read-only file system"},
        {Errc::not_permitted, "Operation not permitted"},
        {Errc::busy, "Device or resource busy"},
    };
    for (const auto& [code, text] : table) EXPECT_EQ(error_message(code), text) << error_name(code);
    EXPECT_EQ(error_message(static_cast<Errc>(99999)), "Unknown error");
    EXPECT_EQ(error_name(Errc::no_such_file), "ENOENT");
    EXPECT_EQ(error_name(Errc::symlink_loop), "ELOOP");
}

#ifdef __GLIBC__
TEST(Errc, MessagesMatchTheHostStrerror) {
    for (Errc e : kAllErrors) EXPECT_EQ(error_message(e), std::strerror(to_errno(e))) << error_name(e);
}
#endif

TEST(Errc, ErrnoRoundTrip) {
    for (Errc e : kAllErrors) EXPECT_EQ(from_errno(to_errno(e)), e) << error_name(e);
    EXPECT_EQ(to_errno(Errc::no_such_file), ENOENT);
    EXPECT_EQ(from_errno(0), Errc::ok);
    EXPECT_EQ(from_errno(ENOTSUP), Errc::not_supported);
    EXPECT_EQ(from_errno(ENXIO), Errc::no_device);
    EXPECT_EQ(from_errno(ENODEV), Errc::io_error);  // no code of its own
    EXPECT_EQ(from_errno(-5), Errc::io_error);
}

TEST(Result, HoldsAValueOrAnError) {
    Result<int> good = 42;
    EXPECT_TRUE(good.ok());
    EXPECT_TRUE(static_cast<bool>(good));
    EXPECT_EQ(good.error(), Errc::ok);
    EXPECT_EQ(*good, 42);
    EXPECT_EQ(good.value_or(7), 42);

    Result<int> bad = Errc::no_such_file;
    EXPECT_FALSE(bad.ok());
    EXPECT_EQ(bad.error(), Errc::no_such_file);
    EXPECT_EQ(bad.value_or(7), 7);

    Result<std::string> s = std::string("abc");
    EXPECT_EQ(s->size(), 3u);
    std::string moved = std::move(s).value();
    EXPECT_EQ(moved, "abc");

    Result<std::unique_ptr<int>> owned = std::make_unique<int>(5);
    std::unique_ptr<int> p = std::move(owned).value();
    EXPECT_EQ(*p, 5);

    Status ok;
    EXPECT_TRUE(ok.ok());
    Status err = Errc::busy;
    EXPECT_FALSE(err);
    EXPECT_EQ(err.error(), Errc::busy);
    Status explicit_ok = Errc::ok;
    EXPECT_TRUE(explicit_ok.ok());
}

TEST(Paths, NormalizeIsLexical) {
    const std::vector<std::pair<std::string, std::string>> table = {
        {"/", "/"},
        {"//", "/"},
        {"///a//b///", "/a/b"},
        {"/a/./b/.", "/a/b"},
        {"/a/b/..", "/a"},
        {"/a/b/../..", "/"},
        {"/..", "/"},
        {"/../../a/../../b", "/b"},
        {"/a/../../../etc/passwd", "/etc/passwd"},
        {"/.a/..b/...", "/.a/..b/..."},
        {"a/b/../c", "a/c"},
        {"a/../..", ".."},
        {"a/../../b", "../b"},
        {"../../x", "../../x"},
        {"./", "."},
        {"", "."},
        {"a//", "a"},
    };
    for (const auto& [in, want] : table) EXPECT_EQ(normalize_path(in), want) << "'" << in << "'";
}

TEST(Paths, Join) {
    EXPECT_EQ(join_path("/home/u", "f"), "/home/u/f");
    EXPECT_EQ(join_path("/home/u/", "f"), "/home/u/f");
    EXPECT_EQ(join_path("/", "f"), "/f");
    EXPECT_EQ(join_path("/home/u", "/etc"), "/etc");
    EXPECT_EQ(join_path("/home/u", "../x"), "/home/u/../x");
    EXPECT_EQ(join_path("/home/u", ""), "/home/u");
    EXPECT_EQ(join_path("", "f"), "f");
}

TEST(Paths, DirnameAndBasenameLikeCoreutils) {
    struct Row {
        const char* path;
        const char* dir;
        const char* base;
    };
    // Checked against dirname(1) and basename(1) of coreutils 9.1.
    const std::vector<Row> rows = {
        {"/a/b", "/a", "b"},     {"/a/b/", "/a", "b"}, {"/a//b//", "/a", "b"}, {"/a", "/", "a"},
        {"/", "/", "/"},         {"///", "/", "/"},    {"a", ".", "a"},        {"a/", ".", "a"},
        {"a/b", "a", "b"},       {"", ".", ""},        {"//a", "/", "a"},      {"//a/b", "//a", "b"},
        {"/a/b/.", "/a/b", "."}, {"..", ".", ".."},
    };
    for (const Row& r : rows) {
        EXPECT_EQ(path_dirname(r.path), r.dir) << r.path;
        EXPECT_EQ(path_basename(r.path), r.base) << r.path;
    }
}

TEST(Paths, Split) {
    EXPECT_EQ(split_path("/a//b/"), (std::vector<std::string_view>{"a", "b"}));
    EXPECT_EQ(split_path("a/./.."), (std::vector<std::string_view>{"a", ".", ".."}));
    EXPECT_TRUE(split_path("///").empty());
    EXPECT_TRUE(split_path("").empty());
}

TEST(Paths, Check) {
    EXPECT_EQ(check_path("/"), Errc::ok);
    EXPECT_EQ(check_path("/a/b"), Errc::ok);
    EXPECT_EQ(check_path(""), Errc::no_such_file);
    EXPECT_EQ(check_path("a"), Errc::invalid_argument);
    EXPECT_EQ(check_path(std::string_view("/a\0b", 4)), Errc::invalid_argument);
    EXPECT_EQ(check_path(std::string("/") + std::string(255, 'x')), Errc::ok);
    EXPECT_EQ(check_path(std::string("/") + std::string(256, 'x')), Errc::name_too_long);
    std::string p;
    while (p.size() < kMaxPathLength - 2) p += "/x";
    EXPECT_EQ(check_path(p), Errc::ok);
    EXPECT_EQ(check_path(p + "/y"), Errc::name_too_long);
    EXPECT_TRUE(is_absolute("/x"));
    EXPECT_FALSE(is_absolute("x"));
    EXPECT_FALSE(is_absolute(""));
}

TEST(Stat, ModeAndTypeNames) {
    Stat s;
    s.type = FileType::directory;
    s.mode = 01755;
    EXPECT_EQ(s.st_mode(), 041755u);
    s.type = FileType::char_device;
    s.mode = 0666;
    EXPECT_EQ(s.st_mode(), 020666u);
    EXPECT_EQ(file_type_name(FileType::regular), "regular file");
    EXPECT_EQ(file_type_name(FileType::directory), "directory");
    EXPECT_EQ(file_type_name(FileType::symlink), "symbolic link");
    EXPECT_EQ(file_type_name(FileType::char_device), "character special file");
    EXPECT_EQ(file_type_name(FileType::fifo), "fifo");
}

TEST(Clocks, SystemClockIsNowAndManualClockMoves) {
    TimeSpec now = SystemClock().now();
    EXPECT_GT(now.sec, 1'600'000'000);
    EXPECT_GE(now.nsec, 0);
    EXPECT_LT(now.nsec, 1'000'000'000);

    ManualClock clock({100, 500'000'000});
    clock.advance(600'000'000);
    EXPECT_EQ(clock.now(), (TimeSpec{101, 100'000'000}));
    clock.advance(-200'000'000);
    EXPECT_EQ(clock.now(), (TimeSpec{100, 900'000'000}));
    clock.set({5, 5});
    EXPECT_EQ(clock.now(), (TimeSpec{5, 5}));
    EXPECT_EQ(clock.now(), (TimeSpec{5, 5}));  // no tick by default
    EXPECT_LT((TimeSpec{5, 5}), (TimeSpec{5, 6}));
    EXPECT_LT((TimeSpec{4, 999'999'999}), (TimeSpec{5, 0}));
}

}  // namespace
}  // namespace bashkit::vfs
