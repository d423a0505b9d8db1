// SandboxServer: the server side of the remote sandbox protocol (sandbox/PROTOCOL.md), hosting BashkitSandbox
// sessions; what `bashkit serve` runs, and what the MistralSandbox tests start in a thread on loopback.
//
//   SandboxServer server({.tokens = {"secret-a", "secret-b"}});
//   int port = server.start();        // binds 127.0.0.1:0 (a free port) and serves in a thread
//   ...                               // MistralSandbox({.endpoint = "http://127.0.0.1:" + port, .api_token = ...})
//   server.stop();
//
// Every request needs "Authorization: Bearer <one of tokens>" (401 otherwise). Each session belongs to the
// token that created it: another token gets 404, as for a session that does not exist. A request body larger
// than max_request_bytes gets 413. A session lives at most min(its ttl_seconds, max_ttl_seconds) and, when it
// asked for an idle timeout, is deleted after that long without a request; a reaper thread deletes expired
// sessions every second (and a request for an expired one finds it gone). Sessions may use the network only
// when allow_network is set (and never private or loopback addresses); header bindings only when
// allow_header_bindings is set, their secrets then come from this process's GITHUB_TOKEN / MISTRAL_API_KEY.
// Expiry never waits on a session's running command: the reaper cancels it and the session is closed when
// the command returns.
//
// Replicas (base_dir set, sandbox/server/session_store.hpp): a session's tree, its create options and its
// shell state (saved after every exec that changed it) live under base_dir, which may be a volume shared by
// several servers ("replicas"). A request for a session this server does not hold reopens it from there,
// files, variables, functions, cwd and options, when its lease is free or expired; while another replica
// holds the lease the answer is 409 "session_elsewhere" naming that replica. A held session's lease is
// renewed every lease_seconds / 3; a session without a request for unload_idle_seconds is saved and let go
// (its lease released); stop() lets every session go the same way (they are deleted only by DELETE or by
// their expiry). Without base_dir sessions live in memory and none of this applies.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "interp/limits.hpp"
#include "vfs/limited_fs.hpp"

namespace bashkit::sandbox {

struct SandboxServerOptions {
    std::string host = "127.0.0.1";
    int port = 0;                          // 0: a free port (port() tells which)
    std::vector<std::string> tokens;       // at least one; each non-empty
    size_t max_request_bytes = size_t(16) << 20;
    int64_t max_ttl_seconds = 86400;       // a session's ttl_seconds is capped here
    size_t max_sessions_per_token = 32;    // further creates get 429
    double max_exec_timeout_seconds = 3600;  // an exec's timeout_seconds is capped here
    std::string base_dir;                  // sessions on disk under it (trees, state, leases); empty: in memory
    bool allow_network = false;            // sessions may ask for network all/allow
    bool allow_header_bindings = false;    // sessions may ask for GitHubBinding / MistralApiBinding
    interp::ExecutionLimits limits;        // per command (limits.timeout is the exec's timeout)
    vfs::FsLimits fs_limits;               // per session (max_open_files: its host descriptors)
    // Host descriptors all sessions on disk (base_dir set) may hold together: a create that would let the
    // sessions' fs_limits.max_open_files add up past it gets 503 (code "server_full"), so one tenant's
    // descriptors can never starve another's. 0: the process's RLIMIT_NOFILE soft limit less 256 for the
    // server itself (`bashkit serve` raises the soft limit to the hard one first).
    uint64_t max_open_files = 0;
    // How often the reaper thread deletes expired sessions; 0: no reaper thread (call reap()). Expired
    // sessions are 404 either way.
    double reap_interval_seconds = 1;
    // The clock TTLs and idle timeouts are measured with (tests move it forward); empty: steady_clock::now.
    std::function<std::chrono::steady_clock::time_point()> clock;
    // This server's name among the replicas sharing base_dir (in leases, 409 answers, /healthz and the
    // X-Bashkit-Replica header); must be unique among live replicas. Empty: "<hostname>-<pid>".
    std::string replica_id;
    // How long a session's lease lasts without renewal (renewed every third of it while the session is
    // held): how long a session of a replica that died waits before another replica may reopen it.
    double lease_seconds = 15;
    // A session held without any request for this long is saved and let go (another replica may take it);
    // 0: never. Background processes of a session let go are killed.
    double unload_idle_seconds = 300;
    // fdatasync every file of the base dir (state, lease, metadata) before renaming it into place: survives a
    // power loss of the volume's own machine, at the cost of a flush per exec that changed the state (2 to 6 ms
    // more per such exec on this project's machine, docs/operations.md). Without it the files are complete for any replica that reads them after a
    // replica died (the kernel or the NFS client holds them once written and closed).
    bool sync_writes = false;
};

class SandboxServer {
public:
    // Throws std::invalid_argument when there is no token, a token is empty, or a cap is not positive.
    explicit SandboxServer(SandboxServerOptions options);
    ~SandboxServer();  // stop()
    SandboxServer(const SandboxServer&) = delete;
    SandboxServer& operator=(const SandboxServer&) = delete;

    // Binds host:port and returns the port. Throws std::runtime_error when it cannot.
    int bind();
    // Serves until stop() (bind() first). Returns false when the listener failed.
    bool serve();
    // bind(), then serve() in a thread; returns the port.
    int start();
    // Stops serving, joins the threads, closes every session. Idempotent.
    void stop();

    int port() const;
    size_t session_count() const;
    // Deletes the sessions whose TTL or idle timeout has passed; returns how many (the reaper calls it).
    size_t reap();
    // The replica id in use (replica_id, or its default).
    const std::string& replica_id() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace bashkit::sandbox
