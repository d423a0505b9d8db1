// Custom commands: an embedder's own command takes part in pipelines, redirections, xargs, find -exec,
// timeout, env and command lookup like any utility; names of builtins and utilities are refused unless
// replaced on purpose; a registration belongs to one session.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "ext_common.hpp"
#include "sandbox/bashkit_sandbox.hpp"

namespace bashkit::ext_test {
namespace {

using interp::CommandContext;

// upper: copies stdin (or its file arguments) to stdout in upper case.
int cmd_upper(CommandContext& ctx) {
    auto pump = [&](interp::ByteStream& in) {
        char buf[4096];
        for (;;) {
            if (ctx.cancelled()) return 130;
            interp::IoResult r = in.read(buf, sizeof buf);
            if (r.n == 0) return r.err ? 1 : 0;
            std::string s(buf, r.n);
            for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
            if (!ctx.out.write(s).ok()) return 141;
        }
    };
    if (ctx.argv.size() == 1) return pump(ctx.in);
    for (size_t i = 1; i < ctx.argv.size(); ++i) {
        auto content = ctx.fs.read_file(ctx.resolve(ctx.argv[i]));
        if (!content) {
            ctx.error(ctx.argv[i] + ": No such file or directory");
            return 1;
        }
        interp::StringSource src(*content);
        if (int st = pump(src)) return st;
    }
    return 0;
}

// greet NAME...: "hello NAME" per argument; greet with no argument fails with a message on stderr.
int cmd_greet(CommandContext& ctx) {
    if (ctx.argv.size() < 2) {
        ctx.error("missing name");
        return 2;
    }
    for (size_t i = 1; i < ctx.argv.size(); ++i) (void)ctx.out.write("hello " + ctx.argv[i] + "\n");
    return 0;
}

// spin: runs until cancelled (what timeout must stop).
int cmd_spin(CommandContext& ctx) {
    while (!ctx.cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    return 130;
}

// showenv NAME: the exported variable and the cwd the command sees.
int cmd_showenv(CommandContext& ctx) {
    const std::string* v = ctx.argv.size() > 1 ? ctx.env.get(ctx.argv[1]) : nullptr;
    (void)ctx.out.write((v ? *v : std::string("<unset>")) + " " + ctx.cwd + "\n");
    return 0;
}

// mkfile PATH TEXT: writes a file through the session's FileSystem.
int cmd_mkfile(CommandContext& ctx) {
    if (ctx.argv.size() != 3) return 2;
    auto w = ctx.fs.write_file(ctx.resolve(ctx.argv[1]), ctx.argv[2]);
    return w ? 0 : 1;
}

struct CustomShell : TestShell {
    CustomShell() {
        sh.add_command("upper", "upper [FILE]... : copy to stdout in upper case", cmd_upper);
        sh.add_command("greet", "greet NAME... : say hello", cmd_greet);
        sh.add_command("spin", "spin : run until cancelled", cmd_spin);
        sh.add_command("showenv", "showenv NAME : print an exported variable and the cwd", cmd_showenv);
        sh.add_command("mkfile", "mkfile PATH TEXT : write a file", cmd_mkfile);
        (void)sh.run("mkdir -p /work && cd /work");
    }
};

struct Case {
    const char* script;
    const char* out;
    int status = 0;
};

class CustomCommandTable : public ::testing::TestWithParam<Case> {};

TEST_P(CustomCommandTable, Runs) {
    CustomShell s;
    const Case& c = GetParam();
    interp::ExecResult r = s.sh.run(c.script);
    EXPECT_EQ(r.out, c.out) << c.script << "\nstderr: " << r.err;
    EXPECT_EQ(r.exit_code, c.status) << c.script << "\nstderr: " << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    Ext, CustomCommandTable,
    ::testing::Values(
        // pipelines, in every position
        Case{"printf 'a\\nb\\n' | upper", "A\nB\n"},
        Case{"printf 'ab\\ncd\\n' | upper | tr -d '\\n'; echo", "ABCD\n"},
        Case{"greet x y | upper | sort -r", "HELLO Y\nHELLO X\n"},
        Case{"seq 3 | upper | wc -l", "3\n"},
        Case{"yes abc | upper | head -n 2", "ABC\nABC\n"},
        Case{"greet | upper; echo \"${PIPESTATUS[*]}\"", "2 0\n"},  // greet's message went to stderr
        Case{"greet 2>&1 | upper; echo \"${PIPESTATUS[*]}\"", "GREET: MISSING NAME\n2 0\n"},
        Case{"set -o pipefail; greet 2>/dev/null | upper; echo $?", "2\n"},
        // redirections
        Case{"greet a > out.txt; greet b >> out.txt; cat out.txt", "hello a\nhello b\n"},
        Case{"echo low > in.txt; upper < in.txt", "LOW\n"},
        Case{"upper <<< 'here string'", "HERE STRING\n"},
        Case{"upper <<'EOF'\nhere doc\nEOF", "HERE DOC\n"},
        Case{"greet 2> err.txt; echo $?; cat err.txt", "2\ngreet: missing name\n"},
        Case{"{ greet a; greet; } > all.txt 2>&1; cat all.txt", "hello a\ngreet: missing name\n"},
        Case{"upper < <(greet proc)", "HELLO PROC\n"},
        Case{"x=$(greet sub | upper); echo \"[$x]\"", "[HELLO SUB]\n"},
        // arguments from files, the cwd, the FileSystem
        Case{"echo file > f.txt; upper f.txt", "FILE\n"},
        Case{"upper nope.txt; echo $?", "1\n"},
        Case{"mkfile made.txt content && cat made.txt; echo", "content\n"},
        Case{"mkdir sub && cd sub && mkfile here.txt x && ls /work/sub", "here.txt\n"},
        // xargs
        Case{"printf 'x\\ny\\n' | xargs greet", "hello x\nhello y\n"},
        Case{"printf 'x\\ny\\nz\\n' | xargs -n 1 greet", "hello x\nhello y\nhello z\n"},
        Case{"printf 'p q' | xargs -I{} greet '<{}>'", "hello <p q>\n"},
        Case{"echo a b | xargs greet | upper", "HELLO A\nHELLO B\n"},
        // find -exec
        Case{"mkdir d && touch d/one d/two && find d -type f -exec greet {} \\; | sort", "hello d/one\nhello d/two\n"},
        Case{"mkdir e && touch e/a e/b && find e -type f -exec greet {} + | sort", "hello e/a\nhello e/b\n"},
        Case{"mkdir g && echo in > g/f && find g -name f -exec upper {} \\;", "IN\n"},
        // timeout
        Case{"timeout 0.2 spin; echo $?", "124\n"},
        Case{"timeout 5 greet t; echo $?", "hello t\n0\n"},
        Case{"timeout 0.1 spin | upper; echo \"${PIPESTATUS[0]}\"", "124\n"},
        // env, command, type, exec-like lookups
        Case{"FOO=bar showenv FOO", "bar /work\n"},
        Case{"export FOO=baz; showenv FOO; env -u FOO showenv FOO", "baz /work\n<unset> /work\n"},
        Case{"env FOO=e showenv FOO", "e /work\n"},
        Case{"command greet c", "hello c\n"},
        Case{"command -v greet >/dev/null && echo found", "found\n"},
        Case{"type -t greet", "file\n"},
        Case{"help greet", "greet: greet NAME... : say hello\n"},
        Case{"greet() { echo function wins; }; greet x; command greet y", "function wins\nhello y\n"},
        Case{"bash -c 'greet child'", "hello child\n"},
        Case{"(greet subshell)", "hello subshell\n"},
        Case{"greet bg & wait; echo done", "hello bg\ndone\n"},
        Case{"for n in 1 2; do greet $n; done | upper", "HELLO 1\nHELLO 2\n"},
        Case{"greet && echo ok || echo failed", "failed\n"},
        Case{"nosuch 2>/dev/null; echo $?", "127\n"}));

TEST(CustomCommand, ErrorsGoToStderr) {
    CustomShell s;
    interp::ExecResult r = s.sh.run("greet");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "greet: missing name\n");  // ctx.error writes "argv0: message"
}

TEST(CustomCommand, RefusesBuiltinAndUtilityNamesUnlessReplaced) {
    TestShell s;
    auto fn = [](CommandContext& ctx) {
        (void)ctx.out.write("custom " + ctx.argv[0] + "\n");
        return 0;
    };
    EXPECT_EQ(error_of([&] { s.sh.add_command("cat", "", fn); }),
              "add_command: 'cat' is a built-in utility; pass replace=true to override it");
    EXPECT_EQ(error_of([&] { s.sh.add_command("echo", "", fn); }),
              "add_command: 'echo' is a shell builtin; pass replace=true to override it");
    EXPECT_EQ(error_of([&] { s.sh.add_command("bash", "", fn); }),
              "add_command: 'bash' is a built-in utility; pass replace=true to override it");
    EXPECT_EQ(error_of([&] { s.sh.add_command("export", "", fn, true); }),
              "add_command: 'export' is a special shell builtin and cannot be replaced");
    EXPECT_EQ(error_of([&] { s.sh.add_command("exit", "", fn, true); }),
              "add_command: 'exit' is a special shell builtin and cannot be replaced");
    EXPECT_EQ(error_of([&] { s.sh.add_command("local", "", fn, true); }),
              "add_command: 'local' is a special shell builtin and cannot be replaced");
    EXPECT_EQ(error_of([&] { s.sh.add_command("if", "", fn, true); }), "add_command: 'if' is a shell keyword");
    EXPECT_EQ(error_of([&] { s.sh.add_command("a/b", "", fn); }), "add_command: 'a/b' is not a valid command name");
    EXPECT_EQ(error_of([&] { s.sh.add_command("a b", "", fn); }), "add_command: 'a b' is not a valid command name");
    EXPECT_EQ(error_of([&] { s.sh.add_command("x=1", "", fn); }), "add_command: 'x=1' is not a valid command name");
    EXPECT_EQ(error_of([&] { s.sh.add_command("", "", fn); }), "add_command: the command name is empty");
    EXPECT_EQ(error_of([&] { s.sh.add_command("nofn", "", interp::CommandFn{}); }),
              "add_command: 'nofn': no function given");
    // The refused ones changed nothing.
    EXPECT_EQ(s.sh.run("echo x | cat").out, "x\n");

    s.sh.add_command("mine", "", fn);
    EXPECT_EQ(error_of([&] { s.sh.add_command("mine", "", fn); }),
              "add_command: 'mine' is already registered in this session; pass replace=true to override it");

    // Replacing on purpose: the custom command runs instead of the utility or builtin.
    s.sh.add_command("cat", "cat : custom", fn, true);
    s.sh.add_command("echo", "echo : custom", fn, true);
    EXPECT_EQ(s.sh.run("cat; echo hi; builtin echo real").out, "custom cat\ncustom echo\nreal\n");
    EXPECT_EQ(s.sh.run("type -t echo").out, "file\n");
    EXPECT_TRUE(s.sh.remove_command("echo"));
    EXPECT_FALSE(s.sh.remove_command("echo"));
    EXPECT_EQ(s.sh.run("echo hi; type -t echo").out, "hi\nbuiltin\n");
}

TEST(CustomCommand, BelongsToOneSession) {
    // Two sessions over the same shared registry: a registration in one never shows in the other.
    vfs::MemoryFs fs1, fs2;
    interp::Shell a(fs1, utils::all_utilities());
    interp::Shell b(fs2, utils::all_utilities());
    a.add_command("greet", "greet NAME...", cmd_greet);
    EXPECT_EQ(a.run("greet a").out, "hello a\n");
    interp::ExecResult r = b.run("greet b");
    EXPECT_EQ(r.exit_code, 127);
    EXPECT_EQ(r.err, "bashkit: line 1: greet: command not found\n");
    EXPECT_EQ(utils::all_utilities().find("greet"), nullptr);
    // A replacement in one session leaves the other's utility alone.
    a.add_command("wc", "", [](CommandContext& ctx) { return ctx.out.write("fake\n").ok() ? 0 : 1; }, true);
    EXPECT_EQ(a.run("echo x | wc -l").out, "fake\n");
    EXPECT_EQ(b.run("echo x | wc -l").out, "1\n");
}

TEST(CustomCommand, RegisteringWhileABackgroundJobRuns) {
    TestShell s;
    s.sh.add_command("greet", "", cmd_greet);
    EXPECT_EQ(s.sh.run("for i in $(seq 200); do greet $i; done > /dev/null & echo started").out, "started\n");
    for (int i = 0; i < 50; ++i) s.sh.add_command("greet", "", cmd_greet, true);
    s.sh.add_command("other", "", cmd_greet);
    EXPECT_EQ(s.sh.run("wait; other z").out, "hello z\n");
}

TEST(CustomCommand, CancelReachesTheCommand) {
    TestShell s;
    s.sh.add_command("spin", "", cmd_spin);
    std::thread t([&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        s.sh.cancel();
    });
    auto start = std::chrono::steady_clock::now();
    interp::ExecResult r = s.sh.run("spin; echo not reached");
    t.join();
    EXPECT_EQ(r.exit_code, 130);
    EXPECT_EQ(r.out, "");
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

// ---------------------------------------------------------------- BashkitSandbox

TEST(CustomCommandSandbox, FromOptionsAndPerSession) {
    sandbox::BashkitSandboxOptions o;
    o.ephemeral = true;
    o.commands.push_back({"greet", "greet NAME... : say hello", cmd_greet});
    sandbox::BashkitSandbox sb(std::move(o));
    sandbox::SandboxSession s1 = sb.open();
    sandbox::SandboxSession s2 = sb.open();
    EXPECT_EQ(s1.execute("printf 'a\\nb\\n' | xargs greet | sort -r").stdout_, "hello b\nhello a\n");
    s1.add_command({"upper", "upper", cmd_upper});
    EXPECT_EQ(s1.execute("greet x | upper > f && cat f").stdout_, "HELLO X\n");
    EXPECT_EQ(s1.execute("mkdir d && touch d/z && find d -type f -exec greet {} \\;").stdout_, "hello d/z\n");
    EXPECT_EQ(s1.execute("timeout 0.2 greet t").stdout_, "hello t\n");
    sandbox::SandboxExecutionResult r = s2.execute("upper");
    EXPECT_EQ(r.exit_code, 127);
    EXPECT_EQ(r.stderr_, "bashkit: line 1: upper: command not found\n");
    EXPECT_EQ(s2.execute("greet only-options").stdout_, "hello only-options\n");
    // The tools of the session reach it too (bash tool).
    nlohmann::json t = s1.call_tool("bash", {{"command", "greet tool | upper"}});
    EXPECT_NE(t.dump().find("HELLO TOOL"), std::string::npos) << t.dump();
}

TEST(CustomCommandSandbox, Refusals) {
    EXPECT_EQ(error_of([] {
                  sandbox::BashkitSandboxOptions o;
                  o.ephemeral = true;
                  o.commands.push_back({"grep", "", cmd_greet});
                  sandbox::BashkitSandbox sb(std::move(o));
              }),
              "add_command: 'grep' is a built-in utility; pass replace=true to override it");
    EXPECT_EQ(error_of([] {
                  sandbox::BashkitSandboxOptions o;
                  o.ephemeral = true;
                  o.commands.push_back({"g", "", cmd_greet});
                  o.commands.push_back({"g", "", cmd_greet});
                  sandbox::BashkitSandbox sb(std::move(o));
              }),
              "BashkitSandbox: command 'g' is given twice");
    sandbox::BashkitSandboxOptions o;
    o.ephemeral = true;
    o.commands.push_back({"grep", "grep : replaced", cmd_greet, /*replace=*/true});
    sandbox::BashkitSandbox sb(std::move(o));
    sandbox::SandboxSession s = sb.open();
    EXPECT_EQ(s.execute("grep me").stdout_, "hello me\n");
    EXPECT_EQ(error_of([&] { s.add_command({"sed", "", cmd_greet}); }),
              "add_command: 'sed' is a built-in utility; pass replace=true to override it");
    s.close();
    EXPECT_EQ(error_of([&] { s.add_command({"x", "", cmd_greet}); }),
              "BashkitSandbox: session '" + s.id() + "' is not open");
}

}  // namespace
}  // namespace bashkit::ext_test
