// The bashkit command as a user runs it: the built binary started with posix_spawn, its file system flags
// (--root, --mount, --overlay, --cwd, --session/--instance, --ephemeral), their errors, and --host.
// Host folders are temporary directories under /tmp, removed at the end of each test.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "tests/common/asan_notice.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;

struct Result {
    int status = -1;
    std::string out;
    std::string err;
};

struct Options {
    std::string in;                    // stdin
    std::vector<std::string> env;      // NAME=VALUE added to (or replacing in) the test's environment
    std::string cwd;                   // the working directory of bashkit; empty: the test's
};

Options stdin_is(std::string in) {
    Options o;
    o.in = std::move(in);
    return o;
}
Options env_is(std::vector<std::string> env) {
    Options o;
    o.env = std::move(env);
    return o;
}
Options cwd_is(std::string cwd) {
    Options o;
    o.cwd = std::move(cwd);
    return o;
}

// Runs a program with args; collects stdout, stderr and the exit status (128+N for a signal).
Result run_program(const std::string& program, const std::vector<std::string>& args, const Options& o) {
    std::vector<std::string> argv_s{program};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);

    std::vector<std::string> env_s;
    for (char** e = environ; *e; ++e) {
        std::string kv = *e;
        bool replaced = false;
        for (const auto& x : o.env)
            if (kv.substr(0, kv.find('=') + 1) == x.substr(0, x.find('=') + 1)) replaced = true;
        if (!replaced) env_s.push_back(kv);
    }
    env_s.insert(env_s.end(), o.env.begin(), o.env.end());
    std::vector<char*> envp;
    for (auto& e : env_s) envp.push_back(e.data());
    envp.push_back(nullptr);

    int in[2], out[2], err[2];
    EXPECT_EQ(::pipe2(in, O_CLOEXEC), 0);
    EXPECT_EQ(::pipe2(out, O_CLOEXEC), 0);
    EXPECT_EQ(::pipe2(err, O_CLOEXEC), 0);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err[1], 2);
    if (!o.cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, o.cwd.c_str());
    pid_t pid = -1;
    int rc = ::posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&fa);
    ::close(in[0]);
    ::close(out[1]);
    ::close(err[1]);
    Result r;
    if (rc != 0) {
        ADD_FAILURE() << "posix_spawn " << argv[0] << ": " << std::strerror(rc);
        ::close(in[1]);
        ::close(out[0]);
        ::close(err[0]);
        return r;
    }
    std::thread writer([fd = in[1], data = o.in] {
        size_t done = 0;
        while (done < data.size()) {
            ssize_t n = ::write(fd, data.data() + done, data.size() - done);
            if (n <= 0) break;
            done += size_t(n);
        }
        ::close(fd);
    });
    pollfd p[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
    std::string* dest[2] = {&r.out, &r.err};
    int open = 2;
    while (open > 0) {
        if (::poll(p, 2, 30000) <= 0) {
            ADD_FAILURE() << "bashkit did not finish in 30 s";
            ::kill(pid, SIGKILL);
            break;
        }
        for (int i = 0; i < 2; ++i) {
            if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            char buf[4096];
            ssize_t n = ::read(p[i].fd, buf, sizeof buf);
            if (n > 0) {
                dest[i]->append(buf, size_t(n));
            } else {
                ::close(p[i].fd);
                p[i].fd = -1;
                --open;
            }
        }
    }
    for (auto& x : p)
        if (x.fd >= 0) ::close(x.fd);
    writer.join();
    int st = 0;
    ::waitpid(pid, &st, 0);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    bashkit::testing::strip_asan_fiber_notice(r.err);
    return r;
}

// Runs the bashkit binary.
Result run(const std::vector<std::string>& args, const Options& o = {}) { return run_program(BASHKIT_CLI, args, o); }

Result sh(const std::vector<std::string>& flags, const std::string& script, const Options& o = {}) {
    std::vector<std::string> args = flags;
    args.push_back("-c");
    args.push_back(script);
    return run(args, o);
}

// A fresh directory under /tmp, removed with everything in it at the end of the test.
struct TempDir {
    fs::path path;
    TempDir() {
        std::string tmpl = "/tmp/bashkit-cli-test-XXXXXX";
        char* p = ::mkdtemp(tmpl.data());
        EXPECT_NE(p, nullptr);
        path = p ? p : "/tmp/bashkit-cli-test-failed";
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    std::string str() const { return path.string(); }
    std::string operator/(const std::string& rel) const { return (path / rel).string(); }
};

void write(const std::string& path, const std::string& data) {
    fs::create_directories(fs::path(path).parent_path());
    std::ofstream(path, std::ios::binary) << data;
}

std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Every entry below dir, as sorted relative paths.
std::vector<std::string> tree(const fs::path& dir) {
    std::vector<std::string> out;
    for (auto& e : fs::recursive_directory_iterator(dir)) out.push_back(fs::relative(e.path(), dir).string());
    std::sort(out.begin(), out.end());
    return out;
}

using Strings = std::vector<std::string>;

// ---------------------------------------------------------------------------------------------- default

// One version number, in the repository's VERSION file; `bashkit --version` reports it.
TEST(CliDefault, VersionIsTheVersionFile) {
    std::string v = read(BASHKIT_VERSION_FILE);
    while (!v.empty() && (v.back() == '\n' || v.back() == ' ')) v.pop_back();
    ASSERT_FALSE(v.empty());
    Result r = run({"--version"});
    EXPECT_EQ(r.status, 0);
    EXPECT_EQ(r.out, "bashkit " + v + "\n");
}

TEST(CliDefault, InMemoryLayout) {
    TempDir t;
    Result r = sh({}, "pwd; echo $HOME; ls /; echo x > f; cat f", env_is({"TMPDIR=" + t.str()}));
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "/workspace\n/home/user\nhome\ntmp\nworkspace\nx\n");
    EXPECT_TRUE(tree(t.path).empty());
}

