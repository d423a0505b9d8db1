// The Shell API: sessions, the registry and CommandContext, streams, limits with hostile scripts.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "interp/command.hpp"
#include "interp/shell.hpp"
#include "interp/stream.hpp"
#include "vfs/memory_fs.hpp"

namespace {

using namespace bashkit;
using namespace bashkit::interp;
using namespace std::chrono_literals;

struct Fixture {
    vfs::MemoryFs fs;
    CommandRegistry reg;
    Fixture() {
        EXPECT_TRUE(fs.mkdir_all("/home/user").ok());
        EXPECT_TRUE(fs.mkdir_all("/tmp").ok());
        // A few utilities for the tests, written against CommandContext only.
        reg.add("upper", "upper: copies stdin to stdout in upper case", [](CommandContext& c) {
            std::string data;
            (void)c.in.read_all(data);
            for (char& ch : data)
                if (ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 32);
            return c.out.write(data).ok() ? 0 : 141;
        });
        reg.add("yes", "yes: y forever", [](CommandContext& c) {
            std::string chunk;
            for (int i = 0; i < 512; ++i) chunk += "y\n";
            while (!c.cancelled()) {
                IoResult r = c.out.write(chunk);
                if (r.err == EPIPE) return 141;
                if (!r.ok()) return 1;
            }
            return 130;
        });
        reg.add("head1", "head1: the first line", [](CommandContext& c) {
            std::string line;
            (void)c.in.read_until('\n', line);
            (void)c.out.write(line);
            return 0;
        });
        reg.add("seqn", "seqn N: 1..N", [](CommandContext& c) {
            long n = std::stol(c.argv.at(1));
            std::string buf;
            for (long i = 1; i <= n; ++i) {
                buf += std::to_string(i);
                buf += '\n';
                if (buf.size() > 8192) {
                    if (!c.out.write(buf).ok()) return 141;
                    buf.clear();
                }
            }
            return c.out.write(buf).ok() ? 0 : 141;
        });
        reg.add("tailn", "tailn: the last line", [](CommandContext& c) {
            std::string line, last;
            while (true) {
                line.clear();
                IoResult r = c.in.read_until('\n', line);
                if (!r.ok() || line.empty()) break;
                last = line;
            }
            (void)c.out.write(last);
            return 0;
        });
        reg.add("envget", "envget NAME: prints an exported variable", [](CommandContext& c) {
            const std::string* v = c.env.get(c.argv.at(1));
            (void)c.out.write(v ? *v + "\n" : std::string("<unset>\n"));
            return 0;
        });
        reg.add("cwdls", "cwdls: cwd and the entries of it", [](CommandContext& c) {
            auto ents = c.fs.readdir(c.cwd);
            std::string out = c.cwd + ":";
            if (ents) {
                std::vector<std::string> names;
                for (auto& e : *ents) names.push_back(e.name);
                std::sort(names.begin(), names.end());
                for (auto& n : names) out += " " + n;
            }
            (void)c.out.write(out + "\n");
            return 0;
        });
        reg.add("sleepms", "sleepms N: sleeps N milliseconds (cancellable)", [](CommandContext& c) {
            auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(std::stol(c.argv.at(1)));
            while (std::chrono::steady_clock::now() < until) {
                if (c.cancelled()) return 130;
                std::this_thread::sleep_for(5ms);
            }
            return 0;
        });
        reg.add("runargs", "runargs CMD...: runs a command through the runner", [](CommandContext& c) {
            std::vector<std::string> argv(c.argv.begin() + 1, c.argv.end());
            return c.runner->run_command(argv, c.env, c.in, c.out, c.err);
        });
    }
};

TEST(Shell, StatePersistsBetweenRuns) {
    Fixture f;
    Shell sh(f.fs, f.reg);
    EXPECT_EQ(sh.run("x=41; f() { echo f$1; }; cd /tmp; set -o pipefail; alias ll=x").exit_code, 0);
    auto r = sh.run("echo $((x+1)); f 2; pwd; [[ -o pipefail ]] && echo pf; alias");
    EXPECT_EQ(r.out, "42\nf2\n/tmp\npf\nalias ll='x'\n");
    EXPECT_EQ(sh.get_var("x"), "41");
    EXPECT_EQ(sh.cwd(), "/tmp");
}

TEST(Shell, StatusAndStderr) {
    Fixture f;
    Shell sh(f.fs, f.reg);
    auto r = sh.run("nosuchcmd arg");
    EXPECT_EQ(r.exit_code, 127);
    EXPECT_EQ(r.err, "bashkit: line 1: nosuchcmd: command not found\n");
    r = sh.run("echo ok; exit 3");
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_TRUE(sh.exited());
    r = sh.run("echo still usable");
    EXPECT_EQ(r.out, "still usable\n");
    r = sh.run("if then");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("syntax error"), std::string::npos);
}

