#include "sandbox/server/server.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>

#include <sys/resource.h>
#include <unistd.h>

#include <httplib.h>
#include <nlohmann/json.hpp>

#include "sandbox/bashkit_sandbox.hpp"
#include "sandbox/mistral_sandbox.hpp"
#include "sandbox/server/session_store.hpp"
#include "vfs/session_tree.hpp"

namespace bashkit::sandbox {
namespace {

using json = nlohmann::json;
using steady = std::chrono::steady_clock;

// Descriptors kept for the server itself (listener, connections, threads) out of the process's limit.
constexpr uint64_t kServerOwnFiles = 256;

// A JSON body that never throws on bytes that are not UTF-8 (they become U+FFFD).
std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

void reply(httplib::Response& res, int status, const json& body) {
    res.status = status;
    res.set_content(dump(body), "application/json");
}

void fail(httplib::Response& res, int status, const std::string& code, const std::string& message) {
    reply(res, status, {{"error", message}, {"code", code}});
}

// Compares in time independent of where the strings differ.
bool same(const std::string& a, const std::string& b) {
    size_t n = std::max(a.size(), b.size());
    size_t diff = a.size() ^ b.size();
    for (size_t i = 0; i < n; ++i) {
        unsigned char x = i < a.size() ? uint8_t(a[i]) : 0, y = i < b.size() ? uint8_t(b[i]) : 0;
        diff |= size_t(x ^ y);
    }
    return diff == 0;
}

int64_t unix_now() {
    return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// What becomes of a session when it is closed: deleted (DELETE, expiry), let go with its state saved for
// another replica or a later request (idle, stop), or dropped untouched (its lease was taken over).
enum class Fate { remove, unload, drop };

struct Entry {
    std::string id;
    std::string name;
    size_t owner = 0;  // index of the token
    std::unique_ptr<BashkitSandbox> sandbox;
    std::optional<SandboxSession> session;
    steady::time_point expires;
    std::chrono::seconds idle{0};  // 0: none
    steady::time_point last_used;
    json info;                     // what GET answers
    std::mutex mu;                 // one request at a time in a session
    bool closed = false;           // under mu
    // Set when the session is to go (expired or the server stopping): whoever holds mu closes it on release.
    std::atomic<bool> doomed{false};
    std::atomic<Fate> fate{Fate::remove};
    std::mutex cancel_mu;          // guards `session` being taken away, for cancel() without mu
    // On the base dir (SessionStore): the lease held, and the hash of the shell state last written.
    bool persistent = false;
    std::mutex lease_mu;
    Lease lease;                   // under lease_mu
    bool lost = false;             // under lease_mu: another replica took the lease over
    size_t state_hash = 0;         // under mu
    bool state_known = false;      // under mu
};

// What a create request asks for, checked (also what a replica reopening the session rebuilds it from).
struct CreateSpec {
    BashkitSandboxOptions bo;
    int64_t ttl = 0;
    int64_t idle = 0;
    std::string name;
    json egress_json;
    json request = json::object();  // the fields of the request kept in meta.json
};

std::string default_replica_id() {
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) != 0 || !host[0]) std::snprintf(host, sizeof host, "localhost");
    return std::string(host) + "-" + std::to_string(::getpid());
}

}  // namespace

struct SandboxServer::Impl {
    SandboxServerOptions opts;
    httplib::Server http;
    std::thread listener;
    std::thread reaper;
    std::mutex reaper_mu;
    std::condition_variable reaper_cv;
    bool stopping = false;
    int port = -1;

    mutable std::mutex mu;
    std::map<std::string, std::shared_ptr<Entry>> sessions;
    uint64_t open_files_budget = 0;  // opts.max_open_files, or what the process's descriptor limit gives
    std::unique_ptr<SessionStore> store;  // with base_dir: sessions any replica may reopen
    std::vector<std::string> token_sha;   // SHA-256 of each token (meta.json names the owner by it)
    std::mutex load_mu;                   // one reopen at a time (two requests for one session reopen it once)
    steady::time_point next_sweep{};      // the maintenance thread's next look for expired sessions on disk

    // Host descriptors one session may hold: its FsLimits::max_open_files when its tree is on disk, 0 in
    // memory (a MemoryFs holds none).
    uint64_t files_per_session() const { return opts.base_dir.empty() ? 0 : opts.fs_limits.max_open_files; }

    steady::time_point now() const { return opts.clock ? opts.clock() : steady::now(); }

    // The index of the request's token, or nullopt (the response is then 401).
    std::optional<size_t> authenticate(const httplib::Request& req, httplib::Response& res) const {
        std::string h = req.get_header_value("Authorization");
        static const std::string kBearer = "Bearer ";
        if (h.size() > kBearer.size() && h.compare(0, kBearer.size(), kBearer) == 0) {
            std::string token = h.substr(kBearer.size());
            std::optional<size_t> who;
            for (size_t i = 0; i < opts.tokens.size(); ++i)
                if (same(token, opts.tokens[i]) && !who) who = i;
            if (who) return who;
        }
        res.set_header("WWW-Authenticate", "Bearer");
        fail(res, 401, "unauthorized", "missing or invalid bearer token");
        return std::nullopt;
    }

    // ------------------------------------------------------------------------------------------ leases

    // True while this replica holds e's lease (renewed here when a third of it has passed); false once it
    // is lost (then it stays lost). Sessions in memory have no lease.
    bool ensure_lease(Entry& e) {
        if (!e.persistent) return true;
        std::lock_guard lock(e.lease_mu);
        if (e.lost) return false;
        int64_t left = e.lease.expires_at_ms - SessionStore::now_ms();
        if (left > store->lease_length().count() * 2 / 3) return true;
        if (!store->renew(e.id, e.lease)) {
            e.lost = true;
            std::cerr << "bashkit serve: replica " << store->replica_id() << " lost the lease of " << e.id << "\n";
        }
        return !e.lost;
    }