// Start-up loads no heavy library: libcurl, libarchive and libcrypto (with their dozens of
// dependencies) are opened by the first command that needs them (base/lazy_library.hpp). The dynamic
// loader's own trace (LD_DEBUG=libs) shows which libraries a run initialises.
TEST(CliStartup, HeavyLibrariesLoadOnFirstUse) {
    // (jq is bashkit's own: no libjq at all.)
    const std::vector<std::string> heavy = {"libcurl.so", "libarchive.so", "libcrypto.so", "libonig.so",
                                            "libpcre2-8.so"};
    auto loaded = [](const std::string& trace, const std::string& lib) {
        return trace.find("calling init: ") != std::string::npos &&
               trace.find(lib, trace.find("calling init: ")) != std::string::npos;
    };
    Result plain = sh({}, "echo hi | grep -c h", env_is({"LD_DEBUG=libs"}));
    EXPECT_EQ(plain.out, "1\n");
    for (const auto& lib : heavy) EXPECT_FALSE(loaded(plain.err, lib)) << lib << " loaded at start-up";
#if BASHKIT_STATIC_PROGRAMS
    // The program carries its C++ runtime and RE2 (BASHKIT_STATIC_PROGRAMS): the regex search above loaded
    // neither libstdc++ nor libre2, and fmt is header-only.
    for (const std::string lib : {"libstdc++.so", "libre2.so", "libfmt.so"})
        EXPECT_FALSE(loaded(plain.err, lib)) << lib << " loaded at start-up";
#endif

    Result used = sh({}, "echo '{\"a\":1}' | jq -c .a; echo x | sha256sum; mkdir d; tar -cf t.tar d; "
                         "curl -s http://example.com/; echo $?; jq -rn '\"ab\" | test(\"b$\")'; echo ab | grep -cP 'b$'",
                     env_is({"LD_DEBUG=libs"}));
    EXPECT_EQ(used.out, "1\n" "73cb3858a687a8494ca3323053016282f3dad39d42cf62ca4e79dda2aac7d9ac  -\n7\ntrue\n1\n");
    for (const auto& lib : heavy) EXPECT_TRUE(loaded(used.err, lib)) << lib << " not loaded by the command using it";
}

TEST(CliDefault, NoHostProgramsInTheSandbox) {
    // Host binaries are unreachable by path or by PATH lookup; only registered utilities run (also by the
    // /usr/bin or /bin path `which` reports for them).
    Result r = sh({}, "/usr/bin/gcc --version; echo $?; gcc --version; echo $?; /usr/bin/env true; echo $?");
    EXPECT_EQ(r.out, "127\n127\n0\n");
    EXPECT_NE(r.err.find("/usr/bin/gcc: No such file or directory"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("gcc: command not found"), std::string::npos) << r.err;
}

TEST(CliDefault, DashCMessagesAreNamedByDollarZero) {
    // bash -c CMD NAME names its messages NAME, a function defined by -c "environment"; without NAME, bashkit.
    Result r = run({"-c", "nosuch_q; f() { nosuch_q; }; f; if", "myname"});
    EXPECT_EQ(r.err, "myname: -c: line 2: syntax error: unexpected end of file\n") << r.err;  // as bash
    r = run({"-c", "nosuch_q\nf() { nosuch_q; }; f\n[[ x < (a) ]]", "myname"});
    EXPECT_EQ(r.err,
              "myname: line 1: nosuch_q: command not found\n"
              "environment: line 2: nosuch_q: command not found\n"
              "myname: -c: line 3: unexpected argument `(' to conditional binary operator\n");
    EXPECT_EQ(r.status, 127);  // an error inside [[ ]] leaves $? as it was
    r = run({"-c", "nosuch_q"});
    EXPECT_EQ(r.err, "bashkit: line 1: nosuch_q: command not found\n");
}

TEST(CliDefault, NamedAsStarted) {
    // Like bash, the shell is named as it was started (here a link named bash; without the directory): $0
    // and the messages of -c without NAME and of a script read from stdin.
    TempDir dir;
    fs::create_symlink(fs::absolute(BASHKIT_CLI), dir.path / "bash");
    Result r = run_program(dir / "bash", {"-c", "echo $0; echo ${x[-1]}; echo after"}, {});
    EXPECT_EQ(r.out, "bash\n\nafter\n");
    EXPECT_EQ(r.err.rfind("bash: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find("x: bad array subscript\n"), std::string::npos) << r.err;
    r = run_program(dir / "bash", {}, stdin_is("echo $0\n(\n"));
    EXPECT_EQ(r.out, "bash\n");
    EXPECT_EQ(r.err.rfind("bash: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find("syntax error: unexpected end of file\n"), std::string::npos) << r.err;
}

// A backslash that ends the input: bash reading its script from a file or stdin takes it for a line
// continuation (it goes away); in a -c string it stands for itself. Checked against /bin/bash in each mode.
TEST(CliDefault, BackslashAtTheEndOfTheInputAsBashReadsIt) {
    if (!fs::exists("/bin/bash")) GTEST_SKIP() << "no /bin/bash";
    TempDir dir;
    for (const std::string script : {"echo a\\", "echo a \\", "echo a\\\\", "x=1\\", "echo \"$x\"\\", "echo ${x:-b}\\"}) {
        write(dir / "s.sh", script);
        Result want = run_program("/bin/bash", {dir / "s.sh"}, {});
        Result got = run({dir / "s.sh"});
        EXPECT_EQ(got.out, want.out) << "file: " << script;
        EXPECT_EQ(got.status, want.status) << "file: " << script;
        want = run_program("/bin/bash", {}, stdin_is(script));
        got = run({}, stdin_is(script));
        EXPECT_EQ(got.out, want.out) << "stdin: " << script;
        want = run_program("/bin/bash", {"-c", script}, {});
        got = sh({}, script);
        EXPECT_EQ(got.out, want.out) << "-c: " << script;
        EXPECT_EQ(got.status, want.status) << "-c: " << script;
    }
}

TEST(CliDefault, SyntaxModesIgnoreFileSystemFlags) {
    // -n, --print and --dump-ast never build the file system.
    Result r = run({"-n", "--root", "/nonexistent-bashkit-dir", "-c", "echo hi"});
    EXPECT_EQ(r.status, 0) << r.err;
}

// ---------------------------------------------------------------------------------------------- --root

TEST(CliRoot, WritesAppearInTheHostFolder) {
    TempDir d;
    write(d / "in.txt", "from host\n");
    Result r = sh({"--root", d.str()}, "pwd; cat /in.txt; echo hi > /a.txt; mkdir -p /sub/deep; echo x > /sub/deep/b");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "/\nfrom host\n");
    EXPECT_EQ(read(d / "a.txt"), "hi\n");
    EXPECT_EQ(read(d / "sub/deep/b"), "x\n");
}

TEST(CliRoot, CwdIsWorkspaceWhenThere) {
    TempDir d;
    fs::create_directories(d.path / "workspace");
    Result r = sh({"--root", d.str()}, "pwd; echo w > f");
    EXPECT_EQ(r.out, "/workspace\n");
    EXPECT_EQ(read(d / "workspace/f"), "w\n");
}

TEST(CliRoot, TmpIsInMemoryWhenTheFolderHasNone) {
    TempDir d;
    Result r = sh({"--root", d.str()}, "f=$(mktemp); echo data > \"$f\"; cat \"$f\"; ls /");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "data\ntmp\n");
    EXPECT_TRUE(tree(d.path).empty());  // nothing was created in the folder
}

TEST(CliRoot, ConfinedToTheFolder) {
    TempDir d;
    write(d / "mine", "1\n");
    Result r = sh({"--root", d.str()}, "cat /../../../etc/hostname; echo $?; ls /..");
    EXPECT_EQ(r.out, "1\nmine\ntmp\n");
    EXPECT_NE(r.err.find("No such file or directory"), std::string::npos) << r.err;
}

TEST(CliRoot, ScriptFromStdin) {
    TempDir d;
    Result r = run({"--root", d.str()}, stdin_is("echo one > /f\necho two >> /f\ncat /f\n"));
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "one\ntwo\n");
    EXPECT_EQ(read(d / "f"), "one\ntwo\n");
}

// ---------------------------------------------------------------------------------------------- --mount

TEST(CliMount, ReadWrite) {
    TempDir d;
    write(d / "old", "old\n");
    Result r = sh({"--mount", d.str() + ":/data"}, "pwd; ls /; cat /data/old; echo new > /data/new; rm /data/old");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "/workspace\ndata\nhome\ntmp\nworkspace\nold\n");  // over the in-memory root
    EXPECT_EQ(read(d / "new"), "new\n");
    EXPECT_FALSE(fs::exists(d.path / "old"));
}

TEST(CliMount, ExplicitRwAndSeveralMounts) {
    TempDir a, b;
    Result r = sh({"--mount", a.str() + ":/a:rw", "--mount", b.str() + ":/w/b"}, "echo 1 > /a/x; echo 2 > /w/b/y; ls /w");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "b\n");
    EXPECT_EQ(read(a / "x"), "1\n");
    EXPECT_EQ(read(b / "y"), "2\n");
}

