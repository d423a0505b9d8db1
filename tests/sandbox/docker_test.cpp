// LocalDockerSandbox: defaults, refusals, attributes and the exact docker command lines (through a recording
// ProcessRunner); an integration test against a real engine when `docker info` succeeds.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "sandbox/docker_sandbox.hpp"
#include "tests/sandbox/error_of.hpp"

namespace bashkit::sandbox {
namespace {

using json = nlohmann::json;
using Argv = std::vector<std::string>;

// Records every command line and answers from a script of results (default: status 0, no output).
struct DockerRecorder {
    std::vector<ProcessOptions> calls;
    std::function<ProcessResult(const ProcessOptions&)> answer;
    ProcessRunner runner() {
        return [this](const ProcessOptions& o) {
            calls.push_back(o);
            return answer ? answer(o) : ProcessResult{};
        };
    }
};

TEST(LocalDocker, DefaultsAndAttributes) {
    LocalDockerSandboxOptions d;
    EXPECT_EQ(d.image, "python:3.12-bookworm");
    EXPECT_EQ(d.shell, "bash");
    EXPECT_EQ(d.default_exec_timeout_seconds, 600);
    EXPECT_EQ(d.setup_script, "");
    EXPECT_EQ(d.setup_script_timeout_seconds, 300);
    EXPECT_EQ(d.network.kind(), Network::Kind::None);
    EXPECT_TRUE(d.hooks.empty());
    EXPECT_FALSE(d.access.has_value());
    LocalDockerSandbox sb;
    EXPECT_EQ(sb.type_name(), "LocalDockerSandbox");
    EXPECT_EQ(sb.supported_network(), (std::vector{Network::Kind::None, Network::Kind::All}));
    EXPECT_TRUE(sb.supported_header_bindings().empty());
    EXPECT_EQ(sb.supported_access(), (std::vector{SandboxAccess::none, SandboxAccess::files, SandboxAccess::full}));
    EXPECT_EQ(sb.access(), SandboxAccess::full);
    EXPECT_TRUE(sb.delete_on_cleanup());
    // The process tools: with the default image (the reference: when the image is omitted), not with another
    // one unless asked for.
    EXPECT_TRUE(sb.supports_background_processes());
    EXPECT_TRUE(LocalDockerSandbox::static_attributes().supports_background_processes);
    EXPECT_FALSE(LocalDockerSandbox({.image = "alpine:3"}).supports_background_processes());
    EXPECT_TRUE(LocalDockerSandbox({.image = "alpine:3", .supports_background_processes = true})
                    .supports_background_processes());
    EXPECT_FALSE(LocalDockerSandbox({.supports_background_processes = false}).supports_background_processes());
}

TEST(LocalDocker, Refusals) {
    EXPECT_EQ(error_of([] { LocalDockerSandbox({.network = Network::allow({"pypi.org"})}); }),
              "LocalDockerSandbox does not support network=allow; supported: none, all");
    EXPECT_EQ(error_of([] { LocalDockerSandbox({.image = ""}); }), "LocalDockerSandbox: image must not be empty");
    EXPECT_EQ(error_of([] { LocalDockerSandbox({.default_exec_timeout_seconds = 0}); }),
              "LocalDockerSandbox: default_exec_timeout_seconds must be positive");
    EXPECT_EQ(error_of([] { LocalDockerSandbox({.setup_script_timeout_seconds = -3}); }),
              "LocalDockerSandbox: setup_script_timeout_seconds must be positive");
    EXPECT_NO_THROW(LocalDockerSandbox({.network = Network::all()}));
    EXPECT_EQ(error_of([] { LocalDockerSandbox({.shell = "zsh"}); }), "LocalDockerSandbox: shell must be 'bash' or 'sh', got 'zsh'");
    EXPECT_NO_THROW(LocalDockerSandbox({.shell = "sh"}));
    EXPECT_EQ(error_of([] { LocalDockerSandbox({.header_bindings = {MistralApiBinding{}}}); }),
              "LocalDockerSandbox does not support header binding MistralApiBinding; supported: none");
    EXPECT_EQ(LocalDockerSandbox({.access = SandboxAccess::files}).access(), SandboxAccess::files);
}

TEST(LocalDocker, CommandLines) {
    LocalDockerSandbox none;
    EXPECT_EQ(none.info_argv(), (Argv{"docker", "info", "--format", "{{.ServerVersion}}"}));
    EXPECT_EQ(none.run_argv("bashkit-s1"), (Argv{"docker", "run", "-d", "--init", "--name", "bashkit-s1", "--network", "none",
                                                 "-w", "/workspace", "python:3.12-bookworm", "sleep", "infinity"}));
    LocalDockerSandbox all({.image = "alpine:3", .shell = "sh", .network = Network::all(), .docker = "/usr/bin/docker"});
    EXPECT_EQ(all.run_argv("n"), (Argv{"/usr/bin/docker", "run", "-d", "--init", "--name", "n", "-w", "/workspace",
                                       "alpine:3", "sleep", "infinity"}));
    EXPECT_EQ(all.exec_argv("c1", "echo 'hi'", 2.5), (Argv{"/usr/bin/docker", "exec", "-w", "/workspace", "c1", "timeout",
                                                          "-s", "TERM", "-k", "5", "2.5", "sh", "-c", "echo 'hi'"}));
    EXPECT_EQ(none.exec_argv("c1", "ls", 600), (Argv{"docker", "exec", "-w", "/workspace", "c1", "timeout", "-s", "TERM",
                                                     "-k", "5", "600", "bash", "-c", "ls"}));
    EXPECT_EQ(none.read_argv("c1", "a b.txt"), (Argv{"docker", "exec", "-w", "/workspace", "c1", "cat", "--", "a b.txt"}));
    EXPECT_EQ(none.write_argv("c1", "d/f"), (Argv{"docker", "exec", "-i", "-w", "/workspace", "c1", "sh", "-c",
                                                  "mkdir -p -- \"$(dirname -- \"$1\")\" && cat > \"$1\"", "sh", "d/f"}));
    EXPECT_EQ(none.list_argv("c1", ".", false), (Argv{"docker", "exec", "-w", "/workspace", "c1", "find", ".", "-mindepth",
                                                      "1", "-maxdepth", "1", "-printf", "%y %s %p\\n"}));
    EXPECT_EQ(none.list_argv("c1", "src", true),
              (Argv{"docker", "exec", "-w", "/workspace", "c1", "find", "src", "-mindepth", "1", "-printf", "%y %s %p\\n"}));
    EXPECT_EQ(none.rm_argv("c1"), (Argv{"docker", "rm", "-f", "c1"}));
    EXPECT_EQ(LocalDockerSandbox::container_name("a/b c"), "bashkit-a_b_c");
    EXPECT_EQ(LocalDockerSandbox::format_seconds(300), "300");
    EXPECT_EQ(LocalDockerSandbox::format_seconds(0.25), "0.25");
}

TEST(LocalDocker, SessionLifecycleDrivesTheCli) {
    DockerRecorder rec;
    rec.answer = [](const ProcessOptions& o) {
        ProcessResult r;
        if (o.argv[1] == "run") r.out = "abc123\n";
        if (o.argv[1] == "exec" && o.argv.back() == "sleep 99") r.exit_code = 124;
        if (o.argv[1] == "exec" && o.argv[5] == "cat") r.out = "content";
        if (o.argv[1] == "exec" && o.argv[5] == "find") r.out = "d 4096 ./src\nf 12 ./src/a.py\n";
        return r;
    };
    LocalDockerSandbox sb({.setup_script = "pip install x", .runner = rec.runner()});
    {
        SandboxSession s = sb.open("s1");
        EXPECT_EQ(s.location(), "abc123");
        auto r = s.execute("sleep 99", 1);
        EXPECT_EQ(r.exit_code, 124);
        EXPECT_TRUE(r.timed_out);
        EXPECT_EQ(s.call_tool("read_file", {{"path", "x"}})["content"], "content");
        EXPECT_EQ(s.call_tool("write_file", {{"path", "d/f"}, {"content", "DATA"}})["ok"], true);
        EXPECT_EQ(s.call_tool("list_files", {{"recursive", true}})["entries"],
                  json::parse(R"([{"path":"src","type":"directory","size":0},{"path":"src/a.py","type":"file","size":12}])"));
    }
    ASSERT_EQ(rec.calls.size(), 8u);
    EXPECT_EQ(rec.calls[0].argv, sb.info_argv());
    EXPECT_EQ(rec.calls[1].argv, sb.run_argv("bashkit-s1"));
    EXPECT_EQ(rec.calls[2].argv, sb.exec_argv("abc123", "pip install x", 300));  // setup_script_timeout_seconds
    EXPECT_EQ(rec.calls[2].timeout_seconds, 315);                                // the docker client's last resort
    EXPECT_EQ(rec.calls[3].argv, sb.exec_argv("abc123", "sleep 99", 1));
    EXPECT_EQ(rec.calls[4].argv, sb.read_argv("abc123", "x"));
    EXPECT_EQ(rec.calls[5].argv, sb.write_argv("abc123", "d/f"));
    EXPECT_EQ(rec.calls[5].stdin_data, "DATA");
    EXPECT_EQ(rec.calls[6].argv, sb.list_argv("abc123", ".", true));
    EXPECT_EQ(rec.calls[7].argv, sb.rm_argv("abc123"));
}

TEST(LocalDocker, DefaultTimeoutIs600) {
    DockerRecorder rec;
    rec.answer = [](const ProcessOptions& o) {
        ProcessResult r;
        if (o.argv[1] == "run") r.out = "c\n";
        return r;
    };
    LocalDockerSandbox sb({.runner = rec.runner()});
    sb.open().execute("true");
    EXPECT_EQ(rec.calls[2].argv, sb.exec_argv("c", "true", 600));
}

TEST(LocalDocker, NoEngineFailsClearly) {
    DockerRecorder rec;
    rec.answer = [](const ProcessOptions&) {
        ProcessResult r;
        r.exit_code = 1;
        r.err = "Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?\n";
        return r;
    };
    LocalDockerSandbox sb({.runner = rec.runner()});
    EXPECT_EQ(error_of([&] { sb.open(); }),
              "LocalDockerSandbox: no docker engine is reachable (`docker info` failed: Cannot connect to the Docker daemon "
              "at unix:///var/run/docker.sock. Is the docker daemon running?). Install Docker and start its daemon, or use "
              "another sandbox type.");
    EXPECT_EQ(rec.calls.size(), 1u);
    // A docker CLI that is not installed at all.
    LocalDockerSandbox missing({.docker = "/nonexistent/docker"});
    EXPECT_EQ(error_of([&] { missing.open(); }),
              "LocalDockerSandbox: no docker engine is reachable (`/nonexistent/docker info` failed: /nonexistent/docker: No "
              "such file or directory). Install Docker and start its daemon, or use another sandbox type.");
}

TEST(LocalDocker, FailedSetupScriptRemovesTheContainer) {
    DockerRecorder rec;
    rec.answer = [](const ProcessOptions& o) {
        ProcessResult r;
        if (o.argv[1] == "run") r.out = "c9\n";
        if (o.argv[1] == "exec") {
            r.exit_code = 3;
            r.err = "boom\n";
        }
        return r;
    };
    LocalDockerSandbox sb({.setup_script = "false", .runner = rec.runner()});
    EXPECT_EQ(error_of([&] { sb.open(); }), "LocalDockerSandbox: setup_script failed (status 3): boom");
    EXPECT_EQ(rec.calls.back().argv, sb.rm_argv("c9"));
}

TEST(LocalDocker, ProcessCommandLines) {
    LocalDockerSandbox sb;
    EXPECT_EQ(sb.process_argv("c1", 2, "python -m http.server"),
              (Argv{"docker", "exec", "-i", "-w", "/workspace", "c1", "sh", "-c",
                    "exec 3<&0; setsid \"$1\" -c \"$2\" <&3 3<&- & echo $! > \"$3\"; exec 3<&-; wait $!", "sh", "bash",
                    "python -m http.server", "/tmp/.bashkit-process-c1-2"}));
    EXPECT_EQ(sb.process_kill_argv("c1", 2), (Argv{"docker", "exec", "c1", "sh", "-c", "kill -KILL -\"$(cat \"$1\")\"",
                                                   "sh", "/tmp/.bashkit-process-c1-2"}));
}

// The process tools end to end through a stand-in for the docker CLI that runs `exec` on this host (in a
// folder standing for /workspace): the stdin, the output, the exit code, and a kill that reaches the program
// itself, which setsid took out of the docker client's process group.
TEST(LocalDocker, ProcessToolsThroughTheDockerCli) {
    char tmpl[] = "/tmp/bashkit-fake-docker-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    const std::string dir = tmpl, fake = dir + "/docker";
    {
        std::FILE* f = std::fopen(fake.c_str(), "w");
        ASSERT_NE(f, nullptr);
        std::fputs(("#!/bin/bash\n"
                    "case $1 in\n"
                    "  info) echo 24.0 ;;\n"
                    "  run) echo fake$$ ;;\n"
                    "  rm) ;;\n"
                    "  exec) shift\n"
                    "    while [[ $1 == -* ]]; do if [[ $1 == -w ]]; then cd '" + dir + "' || exit 1; shift; fi; shift; done\n"
                    "    shift; exec \"$@\" ;;\n"
                    "esac\n").c_str(), f);
        std::fclose(f);
        ::chmod(fake.c_str(), 0755);
    }
    LocalDockerSandbox sb({.docker = fake});
    std::string pid_path;
    {
        SandboxSession s = sb.open();
        json r = s.call_tool("start_process", {{"command", "while read l; do echo \"got $l\"; done; echo done >&2; exit 3"}});
        ASSERT_EQ(r["ok"], true) << r.dump();
        int id = r["process_id"];
        EXPECT_EQ(s.call_tool("write_process_input", {{"process_id", id}, {"input", "a\n"}, {"close_stdin", true}})["ok"], true);
        std::string out, err;
        json o;
        for (int i = 0; i < 200; ++i) {
            o = s.call_tool("read_process_output", {{"process_id", id}});
            out += o["stdout"].get<std::string>();
            err += o["stderr"].get<std::string>();
            if (!o["running"].get<bool>()) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(25));
        }
        EXPECT_EQ(out, "got a\n");
        EXPECT_EQ(err, "done\n");
        EXPECT_EQ(o["exit_code"], 3);
        // A long one: its process group is recorded, and kill_process ends it.
        int id2 = s.call_tool("start_process", {{"command", "echo up; sleep 60"}})["process_id"];
        for (int i = 0; i < 200 && s.call_tool("read_process_output", {{"process_id", id2}})["stdout"] != "up\n"; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(25));
        pid_path = "/tmp/.bashkit-process-" + s.location() + "-" + std::to_string(id2);
        std::FILE* pf = std::fopen(pid_path.c_str(), "r");
        ASSERT_NE(pf, nullptr);
        long pgid = 0;
        ASSERT_EQ(std::fscanf(pf, "%ld", &pgid), 1);
        std::fclose(pf);
        ASSERT_GT(pgid, 1);
        EXPECT_EQ(::kill(pid_t(-pgid), 0), 0);  // running, in a group of its own
        EXPECT_EQ(s.call_tool("kill_process", {{"process_id", id2}})["ok"], true);
        bool gone = false;
        for (int i = 0; i < 200 && !gone; ++i) {
            gone = ::kill(pid_t(-pgid), 0) != 0;
            if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        EXPECT_TRUE(gone) << "the program in the container outlived kill_process";
    }
    std::remove(pid_path.c_str());
    (void)std::system(("rm -rf '" + dir + "'").c_str());
}

// Against a real engine, when there is one.
TEST(LocalDocker, Integration) {
    ProcessResult info = run_process({.argv = {"docker", "info", "--format", "{{.ServerVersion}}"}, .timeout_seconds = 20});
    if (!info.started || info.exit_code != 0) GTEST_SKIP() << "skipped: `docker info` failed (no docker engine here)";
    LocalDockerSandbox sb({.image = "alpine:3", .shell = "sh"});
    SandboxSession s = sb.open();
    auto r = s.execute("echo hi > f; cat f; pwd");
    EXPECT_EQ(r.stdout_, "hi\n/workspace\n");
    r = s.execute("sleep 30", 1);
    EXPECT_EQ(r.exit_code, 124);
    EXPECT_EQ(s.call_tool("read_file", {{"path", "f"}})["content"], "hi\n");
}

}  // namespace
}  // namespace bashkit::sandbox