    // 409: the session is held by another replica (lease: its lease as read).
    void elsewhere(httplib::Response& res, const std::string& id, const Lease& lease) {
        int64_t left_ms = std::max<int64_t>(0, lease.expires_at_ms - SessionStore::now_ms());
        res.set_header("Retry-After", std::to_string((left_ms + 999) / 1000));
        reply(res, 409,
              {{"error", "session '" + id + "' is open on replica '" + lease.owner + "' (its lease ends in " +
                             std::to_string((left_ms + 999) / 1000) + " s unless renewed): send its requests there"},
               {"code", "session_elsewhere"},
               {"owner", lease.owner},
               {"lease_expires_at_ms", lease.expires_at_ms}});
    }

    // The shell state to the store when it changed since last written (and the lease is still ours); under e.mu.
    void save_state(Entry& e) noexcept {
        if (!e.persistent || !e.session || !ensure_lease(e)) return;
        try {
            std::string state = e.session->save_state();
            size_t h = std::hash<std::string>{}(state);
            if (e.state_known && h == e.state_hash) return;
            if (store->write_state(e.id, state)) {
                e.state_hash = h;
                e.state_known = true;
            } else {
                std::cerr << "bashkit serve: cannot write the shell state of " << e.id << "\n";
            }
        } catch (const std::exception& ex) {
            std::cerr << "bashkit serve: cannot save the shell state of " << e.id << ": " << ex.what() << "\n";
        } catch (...) {
        }
    }

    // --------------------------------------------------------------------------------- session lifetime

    // Closes the session; under e.mu. By its fate: deletes its folder and its store entry, or saves its
    // state and releases its lease, or (lease lost) leaves the disk alone.
    void close_locked(Entry& e) noexcept {
        if (e.closed) return;
        e.closed = true;
        Fate fate = e.fate.load();
        if (e.persistent && fate != Fate::drop && !ensure_lease(e)) fate = Fate::drop;  // another replica's now
        if (fate == Fate::unload) save_state(e);
        std::optional<SandboxSession> session;
        {
            std::lock_guard cancel_lock(e.cancel_mu);
            session.swap(e.session);
        }
        try {
            if (session) session->close();
        } catch (...) {
        }
        try {
            if (fate == Fate::remove && e.sandbox && !e.sandbox->options().ephemeral) {
                try {
                    e.sandbox->delete_session(e.id);
                } catch (...) {
                }
                if (e.persistent) store->remove(e.id);
            } else if (fate == Fate::unload && e.persistent) {
                if (auto meta = store->read_meta(e.id)) {
                    (*meta)["last_used"] = unix_now();
                    (void)store->write_meta(e.id, *meta);
                }
                std::lock_guard lock(e.lease_mu);
                store->release(e.id, e.lease);
            }
        } catch (...) {
        }
    }

    // Closes the session when no request holds it; otherwise the holder does when it lets go (see Held).
    void release(const std::shared_ptr<Entry>& e) noexcept {
        if (!e->doomed.load()) return;
        std::unique_lock lock(e->mu, std::try_to_lock);
        if (lock.owns_lock()) close_locked(*e);
    }

    // Ends a session without waiting for its running command: the command is cancelled, and the session
    // is closed now or by the request running it as soon as that returns. The reaper and a request that
    // finds its session expired never wait on another request's command.
    void retire(const std::shared_ptr<Entry>& e) {
        e->doomed.store(true);
        {
            std::lock_guard cancel_lock(e->cancel_mu);
            if (e->session) e->session->cancel();
        }
        release(e);
    }

    // Closes a session, waiting for its running command to end (cancelled first); stop() and DELETE.
    void close_entry(const std::shared_ptr<Entry>& e) {
        retire(e);
        std::lock_guard lock(e->mu);
        close_locked(*e);
    }

    // One request's hold on a session: one at a time; on release, a session retired meanwhile is closed.
    // (retire sets `doomed` before trying the lock, and every holder checks it after unlocking, so the last
    // holder always sees it.)
    struct Held {
        Impl* impl;
        std::shared_ptr<Entry> e;
        std::unique_lock<std::mutex> lock;
        Held(Impl* i, std::shared_ptr<Entry> entry) : impl(i), e(std::move(entry)), lock(e->mu) {}
        ~Held() {
            lock.unlock();
            impl->release(e);
        }
        Held(const Held&) = delete;
        Held& operator=(const Held&) = delete;
    };

    // Under a Held: false after answering when the session is closed (404) or its lease was lost (409; the
    // session is then dropped from this replica).
    bool usable(const std::shared_ptr<Entry>& e, httplib::Response& res) {
        if (e->closed) {
            fail(res, 404, "no_session", "no session '" + e->id + "'");
            return false;
        }
        if (ensure_lease(*e)) return true;
        e->fate.store(Fate::drop);
        e->doomed.store(true);
        {
            std::lock_guard lock(mu);
            auto it = sessions.find(e->id);
            if (it != sessions.end() && it->second == e) sessions.erase(it);
        }
        Lease holder = store->read_lease(e->id).value_or(Lease{"unknown", "", 0});
        elsewhere(res, e->id, holder);
        return false;
    }

    bool expired(const Entry& e, steady::time_point t) const {
        return t >= e.expires || (e.idle.count() > 0 && t >= e.last_used + e.idle);
    }