TEST(CliMount, HostPathWithAColon) {
    TempDir d;
    fs::create_directories(d.path / "a:b");
    Result r = sh({"--mount", (d / "a:b") + ":/data"}, "echo ok > /data/f");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(read(d / "a:b/f"), "ok\n");
}

TEST(CliMount, ReadOnlyRefusesWrites) {
    TempDir d;
    write(d / "f", "keep\n");
    Result r = sh({"--mount", d.str() + ":/data:ro"},
                  "cat /data/f; echo x > /data/f; echo st=$?; echo y > /data/new; touch /data/t; mkdir /data/dir; "
                  "rm /data/f; echo last=$?");
    EXPECT_EQ(r.out, "keep\nst=1\nlast=1\n");
    EXPECT_EQ(r.err,
              "bashkit: line 1: /data/f: Read-only file system\n"
              "bashkit: line 1: /data/new: Read-only file system\n"
              "touch: cannot touch '/data/t': Read-only file system\n"
              "mkdir: cannot create directory '/data/dir': Read-only file system\n"
              "rm: cannot remove '/data/f': Read-only file system\n");
    EXPECT_EQ(read(d / "f"), "keep\n");
    EXPECT_EQ(tree(d.path), Strings{"f"});
}

TEST(CliMount, OverAHostRoot) {
    TempDir root, m;
    Result r = sh({"--root", root.str(), "--mount", m.str() + ":/mnt"}, "echo r > /r; echo m > /mnt/m");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(read(root / "r"), "r\n");
    EXPECT_EQ(read(m / "m"), "m\n");
    EXPECT_FALSE(fs::exists(root.path / "mnt"));
}

// ---------------------------------------------------------------------------------------------- --overlay

TEST(CliOverlay, HostFolderNeverChanges) {
    TempDir d;
    write(d / "f", "orig\n");
    write(d / "gone", "g\n");
    write(d / "sub/x", "x\n");
    Result r = sh({"--overlay", d.str() + ":/w"},
                  "cd /w; cat f; echo changed > f; echo more >> sub/x; echo n > new; rm gone; mkdir dir; "
                  "cat f sub/x new; ls");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "orig\nchanged\nx\nmore\nn\ndir\nf\nnew\nsub\n");
    EXPECT_EQ(tree(d.path), (Strings{"f", "gone", "sub", "sub/x"}));
    EXPECT_EQ(read(d / "f"), "orig\n");
    EXPECT_EQ(read(d / "sub/x"), "x\n");
    EXPECT_EQ(read(d / "gone"), "g\n");
}

TEST(CliOverlay, ChangesAreGoneNextRun) {
    TempDir d;
    EXPECT_EQ(sh({"--overlay", d.str() + ":/w"}, "echo a > /w/a").status, 0);
    Result r = sh({"--overlay", d.str() + ":/w"}, "ls -A /w; cat /w/a");
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.status, 1);
}

TEST(CliOverlay, AsTheRoot) {
    TempDir d;
    write(d / "workspace/in", "i\n");
    Result r = sh({"--overlay", d.str() + ":/"}, "pwd; cat in; echo o > out; ls");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "/workspace\ni\nin\nout\n");
    EXPECT_EQ(tree(d.path), (Strings{"workspace", "workspace/in"}));
}

// ---------------------------------------------------------------------------------------------- --cwd

TEST(CliCwd, StartsThere) {
    EXPECT_EQ(sh({"--cwd", "/tmp"}, "pwd; echo $PWD").out, "/tmp\n/tmp\n");
    EXPECT_EQ(sh({"--cwd", "/home/user/"}, "pwd").out, "/home/user\n");
    TempDir d;
    fs::create_directories(d.path / "proj");
    Result r = sh({"--mount", d.str() + ":/m", "--cwd", "/m/proj"}, "pwd; echo x > f");
    EXPECT_EQ(r.out, "/m/proj\n");
    EXPECT_EQ(read(d / "proj/f"), "x\n");
}

