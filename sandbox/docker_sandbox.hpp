// LocalDockerSandbox: a container of the local docker engine, driven through the docker CLI.
//
// open():   docker info --format {{.ServerVersion}}           (fails: "no docker engine is reachable")
//           docker run -d --init --name bashkit-<session> [--network none] -w /workspace IMAGE sleep infinity
//           docker exec -w /workspace CONTAINER timeout -s TERM -k 5 T SHELL -c SETUP_SCRIPT   (when given)
// execute:  docker exec -w /workspace CONTAINER timeout -s TERM -k 5 T SHELL -c COMMAND
//           (a timed-out command gets SIGTERM, SIGKILL 5 s later, and status 124, from coreutils `timeout`
//           inside the container; the docker client itself is killed 15 s after T as a last resort)
// files:    docker exec -w /workspace CONTAINER cat -- PATH
//           docker exec -i -w /workspace CONTAINER sh -c 'mkdir -p -- "$(dirname -- "$1")" && cat > "$1"' sh PATH
//           docker exec -w /workspace CONTAINER find PATH -mindepth 1 [-maxdepth 1] -printf '%y %s %p\n'
// process tools (start_process...; when supports_background_processes):
//           docker exec -i -w /workspace CONTAINER sh -c WRAPPER sh SHELL COMMAND PIDFILE
//           (WRAPPER starts SHELL -c COMMAND under setsid with the exec's stdin, writes its process group to
//           PIDFILE = /tmp/.bashkit-process-CONTAINER-ID and waits for it; the output and stdin travel
//           through the docker client, which the session's process table holds)
//           docker exec CONTAINER sh -c 'kill -KILL -"$(cat "$1")"' sh PIDFILE   (kill_process, first)
// close():  docker rm -f CONTAINER
//
// Networks none (the default: --network none) and all (docker's default bridge); no header bindings.
// The command lines are built by the functions below so tests can check them exactly.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sandbox/process.hpp"
#include "sandbox/sandbox.hpp"

namespace bashkit::sandbox {

struct LocalDockerSandboxOptions {
    std::string image = "python:3.12-bookworm";  // kDefaultImage
    // Whether the process tools are offered. Unset: true with the default image, false with another one
    // (the reference's rule: true when the image is omitted; the image must provide setsid).
    std::optional<bool> supports_background_processes;
    std::string shell = "bash";  // "bash" | "sh", run inside the container as SHELL -c COMMAND
    double default_exec_timeout_seconds = 600;
    std::string setup_script;    // run once after the container starts
    double setup_script_timeout_seconds = 300;
    Network network = Network::none();  // none | all
    WorkspaceHeaderBindings header_bindings;  // none supported
    std::vector<std::shared_ptr<SandboxHook>> hooks;
    std::optional<SandboxAccess> access;  // unset: full
    std::string docker = "docker";        // the docker CLI (a path or a name in PATH)
    ProcessRunner runner;                 // empty: run_process (tests record command lines here)
};

class LocalDockerSandbox final : public Sandbox {
public:
    static constexpr const char* kDefaultImage = "python:3.12-bookworm";
    // The class's attributes, as with every option left unset.
    static SandboxAttributes static_attributes();
    explicit LocalDockerSandbox(LocalDockerSandboxOptions options = {});
    const LocalDockerSandboxOptions& options() const { return opts_; }

    // The command lines (see above).
    std::vector<std::string> info_argv() const;
    std::vector<std::string> run_argv(const std::string& container_name) const;
    std::vector<std::string> exec_argv(const std::string& container, const std::string& command, double timeout_seconds) const;
    std::vector<std::string> read_argv(const std::string& container, const std::string& path) const;
    std::vector<std::string> write_argv(const std::string& container, const std::string& path) const;
    std::vector<std::string> list_argv(const std::string& container, const std::string& path, bool recursive) const;
    std::vector<std::string> rm_argv(const std::string& container) const;
    std::vector<std::string> process_argv(const std::string& container, int id, const std::string& command) const;
    std::vector<std::string> process_kill_argv(const std::string& container, int id) const;
    static std::string container_name(const std::string& session_id);
    // "600", "0.5": seconds as `timeout` takes them.
    static std::string format_seconds(double s);

protected:
    std::unique_ptr<SessionBackend> make_backend(const std::string& session_id) override;

private:
    LocalDockerSandboxOptions opts_;
};

}  // namespace bashkit::sandbox
