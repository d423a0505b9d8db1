// Scenario tests for the file utilities that the differential table cannot express: hostile input
// (long or deeply nested find expressions, deep trees), cancellation, cross-filesystem moves, read-only
// filesystems, and the resulting tree after a command.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "utils/registry.hpp"
#include "interp/shell.hpp"
#include "vfs/memory_fs.hpp"

namespace {

using namespace bashkit;

struct Env {
    vfs::MemoryFs fs;
    interp::CommandRegistry registry;
    std::unique_ptr<interp::Shell> sh;
    explicit Env(vfs::MemoryFsOptions o = {}) : fs(o) {
        EXPECT_TRUE(fs.mkdir_all("/home/user").ok());
        EXPECT_TRUE(fs.mkdir_all("/tmp").ok());
        utils::register_all(registry);
        interp::ShellOptions opts;
        opts.limits.timeout = std::chrono::seconds(60);
        opts.env = {{"LC_ALL", "C"}};
        sh = std::make_unique<interp::Shell>(fs, registry, opts);
    }
    interp::ExecResult run(const std::string& s) { return sh->run(s); }
};

TEST(FilesScenario, FindLongExpressionStaysFlat) {
    Env e;
    std::string script = "touch a; find a";
    for (int i = 0; i < 100000; ++i) script += " -true";
    script += " -print";
    auto r = e.run(script);
    EXPECT_EQ(r.out, "a\n");
    EXPECT_EQ(r.exit_code, 0);
}

TEST(FilesScenario, FindLongOrChain) {
    Env e;
    std::string script = "touch b; find b";
    for (int i = 0; i < 50000; ++i) script += " -name x" + std::to_string(i) + " -o";
    script += " -name b";
    auto r = e.run(script);
    EXPECT_EQ(r.out, "b\n");
}

TEST(FilesScenario, FindDeepParenthesesAreRefused) {
    Env e;
    std::string script = "find .";
    for (int i = 0; i < 5000; ++i) script += " '('";
    script += " -true";
    for (int i = 0; i < 5000; ++i) script += " ')'";
    auto r = e.run(script);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("find: expression nested too deeply"), std::string::npos) << r.err;
}

TEST(FilesScenario, FindDeepNotChainIsRefused) {
    Env e;
    std::string script = "find .";
    for (int i = 0; i < 5000; ++i) script += " '!'";
    script += " -true";
    auto r = e.run(script);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("find: expression nested too deeply"), std::string::npos) << r.err;
}

TEST(FilesScenario, DeepTreeWalks) {
    Env e;
    std::string path = "/home/user/t";
    for (int i = 0; i < 600; ++i) path += "/d";
    ASSERT_TRUE(e.fs.mkdir_all(path).ok());
    ASSERT_TRUE(e.fs.write_file(path + "/leaf", "x").ok());
    auto r = e.run("find t -name leaf | { read -r p; echo ${#p}; }; du -s t >/dev/null; echo $?; "
                   "ls -R t | { n=0; while read -r l; do ((n++)); done; echo $n; }; "
                   "tree t | { n=0; while read -r l; do ((n++)); done; echo $n; }; "
                   "cp -r t u && rm -r t && chmod -R 700 u && find u -type f");
    std::string leaf_path_len = std::to_string(std::string("t").size() + 600 * 2 + 5);
    EXPECT_EQ(r.out, leaf_path_len + "\n0\n" + std::to_string(601 * 2 + 600) + "\n" + std::to_string(1 + 601 + 2) +
                         "\nu" + std::string(path.substr(std::string("/home/user/t").size())) + "/leaf\n")
        << r.err;
}

// A filesystem whose rename always reports a cross-device link, as a rename across mounts does.
class XdevFs final : public vfs::FileSystem {
public:
    explicit XdevFs(vfs::FileSystem& inner) : in_(inner) {}
    vfs::Result<vfs::Stat> stat(std::string_view p) override { return in_.stat(p); }
    vfs::Result<vfs::Stat> lstat(std::string_view p) override { return in_.lstat(p); }
    vfs::Result<std::unique_ptr<vfs::FileHandle>> open(std::string_view p, vfs::OpenFlags f, vfs::Mode m) override {
        return in_.open(p, f, m);
    }
    vfs::Result<std::vector<vfs::DirEntry>> readdir(std::string_view p) override { return in_.readdir(p); }
    vfs::Status mkdir(std::string_view p, vfs::Mode m) override { return in_.mkdir(p, m); }
    vfs::Status rmdir(std::string_view p) override { return in_.rmdir(p); }
    vfs::Status unlink(std::string_view p) override { return in_.unlink(p); }
    vfs::Status rename(std::string_view, std::string_view) override { return vfs::Errc::cross_device; }
    vfs::Status symlink(std::string_view t, std::string_view l) override { return in_.symlink(t, l); }
    vfs::Result<std::string> readlink(std::string_view p) override { return in_.readlink(p); }
    vfs::Status link(std::string_view a, std::string_view b) override { return in_.link(a, b); }
    vfs::Status chmod(std::string_view p, vfs::Mode m) override { return in_.chmod(p, m); }
    vfs::Status chown(std::string_view p, uint32_t u, uint32_t g) override { return in_.chown(p, u, g); }
    vfs::Status utimes(std::string_view p, vfs::TimeSet a, vfs::TimeSet m, bool f) override {
        return in_.utimes(p, a, m, f);
    }
    vfs::Status truncate(std::string_view p, uint64_t n) override { return in_.truncate(p, n); }
    vfs::Result<std::string> realpath(std::string_view p) override { return in_.realpath(p); }

private:
    vfs::FileSystem& in_;
};