// ---------------------------------------------------------------------------------------------- sessions

// Session folders under a private TMPDIR.
struct SessionEnv {
    TempDir tmp;
    Options opts() const { return env_is({"TMPDIR=" + tmp.str()}); }
    fs::path base() const { return tmp.path / ("bashkit-sessions-" + std::to_string(::geteuid())); }
};

TEST(CliSession, ReopenedByASecondRun) {
    SessionEnv s;
    Result r1 = sh({"--session", "s1", "--instance", "i1"},
                   "pwd; echo $HOME; ls /; echo data > keep.txt; echo h > ~/h; echo t > /tmp/t", s.opts());
    EXPECT_EQ(r1.status, 0) << r1.err;
    EXPECT_EQ(r1.out, "/workspace\n/home/user\nhome\ntmp\nworkspace\n");
    Result r2 = sh({"--session", "s1", "--instance", "i1"}, "pwd; cat keep.txt ~/h /tmp/t", s.opts());
    EXPECT_EQ(r2.status, 0) << r2.err;
    EXPECT_EQ(r2.out, "/workspace\ndata\nh\nt\n");
    // On disk: one folder for the pair of ids, with the layout.
    auto folders = tree(s.base());
    ASSERT_FALSE(folders.empty());
    std::string folder = folders.front();
    EXPECT_EQ(folder.rfind("i1--s1-", 0), 0u) << folder;
    EXPECT_EQ(read((s.base() / folder / "workspace/keep.txt").string()), "data\n");
}

TEST(CliSession, OtherIdsDoNotSeeTheFiles) {
    SessionEnv s;
    EXPECT_EQ(sh({"--session", "s1", "--instance", "i1"}, "echo data > keep.txt", s.opts()).status, 0);
    for (const Strings& ids : {Strings{"--session", "s1", "--instance", "i2"}, Strings{"--session", "s2", "--instance", "i1"},
                               Strings{"--session", "s1"}}) {
        Result r = sh(ids, "cat keep.txt", s.opts());
        EXPECT_EQ(r.status, 1) << ids[1];
        EXPECT_EQ(r.err, "cat: keep.txt: No such file or directory\n");
    }
}

TEST(CliSession, WithoutInstance) {
    SessionEnv s;
    EXPECT_EQ(sh({"--session", "solo"}, "echo 1 > f", s.opts()).status, 0);
    EXPECT_EQ(sh({"--session", "solo"}, "cat f", s.opts()).out, "1\n");
}

TEST(CliSession, MountOnTopOfASession) {
    SessionEnv s;
    TempDir d;
    Result r = sh({"--session", "m", "--mount", d.str() + ":/workspace/ext"}, "echo e > ext/e; echo w > w", s.opts());
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(read(d / "e"), "e\n");
    EXPECT_EQ(sh({"--session", "m"}, "cat w; ls", s.opts()).out, "w\nw\n");  // no mount point left behind
}

TEST(CliEphemeral, NothingOnDisk) {
    SessionEnv s;
    Result r = sh({"--ephemeral", "--session", "e1"}, "pwd; echo x > f; cat f; echo t > /tmp/t; echo h > ~/h", s.opts());
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "/workspace\nx\n");
    EXPECT_TRUE(tree(s.tmp.path).empty());
    Result again = sh({"--ephemeral", "--session", "e1"}, "cat f", s.opts());
    EXPECT_EQ(again.status, 1);
    Result plain = sh({"--ephemeral"}, "pwd; echo y > y; cat y", s.opts());
    EXPECT_EQ(plain.out, "/workspace\ny\n");
    EXPECT_TRUE(tree(s.tmp.path).empty());
}

TEST(CliEphemeral, WithAnOverlay) {
    SessionEnv s;
    TempDir d;
    write(d / "f", "f\n");
    Result r = sh({"--ephemeral", "--overlay", d.str() + ":/src"}, "cat /src/f; echo z > /src/f; cat /src/f", s.opts());
    EXPECT_EQ(r.out, "f\nz\n");
    EXPECT_EQ(read(d / "f"), "f\n");
    EXPECT_TRUE(tree(s.tmp.path).empty());
}

// ---------------------------------------------------------------------------------------------- bad values

TEST(CliErrors, BadFlagValues) {
    TempDir d;
    write(d / "file", "");
    struct Case {
        Strings flags;
        std::string message;  // the first line of stderr
    };
    const std::string D = d.str();
    const Case cases[] = {
        {{"--root", ""}, "bashkit: --root: the value must not be empty"},
        {{"--root", D + "/missing"}, "bashkit: --root: " + D + "/missing: No such file or directory"},
        {{"--root", D + "/file"}, "bashkit: --root: " + D + "/file: Not a directory"},
        {{"--root", D, "--root", D}, "bashkit: --root: given twice"},
        {{"--mount", "nocolon"}, "bashkit: --mount: expected HOST:VIRT[:ro], got 'nocolon'"},
        {{"--mount", ":/x"}, "bashkit: --mount: expected HOST:VIRT[:ro], got ':/x'"},
        {{"--mount", D + ":"}, "bashkit: --mount: expected HOST:VIRT[:ro], got '" + D + ":'"},
        {{"--mount", D + ":rel"}, "bashkit: --mount: VIRT must be an absolute path, got 'rel'"},
        {{"--mount", D + "/missing:/m"}, "bashkit: --mount: " + D + "/missing: No such file or directory"},
        {{"--mount", D + ":/m", "--mount", D + ":/m/"}, "bashkit: --mount: /m: mounted twice"},
        {{"--overlay", D}, "bashkit: --overlay: expected HOST:VIRT, got '" + D + "'"},
        {{"--overlay", D + "/missing:/o"}, "bashkit: --overlay: " + D + "/missing: No such file or directory"},
        {{"--cwd", "rel"}, "bashkit: --cwd: expected an absolute path, got 'rel'"},
        {{"--cwd", "/nope"}, "bashkit: --cwd: /nope: No such file or directory"},
        {{"--cwd", "/m/file", "--mount", D + ":/m"}, "bashkit: --cwd: /m/file: Not a directory"},
        {{"--instance", "i"}, "bashkit: --instance: needs --session"},
        {{"--session", ""}, "bashkit: --session: the value must not be empty"},
        {{"--root", D, "--session", "s"}, "bashkit: --root: cannot be combined with --session"},
        {{"--root", D, "--mount", D + ":/"}, "bashkit: --mount: / is already the root given by --root"},
        {{"--ephemeral", "--root", D}, "bashkit: --ephemeral: cannot be combined with --root (it writes to the host)"},
        {{"--ephemeral", "--mount", D + ":/m"},
         "bashkit: --ephemeral: cannot be combined with --mount (it writes to the host)"},
        {{"--host", "--root", D}, "bashkit: --host: cannot be combined with --root"},
        {{"--host", "--mount", D + ":/m"}, "bashkit: --host: cannot be combined with --mount"},
        {{"--host", "--overlay", D + ":/m"}, "bashkit: --host: cannot be combined with --overlay"},
        {{"--host", "--session", "s"}, "bashkit: --host: cannot be combined with --session"},
        {{"--host", "--ephemeral"}, "bashkit: --host: cannot be combined with --ephemeral"},
        {{"--host-utilities"}, "bashkit: --host-utilities: needs --host"},
    };
    SessionEnv s;
    for (const Case& c : cases) {
        Strings args = c.flags;
        args.insert(args.end(), {"-c", "echo ran"});
        Result r = run(args, s.opts());
        std::string joined;
        for (const auto& a : c.flags) joined += a + " ";
        EXPECT_EQ(r.status, 2) << joined;
        EXPECT_EQ(r.out, "") << joined;
        EXPECT_EQ(r.err, c.message + "\nTry 'bashkit --help' for more information.\n") << joined;
    }
    EXPECT_TRUE(tree(s.tmp.path).empty());
    EXPECT_EQ(tree(d.path), Strings{"file"});
}

