// ShellOptions::external, the interpreter hook `bashkit --host` is built on: which commands reach it, with
// what, and what happens when it declines. No host program is started here: the runner is a fake.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "interp/command.hpp"
#include "interp/file_stream.hpp"
#include "interp/shell.hpp"
#include "vfs/memory_fs.hpp"

namespace {

using namespace bashkit;
using namespace bashkit::interp;

struct Call {
    std::vector<std::string> argv;
    std::string path;
    std::string cwd;
    std::string x;        // $X in the environment it got
    int out_fd = 0;       // host_fd() of its stdout
};

struct Fixture {
    vfs::MemoryFs fs;
    CommandRegistry reg;
    std::vector<Call> calls;
    std::optional<int> answer = 3;  // what the fake runner returns

    Fixture() {
        EXPECT_TRUE(fs.mkdir_all("/home/user").ok());
        EXPECT_TRUE(fs.mkdir_all("/tmp").ok());
        EXPECT_TRUE(fs.mkdir_all("/bin").ok());
        EXPECT_TRUE(fs.write_file("/bin/prog", "echo \"script $0 $1\"\n", 0755).ok());
        EXPECT_TRUE(fs.write_file("/bin/noexec", "echo no\n", 0644).ok());
        reg.add("util", "util: a registered utility", [](CommandContext& c) {
            (void)c.out.write("util\n");
            return 0;
        });
    }
    ShellOptions options(bool with_runner = true) {
        ShellOptions o;
        if (with_runner) {
            o.external = [this](const ExternalCommand& c) -> std::optional<int> {
                Call call;
                call.argv.assign(c.argv.begin(), c.argv.end());
                call.path = std::string(c.path);
                call.cwd = std::string(c.cwd);
                if (const std::string* x = c.env.get("X")) call.x = *x;
                call.out_fd = c.out.host_fd();
                calls.push_back(call);
                if (answer) (void)c.out.write("external\n");
                return answer;
            };
        }
        return o;
    }
};

TEST(ExternalHook, GetsWhatTheProgramNeeds) {
    Fixture f;
    Shell sh(f.fs, f.reg, f.options());
    ExecResult r = sh.run("cd /tmp; export X=1; prog a 'b c'; echo $?; X=2 /bin/prog; echo $?");
    EXPECT_EQ(r.out, "external\n3\nexternal\n3\n");
    ASSERT_EQ(f.calls.size(), 2u);
    EXPECT_EQ(f.calls[0].argv, (std::vector<std::string>{"prog", "a", "b c"}));  // argv[0] as invoked
    EXPECT_EQ(f.calls[0].path, "/bin/prog");
    EXPECT_EQ(f.calls[0].cwd, "/tmp");
    EXPECT_EQ(f.calls[0].x, "1");
    EXPECT_EQ(f.calls[0].out_fd, -1);  // the library's own streams are never host descriptors
    EXPECT_EQ(f.calls[1].argv, (std::vector<std::string>{"/bin/prog"}));
    EXPECT_EQ(f.calls[1].x, "2");
}

TEST(ExternalHook, RedirectionsReachIt) {
    Fixture f;
    Shell sh(f.fs, f.reg, f.options());
    ExecResult r = sh.run("prog > /tmp/o; cat_it=$(prog); echo \"[$cat_it]\"");
    EXPECT_EQ(r.out, "[external]\n");
    EXPECT_EQ(f.fs.read_file("/tmp/o").value_or(""), "external\n");
}

TEST(ExternalHook, DeclinedMeansRunAsAScript) {
    Fixture f;
    f.answer = std::nullopt;
    Shell sh(f.fs, f.reg, f.options());
    ExecResult r = sh.run("prog x; /bin/prog y");
    EXPECT_EQ(r.out, "script /bin/prog x\nscript /bin/prog y\n");
    EXPECT_EQ(f.calls.size(), 2u);
}

TEST(ExternalHook, NotForBuiltinsFunctionsUtilitiesOrMissingFiles) {
    Fixture f;
    Shell sh(f.fs, f.reg, f.options());
    ExecResult r = sh.run("echo e; util; fn() { echo fn; }; fn; nothere; echo $?; /bin/noexec; echo $?; "
                          "/bin/missing; echo $?");
    EXPECT_EQ(r.out, "e\nutil\nfn\n127\n126\n127\n");
    EXPECT_TRUE(f.calls.empty());
}

TEST(ExternalHook, AbsentByDefault) {
    Fixture f;
    Shell sh(f.fs, f.reg, f.options(false));
    ExecResult r = sh.run("prog a");
    EXPECT_EQ(r.out, "script /bin/prog a\n");
    EXPECT_TRUE(f.calls.empty());
}

// ByteStream::unread, which the CLI uses to give back the input a host program left in its pipe.
TEST(Unread, StringSource) {
    StringSource s("abcdef");
    char buf[4];
    ASSERT_EQ(s.read(buf, 4).n, 4u);
    EXPECT_TRUE(s.unread("cd"));
    EXPECT_TRUE(s.unread("xy"));
    std::string rest;
    (void)s.read_all(rest);
    EXPECT_EQ(rest, "xycdef");
}

TEST(Unread, Pipe) {
    CancelToken cancel;
    PipeEnds p = make_pipe(&cancel, 8);
    ASSERT_TRUE(p.writer->write("hello").ok());
    char buf[5];
    ASSERT_EQ(p.reader->read(buf, 5).n, 5u);
    ASSERT_TRUE(p.writer->write("12345678").ok());  // the pipe is full
    EXPECT_TRUE(p.reader->unread("llo"));           // and grows to take the bytes back
    p.writer->close();
    std::string rest;
    (void)p.reader->read_all(rest);
    EXPECT_EQ(rest, "llo12345678");
}

TEST(Unread, FileStream) {
    vfs::MemoryFs fs;
    ASSERT_TRUE(fs.write_file("/f", "line1\nline2\n").ok());
    auto h = fs.open("/f", vfs::OpenFlags::read);
    ASSERT_TRUE(h.ok());
    FileStream s(std::move(*h), true, false, "/f");
    std::string line;
    ASSERT_EQ(s.read_until('\n', line).n, 6u);
    char buf[3];
    ASSERT_EQ(s.read(buf, 3).n, 3u);
    EXPECT_TRUE(s.unread("lin"));
    EXPECT_TRUE(s.unread("line1\n"));
    std::string rest;
    (void)s.read_all(rest);
    EXPECT_EQ(rest, "line1\nline2\n");
}

TEST(Unread, NotForStreamsWithoutInput) {
    NullStream null;
    EXPECT_FALSE(null.unread("x"));
    BadStream bad;
    EXPECT_FALSE(bad.unread("x"));
    StringSink sink;
    EXPECT_FALSE(sink.unread("x"));
}

}  // namespace