    // The caller's session (touching its idle clock), reopened from the base dir when this replica does not
    // hold it; or nullptr after answering (404, or 409 when another replica holds it).
    std::shared_ptr<Entry> find(size_t owner, const std::string& id, httplib::Response& res) {
        std::shared_ptr<Entry> e, gone;
        bool known = false;
        {
            std::lock_guard lock(mu);
            auto it = sessions.find(id);
            known = it != sessions.end();
            if (known && it->second->owner == owner) {
                if (expired(*it->second, now())) {
                    gone = it->second;
                    sessions.erase(it);
                } else {
                    e = it->second;
                    e->last_used = now();
                }
            }
        }
        if (gone) retire(gone);
        if (!e && !known && store) return reopen(owner, id, res);
        if (!e) fail(res, 404, "no_session", "no session '" + id + "'");
        return e;
    }

    // A session of the base dir that this replica does not hold: taken when its lease is free or expired,
    // rebuilt from meta.json with its shell state restored.
    std::shared_ptr<Entry> reopen(size_t owner, const std::string& id, httplib::Response& res) {
        auto none = [&] {
            fail(res, 404, "no_session", "no session '" + id + "'");
            return nullptr;
        };
        if (!SessionStore::valid_id(id)) return none();
        std::lock_guard load_lock(load_mu);
        {
            std::lock_guard lock(mu);  // reopened by another request meanwhile
            auto it = sessions.find(id);
            if (it != sessions.end()) {
                if (it->second->owner != owner) return none();
                it->second->last_used = now();
                return it->second;
            }
        }
        std::optional<json> meta = store->read_meta(id);
        if (!meta || meta->value("token_sha256", std::string()) != token_sha[owner]) return none();
        const int64_t unow = unix_now();
        const int64_t expires_at = meta->value("expires_at", int64_t(0));
        const int64_t idle = meta->value("idle_timeout_seconds", int64_t(0));
        if (unow >= expires_at || (idle > 0 && unow >= last_use(id, *meta) + idle)) {
            remove_on_disk(id);
            return none();
        }
        {
            // The caps of create() hold for reopened sessions too: a replica never holds more sessions than it
            // was sized for, even when another replica's sessions come to it (it refuses them instead).
            std::lock_guard lock(mu);
            size_t mine = 0;
            for (const auto& [sid, other] : sessions) mine += other->owner == owner;
            if (mine >= opts.max_sessions_per_token) {
                fail(res, 503, "server_full",
                     "this replica holds " + std::to_string(mine) +
                         " sessions of this token (its limit): retry later or on another replica");
                return nullptr;
            }
            if (uint64_t per = files_per_session(); per && (sessions.size() + 1) * per > open_files_budget) {
                fail(res, 503, "server_full",
                     "this replica cannot hold another session's open files (" + std::to_string(sessions.size()) +
                         " sessions of " + std::to_string(per) + " files each, " + std::to_string(open_files_budget) +
                         " in all): retry on another replica");
                return nullptr;
            }
        }
        SessionStore::Take take = store->acquire(id);
        if (take.outcome == SessionStore::Outcome::held) {
            elsewhere(res, id, take.lease);
            return nullptr;
        }
        if (take.outcome == SessionStore::Outcome::gone) return none();
        if (take.outcome != SessionStore::Outcome::taken) {
            fail(res, 500, "internal", "cannot reopen session '" + id + "': " + take.error);
            return nullptr;
        }
        CreateSpec spec;
        auto e = std::make_shared<Entry>();
        e->id = id;
        e->owner = owner;
        e->persistent = true;
        e->lease = take.lease;
        std::string why;
        if (auto err = parse_create(meta->value("request", json::object()), spec)) why = err->second;
        else why = open_entry(*e, spec);
        if (!why.empty()) {
            store->release(id, take.lease);
            fail(res, 500, "internal", "cannot reopen session '" + id + "': " + why);
            return nullptr;
        }
        e->name = spec.name;
        e->info = meta->value("info", json::object());
        if (std::optional<std::string> state = store->read_state(id)) {
            try {
                e->session->restore_state(*state);
                e->state_hash = std::hash<std::string>{}(*state);
                e->state_known = true;
            } catch (const std::exception& ex) {
                // A snapshot of another version (an upgrade): the files are there, the shell starts afresh.
                std::cerr << "bashkit serve: the shell state of " << id << " is not restored: " << ex.what() << "\n";
                e->info["state_restored"] = false;
            }
        }
        steady::time_point t = now();
        e->expires = t + std::chrono::seconds(expires_at - unow);
        e->idle = std::chrono::seconds(idle);
        e->last_used = t;
        std::lock_guard lock(mu);
        sessions[id] = e;
        return e;
    }

    // A session's last use as far as the disk tells (unix seconds): its meta.json's last_used, or the last
    // write to its store (a state save, a lease renewal), whichever is later.
    int64_t last_use(const std::string& id, const json& meta) const {
        return std::max(meta.value("last_used", int64_t(0)), store->last_touch_ms(id) / 1000);
    }

    // Deletes an expired session no replica holds (its lease free or expired); false when one holds it.
    bool remove_on_disk(const std::string& id) {
        SessionStore::Take take = store->acquire(id);
        if (take.outcome != SessionStore::Outcome::taken) return false;
        vfs::SessionTreeOptions so;
        so.session_id = id;
        so.instance_id = "serve";
        so.base_dir = opts.base_dir;
        (void)vfs::delete_session_tree(so);
        store->remove(id);
        return true;
    }

    size_t reap() {
        std::vector<std::shared_ptr<Entry>> gone;
        {
            std::lock_guard lock(mu);
            steady::time_point t = now();
            for (auto it = sessions.begin(); it != sessions.end();) {
                if (expired(*it->second, t)) {
                    gone.push_back(it->second);
                    it = sessions.erase(it);
                } else {
                    ++it;
                }
            }
        }
        for (auto& e : gone) retire(e);
        return gone.size();
    }