// bash's start-up options: one-letter `set` options (bundled, + turns off), -o NAME, and start-up flags
// that have nothing to do here.
TEST(CliOptions, SetOptionsBeforeTheScript) {
    Result r = sh({"-euo", "pipefail"}, "echo $-; false | true; echo not here");
    EXPECT_EQ(r.out, "ehuBc\n");
    EXPECT_EQ(r.status, 1);
    r = sh({"-u", "--norc", "--noprofile"}, "echo \"$x\"; echo not here");
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "bashkit: line 1: x: unbound variable\n");
    r = sh({"-e", "+e", "-o", "nounset", "+o", "nounset"}, "false; echo \"[$x] $-\"");
    EXPECT_EQ(r.out, "[] hBc\n");
    r = run({"-x", "-s"}, stdin_is("echo traced\n"));
    EXPECT_EQ(r.out, "traced\n");
    EXPECT_EQ(r.err, "+ echo traced\n");
    r = sh({"-o", "bogus"}, "echo ran");
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.out, "");
    r = sh({"-q"}, "echo ran");
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "bashkit: -q: invalid option\nTry 'bashkit --help' for more information.\n");
}

TEST(CliErrors, MissingValues) {
    for (const char* flag : {"--root", "--mount", "--overlay", "--cwd", "--session", "--instance"}) {
        Result r = run({"-c", "echo ran", flag});  // after -c CMD: $0, not an option
        EXPECT_EQ(r.out, "ran\n") << flag;
        r = run({flag});
        EXPECT_EQ(r.status, 2) << flag;
        EXPECT_EQ(r.err, std::string("bashkit: ") + flag +
                             ": option requires an argument\nTry 'bashkit --help' for more information.\n");
    }
}

TEST(CliErrors, HelpListsTheFlags) {
    Result r = run({"--help"});
    EXPECT_EQ(r.status, 0);
    for (const char* flag : {"--root DIR", "--mount HOST:VIRT[:ro]", "--overlay HOST:VIRT", "--session ID",
                             "--instance ID", "--ephemeral", "--cwd VIRT", "--host", "--host-utilities"}) {
        EXPECT_NE(r.out.find(flag), std::string::npos) << flag;
    }
}

// ---------------------------------------------------------------------------------------------- limits
// Every tree but --host's is under FsLimits (sandbox/configured_shell.hpp): the in-memory default, --root,
// --mount, --overlay. A host folder counts only what the script writes.

TEST(CliLimits, DefaultTreeIsBounded) {
    Result r = sh({"--max-total-bytes", "1K"}, "head -c 2000 /dev/zero > f; echo $?; wc -c < f; head -c 1000 /dev/zero > g; echo $?");
    EXPECT_EQ(r.out, "1\n0\n0\n");  // a write past the limit fails whole
    EXPECT_EQ(r.err, "head: write error: No space left on device\n");
    r = sh({"--max-nodes", "10"}, "for i in $(seq 20); do touch f$i 2>/dev/null || break; done; echo $i; ls | wc -l");
    EXPECT_EQ(r.out, "7\n6\n");  // /workspace, /tmp, /home and /home/user already count
}

TEST(CliLimits, HostFoldersCountOnlyWhatTheScriptWrites) {
    TempDir d;
    write(d / "held", std::string(5000, 'h'));  // more than the limit, there before the run: not counted
    Result r = sh({"--mount", d.str() + ":/data", "--max-total-bytes", "4K"},
                  "head -c 3000 /dev/zero > /data/a; echo $?; head -c 2000 /dev/zero > /data/b; echo $?");
    EXPECT_EQ(r.out, "0\n1\n");
    EXPECT_EQ(r.err, "head: write error: No space left on device\n");
    EXPECT_EQ(fs::file_size(d.path / "a"), 3000u);
    EXPECT_EQ(fs::file_size(d.path / "b"), 0u);
    EXPECT_EQ(fs::file_size(d.path / "held"), 5000u);
    // --root and --overlay alike.
    r = sh({"--root", d.str(), "--max-total-bytes", "1K"}, "head -c 2000 /dev/zero > /c; echo $?");
    EXPECT_EQ(r.out, "1\n");
    EXPECT_EQ(fs::file_size(d.path / "c"), 0u);
    r = sh({"--overlay", d.str() + ":/o", "--max-file-bytes", "100"}, "head -c 200 /dev/zero > /o/e; echo $?; ls /o");
    EXPECT_EQ(r.out, "1\na\nb\nc\ne\nheld\n");
    EXPECT_EQ(r.err, "head: write error: File too large\n");
    EXPECT_FALSE(fs::exists(d.path / "e"));
}

