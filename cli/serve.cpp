#include "cli/serve.hpp"

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include <pthread.h>
#include <sys/resource.h>

#include "sandbox/server/server.hpp"

namespace bashkit::cli {
namespace {

constexpr const char* kServeUsage =
    "Usage:\tbashkit serve [option] ...\n"
    "Serves the remote sandbox protocol (sandbox/PROTOCOL.md) over HTTP: every session is a BashkitSandbox\n"
    "session, reached by MistralSandbox{.endpoint = \"http://HOST:PORT\"}. Stops on SIGINT or SIGTERM.\n"
    "Options:\n"
    "\t--host ADDR\t\t\tlisten on ADDR (default 127.0.0.1; anything else exposes the sandboxes:\n"
    "\t\t\t\t\tput TLS in front of it)\n"
    "\t--port N\t\t\tlisten on port N (default 0: a free port); the line\n"
    "\t\t\t\t\t\"bashkit serve: listening on http://HOST:PORT\" is printed once listening\n"
    "\t--token-file FILE\t\tbearer tokens, one a line ('#' comments and blank lines skipped;\n"
    "\t\t\t\t\trepeatable). Every request needs one (401 otherwise); a session belongs\n"
    "\t\t\t\t\tto the token that made it, other tokens get 404 for it\n"
    "\t--token-env NAME\t\tbearer tokens from the environment variable NAME, comma-separated\n"
    "\t\t\t\t\t(default, when no --token-file: BASHKIT_SERVE_TOKENS). Tokens are never\n"
    "\t\t\t\t\ttaken from the command line, where other users could read them\n"
    "\t--max-request-bytes N\t\tlargest request body (default 16777216); larger gets 413\n"
    "\t--max-ttl SECONDS\t\tlongest session life (default 86400); a session's ttl_seconds is\n"
    "\t\t\t\t\tcapped here; expired sessions are deleted\n"
    "\t--max-sessions N\t\tsessions per token (default 32); more get 429\n"
    "\t--max-exec-timeout SECONDS\tlongest command (default 3600)\n"
    "\t--max-session-bytes N\t\tdata one session's files may hold (default 1073741824)\n"
    "\t--max-session-memory N\t\tmemory budget of one session's shell, its utilities and buffers\n"
    "\t\t\t\t\t(default 1073741824): with --max-sessions, what a replica may need\n"
    "\t--max-open-files N\t\tfiles one session may hold open (default 256): Too many open files\n"
    "\t--max-server-open-files N\thost descriptors all sessions on disk may hold together (default:\n"
    "\t\t\t\t\tthe descriptor limit, raised to its hard maximum, less 256); a new\n"
    "\t\t\t\t\tsession that could pass it gets 503, existing ones keep working\n"
    "\t--base-dir DIR\t\t\tkeep sessions on disk under DIR: trees, create options and shell\n"
    "\t\t\t\t\tstate (saved after each exec that changed it), deleted with the\n"
    "\t\t\t\t\tsession; DIR may be shared by replicas, which reopen each other's\n"
    "\t\t\t\t\tsessions (one at a time: a lease per session); default: in memory\n"
    "\t--replica-id ID\t\t\tthis server's name among replicas sharing --base-dir (default:\n"
    "\t\t\t\t\tBASHKIT_REPLICA_ID, else HOSTNAME-PID); must be unique among them\n"
    "\t--lease-seconds SECONDS\t\thow long a session's lease lasts unrenewed (default 15): how long\n"
    "\t\t\t\t\tthe sessions of a replica that died wait before another takes them\n"
    "\t--unload-idle SECONDS\t\tlet go of a session without a request for that long (state saved,\n"
    "\t\t\t\t\tlease released; default 300; 0: never)\n"
    "\t--sync-writes\t\t\tfdatasync the state, lease and metadata files before renaming them\n"
    "\t\t\t\t\t(survives a power loss of the volume's machine; a flush per exec\n"
    "\t\t\t\t\tthat changed the shell state)\n"
    "\t--allow-network\t\t\tlet sessions ask for network all or allow(...) (default: none only;\n"
    "\t\t\t\t\tprivate and loopback addresses stay blocked)\n"
    "\t--allow-header-bindings\t\tlet sessions ask for GitHubBinding / MistralApiBinding, whose secrets\n"
    "\t\t\t\t\tcome from this process's GITHUB_TOKEN / MISTRAL_API_KEY\n"
    "\t--help\t\t\t\tshow this help\n";

int usage_error(const std::string& msg) {
    std::cerr << "bashkit serve: " << msg << "\nTry 'bashkit serve --help' for more information.\n";
    return 2;
}

void add_tokens(std::string_view text, char sep, std::vector<std::string>& out) {
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = text.find(sep, start);
        std::string_view one = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
        while (!one.empty() && (one.back() == '\r' || one.back() == ' ' || one.back() == '\t')) one.remove_suffix(1);
        while (!one.empty() && (one.front() == ' ' || one.front() == '\t')) one.remove_prefix(1);
        if (!one.empty() && one.front() != '#') out.emplace_back(one);
        if (end == std::string_view::npos) break;
        start = end + 1;
    }
}

bool parse_number(const std::string& s, double& out) {
    char* end = nullptr;
    out = std::strtod(s.c_str(), &end);
    return !s.empty() && *end == '\0' && out >= 0;
}

}  // namespace

