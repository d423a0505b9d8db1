// Streaming output: the callbacks get stdout and stderr chunks while the command runs; the result still has
// the whole (capped) output.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <mutex>
#include <thread>
#include <vector>

#include <unistd.h>

#include "ext_common.hpp"
#include "sandbox/bashkit_sandbox.hpp"
#include "sandbox/local_sandbox.hpp"

namespace bashkit::ext_test {
namespace {

using Clock = std::chrono::steady_clock;

struct Chunk {
    Clock::time_point at;
    bool err = false;
    std::string text;
};

struct Recorder {
    std::mutex mu;
    std::vector<Chunk> chunks;
    interp::OutputCallbacks callbacks() {
        return {[this](std::string_view s) { add(false, s); }, [this](std::string_view s) { add(true, s); }};
    }
    void add(bool err, std::string_view s) {
        std::lock_guard lock(mu);
        chunks.push_back({Clock::now(), err, std::string(s)});
    }
    std::string joined(bool err) {
        std::string out;
        for (const Chunk& c : chunks)
            if (c.err == err) out += c.text;
        return out;
    }
    std::vector<std::string> texts(bool err) {
        std::vector<std::string> v;
        for (const Chunk& c : chunks)
            if (c.err == err) v.push_back(c.text);
        return v;
    }
};

constexpr const char* kLoop = "for i in 1 2 3; do echo $i; sleep 0.1; done";

long ms_before(Clock::time_point at, Clock::time_point end) {
    return static_cast<long>(std::chrono::duration_cast<std::chrono::milliseconds>(end - at).count());
}

TEST(Streaming, ChunksArriveBeforeTheCommandEnds) {
    TestShell s;
    Recorder rec;
    interp::ExecResult r = s.sh.run(kLoop, {}, rec.callbacks());
    Clock::time_point end = Clock::now();
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.out, "1\n2\n3\n");
    ASSERT_EQ(rec.texts(false), (std::vector<std::string>{"1\n", "2\n", "3\n"}));
    // 1 is written ~300 ms before the loop ends, 2 ~200 ms, 3 ~100 ms.
    EXPECT_GE(ms_before(rec.chunks[0].at, end), 150);
    EXPECT_GE(ms_before(rec.chunks[1].at, end), 50);
    EXPECT_LE(rec.chunks[0].at, rec.chunks[1].at);
    EXPECT_LE(rec.chunks[1].at, rec.chunks[2].at);
}

TEST(Streaming, StderrAndStdoutSeparately) {
    TestShell s;
    Recorder rec;
    interp::ExecResult r = s.sh.run("echo out; echo err >&2; ls /nonexistent; echo end", {}, rec.callbacks());
    EXPECT_EQ(rec.joined(false), "out\nend\n");
    EXPECT_EQ(rec.joined(true), "err\nls: cannot access '/nonexistent': No such file or directory\n");
    EXPECT_EQ(r.out, rec.joined(false));
    EXPECT_EQ(r.err, rec.joined(true));
}

TEST(Streaming, PipelinesAndBackgroundOutputStream) {
    TestShell s;
    Recorder rec;
    interp::ExecResult r =
        s.sh.run("for i in 1 2 3; do echo $i; sleep 0.1; done | while read x; do echo got $x; done", {}, rec.callbacks());
    Clock::time_point end = Clock::now();
    EXPECT_EQ(r.out, "got 1\ngot 2\ngot 3\n");
    ASSERT_FALSE(rec.chunks.empty());
    EXPECT_EQ(rec.chunks[0].text, "got 1\n");
    EXPECT_GE(ms_before(rec.chunks[0].at, end), 150);
}

TEST(Streaming, TruncatedResultButEveryChunkStreamed) {
    interp::ShellOptions o;
    o.limits.max_output_bytes = 10;
    TestShell s(o);
    Recorder rec;
    interp::ExecResult r = s.sh.run("seq 1 100", {}, rec.callbacks());
    EXPECT_TRUE(r.out_truncated);
    EXPECT_EQ(r.out.size(), 10u);
    std::string all;
    for (int i = 1; i <= 100; ++i) all += std::to_string(i) + "\n";
    EXPECT_EQ(rec.joined(false), all);
}

TEST(Streaming, EmptyCallbacksAndStateAcrossRuns) {
    TestShell s;
    interp::ExecResult r = s.sh.run("x=5; echo $x", {}, interp::OutputCallbacks{});
    EXPECT_EQ(r.out, "5\n");
    Recorder rec;
    r = s.sh.run("echo $((x+1))", {}, rec.callbacks());
    EXPECT_EQ(rec.joined(false), "6\n");
    // stdin is still given to the script
    r = s.sh.run("cat", "from stdin\n", rec.callbacks());
    EXPECT_EQ(r.out, "from stdin\n");
}

TEST(Streaming, CustomCommandOutputStreams) {
    TestShell s;
    s.sh.add_command("tick", "tick : three lines, 100 ms apart", [](interp::CommandContext& ctx) {
        for (int i = 0; i < 3; ++i) {
            (void)ctx.out.write("tick\n");
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
        return 0;
    });
    Recorder rec;
    interp::ExecResult r = s.sh.run("tick", {}, rec.callbacks());
    Clock::time_point end = Clock::now();
    EXPECT_EQ(r.out, "tick\ntick\ntick\n");
    ASSERT_EQ(rec.chunks.size(), 3u);
    EXPECT_GE(ms_before(rec.chunks[0].at, end), 150);
}

TEST(StreamingSandbox, BashkitSandboxStreams) {
    sandbox::BashkitSandbox sb({.ephemeral = true});
    sandbox::SandboxSession s = sb.open();
    Recorder rec;
    sandbox::SandboxExecutionResult r = s.execute(kLoop, std::nullopt, rec.callbacks());
    Clock::time_point end = Clock::now();
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.stdout_, "1\n2\n3\n");
    ASSERT_EQ(rec.texts(false), (std::vector<std::string>{"1\n", "2\n", "3\n"}));
    EXPECT_GE(ms_before(rec.chunks[0].at, end), 150);
    // stderr, and a timeout: what was written before it is streamed, the result says timed out.
    Recorder rec2;
    r = s.execute("echo first; echo warn >&2; sleep 5; echo never", 0.3, rec2.callbacks());
    EXPECT_EQ(r.exit_code, 124);
    EXPECT_TRUE(r.timed_out);
    EXPECT_EQ(rec2.joined(false), "first\n");
    EXPECT_EQ(rec2.texts(true).front(), "warn\n");
    EXPECT_EQ(r.stderr_, rec2.joined(true));
}

TEST(StreamingSandbox, DangerousLocalSandboxStreamsFromThePipes) {
    if (access("/bin/bash", X_OK) != 0) GTEST_SKIP() << "no /bin/bash";
    std::string ws = (std::filesystem::temp_directory_path() / ("bashkit-ext-stream-" + sandbox::random_session_id())).string();
    std::filesystem::create_directories(ws);
    {
        sandbox::DangerousLocalSandbox sb({.workspace = ws, .delete_on_cleanup = true});
        sandbox::SandboxSession s = sb.open();
        Recorder rec;
        sandbox::SandboxExecutionResult r = s.execute(kLoop, std::nullopt, rec.callbacks());
        Clock::time_point end = Clock::now();
        EXPECT_EQ(r.stdout_, "1\n2\n3\n");
        EXPECT_EQ(rec.joined(false), r.stdout_);
        ASSERT_FALSE(rec.chunks.empty());
        EXPECT_EQ(rec.chunks[0].text, "1\n");
        EXPECT_GE(ms_before(rec.chunks[0].at, end), 150);
    }
    std::filesystem::remove_all(ws);
}

TEST(StreamingSandbox, OtherTypesDeliverAtTheEnd) {
    sandbox::NoSandbox sb;
    sandbox::SandboxSession s = sb.open();
    Recorder rec;
    sandbox::SandboxExecutionResult r = s.execute("echo x", std::nullopt, rec.callbacks());
    EXPECT_EQ(rec.joined(false), r.stdout_);
    EXPECT_EQ(rec.joined(true), r.stderr_);
}

}  // namespace
}  // namespace bashkit::ext_test