TEST(CliLimits, OpenFiles) {
    TempDir d;
    const std::string script = "touch f; exec 3<f 4<f 5<f; echo three; exec 6<f; echo $?";
    Result r = sh({"--max-open-files", "3"}, script);
    EXPECT_EQ(r.out, "three\n1\n");
    EXPECT_EQ(r.err, "bashkit: line 1: f: Too many open files\n");
    r = sh({"--mount", d.str() + ":/data", "--cwd", "/data", "--max-open-files", "3"}, script);
    EXPECT_EQ(r.out, "three\n1\n");
    EXPECT_EQ(r.err, "bashkit: line 1: f: Too many open files\n");
    // The default (FsLimits::max_open_files, 256) holds across a script's commands.
    r = sh({}, "touch f; for i in $(seq 300); do exec {fd}<f || { echo at $i; break; }; done 2>/dev/null");
    EXPECT_EQ(r.out, "at 257\n");
}

TEST(CliLimits, DfShowsTheLimits) {
    Result r = sh({"--max-total-bytes", "64M", "--max-nodes", "1000"},
                  "head -c 10240 /dev/zero > f; df / | tail -n 1 | tr -s ' '; df -i | tail -n 1 | tr -s ' '");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "bashkit 65536 10 65526 1% /\n"     // 64M in 1K blocks, the 10K written
                     "bashkit 1001 6 995 1% /\n");      // the root, /workspace, /tmp, /home, /home/user, f
    r = sh({}, "df -h | tail -n 1");
    EXPECT_EQ(r.out.substr(0, r.out.find(' ')), "bashkit");
    EXPECT_NE(r.out.find(" 1.0G "), std::string::npos) << r.out;  // FsLimits::max_total_bytes
}

TEST(CliLimits, FlagsInHelpAndErrors) {
    Result r = run({"--help"});
    for (const char* flag : {"--max-total-bytes SIZE", "--max-file-bytes SIZE", "--max-nodes N", "--max-open-files N"})
        EXPECT_NE(r.out.find(flag), std::string::npos) << flag;
    r = sh({"--max-open-files", "many"}, "true");
    EXPECT_EQ(r.status, 2);
    EXPECT_EQ(r.err, "bashkit: --max-open-files: expected a size such as 4096, 64K, 256M or 1G, got 'many'\n"
                     "Try 'bashkit --help' for more information.\n");
}

// A script never leaves a setuid or setgid bit on the host (the in-memory tree keeps what it was told).
TEST(CliLimits, NoSetuidBitsThroughAMount) {
    TempDir d;
    Result r = sh({"--mount", d.str() + ":/data"},
                  "cd /tmp; touch x; chmod 6755 x; stat -c %a x; tar -cf a.tar x; tar -tvf a.tar | cut -c1-10\n"
                  "mkdir /data/out; tar -xpf a.tar -C /data/out; echo $?\n"
                  "touch /data/c; chmod 4755 /data/c; echo $?; chmod g+s /data/c; cp -p x /data/cp; echo $?");
    EXPECT_EQ(r.out, "6755\n-rwsr-sr-x\n0\n0\n0\n");
    for (const char* f : {"out/x", "c", "cp"}) {
        struct stat st{};
        ASSERT_EQ(::lstat((d / f).c_str(), &st), 0) << f;
        EXPECT_EQ(st.st_mode & 07000, 0u) << f;
        EXPECT_EQ(st.st_mode & 0777, 0755u) << f;
    }
}

// ---------------------------------------------------------------------------------------------- --host

// Scripts whose output and status under `bashkit --host` must be those of /bin/bash -c.
TEST(CliHost, LikeBash) {
    if (!fs::exists("/bin/bash")) GTEST_SKIP() << "no /bin/bash";
    struct Case {
        std::string script;
        std::string in;
    };
    const Case cases[] = {
        {"/usr/bin/env true; echo $?; uname; uname -s; /bin/sh -c 'exit 7'; echo $?", ""},
        {"command -v uname; type -t uname", ""},
        {"/usr/bin/cat; echo end", "from stdin\n"},
        {"printf 'b\\na\\n' | /usr/bin/sort | /usr/bin/head -n1", ""},
        {"x=$(/bin/echo sub); echo \"[$x]\"; y=$(/bin/sh -c 'printf \"a\\nb\\n\\n\\n\"'); echo \"[$y]\"", ""},
        {"/bin/sh -c 'echo out; echo err >&2' 2>&1 | cat -n", ""},
        {"/bin/sh -c 'echo to-err >&2' 2>/dev/null; /bin/echo gone > /dev/null; echo done", ""},
        {"/bin/sh -c 'kill -TERM $$'; echo $?; /bin/sh -c 'kill -KILL $$'; echo $?", ""},
        {"/usr/bin/yes | head -n1; echo ${PIPESTATUS[@]}", ""},
        {"yes | /usr/bin/head -n1; echo ${PIPESTATUS[@]}", ""},
        {"/usr/bin/seq 1 100000 | /usr/bin/tail -n1; /usr/bin/seq 1 50000 | wc -l", ""},
        {"/bin/sleep 0.1 & wait $!; echo bg=$?; (exec /bin/false); echo ex=$?", ""},
        {"exec /bin/sh -c 'echo replaced; exit 5'; echo not-reached", ""},
        {"export X1=one; X2=two; X3=three /usr/bin/env | /bin/grep -E '^X[123]=' | sort", ""},
        {"f() { /bin/echo \"in f: $*\"; }; f a b; for i in 1 2 3; do /bin/echo $i; done | /usr/bin/tac", ""},
        {"/usr/bin/printf '%s\\n' one two | while read -r l; do /bin/echo \"<$l>\"; done", ""},
        {"/bin/cat <<EOF\nhere $((1+2))\nEOF\n/bin/cat <<< 'here-string'", ""},
        {"no-such-command-bashkit 2>/dev/null; echo $?; /nonexistent/prog 2>/dev/null; echo $?", ""},
        {"/usr/bin/test -t 0; echo $?", ""},
        // A program that does not read its stdin leaves it to the next reader, as with a real pipe.
        {"/usr/bin/printf '%s\\n' one two three | while read -r l; do /bin/echo \"<$l>\"; done", ""},
        {"/usr/bin/seq 1 300 | while read -r l; do /bin/true; echo $l; done | /usr/bin/tail -n2", ""},
        {"{ /bin/true; cat; } <<< keep; while read -r l; do /bin/true; echo \"<$l>\"; done <<EOF\na\nb\nEOF", ""},
        {"while read -r l; do /bin/true; echo \"[$l]\"; done", "x\ny\nz\n"},
        {"printf 'a\\nb\\nc\\n' | { /usr/bin/head -n1; cat; }", ""},
    };
    for (const Case& c : cases) {
        Result want = run_program("/bin/bash", {"-c", c.script}, stdin_is(c.in));
        Result got = sh({"--host"}, c.script, stdin_is(c.in));
        EXPECT_EQ(got.out, want.out) << c.script << "\n" << got.err;
        EXPECT_EQ(got.status, want.status) << c.script;
    }
}