int serve_main(int argc, char** argv) {
    sandbox::SandboxServerOptions o;
    std::vector<std::string> token_files;
    std::vector<std::string> token_envs;
    for (int i = 1; i < argc; ++i) {
        std::string_view a = argv[i];
        if (a == "--help") {
            std::cout << kServeUsage;
            return 0;
        }
        if (a == "--allow-network") {
            o.allow_network = true;
            continue;
        }
        if (a == "--allow-header-bindings") {
            o.allow_header_bindings = true;
            continue;
        }
        if (a == "--sync-writes") {
            o.sync_writes = true;
            continue;
        }
        bool takes = a == "--host" || a == "--port" || a == "--token-file" || a == "--token-env" ||
                     a == "--max-request-bytes" || a == "--max-ttl" || a == "--max-sessions" ||
                     a == "--max-exec-timeout" || a == "--max-session-bytes" || a == "--max-session-memory" || a == "--base-dir" ||
                     a == "--max-open-files" || a == "--max-server-open-files" || a == "--replica-id" ||
                     a == "--lease-seconds" || a == "--unload-idle";
        if (!takes) return usage_error("unknown option '" + std::string(a) + "'");
        if (i + 1 >= argc) return usage_error(std::string(a) + ": option requires an argument");
        std::string v = argv[++i];
        double n = 0;
        bool numeric = a == "--port" || a.starts_with("--max-") || a == "--lease-seconds" || a == "--unload-idle";
        if (numeric && !parse_number(v, n)) return usage_error(std::string(a) + ": expected a number, got '" + v + "'");
        if (a == "--host") o.host = v;
        else if (a == "--port") {
            if (n > 65535 || n != double(int(n))) return usage_error("--port: expected 0 to 65535, got '" + v + "'");
            o.port = int(n);
        } else if (a == "--token-file") token_files.push_back(v);
        else if (a == "--token-env") token_envs.push_back(v);
        else if (a == "--max-request-bytes") o.max_request_bytes = size_t(n);
        else if (a == "--max-ttl") o.max_ttl_seconds = int64_t(n);
        else if (a == "--max-sessions") o.max_sessions_per_token = size_t(n);
        else if (a == "--max-exec-timeout") o.max_exec_timeout_seconds = n;
        else if (a == "--max-session-bytes") o.fs_limits.max_total_bytes = uint64_t(n);
        else if (a == "--max-session-memory") o.limits.max_memory_bytes = size_t(n);
        else if (a == "--max-open-files") o.fs_limits.max_open_files = uint64_t(n);
        else if (a == "--max-server-open-files") o.max_open_files = uint64_t(n);
        else if (a == "--base-dir") o.base_dir = v;
        else if (a == "--replica-id") o.replica_id = v;
        else if (a == "--lease-seconds") o.lease_seconds = n;
        else if (a == "--unload-idle") o.unload_idle_seconds = n;
    }
    if (o.replica_id.empty())
        if (const char* r = std::getenv("BASHKIT_REPLICA_ID")) o.replica_id = r;
    if (token_files.empty() && token_envs.empty()) token_envs.push_back("BASHKIT_SERVE_TOKENS");
    for (const auto& f : token_files) {
        std::ifstream in(f, std::ios::binary);
        if (!in) return usage_error("--token-file: cannot read '" + f + "'");
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        add_tokens(text, '\n', o.tokens);
    }
    for (const auto& e : token_envs) {
        if (const char* v = std::getenv(e.c_str())) add_tokens(v, ',', o.tokens);
    }
    if (o.tokens.empty())
        return usage_error("no token: pass --token-file FILE or set BASHKIT_SERVE_TOKENS (or the --token-env variable)");

    // SIGINT/SIGTERM are taken by sigwait below, in this thread only: block them before any thread starts.
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

    // Sessions on disk hold host descriptors: take the whole budget the system allows this process.
    rlimit rl{};
    if (::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        (void)::setrlimit(RLIMIT_NOFILE, &rl);
    }

    std::string host = o.host;
    try {
        sandbox::SandboxServer server(std::move(o));
        int port = server.start();
        std::cout << "bashkit serve: listening on http://" << (host.find(':') != std::string::npos ? "[" + host + "]" : host)
                  << ":" << port << std::endl;
        int sig = 0;
        sigwait(&stop_signals, &sig);
        server.stop();
    } catch (const std::invalid_argument& e) {
        return usage_error(e.what());
    } catch (const std::exception& e) {
        std::cerr << "bashkit serve: " << e.what() << "\n";
        return 1;
    }
    return 0;
}

}  // namespace bashkit::cli