    // The maintenance thread's other work (base_dir only): renews the leases held (a session whose lease was
    // taken over is dropped), lets go of the sessions idle for unload_idle_seconds, and every 30 s deletes
    // the expired sessions on disk that no replica holds.
    void maintain() {
        if (!store) return;
        std::vector<std::shared_ptr<Entry>> held, lost;
        std::vector<std::pair<std::shared_ptr<Entry>, std::unique_lock<std::mutex>>> idle;
        steady::time_point t = now();
        {
            std::lock_guard lock(mu);
            for (auto& [id, e] : sessions) held.push_back(e);
        }
        for (auto& e : held)
            if (!ensure_lease(*e)) lost.push_back(e);
        {
            std::lock_guard lock(mu);
            for (auto& e : lost) {
                auto it = sessions.find(e->id);
                if (it != sessions.end() && it->second == e) sessions.erase(it);
            }
            if (opts.unload_idle_seconds > 0) {
                auto after = std::chrono::duration_cast<steady::duration>(std::chrono::duration<double>(opts.unload_idle_seconds));
                for (auto it = sessions.begin(); it != sessions.end();) {
                    if (t >= it->second->last_used + after) {
                        std::unique_lock<std::mutex> busy(it->second->mu, std::try_to_lock);
                        if (busy.owns_lock()) {  // no request in progress
                            idle.emplace_back(it->second, std::move(busy));
                            it = sessions.erase(it);
                            continue;
                        }
                    }
                    ++it;
                }
            }
        }
        for (auto& e : lost) {
            e->fate.store(Fate::drop);
            retire(e);
        }
        for (auto& [e, lock] : idle) {
            e->fate.store(Fate::unload);
            close_locked(*e);
        }
        if (t < next_sweep) return;
        next_sweep = t + std::chrono::seconds(30);
        const int64_t unow = unix_now();
        for (const std::string& id : store->list()) {
            {
                std::lock_guard lock(mu);
                if (sessions.count(id)) continue;
            }
            std::optional<json> meta = store->read_meta(id);
            if (!meta) continue;
            const int64_t idle_s = meta->value("idle_timeout_seconds", int64_t(0));
            if (unow >= meta->value("expires_at", int64_t(0)) || (idle_s > 0 && unow >= last_use(id, *meta) + idle_s))
                (void)remove_on_disk(id);
        }
    }

    // ------------------------------------------------------------------------------------------ handlers

    // The create request's options, checked; {code, message} of a 400 when refused.
    std::optional<std::pair<std::string, std::string>> parse_create(const json& body, CreateSpec& spec) const {
        BashkitSandboxOptions& bo = spec.bo;
        spec.ttl = opts.max_ttl_seconds;
        try {
            if (body.contains("name")) {
                if (!body["name"].is_string()) throw std::invalid_argument("name must be a string");
                spec.name = body["name"].get<std::string>();
                if (spec.name.size() > 200) throw std::invalid_argument("name is longer than 200 bytes");
            }
            if (body.contains("ttl_seconds")) {
                if (!body["ttl_seconds"].is_number_integer() || body["ttl_seconds"].get<int64_t>() <= 0)
                    throw std::invalid_argument("ttl_seconds must be a positive integer");
                spec.ttl = std::min(spec.ttl, body["ttl_seconds"].get<int64_t>());
            }
            if (body.contains("idle_timeout_seconds")) {
                if (!body["idle_timeout_seconds"].is_number_integer() || body["idle_timeout_seconds"].get<int64_t>() < 0)
                    throw std::invalid_argument("idle_timeout_seconds must be a non-negative integer");
                spec.idle = std::min(body["idle_timeout_seconds"].get<int64_t>(), opts.max_ttl_seconds);
            }
            if (body.contains("network")) bo.network = network_from_json(body["network"]);
            if (body.contains("egress")) {
                EgressPolicy eg = egress_from_json(body["egress"]);
                // Scripts here have no sockets, only the HTTP client: block_all means no network at all;
                // allow_all and custom leave the host-level network policy in charge.
                if (eg.kind() == EgressPolicy::Kind::block_all) bo.network = Network::none();
                spec.egress_json = egress_to_json(eg);
            }
            if (body.contains("header_bindings")) {
                if (!body["header_bindings"].is_array()) throw std::invalid_argument("header_bindings must be an array");
                for (const auto& b : body["header_bindings"]) {
                    std::string type = b.is_object() ? b.value("type", std::string()) : std::string();
                    if (type == "GitHubBinding") {
                        GitHubBinding g;
                        if (b.contains("repos") && b["repos"] == "all") g.all_repos = true;
                        else g.repos = b.value("repos", std::vector<std::string>{});
                        g.ttl_seconds = b.value("ttl_seconds", 3600);
                        g.host = b.value("host", std::string("github.com"));
                        bo.header_bindings.add(g);
                    } else if (type == "MistralApiBinding") {
                        MistralApiBinding m;
                        m.ttl_seconds = b.value("ttl_seconds", 3600);
                        bo.header_bindings.add(m);
                    } else {
                        throw std::invalid_argument("header_bindings: unsupported binding type '" + type + "'");
                    }
                }
            }
        } catch (const std::exception& e) {
            return std::make_pair(std::string("bad_request"), std::string(e.what()));
        }
        if (bo.network.kind() != Network::Kind::None && !opts.allow_network)
            return std::make_pair(std::string("not_allowed"),
                                  "network=" + bo.network.describe() +
                                      " is not allowed by this server (it was started without --allow-network)");
        if (!bo.header_bindings.empty() && !opts.allow_header_bindings)
            return std::make_pair(std::string("not_allowed"),
                                  std::string("header bindings are not allowed by this server (it was started without "
                                              "--allow-header-bindings)"));
        for (const char* k : {"name", "ttl_seconds", "idle_timeout_seconds", "network", "egress", "header_bindings"})
            if (body.contains(k)) spec.request[k] = body[k];
        return std::nullopt;
    }

