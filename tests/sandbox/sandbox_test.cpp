// The sandbox API: defaults, refusals (with their messages), attributes, hooks, tools, BashkitSandbox
// sessions (also reopened by another process), NoSandbox, DangerousLocalSandbox on real folders.
#include <gtest/gtest.h>

#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <fcntl.h>
#include <signal.h>

#include "sandbox/bashkit_sandbox.hpp"
#include "sandbox/local_sandbox.hpp"
#include "sandbox/setup.hpp"
#include "tests/sandbox/error_of.hpp"
#include "tests/sandbox/process_check.hpp"
#include "tests/vfs/host_test_util.hpp"

extern char** environ;

namespace bashkit::sandbox {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// A temporary host folder, removed at the end.
using bashkit::vfs::testing_util::TempDir;

std::string slurp(const std::string& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// A hook that records what it saw.
struct Recorder final : SandboxHook {
    std::vector<std::string>* log;
    std::string tag;
    Recorder(std::vector<std::string>* l, std::string t) : log(l), tag(std::move(t)) {}
    std::string type_name() const override { return "Recorder"; }
    void on_create(SandboxSession& s) override {
        auto r = s.execute("echo ready");
        log->push_back(tag + ":create:" + r.stdout_);
    }
    void on_destroy(SandboxSession& s) override { log->push_back(tag + ":destroy:" + s.id()); }
    json to_unified_state() const override { return {{"type", "Recorder"}, {"tag", tag}}; }
};

// ================================================================================ types

TEST(SandboxTypes, AccessNames) {
    EXPECT_EQ(to_string(SandboxAccess::none), "none");
    EXPECT_EQ(to_string(SandboxAccess::files), "files");
    EXPECT_EQ(to_string(SandboxAccess::full), "full");
    EXPECT_EQ(parse_access("files"), SandboxAccess::files);
    EXPECT_EQ(parse_access("root"), std::nullopt);
    EXPECT_LT(SandboxAccess::none, SandboxAccess::files);
    EXPECT_LT(SandboxAccess::files, SandboxAccess::full);
}

TEST(SandboxTypes, ExecutionResultDefaults) {
    SandboxExecutionResult r;
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.stdout_, "");
    EXPECT_EQ(r.stderr_, "");
    EXPECT_FALSE(r.timed_out);
}

TEST(SandboxTypes, EgressPolicy) {
    EXPECT_EQ(EgressPolicy::block_all().kind(), EgressPolicy::Kind::block_all);
    EXPECT_EQ(EgressPolicy::allow_all().describe(), "allow_all");
    auto c = EgressPolicy::custom({"10.0.0.0/8", "2001:db8::/32", "1.2.3.4"});
    EXPECT_EQ(c.kind(), EgressPolicy::Kind::custom);
    EXPECT_EQ(c.allow_cidrs().size(), 3u);
    EXPECT_EQ(c.describe(), "custom(10.0.0.0/8, 2001:db8::/32, 1.2.3.4)");
    EXPECT_EQ(error_of([] { EgressPolicy::custom({"10.0.0.1/8"}); }),
              "EgressPolicy.custom: invalid CIDR '10.0.0.1/8' (host bits set)");
    EXPECT_EQ(error_of([] { EgressPolicy::custom({"10.0.0.0/33"}); }), "EgressPolicy.custom: invalid CIDR '10.0.0.0/33'");
    EXPECT_EQ(error_of([] { EgressPolicy::custom({"example.com"}); }), "EgressPolicy.custom: invalid CIDR 'example.com'");
    EXPECT_EQ(EgressPolicy::from_network(Network::none()), EgressPolicy::block_all());
    EXPECT_EQ(EgressPolicy::from_network(Network::all()), EgressPolicy::allow_all());
    EXPECT_EQ(error_of([] { EgressPolicy::from_network(Network::allow({"api.github.com"})); }),
              "EgressPolicy: allow(api.github.com) names hosts, which an egress policy (IP prefixes) cannot express");
}

TEST(SandboxTypes, BindingDefaults) {
    HeaderBinding h;
    EXPECT_EQ(h.path_prefix, "/");
    GitHubBinding g;
    EXPECT_EQ(g.ttl_seconds, 3600);
    EXPECT_EQ(g.host, "github.com");
    EXPECT_TRUE(g.repos.empty());
    MistralApiBinding m;
    EXPECT_EQ(m.ttl_seconds, 3600);
    EXPECT_EQ(binding_kind(AnyHeaderBinding{h}), "HeaderBinding");
    EXPECT_EQ(binding_kind(AnyHeaderBinding{g}), "GitHubBinding");
    EXPECT_EQ(binding_kind(AnyHeaderBinding{m}), "MistralApiBinding");
}

TEST(SandboxTypes, BindingValidation) {
    auto err = [](AnyHeaderBinding b) { return error_of([&] { WorkspaceHeaderBindings{b}.validate(); }); };
    EXPECT_EQ(err(HeaderBinding{"api.x.com", "Authorization", "s"}), "(no exception)");
    EXPECT_EQ(err(HeaderBinding{"*.x.com", "Authorization", "s"}).rfind("header_bindings: HeaderBinding #1: host: ", 0), 0u);
    EXPECT_EQ(err(HeaderBinding{"api.x.com", "Bad Header", "s"}),
              "header_bindings: HeaderBinding #1: header: not a valid header name 'Bad Header'");
    EXPECT_EQ(err(HeaderBinding{"api.x.com", "X", ""}), "header_bindings: HeaderBinding #1: value: must not be empty");
    EXPECT_EQ(err(HeaderBinding{"api.x.com", "X", "a\r\nb"}),
              "header_bindings: HeaderBinding #1: value: must not contain CR, LF or NUL");
    EXPECT_EQ(err(HeaderBinding{"api.x.com", "X", "s", "v1"}), "header_bindings: HeaderBinding #1: path_prefix: must start with '/'");
    EXPECT_EQ(err(GitHubBinding{}), "header_bindings: GitHubBinding #1: repos: at least one 'owner/name' (or 'all') is required");
    EXPECT_EQ(err(GitHubBinding{.all_repos = true}), "(no exception)");
    EXPECT_EQ(err(GitHubBinding{.repos = {"a/b"}, .all_repos = true}),
              "header_bindings: GitHubBinding #1: repos: either 'all' or a list of 'owner/name', not both");
    EXPECT_EQ(err(GitHubBinding{{"justone"}}), "header_bindings: GitHubBinding #1: repos: expected 'owner/name', got 'justone'");
    EXPECT_EQ(err(GitHubBinding{{"a/b"}, 0}), "header_bindings: GitHubBinding #1: ttl_seconds: must be positive");
    EXPECT_EQ(err(MistralApiBinding{-1}), "header_bindings: MistralApiBinding #1: ttl_seconds: must be positive");
}

TEST(SandboxTypes, BindingsOnTheWire) {
    WorkspaceHeaderBindings b{HeaderBinding{"api.x.com", "X-Key", "k1", "/v1", "K ", ""},
                              GitHubBinding{{"octo/repo"}, 3600, "github.com", "tok"}, MistralApiBinding{60, "mk"}};
    auto w = b.wire();
    ASSERT_EQ(w.bindings.size(), 5u);
    EXPECT_EQ(w.bindings[0].host, "api.x.com");
    EXPECT_EQ(w.bindings[0].path_prefix, "/v1");
    EXPECT_EQ(w.secrets->get(w.bindings[0].secret_name), "k1");
    EXPECT_EQ(w.bindings[1].host, "github.com");
    EXPECT_EQ(w.bindings[1].path_prefix, "/octo/repo");
    EXPECT_EQ(w.bindings[1].prefix, "Basic ");
    EXPECT_EQ(w.secrets->get(w.bindings[1].secret_name), "eC1hY2Nlc3MtdG9rZW46dG9r");  // x-access-token:tok
    EXPECT_EQ(w.bindings[2].path_prefix, "/octo/repo.git");
    EXPECT_EQ(w.bindings[3].host, "api.github.com");
    EXPECT_EQ(w.bindings[3].path_prefix, "/repos/octo/repo");
    EXPECT_EQ(w.bindings[3].prefix, "Bearer ");
    EXPECT_EQ(w.bindings[4].host, "api.mistral.ai");
    EXPECT_EQ(w.secrets->get(w.bindings[4].secret_name), "mk");
    // No secret anywhere: a clear error.
    ::unsetenv("GITHUB_TOKEN");
    EXPECT_EQ(error_of([] { WorkspaceHeaderBindings{GitHubBinding{{"a/b"}}}.wire(); }),
              "header_bindings: GitHubBinding: no token (set token or GITHUB_TOKEN)");
    ::setenv("GITHUB_TOKEN", "from-env", 1);
    auto w2 = WorkspaceHeaderBindings{GitHubBinding{{"a/b"}}}.wire();
    ASSERT_EQ(w2.bindings.size(), 3u);
    EXPECT_EQ(w2.secrets->get(w2.bindings[2].secret_name), "from-env");
    ::unsetenv("GITHUB_TOKEN");
    // A secret by name, looked up in the sandbox's secrets when the wire is made.
    SecretLookup secrets = [](const std::string& name) -> std::optional<std::string> {
        if (name == "X_KEY") return "k-by-name";
        return std::nullopt;
    };
    WorkspaceHeaderBindings named{HeaderBinding{.host = "api.x.com", .header = "X-Key", .secret_name = "X_KEY"}};
    EXPECT_EQ(error_of([&] { named.validate(); }), "(no exception)");
    auto wn = named.wire(secrets);
    ASSERT_EQ(wn.bindings.size(), 1u);
    EXPECT_EQ(wn.secrets->get(wn.bindings[0].secret_name), "k-by-name");
    EXPECT_EQ(named.secret_names(), std::vector<std::string>{"X_KEY"});
    EXPECT_EQ(error_of([&] { named.wire(); }), "header_bindings: HeaderBinding #1: no secret named 'X_KEY'");
    EXPECT_EQ(error_of([&] {
                  WorkspaceHeaderBindings{HeaderBinding{.host = "a.com", .header = "X", .value = "v", .secret_name = "S"}}
                      .validate();
              }),
              "header_bindings: HeaderBinding #1: give either value or secret_name, not both");
    EXPECT_EQ(error_of([&] { BashkitSandbox({.header_bindings = named, .ephemeral = true}); }),
              "header_bindings: HeaderBinding: no secret named 'X_KEY' (pass it in the sandbox's secrets)");
    EXPECT_NO_THROW(BashkitSandbox({.header_bindings = named, .ephemeral = true, .secrets = secrets}));
    // repos="all": every path of the host and of its API host.
    auto all = WorkspaceHeaderBindings{GitHubBinding{.token = "tok", .all_repos = true}}.wire();
    ASSERT_EQ(all.bindings.size(), 2u);
    EXPECT_EQ(all.bindings[0].host, "github.com");
    EXPECT_EQ(all.bindings[0].path_prefix, "/");
    EXPECT_EQ(all.bindings[1].host, "api.github.com");
    EXPECT_EQ(all.bindings[1].path_prefix, "/");
    EXPECT_EQ(all.secrets->get(all.bindings[1].secret_name), "tok");
}

// ================================================================================ hooks

TEST(SandboxHooks, GitIdentityState) {
    GitIdentity g("Ada Lovelace", "ada@example.com");
    json j = g.to_unified_state();
    EXPECT_EQ(j, json({{"type", "GitIdentity"}, {"name", "Ada Lovelace"}, {"email", "ada@example.com"}}));
    auto h = SandboxHook::from_unified_state(j);
    ASSERT_TRUE(h);
    EXPECT_EQ(h->type_name(), "GitIdentity");
    EXPECT_EQ(dynamic_cast<GitIdentity&>(*h).email(), "ada@example.com");
    EXPECT_EQ(error_of([] { SandboxHook::from_unified_state({{"type", "Nope"}}); }), "hook state: unknown hook type 'Nope'");
    EXPECT_EQ(error_of([] { SandboxHook::from_unified_state(json::array()); }),
              "hook state: expected an object with a string \"type\"");
    EXPECT_EQ(error_of([] { SandboxHook::from_unified_state({{"type", "GitIdentity"}, {"name", "x"}}); }),
              "hook state: GitIdentity needs a string \"email\"");
    EXPECT_EQ(error_of([] { GitIdentity("", "a@b"); }), "GitIdentity: name must not be empty");
    EXPECT_EQ(error_of([] { GitIdentity("a\nb", "a@b"); }), "GitIdentity: name and email must be one line");
}

TEST(SandboxHooks, RegistryByTypeName) {
    static std::vector<std::string> log;
    SandboxHook::register_type("Recorder", [](const json& j) {
        return std::make_shared<Recorder>(&log, j.at("tag").get<std::string>());
    });
    auto types = SandboxHook::registered_types();
    EXPECT_NE(std::find(types.begin(), types.end(), "GitIdentity"), types.end());
    EXPECT_NE(std::find(types.begin(), types.end(), "Recorder"), types.end());
    auto h = SandboxHook::from_unified_state(Recorder(&log, "t1").to_unified_state());
    EXPECT_EQ(h->to_unified_state(), json({{"type", "Recorder"}, {"tag", "t1"}}));
}

// ================================================================================ BashkitSandbox

struct BashkitFixture : ::testing::Test {
    TempDir base{"sandbox"};
    BashkitSandboxOptions opts(std::string instance = "inst") {
        BashkitSandboxOptions o;
        o.instance_id = std::move(instance);
        o.base_dir = base.path;
        return o;
    }
};

TEST_F(BashkitFixture, DefaultsAndAttributes) {
    BashkitSandboxOptions d;
    EXPECT_EQ(d.instance_id, "");
    EXPECT_EQ(d.network.kind(), Network::Kind::None);
    EXPECT_TRUE(d.block_private_ips);
    EXPECT_TRUE(d.header_bindings.empty());
    EXPECT_TRUE(d.hooks.empty());
    EXPECT_FALSE(d.access.has_value());
    EXPECT_EQ(d.default_exec_timeout_seconds, 300);

    BashkitSandbox sb(opts());
    EXPECT_EQ(sb.type_name(), "BashkitSandbox");
    EXPECT_EQ(sb.network().kind(), Network::Kind::None);
    EXPECT_EQ(sb.access(), SandboxAccess::full);  // unset: the widest
    EXPECT_EQ(sb.supported_network(), (std::vector{Network::Kind::None, Network::Kind::All, Network::Kind::Allow}));
    EXPECT_EQ(sb.supported_header_bindings(), (std::vector<std::string>{"HeaderBinding", "GitHubBinding", "MistralApiBinding"}));
    EXPECT_EQ(sb.supported_access(), (std::vector{SandboxAccess::none, SandboxAccess::files, SandboxAccess::full}));
    EXPECT_FALSE(sb.delete_on_cleanup());
    EXPECT_TRUE(sb.supports_background_processes());
    BashkitSandboxOptions eo = opts();
    eo.ephemeral = true;
    EXPECT_TRUE(BashkitSandbox(eo).delete_on_cleanup());
}

TEST_F(BashkitFixture, AcceptsEveryNetworkAndBinding) {
    for (auto n : {Network::none(), Network::all(), Network::allow({"api.github.com"})}) {
        auto o = opts();
        o.network = n;
        EXPECT_EQ(BashkitSandbox(o).network().kind(), n.kind());
    }
    auto o = opts();
    o.header_bindings = {HeaderBinding{"api.x.com", "X", "s"}, GitHubBinding{{"a/b"}, 60, "github.com", "t"},
                         MistralApiBinding{60, "k"}};
    EXPECT_NO_THROW(BashkitSandbox{o});
    o.header_bindings = {HeaderBinding{"bad host", "X", "s"}};
    EXPECT_EQ(error_of([&] { BashkitSandbox{o}; }).rfind("header_bindings: HeaderBinding #1: host:", 0), 0u);
    o = opts();
    o.default_exec_timeout_seconds = 0;
    EXPECT_EQ(error_of([&] { BashkitSandbox{o}; }), "BashkitSandbox: default_exec_timeout_seconds must be positive");
}

TEST_F(BashkitFixture, ExecuteKeepsStateAndFiles) {
    BashkitSandbox sb(opts());
    SandboxSession s = sb.open("s1");
    EXPECT_TRUE(s.is_open());
    EXPECT_EQ(s.id(), "s1");
    EXPECT_EQ(s.sandbox_type(), "BashkitSandbox");
    EXPECT_EQ(s.location(), sb.session_dir("s1"));
    auto r = s.execute("pwd; echo $HOME; x=41; echo hi > f.txt; echo err >&2; exit 3");
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_EQ(r.stdout_, "/workspace\n/home/user\n");
    EXPECT_EQ(r.stderr_, "err\n");
    r = s.execute("echo $((x+1)); cat f.txt");
    EXPECT_EQ(r.stdout_, "42\nhi\n");
    EXPECT_EQ(slurp(sb.session_dir("s1") + "/workspace/f.txt"), "hi\n");
    EXPECT_EQ(s.read_file("f.txt"), "hi\n");
    s.write_file("/tmp/a/b.txt", "B");
    EXPECT_EQ(s.execute("cat /tmp/a/b.txt").stdout_, "B");
    s.close();
    EXPECT_FALSE(s.is_open());
    EXPECT_EQ(error_of([&] { s.execute("true"); }), "BashkitSandbox: session 's1' is not open");
    // The files stay (delete_on_cleanup is false); a new session object with the same ids finds them.
    SandboxSession again = sb.open("s1");
    EXPECT_EQ(again.execute("cat f.txt; echo ${x:-unset}").stdout_, "hi\nunset\n");
    // Another instance id is another folder.
    BashkitSandbox other(opts("other"));
    EXPECT_EQ(other.open("s1").execute("cat f.txt").exit_code, 1);
}

TEST_F(BashkitFixture, EachExecuteGetsItsOwnStdoutAndStderr) {
    // bash keeps `exec >&-` or `exec >file` for the rest of the session (the CLI, which runs a script one
    // statement at a time, does too); a tool API returns each call's own output, so every execute starts
    // with fds 0-2 on its own streams. Other fds, variables and files persist.
    auto o = opts();
    o.ephemeral = true;
    BashkitSandbox sb(o);
    SandboxSession s = sb.open();
    auto r = s.execute("exec >&-; echo lost; x=1");
    EXPECT_EQ(r.stdout_, "");
    EXPECT_NE(r.stderr_.find("Bad file descriptor"), std::string::npos) << r.stderr_;
    r = s.execute("echo back $x");
    EXPECT_EQ(r.stdout_, "back 1\n");
    r = s.execute("exec >/tmp/log 2>&1 3>/tmp/three; echo to-log; echo err-to-log >&2");
    EXPECT_EQ(r.stdout_, "");
    EXPECT_EQ(r.stderr_, "");
    r = s.execute("echo fresh; echo e >&2; echo kept >&3; cat /tmp/log /tmp/three");
    EXPECT_EQ(r.stdout_, "fresh\nto-log\nerr-to-log\nkept\n");
    EXPECT_EQ(r.stderr_, "e\n");
    r = s.execute("exec 2>&1; echo e >&2");
    EXPECT_EQ(r.stdout_, "e\n");
    r = s.execute("exec <&-; echo e >&2");
    EXPECT_EQ(r.stderr_, "e\n");
    EXPECT_EQ(s.execute("read -r l < /tmp/log; echo \"$l\"; cat").stdout_, "to-log\n");
}

TEST_F(BashkitFixture, InMemoryFilesShareTheMemoryBudget) {
    // An ephemeral session's files live in memory: their bytes count against max_memory_bytes with the rest
    // of the session, and past it a write fails as on a full disk; removing files gives the room back.
    auto o = opts();
    o.ephemeral = true;
    o.limits.max_memory_bytes = 64u << 20;
    BashkitSandbox sb(o);
    SandboxSession s = sb.open();
    auto r = s.execute("head -c 40000000 /dev/zero > /tmp/a; echo \"a $?\"; head -c 40000000 /dev/zero > /tmp/b; "
                       "echo \"b $?\"; wc -c < /tmp/a");
    EXPECT_EQ(r.stdout_, "a 0\nb 1\n40000000\n") << r.stderr_;
    EXPECT_NE(r.stderr_.find("No space left on device"), std::string::npos) << r.stderr_;
    // A variable cannot use the room the files hold either.
    r = s.execute("x=$(head -c 30000000 /dev/zero | tr '\\0' x); echo \"${#x} $?\"");
    EXPECT_NE(r.stderr_.find("memory limit exceeded (64 MiB)"), std::string::npos) << r.stderr_;
    r = s.execute("rm /tmp/a /tmp/b; head -c 40000000 /dev/zero > /tmp/b; echo \"b $?\"");
    EXPECT_EQ(r.stdout_, "b 0\n") << r.stderr_;
    EXPECT_EQ(s.execute("echo ok").stdout_, "ok\n");
}

TEST_F(BashkitFixture, TimeoutDefaultAndPerCommand) {
    BashkitSandbox sb(opts());
    SandboxSession s = sb.open();
    EXPECT_EQ(s.id().size(), 16u);  // random
    auto t0 = std::chrono::steady_clock::now();
    auto r = s.execute("while true; do :; done", 0.3);
    EXPECT_EQ(r.exit_code, 124);
    EXPECT_TRUE(r.timed_out);
    EXPECT_FALSE(r.cancelled);
    EXPECT_EQ(r.stderr_, "bashkit: execution timed out after 0.3 s\n");
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
    // The next command gets the default again (300 s), and the session still works.
    r = s.execute("echo ok");
    EXPECT_EQ(r.stdout_, "ok\n");
    EXPECT_FALSE(r.timed_out);
    EXPECT_EQ(error_of([&] { s.execute("true", 0.0); }), "execute: timeout_seconds must be positive");
}

// timed_out, cancelled and truncated are what the interpreter knows (ExecResult's flags), never read from
// the text of stderr: a script that prints the timeout message and exits 124 did not time out.
TEST_F(BashkitFixture, ResultFlagsComeFromTheInterpreter) {
    BashkitSandboxOptions o = opts();
    o.limits.max_output_bytes = 10;
    BashkitSandbox sb(std::move(o));
    SandboxSession s = sb.open();
    auto r = s.execute("echo 'bashkit: execution timed out after 1 s' >&2; exit 124");
    EXPECT_EQ(r.exit_code, 124);
    EXPECT_FALSE(r.timed_out);
    EXPECT_FALSE(r.cancelled);
    EXPECT_TRUE(r.truncated);  // the message is longer than 10 bytes
    r = s.execute("echo 123456789");
    EXPECT_EQ(r.stdout_, "123456789\n");
    EXPECT_FALSE(r.truncated);
    r = s.execute("seq 100");
    EXPECT_EQ(r.stdout_.size(), 10u);
    EXPECT_TRUE(r.truncated);
    r = s.execute("seq 100 >&2", 0.5);
    EXPECT_TRUE(r.truncated);
    EXPECT_FALSE(r.timed_out);
    r = s.execute("while :; do :; done", 0.2);
    EXPECT_TRUE(r.timed_out);
    EXPECT_FALSE(r.cancelled);
}

TEST_F(BashkitFixture, CancelFromAnotherThread) {
    BashkitSandbox sb(opts());
    SandboxSession s = sb.open("c1");
    // Cancel until the run has started (a cancel before it starts is not kept), then the run ends with 130.
    std::atomic<bool> done{false};
    std::thread canceller([&] {
        while (!done.load()) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            EXPECT_TRUE(s.cancel());
        }
    });
    auto t0 = std::chrono::steady_clock::now();
    auto r = s.execute("sleep 30; echo not reached");
    done = true;
    canceller.join();
    EXPECT_EQ(r.exit_code, 130);
    EXPECT_EQ(r.stdout_, "");
    EXPECT_FALSE(r.timed_out);
    EXPECT_TRUE(r.cancelled);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
    EXPECT_EQ(s.execute("echo still usable").stdout_, "still usable\n");
    s.close();
    EXPECT_FALSE(s.cancel());  // closed
    // Types that run host processes cannot cancel.
    NoSandbox none;
    SandboxSession n = none.open();
    EXPECT_FALSE(n.cancel());
}

