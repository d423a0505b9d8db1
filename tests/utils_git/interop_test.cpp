// The on-disk format is the contract: repositories written by bashkit's git over a HostFs folder are checked
// by the real git (fsck clean, same log, status, diff), and repositories written by the real git (loose
// objects, then packs with deltas and packed-refs after gc) are read by ours with the same output. Hostile
// repositories (bad zlib, lying sizes, `..` and `.git` in trees, a corrupt index, delta loops) end in a
// git-like "fatal:" with status 128.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "utils/registry.hpp"
#include "tests/common/host_run.hpp"
#include "interp/shell.hpp"
#include "vfs/host_fs.hpp"

namespace {

namespace fs = std::filesystem;

const char* kEnv =
    "GIT_AUTHOR_NAME='A U Thor' GIT_AUTHOR_EMAIL=author@example.com GIT_COMMITTER_NAME='A U Thor' "
    "GIT_COMMITTER_EMAIL=author@example.com GIT_AUTHOR_DATE='@1700000000 +0000' "
    "GIT_COMMITTER_DATE='@1700000000 +0000' GIT_CONFIG_NOSYSTEM=1 LC_ALL=C TZ=UTC";

bool have_git() { return std::system("git --version >/dev/null 2>&1") == 0; }

struct Out {
    std::string out, err;
    int status = -1;
};

class TempDir {
public:
    TempDir() {
        std::string t = (fs::temp_directory_path() / "bashkit-git-XXXXXX").string();
        char* p = mkdtemp(t.data());
        path_ = p ? p : "";
        fs::create_directories(path_ + "/home");
        fs::create_directories(path_ + "/repo");
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

// Runs a script with bashkit over the folder (its /), in /repo, HOME=/home.
Out bashkit(const TempDir& d, const std::string& script, size_t memory = 0, int timeout_s = 60) {
    auto host = bashkit::vfs::HostFs::open(d.path());
    EXPECT_TRUE(host.ok());
    if (!host) return {};
    bashkit::interp::CommandRegistry registry;
    bashkit::utils::register_all(registry);
    bashkit::interp::ShellOptions o;
    o.cwd = "/repo";
    o.env = {{"HOME", "/home"},
             {"GIT_AUTHOR_NAME", "A U Thor"},
             {"GIT_AUTHOR_EMAIL", "author@example.com"},
             {"GIT_COMMITTER_NAME", "A U Thor"},
             {"GIT_COMMITTER_EMAIL", "author@example.com"},
             {"GIT_AUTHOR_DATE", "@1700000000 +0000"},
             {"GIT_COMMITTER_DATE", "@1700000000 +0000"},
             {"LC_ALL", "C"},
             {"TZ", "UTC"}};
    o.limits.timeout = std::chrono::seconds(timeout_s);
    if (memory) o.limits.max_memory_bytes = memory;
    bashkit::interp::Shell sh(**host, registry, o);
    auto r = sh.run(script, "");
    auto fin = sh.close();
    return {r.out + fin.out, r.err + fin.err, fin.exit_code};
}

// Runs a script with the host's bash and git in the folder's /repo.
Out real(const TempDir& d, const std::string& script) {
    using bashkit::testing::shell_quote;
    bashkit::testing::HostRun r = bashkit::testing::run_host_split(
        "cd " + shell_quote(d.path() + "/repo") + " && env -i PATH=/usr/bin:/bin HOME=" +
        shell_quote(d.path() + "/home") + " " + kEnv + " bash -c " + shell_quote(script));
    Out o;
    o.out = std::move(r.out);
    o.err = std::move(r.err);
    o.status = r.status;
    return o;
}

// The same read-only commands, by both, must print the same.
void expect_same(const TempDir& d, const std::string& script) {
    Out a = bashkit(d, script), b = real(d, script);
    EXPECT_GT(b.out.size(), 40u) << "the real side printed (almost) nothing: " << b.err;
    EXPECT_EQ(a.out, b.out) << script << "\n--- bashkit stderr\n" << a.err << "--- git stderr\n" << b.err;
    EXPECT_EQ(a.status, b.status) << script << "\n" << a.err;
}

const char* kHistory =
    "git init -q && mkdir -p src/deep && printf 'int main() {\\n  return 0;\\n}\\n' > src/main.c && "
    "echo doc > README && echo deep > src/deep/x && printf '#!/bin/sh\\necho hi\\n' > run.sh && chmod +x run.sh && "
    "ln -s README link && git add . && git commit -q -m initial && "
    "printf 'int main() {\\n  return 1;\\n}\\n' > src/main.c && git rm -q src/deep/x && echo new > NEW && git add -A && "
    "git commit -q -m second && git branch side && git tag v1 && git tag -a v2 -m 'annotated tag' && "
    "git checkout -q side && echo side > side.txt && git add side.txt && git commit -q -m 'on side' && "
    "git checkout -q master && git merge -q side && echo tail >> README";

const char* kCompare =
    "git log --format='%H %T %P %an %s'; git status; git status --porcelain; git diff; git diff HEAD~2 HEAD; "
    "git ls-files -s; git cat-file -p HEAD; git cat-file -p v2; git show HEAD~1; git rev-parse v1 v2 side";

TEST(GitInterop, BashkitWritesRealGitReads) {
    if (!have_git()) GTEST_SKIP() << "no git on this machine";
    TempDir d;
    Out w = bashkit(d, kHistory);
    ASSERT_EQ(w.status, 0) << w.err;
    Out fsck = real(d, "git fsck --strict --no-dangling 2>&1; echo \"fsck $?\"");
    EXPECT_EQ(fsck.out, "fsck 0\n") << fsck.err;
    expect_same(d, kCompare);
    // The index written by bashkit reads as clean after real git refreshes it, and the reflog exists.
    Out st = real(d, "git status --porcelain; git reflog -1 --format=%gs master");
    EXPECT_EQ(st.out, " M README\nmerge side: Fast-forward\n");
}

TEST(GitInterop, RealGitWritesBashkitReads) {
    if (!have_git()) GTEST_SKIP() << "no git on this machine";
    TempDir d;
    Out w = real(d, kHistory);
    ASSERT_EQ(w.status, 0) << w.err;
    expect_same(d, kCompare);
    // staged and unstaged changes made by real git
    real(d, "echo staged > NEW && git add NEW && echo more >> NEW && rm side.txt && echo u > untracked");
    expect_same(d, "git status; git status -s; git diff; git diff --cached; git diff --stat");
}

// The real git's index carries a cache-tree (the trees of its directories); bashkit's status skips the
// directories whose tree is HEAD's and must still see every staged change, rename and conflict-free
// deletion elsewhere, and a cache-tree the real git invalidated.
TEST(GitInterop, StatusOverTheRealGitsCacheTree) {
    if (!have_git()) GTEST_SKIP() << "no git on this machine";
    TempDir d;
    Out w = real(d,
                 "git init -q && mkdir -p a/b a/c d/e && for f in a/1 a/b/2 a/b/3 a/c/4 d/e/5 d/6 top; do "
                 "seq 1 40 | sed \"s|^|$f |\" > $f; done && git add . && git commit -q -m one && "
                 "grep -q TREE .git/index");
    ASSERT_EQ(w.status, 0) << w.err;
    // Nothing changed: every directory's tree is HEAD's.
    expect_same(d, "git status; git status -s");
    real(d, "echo x >> a/b/2");
    expect_same(d, "git status; git status -s");
    // Staged in one directory (its cache-tree entries up to the top invalidated), a staged rename in
    // another, a staged deletion, an unstaged change under a still-valid directory, an untracked file.
    real(d, "git checkout -q -- a/b/2 && echo more >> a/b/3 && git add a/b/3 && git mv d/e/5 d/e/five && "
            "git rm -q a/c/4 && echo local >> d/6 && echo new > a/new");
    expect_same(d, "git status; git status -s; git status --porcelain -uall");
    // A commit by the real git makes the cache-tree whole again; then a staged change in a deep directory.
    real(d, "git add -A && git commit -q -m two && echo deep >> a/b/2 && git add a/b/2");
    expect_same(d, "git status; git status -s");
}

TEST(GitInterop, PacksAndDeltasFromGc) {
    if (!have_git()) GTEST_SKIP() << "no git on this machine";
    TempDir d;
    // A file that changes a little in every commit gives the packer deltas to make.
    std::string script = "git init -q && seq 1 2000 > big && git add big && git commit -q -m c0";
    for (int i = 1; i <= 12; ++i)
        script += " && sed -i 's/^" + std::to_string(i * 100) + "$/changed" + std::to_string(i) +
                  "/' big && git commit -q -am c" + std::to_string(i);
    script += " && git tag v1 && git tag -a v2 -m t && git gc -q --aggressive && git count-objects -v | grep -E '^(count|in-pack):'";
    Out w = real(d, script);
    ASSERT_EQ(w.status, 0) << w.err;
    EXPECT_EQ(w.out.substr(0, 9), "count: 0\n") << w.out;  // everything is packed
    ASSERT_TRUE(fs::exists(d.path() + "/repo/.git/packed-refs"));
    Out deltas = real(d, "git verify-pack -v .git/objects/pack/*.idx | grep -c 'chain length'");
    EXPECT_NE(deltas.out, "0\n") << "the pack should hold deltas";
    expect_same(d, "git log --oneline; git log -p -3; git show v2; git status; git rev-parse v1 v2^{} HEAD~5:big");
    // bashkit commits on top of a packed repository; real git checks the result.
    Out c = bashkit(d, "echo more >> big && git commit -q -am on-top && git log --oneline -2");
    EXPECT_EQ(c.status, 0) << c.err;
    Out fsck = real(d, "git fsck --strict --no-dangling 2>&1; echo \"fsck $?\"; git log --oneline -2");
    EXPECT_EQ(fsck.out, "fsck 0\n" + c.out);
}

// Writes a raw loose object file (already deflated by python's zlib) for hostile cases.
void py(const TempDir& d, const std::string& code) {
    std::string cmd = "cd '" + d.path() + "/repo' && python3 -c '" + code + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << code;
}

const char* kPyObj =
    "import zlib,hashlib,os,sys\n"
    "def obj(kind, body, raw=None):\n"
    "    data = raw if raw is not None else kind.encode() + b\" \" + str(len(body)).encode() + b\"\\0\" + body\n"
    "    h = hashlib.sha1(data).hexdigest()\n"
    "    os.makedirs(\".git/objects/\" + h[:2], exist_ok=True)\n"
    "    open(\".git/objects/\" + h[:2] + \"/\" + h[2:], \"wb\").write(zlib.compress(data))\n"
    "    return h\n"
    "def commit(tree):\n"
    "    return obj(\"commit\", (\"tree \" + tree + \"\\nauthor A <a@b> 1 +0000\\ncommitter A <a@b> 1 +0000\\n\\nx\\n\").encode())\n"
    "blob = obj(\"blob\", b\"evil\\n\")\n";

TEST(GitHostile, BadZlibAndLyingSizes) {
    TempDir d;
    ASSERT_EQ(bashkit(d, "git init -q").status, 0);
    py(d, std::string(kPyObj) +
              "os.makedirs(\".git/objects/aa\", exist_ok=True)\n"
              "open(\".git/objects/aa/\" + \"b\"*38, \"wb\").write(b\"not zlib at all\")\n"
              "h = hashlib.sha1(b\"x\").hexdigest()\n"
              "os.makedirs(\".git/objects/\" + h[:2], exist_ok=True)\n"
              "open(\".git/objects/\" + h[:2] + \"/\" + h[2:], \"wb\").write(zlib.compress(b\"blob 99999999999\\0abc\"))\n"
              "open(\"lying\", \"w\").write(h)\n");
    Out a = bashkit(d, "git cat-file -p aa" + std::string(38, 'b'));
    EXPECT_EQ(a.status, 128);
    EXPECT_EQ(a.err.substr(0, 7), "fatal: ") << a.err;
    Out b = bashkit(d, "git cat-file -p $(cat lying)");
    EXPECT_EQ(b.status, 128);
    EXPECT_EQ(b.err.substr(0, 7), "fatal: ") << b.err;
}

TEST(GitHostile, DotDotAndDotGitInTrees) {
    TempDir d;
    ASSERT_EQ(bashkit(d, "git init -q").status, 0);
    py(d, std::string(kPyObj) +
              "for name in [b\"..\", b\".git\", b\".GIT\", b\"git~1\"]:\n"
              "    t = obj(\"tree\", b\"100644 \" + name + b\"\\0\" + bytes.fromhex(blob))\n"
              "    sub = obj(\"tree\", b\"40000 \" + name + b\"\\0\" + bytes.fromhex(t))\n"
              "    c = commit(sub)\n"
              "    open(\".git/refs/heads/evil-\" + name.decode().replace(\".\", \"dot\").replace(\"~\", \"t\"), \"w\").write(c + \"\\n\")\n");
    for (const char* b : {"evil-dotdot", "evil-dotgit", "evil-dotGIT", "evil-git~1"}) {
        std::string br = b;
        for (auto& c : br)
            if (c == '~') c = 't';
        Out o = bashkit(d, "git checkout " + br);
        EXPECT_EQ(o.status, 128) << br << ": " << o.err;
        EXPECT_EQ(o.err.substr(0, 7), "fatal: ") << o.err;
        Out l = bashkit(d, "git log -p " + br);
        EXPECT_EQ(l.status, 128) << br << ": " << l.err;
    }
    EXPECT_FALSE(fs::exists(d.path() + "/evil")) << "nothing may be written above the work tree";
    EXPECT_FALSE(fs::exists(d.path() + "/repo/.git/evil"));
}

TEST(GitHostile, CorruptIndexAndSelfDelta) {
    TempDir d;
    ASSERT_EQ(bashkit(d, "git init -q && echo a > a && git add a && git commit -q -m one").status, 0);
    py(d, "d = open(\".git/index\", \"rb\").read(); open(\".git/index\", \"wb\").write(d[:40])");
    Out s = bashkit(d, "git status");
    EXPECT_EQ(s.status, 128);
    EXPECT_EQ(s.err.substr(0, 7), "fatal: ") << s.err;
    // A pack whose only object is a REF_DELTA against itself: a delta loop.
    py(d,
       "import zlib,hashlib,struct,os\n"
       "oid = bytes.fromhex(\"11\"*20)\n"
       "delta = bytes([5, 5, 0x90, 5])\n"
       "body = zlib.compress(delta)\n"
       "hdr = bytes([0x70 | len(delta)])\n"
       "pack = b\"PACK\" + struct.pack(\">II\", 2, 1) + hdr + oid + body\n"
       "pack += hashlib.sha1(pack).digest()\n"
       "idx = b\"\\377tOc\" + struct.pack(\">I\", 2)\n"
       "idx += b\"\".join(struct.pack(\">I\", 0 if i < 0x11 else 1) for i in range(256))\n"
       "idx += oid + struct.pack(\">I\", 0) + struct.pack(\">I\", 12)\n"
       "idx += hashlib.sha1(pack).digest()\n"
       "idx += hashlib.sha1(idx).digest()\n"
       "open(\".git/objects/pack/pack-loop.pack\", \"wb\").write(pack)\n"
       "open(\".git/objects/pack/pack-loop.idx\", \"wb\").write(idx)\n");
    Out l = bashkit(d, "git cat-file -p " + std::string(40, '1').replace(0, 40, std::string(20, '1') + std::string(20, '1')));
    EXPECT_EQ(l.status, 128) << l.err;
    EXPECT_EQ(l.err.substr(0, 7), "fatal: ") << l.err;
}

TEST(GitHostile, ZipBombObjectStopsAtTheMemoryBudget) {
    TempDir d;
    ASSERT_EQ(bashkit(d, "git init -q").status, 0);
    // 32 MiB of zeros deflates to ~32 KiB: inflating it must be charged to the session's budget.
    py(d, std::string(kPyObj) + "h = obj(\"blob\", bytes(32 << 20))\nopen(\"bomb\", \"w\").write(h)\n");
    Out o = bashkit(d, "git cat-file -s $(cat bomb); git cat-file -p $(cat bomb) | wc -c", 8u << 20);
    EXPECT_NE(o.err.find("memory limit exceeded"), std::string::npos) << o.err;
    Out fine = bashkit(d, "git cat-file -s $(cat bomb)", 512u << 20);
    EXPECT_EQ(fine.out, "33554432\n") << fine.err;
}

TEST(GitContain, EndlessInputStopsAtTheTimeout) {
    TempDir d;
    // hash-object --stdin reads until EOF: the session's timeout (its cancel token) must end it.
    auto start = std::chrono::steady_clock::now();
    Out o = bashkit(d, "yes | git hash-object --stdin", 0, 1);
    auto secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_TRUE(o.status == 124 || o.err.find("memory limit exceeded") != std::string::npos) << o.status << " " << o.err;
    EXPECT_LT(secs, 10.0);
}

}  // namespace