    // Makes e's sandbox and opens its session from spec; the error message, empty when it worked
    // (*refused: the sandbox refused an option, a 400 rather than a 500).
    std::string open_entry(Entry& e, CreateSpec& spec, bool* refused = nullptr) {
        BashkitSandboxOptions bo = std::move(spec.bo);
        bo.instance_id = "serve";
        bo.base_dir = opts.base_dir;
        bo.ephemeral = opts.base_dir.empty();
        bo.limits = opts.limits;
        bo.fs_limits = opts.fs_limits;
        try {
            e.sandbox = std::make_unique<BashkitSandbox>(std::move(bo));
            e.session.emplace(e.sandbox->open(e.id));
        } catch (const std::invalid_argument& ex) {
            if (refused) *refused = true;
            return ex.what();
        } catch (const std::exception& ex) {
            return ex.what();
        }
        return {};
    }

    void create(size_t owner, const httplib::Request& req, httplib::Response& res) {
        json body = json::parse(req.body, nullptr, false);
        if (!body.is_object()) return fail(res, 400, "bad_request", "the body must be a JSON object");
        CreateSpec spec;
        if (auto err = parse_create(body, spec)) return fail(res, 400, err->first, err->second);
        {
            std::lock_guard lock(mu);
            size_t mine = 0;
            for (const auto& [id, e] : sessions) mine += e->owner == owner;
            if (mine >= opts.max_sessions_per_token)
                return fail(res, 429, "too_many_sessions",
                            "this token already has " + std::to_string(mine) + " sessions (the limit)");
            // Sessions on disk each may hold fs_limits.max_open_files host descriptors: a new one that could
            // take the server past its descriptor budget is refused, not let to starve the others.
            if (uint64_t per = files_per_session(); per && (sessions.size() + 1) * per > open_files_budget)
                return fail(res, 503, "server_full",
                            "the server cannot hold another session's open files (" + std::to_string(sessions.size()) +
                                " sessions of " + std::to_string(per) + " files each, " +
                                std::to_string(open_files_budget) + " in all)");
        }

        auto e = std::make_shared<Entry>();
        e->id = "sbx-" + random_session_id();
        e->name = spec.name;
        e->owner = owner;
        const int64_t ttl = spec.ttl, idle = spec.idle;
        int64_t created = unix_now();
        e->info = {{"id", e->id},
                   {"name", spec.name},
                   {"status", "ready"},
                   {"created_at", created},
                   {"expires_at", created + ttl},
                   {"ttl_seconds", ttl},
                   {"idle_timeout_seconds", idle},
                   {"network", network_to_json(spec.bo.network)}};
        if (!spec.egress_json.is_null()) e->info["egress"] = spec.egress_json;
        if (store) {
            json meta = {{"format", "bashkit-serve-session"}, {"version", 1},
                         {"id", e->id},                       {"token_sha256", token_sha[owner]},
                         {"request", spec.request},           {"info", e->info},
                         {"expires_at", created + ttl},       {"idle_timeout_seconds", idle},
                         {"last_used", created}};
            SessionStore::Take take = store->create(e->id, meta);
            if (take.outcome != SessionStore::Outcome::taken) return fail(res, 500, "internal", take.error);
            e->persistent = true;
            e->lease = take.lease;
        }
        bool refused = false;
        if (std::string why = open_entry(*e, spec, &refused); !why.empty()) {
            if (store) store->remove(e->id);
            return refused ? fail(res, 400, "bad_request", why) : fail(res, 500, "internal", why);
        }
        steady::time_point t = now();
        e->expires = t + std::chrono::seconds(ttl);
        e->idle = std::chrono::seconds(idle);
        e->last_used = t;
        {
            std::lock_guard lock(mu);
            sessions[e->id] = e;
        }
        reply(res, 201, e->info);
    }

    void exec(const std::shared_ptr<Entry>& e, const httplib::Request& req, httplib::Response& res) {
        json body = json::parse(req.body, nullptr, false);
        if (!body.is_object() || !body.contains("command") || !body["command"].is_string())
            return fail(res, 400, "bad_request", "exec needs {\"command\": string, \"timeout_seconds\": number}");
        std::optional<double> timeout;
        if (body.contains("timeout_seconds") && !body["timeout_seconds"].is_null()) {
            if (!body["timeout_seconds"].is_number() || !(body["timeout_seconds"].get<double>() > 0))
                return fail(res, 400, "bad_request", "timeout_seconds must be a positive number");
            timeout = std::min(body["timeout_seconds"].get<double>(), opts.max_exec_timeout_seconds);
        }
        Held held(this, e);
        if (!usable(e, res)) return;
        SandboxExecutionResult r;
        try {
            r = e->session->execute(body["command"].get<std::string>(), timeout.value_or(opts.max_exec_timeout_seconds));
        } catch (const std::exception& ex) {
            return fail(res, 500, "internal", ex.what());
        }
        // The state on the base dir before the answer: a replica that dies after it loses nothing answered.
        save_state(*e);
        reply(res, 200, {{"exit_code", r.exit_code}, {"stdout", r.stdout_}, {"stderr", r.stderr_}, {"timed_out", r.timed_out},
                         {"cancelled", r.cancelled}, {"truncated", r.truncated}});
    }