TEST_F(BashkitFixture, NetworkPolicies) {
    // Every refusal below happens before any connection, so the test needs no network.
    BashkitSandbox none(opts());
    auto r = none.open().execute("curl -sS https://example.com/; echo $?");
    EXPECT_EQ(r.stdout_, "7\n");
    EXPECT_EQ(r.stderr_, "curl: (7) blocked by the sandbox: network access is disabled in this sandbox\n");
    auto o = opts();
    o.network = Network::allow({"example.com"});
    BashkitSandbox allow(o);
    r = allow.open().execute("curl -sS https://other.com/; curl -sS http://example.com/");
    EXPECT_EQ(r.stderr_,
              "curl: (7) blocked by the sandbox: host 'other.com' is not in the sandbox's allow list\n"
              "curl: (7) blocked by the sandbox: only https is allowed by the sandbox's allow list\n");
    o.network = Network::all();
    BashkitSandbox all(o);  // block_private_ips defaults to true
    r = all.open().execute("curl -sS http://127.0.0.1:9/");
    EXPECT_EQ(r.exit_code, 7);
    EXPECT_EQ(r.stderr_, "curl: (7) blocked by the sandbox: address 127.0.0.1 is not allowed (loopback 127.0.0.0/8)\n");
    // Header binding secrets are nowhere the script can look.
    o.header_bindings = {HeaderBinding{"api.example.com", "Authorization", "s3cr3t-value", "/", "Bearer "}};
    BashkitSandbox bound(o);
    r = bound.open().execute("env; set; cat /proc/self/environ 2>/dev/null; grep -r s3cr3t / 2>/dev/null");
    EXPECT_EQ(r.stdout_.find("s3cr3t"), std::string::npos);
}

