// Replicas of `bashkit serve` over one base dir (sandbox/server/session_store.hpp): two SandboxServers in this
// process, each with its replica id, sharing a temporary base dir. A session moves from one to the other with
// its files and its shell state; a lease lets only one run it at a time (409 naming the holder); the state is
// rewritten only when an exec changed it; the health endpoints.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <sys/stat.h>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "sandbox/mistral_sandbox.hpp"
#include "sandbox/sandbox.hpp"
#include "sandbox/server/server.hpp"
#include "sandbox/server/session_store.hpp"

namespace bashkit::sandbox {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

struct TempBase {
    fs::path path = fs::temp_directory_path() / ("bashkit-replicas-" + random_session_id());
    TempBase() { fs::create_directories(path); }
    ~TempBase() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

struct Replica {
    std::unique_ptr<SandboxServer> server;
    int port = 0;
    Replica(const TempBase& base, std::string id, double lease_seconds = 15, double reap_interval = 0,
            double unload_idle = 300, SandboxServerOptions o = {}) {
        o.tokens = {"token-a", "token-b"};
        o.base_dir = base.path.string();
        o.replica_id = std::move(id);
        o.lease_seconds = lease_seconds;
        o.reap_interval_seconds = reap_interval;
        o.unload_idle_seconds = unload_idle;
        server = std::make_unique<SandboxServer>(std::move(o));
        port = server->start();
    }
    httplib::Result post(const std::string& path, const json& body, const std::string& token = "token-a") const {
        httplib::Client c("127.0.0.1", port);
        c.set_read_timeout(30, 0);
        return c.Post(path.c_str(), {{"Authorization", "Bearer " + token}}, body.dump(), "application/json");
    }
    httplib::Result get(const std::string& path, const std::string& token = "token-a") const {
        httplib::Client c("127.0.0.1", port);
        httplib::Headers h;
        if (!token.empty()) h = {{"Authorization", "Bearer " + token}};
        return c.Get(path.c_str(), h);
    }
    httplib::Result del(const std::string& path) const {
        httplib::Client c("127.0.0.1", port);
        return c.Delete(path.c_str(), {{"Authorization", "Bearer token-a"}});
    }
    std::string create() const {
        auto r = post("/v1/sessions", json::object());
        if (!r || r->status != 201) return "";
        return json::parse(r->body)["id"].get<std::string>();
    }
    // {status, body}
    std::pair<int, json> exec(const std::string& id, const std::string& command, const std::string& token = "token-a") const {
        auto r = post("/v1/sessions/" + id + "/exec", {{"command", command}}, token);
        if (!r) return {-1, json()};
        return {r->status, json::parse(r->body, nullptr, false)};
    }
};

std::string store_dir(const TempBase& base, const std::string& id) { return (base.path / (id + ".serve")).string(); }

ino_t inode_of(const std::string& path) {
    struct stat st{};
    return ::stat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

TEST(ServeReplicas, SessionMovesWithItsFilesAndShellState) {
    TempBase base;
    Replica a(base, "replica-a"), b(base, "replica-b");
    std::string id = a.create();
    ASSERT_FALSE(id.empty());
    auto [st, out] = a.exec(id,
                            "greeting=hello; declare -a arr=(x 'y z'); export EXP=1; f() { echo \"f says $1\"; };"
                            "shopt -s expand_aliases; alias ll='echo aliased'; mkdir -p /workspace/sub && cd /workspace/sub; set -o pipefail;"
                            "shopt -s extglob; echo kept > file.txt; echo ran");
    ASSERT_EQ(st, 200) << out.dump();
    EXPECT_EQ(out["stdout"], "ran\n");

    // B may not run it while A holds it: 409 naming A, with the replica header of B.
    auto r = b.post("/v1/sessions/" + id + "/exec", {{"command", "echo twice"}});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 409);
    json refused = json::parse(r->body);
    EXPECT_EQ(refused["code"], "session_elsewhere");
    EXPECT_EQ(refused["owner"], "replica-a");
    EXPECT_TRUE(refused["error"].get<std::string>().starts_with("session '" + id + "' is open on replica 'replica-a'"))
        << refused.dump();
    EXPECT_EQ(r->get_header_value("X-Bashkit-Replica"), "replica-b");
    EXPECT_FALSE(r->get_header_value("Retry-After").empty());

    a.server->stop();  // lets the session go: state saved, lease released, files kept
    auto [st2, out2] = b.exec(id,
                              "echo \"$greeting ${arr[1]} $EXP\"; f 1; ll; pwd; set -o | grep -w pipefail;"
                              "shopt extglob; cat file.txt");
    ASSERT_EQ(st2, 200) << out2.dump();
    EXPECT_EQ(out2["stdout"],
              "hello y z 1\nf says 1\naliased\n/workspace/sub\npipefail       \ton\nextglob        \ton\nkept\n")
        << out2.dump();
    auto info = b.get("/v1/sessions/" + id);
    ASSERT_TRUE(info);
    EXPECT_EQ(json::parse(info->body)["replica"], "replica-b");
    // Another token still gets 404 on the replica that reopened it.
    EXPECT_EQ(b.exec(id, "echo x", "token-b").first, 404);
}

TEST(ServeReplicas, StateIsWrittenOnlyWhenAnExecChangedIt) {
    TempBase base;
    Replica a(base, "replica-a");
    std::string id = a.create();
    ASSERT_FALSE(id.empty());
    const std::string state = store_dir(base, id) + "/state.json";
    ASSERT_EQ(a.exec(id, "v=1").first, 200);
    ino_t first = inode_of(state);
    ASSERT_NE(first, 0u) << "written after the first exec";
    ASSERT_EQ(a.exec(id, "echo $v; true; ls >/dev/null").first, 200);
    EXPECT_EQ(inode_of(state), first) << "nothing changed: not rewritten";
    ASSERT_EQ(a.exec(id, "v=2").first, 200);
    ino_t second = inode_of(state);
    EXPECT_NE(second, first) << "a variable changed: rewritten (a new file renamed over the old one)";
    ASSERT_EQ(a.exec(id, "cd /tmp").first, 200);
    EXPECT_NE(inode_of(state), second) << "the cwd changed";
    // No temporary file is left beside it.
    size_t files = 0;
    for (const auto& e : fs::directory_iterator(store_dir(base, id))) files += e.path().filename().string().find(".tmp-") == std::string::npos;
    EXPECT_EQ(files, 3u);  // meta.json, state.json, lease
    // The store is outside the session's tree: a script cannot see it.
    auto [st, out] = a.exec(id, "ls -a / | tr '\\n' ' '");
    EXPECT_EQ(out["stdout"], ". .. home tmp workspace ") << out.dump();
}

// A replica that stops renewing (here: no maintenance thread, a 1 s lease) keeps the session only until the
// lease expires; then the other takes it over, and the first one is refused from then on.
TEST(ServeReplicas, ExpiredLeaseIsTakenOverAndTheOldHolderRefused) {
    TempBase base;
    Replica a(base, "replica-a", 1.0), b(base, "replica-b", 1.0);
    std::string id = a.create();
    ASSERT_FALSE(id.empty());
    ASSERT_EQ(a.exec(id, "n=41; echo saved > done.txt").first, 200);
    EXPECT_EQ(b.exec(id, "echo no").first, 409);
    std::this_thread::sleep_for(std::chrono::milliseconds(1200));
    auto [st, out] = b.exec(id, "echo $((n + 1)); cat done.txt");
    ASSERT_EQ(st, 200) << out.dump();
    EXPECT_EQ(out["stdout"], "42\nsaved\n");
    auto [st_a, out_a] = a.exec(id, "echo from a");
    EXPECT_EQ(st_a, 409) << out_a.dump();
    EXPECT_EQ(out_a["owner"], "replica-b");
    EXPECT_EQ(a.server->session_count(), 0u) << "the old holder dropped it";
    // The new holder goes on; its state is what A left.
    EXPECT_EQ(b.exec(id, "echo $n").second["stdout"], "41\n");
}

// With a maintenance thread the lease is renewed: a session busy longer than its lease stays with its holder.
TEST(ServeReplicas, LeaseIsRenewedWhileHeld) {
    TempBase base;
    // A 1.5 s lease renewed once a third of it has passed (a tick every 50 ms): a command of 2.5 s outlives
    // the lease, and B is refused all along.
    Replica a(base, "replica-a", 1.5, 0.05), b(base, "replica-b", 1.5, 0.05);
    std::string id = a.create();
    ASSERT_FALSE(id.empty());
    std::pair<int, json> slow;
    std::thread runner([&] { slow = a.exec(id, "sleep 2.5; echo done"); });
    for (int i = 0; i < 4; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        EXPECT_EQ(b.exec(id, "echo no").first, 409) << "at " << (i + 1) * 500 << " ms";
    }
    runner.join();
    EXPECT_EQ(slow.first, 200);
    EXPECT_EQ(slow.second["stdout"], "done\n");
}

// Stopping a replica (SIGTERM in `bashkit serve`) cancels the command running in a session, saves its state
// and releases its lease, without waiting for the command: the other replica takes the session at once.
TEST(ServeReplicas, StopCancelsAndLetsGo) {
    TempBase base;
    Replica a(base, "replica-a"), b(base, "replica-b");
    std::string id = a.create();
    ASSERT_FALSE(id.empty());
    ASSERT_EQ(a.exec(id, "before=1").first, 200);
    std::pair<int, json> slow;
    std::thread runner([&] { slow = a.exec(id, "after=1; sleep 30; echo not reached"); });
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    auto t0 = std::chrono::steady_clock::now();
    a.server->stop();
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
    runner.join();
    EXPECT_EQ(slow.second["exit_code"], 130) << slow.second.dump();
    EXPECT_EQ(slow.second["cancelled"], true);
    EXPECT_FALSE(fs::exists(store_dir(base, id) + "/lease"));
    auto [st, out] = b.exec(id, "echo $before $after");
    EXPECT_EQ(st, 200);
    EXPECT_EQ(out["stdout"], "1 1\n") << "the state of the cancelled command was saved too";
}

// An idle session is let go (lease released): the other replica reopens it at once.
TEST(ServeReplicas, IdleSessionIsLetGo) {
    TempBase base;
    Replica a(base, "replica-a", 15, 0.05, 0.2), b(base, "replica-b");
    std::string id = a.create();
    ASSERT_FALSE(id.empty());
    ASSERT_EQ(a.exec(id, "x=idle").first, 200);
    // Dropped from the table first, then saved and its lease released.
    const std::string lease = store_dir(base, id) + "/lease";
    for (int i = 0; i < 300 && fs::exists(lease); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_FALSE(fs::exists(lease));
    EXPECT_EQ(a.server->session_count(), 0u);
    auto [st, out] = b.exec(id, "echo $x");
    EXPECT_EQ(st, 200);
    EXPECT_EQ(out["stdout"], "idle\n");
}

// DELETE from a replica that does not hold the session takes it and deletes everything.
TEST(ServeReplicas, DeleteFromAnotherReplica) {
    TempBase base;
    Replica a(base, "replica-a"), b(base, "replica-b");
    std::string id = a.create();
    ASSERT_FALSE(id.empty());
    ASSERT_EQ(a.exec(id, "echo f > f").first, 200);
    auto held = b.del("/v1/sessions/" + id);
    ASSERT_TRUE(held);
    EXPECT_EQ(held->status, 409);
    a.server->stop();
    auto gone = b.del("/v1/sessions/" + id);
    ASSERT_TRUE(gone);
    EXPECT_EQ(gone->status, 204);
    EXPECT_TRUE(fs::is_empty(base.path)) << "tree and store deleted";
    EXPECT_EQ(b.exec(id, "true").first, 404);
    EXPECT_EQ(b.exec("sbx-../../etc", "true").first, 404);
}

// A snapshot this version cannot read (an upgrade changed the format): the files come back, the shell
// starts afresh, and GET says so.
TEST(ServeReplicas, UnreadableStateReopensWithFreshShell) {
    TempBase base;
    Replica a(base, "replica-a");
    std::string id = a.create();
    ASSERT_FALSE(id.empty());
    ASSERT_EQ(a.exec(id, "v=1; echo f > f").first, 200);
    a.server->stop();
    std::ofstream(store_dir(base, id) + "/state.json") << "{\"format\": \"bashkit-shell-state\", \"version\": 999}";
    Replica b(base, "replica-b");
    auto [st, out] = b.exec(id, "echo \"[$v]\"; cat f");
    EXPECT_EQ(out["stdout"], "[]\nf\n") << out.dump();
    EXPECT_EQ(json::parse(b.get("/v1/sessions/" + id)->body)["state_restored"], false);
}

// A reopen counts against the replica's descriptor budget like a create: 503, retry elsewhere.
TEST(ServeReplicas, ReopenRespectsTheDescriptorBudget) {
    TempBase base;
    Replica a(base, "replica-a");
    SandboxServerOptions small;
    small.fs_limits.max_open_files = 8;
    small.max_open_files = 8;  // one session
    Replica b(base, "replica-b", 15, 0, 300, small);
    std::string first = a.create(), second = a.create();
    ASSERT_FALSE(first.empty());
    ASSERT_FALSE(second.empty());
    a.server->stop();
    EXPECT_EQ(b.exec(first, "true").first, 200);
    auto [st, out] = b.exec(second, "true");
    EXPECT_EQ(st, 503);
    EXPECT_EQ(out["code"], "server_full");
    EXPECT_TRUE(fs::exists(store_dir(base, second) + "/meta.json")) << "refused, not deleted";
    EXPECT_FALSE(fs::exists(store_dir(base, second) + "/lease")) << "and not taken";
}

// MistralSandbox, sent to a replica that does not hold the session, waits out the lease of the one that
// does (here: it stopped renewing, 1 s lease) and goes on there: failover without an error for the agent.
TEST(ServeReplicas, ClientWaitsForTheLeaseToPass) {
    TempBase base;
    Replica a(base, "replica-a", 1.0), b(base, "replica-b", 1.0);
    std::string id = a.create();
    ASSERT_FALSE(id.empty());
    ASSERT_EQ(a.exec(id, "carried=yes").first, 200);
    MistralSandboxOptions o;
    o.endpoint = "http://127.0.0.1:" + std::to_string(b.port);
    o.api_token = "token-a";
    o.pre_provisioned_sandbox_id = id;
    o.readiness_interval_seconds = 0.01;
    MistralSandbox sb(std::move(o), [](const std::string&) -> std::optional<std::string> { return std::nullopt; });
    auto t0 = std::chrono::steady_clock::now();
    SandboxSession s = sb.open();
    EXPECT_EQ(s.execute("echo $carried").stdout_, "yes\n");
    EXPECT_GT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(500)) << "it waited for the lease";
    EXPECT_EQ(b.server->session_count(), 1u);
}

// And so does the cap on sessions per token: a replica sized for N sessions does not take an N+1st.
TEST(ServeReplicas, ReopenRespectsTheSessionCap) {
    TempBase base;
    Replica a(base, "replica-a");
    SandboxServerOptions one;
    one.max_sessions_per_token = 1;
    Replica b(base, "replica-b", 15, 0, 300, one);
    std::string first = a.create(), second = a.create();
    ASSERT_FALSE(second.empty());
    a.server->stop();
    EXPECT_EQ(b.exec(first, "true").first, 200);
    auto [st, out] = b.exec(second, "true");
    EXPECT_EQ(st, 503);
    EXPECT_EQ(out["error"], "this replica holds 1 sessions of this token (its limit): retry later or on another replica");
    EXPECT_EQ(b.exec(first, "true", "token-b").first, 404) << "another token's count is its own, and it sees nothing";
}

TEST(ServeReplicas, HealthEndpoints) {
    TempBase base;
    Replica a(base, "replica-a");
    auto h = a.get("/healthz", "");
    ASSERT_TRUE(h);
    EXPECT_EQ(h->status, 200);
    EXPECT_EQ(json::parse(h->body), (json{{"status", "ok"}, {"replica", "replica-a"}, {"sessions", 0}}));
    auto r = a.get("/readyz", "");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
    fs::remove_all(base.path);  // the volume is gone
    r = a.get("/readyz", "");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 503);
    EXPECT_EQ(json::parse(r->body)["status"], "unavailable");
    fs::create_directories(base.path);
}

// The lease protocol itself: one creator, holders refused until expiry, a takeover lock left by a dead
// replica cleared after its time.
TEST(ServeReplicas, LeaseFile) {
    TempBase base;
    SessionStore a(base.path.string(), "ra", std::chrono::milliseconds(300), /*sync=*/true);
    SessionStore b(base.path.string(), "rb", std::chrono::milliseconds(5000));  // a's expires, b's lasts
    const std::string id = "sbx-0123456789abcdef";
    EXPECT_EQ(a.create(id, {{"format", "bashkit-serve-session"}}).outcome, SessionStore::Outcome::taken);
    EXPECT_EQ(b.create(id, {{"format", "bashkit-serve-session"}}).outcome, SessionStore::Outcome::error);
    SessionStore::Take t = b.acquire(id);
    EXPECT_EQ(t.outcome, SessionStore::Outcome::held);
    EXPECT_EQ(t.lease.owner, "ra");
    EXPECT_EQ(b.acquire("sbx-ffffffffffffffff").outcome, SessionStore::Outcome::gone);
    EXPECT_EQ(b.acquire("../x").outcome, SessionStore::Outcome::gone);
    std::this_thread::sleep_for(std::chrono::milliseconds(350));
    // A takeover lock of a replica that died mid-takeover: honoured while young.
    std::ofstream(a.dir(id) + "/lease.takeover") << "";
    EXPECT_EQ(b.acquire(id).outcome, SessionStore::Outcome::held);
    fs::last_write_time(a.dir(id) + "/lease.takeover", fs::file_time_type::clock::now() - std::chrono::seconds(10));
    t = b.acquire(id);
    EXPECT_EQ(t.outcome, SessionStore::Outcome::taken);
    EXPECT_EQ(t.lease.owner, "rb");
    EXPECT_FALSE(fs::exists(a.dir(id) + "/lease.takeover"));
    SessionStore::Take mine = a.acquire(id);
    EXPECT_EQ(mine.outcome, SessionStore::Outcome::held);
    Lease old{"ra", "not-the-nonce", 0};
    EXPECT_FALSE(a.renew(id, old)) << "a lost lease is not renewed";
    a.release(id, old);
    EXPECT_TRUE(fs::exists(a.dir(id) + "/lease")) << "nor released";
    EXPECT_TRUE(b.renew(id, t.lease));
    b.release(id, t.lease);
    EXPECT_FALSE(fs::exists(a.dir(id) + "/lease"));
    b.remove(id);
    EXPECT_TRUE(fs::is_empty(base.path));
}

}  // namespace
}  // namespace bashkit::sandbox