TEST(CliHost, RunsHostPrograms) {
    utsname u{};
    ASSERT_EQ(::uname(&u), 0);
    Result r = sh({"--host"}, "/usr/bin/env true; echo $?; uname; /bin/sh -c 'exit 7'; echo $?; command -v uname");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "0\n" + std::string(u.sysname) + "\n7\n" + "/usr/bin/uname\n");
}

TEST(CliHost, SeesAndChangesRealFiles) {
    TempDir d;
    write(d / "real.txt", "real\n");
    Result r = sh({"--host"}, "cd " + d.str() + " && cat real.txt && /usr/bin/cat real.txt && echo w > w.txt && "
                  "/bin/sh -c 'echo s > s.txt' && cat s.txt && ls");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "real\nreal\ns\nreal.txt\ns.txt\nw.txt\n");
    EXPECT_EQ(read(d / "w.txt"), "w\n");
}

TEST(CliHost, CwdIsTheCallersAndFollowsCd) {
    TempDir d;
    fs::create_directories(d.path / "sub");
    std::string real = fs::canonical(d.path).string();
    Result r = sh({"--host"}, "pwd; /bin/pwd; cd sub; /bin/pwd", cwd_is(real));
    EXPECT_EQ(r.out, real + "\n" + real + "\n" + real + "/sub\n");
    r = sh({"--host", "--cwd", real + "/sub"}, "/bin/pwd");
    EXPECT_EQ(r.out, real + "/sub\n");
}

TEST(CliHost, InheritedPwdNamingTheDirectoryIsKept) {
    TempDir d;
    fs::create_directories(d.path / "real");
    fs::create_symlink("real", d.path / "link");
    std::string base = fs::canonical(d.path).string();
    // As bash: a PWD that names the working directory, through a symbolic link too, is taken as it is.
    Options o = cwd_is(base + "/real");
    o.env = {"PWD=" + base + "/link"};
    Result r = sh({"--host"}, "pwd; echo $PWD; pwd -P; cd ..; pwd", o);
    EXPECT_EQ(r.out, base + "/link\n" + base + "/link\n" + base + "/real\n" + base + "\n");
    // One naming another directory, relative, or with `..` parts is not: the physical directory is.
    for (std::string pwd : {std::string("/"), std::string("real"), base + "/link/../real"}) {
        o.env = {"PWD=" + pwd};
        EXPECT_EQ(sh({"--host"}, "pwd", o).out, base + "/real\n") << pwd;
    }
}

TEST(CliHost, EnvironmentIsTheCallersAndTheScriptsExports) {
    Result r = sh({"--host"},
                  "echo $BASHKIT_CLI_TEST; export X1=one; X2=two; X3=three /usr/bin/env | /bin/grep -E '^(X[123]|BASHKIT_CLI_TEST)=' | sort",
                  env_is({"BASHKIT_CLI_TEST=from-caller"}));
    EXPECT_EQ(r.out, "from-caller\nBASHKIT_CLI_TEST=from-caller\nX1=one\nX3=three\n");
}

TEST(CliHost, Streams) {
    Result r = sh({"--host"},
                  "/usr/bin/cat; printf 'b\\na\\n' | /usr/bin/sort | /usr/bin/head -n1; x=$(/bin/echo sub); echo \"[$x]\"; "
                  "/bin/sh -c 'echo out; echo err >&2' 2>&1 | cat -n; /bin/sh -c 'echo to-err >&2' 2>/dev/null; "
                  "/bin/echo to-file > /dev/null",
                  stdin_is("from stdin\n"));
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, "from stdin\na\n[sub]\n     1\tout\n     2\terr\n");
    EXPECT_EQ(r.err, "");
}

TEST(CliHost, ProgramsInheritDescriptorsAboveTwo) {
    // A here-document on fd 3, a file on fd 4 and a pipe to a stream on fd 5 reach the host program. fd 5 is
    // a copy of fd 1: one pipe, so the program's bytes keep their order (two pumps would race; ten rounds).
    TempDir d;
    Result r = sh({"--host"},
                  "cd " + d.str() + "; for i in 1 2 3 4 5 6 7 8 9 10; do "
                  "/bin/sh -c 'cat <&3; echo to-file >&4; echo to-pipe >&5' 3<<EOF 4>f 5>&1 | "
                  "cat -n\nfrom here-doc\nEOF\ndone; cat f",
                  stdin_is(""));
    EXPECT_EQ(r.status, 0) << r.err;
    std::string want;
    for (int i = 0; i < 10; ++i) want += "     1\tfrom here-doc\n     2\tto-pipe\n";
    EXPECT_EQ(r.out, want + "to-file\n");
    // The same check without a race: the program sees one open file on both descriptors.
    r = sh({"--host"},
           "/bin/sh -c '[ \"$(readlink /proc/$$/fd/1)\" = \"$(readlink /proc/$$/fd/5)\" ] && echo one-pipe' 5>&1 | cat",
           stdin_is(""));
    EXPECT_EQ(r.out, "one-pipe\n") << r.err;
}

TEST(CliHost, StartUpVariablesAreBashs) {
    // HOME, USER and LOGNAME come from the environment only; PATH and SHELL get defaults, not exported.
    Result r = run_program("/usr/bin/env", {"-i", BASHKIT_CLI, "--host", "-c",
                                            "echo \"[${HOME-unset}] [${USER-unset}]\"; /usr/bin/env | "
                                            "/bin/grep -c -E '^(PATH|SHELL)='"},
                           Options{});
    EXPECT_EQ(r.out, "[unset] [unset]\n0\n");
}