TEST_F(BashkitFixture, HooksRunInOrder) {
    std::vector<std::string> log;
    auto o = opts();
    o.hooks = {std::make_shared<Recorder>(&log, "a"), std::make_shared<Recorder>(&log, "b")};
    BashkitSandbox sb(o);
    {
        SandboxSession s = sb.open("hooks");
        EXPECT_EQ(log, (std::vector<std::string>{"a:create:ready\n", "b:create:ready\n"}));
    }  // RAII close
    EXPECT_EQ(log, (std::vector<std::string>{"a:create:ready\n", "b:create:ready\n", "b:destroy:hooks", "a:destroy:hooks"}));
    // session() does not start; open() does, once.
    log.clear();
    SandboxSession s = sb.session("lazy");
    EXPECT_FALSE(s.is_open());
    EXPECT_TRUE(log.empty());
    s.open();
    s.open();
    EXPECT_EQ(log.size(), 2u);
}

TEST_F(BashkitFixture, FailingHookFailsOpen) {
    struct Boom final : SandboxHook {
        std::string type_name() const override { return "Boom"; }
        void on_create(SandboxSession&) override { throw SandboxError("boom"); }
        json to_unified_state() const override { return {{"type", "Boom"}}; }
    };
    auto o = opts();
    o.hooks = {std::make_shared<Boom>()};
    BashkitSandbox sb(o);
    SandboxSession s = sb.session("x");
    EXPECT_EQ(error_of([&] { s.open(); }), "boom");
    EXPECT_FALSE(s.is_open());
}

