// git's network half against a real smart-HTTP server on loopback: cpp-httplib runs the real
// `git upload-pack --stateless-rpc` / `git receive-pack --stateless-rpc` on bare repositories made by the real
// git. Differential cases run the same script under bashkit (over a HostFs folder) and under bash + the real
// git (each side against its own copy of the fixture repositories), compare stdout, stderr and status, then
// compare what both left (work trees and the server's repository) as the real git reads it, fsck included.
// Then: a header binding's token reaches the server and nowhere else, the network policy refuses with a clear
// fatal, and hostile servers (delta loops, bad packs, zip bombs) end in a clean error.
#include <gtest/gtest.h>
#include <httplib.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "utils/registry.hpp"
#include "tests/common/host_run.hpp"
#include "interp/shell.hpp"
#include "net/http.hpp"
#include "tests/utils_net/harness.hpp"
#include "vfs/host_fs.hpp"

// A named namespace: the test sources are built as one unity file with the other git tests.
namespace gitnet_remote_test {

namespace fs = std::filesystem;
namespace bn = bashkit::net;
using namespace std::chrono_literals;

const char* kEnv =
    "GIT_AUTHOR_NAME='A U Thor' GIT_AUTHOR_EMAIL=author@example.com GIT_COMMITTER_NAME='A U Thor' "
    "GIT_COMMITTER_EMAIL=author@example.com GIT_AUTHOR_DATE='@1700000000 +0000' "
    "GIT_COMMITTER_DATE='@1700000000 +0000' GIT_CONFIG_NOSYSTEM=1 GIT_TERMINAL_PROMPT=0 LC_ALL=C TZ=UTC";

bool have_git() { return std::system("git --version >/dev/null 2>&1") == 0; }

std::string slurp(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

std::string shq(const std::string& s) { return bashkit::testing::shell_quote(s); }

int sh(const std::string& cmd) { return std::system(("env -i PATH=/usr/bin:/bin " + std::string(kEnv) + " bash -c " + shq(cmd)).c_str()); }

std::string sh_out(const std::string& cmd) {
    return bashkit::testing::run_host("env -i PATH=/usr/bin:/bin " + std::string(kEnv) + " bash -c " + shq(cmd) + " 2>&1")
        .out;
}

// kEnv as an environment, with PATH: what `env -i PATH=/usr/bin:/bin <kEnv>` gives.
std::vector<std::string> git_env() {
    return {"PATH=/usr/bin:/bin", "GIT_AUTHOR_NAME=A U Thor", "GIT_AUTHOR_EMAIL=author@example.com",
            "GIT_COMMITTER_NAME=A U Thor", "GIT_COMMITTER_EMAIL=author@example.com",
            "GIT_AUTHOR_DATE=@1700000000 +0000", "GIT_COMMITTER_DATE=@1700000000 +0000", "GIT_CONFIG_NOSYSTEM=1",
            "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "TZ=UTC"};
}

// Runs argv (a full path) with exactly `env`, stdin from `in`, stdout to `out`, stderr to /dev/null; its
// exit status, or -1. The server's git runs so rather than under sh, env and bash: three processes a request
// fewer, which on this machine (about 9 ms of CPU time a process) is most of what the server costs.
int spawn_wait(const std::vector<std::string>& args, const std::vector<std::string>& env, const std::string& in,
               const std::string& out) {
    std::vector<std::string> a = args, e = env;
    std::vector<char*> argv, envp;
    for (auto& x : a) argv.push_back(x.data());
    for (auto& x : e) envp.push_back(x.data());
    argv.push_back(nullptr);
    envp.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, in.c_str(), O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    const int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) return -1;
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

// Serves every bare repository under root over smart HTTP (protocol v0) with the real git. Paths starting
// with /hostile/ serve what `hostile` says instead.
template <class Server>
struct GitServer {
    std::string root;
    Server server;
    std::thread thread;
    int port = 0;
    std::atomic<int> seq{0};
    std::mutex mu;
    std::vector<std::string> authorization;
    std::function<void(const httplib::Request&, httplib::Response&)> hostile;
    bool v2 = false;                      // speak protocol v2 to a client that asks for it (Git-Protocol)
    std::vector<std::string> protocols;   // the Git-Protocol header of every request

    template <class... A>
    explicit GitServer(std::string root_dir, A&&... args) : root(std::move(root_dir)), server(std::forward<A>(args)...) {
        server.Get("/(.+)/info/refs", [this](const httplib::Request& req, httplib::Response& res) { handle(req, res, true); });
        server.Post("/(.+)/(git-upload-pack|git-receive-pack)",
                    [this](const httplib::Request& req, httplib::Response& res) { handle(req, res, false); });
        port = server.bind_to_any_port("127.0.0.1");
        thread = std::thread([this] { server.listen_after_bind(); });
        while (!server.is_running()) std::this_thread::sleep_for(1ms);
    }
    ~GitServer() {
        server.stop();
        thread.join();
    }

    void handle(const httplib::Request& req, httplib::Response& res, bool advert) {
        {
            std::lock_guard lock(mu);
            authorization.push_back(req.get_header_value("Authorization"));
            protocols.push_back(req.get_header_value("Git-Protocol"));
        }
        std::string repo = req.matches[1];
        if (repo.starts_with("hostile") && hostile) return hostile(req, res);
        std::string dir = root + "/" + repo;
        std::string service = advert ? req.get_param_value("service") : std::string(req.matches[2]);
        if (repo.find("..") != std::string::npos || !fs::exists(dir + "/HEAD") ||
            (service != "git-upload-pack" && service != "git-receive-pack")) {
            res.status = 404;
            res.set_content("not found\n", "text/plain");
            return;
        }
        std::string tmp = root + "/.io-" + std::to_string(++seq);
        std::vector<std::string> argv = {"/usr/bin/git", service.substr(4), "--stateless-rpc"};
        if (advert) argv.emplace_back("--advertise-refs");
        argv.push_back(dir);
        std::vector<std::string> env = git_env();
        if (v2 && req.get_header_value("Git-Protocol") == "version=2") env.emplace_back("GIT_PROTOCOL=version=2");
        if (!advert) std::ofstream(tmp + ".in", std::ios::binary) << req.body;
        spawn_wait(argv, env, advert ? "/dev/null" : tmp + ".in", tmp + ".out");
        std::string body = slurp(tmp + ".out");
        fs::remove(tmp + ".in");
        fs::remove(tmp + ".out");
        if (advert) {
            std::string first = "# service=" + service + "\n";
            char h[5];
            std::snprintf(h, sizeof h, "%04x", unsigned(first.size() + 4));
            body = h + first + "0000" + body;
            res.set_content(body, ("application/x-" + service + "-advertisement").c_str());
        } else {
            res.set_content(body, ("application/x-" + service + "-result").c_str());
        }
    }
};

class TempDir {
public:
    TempDir() {
        std::string t = (fs::temp_directory_path() / "bashkit-gitnet-XXXXXX").string();
        char* p = mkdtemp(t.data());
        path_ = p ? p : "";
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

struct Out {
    std::string out, err;
    int status = -1;
};

// Fixture repositories, made once by the real git: src.git (history with deltas, a branch, tags) and
// empty.git.
struct Fixture {
    TempDir dir;
    std::string path() const { return dir.path() + "/fixture"; }
    Fixture() {
        std::string f = path();
        fs::create_directories(f);
        std::string script =
            "cd " + shq(f) + " && git init -q -b main work && cd work && "
            "for i in $(seq 1 120); do echo \"line $i of a file that deltas well\"; done > f.txt && "
            "mkdir -p dir/sub && echo nested > dir/sub/n.txt && printf '#!/bin/sh\\n' > run.sh && chmod +x run.sh && "
            "ln -s f.txt link && git add . && git commit -q -m first && "
            "for k in 2 3 4 5; do sed -i \"${k}0s/.*/changed $k/\" f.txt && echo $k >> dir/sub/n.txt && "
            "git commit -q -am \"commit $k\"; done && git tag v1 HEAD~2 && git tag -a v2 -m 'annotated' && "
            "git checkout -q -b side HEAD~1 && echo side > side.txt && git add side.txt && git commit -q -m 'on side' && "
            "git checkout -q main && git repack -adq && cd .. && git clone -q --bare work src.git && "
            "git init -q --bare -b main empty.git";
        EXPECT_EQ(sh(script), 0);
    }
};

Fixture& fixture() {
    static Fixture f;
    return f;
}

struct Env {
    TempDir dir;
    std::string repos() const { return dir.path() + "/srv"; }
    std::string work() const { return dir.path() + "/root"; }
    Env() {
        fs::create_directories(work() + "/repo");
        fs::create_directories(work() + "/home");
        // Copied here rather than by cp, mkdir and mv under sh, env and bash (six processes an Env).
        fs::create_directories(repos());
        const auto opts = fs::copy_options::recursive | fs::copy_options::copy_symlinks;
        fs::copy(fixture().path() + "/src.git", repos() + "/src.git", opts);
        fs::copy(fixture().path() + "/empty.git", repos() + "/empty.git", opts);
    }
};

nettest::TestCert& cert() {
    static nettest::TestCert c;
    return c;
}

struct MapSecrets : bn::SecretStore {
    std::map<std::string, std::string> values;
    std::optional<std::string> get(const std::string& name) const override {
        auto it = values.find(name);
        if (it == values.end()) return std::nullopt;
        return it->second;
    }
};

bn::ClientOptions loopback(bool https = false) {
    bn::ClientOptions o;
    o.network = bn::Network::all();
    o.block_private_ips = false;
    o.connect_timeout = 5s;
    o.total_timeout = 60s;
    if (https) o.ca_file = cert().cert.string();
    return o;
}

// bashkit over the folder (its /), in /repo, HOME=/home, $URL set.
Out bashkit(const std::string& root, const std::string& url, const std::string& script,
            std::optional<bn::ClientOptions> client = loopback(), size_t memory = 0, int timeout_s = 60) {
    auto host = bashkit::vfs::HostFs::open(root);
    EXPECT_TRUE(host.ok());
    if (!host) return {};
    bashkit::interp::CommandRegistry registry;
    bashkit::utils::register_all(registry);
    bashkit::interp::ShellOptions o;
    o.cwd = "/repo";
    o.env = {{"HOME", "/home"},
             {"URL", url},
             {"GIT_AUTHOR_NAME", "A U Thor"},
             {"GIT_AUTHOR_EMAIL", "author@example.com"},
             {"GIT_COMMITTER_NAME", "A U Thor"},
             {"GIT_COMMITTER_EMAIL", "author@example.com"},
             {"GIT_AUTHOR_DATE", "@1700000000 +0000"},
             {"GIT_COMMITTER_DATE", "@1700000000 +0000"},
             {"LC_ALL", "C"},
             {"TZ", "UTC"}};
    o.limits.timeout = std::chrono::seconds(timeout_s);
    if (memory) o.limits.max_memory_bytes = memory;
    std::unique_ptr<bn::HttpClient> http;
    if (client) {
        http = std::make_unique<bn::HttpClient>(*client);
        o.http = http.get();
    }
    bashkit::interp::Shell shell(**host, registry, o);
    auto r = shell.run(script, "");
    auto fin = shell.close();
    return {r.out + fin.out, r.err + fin.err, fin.exit_code};
}

Out real(const std::string& root, const std::string& url, const std::string& script) {
    bashkit::testing::HostRun r = bashkit::testing::run_host_split(
        "cd " + shq(root + "/repo") + " && env -i PATH=/usr/bin:/bin HOME=" + shq(root + "/home") + " URL=" +
        shq(url) + " " + kEnv + " bash -c " + shq(script));
    Out o;
    o.out = std::move(r.out);
    o.err = std::move(r.err);
    o.status = r.status;
    return o;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
    return s;
}

// What a side left, as the real git reads it: every repository under /repo and the server's.
std::string state(const Env& e) {
    std::string script =
        "for d in " + shq(e.work()) + "/repo/*/ " + shq(e.repos()) + "/*.git/; do [ -d \"$d\" ] || continue; "
        "h=\"== ${d##*/repo/}\"; [[ $h == */srv/* ]] && h=srv/${h##*/srv/}; echo \"$h\"; cd \"$d\"; "
        "git fsck --strict --no-dangling 2>&1 && echo fsck-ok; "
        "git for-each-ref --format='%(objectname) %(refname) %(upstream)'; git symbolic-ref HEAD; "
        "git log --all --format='%H %P %s' 2>&1; b=$(git rev-parse --is-bare-repository); echo \"$b\"; "
        "[ \"$b\" = false ] && git status --porcelain --untracked-files=all; "
        "git config --list --local | while IFS= read -r l; do [[ $l == core.* ]] || echo \"$l\"; done; done";
    return sh_out(script);
}

struct Case {
    const char* script;
};

// Each case: a fresh pair of environments; the same script by both sides; outputs compared with the server's
// URL written as $URL; then the states.
const Case kCases[] = {
    {"git clone $URL/src.git; echo \"status $?\"; cd src && git log --oneline origin/side && git rev-parse origin/main origin/side origin/HEAD && "
     "cat .git/config && ls -la | wc -l && cat dir/sub/n.txt && readlink link"},
    {"git clone -q $URL/src.git dst && cd dst && git tag -l && git rev-parse v1 v2 v2^{} && git cat-file -p v2"},
    {"git clone -b side $URL/src.git s2; cd s2 && git status -s && cat side.txt && cat .git/config"},
    {"git clone $URL/nope.git x; echo \"status $?\"; ls"},
    {"git clone $URL/src.git some/deeper/dir; ls some/deeper/dir; mkdir full && touch full/x && git clone $URL/src.git full; echo \"status $?\""},
    {"git ls-remote $URL/src.git; git ls-remote --heads $URL/src.git; git ls-remote --tags --refs $URL/src.git; "
     "git ls-remote $URL/src.git main; git ls-remote --exit-code $URL/src.git nope; echo \"status $?\""},
    {"git ls-remote $URL/missing.git; echo \"status $?\"; git ls-remote; echo \"status $?\""},
    {"git init -q r && cd r && git remote; git remote add origin $URL/src.git && git remote add up $URL/x.git && git remote && "
     "git remote -v && git remote get-url origin; git remote get-url nope; echo \"s $?\"; git remote add origin x; echo \"s $?\"; "
     "git remote set-url up $URL/y.git && git remote -v && git remote set-url nope z; echo \"s $?\"; git remote remove up && "
     "git remote -v && git remote rm nope; echo \"s $?\"; cat .git/config"},
    {"git init -q r && cd r && git remote add origin $URL/src.git && git fetch && git rev-parse --verify -q origin/main && git log --oneline origin/side && "
     "git ls-remote origin && git fetch; echo \"again $?\"; git remote rm origin && git rev-parse --verify -q origin/main"},
    {"git clone -q $URL/src.git one && git clone -q $URL/src.git two && cd one && echo more >> f.txt && "
     "git commit -q -a -m 'from one' && git push; echo \"push $?\"; cd ../two && git fetch; git rev-parse origin/main; git pull --ff-only; "
     "echo \"pull $?\"; git log --oneline -3; git pull; echo \"again $?\""},
    {"git clone -q $URL/src.git one && cd one && git branch feature && git checkout -q feature 2>/dev/null && echo f > feat && git add feat && git commit -q -m feat && "
     "git push; echo \"s $?\"; git push -u origin feature; echo \"s $?\"; git push; echo \"s $?\"; "
     "git push origin HEAD:refs/heads/other main:copy; echo \"s $?\"; git rev-parse --verify -q origin/main; git push origin --delete other copy; "
     "echo \"s $?\"; git ls-remote origin"},
    {"git clone -q $URL/src.git one && git clone -q $URL/src.git two && cd one && echo a >> f.txt && git commit -q -a -m a && "
     "git push -q && cd ../two && echo b >> f.txt && git commit -q -a -m b && git push; echo \"s $?\"; git fetch -q; git push; "
     "echo \"s $?\"; git pull; echo \"s $?\"; git pull --ff-only; echo \"s $?\"; git push --force; echo \"s $?\"; "
     "cd ../one && git pull --ff-only; echo \"s $?\"; git fetch; echo \"f $?\"; git log --oneline -2 origin/main"},
    {"git clone $URL/empty.git e; echo \"s $?\"; cd e && echo x > x && git add x && git commit -q -m root && "
     "git push; echo \"s $?\"; git push origin main; echo \"s $?\"; git ls-remote origin; git rev-parse --verify -q origin/main"},
    {"git clone -q $URL/src.git one && cd one && git tag -a v3 -m three && git tag light && git push origin v3; echo \"s $?\"; "
     "git push --tags; echo \"s $?\"; git ls-remote --tags origin; cd .. && git clone -q $URL/src.git two && cd two && git tag -l"},
    {"git clone -q $URL/src.git one && git init -q two && cd two && git pull $URL/src.git side; echo \"s $?\"; git log --oneline -2; "
     "git fetch $URL/src.git main; echo \"s $?\"; cat .git/FETCH_HEAD | sed 's/127.0.0.1:[0-9]*/H/'; git push; echo \"s $?\""},
    // Divergent branches: pull --no-rebase merges (the message names the remote's URL), a conflict stops it.
    {"git clone -q $URL/src.git one && git clone -q $URL/src.git two && cd one && echo a > a.txt && git add a.txt && "
     "git commit -q -m a && git push -q && cd ../two && echo b > b.txt && git add b.txt && git commit -q -m b && "
     "git pull --no-rebase --no-commit; echo \"s $?\"; cat .git/MERGE_MSG; git commit -q -m merged; git log --format=%s -1; ls; cd ../one && echo x >> f.txt && git commit -q -a -m x && "
     "git push -q && cd ../two && echo y >> f.txt && git commit -q -a -m y && git -c pull.rebase=false pull; echo \"s $?\"; "
     "cat f.txt; git status -s; git pull --no-rebase; echo \"s $?\""},
    {"git clone -q $URL/src.git one && cd one && git push origin nosuch; echo \"s $?\"; git push origin --delete nosuch; echo \"s $?\"; "
     "git push nowhere; echo \"s $?\"; git checkout -q v1 2>/dev/null && git push; echo \"s $?\"; git fetch nowhere; echo \"s $?\""},
    // remote rename: the section, its fetch refspec, the branches following it and the tracking refs move.
    {"git clone -q $URL/src.git one && cd one && git remote rename origin up; echo \"s $?\"; git remote -v; "
     "git branch -a; git config branch.main.remote; git symbolic-ref refs/remotes/up/HEAD; git log --oneline -1 up/side; "
     "git remote rename nope x; echo \"s $?\"; git remote add other $URL/x.git; git remote rename up other; echo \"s $?\"; "
     "git remote rename up 'bad name'; echo \"s $?\"; git remote rename up; echo \"s $?\"; cat .git/config"},
};

// Runs the cases whose index is in `only` (all when empty) against servers that speak protocol v2 when
// asked (v2) or v0 only, which a client asking for v2 must fall back to.
void differential(bool v2, const std::set<size_t>& only = {}) {
    fixture();
    int n = 0;
    for (size_t i = 0; i < std::size(kCases); ++i) {
        if (!only.empty() && !only.count(i)) continue;
        const Case& c = kCases[i];
        SCOPED_TRACE(c.script);
        Env a, b;
        GitServer<httplib::Server> sa(a.repos()), sb(b.repos());
        sa.v2 = sb.v2 = v2;
        std::string ua = "http://127.0.0.1:" + std::to_string(sa.port), ub = "http://127.0.0.1:" + std::to_string(sb.port);
        Out x = bashkit(a.work(), ua, c.script);
        Out y = real(b.work(), ub, c.script);
        x.out = replace_all(x.out, ua, "$URL");
        x.err = replace_all(x.err, ua, "$URL");
        y.out = replace_all(y.out, ub, "$URL");
        y.err = replace_all(y.err, ub, "$URL");
        EXPECT_EQ(x.out, y.out);
        EXPECT_EQ(x.err, y.err);
        EXPECT_EQ(x.status, y.status);
        std::string sa_state = replace_all(state(a), ua, "URL"), sb_state = replace_all(state(b), ub, "URL");
        EXPECT_EQ(sa_state, sb_state);
        EXPECT_EQ(sa_state.find("error"), std::string::npos) << sa_state;
        // bashkit asks for v2 on every fetch's advertisement, as git does.
        std::lock_guard lock(sa.mu);
        if (!sa.protocols.empty()) {
            EXPECT_NE(std::find(sa.protocols.begin(), sa.protocols.end(), "version=2"), sa.protocols.end());
        }
        ++n;
    }
    EXPECT_EQ(n, int(only.empty() ? std::size(kCases) : only.size()));
}

TEST(GitRemote, DifferentialAgainstRealGit) {
    if (!have_git()) GTEST_SKIP() << "no git on this machine";
    differential(false);
}

// The same against servers speaking protocol v2 (ls-refs, fetch): clones (a branch, an empty repository),
// ls-remote, fetch, pull, and a push (which stays v0) between two clones.
TEST(GitRemote, DifferentialAgainstRealGitProtocolV2) {
    if (!have_git()) GTEST_SKIP() << "no git on this machine";
    differential(true, {0, 1, 2, 3, 5, 8, 9, 12, 14});
}

TEST(GitRemote, HeaderBindingTokenReachesTheServerOnly) {
    if (!have_git()) GTEST_SKIP() << "no git on this machine";
    fixture();
    Env e;
    GitServer<httplib::SSLServer> srv(e.repos(), cert().cert.c_str(), cert().key.c_str());
    const std::string token = "ghs_t0ken-never-seen";
    auto secrets = std::make_shared<MapSecrets>();
    secrets->values["GH"] = "x-access-token:" + token;
    auto o = loopback(true);
    o.secrets = secrets;
    bn::HeaderBinding b;
    b.host = "127.0.0.1:" + std::to_string(srv.port);
    b.header = "Authorization";
    b.secret_name = "GH";
    b.path_prefix = "/src.git";
    b.prefix = "Basic ";
    o.header_bindings = {b};
    std::string url = "https://127.0.0.1:" + std::to_string(srv.port);
    Out r = bashkit(e.work(), url,
                    "git clone -q $URL/src.git c && cd c && echo z >> f.txt && git commit -q -a -m z && git push -q && "
                    "git ls-remote origin main; git ls-remote $URL/empty.git; cat .git/config; env; set", o);
    EXPECT_EQ(r.status, 0) << r.err;
    {
        std::lock_guard lock(srv.mu);
        ASSERT_GE(srv.authorization.size(), 6u) << r.err;
        size_t with = 0;
        for (const auto& a : srv.authorization)
            if (!a.empty()) {
                ++with;
                EXPECT_EQ(a.substr(0, 6), "Basic ");
            }
        EXPECT_EQ(with, srv.authorization.size() - 1);  // all but the request to /empty.git
        EXPECT_TRUE(srv.authorization.back().empty());
    }
    for (const std::string& s : {r.out, r.err, slurp(e.work() + "/repo/c/.git/config"), slurp(e.work() + "/repo/c/.git/FETCH_HEAD")})
        EXPECT_EQ(s.find("t0ken"), std::string::npos) << s;
    EXPECT_NE(sh_out("git -C " + shq(e.repos()) + "/src.git log -1 --format=%s main"), "");
    EXPECT_EQ(sh_out("git -C " + shq(e.repos()) + "/src.git log -1 --format=%s main"), "z\n");
}

TEST(GitRemote, PolicyRefusesWithAClearFatal) {
    Env e;
    // Loopback is refused by the default address rules, an allow-list without the host refuses it, and no
    // network at all says so; nothing is left behind.
    bn::ClientOptions strict;
    strict.network = bn::Network::all();
    Out r = bashkit(e.work(), "http://127.0.0.1:9", "git clone $URL/src.git c; echo \"s $?\"; ls", strict);
    EXPECT_EQ(r.out, "s 128\n");
    EXPECT_TRUE(r.err.starts_with("Cloning into 'c'...\nfatal: unable to access 'http://127.0.0.1:9/src.git/': ")) << r.err;
    bn::ClientOptions allow;
    allow.network = bn::Network::allow({"github.com"});
    r = bashkit(e.work(), "https://example.com", "git ls-remote $URL/x.git; echo \"s $?\"", allow);
    EXPECT_EQ(r.out, "s 128\n");
    EXPECT_TRUE(r.err.starts_with("fatal: unable to access 'https://example.com/x.git/': ")) << r.err;
    EXPECT_NE(r.err.find("example.com"), std::string::npos);
    r = bashkit(e.work(), "https://example.com", "git clone $URL/x.git; echo \"s $?\"; ls", std::nullopt);
    EXPECT_EQ(r.out, "s 128\n");
    EXPECT_EQ(r.err, "Cloning into 'x'...\nfatal: unable to access 'https://example.com/x.git/': the network is off in this sandbox\n");
    r = bashkit(e.work(), "", "git clone ssh://git@github.com/a/b.git; echo \"s $?\"; git clone git@github.com:a/b.git; echo \"s $?\"; "
                              "git ls-remote git://example.com/x; echo \"s $?\"", std::nullopt);
    EXPECT_EQ(r.out, "s 128\ns 128\ns 128\n");
    EXPECT_NE(r.err.find("'ssh://github.com/a/b.git': ssh:// and git:// remotes are not available in this sandbox"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("'git@github.com:a/b.git': ssh:// and git://"), std::string::npos) << r.err;
}

std::string pkt(const std::string& d) {
    char h[5];
    std::snprintf(h, sizeof h, "%04x", unsigned(d.size() + 4));
    return h + d;
}

std::string zlib(const std::string& in) {
    uLongf n = compressBound(uLong(in.size()));
    std::string out(n, '\0');
    compress(reinterpret_cast<Bytef*>(out.data()), &n, reinterpret_cast<const Bytef*>(in.data()), uLong(in.size()));
    out.resize(n);
    return out;
}

std::string obj_header(int type, uint64_t size) {
    std::string h;
    unsigned char c = static_cast<unsigned char>((type << 4) | (size & 15));
    size >>= 4;
    while (size) {
        h += char(c | 0x80);
        c = static_cast<unsigned char>(size & 0x7f);
        size >>= 7;
    }
    h += char(c);
    return h;
}

std::string sha1(const std::string& d) {
    unsigned char md[20];
    unsigned int len = 0;
    EVP_Digest(d.data(), d.size(), md, &len, EVP_sha1(), nullptr);
    return std::string(reinterpret_cast<char*>(md), 20);
}

std::string make_pack(const std::vector<std::string>& objects) {
    std::string p = "PACK";
    for (uint32_t v : {2u, uint32_t(objects.size())}) {
        p += char(v >> 24);
        p += char(v >> 16);
        p += char(v >> 8);
        p += char(v);
    }
    for (const auto& o : objects) p += o;
    return p + sha1(p);
}

TEST(GitRemote, HostileServersEndCleanly) {
    Env e;
    GitServer<httplib::Server> srv(e.repos());
    std::string want(40, 'a');
    std::string pack;
    srv.hostile = [&](const httplib::Request& req, httplib::Response& res) {
        if (req.method == "GET") {
            std::string adv = pkt("# service=git-upload-pack\n") + "0000" +
                              pkt(want + std::string(" HEAD\0side-band-64k ofs-delta symref=HEAD:refs/heads/main\n", 58)) +
                              pkt(want + " refs/heads/main\n") + "0000";
            res.set_content(adv, "application/x-git-upload-pack-advertisement");
            return;
        }
        std::string body = pkt("NAK\n");
        for (size_t at = 0; at < pack.size(); at += 60000) body += pkt("\1" + pack.substr(at, 60000));
        body += "0000";
        res.set_content(body, "application/x-git-upload-pack-result");
    };
    std::string url = "http://127.0.0.1:" + std::to_string(srv.port);
    auto run = [&](size_t memory = 0) { return bashkit(e.work(), url, "git clone -q $URL/hostile.git c; echo \"s $?\"; ls", loopback(), memory); };
    // Two REF_DELTAs that name each other as base: never resolvable.
    std::string a_raw(20, '\x11'), b_raw(20, '\x22');
    std::string delta = std::string("\x05\x05\x05", 3) + "hello";
    pack = make_pack({obj_header(7, delta.size()) + b_raw + zlib(delta), obj_header(7, delta.size()) + a_raw + zlib(delta)});
    Out r = run();
    EXPECT_EQ(r.out, "s 128\n");
    EXPECT_EQ(r.err, "fatal: pack has 2 unresolved deltas\n");
    // A corrupt checksum.
    pack = make_pack({obj_header(3, 5) + zlib("hello")});
    pack.back() ^= 1;
    r = run();
    EXPECT_EQ(r.err, "fatal: pack is corrupted (SHA1 mismatch)\n");
    // An object that inflates past its header's size.
    pack = make_pack({obj_header(3, 5) + zlib("hello, longer than five")});
    r = run();
    EXPECT_EQ(r.out, "s 128\n");
    EXPECT_NE(r.err.find("fatal: "), std::string::npos);
    // A zip bomb: 256 MiB of zeros in a few hundred KiB, under a 32 MiB session budget.
    {
        std::string zeros(size_t(256) << 20, '\0');
        std::string z = zlib(zeros);
        zeros.clear();
        zeros.shrink_to_fit();
        pack = make_pack({obj_header(3, uint64_t(256) << 20) + z});
    }
    r = run(32u << 20);
    EXPECT_EQ(r.out, "s 128\n");
    EXPECT_EQ(r.err, "fatal: memory limit exceeded (the session's memory budget is spent)\n");
    // The wanted object is not in an otherwise valid pack.
    pack = make_pack({obj_header(3, 5) + zlib("hello")});
    r = run();
    EXPECT_EQ(r.out, "s 128\n");
    EXPECT_EQ(r.err, "fatal: remote did not send all necessary objects\n");
}

// A server that answers protocol v2 with lies: a bad ls-refs line, an ERR, a fetch answer without a pack,
// a pack that misses the wanted object, an object format we cannot read. Each ends in a clean fatal.
TEST(GitRemote, HostileProtocolV2ServersEndCleanly) {
    Env e;
    GitServer<httplib::Server> srv(e.repos());
    std::string want(40, 'a');
    std::string caps = "version 2\n", ls_refs, fetch;
    srv.hostile = [&](const httplib::Request& req, httplib::Response& res) {
        if (req.method == "GET") {
            std::string adv = pkt("# service=git-upload-pack\n") + "0000";
            for (size_t p = 0, e2; p < caps.size(); p = e2 + 1) {
                e2 = caps.find('\n', p);
                adv += pkt(caps.substr(p, e2 - p + 1));
            }
            res.set_content(adv + "0000", "application/x-git-upload-pack-advertisement");
            return;
        }
        const bool ls = req.body.find("command=ls-refs") != std::string::npos;
        res.set_content(ls ? ls_refs : fetch, "application/x-git-upload-pack-result");
    };
    std::string url = "http://127.0.0.1:" + std::to_string(srv.port);
    auto run = [&] { return bashkit(e.work(), url, "git clone -q $URL/hostile.git c; echo \"s $?\"; ls", loopback()); };
    const std::string good_caps = "version 2\nagent=git/2.39.5\nls-refs=unborn\nfetch=shallow\nobject-format=sha1\n";
    caps = good_caps;
    ls_refs = pkt("not a ref line\n") + "0000";
    Out r = run();
    EXPECT_EQ(r.out, "s 128\n");
    EXPECT_EQ(r.err, "fatal: invalid ls-refs response: not a ref line\n");
    ls_refs = pkt("ERR no such repository\n");
    r = run();
    EXPECT_EQ(r.err, "fatal: remote error: no such repository\n");
    ls_refs = pkt(want + " HEAD symref-target:refs/heads/main\n") + pkt(want + " refs/heads/main\n") + "0000";
    fetch = pkt("acknowledgments\n") + pkt("NAK\n") + "0000";
    r = run();
    EXPECT_EQ(r.out, "s 128\n");
    EXPECT_EQ(r.err, "fatal: the remote end hung up unexpectedly (no pack)\n");
    fetch = pkt("packfile\n") + pkt("\1" + make_pack({obj_header(3, 5) + zlib("hello")})) + "0000";
    r = run();
    EXPECT_EQ(r.err, "fatal: remote did not send all necessary objects\n");
    fetch = pkt("packfile\n") + pkt("\3" + std::string("out of luck\n")) + "0000";
    r = run();
    EXPECT_EQ(r.err, "fatal: remote error: out of luck\n");
    caps = "version 2\nls-refs\nfetch\nobject-format=sha256\n";
    r = run();
    EXPECT_EQ(r.err, "fatal: the remote repository uses sha256 object names, which are not available here\n");
    caps = "version 2\nagent=x\n";
    r = run();
    EXPECT_EQ(r.err, "fatal: the server speaks protocol v2 without ls-refs and fetch\n");
    // Nothing is left of a failed clone.
    EXPECT_FALSE(fs::exists(e.work() + "/repo/c"));
}

}  // namespace gitnet_remote_test