TEST(CliDefault, PrintfTimeFollowsTheExportedTz) {
    // %(fmt)T: an exported TZ names the zone; one that is not exported is not seen (UTC).
    Result r = sh({}, "TZ=Asia/Tokyo; printf '%(%F %H %Z)T\\n' 0; export TZ; printf '%(%F %H %Z)T\\n' 0; "
                      "TZ=EST5 printf '%(%H %Z)T\\n' 0");
    EXPECT_EQ(r.out, "1970-01-01 00 UTC\n1970-01-01 09 JST\n19 EST\n") << r.err;
}

TEST(CliHost, StdinOfAScriptReadFromStdin) {
    // Like bash reading its script from stdin: the program reads the rest of it.
    Result r = run({"--host"}, stdin_is("echo first\n/usr/bin/head -n1\nline-for-head\necho after\n"));
    EXPECT_EQ(r.out.substr(0, 20), "first\nline-for-head\n");
}

TEST(CliHost, SignalsAndBrokenPipes) {
    Result r = sh({"--host"}, "/bin/sh -c 'kill -TERM $$'; echo $?; /usr/bin/yes | head -n1; echo ${PIPESTATUS[@]}; "
                              "yes | /usr/bin/head -n1; echo ${PIPESTATUS[@]}");
    EXPECT_EQ(r.out, "143\ny\n141 0\ny\n141 0\n");
}

TEST(CliHost, BackgroundAndExec) {
    Result r = sh({"--host"}, "/bin/sleep 0.1 & wait $!; echo bg=$?; (exec /bin/false); echo ex=$?; exec /bin/sh -c 'exit 5'");
    EXPECT_EQ(r.out, "bg=0\nex=1\n");
    EXPECT_EQ(r.status, 5);
}

TEST(CliHost, ShellScriptsRunInBashkit) {
    TempDir d;
    // The #! interpreter does not exist on the host: only bashkit itself can run these.
    write(d / "a.sh", "#!/nonexistent/bin/bash\necho \"a $1\"\n");
    write(d / "b.sh", "#!/nonexistent/env sh\necho b\n");
    write(d / "c", "echo \"no #! line: $0\"\n");
    write(d / "p.pl", "#!/usr/bin/perl\nprint \"perl @ARGV\\n\";\n");
    for (const char* f : {"a.sh", "b.sh", "c", "p.pl"}) fs::permissions(d / f, fs::perms::owner_all);
    std::string script = "cd " + d.str() + "; ./a.sh x; ./b.sh; ./c";
    if (fs::exists("/usr/bin/perl")) script += "; ./p.pl 1 2";
    Result r = sh({"--host"}, script);
    std::string want = "a x\nb\nno #! line: ./c\n";
    if (fs::exists("/usr/bin/perl")) want += "perl 1 2\n";
    EXPECT_EQ(r.out, want) << r.err;
}

TEST(CliHost, MissingAndNotExecutable) {
    TempDir d;
    write(d / "plain", "x\n");
    Result r = sh({"--host"}, "no-such-command-bashkit; echo $?; " + (d / "plain") + "; echo $?; " + (d / "missing") +
                              "; echo $?");
    EXPECT_EQ(r.out, "127\n126\n127\n");
    EXPECT_NE(r.err.find("no-such-command-bashkit: command not found"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("plain: Permission denied"), std::string::npos) << r.err;
}

TEST(CliHost, IdentityIsTheCallers) {
    Result r = sh({"--host"}, "echo $UID; test \"$$\" != 1000 && echo real-pid");
    EXPECT_EQ(r.out, std::to_string(::getuid()) + "\nreal-pid\n");
}

TEST(CliHost, HostUtilitiesInsteadOfInProcess) {
    Result r = sh({"--host", "--host-utilities"}, "cat --version | head -n1");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("GNU coreutils"), std::string::npos) << r.out;
}

}  // namespace

// ------------------------------------------------------------------------------------------------- -n

// `bashkit -n FILE` reads a line at a time like `bash -n FILE`: the same status and messages, the first
// error found after any number of good lines, and a script of any size.
TEST(CliCheck, SyntaxCheckOfAFileIsBashs) {
    if (!fs::exists("/bin/bash")) GTEST_SKIP() << "no /bin/bash";
    TempDir d;
    std::string big;
    for (int i = 0; i < 20000; ++i) big += "if [ -f x" + std::to_string(i) + " ]; then echo \"$i\"; fi\n";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"good.sh", "echo a\nif true; then\n  echo b\nfi\ncat <<E\n$(x)\nE\n"},
        {"late.sh", "echo a\nfor i in 1 2; do echo $i; done\nfoo )\necho never\n"},
        {"quote.sh", "echo a\necho \"open\n"},
        {"fi.sh", "if true; then echo x\n"},
        {"empty.sh", ""},
        {"nonl.sh", "echo no newline at the end"},
        {"big.sh", big + "case x in\n"},
        {"bigok.sh", big},
        // -n reads the file in blocks: a line, a here-document or a compound command longer than a block,
        // and errors after block boundaries
        {"longline.sh", "echo a\necho " + std::string(300000, 'x') + " )\n"},
        {"bigheredoc.sh", "cat <<E\n" + big + "E\necho ok\nfi\n"},
        {"openheredoc.sh", "echo a\ncat <<E\n" + big},
        {"bigif.sh", "if true; then\n" + big + "fi\ndone\n"},
        {"bigcond.sh", big + "[[ a b ]]\necho after\n"},
    };
    for (const auto& [name, text] : cases) {
        SCOPED_TRACE(name);
        write(d / name, text);
        std::string path = d / name;
        Result want = run_program("/bin/bash", {"-n", path}, {});
        Result got = run({"-n", path});
        EXPECT_EQ(got.status, want.status);
        EXPECT_EQ(got.out, want.out);
        EXPECT_EQ(got.err, want.err);
    }
    Result missing = run({"-n", d / "missing.sh"});
    EXPECT_EQ(missing.status, 127);
    EXPECT_NE(missing.err.find("No such file or directory"), std::string::npos) << missing.err;
}