TEST_F(BashkitFixture, GitIdentityWritesGitconfig) {
    auto o = opts();
    o.hooks = {std::make_shared<GitIdentity>("Ada Lovelace", "ada@example.com")};
    BashkitSandbox sb(o);
    SandboxSession s = sb.open("git");
    EXPECT_EQ(slurp(sb.session_dir("git") + "/home/user/.gitconfig"),
              "[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n");
    EXPECT_EQ(s.execute("git config --global user.name").stdout_, "Ada Lovelace\n");
    EXPECT_EQ(s.execute("git config --global --list").stdout_, "user.name=Ada Lovelace\nuser.email=ada@example.com\n");
    // git is the in-process one (utils/git/): outside a repository it answers as git does.
    auto r = s.execute("git status");
    EXPECT_EQ(r.exit_code, 128);
    EXPECT_EQ(r.stderr_, "fatal: not a git repository (or any of the parent directories): .git\n");
    EXPECT_EQ(s.execute("git init -q && git commit -q --allow-empty -m x && git log --format='%an <%ae>'").stdout_,
              "Ada Lovelace <ada@example.com>\n");
}

// Across processes: this binary re-runs itself (a disabled test, selected by name) to write and read a
// session with the same ids.
TEST(BashkitChild, DISABLED_Step) {
    const char* base = std::getenv("BASHKIT_CHILD_BASE");
    const char* cmd = std::getenv("BASHKIT_CHILD_CMD");
    ASSERT_TRUE(base && cmd);
    BashkitSandboxOptions o;
    o.instance_id = "cross";
    o.base_dir = base;
    BashkitSandbox sb(o);
    SandboxSession s = sb.open("shared");
    auto r = s.execute(cmd);
    std::ofstream(std::string(base) + "/child-out") << r.exit_code << ":" << r.stdout_;
}

