#include "sandbox/types.hpp"

#include <cstdlib>
#include <stdexcept>

#include "net/ip.hpp"

namespace bashkit::sandbox {

std::string_view to_string(SandboxAccess a) {
    switch (a) {
        case SandboxAccess::none: return "none";
        case SandboxAccess::files: return "files";
        case SandboxAccess::full: return "full";
    }
    return "none";
}

std::optional<SandboxAccess> parse_access(std::string_view s) {
    if (s == "none") return SandboxAccess::none;
    if (s == "files") return SandboxAccess::files;
    if (s == "full") return SandboxAccess::full;
    return std::nullopt;
}

std::string_view network_kind_name(Network::Kind k) {
    switch (k) {
        case Network::Kind::None: return "none";
        case Network::Kind::All: return "all";
        case Network::Kind::Allow: return "allow";
    }
    return "none";
}

// ------------------------------------------------------------------------------------------ EgressPolicy

EgressPolicy EgressPolicy::custom(std::vector<std::string> allow_cidrs) {
    for (const auto& c : allow_cidrs) {
        auto bad = [&](const std::string& why) {
            return std::invalid_argument("EgressPolicy.custom: invalid CIDR '" + c + "'" + (why.empty() ? "" : " (" + why + ")"));
        };
        auto n = net::IpNetwork::parse(c);
        if (!n) throw bad("");
        // Host bits must be zero, as Python's ipaddress.ip_network(strict=True) requires.
        unsigned bits = n->base.v6 ? 128 : 32;
        for (unsigned i = n->prefix_len; i < bits; ++i) {
            if (n->base.bytes[i / 8] & (0x80 >> (i % 8))) throw bad("host bits set");
        }
    }
    return EgressPolicy(Kind::custom, std::move(allow_cidrs));
}

EgressPolicy EgressPolicy::from_network(const Network& network) {
    switch (network.kind()) {
        case Network::Kind::None: return block_all();
        case Network::Kind::All: return allow_all();
        case Network::Kind::Allow: break;
    }
    throw std::invalid_argument("EgressPolicy: " + network.describe() +
                                " names hosts, which an egress policy (IP prefixes) cannot express");
}

std::string EgressPolicy::describe() const {
    switch (kind_) {
        case Kind::block_all: return "block_all";
        case Kind::allow_all: return "allow_all";
        case Kind::custom: break;
    }
    std::string s = "custom(";
    for (size_t i = 0; i < cidrs_.size(); ++i) s += (i ? ", " : "") + cidrs_[i];
    return s + ")";
}

// ------------------------------------------------------------------------------------------ bindings

std::string_view binding_kind(const AnyHeaderBinding& b) {
    switch (b.index()) {
        case 0: return "HeaderBinding";
        case 1: return "GitHubBinding";
        default: return "MistralApiBinding";
    }
}

namespace {

bool header_name_ok(std::string_view h) {
    if (h.empty()) return false;
    for (char c : h) {
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
        if (!ok) return false;
    }
    return true;
}

bool value_ok(std::string_view v) { return v.find_first_of("\r\n") == std::string_view::npos && v.find('\0') == std::string_view::npos; }

bool repo_ok(std::string_view r) {
    size_t slash = r.find('/');
    if (slash == std::string_view::npos || slash == 0 || slash + 1 == r.size() || r.find('/', slash + 1) != std::string_view::npos)
        return false;
    for (char c : r) {
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
                  c == '.' || c == '/';
        if (!ok) return false;
    }
    return r.substr(slash + 1) != "." && r.substr(slash + 1) != "..";
}

std::string env_or(const std::string& given, const char* var) {
    if (!given.empty()) return given;
    const char* v = std::getenv(var);
    return v ? std::string(v) : std::string();
}

std::string base64(std::string_view in) {
    static const char* t = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    size_t i = 0;
    for (; i + 2 < in.size(); i += 3) {
        uint32_t v = uint32_t(uint8_t(in[i])) << 16 | uint32_t(uint8_t(in[i + 1])) << 8 | uint8_t(in[i + 2]);
        out += t[v >> 18];
        out += t[(v >> 12) & 63];
        out += t[(v >> 6) & 63];
        out += t[v & 63];
    }
    if (i < in.size()) {
        uint32_t v = uint32_t(uint8_t(in[i])) << 16 | (i + 1 < in.size() ? uint32_t(uint8_t(in[i + 1])) << 8 : 0);
        out += t[v >> 18];
        out += t[(v >> 12) & 63];
        out += i + 1 < in.size() ? t[(v >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

struct MapSecrets final : net::SecretStore {
    std::map<std::string, std::string> values;
    std::optional<std::string> get(const std::string& name) const override {
        auto it = values.find(name);
        if (it == values.end()) return std::nullopt;
        return it->second;
    }
};

}  // namespace

void WorkspaceHeaderBindings::validate() const {
    for (size_t i = 0; i < bindings_.size(); ++i) {
        const auto& any = bindings_[i];
        std::string where = std::string(binding_kind(any)) + " #" + std::to_string(i + 1);
        auto fail = [&](const std::string& why) { throw std::invalid_argument("header_bindings: " + where + ": " + why); };
        if (auto* h = std::get_if<HeaderBinding>(&any)) {
            auto hp = net::parse_host_port(h->host);
            if (!hp.value) fail("host: " + hp.error);
            if (!header_name_ok(h->header)) fail("header: not a valid header name '" + h->header + "'");
            if (!h->secret_name.empty() && !h->value.empty()) fail("give either value or secret_name, not both");
            if (h->value.empty() && h->secret_name.empty()) fail("value: must not be empty");
            if (!value_ok(h->value) || !value_ok(h->prefix) || !value_ok(h->suffix)) fail("value: must not contain CR, LF or NUL");
            if (h->path_prefix.empty() || h->path_prefix[0] != '/') fail("path_prefix: must start with '/'");
        } else if (auto* g = std::get_if<GitHubBinding>(&any)) {
            if (g->all_repos && !g->repos.empty()) fail("repos: either 'all' or a list of 'owner/name', not both");
            if (!g->all_repos && g->repos.empty()) fail("repos: at least one 'owner/name' (or 'all') is required");
            for (const auto& r : g->repos)
                if (!repo_ok(r)) fail("repos: expected 'owner/name', got '" + r + "'");
            if (g->ttl_seconds <= 0) fail("ttl_seconds: must be positive");
            auto hp = net::parse_host_port(g->host);
            if (!hp.value) fail("host: " + hp.error);
            if (!value_ok(g->token)) fail("token: must not contain CR, LF or NUL");
        } else if (auto* m = std::get_if<MistralApiBinding>(&any)) {
            if (m->ttl_seconds <= 0) fail("ttl_seconds: must be positive");
            if (!value_ok(m->api_key)) fail("api_key: must not contain CR, LF or NUL");
        }
    }
}

std::vector<std::string> WorkspaceHeaderBindings::secret_names() const {
    std::vector<std::string> out;
    for (const auto& any : bindings_)
        if (auto* h = std::get_if<HeaderBinding>(&any); h && !h->secret_name.empty()) out.push_back(h->secret_name);
    return out;
}

WorkspaceHeaderBindings::Wire WorkspaceHeaderBindings::wire(const SecretLookup& lookup) const {
    validate();
    Wire w;
    auto secrets = std::make_shared<MapSecrets>();
    int n = 0;
    auto add = [&](std::string host, std::string header, std::string secret, std::string path_prefix,
                   std::string prefix = {}, std::string suffix = {}) {
        net::HeaderBinding b;
        b.host = std::move(host);
        b.header = std::move(header);
        b.secret_name = "binding-" + std::to_string(++n);
        b.path_prefix = std::move(path_prefix);
        b.prefix = std::move(prefix);
        b.suffix = std::move(suffix);
        secrets->values[b.secret_name] = std::move(secret);
        w.bindings.push_back(std::move(b));
    };
    size_t index = 0;
    for (const auto& any : bindings_) {
        ++index;
        if (auto* h = std::get_if<HeaderBinding>(&any)) {
            std::string value = h->value;
            if (!h->secret_name.empty()) {
                std::optional<std::string> v = lookup ? lookup(h->secret_name) : std::nullopt;
                std::string where = "header_bindings: HeaderBinding #" + std::to_string(index) + ": ";
                if (!v || v->empty()) throw std::invalid_argument(where + "no secret named '" + h->secret_name + "'");
                if (!value_ok(*v)) throw std::invalid_argument(where + "the secret '" + h->secret_name + "' contains CR, LF or NUL");
                value = std::move(*v);
            }
            add(h->host, h->header, value, h->path_prefix, h->prefix, h->suffix);
        } else if (auto* g = std::get_if<GitHubBinding>(&any)) {
            std::string token = env_or(g->token, "GITHUB_TOKEN");
            if (token.empty()) throw std::invalid_argument("header_bindings: GitHubBinding: no token (set token or GITHUB_TOKEN)");
            if (g->all_repos) {
                add(g->host, "Authorization", base64("x-access-token:" + token), "/", "Basic ");
                add("api." + g->host, "Authorization", token, "/", "Bearer ");
            }
            for (const auto& r : g->repos) {
                add(g->host, "Authorization", base64("x-access-token:" + token), "/" + r, "Basic ");
                add(g->host, "Authorization", base64("x-access-token:" + token), "/" + r + ".git", "Basic ");
                add("api." + g->host, "Authorization", token, "/repos/" + r, "Bearer ");
            }
        } else if (auto* m = std::get_if<MistralApiBinding>(&any)) {
            std::string key = env_or(m->api_key, "MISTRAL_API_KEY");
            if (key.empty()) throw std::invalid_argument("header_bindings: MistralApiBinding: no API key (set api_key or MISTRAL_API_KEY)");
            add("api.mistral.ai", "Authorization", key, "/", "Bearer ");
        }
    }
    w.secrets = std::move(secrets);
    return w;
}

}  // namespace bashkit::sandbox