TEST(Shell, IdentityIsVirtual) {
    Fixture f;
    ShellOptions o;
    o.identity.user = "agent";
    o.identity.host = "box";
    o.identity.pid = 4242;
    o.identity.uid = 1234;
    Shell sh(f.fs, f.reg, o);
    auto r = sh.run("echo $USER $HOSTNAME $$ $UID $HOME");
    EXPECT_EQ(r.out, "agent box 4242 1234 /home/agent\n");
}

TEST(Shell, RegistryCommandsAndPipes) {
    Fixture f;
    Shell sh(f.fs, f.reg);
    auto r = sh.run("echo hello | upper; echo $?");
    EXPECT_EQ(r.out, "HELLO\n0\n");
    r = sh.run("export E1=v1; E2=v2 envget E2; envget E1; envget E3");
    EXPECT_EQ(r.out, "v2\nv1\n<unset>\n");
    r = sh.run("cd /tmp; : > a; : > b; cwdls");
    EXPECT_EQ(r.out, "/tmp: a b\n");
    r = sh.run("g() { echo from-function \"$@\"; }; runargs g x y");
    EXPECT_EQ(r.out, "from-function x y\n");
}

TEST(Shell, YesHeadEndsAtOnce) {
    Fixture f;
    Shell sh(f.fs, f.reg);
    auto t0 = std::chrono::steady_clock::now();
    auto r = sh.run("yes | head1; echo ${PIPESTATUS[@]}");
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
    EXPECT_EQ(r.out, "y\n141 0\n");
}

TEST(Shell, LongPipelineStreamsInBoundedMemory) {
    Fixture f;
    Shell sh(f.fs, f.reg);
    auto r = sh.run("seqn 2000000 | tailn");
    EXPECT_EQ(r.out, "2000000\n");
    EXPECT_EQ(r.exit_code, 0);
}

TEST(Shell, ShellBuiltinWriterGetsBrokenPipe) {
    Fixture f;
    Shell sh(f.fs, f.reg);
    auto r = sh.run("while :; do echo y; done | head1; echo ${PIPESTATUS[@]}");
    EXPECT_EQ(r.out, "y\n141 0\n");
}

TEST(Shell, ExecRedirectionsLastForTheSession) {
    Fixture f;
    Shell sh(f.fs, f.reg);
    EXPECT_EQ(sh.run("exec 3>/tmp/log").exit_code, 0);
    EXPECT_EQ(sh.run("echo one >&3; echo two >&3").exit_code, 0);
    auto r = sh.run("exec 3>&-; while read l; do echo \"<$l>\"; done < /tmp/log");
    EXPECT_EQ(r.out, "<one>\n<two>\n");
    // A dup of stdout made in one run writes to the current run's stdout later.
    EXPECT_EQ(sh.run("exec 4>&1").exit_code, 0);
    r = sh.run("echo via4 >&4");
    EXPECT_EQ(r.out, "via4\n");
}

TEST(Shell, StdinIsReadByCommands) {
    Fixture f;
    Shell sh(f.fs, f.reg);
    auto r = sh.run("read a; upper", "first\nrest of\ninput\n");
    EXPECT_EQ(r.out, "REST OF\nINPUT\n");
}