int run_child(const std::string& base, const std::string& cmd) {
    std::string exe = fs::read_symlink("/proc/self/exe").string();
    std::vector<std::string> args = {exe, "--gtest_also_run_disabled_tests", "--gtest_filter=BashkitChild.DISABLED_Step"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_s = {"BASHKIT_CHILD_BASE=" + base, "BASHKIT_CHILD_CMD=" + cmd, "PATH=/usr/bin:/bin"};
    std::vector<char*> envp;
    for (auto& e : env_s) envp.push_back(e.data());
    envp.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    int rc = posix_spawn(&pid, exe.c_str(), &fa, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) return -1;
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST_F(BashkitFixture, ReopenedAcrossProcesses) {
    ASSERT_EQ(run_child(base.path, "mkdir -p src && echo 'print(1)' > src/main.py && echo written"), 0);
    EXPECT_EQ(slurp(base.path + "/child-out"), "0:written\n");
    // This process finds the child's files...
    BashkitSandboxOptions o = opts("cross");
    BashkitSandbox sb(o);
    {
        SandboxSession s = sb.open("shared");
        EXPECT_EQ(s.execute("cat src/main.py").stdout_, "print(1)\n");
        s.execute("echo from-parent >> src/main.py");
    }
    // ...and a new child finds the parent's change.
    ASSERT_EQ(run_child(base.path, "cat src/main.py"), 0);
    EXPECT_EQ(slurp(base.path + "/child-out"), "0:print(1)\nfrom-parent\n");
    sb.delete_session("shared");
    EXPECT_FALSE(fs::exists(sb.session_dir("shared")));
}

#ifdef BASHKIT_CLI
// The bashkit command with --session/--instance opens the same folder as BashkitSandbox with the default base.
TEST(BashkitCli, SharesSessionTrees) {
    std::string instance = "cli-" + random_session_id();
    BashkitSandbox sb({.instance_id = instance});
    {
        SandboxSession s = sb.open("shared");
        ASSERT_EQ(s.execute("echo from-sandbox > f.txt").exit_code, 0);
    }
    ProcessResult r = run_process({.argv = {BASHKIT_CLI, "--session", "shared", "--instance", instance, "-c",
                                            "cat f.txt && echo from-cli >> f.txt"},
                                   .timeout_seconds = 60});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "from-sandbox\n");
    EXPECT_EQ(sb.open("shared").execute("cat f.txt").stdout_, "from-sandbox\nfrom-cli\n");
    sb.delete_session("shared");
    EXPECT_FALSE(fs::exists(sb.session_dir("shared")));
}
#endif

// ================================================================================ refusals

TEST(SandboxRefusals, NoSandbox) {
    NoSandboxOptions d;
    EXPECT_TRUE(d.hooks.empty());
    NoSandbox sb;
    EXPECT_EQ(sb.type_name(), "NoSandbox");
    EXPECT_EQ(sb.supported_network(), std::vector{Network::Kind::None});
    EXPECT_TRUE(sb.supported_header_bindings().empty());
    EXPECT_EQ(sb.supported_access(), std::vector{SandboxAccess::none});
    EXPECT_TRUE(sb.delete_on_cleanup());
    EXPECT_FALSE(sb.supports_background_processes());
    EXPECT_EQ(sb.access(), SandboxAccess::none);
    EXPECT_TRUE(sb.tools().empty());
    EXPECT_EQ(error_of([] { NoSandbox({.access = SandboxAccess::files}); }),
              "NoSandbox does not support access=files; supported: none");
    EXPECT_EQ(error_of([] { NoSandbox({.access = SandboxAccess::full}); }),
              "NoSandbox does not support access=full; supported: none");
    EXPECT_EQ(error_of([] { NoSandbox({.network = Network::all()}); }), "NoSandbox does not support network=all; supported: none");
    EXPECT_EQ(error_of([] { NoSandbox({.network = Network::allow({"a.com"})}); }),
              "NoSandbox does not support network=allow; supported: none");
    EXPECT_EQ(error_of([] { NoSandbox({.header_bindings = {HeaderBinding{"a.com", "X", "s"}}}); }),
              "NoSandbox does not support header binding HeaderBinding; supported: none");
    auto s = sb.open();
    auto r = s.execute("echo hi");
    EXPECT_EQ(r.exit_code, 127);
    EXPECT_EQ(r.stderr_, "NoSandbox: no commands can run in this sandbox\n");
    EXPECT_EQ(s.call_tool("bash", {{"command", "ls"}}), json({{"ok", false}, {"error", "bash: not available with access=none"}}));
    // Hooks run (and see that nothing runs).
    std::vector<std::string> log;
    NoSandbox hooked({.hooks = {std::make_shared<Recorder>(&log, "n")}});
    hooked.open("n1").close();
    EXPECT_EQ(log, (std::vector<std::string>{"n:create:", "n:destroy:n1"}));
}

TEST(SandboxRefusals, BashkitAccessAndHooks) {
    TempDir base{"sandbox"};
    BashkitSandboxOptions o;
    o.base_dir = base.path;
    for (auto a : {SandboxAccess::none, SandboxAccess::files, SandboxAccess::full}) {
        o.access = a;
        EXPECT_EQ(BashkitSandbox(o).access(), a);
    }
    o.hooks = {nullptr};
    EXPECT_EQ(error_of([&] { BashkitSandbox{o}; }), "BashkitSandbox: hooks: a hook is null");
}

TEST(SandboxRefusals, DangerousLocal) {
    DangerousLocalSandboxOptions d;
    EXPECT_EQ(d.shell, "bash");
    EXPECT_EQ(d.default_exec_timeout_seconds, 600);
    EXPECT_EQ(d.workspace, "");
    EXPECT_FALSE(d.delete_on_cleanup.has_value());
    DangerousLocalSandbox sb;
    EXPECT_EQ(sb.type_name(), "DangerousLocalSandbox");
    EXPECT_EQ(sb.network().kind(), Network::Kind::All);
    EXPECT_EQ(sb.supported_network(), std::vector{Network::Kind::All});
    EXPECT_TRUE(sb.supported_header_bindings().empty());
    EXPECT_EQ(sb.supported_access(), (std::vector{SandboxAccess::none, SandboxAccess::files, SandboxAccess::full}));
    EXPECT_EQ(sb.access(), SandboxAccess::full);
    EXPECT_TRUE(sb.delete_on_cleanup());  // no workspace: true
    EXPECT_TRUE(sb.supports_background_processes());
    EXPECT_FALSE(DangerousLocalSandbox({.workspace = "/tmp/x"}).delete_on_cleanup());  // a workspace: false
    EXPECT_TRUE(DangerousLocalSandbox({.workspace = "/tmp/x", .delete_on_cleanup = true}).delete_on_cleanup());
    EXPECT_EQ(error_of([] { DangerousLocalSandbox({.hooks = {std::make_shared<GitIdentity>("a", "a@b")}}); }),
              "DangerousLocalSandbox does not support the GitIdentity hook: it would overwrite the user's own ~/.gitconfig");
    EXPECT_EQ(error_of([] { DangerousLocalSandbox({.shell = "zsh"}); }),
              "DangerousLocalSandbox: shell must be 'bash' or 'sh', got 'zsh'");
    EXPECT_EQ(error_of([] { DangerousLocalSandbox({.default_exec_timeout_seconds = -1}); }),
              "DangerousLocalSandbox: default_exec_timeout_seconds must be positive");
    EXPECT_EQ(DangerousLocalSandbox({.access = SandboxAccess::files}).access(), SandboxAccess::files);
    EXPECT_EQ(DangerousLocalSandbox({.network = Network::all()}).network().kind(), Network::Kind::All);
    EXPECT_EQ(error_of([] { DangerousLocalSandbox({.network = Network::none()}); }),
              "DangerousLocalSandbox does not support network=none; supported: all");
    EXPECT_EQ(error_of([] { DangerousLocalSandbox({.network = Network::allow({"pypi.org"})}); }),
              "DangerousLocalSandbox does not support network=allow; supported: all");
    EXPECT_EQ(error_of([] { DangerousLocalSandbox({.header_bindings = {GitHubBinding{{"a/b"}}}}); }),
              "DangerousLocalSandbox does not support header binding GitHubBinding; supported: none");
}

// ================================================================================ DangerousLocalSandbox

struct LocalFixture : ::testing::Test {
    TempDir tmp{"sandbox"};
    std::string old_home;
    void SetUp() override {
        old_home = std::getenv("HOME") ? std::getenv("HOME") : "";
        fs::create_directories(tmp.path + "/home");
        ::setenv("HOME", (tmp.path + "/home").c_str(), 1);
    }
    void TearDown() override { ::setenv("HOME", old_home.c_str(), 1); }
};

TEST_F(LocalFixture, DefaultWorkspaceIsMadeAndDeleted) {
    EXPECT_EQ(DangerousLocalSandbox::default_workspace_base(), tmp.path + "/home/.cache/mistral-vibe-harness-local-host");
    DangerousLocalSandbox sb;
    std::string ws;
    {
        SandboxSession s = sb.open("local1");
        ws = s.location();
        EXPECT_EQ(ws.rfind(fs::canonical(tmp.path).string() + "/home/.cache/mistral-vibe-harness-local-host/local1-", 0), 0u) << ws;
        auto r = s.execute("pwd; echo out; echo err >&2; touch made; exit 7");
        EXPECT_EQ(r.exit_code, 7);
        EXPECT_EQ(r.stdout_, ws + "\nout\n");
        EXPECT_EQ(r.stderr_, "err\n");
        EXPECT_TRUE(fs::exists(ws + "/made"));
        EXPECT_EQ(s.execute("echo $BASH_VERSION | cut -c1").stdout_.empty(), false);
    }
    EXPECT_FALSE(fs::exists(ws));  // delete_on_cleanup
}

TEST_F(LocalFixture, GivenWorkspaceIsKept) {
    std::string ws = tmp.path + "/ws";
    DangerousLocalSandbox sb({.shell = "sh", .workspace = ws});
    {
        SandboxSession s = sb.open();
        EXPECT_EQ(s.execute("echo data > kept").exit_code, 0);
        EXPECT_EQ(s.call_tool("read_file", {{"path", "kept"}})["content"], "data\n");
    }
    EXPECT_EQ(slurp(ws + "/kept"), "data\n");
}

TEST_F(LocalFixture, TimeoutKillsTheProcessGroup) {
    DangerousLocalSandbox sb({.workspace = tmp.path + "/ws"});
    SandboxSession s = sb.open();
    auto t0 = std::chrono::steady_clock::now();
    // A child in the background and one in the foreground; both must die.
    auto r = s.execute("(sleep 30; echo late > late.txt) & echo $! > bg.pid; sleep 30", 0.5);
    EXPECT_EQ(r.exit_code, 124);
    EXPECT_TRUE(r.timed_out);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
    std::string pid = slurp(tmp.path + "/ws/bg.pid");
    ASSERT_FALSE(pid.empty());
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    // Gone, or a zombie nobody reaped yet (its parent died with it).
    std::string stat = slurp("/proc/" + std::to_string(std::stoi(pid)) + "/stat");
    size_t paren = stat.rfind(')');
    bool alive = paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] != 'Z';
    EXPECT_FALSE(alive) << "the background process survived: " << stat;
    EXPECT_EQ(s.execute("echo fine").stdout_, "fine\n");
}