    // The process tools (PROTOCOL.md, "Background processes"). Not under e->mu, which an exec holds for its
    // whole length: a process is read or killed while a command runs. cancel_mu keeps the session from being
    // closed meanwhile (closing kills the processes).
    void process(const std::shared_ptr<Entry>& e, const httplib::Request& req, httplib::Response& res) {
        json body = req.body.empty() ? json::object() : json::parse(req.body, nullptr, false);
        if (!body.is_object()) return fail(res, 400, "bad_request", "the body must be a JSON object");
        const std::string pid_text = req.matches.size() > 2 ? req.matches[2].str() : "";
        const std::string action = req.matches.size() > 3 ? req.matches[3].str() : "start";
        std::lock_guard lock(e->cancel_mu);
        ProcessTools* procs = e->session ? e->session->backend().processes() : nullptr;
        if (!procs) return fail(res, 404, "no_session", "no session '" + e->id + "'");
        if (action == "start") {
            if (!body.contains("command") || !body["command"].is_string())
                return fail(res, 400, "bad_request", "processes needs {\"command\": string}");
            ProcessTools::Started st = procs->start(body["command"].get<std::string>());
            if (!st.error.empty()) return fail(res, 422, "process_error", st.error);
            return reply(res, 201, {{"process_id", st.id}});
        }
        int id = 0;
        if (pid_text.empty() || pid_text.size() > 9 || (id = std::atoi(pid_text.c_str())) <= 0)
            return fail(res, 404, "no_process", "no process " + pid_text);
        if (action == "input") {
            if (!body.contains("input") || !body["input"].is_string() ||
                (body.contains("close_stdin") && !body["close_stdin"].is_boolean()))
                return fail(res, 400, "bad_request", "input needs {\"input\": string, \"close_stdin\": boolean}");
            std::string input = body["input"].get<std::string>();
            if (auto err = procs->write(id, input, body.value("close_stdin", false)))
                return err->starts_with("no process ") ? fail(res, 404, "no_process", *err) : fail(res, 422, "process_error", *err);
            return reply(res, 200, {{"bytes_written", input.size()}});
        }
        ProcessTools::Output o = action == "kill" ? procs->kill(id) : procs->read(id);
        if (!o.found) return fail(res, 404, "no_process", "no process " + pid_text);
        if (action == "kill") return reply(res, 200, {{"process_id", id}, {"exit_code", o.exit_code}});
        reply(res, 200, {{"stdout", o.out}, {"stderr", o.err}, {"running", o.running},
                         {"exit_code", o.running ? json(nullptr) : json(o.exit_code)}});
    }

    void read(const std::shared_ptr<Entry>& e, const httplib::Request& req, httplib::Response& res) {
        if (!req.has_param("path")) return fail(res, 400, "bad_request", "the path parameter is required");
        Held held(this, e);
        if (!usable(e, res)) return;
        auto t = e->session->backend().read_text(req.get_param_value("path"));
        if (!t.data) return fail(res, 422, "file_error", t.error);
        res.status = 200;
        res.set_content(std::move(*t.data), "application/octet-stream");
    }

    void write(const std::shared_ptr<Entry>& e, const httplib::Request& req, httplib::Response& res) {
        if (!req.has_param("path")) return fail(res, 400, "bad_request", "the path parameter is required");
        Held held(this, e);
        if (!usable(e, res)) return;
        if (auto err = e->session->backend().write_text(req.get_param_value("path"), req.body))
            return fail(res, 422, "file_error", *err);
        res.status = 204;
    }

    void list(const std::shared_ptr<Entry>& e, const httplib::Request& req, httplib::Response& res) {
        std::string path = req.has_param("path") ? req.get_param_value("path") : ".";
        bool recursive = req.has_param("recursive") && req.get_param_value("recursive") == "1";
        size_t max = 5000;
        if (req.has_param("max_entries")) max = std::min<size_t>(max, std::strtoull(req.get_param_value("max_entries").c_str(), nullptr, 10));
        Held held(this, e);
        if (!usable(e, res)) return;
        auto l = e->session->backend().list(path, recursive, max);
        if (!l.ok) return fail(res, 422, "file_error", l.error);
        json entries = json::array();
        for (const auto& f : l.entries) entries.push_back({{"path", f.path}, {"type", f.type}, {"size", f.size}});
        reply(res, 200, {{"entries", std::move(entries)}});
    }

    void remove(size_t owner, const std::string& id, httplib::Response& res) {
        std::shared_ptr<Entry> e;
        bool known = false;
        {
            std::lock_guard lock(mu);
            auto it = sessions.find(id);
            known = it != sessions.end();
            if (known && it->second->owner == owner) {
                e = it->second;
                sessions.erase(it);
            }
        }
        if (!e && !known && store) {  // held by no one here: take it (409 when another replica holds it)
            if (!(e = reopen(owner, id, res))) return;
            std::lock_guard lock(mu);
            auto it = sessions.find(id);
            if (it != sessions.end() && it->second == e) sessions.erase(it);
        }
        if (!e) return fail(res, 404, "no_session", "no session '" + id + "'");
        e->fate.store(Fate::remove);
        close_entry(e);
        res.status = 204;
    }

    // Wraps a handler of one session: authenticates, finds the caller's session, runs.
    using SessionHandler = void (Impl::*)(const std::shared_ptr<Entry>&, const httplib::Request&, httplib::Response&);
    httplib::Server::Handler on_session(SessionHandler h) {
        return [this, h](const httplib::Request& req, httplib::Response& res) {
            auto who = authenticate(req, res);
            if (!who) return;
            auto e = find(*who, req.matches[1].str(), res);
            if (!e) return;
            (this->*h)(e, req, res);
        };
    }