TEST(Shell, ScriptsInPathRunInChildInterpreter) {
    Fixture f;
    ASSERT_TRUE(f.fs.mkdir_all("/usr/local/bin").ok());
    ASSERT_TRUE(f.fs.write_file("/usr/local/bin/greet", "#!/bin/bash\necho \"hi $1 from $0\"\nexit 4\n", 0755).ok());
    ASSERT_TRUE(f.fs.write_file("/tmp/noexec", "echo x\n", 0644).ok());
    Shell sh(f.fs, f.reg);
    auto r = sh.run("greet you; echo $?; /tmp/noexec; echo $?");
    EXPECT_EQ(r.out, "hi you from /usr/local/bin/greet\n4\n126\n");
}

TEST(Shell, ReadTimeout) {
    Fixture f;
    Shell sh(f.fs, f.reg);
    auto t0 = std::chrono::steady_clock::now();
    auto r = sh.run("{ sleepms 1000; echo late; } | { read -t 0.1 x; echo \"$? [$x]\"; }");
    EXPECT_EQ(r.out, "142 []\n");
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);
    r = sh.run("read -t 1 x <<< now; echo \"$? $x\"; read -t 0 < /dev/null; echo $?; { sleepms 300; } | { read -t 0; echo $?; }");
    EXPECT_EQ(r.out, "0 now\n0\n1\n");
}

TEST(Shell, BackgroundJobsRunConcurrently) {
    Fixture f;
    Shell sh(f.fs, f.reg);
    auto t0 = std::chrono::steady_clock::now();
    auto r = sh.run("for i in 1 2 3 4; do sleepms 300 & done; wait; echo done");
    EXPECT_EQ(r.out, "done\n");
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 1100ms);
    r = sh.run("sleepms 5000 & pid=$!; kill $pid; wait $pid; echo $?");
    EXPECT_EQ(r.out, "143\n");
}

TEST(Shell, JobsPersistAcrossRuns) {
    Fixture f;
    Shell sh(f.fs, f.reg);
    EXPECT_EQ(sh.run("{ sleepms 200; echo bg-done > /tmp/out; } &").exit_code, 0);
    auto r = sh.run("wait; read l < /tmp/out; echo $l");
    EXPECT_EQ(r.out, "bg-done\n");
}

TEST(Shell, XtraceLikeBash) {
    Fixture f;
    Shell sh(f.fs, f.reg);
    auto r = sh.run("set -x; x=$(echo b); echo \"a b\" c; for i in 1; do :; done; case a in a) ;; esac; (( 1+1 )); a=(1 2)");
    EXPECT_EQ(r.err,
              "++ echo b\n+ x=b\n+ echo 'a b' c\n+ for i in 1\n+ :\n+ case a in\n+ ((  1+1  ))\n+ a=(1 2)\n");
}

// ---------------------------------------------------------------- limits

TEST(Limits, TimeoutStopsInfiniteLoop) {
    Fixture f;
    ShellOptions o;
    o.limits.timeout = 300ms;
    Shell sh(f.fs, f.reg, o);
    auto t0 = std::chrono::steady_clock::now();
    auto r = sh.run("while :; do :; done");
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
    EXPECT_EQ(r.exit_code, 124);
    EXPECT_NE(r.err.find("timed out"), std::string::npos);
    EXPECT_EQ(sh.run("echo usable").out, "usable\n");
}

TEST(Limits, TimeoutStopsBlockedPipeline) {
    Fixture f;
    ShellOptions o;
    o.limits.timeout = 300ms;
    Shell sh(f.fs, f.reg, o);
    auto t0 = std::chrono::steady_clock::now();
    auto r = sh.run("yes | while :; do :; done");
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
    EXPECT_EQ(r.exit_code, 124);
}

