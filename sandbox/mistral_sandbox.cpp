#include "sandbox/mistral_sandbox.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <thread>

#include "net/curl_api.hpp"
#include "net/ip.hpp"

namespace bashkit::sandbox {
namespace {

using json = nlohmann::json;

constexpr const char* kEnvPrefix = "AGENTS_SDK_KOYEB_SANDBOX_";
constexpr const char* kSupportedRegion = "nl-north-1";
// How long a request answered 409 session_elsewhere (a `bashkit serve` replica that does not hold the
// session, PROTOCOL.md "Replicas") is retried, a quarter second apart, within the request's own timeout: a
// replica that died leaves its leases for --lease-seconds (15 s by default), after which the replica the
// request reaches reopens the session.
constexpr double kElsewhereWaitSeconds = 30;

std::string upper(std::string s) {
    for (char& c : s)
        if (c >= 'a' && c <= 'z') c = char(c - 'a' + 'A');
    return s;
}

std::string lower(std::string s) {
    for (char& c : s)
        if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
    return s;
}

// ------------------------------------------------------------------------------------------ env values

struct EnvReader {
    const EnvLookup& env;
    std::optional<std::string> raw(const std::string& option) const { return env(MistralSandbox::env_var(option)); }
    [[noreturn]] void bad(const std::string& option, const std::string& what, const std::string& got) const {
        throw std::invalid_argument("MistralSandbox: " + MistralSandbox::env_var(option) + ": expected " + what +
                                    ", got '" + got + "'");
    }
    void str(const std::optional<std::string>& given, const std::string& option, std::string& out) const {
        if (given) out = *given;
        else if (auto v = raw(option)) out = *v;
    }
    void boolean(const std::optional<bool>& given, const std::string& option, bool& out) const {
        if (given) {
            out = *given;
            return;
        }
        auto v = raw(option);
        if (!v) return;
        std::string l = lower(*v);
        if (l == "1" || l == "true" || l == "yes" || l == "on") out = true;
        else if (l == "0" || l == "false" || l == "no" || l == "off") out = false;
        else bad(option, "a boolean (true/false, 1/0, yes/no, on/off)", *v);
    }
    template <class Int>
    void integer(const std::optional<Int>& given, const std::string& option, Int& out) const {
        if (given) {
            out = *given;
            return;
        }
        auto v = raw(option);
        if (!v) return;
        errno = 0;
        char* end = nullptr;
        long long n = std::strtoll(v->c_str(), &end, 10);
        if (v->empty() || *end != '\0' || errno == ERANGE || n < std::numeric_limits<Int>::min() ||
            n > std::numeric_limits<Int>::max())
            bad(option, "an integer", *v);
        out = Int(n);
    }
    void number(const std::optional<double>& given, const std::string& option, double& out) const {
        if (given) {
            out = *given;
            return;
        }
        auto v = raw(option);
        if (!v) return;
        errno = 0;
        char* end = nullptr;
        double d = std::strtod(v->c_str(), &end);
        if (v->empty() || *end != '\0' || errno == ERANGE || !std::isfinite(d)) bad(option, "a number", *v);
        out = d;
    }
};

std::optional<std::string> process_env(const std::string& name) {
    const char* v = std::getenv(name.c_str());
    if (!v) return std::nullopt;
    return std::string(v);
}

bool name_prefix_ok(const std::string& p) {
    if (p.empty() || p.size() > 40) return false;
    for (char c : p) {
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
        if (!ok) return false;
    }
    return true;
}

// ------------------------------------------------------------------------------------------ HTTP

struct Reply {
    long status = 0;       // 0: no HTTP answer (error says why)
    std::string body;
    std::string error;     // transport error
};

size_t collect(char* data, size_t size, size_t n, void* user) {
    auto* out = static_cast<std::string*>(user);
    constexpr size_t kMaxReply = size_t(512) << 20;
    if (out->size() + size * n > kMaxReply) return 0;  // aborts the transfer
    out->append(data, size * n);
    return size * n;
}

std::string escape(const std::string& s) {
    std::string out;
    static const char* hex = "0123456789ABCDEF";
    for (unsigned char c : s) {
        bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
                     c == '.' || c == '~';
        if (plain) {
            out += char(c);
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

// One request of the protocol. body: nullopt for none.
Reply http_call(const std::string& method, const std::string& url, const std::string& token,
                const std::optional<std::string>& body, const std::string& content_type, double timeout_seconds) {
    Reply r;
    if (std::string why; !net::curl_api(&why)) {  // libcurl is loaded on first use (net/curl_api.hpp)
        r.error = "libcurl cannot be loaded: " + why;
        return r;
    }
    static std::once_flag init;
    std::call_once(init, [] { net::curl().curl_global_init(CURL_GLOBAL_DEFAULT); });
    CURL* c = net::curl().curl_easy_init();
    if (!c) {
        r.error = "cannot start a libcurl handle";
        return r;
    }
    struct curl_slist* headers = nullptr;
    std::string auth = "Authorization: Bearer " + token;
    headers = net::curl().curl_slist_append(headers, auth.c_str());
    headers = net::curl().curl_slist_append(headers, "Accept: application/json");
    headers = net::curl().curl_slist_append(headers, "Expect:");
    std::string ctype = "Content-Type: " + content_type;
    if (body) headers = net::curl().curl_slist_append(headers, ctype.c_str());
    char errbuf[CURL_ERROR_SIZE] = {0};
    long timeout_ms = long(std::min(timeout_seconds, 1e7) * 1000) + 1;
    net::curl().curl_easy_setopt(c, CURLOPT_URL, url.c_str());
    net::curl().curl_easy_setopt(c, CURLOPT_PROXY, "");  // never a proxy from the environment
    net::curl().curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
    net::curl().curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
    net::curl().curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    net::curl().curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, timeout_ms);
    net::curl().curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, std::min(timeout_ms, 10'000L));
    net::curl().curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
    net::curl().curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
    net::curl().curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
    net::curl().curl_easy_setopt(c, CURLOPT_WRITEDATA, &r.body);
    if (method == "GET") {
        net::curl().curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
    } else {
        net::curl().curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
    }
    if (body) {
        net::curl().curl_easy_setopt(c, CURLOPT_POSTFIELDS, body->data());
        net::curl().curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body->size()));
    }
    CURLcode rc = net::curl().curl_easy_perform(c);
    if (rc != CURLE_OK) {
        r.error = errbuf[0] ? errbuf : net::curl().curl_easy_strerror(rc);
        r.status = 0;
    } else {
        net::curl().curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
    }
    net::curl().curl_slist_free_all(headers);
    net::curl().curl_easy_cleanup(c);
    return r;
}

// The "error" of a protocol error body, or the body itself (shortened).
std::string error_message(const Reply& r) {
    if (r.status == 0) return r.error;
    json j = json::parse(r.body, nullptr, false);
    if (j.is_object() && j.contains("error") && j["error"].is_string()) return j["error"].get<std::string>();
    std::string b = r.body.substr(0, 200);
    return b.empty() ? "HTTP " + std::to_string(r.status) : b;
}

std::string error_code(const Reply& r) {
    json j = json::parse(r.body, nullptr, false);
    if (j.is_object() && j.contains("code") && j["code"].is_string()) return j["code"].get<std::string>();
    return {};
}

// ------------------------------------------------------------------------------------------ backend

class RemoteBackend final : public SessionBackend {
public:
    RemoteBackend(MistralSandboxSettings s, json create_body)
        : s_(std::move(s)), create_(std::move(create_body)) {}
    ~RemoteBackend() override { stop(); }

    void start() override {
        if (s_.endpoint.empty())
            throw SandboxError("MistralSandbox: no endpoint: pass endpoint or set " + MistralSandbox::env_var("endpoint"));
        if (s_.api_token.empty())
            throw SandboxError("MistralSandbox: no API token: pass api_token or set " + MistralSandbox::env_var("api_token"));
        base_ = s_.endpoint;
        while (!base_.empty() && base_.back() == '/') base_.pop_back();
        if (!s_.pre_provisioned_sandbox_id.empty()) {
            id_ = s_.pre_provisioned_sandbox_id;
            owned_ = false;
        } else {
            Reply r = call("POST", "/v1/sessions", create_.dump(), "application/json", 60);
            if (r.status == 401 || r.status == 403) {
                throw SandboxError("Mistral Cloud refused to create the sandbox (HTTP " + std::to_string(r.status) +
                                   "). The identity of the API key needs the cloud_user role (Mistral Cloud User) in "
                                   "the workspace: ask an administrator for it (Organization > Workspaces > your "
                                   "workspace > Members), then restart the session; for a deployed agent, deploy it "
                                   "again once the role is granted.");
            }
            if (r.status != 201 && r.status != 200)
                throw SandboxError("MistralSandbox: creating the sandbox failed (" + what(r) + ")");
            json j = json::parse(r.body, nullptr, false);
            if (!j.is_object() || !j.contains("id") || !j["id"].is_string() || j["id"].get<std::string>().empty())
                throw SandboxError("MistralSandbox: the service answered the create request without a sandbox id");
            id_ = j["id"].get<std::string>();
            owned_ = true;
        }
        try {
            wait_ready();
            if (!s_.setup_script.empty()) {
                SandboxExecutionResult sr = execute(s_.setup_script, s_.setup_script_timeout_seconds);
                if (sr.exit_code != 0) {
                    std::string err = sr.stderr_;
                    while (!err.empty() && err.back() == '\n') err.pop_back();
                    throw SandboxError("MistralSandbox: setup_script failed (status " + std::to_string(sr.exit_code) +
                                       "): " + err);
                }
            }
        } catch (...) {
            stop();
            throw;
        }
    }

    void stop() override {
        if (id_.empty()) return;
        if (owned_) (void)call("DELETE", "/v1/sessions/" + escape(id_), std::nullopt, {}, 30);
        id_.clear();
    }

    SandboxExecutionResult execute(const std::string& command, std::optional<double> timeout_seconds) override {
        if (id_.empty()) throw SandboxError("MistralSandbox: the session is closed");
        double t = timeout_seconds.value_or(s_.default_exec_timeout_seconds);
        json body = {{"command", command}, {"timeout_seconds", t}};
        Reply r = call("POST", session_path() + "/exec", body.dump(), "application/json", t + 30);
        if (r.status != 200) throw SandboxError("MistralSandbox: exec failed (" + what(r) + ")");
        json j = json::parse(r.body, nullptr, false);
        if (!j.is_object() || !j.contains("exit_code") || !j["exit_code"].is_number_integer())
            throw SandboxError("MistralSandbox: the service answered exec without an exit_code");
        SandboxExecutionResult out;
        out.exit_code = j["exit_code"].get<int>();
        out.stdout_ = j.value("stdout", std::string());
        out.stderr_ = j.value("stderr", std::string());
        out.timed_out = j.value("timed_out", false);
        out.cancelled = j.value("cancelled", false);  // this project's server sends these two; others may not
        out.truncated = j.value("truncated", false);
        return out;
    }

    Text read_text(const std::string& path) override {
        if (id_.empty()) return {std::nullopt, "MistralSandbox: the session is closed"};
        Reply r = call("GET", session_path() + "/files?path=" + escape(path), std::nullopt, {}, 120);
        if (r.status == 200) return {std::move(r.body), {}};
        return {std::nullopt, file_error(r)};
    }

    std::optional<std::string> write_text(const std::string& path, const std::string& content) override {
        if (id_.empty()) return "MistralSandbox: the session is closed";
        Reply r = call("PUT", session_path() + "/files?path=" + escape(path), content, "application/octet-stream", 120);
        if (r.status == 204 || r.status == 200) return std::nullopt;
        return file_error(r);
    }

    Listing list(const std::string& path, bool recursive, size_t max_entries) override {
        if (id_.empty()) return {{}, "MistralSandbox: the session is closed", false};
        std::string q = "/list?path=" + escape(path) + "&recursive=" + (recursive ? "1" : "0") +
                        "&max_entries=" + std::to_string(max_entries);
        Reply r = call("GET", session_path() + q, std::nullopt, {}, 120);
        if (r.status != 200) return {{}, file_error(r), false};
        json j = json::parse(r.body, nullptr, false);
        if (!j.is_object() || !j.contains("entries") || !j["entries"].is_array())
            return {{}, "MistralSandbox: the service answered list without entries", false};
        Listing l;
        for (const auto& e : j["entries"]) {
            if (!e.is_object() || l.entries.size() >= max_entries) continue;
            FileEntry f;
            f.path = e.value("path", std::string());
            f.type = e.value("type", std::string("other"));
            f.size = e.value("size", uint64_t(0));
            l.entries.push_back(std::move(f));
        }
        return l;
    }

    std::string location() const override { return id_; }
    ProcessTools* processes() override { return s_.supports_background_processes ? &procs_ : nullptr; }

private:
    // The process tools over the service's /processes endpoints (PROTOCOL.md, "Background processes").
    class RemoteProcesses final : public ProcessTools {
    public:
        explicit RemoteProcesses(RemoteBackend& b) : b_(b) {}
        Started start(const std::string& command) override {
            Reply r;
            if (auto e = b_.process_call("", json{{"command", command}}, 201, r)) return {0, *e};
            json j = json::parse(r.body, nullptr, false);
            if (!j.is_object() || !j.contains("process_id") || !j["process_id"].is_number_integer())
                return {0, "the service answered without a process_id"};
            return {j["process_id"].get<int>(), {}};
        }
        Output read(int id) override { return output(id, "read"); }
        std::optional<std::string> write(int id, const std::string& data, bool close_stdin) override {
            Reply r;
            return b_.process_call("/" + std::to_string(id) + "/input", json{{"input", data}, {"close_stdin", close_stdin}},
                                   200, r);
        }
        Output kill(int id) override { return output(id, "kill"); }

    private:
        Output output(int id, const std::string& action) {
            Output o;
            Reply r;
            if (auto e = b_.process_call("/" + std::to_string(id) + "/" + action, json::object(), 200, r)) {
                o.error = *e;
                return o;
            }
            json j = json::parse(r.body, nullptr, false);
            if (!j.is_object()) {
                o.error = "the service answered " + action + " without a JSON object";
                return o;
            }
            o.found = true;
            o.out = j.value("stdout", std::string());
            o.err = j.value("stderr", std::string());
            o.running = j.value("running", false);
            o.exit_code = j.contains("exit_code") && j["exit_code"].is_number_integer() ? j["exit_code"].get<int>() : 0;
            return o;
        }
        RemoteBackend& b_;
    };

    // POST /v1/sessions/ID/processes<rest>: nullopt when the service answered `expect`, else the message for
    // the model ("no process 3", the service's own process_error message, or what went wrong on the wire).
    std::optional<std::string> process_call(const std::string& rest, const json& body, long expect, Reply& r) const {
        if (id_.empty()) return "MistralSandbox: the session is closed";
        r = call("POST", session_path() + "/processes" + rest, body.dump(), "application/json", 60);
        if (r.status == expect) return std::nullopt;
        std::string code = error_code(r);
        if (code == "no_process" || code == "process_error") return error_message(r);
        if (r.status == 404 && code != "no_session") return "the service has no process tools (" + what(r) + ")";
        return "MistralSandbox: " + what(r);
    }

    std::string session_path() const { return "/v1/sessions/" + escape(id_); }

    // One request; answered 409 session_elsewhere, asked again until the holder's lease has expired (see
    // kElsewhereWaitSeconds), within timeout for all the attempts.
    Reply call(const std::string& method, const std::string& path, const std::optional<std::string>& body,
               const std::string& content_type, double timeout) const {
        using clock = std::chrono::steady_clock;
        const auto start = clock::now();
        const double budget = std::min(timeout, kElsewhereWaitSeconds);
        while (true) {
            double spent = std::chrono::duration<double>(clock::now() - start).count();
            Reply r = http_call(method, base_ + path, s_.api_token, body, content_type, std::max(timeout - spent, 0.001));
            if (r.status != 409 || error_code(r) != "session_elsewhere") return r;
            spent = std::chrono::duration<double>(clock::now() - start).count();
            if (spent + 0.25 >= budget) return r;
            std::this_thread::sleep_for(std::chrono::milliseconds(250));
        }
    }

    std::string what(const Reply& r) const {
        if (r.status == 0) return "cannot reach " + base_ + ": " + r.error;
        if (r.status == 404 && error_code(r) == "no_session")
            return "HTTP 404: sandbox '" + id_ + "' does not exist (expired or deleted)";
        return "HTTP " + std::to_string(r.status) + ": " + error_message(r);
    }

    std::string file_error(const Reply& r) const {
        if (r.status != 0 && error_code(r) == "file_error") return error_message(r);
        return "MistralSandbox: " + what(r);
    }

    // GET /v1/sessions/ID until its status is "ready": at most readiness_max_retries retries after the first
    // probe, readiness_interval_seconds apart, each probe bounded by readiness_probe_timeout_seconds, the whole
    // wait by wait_ready_timeout_seconds.
    void wait_ready() {
        using clock = std::chrono::steady_clock;
        auto deadline = clock::now() + std::chrono::duration<double>(s_.wait_ready_timeout_seconds);
        std::string last;
        for (int attempt = 0; attempt <= s_.readiness_max_retries; ++attempt) {
            if (attempt > 0) {
                auto wake = clock::now() + std::chrono::duration<double>(s_.readiness_interval_seconds);
                if (wake > deadline) break;
                std::this_thread::sleep_until(wake);
            }
            double left = std::chrono::duration<double>(deadline - clock::now()).count();
            if (left <= 0) break;
            Reply r = call("GET", session_path(), std::nullopt, {}, std::min(s_.readiness_probe_timeout_seconds, left));
            if (r.status == 200) {
                json j = json::parse(r.body, nullptr, false);
                std::string status = j.is_object() ? j.value("status", std::string()) : std::string();
                if (status == "ready") return;
                last = "status '" + status + "'";
                continue;
            }
            last = what(r);
            if (r.status == 401 || r.status == 403 || r.status == 404) break;  // no point in asking again
        }
        throw SandboxError("MistralSandbox: sandbox '" + id_ + "' is not ready (" + last + ")");
    }

    MistralSandboxSettings s_;
    json create_;
    std::string base_;
    std::string id_;
    bool owned_ = true;
    RemoteProcesses procs_{*this};
};

}  // namespace

// ------------------------------------------------------------------------------------------ JSON forms

json network_to_json(const Network& n) {
    json j = {{"kind", std::string(network_kind_name(n.kind()))}};
    if (n.kind() == Network::Kind::Allow) {
        json hosts = json::array();
        for (const auto& hp : n.hosts()) {
            std::string h = hp.host.find(':') != std::string::npos ? "[" + hp.host + "]" : hp.host;
            hosts.push_back(hp.port == 443 ? h : h + ":" + std::to_string(hp.port));
        }
        j["allow"] = std::move(hosts);
    }
    return j;
}

// j[key] as strings (none when the key is absent); anything else is invalid_argument(message).
static std::vector<std::string> string_array(const json& j, const char* key, const char* message) {
    std::vector<std::string> out;
    if (!j.contains(key)) return out;
    const json& a = j[key];
    if (!a.is_array()) throw std::invalid_argument(message);
    for (const auto& v : a) {
        if (!v.is_string()) throw std::invalid_argument(message);
        out.push_back(v.get<std::string>());
    }
    return out;
}

// j["kind"] of a {"kind": ...} object; anything else is invalid_argument(message).
static std::string kind_of(const json& j, const char* message) {
    if (!j.is_object() || !j.contains("kind") || !j["kind"].is_string()) throw std::invalid_argument(message);
    return j["kind"].get<std::string>();
}

Network network_from_json(const json& j) {
    std::string k = kind_of(j, "network: expected {\"kind\": \"none\"|\"all\"|\"allow\", \"allow\": [...]}");
    if (k == "none") return Network::none();
    if (k == "all") return Network::all();
    if (k != "allow") throw std::invalid_argument("network: unknown kind '" + k + "'");
    return Network::allow(string_array(j, "allow", "network: allow must be an array of host strings"));
}

json egress_to_json(const EgressPolicy& e) {
    switch (e.kind()) {
        case EgressPolicy::Kind::block_all: return {{"kind", "block_all"}};
        case EgressPolicy::Kind::allow_all: return {{"kind", "allow_all"}};
        case EgressPolicy::Kind::custom: break;
    }
    return {{"kind", "custom"}, {"allow_cidrs", e.allow_cidrs()}};
}

EgressPolicy egress_from_json(const json& j) {
    std::string k = kind_of(j, "egress: expected {\"kind\": \"block_all\"|\"allow_all\"|\"custom\", \"allow_cidrs\": [...]}");
    if (k == "block_all") return EgressPolicy::block_all();
    if (k == "allow_all") return EgressPolicy::allow_all();
    if (k != "custom") throw std::invalid_argument("egress: unknown kind '" + k + "'");
    return EgressPolicy::custom(string_array(j, "allow_cidrs", "egress: allow_cidrs must be an array of CIDR strings"));
}

json binding_to_json(const AnyHeaderBinding& b) {
    if (auto* h = std::get_if<HeaderBinding>(&b))
        return {{"type", "HeaderBinding"}, {"host", h->host}, {"header", h->header}, {"path_prefix", h->path_prefix}};
    if (auto* g = std::get_if<GitHubBinding>(&b))
        return {{"type", "GitHubBinding"}, {"repos", g->all_repos ? json("all") : json(g->repos)},
                {"ttl_seconds", g->ttl_seconds}, {"host", g->host}};
    const auto& m = std::get<MistralApiBinding>(b);
    return {{"type", "MistralApiBinding"}, {"ttl_seconds", m.ttl_seconds}};
}

// ------------------------------------------------------------------------------------------ MistralSandbox

SandboxAttributes MistralSandbox::static_attributes() {
    SandboxAttributes a;
    a.type = "MistralSandbox";
    a.supported_network = {Network::Kind::None, Network::Kind::All};
    a.supported_header_bindings = {"GitHubBinding", "MistralApiBinding"};
    a.supported_access = {SandboxAccess::none, SandboxAccess::files, SandboxAccess::full};
    a.delete_on_cleanup = true;
    a.supports_background_processes = true;  // without an image (see MistralSandboxOptions)
    return a;
}

std::string MistralSandbox::env_var(const std::string& option) { return kEnvPrefix + upper(option); }

const std::vector<std::string>& MistralSandbox::env_options() {
    static const std::vector<std::string> names = {
        "image", "endpoint", "api_token", "instance_type", "region", "name_prefix", "ttl_seconds", "idle_timeout_seconds",
        "default_exec_timeout_seconds", "privileged", "docker_daemon_enabled", "docker_daemon_network_mode",
        "enable_light_sleep", "setup_script", "setup_script_timeout_seconds", "readiness_max_retries",
        "readiness_interval_seconds", "readiness_probe_timeout_seconds", "wait_ready_timeout_seconds", "enable_mesh",
        "pre_provisioned_sandbox_id"};
    return names;
}

MistralSandbox::MistralSandbox(MistralSandboxOptions options, EnvLookup env)
    : Sandbox(static_attributes(), options.network.value_or(Network::none()), options.header_bindings, options.hooks,
              options.access),
      opts_(std::move(options)) {
    if (!env) env = process_env;
    EnvReader r{env};
    MistralSandboxSettings& s = settings_;
    r.str(opts_.image, "image", s.image);
    r.str(opts_.endpoint, "endpoint", s.endpoint);
    r.str(opts_.api_token, "api_token", s.api_token);
    r.str(opts_.instance_type, "instance_type", s.instance_type);
    r.str(opts_.region, "region", s.region);
    r.str(opts_.name_prefix, "name_prefix", s.name_prefix);
    r.integer(opts_.ttl_seconds, "ttl_seconds", s.ttl_seconds);
    r.integer(opts_.idle_timeout_seconds, "idle_timeout_seconds", s.idle_timeout_seconds);
    r.number(opts_.default_exec_timeout_seconds, "default_exec_timeout_seconds", s.default_exec_timeout_seconds);
    r.boolean(opts_.privileged, "privileged", s.privileged);
    r.boolean(opts_.docker_daemon_enabled, "docker_daemon_enabled", s.docker_daemon_enabled);
    r.str(opts_.docker_daemon_network_mode, "docker_daemon_network_mode", s.docker_daemon_network_mode);
    r.boolean(opts_.enable_light_sleep, "enable_light_sleep", s.enable_light_sleep);
    r.str(opts_.setup_script, "setup_script", s.setup_script);
    r.number(opts_.setup_script_timeout_seconds, "setup_script_timeout_seconds", s.setup_script_timeout_seconds);
    r.integer(opts_.readiness_max_retries, "readiness_max_retries", s.readiness_max_retries);
    r.number(opts_.readiness_interval_seconds, "readiness_interval_seconds", s.readiness_interval_seconds);
    r.number(opts_.readiness_probe_timeout_seconds, "readiness_probe_timeout_seconds", s.readiness_probe_timeout_seconds);
    r.number(opts_.wait_ready_timeout_seconds, "wait_ready_timeout_seconds", s.wait_ready_timeout_seconds);
    r.boolean(opts_.enable_mesh, "enable_mesh", s.enable_mesh);
    r.str(opts_.pre_provisioned_sandbox_id, "pre_provisioned_sandbox_id", s.pre_provisioned_sandbox_id);
    if (s.docker_daemon_enabled) s.privileged = true;  // a docker daemon needs a privileged container

    auto fail = [](const std::string& m) { throw std::invalid_argument("MistralSandbox: " + m); };
    s.supports_background_processes = opts_.supports_background_processes.value_or(!opts_.image.has_value());
    attrs_.supports_background_processes = s.supports_background_processes;
    if (!s.endpoint.empty() && !s.endpoint.starts_with("http://") && !s.endpoint.starts_with("https://"))
        fail("endpoint must be an http:// or https:// URL, got '" + s.endpoint + "'");
    if (s.api_token.find_first_of("\r\n") != std::string::npos || s.api_token.find('\0') != std::string::npos)
        fail("api_token must not contain CR, LF or NUL");
    if (s.instance_type.empty()) fail("instance_type must not be empty");
    if (s.region.empty()) fail("region must not be empty");
    if (!name_prefix_ok(s.name_prefix))
        fail("name_prefix must be 1 to 40 letters, digits or '-', got '" + s.name_prefix + "'");
    if (s.ttl_seconds <= 0) fail("ttl_seconds must be positive");
    if (s.idle_timeout_seconds < 0) fail("idle_timeout_seconds must not be negative (0 turns it off)");
    if (!(s.default_exec_timeout_seconds > 0)) fail("default_exec_timeout_seconds must be positive");
    static const std::vector<std::string> modes = {"auto", "host", "bridge", "none"};
    if (std::find(modes.begin(), modes.end(), s.docker_daemon_network_mode) == modes.end())
        fail("docker_daemon_network_mode must be one of auto, host, bridge, none; got '" + s.docker_daemon_network_mode + "'");
    if (!(s.setup_script_timeout_seconds > 0)) fail("setup_script_timeout_seconds must be positive");
    if (s.readiness_max_retries < 0) fail("readiness_max_retries must not be negative");
    if (!(s.readiness_interval_seconds >= 0)) fail("readiness_interval_seconds must not be negative");
    if (!(s.readiness_probe_timeout_seconds > 0)) fail("readiness_probe_timeout_seconds must be positive");
    if (!(s.wait_ready_timeout_seconds > 0)) fail("wait_ready_timeout_seconds must be positive");

    // Header bindings: the service mints the secrets, so none may be given here.
    const auto& bs = bindings_.bindings();
    for (size_t i = 0; i < bs.size(); ++i) {
        std::string where = "header_bindings: " + std::string(binding_kind(bs[i])) + " #" + std::to_string(i + 1);
        if (auto* g = std::get_if<GitHubBinding>(&bs[i]); g && !g->token.empty())
            fail(where + ": token must be empty (the service mints the token)");
        if (auto* m = std::get_if<MistralApiBinding>(&bs[i]); m && !m->api_key.empty())
            fail(where + ": api_key must be empty (the service mints the key)");
    }

    // Network and egress: outside nl-north-1 only Network.all() / allow_all.
    if (s.region != kSupportedRegion && network_.kind() != Network::Kind::All) {
        throw std::invalid_argument("This network policy is not supported in region '" + s.region +
                                    "'; it is supported only in nl-north-1. Pass network=Network.all() or a supported region.");
    }
    if (opts_.egress) {
        if (opts_.egress->kind() != EgressPolicy::Kind::custom)
            fail("egress accepts only EgressPolicy.custom(allow_cidrs=...); " + opts_.egress->describe() +
                 "() is what egress_policy is for Network." + (opts_.egress->kind() == EgressPolicy::Kind::block_all ? "none" : "all") +
                 "(): pass network= instead");
        if (network_.kind() != Network::Kind::None)
            fail("egress=EgressPolicy.custom(...) adds addresses to network=Network.none(); with network=Network.all() "
                 "every address is allowed already");
        egress_ = *opts_.egress;
    } else {
        egress_ = EgressPolicy::from_network(network_);
    }
    if (!s.pre_provisioned_sandbox_id.empty()) attrs_.delete_on_cleanup = false;
}

json MistralSandbox::authored_settings() const {
    json j = json::object();
    const MistralSandboxOptions& o = opts_;
    auto put = [&](const char* name, const auto& v) {
        if (v) j[name] = *v;
    };
    put("image", o.image);
    put("supports_background_processes", o.supports_background_processes);
    put("endpoint", o.endpoint);
    if (o.api_token) j["api_token"] = "[redacted]";
    put("instance_type", o.instance_type);
    put("region", o.region);
    put("name_prefix", o.name_prefix);
    put("ttl_seconds", o.ttl_seconds);
    put("idle_timeout_seconds", o.idle_timeout_seconds);
    put("default_exec_timeout_seconds", o.default_exec_timeout_seconds);
    put("privileged", o.privileged);
    put("docker_daemon_enabled", o.docker_daemon_enabled);
    put("docker_daemon_network_mode", o.docker_daemon_network_mode);
    put("enable_light_sleep", o.enable_light_sleep);
    put("setup_script", o.setup_script);
    put("setup_script_timeout_seconds", o.setup_script_timeout_seconds);
    put("readiness_max_retries", o.readiness_max_retries);
    put("readiness_interval_seconds", o.readiness_interval_seconds);
    put("readiness_probe_timeout_seconds", o.readiness_probe_timeout_seconds);
    put("wait_ready_timeout_seconds", o.wait_ready_timeout_seconds);
    put("enable_mesh", o.enable_mesh);
    put("pre_provisioned_sandbox_id", o.pre_provisioned_sandbox_id);
    if (o.network) j["network"] = network_to_json(*o.network);
    if (o.egress) j["egress"] = egress_to_json(*o.egress);
    if (!o.header_bindings.empty()) {
        json b = json::array();
        for (const auto& x : o.header_bindings.bindings()) b.push_back(binding_to_json(x));
        j["header_bindings"] = std::move(b);
    }
    if (!o.hooks.empty()) {
        json h = json::array();
        for (const auto& x : o.hooks) h.push_back(x->to_unified_state());
        j["hooks"] = std::move(h);
    }
    if (o.workspace_header_bindings) j["workspace_header_bindings"] = true;
    if (o.access) j["access"] = std::string(to_string(*o.access));
    return j;
}

json MistralSandbox::create_request(const std::string& session_id) const {
    const MistralSandboxSettings& s = settings_;
    json bindings = json::array();
    for (const auto& b : bindings_.bindings()) bindings.push_back(binding_to_json(b));
    json j = {
        {"name", s.name_prefix + "-" + session_id},
        {"instance_type", s.instance_type},
        {"region", s.region},
        {"ttl_seconds", s.ttl_seconds},
        {"idle_timeout_seconds", s.idle_timeout_seconds},
        {"network", network_to_json(network_)},
        {"egress", egress_to_json(egress_)},
        {"header_bindings", std::move(bindings)},
        {"privileged", s.privileged},
        {"docker_daemon_enabled", s.docker_daemon_enabled},
        {"docker_daemon_network_mode", s.docker_daemon_network_mode},
        {"enable_light_sleep", s.enable_light_sleep},
        {"enable_mesh", s.enable_mesh},
    };
    if (!s.image.empty()) j["image"] = s.image;
    if (opts_.workspace_header_bindings) j["workspace_header_bindings"] = true;
    return j;
}

std::unique_ptr<SessionBackend> MistralSandbox::make_backend(const std::string& session_id) {
    return std::make_unique<RemoteBackend>(settings_, create_request(session_id));
}

}  // namespace bashkit::sandbox