    // httplib refuses a body sent as application/x-www-form-urlencoded (curl -d's default) past 8 KiB with
    // 413, whatever max_request_bytes says; its body was read whole all the same. Such a request within
    // max_request_bytes is served like any other (the same size rule as JSON).
    // (Only a body whose Content-Length was read whole: one past max_request_bytes is not read at all.)
    bool form_body_within_limit(const httplib::Request& req) const {
        if (req.get_header_value("Content-Type").rfind("application/x-www-form-urlencoded", 0) != 0) return false;
        std::string length = req.get_header_value("Content-Length");
        char* end = nullptr;
        unsigned long long n = std::strtoull(length.c_str(), &end, 10);
        return !length.empty() && *end == '\0' && n == req.body.size() && n <= opts.max_request_bytes;
    }
    void redispatch(const httplib::Request& req, httplib::Response& res) {
        res.status = -1;
        static const std::string kSessions = "/v1/sessions";
        if (req.path == kSessions && req.method == "POST") {
            if (auto who = authenticate(req, res)) create(*who, req, res);
            return;
        }
        std::string_view path = req.path;
        size_t slash = kSessions.size() + 1;
        if (!path.starts_with(kSessions + "/") || path.size() <= slash) return fail(res, 404, "not_found", "no such endpoint");
        std::string_view rest = path.substr(slash);
        std::string_view id = rest.substr(0, rest.find('/'));
        std::string_view action = rest.substr(id.size());
        SessionHandler h = action == "/exec" && req.method == "POST"  ? &Impl::exec
                           : action == "/files" && req.method == "PUT" ? &Impl::write
                                                                      : nullptr;
        if (!h) {
            if (!authenticate(req, res)) return;
            return fail(res, 404, "not_found", "no such endpoint: " + req.method + " " + req.path);
        }
        auto who = authenticate(req, res);
        if (!who) return;
        auto e = find(*who, std::string(id), res);
        if (!e) return;
        (this->*h)(e, req, res);
    }

    size_t session_count() const {
        std::lock_guard lock(mu);
        return sessions.size();
    }

    void routes() {
        const std::string id = "/v1/sessions/([A-Za-z0-9_.-]+)";
        http.Post("/v1/sessions", [this](const httplib::Request& req, httplib::Response& res) {
            if (auto who = authenticate(req, res)) create(*who, req, res);
        });
        http.Get(id, [this](const httplib::Request& req, httplib::Response& res) {
            auto who = authenticate(req, res);
            if (!who) return;
            if (auto e = find(*who, req.matches[1].str(), res)) {
                json info = e->info;
                info["replica"] = store ? store->replica_id() : opts.replica_id;
                reply(res, 200, info);
            }
        });
        // Liveness and readiness for an orchestrator, without a token (they tell the replica id and how many
        // sessions it holds, nothing of them). /readyz also writes a probe file to the base dir.
        http.Get("/healthz", [this](const httplib::Request&, httplib::Response& res) {
            reply(res, 200, {{"status", "ok"}, {"replica", opts.replica_id}, {"sessions", session_count()}});
        });
        http.Get("/readyz", [this](const httplib::Request&, httplib::Response& res) {
            if (store && !store->writable())
                return reply(res, 503, {{"status", "unavailable"}, {"replica", opts.replica_id},
                                        {"error", "the base dir " + opts.base_dir + " is not writable"}});
            reply(res, 200, {{"status", "ready"}, {"replica", opts.replica_id}, {"sessions", session_count()}});
        });
        // Every answer names the replica that gave it (a load balancer or a client may route by it).
        http.set_post_routing_handler([this](const httplib::Request&, httplib::Response& res) {
            res.set_header("X-Bashkit-Replica", opts.replica_id);
        });
        http.Delete(id, [this](const httplib::Request& req, httplib::Response& res) {
            if (auto who = authenticate(req, res)) remove(*who, req.matches[1].str(), res);
        });
        http.Post(id + "/exec", on_session(&Impl::exec));
        http.Get(id + "/files", on_session(&Impl::read));
        http.Put(id + "/files", on_session(&Impl::write));
        http.Get(id + "/list", on_session(&Impl::list));
        http.Post(id + "/processes", on_session(&Impl::process));
        http.Post(id + "/processes/([0-9]+)/(read|input|kill)", on_session(&Impl::process));
        // Errors httplib makes itself (no route, 413 for a body over the cap) get a JSON body too; and an
        // unknown path is 401 before 404 for a caller without a token.
        http.set_error_handler([this](const httplib::Request& req, httplib::Response& res) {
            if (!res.body.empty()) return;
            if (res.status == 413 && form_body_within_limit(req)) return redispatch(req, res);
            if (res.status == 413)
                return fail(res, 413, "too_large", "the request is larger than " + std::to_string(opts.max_request_bytes) + " bytes");
            if (res.status == 404) {
                if (!authenticate(req, res)) return;
                return fail(res, 404, "not_found", "no such endpoint: " + req.method + " " + req.path);
            }
            fail(res, res.status, "error", "HTTP " + std::to_string(res.status));
        });
        http.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
            std::string what = "internal error";
            try {
                if (ep) std::rethrow_exception(ep);
            } catch (const std::exception& e) {
                what = e.what();
            } catch (...) {
            }
            fail(res, 500, "internal", what);
        });
        http.set_payload_max_length(opts.max_request_bytes);
    }
};