TEST(Limits, CancelFromAnotherThread) {
    Fixture f;
    Shell sh(f.fs, f.reg);
    std::thread t([&] {
        std::this_thread::sleep_for(200ms);
        sh.cancel();
    });
    auto r = sh.run("while :; do :; done");
    t.join();
    EXPECT_EQ(r.exit_code, 130);
    EXPECT_EQ(sh.run("echo usable").out, "usable\n");
}

TEST(Limits, ForkBombIsBounded) {
    Fixture f;
    ShellOptions o;
    o.limits.timeout = 3s;
    Shell sh(f.fs, f.reg, o);
    auto t0 = std::chrono::steady_clock::now();
    auto r = sh.run(":(){ :|:& };:");
    (void)r;
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 20s);
    EXPECT_EQ(sh.run("echo usable").out, "usable\n");
}

TEST(Limits, DoublingVariableStops) {
    Fixture f;
    ShellOptions o;
    o.limits.max_variable_bytes = 1 << 20;
    Shell sh(f.fs, f.reg, o);
    auto r = sh.run("x=x; while :; do x=$x$x; done");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("value too large"), std::string::npos);
    EXPECT_EQ(sh.run("echo ${#x}").out, "1048576\n");
}

TEST(Limits, TotalVariableBytes) {
    Fixture f;
    ShellOptions o;
    o.limits.max_total_variable_bytes = 1 << 20;
    Shell sh(f.fs, f.reg, o);
    auto r = sh.run("s=$(printf '%*s' 100000 x); for i in {1..100}; do eval \"v$i=\\$s\"; done");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.err.find("total size limit"), std::string::npos);
}

TEST(Limits, RecursionWithoutEnd) {
    Fixture f;
    Shell sh(f.fs, f.reg);
    auto r = sh.run("f() { f; }; f; echo unreachable");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("maximum function nesting level exceeded"), std::string::npos);
    EXPECT_EQ(sh.run("echo usable").out, "usable\n");
}

TEST(Limits, DeepRecursionNeverOverflowsTheStack) {
    Fixture f;
    ShellOptions o;
    o.limits.max_call_depth = 10'000'000;  // only the stack guard can stop it
    o.limits.eval_stack_bytes = 16u << 20;
    Shell sh(f.fs, f.reg, o);
    auto r = sh.run("f() { local x=$1; { f $((x+1)); }; }; f 0");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.err.find("maximum nesting depth exceeded"), std::string::npos);
    EXPECT_EQ(sh.run("echo usable").out, "usable\n");
}

TEST(Limits, RecursiveCommandSubstitution) {
    Fixture f;
    Shell sh(f.fs, f.reg);
    auto r = sh.run("f() { echo $(f); }; f; echo after");
    EXPECT_NE(r.err.find("maximum"), std::string::npos);
    EXPECT_EQ(sh.run("echo usable").out, "usable\n");
}

TEST(Limits, HugeBraceExpansion) {
    Fixture f;
    Shell sh(f.fs, f.reg);
    auto t0 = std::chrono::steady_clock::now();
    auto r = sh.run("echo {1..999999999}");
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("brace expansion"), std::string::npos);
}

TEST(Limits, HugePrintfWidth) {
    Fixture f;
    Shell sh(f.fs, f.reg);
    auto t0 = std::chrono::steady_clock::now();
    auto r = sh.run("printf '%*d' 2000000000 1; echo status $?");
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
    EXPECT_NE(r.out.find("status 1"), std::string::npos);
    EXPECT_LT(r.out.size(), 100u);
}

TEST(Limits, OutputIsTruncatedWithAFlag) {
    Fixture f;
    ShellOptions o;
    o.limits.max_output_bytes = 100;
    Shell sh(f.fs, f.reg, o);
    auto r = sh.run("for i in {1..100}; do echo line; done; echo err >&2");
    EXPECT_EQ(r.out.size(), 100u);
    EXPECT_TRUE(r.out_truncated);
    EXPECT_FALSE(r.err_truncated);
    EXPECT_EQ(r.exit_code, 0);
}