TEST_F(LocalFixture, WorkspaceRules) {
    std::string home = tmp.path + "/home";
    auto open_err = [](DangerousLocalSandboxOptions o) {
        DangerousLocalSandbox sb(std::move(o));
        return error_of([&] { sb.open(); });
    };
    EXPECT_EQ(open_err({.workspace = "rel/ws", .delete_on_cleanup = true}),
              "DangerousLocalSandbox: workspace 'rel/ws' must be an absolute path when delete_on_cleanup is true");
    EXPECT_EQ(open_err({.workspace = home, .delete_on_cleanup = true}),
              "DangerousLocalSandbox: workspace '" + home + "' contains the home folder '" + home +
                  "'; refusing to delete it at cleanup");
    EXPECT_EQ(open_err({.workspace = tmp.path, .delete_on_cleanup = true}),
              "DangerousLocalSandbox: workspace '" + tmp.path + "' contains the home folder '" + home +
                  "'; refusing to delete it at cleanup");
    std::string cwd = fs::current_path().string();
    EXPECT_EQ(open_err({.workspace = cwd, .delete_on_cleanup = true}),
              "DangerousLocalSandbox: workspace '" + cwd + "' contains the current directory '" + cwd +
                  "'; refusing to delete it at cleanup");
    EXPECT_TRUE(fs::exists(home));
    // Kept workspaces have no such rule.
    EXPECT_EQ(open_err({.workspace = tmp.path}), "(no exception)");
    // A deletable one elsewhere is made and removed.
    std::string ws = tmp.path + "/scratch/ws";
    {
        DangerousLocalSandbox sb({.workspace = ws, .delete_on_cleanup = true});
        auto s = sb.open();
        EXPECT_TRUE(fs::is_directory(ws));
    }
    EXPECT_FALSE(fs::exists(ws));
    EXPECT_TRUE(fs::exists(tmp.path + "/scratch"));
}