TEST(FilesScenario, MoveAcrossFilesystemsCopiesThenDeletes) {
    vfs::MemoryFs mem;
    ASSERT_TRUE(mem.mkdir_all("/home/user").ok());
    XdevFs fs(mem);
    interp::CommandRegistry registry;
    utils::register_all(registry);
    interp::Shell sh(fs, registry, {});
    auto r = sh.run("mkdir -p s/d; echo hi > s/d/f; ln -s d/f s/l; chmod 700 s/d; touch -d 2020-01-01 s/d/f; "
                    "echo old > t; echo new > n; "
                    "mv s m; echo $?; mv -v n t; echo $?; ls; readlink m/l; stat -c '%a' m/d; stat -c %Y m/d/f; "
                    "echo \"$(<t)\"");
    EXPECT_EQ(r.out, "0\nrenamed 'n' -> 't'\n0\nm\nt\nd/f\n700\n1577836800\nnew\n") << r.err;
}

TEST(FilesScenario, MoveAcrossReadOnlyFails) {
    vfs::MemoryFsOptions o;
    Env e(o);
    ASSERT_TRUE(e.fs.write_file("/home/user/f", "data").ok());
    e.fs.set_read_only(true);
    auto r = e.run("mv f g 2>&1; echo $?; rm f 2>&1; echo $?; touch n 2>&1; echo $?; mkdir d 2>&1; echo $?; "
                   "cp f h 2>&1; echo $?; chmod 600 f 2>&1; echo $?; ln -s f l 2>&1; echo $?");
    EXPECT_EQ(r.out,
              "mv: cannot move 'f' to 'g': Read-only file system\n1\n"
              "rm: cannot remove 'f': Read-only file system\n1\n"
              "touch: cannot touch 'n': Read-only file system\n1\n"
              "mkdir: cannot create directory 'd': Read-only file system\n1\n"
              "cp: cannot create regular file 'h': Read-only file system\n1\n"
              "chmod: changing permissions of 'f': Read-only file system\n1\n"
              "ln: failed to create symbolic link 'l': Read-only file system\n1\n");
}

TEST(FilesScenario, CopyTreeResult) {
    Env e;
    auto r = e.run("mkdir -p s/a/b; echo one > s/a/f; ln -s a/f s/l; chmod 750 s/a; touch -d 2020-01-01 s/a/f; "
                   "cp -a s t; echo $?");
    EXPECT_EQ(r.out, "0\n");
    auto st = e.fs.stat("/home/user/t/a");
    ASSERT_TRUE(st.ok());
    EXPECT_EQ(st->mode, 0750u);
    auto f = e.fs.read_file("/home/user/t/a/f");
    ASSERT_TRUE(f.ok());
    EXPECT_EQ(*f, "one\n");
    auto fst = e.fs.stat("/home/user/t/a/f");
    ASSERT_TRUE(fst.ok());
    EXPECT_EQ(fst->mtime.sec, 1577836800);
    auto l = e.fs.readlink("/home/user/t/l");
    ASSERT_TRUE(l.ok());
    EXPECT_EQ(*l, "a/f");
    EXPECT_TRUE(e.fs.is_directory("/home/user/t/a/b"));
}

TEST(FilesScenario, HelpForEveryCommand) {
    Env e;
    for (const char* c : {"ls", "cp", "mv", "rm", "rmdir", "mkdir", "touch", "ln", "stat", "find", "du", "df",
                          "chmod", "realpath", "readlink", "basename", "dirname", "mktemp", "tree", "file"}) {
        auto r = e.run(std::string(c) + " --help");
        EXPECT_EQ(r.exit_code, 0) << c;
        EXPECT_FALSE(r.out.empty()) << c;
        EXPECT_TRUE(r.out.find("sage") != std::string::npos) << c << ": " << r.out;
    }
}

TEST(FilesScenario, LsLongRecentDateShowsTime) {
    Env e;
    // A file modified now shows "Mon dd HH:MM"; one from the far past shows the year.
    auto r = e.run("touch new; touch -d 2001-02-03 old; ls -go | { read; read -r m n s mon d t name; "
                   "[[ $t == [0-2][0-9]:[0-5][0-9] ]] && echo time $name; read -r m n s mon d y name; echo $y $name; }");
    EXPECT_EQ(r.out, "time new\n2001 old\n") << r.err;
}

}  // namespace