SandboxServer::SandboxServer(SandboxServerOptions options) : impl_(std::make_unique<Impl>()) {
    if (options.tokens.empty()) throw std::invalid_argument("SandboxServer: at least one token is required");
    for (const auto& t : options.tokens) {
        if (t.empty()) throw std::invalid_argument("SandboxServer: a token is empty");
        if (t.find_first_of("\r\n ") != std::string::npos)
            throw std::invalid_argument("SandboxServer: a token contains a space, CR or LF");
    }
    if (options.max_request_bytes == 0) throw std::invalid_argument("SandboxServer: max_request_bytes must be positive");
    if (options.max_ttl_seconds <= 0) throw std::invalid_argument("SandboxServer: max_ttl_seconds must be positive");
    if (options.max_sessions_per_token == 0)
        throw std::invalid_argument("SandboxServer: max_sessions_per_token must be positive");
    if (!(options.reap_interval_seconds >= 0))
        throw std::invalid_argument("SandboxServer: reap_interval_seconds must not be negative");
    if (!(options.max_exec_timeout_seconds > 0))
        throw std::invalid_argument("SandboxServer: max_exec_timeout_seconds must be positive");
    if (!(options.lease_seconds > 0)) throw std::invalid_argument("SandboxServer: lease_seconds must be positive");
    if (!(options.unload_idle_seconds >= 0))
        throw std::invalid_argument("SandboxServer: unload_idle_seconds must not be negative");
    if (options.replica_id.empty()) options.replica_id = default_replica_id();
    if (options.replica_id.size() > 200 || options.replica_id.find_first_of("\r\n\"") != std::string::npos)
        throw std::invalid_argument("SandboxServer: replica_id must be at most 200 bytes without CR, LF or '\"'");
    impl_->opts = std::move(options);
    for (const auto& t : impl_->opts.tokens) impl_->token_sha.push_back(vfs::sha256_hex(t));
    if (!impl_->opts.base_dir.empty())
        impl_->store = std::make_unique<SessionStore>(
            impl_->opts.base_dir, impl_->opts.replica_id,
            std::chrono::milliseconds(int64_t(std::ceil(impl_->opts.lease_seconds * 1000))), impl_->opts.sync_writes);
    impl_->open_files_budget = impl_->opts.max_open_files;
    if (impl_->open_files_budget == 0) {
        rlimit rl{};
        uint64_t soft = ::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY ? rl.rlim_cur : 1u << 20;
        impl_->open_files_budget = soft > 2 * kServerOwnFiles ? soft - kServerOwnFiles : soft / 2;
    }
    impl_->routes();
}

SandboxServer::~SandboxServer() { stop(); }

int SandboxServer::bind() {
    Impl& m = *impl_;
    if (m.port >= 0) return m.port;
    if (m.opts.port == 0) {
        m.port = m.http.bind_to_any_port(m.opts.host);
    } else {
        m.port = m.http.bind_to_port(m.opts.host, m.opts.port) ? m.opts.port : -1;
    }
    if (m.port < 0)
        throw std::runtime_error("cannot listen on " + m.opts.host + ":" + std::to_string(m.opts.port));
    return m.port;
}

bool SandboxServer::serve() {
    Impl& m = *impl_;
    bind();
    {
        std::lock_guard lock(m.reaper_mu);
        m.stopping = false;
    }
    if (!m.reaper.joinable() && m.opts.reap_interval_seconds > 0) {
        // Also the lease renewals: at least three ticks per lease.
        double tick = m.store ? std::min(m.opts.reap_interval_seconds, m.opts.lease_seconds / 3) : m.opts.reap_interval_seconds;
        m.reaper = std::thread([&m, tick] {
            try {  // a thread entry: nothing may leave it (a lock that fails ends the sweeps, not the process)
                std::unique_lock lock(m.reaper_mu);
                while (!m.stopping) {
                    m.reaper_cv.wait_for(lock, std::chrono::duration<double>(tick));
                    if (m.stopping) break;
                    lock.unlock();
                    try {  // a failed sweep is retried at the next interval
                        m.reap();
                        m.maintain();
                    } catch (...) {
                    }
                    lock.lock();
                }
            } catch (...) {
            }
        });
    }
    return m.http.listen_after_bind();
}

int SandboxServer::start() {
    int p = bind();
    impl_->listener = std::thread([this] {
        try {  // a thread entry: the server stops listening rather than take the process down
            (void)serve();
        } catch (...) {
        }
    });
    // Wait until it listens, so that a stop() right after start() cannot miss it (connections made before
    // would wait in the listen backlog anyway).
    for (int i = 0; i < 5000 && !impl_->http.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return p;
}

void SandboxServer::stop() {
    Impl& m = *impl_;
    // Sessions on the base dir are let go (state saved, lease released) for another replica or a restart;
    // sessions in memory end here. Their running commands are cancelled first: httplib's stop waits for the
    // requests in progress, which would otherwise hold it for as long as their commands run.
    auto let_go = [&m](bool wait) {
        std::map<std::string, std::shared_ptr<Entry>> all;
        {
            std::lock_guard lock(m.mu);
            all.swap(m.sessions);
        }
        for (auto& [id, e] : all) {
            if (e->persistent) e->fate.store(Fate::unload);
            if (wait) m.close_entry(e);
            else m.retire(e);
        }
    };
    let_go(false);
    m.http.stop();
    if (m.listener.joinable()) m.listener.join();
    {
        std::lock_guard lock(m.reaper_mu);
        m.stopping = true;
    }
    m.reaper_cv.notify_all();
    if (m.reaper.joinable()) m.reaper.join();
    let_go(true);  // those reopened meanwhile
}

int SandboxServer::port() const { return impl_->port; }

size_t SandboxServer::session_count() const { return impl_->session_count(); }

const std::string& SandboxServer::replica_id() const { return impl_->opts.replica_id; }

size_t SandboxServer::reap() { return impl_->reap(); }

}  // namespace bashkit::sandbox
