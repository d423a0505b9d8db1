// The FileSystem conformance suite: the executable specification of vfs/filesystem.hpp.
//
// A value-parameterised GoogleTest suite whose tests are compiled once (conformance_test.cpp). To run it over
// an implementation, write a factory type and instantiate the suite in one *_test.cpp of the vfs_tests binary:
//
//   struct MemoryFsFactory {
//       static std::unique_ptr<bashkit::vfs::FileSystem> make() { return std::make_unique<MemoryFs>(); }
//       static constexpr bool kHardLinks = true;   // link() works (otherwise it must return not_permitted)
//   };
//   BASHKIT_FS_CONFORMANCE(MemoryFs, conformance::factory<MemoryFsFactory>("Plain"));
//
// make() returns a fresh, empty filesystem whose root directory is writable and whose clock reads the
// present (some tests compare "now" with fixed dates of the 2000s); every test (and every row of a table
// test) calls it anew. The expectations follow Linux (each error row was checked against real
// syscalls on ext4), so a HostFs must pass unchanged. Nothing here assumes a particular clock, owner,
// inode numbering or directory size.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "vfs/filesystem.hpp"

namespace bashkit::vfs {

// Lets gtest print Errc as "ENOENT" in failure messages.
inline void PrintTo(Errc e, std::ostream* os) { *os << error_name(e); }

namespace conformance {

#define BK_ASSERT_OK(expr)                                                                   \
    do {                                                                                     \
        auto&& bk_result_ = (expr);                                                          \
        ASSERT_TRUE(bk_result_.ok()) << #expr << " failed: " << error_name(bk_result_.error()); \
    } while (0)

#define BK_EXPECT_OK(expr)                                                                   \
    do {                                                                                     \
        auto&& bk_result_ = (expr);                                                          \
        EXPECT_TRUE(bk_result_.ok()) << #expr << " failed: " << error_name(bk_result_.error()); \
    } while (0)

#define BK_EXPECT_ERR(expr, code) EXPECT_EQ((expr).error(), (code)) << #expr

// One row of an error table: an operation on the standard tree and the error it must give (Errc::ok for
// success).
struct ErrorCase {
    const char* what;
    std::function<Errc(FileSystem&)> op;
    Errc expected;
};
#define BK_CASE(expr, code) \
    ::bashkit::vfs::conformance::ErrorCase { #expr, [](::bashkit::vfs::FileSystem& fs) { return (expr).error(); }, code }

// The standard tree most table tests start from:
//   /d/          directory      /d/in "in"   /d/sub/ (empty directory)
//   /e/          empty directory
//   /f "f"       /g "g"         regular files
//   /ld -> d     /lf -> f       /dang -> nowhere (dangling)
//   /loop1 -> loop2   /loop2 -> loop1
inline void build_standard_tree(FileSystem& fs) {
    BK_ASSERT_OK(fs.mkdir("/d"));
    BK_ASSERT_OK(fs.mkdir("/d/sub"));
    BK_ASSERT_OK(fs.write_file("/d/in", "in"));
    BK_ASSERT_OK(fs.mkdir("/e"));
    BK_ASSERT_OK(fs.write_file("/f", "f"));
    BK_ASSERT_OK(fs.write_file("/g", "g"));
    BK_ASSERT_OK(fs.symlink("d", "/ld"));
    BK_ASSERT_OK(fs.symlink("f", "/lf"));
    BK_ASSERT_OK(fs.symlink("nowhere", "/dang"));
    BK_ASSERT_OK(fs.symlink("loop2", "/loop1"));
    BK_ASSERT_OK(fs.symlink("loop1", "/loop2"));
}

// What a path is: "missing", "dir", "file:<content>" or "link:<target>".
inline std::string describe(FileSystem& fs, const std::string& path) {
    auto st = fs.lstat(path);
    if (!st) return st.error() == Errc::no_such_file ? "missing" : std::string(error_name(st.error()));
    if (st->is_directory()) return "dir";
    if (st->is_symlink()) {
        auto target = fs.readlink(path);
        return "link:" + (target ? *target : std::string(error_name(target.error())));
    }
    auto content = fs.read_file(path);
    return "file:" + (content ? *content : std::string(error_name(content.error())));
}

inline std::vector<std::string> sorted_names(const std::vector<DirEntry>& entries) {
    std::vector<std::string> names;
    for (const DirEntry& e : entries) names.push_back(e.name);
    std::sort(names.begin(), names.end());
    return names;
}

// A timestamp well in the past, to see that an operation moves a time forward without sleeping.
inline constexpr TimeSpec kOldTime{1'000'000'000, 0};

}  // namespace conformance

// One implementation under test: a name (letters, digits and _ only; it names the gtest instantiation), a
// factory, whether hard links work (link() must otherwise return not_permitted) and whether chmod keeps the
// setuid, setgid and sticky bits (a host-backed tree masks them off: see vfs/host_fs.hpp).
struct FsFactory {
    std::string name;
    std::function<std::unique_ptr<FileSystem>()> make;
    bool hard_links = true;
    bool special_mode_bits = true;
};
inline void PrintTo(const FsFactory& f, std::ostream* os) { *os << f.name; }

namespace conformance {
// FsFactory from a factory type with a static make(), kHardLinks and optionally kSpecialModeBits.
template <class Factory>
FsFactory factory(std::string name) {
    bool special = true;
    if constexpr (requires { Factory::kSpecialModeBits; }) special = Factory::kSpecialModeBits;
    return FsFactory{std::move(name), [] { return std::unique_ptr<FileSystem>(Factory::make()); }, Factory::kHardLinks,
                     special};
}
inline std::string factory_name(const ::testing::TestParamInfo<FsFactory>& info) { return info.param.name; }
}  // namespace conformance

// The tests are compiled once, in conformance_test.cpp; each *_test.cpp only instantiates them.
class FileSystemConformance : public ::testing::TestWithParam<FsFactory> {
protected:
    void SetUp() override {
        fs_ = GetParam().make();
        ASSERT_NE(fs_, nullptr);
    }
    FileSystem& fs() { return *fs_; }

    // Runs each row on a fresh filesystem holding the standard tree.
    void run_cases(const std::vector<conformance::ErrorCase>& cases) {
        for (const auto& c : cases) {
            auto fresh = GetParam().make();
            conformance::build_standard_tree(*fresh);
            if (::testing::Test::HasFatalFailure()) return;
            EXPECT_EQ(c.op(*fresh), c.expected) << c.what;
        }
    }

    std::unique_ptr<FileSystem> fs_;
};

// Runs the suite over the given factories: BASHKIT_FS_CONFORMANCE(MemoryFs, conformance::factory<F>("Memory"));
#define BASHKIT_FS_CONFORMANCE(prefix, ...)                                                        \
    INSTANTIATE_TEST_SUITE_P(prefix, FileSystemConformance, ::testing::Values(__VA_ARGS__), \
                             ::bashkit::vfs::conformance::factory_name)

}  // namespace bashkit::vfs