TEST_F(LocalFixture, ProcessTools) {
    DangerousLocalSandbox sb({.workspace = tmp.path + "/ws"});
    EXPECT_EQ(sb.tools().size(), 10u);
    SandboxSession s = sb.open();
    check_process_tools(s);
    // NoSandbox has none.
    EXPECT_EQ(NoSandbox().open().call_tool("start_process", {{"command", "ls"}})["error"],
              "start_process: not available with access=none");
}

// BashkitSandbox's processes are shells of the session on threads of their own (sandbox/shell_processes.hpp).
TEST(BashkitProcesses, ProcessTools) {
    TempDir base{"sandbox"};
    BashkitSandbox bk({.base_dir = base.path});
    EXPECT_TRUE(bk.supports_background_processes());
    SandboxSession s = bk.open();
    check_process_tools(s);
    // A process ends with the session: closing does not wait for `sleep`.
    json r = s.call_tool("start_process", {{"command", "sleep 600"}});
    ASSERT_EQ(r["ok"], true);
    s.close();
    EXPECT_FALSE(s.is_open());
}

// A background process's shell does not take the session's in-memory files to its own budget: once it has
// come and gone, the files still count against the session's.
TEST(BashkitProcesses, InMemoryFilesStayChargedToTheSession) {
    BashkitSandboxOptions o;
    o.ephemeral = true;
    o.limits.max_memory_bytes = 64u << 20;
    BashkitSandbox sb(o);
    SandboxSession s = sb.open();
    int id = s.call_tool("start_process", {{"command", "head -c 1000 /dev/zero > /tmp/p"}})["process_id"];
    for (int i = 0; i < 200 && s.call_tool("read_process_output", {{"process_id", id}})["running"] == true; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_EQ(s.call_tool("kill_process", {{"process_id", id}})["exit_code"], 0);
    auto r = s.execute("head -c 40000000 /dev/zero > /tmp/a; echo \"a $?\"; head -c 40000000 /dev/zero > /tmp/b; "
                       "echo \"b $?\"; wc -c < /tmp/p");
    EXPECT_EQ(r.stdout_, "a 0\nb 1\n1000\n") << r.stderr_;
}

TEST(BashkitProcesses, RunningProcessesAreBounded) {
    TempDir base{"sandbox"};
    BashkitSandbox bk({.base_dir = base.path});
    SandboxSession s = bk.open();
    for (int i = 0; i < 16; ++i) ASSERT_EQ(s.call_tool("start_process", {{"command", "sleep 600"}})["ok"], true);
    EXPECT_EQ(s.call_tool("start_process", {{"command", "true"}})["error"],
              "start_process: too many background processes (16 running): kill one or wait for one to end");
    EXPECT_EQ(s.call_tool("kill_process", {{"process_id", 3}})["exit_code"], 137);
    EXPECT_EQ(s.call_tool("start_process", {{"command", "true"}})["ok"], true);
    // Input nobody reads is bounded too.
    json big = s.call_tool("write_process_input", {{"process_id", 1}, {"input", std::string(11u << 20, 'x')}});
    EXPECT_EQ(big["ok"], false);
}

// ================================================================================ tools

TEST(SandboxTools, ListsPerAccessWithSchemas) {
    auto names = [](SandboxAccess a) {
        std::vector<std::string> n;
        for (const auto& t : tools_for(a)) n.push_back(t.name);
        return n;
    };
    EXPECT_TRUE(names(SandboxAccess::none).empty());
    EXPECT_EQ(names(SandboxAccess::files),
              (std::vector<std::string>{"read_file", "write_file", "edit_file", "list_files", "search_files"}));
    EXPECT_EQ(names(SandboxAccess::full),
              (std::vector<std::string>{"bash", "read_file", "write_file", "edit_file", "list_files", "search_files"}));
    auto tools = tools_for(SandboxAccess::full);
    EXPECT_EQ(tools[0].parameters["required"], json({"command"}));
    EXPECT_EQ(tools[0].parameters["properties"]["timeout_seconds"]["type"], "number");
    EXPECT_EQ(tools[0].parameters["additionalProperties"], false);
    EXPECT_EQ(tools[1].parameters["required"], json({"path"}));
    EXPECT_EQ(tools[1].parameters["properties"]["offset"]["type"], "integer");
    EXPECT_EQ(tools[3].parameters["required"], json({"path", "old_string", "new_string"}));
    EXPECT_EQ(tools[3].parameters["properties"]["replace_all"]["type"], "boolean");
    EXPECT_FALSE(tools[4].parameters.contains("required"));  // empty: left out (draft 4 wants at least one)
    // OpenAI's strict mode: every property required, the optional ones nullable.
    json strict = tools[1].to_json(true);
    EXPECT_EQ(strict["function"]["strict"], true);
    EXPECT_EQ(strict["function"]["parameters"]["required"], json({"limit", "offset", "path"}));
    EXPECT_EQ(strict["function"]["parameters"]["properties"]["offset"]["type"], json({"integer", "null"}));
    EXPECT_EQ(strict["function"]["parameters"]["properties"]["path"]["type"], "string");
    EXPECT_FALSE(tools[1].to_json()["function"].contains("strict"));
    EXPECT_EQ(tools[5].parameters["required"], json({"pattern"}));
    for (const auto& t : tools) {
        EXPECT_FALSE(t.description.empty());
        EXPECT_EQ(t.to_json()["function"]["name"], t.name);
    }
}

struct ToolsFixture : BashkitFixture {
    std::unique_ptr<BashkitSandbox> sb;
    std::optional<SandboxSession> s;
    void open(SandboxAccess a) {
        auto o = opts();
        o.access = a;
        sb = std::make_unique<BashkitSandbox>(o);
        s.emplace(sb->open("tools"));
    }
};

TEST_F(ToolsFixture, CallsAndErrors) {
    open(SandboxAccess::full);
    auto ok = [&](const std::string& name, json args) {
        json r = s->call_tool(name, args);
        EXPECT_EQ(r["ok"], true) << name << " " << r.dump();
        return r;
    };
    auto r = ok("bash", {{"command", "echo hi; echo e >&2; exit 2"}});
    EXPECT_EQ(r, json({{"ok", true}, {"exit_code", 2}, {"stdout", "hi\n"}, {"stderr", "e\n"}, {"timed_out", false}}));
    EXPECT_EQ(ok("bash", {{"command", "sleep 5"}, {"timeout_seconds", 0.2}})["exit_code"], 124);
    EXPECT_EQ(ok("bash", {{"command", "echo ok"}, {"timeout_seconds", 1e300}})["stdout"], "ok\n");  // capped, no overflow
    r = ok("write_file", {{"path", "src/a.py"}, {"content", "one\ntwo\nthree\nfour\n"}});
    EXPECT_EQ(r, json({{"ok", true}, {"path", "src/a.py"}, {"bytes_written", 19}}));
    r = ok("read_file", {{"path", "src/a.py"}, {"offset", 2}, {"limit", 2}});
    EXPECT_EQ(r, json({{"ok", true}, {"content", "two\nthree\n"}, {"total_lines", 4}, {"truncated", true}}));
    EXPECT_EQ(ok("read_file", {{"path", "/workspace/src/a.py"}})["content"], "one\ntwo\nthree\nfour\n");
    r = ok("edit_file", {{"path", "src/a.py"}, {"old_string", "two"}, {"new_string", "2"}});
    EXPECT_EQ(r["replacements"], 1);
    ok("write_file", {{"path", "src/b.txt"}, {"content", "x x x\n"}});
    EXPECT_EQ(s->call_tool("edit_file", {{"path", "src/b.txt"}, {"old_string", "x"}, {"new_string", "y"}}),
              json({{"ok", false}, {"error", "edit_file: src/b.txt: old_string occurs 3 times; give more context or set replace_all"}}));
    EXPECT_EQ(ok("edit_file", {{"path", "src/b.txt"}, {"old_string", "x"}, {"new_string", "y"}, {"replace_all", true}})["replacements"], 3);
    EXPECT_EQ(s->execute("cat src/b.txt src/a.py").stdout_, "y y y\none\n2\nthree\nfour\n");
    EXPECT_EQ(s->call_tool("edit_file", {{"path", "src/b.txt"}, {"old_string", "zz"}, {"new_string", "y"}})["error"],
              "edit_file: src/b.txt: old_string not found");
    r = ok("list_files", json::object());
    EXPECT_EQ(r["entries"], json::parse(R"([{"path":"src","type":"directory","size":0}])"));
    r = ok("list_files", {{"recursive", true}, {"pattern", "*.py"}});
    EXPECT_EQ(r["entries"], json::parse(R"([{"path":"src/a.py","type":"file","size":17}])"));
    r = ok("search_files", {{"pattern", "^t"}, {"glob", "*.py"}});
    EXPECT_EQ(r["matches"], json::parse(R"([{"path":"src/a.py","line":3,"text":"three"}])"));
    EXPECT_EQ(ok("search_files", {{"pattern", "y"}, {"path", "src/b.txt"}})["matches"].size(), 1u);
    // The bash tool's cd moves where relative paths of the file tools go.
    ok("bash", {{"command", "cd src"}});
    EXPECT_EQ(ok("read_file", {{"path", "b.txt"}})["content"], "y y y\n");

    // Bad calls: results, never exceptions.
    auto err = [&](const std::string& name, json args) { return s->call_tool(name, args)["error"].get<std::string>(); };
    EXPECT_EQ(err("rm_rf", json::object()), "rm_rf: unknown tool");
    EXPECT_EQ(err("bash", json::array()), "bash: arguments must be a JSON object");
    EXPECT_EQ(err("bash", json::object()), "bash: missing required argument 'command'");
    EXPECT_EQ(err("bash", {{"command", 5}}), "bash: argument 'command' must be of type string");
    EXPECT_EQ(err("bash", {{"command", "x"}, {"cwd", "/"}}), "bash: unknown argument 'cwd'");
    EXPECT_EQ(err("bash", {{"command", "x"}, {"timeout_seconds", -1}}), "bash: timeout_seconds must be positive");
    EXPECT_EQ(err("read_file", {{"path", "nope"}}), "read_file: nope: No such file or directory");
    EXPECT_EQ(err("read_file", {{"path", "b.txt"}, {"offset", 0}}), "read_file: offset must be at least 1");
    EXPECT_EQ(err("read_file", {{"path", "b.txt"}, {"limit", 1.5}}), "read_file: argument 'limit' must be of type integer");
    EXPECT_EQ(err("read_file", {{"path", nullptr}}), "read_file: argument 'path' must be of type string");
    // What models send: null for an optional argument (absent), 2.0 for an integer.
    EXPECT_EQ(ok("read_file", {{"path", "b.txt"}, {"offset", nullptr}, {"limit", 1.0}})["content"], "y y y\n");
    EXPECT_EQ(ok("list_files", {{"path", nullptr}, {"recursive", nullptr}, {"pattern", nullptr}})["truncated"], false);
    EXPECT_EQ(err("list_files", {{"path", "nope"}}), "list_files: nope: No such file or directory");
    EXPECT_EQ(err("search_files", {{"pattern", "("}}).rfind("search_files: bad pattern: ", 0), 0u);
    EXPECT_EQ(err("edit_file", {{"path", "b.txt"}, {"old_string", ""}, {"new_string", "x"}}),
              "edit_file: old_string must not be empty");
}

TEST_F(ToolsFixture, FilesAccessHasNoBash) {
    open(SandboxAccess::files);
    EXPECT_EQ(s->tools().size(), 5u);
    EXPECT_EQ(s->call_tool("bash", {{"command", "ls"}})["error"], "bash: not available with access=files");
    EXPECT_EQ(s->call_tool("write_file", {{"path", "a"}, {"content", "b"}})["ok"], true);
}

TEST_F(ToolsFixture, ClosedSession) {
    open(SandboxAccess::full);
    s->close();
    EXPECT_EQ(s->call_tool("bash", {{"command", "ls"}})["error"], "bash: the session is not open");
}

}  // namespace
}  // namespace bashkit::sandbox
