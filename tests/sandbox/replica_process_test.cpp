// Two `bashkit serve` processes sharing one base dir on loopback, a client driving N sessions of M commands
// across both, and one replica killed (SIGKILL) midway: no file of a completed command is lost, the shell
// state carries on, a session is never run by both (the survivor answers 409 while the lease of the dead one
// lasts), and every session is reopened on the survivor once that lease (1.5 s here) has expired.
// Bounded: N = 8, M = 10, a 1.5 s lease, a 20 s deadline for the whole run.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <thread>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "sandbox/sandbox.hpp"

#ifdef BASHKIT_CLI
namespace bashkit::sandbox {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;
using clk = std::chrono::steady_clock;

// A `bashkit serve` child process; its port read from the line it prints once listening.
struct ServeProcess {
    pid_t pid = -1;
    int port = 0;
    std::string id;
    // An empty replica id: none on the command line, BASHKIT_REPLICA_ID=env_replica in the environment.
    ServeProcess(const std::string& base, std::string replica, std::string env_replica = "") : id(std::move(replica)) {
        int out[2];
        if (::pipe2(out, O_CLOEXEC) != 0) return;
        std::vector<std::string> args = {BASHKIT_CLI, "serve", "--port", "0", "--base-dir", base,
                                         "--lease-seconds", "1.5", "--unload-idle", "0"};
        if (!id.empty()) {
            args.push_back("--replica-id");
            args.push_back(id);
        }
        // Everything the child needs is built before fork (only async-signal-safe calls after it).
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        std::string token = "BASHKIT_SERVE_TOKENS=replica-token";
        std::vector<char*> envp;
        for (char** e = environ; *e; ++e)
            if (!std::string_view(*e).starts_with("BASHKIT_")) envp.push_back(*e);
        envp.push_back(token.data());
        std::string replica_env = "BASHKIT_REPLICA_ID=" + env_replica;
        if (!env_replica.empty()) envp.push_back(replica_env.data());
        envp.push_back(nullptr);
        pid = ::fork();
        if (pid == 0) {
            ::dup2(out[1], 1);
            ::execve(argv[0], argv.data(), envp.data());
            ::_exit(127);
        }
        ::close(out[1]);
        std::string line;
        auto deadline = clk::now() + std::chrono::seconds(10);
        while (line.find('\n') == std::string::npos && clk::now() < deadline) {
            pollfd p{out[0], POLLIN, 0};
            if (::poll(&p, 1, 100) <= 0) continue;
            char buf[256];
            ssize_t n = ::read(out[0], buf, sizeof buf);
            if (n <= 0) break;
            line.append(buf, size_t(n));
        }
        ::close(out[0]);
        size_t colon = line.rfind(':');
        if (line.starts_with("bashkit serve: listening on http://127.0.0.1:") && colon != std::string::npos)
            port = std::atoi(line.c_str() + colon + 1);
    }
    void kill_now() {
        if (pid > 0) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, nullptr, 0);
            pid = -1;
        }
    }
    void stop() {
        if (pid > 0) {
            ::kill(pid, SIGTERM);
            ::waitpid(pid, nullptr, 0);
            pid = -1;
        }
    }
    ~ServeProcess() { kill_now(); }
};

httplib::Result post(int port, const std::string& path, const json& body) {
    httplib::Client c("127.0.0.1", port);
    c.set_connection_timeout(2, 0);
    c.set_read_timeout(10, 0);
    return c.Post(path.c_str(), {{"Authorization", "Bearer replica-token"}}, body.dump(), "application/json");
}