TEST(Limits, LoopIterations) {
    Fixture f;
    ShellOptions o;
    o.limits.max_loop_iterations = 10;
    Shell sh(f.fs, f.reg, o);
    auto r = sh.run("i=0; while :; do i=$((i+1)); done");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("maximum iterations"), std::string::npos);
    EXPECT_EQ(sh.get_var("i"), "10");
}

TEST(Limits, ArrayEntries) {
    Fixture f;
    ShellOptions o;
    o.limits.max_array_entries = 1000;
    Shell sh(f.fs, f.reg, o);
    auto r = sh.run("for ((i=0;;i++)); do a[i]=x; done");
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("too many array elements"), std::string::npos);
    EXPECT_EQ(sh.run("echo ${#a[@]}").out, "1000\n");
    r = sh.run("b=({1..2000})");
    EXPECT_NE(r.err.find("too many"), std::string::npos);
}

TEST(Limits, BackgroundJobs) {
    Fixture f;
    ShellOptions o;
    o.limits.max_background_jobs = 3;
    o.limits.timeout = 5s;
    Shell sh(f.fs, f.reg, o);
    auto r = sh.run("for i in 1 2 3 4 5; do while :; do :; done & done; jobs -p | { n=0; while read; do n=$((n+1)); done; echo $n; }; kill %1 %2 %3; wait");
    EXPECT_EQ(r.out, "3\n");
    EXPECT_NE(r.err.find("background job limit"), std::string::npos);
}

// ---------------------------------------------------------------- streams

TEST(Streams, PipeBrokenWhenReaderGone) {
    CancelToken tok;
    auto ends = make_pipe(&tok, 16);
    EXPECT_TRUE(ends.writer->write("0123456789").ok());
    ends.reader.reset();
    IoResult r = ends.writer->write("more data that does not fit");
    EXPECT_EQ(r.err, EPIPE);
}

TEST(Streams, PipeEofWhenWriterGone) {
    CancelToken tok;
    auto ends = make_pipe(&tok, 4);
    std::thread w([&] {
        (void)ends.writer->write("hello\nworld\n");
        ends.writer.reset();
    });
    std::string line;
    EXPECT_TRUE(ends.reader->read_until('\n', line).ok());
    EXPECT_EQ(line, "hello\n");
    std::string rest;
    EXPECT_TRUE(ends.reader->read_all(rest).ok());
    EXPECT_EQ(rest, "world\n");
    w.join();
}

TEST(Streams, PipeHonoursCancel) {
    CancelToken tok;
    auto ends = make_pipe(&tok, 4);
    std::thread c([&] {
        std::this_thread::sleep_for(50ms);
        tok.cancel();
    });
    char buf[8];
    IoResult r = ends.reader->read(buf, sizeof buf);
    EXPECT_EQ(r.err, ECANCELED);
    c.join();
}

TEST(Streams, SinkCap) {
    StringSink s(5);
    EXPECT_TRUE(s.write("abc").ok());
    EXPECT_TRUE(s.write("defg").ok());
    EXPECT_TRUE(s.truncated());
    EXPECT_EQ(s.take(), "abcde");
}

TEST(Registry, AddFindRemove) {
    CommandRegistry reg;
    reg.add("b", "b help", [](CommandContext&) { return 0; });
    reg.add("a", "a help", [](CommandContext&) { return 1; });
    ASSERT_NE(reg.find("a"), nullptr);
    EXPECT_EQ(reg.find("a")->help, "a help");
    EXPECT_EQ(reg.names(), (std::vector<std::string>{"a", "b"}));
    EXPECT_TRUE(reg.erase("a"));
    EXPECT_EQ(reg.find("a"), nullptr);
}

TEST(Environment, SortedLookup) {
    Environment env({{"B", "2"}, {"A", "1"}, {"B", "3"}});
    ASSERT_NE(env.get("B"), nullptr);
    EXPECT_EQ(*env.get("B"), "3");
    EXPECT_EQ(env.entries().front().first, "A");
    EXPECT_EQ(env.get("C"), nullptr);
}

}  // namespace