TEST(ServeReplicaProcesses, OneDiesMidwayAndTheOtherTakesOver) {
    constexpr int kSessions = 8, kCommands = 10;
    const auto t0 = clk::now();
    const auto deadline = t0 + std::chrono::seconds(20);
    fs::path base = fs::temp_directory_path() / ("bashkit-replica-procs-" + random_session_id());
    fs::create_directories(base);
    {
        ServeProcess a(base.string(), "replica-a"), b(base.string(), "replica-b");
        ASSERT_GT(a.port, 0);
        ASSERT_GT(b.port, 0);
        std::map<std::string, int> port_of = {{"replica-a", a.port}, {"replica-b", b.port}};

        // Half the sessions made on each replica.
        std::vector<std::string> ids;
        for (int s = 0; s < kSessions; ++s) {
            auto r = post(s % 2 ? b.port : a.port, "/v1/sessions", json::object());
            ASSERT_TRUE(r);
            ASSERT_EQ(r->status, 201) << r->body;
            ids.push_back(json::parse(r->body)["id"].get<std::string>());
        }

        std::atomic<int> completed{0}, refused_409{0};
        std::atomic<bool> killed{false};
        std::mutex report_mu;
        std::vector<std::string> problems;
        auto problem = [&](std::string p) {
            std::lock_guard lock(report_mu);
            problems.push_back(std::move(p));
        };
        std::vector<int> done(kSessions, 0);  // commands answered 200, per session

        auto client = [&](int s) {
            int port = s % 2 ? b.port : a.port;
            for (int k = 0; k < kCommands; ++k) {
                // The previous command's number comes back (state carried); a retry after a replica died may
                // find this command already run (its state saved just before the kill): then k itself.
                std::string cmd = "echo \"$last\"; last=" + std::to_string(k) + "; echo " + std::to_string(k) +
                                  " > f" + std::to_string(k);
                bool retried = false;
                while (true) {
                    if (clk::now() > deadline) return problem(ids[s] + ": deadline at command " + std::to_string(k));
                    auto r = post(port, "/v1/sessions/" + ids[s] + "/exec", {{"command", cmd}});
                    if (!r) {  // the replica is gone: the other one
                        port = port == a.port ? b.port : a.port;
                        retried = true;
                        continue;
                    }
                    if (r->status == 409) {
                        ++refused_409;
                        json j = json::parse(r->body, nullptr, false);
                        std::string owner = j.is_object() ? j.value("owner", std::string()) : std::string();
                        // Routed to the owner, unless the owner is dead: then wait for its lease to expire.
                        if (port_of.count(owner) && !(owner == "replica-a" && killed)) port = port_of[owner];
                        else std::this_thread::sleep_for(std::chrono::milliseconds(100));
                        retried = true;
                        continue;
                    }
                    if (r->status != 200) return problem(ids[s] + ": HTTP " + std::to_string(r->status) + " " + r->body);
                    json j = json::parse(r->body);
                    std::string prev = k == 0 ? "\n" : std::to_string(k - 1) + "\n";
                    std::string again = std::to_string(k) + "\n";
                    std::string got = j["stdout"].get<std::string>();
                    if (got != prev && !(retried && got == again))
                        problem(ids[s] + " command " + std::to_string(k) + ": printed '" + got + "', expected '" + prev + "'");
                    break;
                }
                done[s] = k + 1;
                ++completed;
            }
        };
        std::vector<std::thread> clients;
        for (int s = 0; s < kSessions; ++s) clients.emplace_back(client, s);

        // Midway: B refuses a session A holds (never run by both), then A is killed.
        while (completed < kSessions * kCommands / 2 && clk::now() < deadline)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        auto held = post(b.port, "/v1/sessions/" + ids[0] + "/exec", {{"command", "echo twice"}});
        ASSERT_TRUE(held);
        EXPECT_EQ(held->status, 409) << held->body;
        EXPECT_EQ(json::parse(held->body)["owner"], "replica-a");
        killed = true;
        a.kill_now();
        auto killed_at = clk::now();
        for (auto& t : clients) t.join();
        for (const auto& p : problems) ADD_FAILURE() << p;
        EXPECT_EQ(completed.load(), kSessions * kCommands);
        EXPECT_GT(refused_409.load(), 0) << "A's sessions were refused by B until A's lease expired";

        // Every session is on the survivor with all its files and its last state.
        for (int s = 0; s < kSessions; ++s) {
            auto r = post(b.port, "/v1/sessions/" + ids[s] + "/exec", {{"command", "echo $last; cat f* | wc -l"}});
            ASSERT_TRUE(r);
            ASSERT_EQ(r->status, 200) << r->body;
            EXPECT_EQ(json::parse(r->body)["stdout"], std::to_string(kCommands - 1) + "\n" + std::to_string(kCommands) + "\n")
                << ids[s];
        }
        httplib::Client hc("127.0.0.1", b.port);
        auto health = hc.Get("/healthz");
        ASSERT_TRUE(health);
        EXPECT_EQ(json::parse(health->body)["sessions"], kSessions);
        EXPECT_LT(clk::now() - killed_at, std::chrono::seconds(15));
        b.stop();
    }
    EXPECT_LT(clk::now() - t0, std::chrono::seconds(20));
    fs::remove_all(base);
}

// The replica id from BASHKIT_REPLICA_ID, and its default (hostname-pid), in /healthz and on every answer.
TEST(ServeReplicaProcesses, ReplicaIdFromTheEnvironmentOrTheHost) {
    fs::path base = fs::temp_directory_path() / ("bashkit-replica-id-" + random_session_id());
    fs::create_directories(base);
    {
        ServeProcess named(base.string(), "", "pod-7"), unnamed(base.string(), "");
        ASSERT_GT(named.port, 0);
        ASSERT_GT(unnamed.port, 0);
        httplib::Client c("127.0.0.1", named.port);
        auto h = c.Get("/healthz");
        ASSERT_TRUE(h);
        EXPECT_EQ(json::parse(h->body)["replica"], "pod-7");
        EXPECT_EQ(h->get_header_value("X-Bashkit-Replica"), "pod-7");
        char host[256] = {};
        ASSERT_EQ(::gethostname(host, sizeof host - 1), 0);
        httplib::Client d("127.0.0.1", unnamed.port);
        auto u = d.Get("/healthz");
        ASSERT_TRUE(u);
        EXPECT_EQ(json::parse(u->body)["replica"], std::string(host) + "-" + std::to_string(unnamed.pid));
    }
    fs::remove_all(base);
}

}  // namespace
}  // namespace bashkit::sandbox
#endif
