// The value types of the sandbox API: access levels, execution results, egress policies and header bindings.
//
// Names follow the Python agents SDK the API is modelled on. Where a Python name is not a usable C++ name, a
// trailing underscore is added (SandboxExecutionResult::stdout_ / stderr_: `stdout` and `stderr` are macros of
// <cstdio>). The network policy itself is net::Network (Network::none(), ::all(), ::allow({...})), re-exported
// here as bashkit::sandbox::Network; header bindings are turned into net::HeaderBinding entries plus a
// SecretStore, so the secret travels only inside the HTTP client (net/http.hpp), never into the script.
//
// Every constructor or factory that validates throws std::invalid_argument with a message naming the option.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "net/http.hpp"
#include "net/policy.hpp"

namespace bashkit::sandbox {

using Network = net::Network;

// What an agent may do in a sandbox, from narrowest to widest: nothing; the file tools; the file tools and
// the bash tool.
enum class SandboxAccess { none, files, full };
std::string_view to_string(SandboxAccess a);
// "none" | "files" | "full"; nullopt otherwise.
std::optional<SandboxAccess> parse_access(std::string_view s);

struct SandboxExecutionResult {
    int exit_code = 0;
    std::string stdout_;  // `stdout` is a macro in C++
    std::string stderr_;
    bool timed_out = false;  // the command was stopped by its timeout (exit_code is then 124)
    // Additions of this project (the reference has the three fields above):
    bool cancelled = false;  // the command was stopped by cancel() (exit_code is then 130)
    bool truncated = false;  // stdout or stderr was cut at the output limit (the rest was dropped)
};

// "none" | "all" | "allow"
std::string_view network_kind_name(Network::Kind k);

// Where a remote sandbox's processes may connect, as IP prefixes (what a cloud sandbox enforces below the
// HTTP layer). custom() validates every prefix: "10.0.0.0/8", "2001:db8::/32", a bare address meaning /32 or
// /128; host bits must be zero.
class EgressPolicy {
public:
    enum class Kind { block_all, allow_all, custom };
    static EgressPolicy block_all() { return EgressPolicy(Kind::block_all, {}); }
    static EgressPolicy allow_all() { return EgressPolicy(Kind::allow_all, {}); }
    // Throws std::invalid_argument: "EgressPolicy.custom: invalid CIDR '10.0.0.1/8' (host bits set)".
    static EgressPolicy custom(std::vector<std::string> allow_cidrs);
    // The policy that matches a network: none -> block_all, all -> allow_all; an allow list names hosts, not
    // addresses, so it cannot be expressed (std::invalid_argument).
    static EgressPolicy from_network(const Network& network);

    Kind kind() const { return kind_; }
    const std::vector<std::string>& allow_cidrs() const { return cidrs_; }
    std::string describe() const;  // "block_all", "allow_all", "custom(10.0.0.0/8, ...)"
    friend bool operator==(const EgressPolicy&, const EgressPolicy&) = default;

private:
    EgressPolicy(Kind k, std::vector<std::string> c) : kind_(k), cidrs_(std::move(c)) {}
    Kind kind_;
    std::vector<std::string> cidrs_;
};

// Looks up a secret by name (nullopt: no such secret): what a sandbox's `secrets` option holds.
using SecretLookup = std::function<std::optional<std::string>(const std::string& name)>;

// A secret header added on the wire to requests for host (and path prefix); the script never sees the secret.
// The secret is either `value` itself or, as the Python API has it, named by `secret_name` and looked up in the
// sandbox's secrets each time a session starts (then value stays empty).
struct HeaderBinding {
    std::string host;               // "api.example.com" or "api.example.com:8443"
    std::string header;             // "Authorization"
    std::string value;              // the secret (header value = prefix + value + suffix)
    std::string path_prefix = "/";
    std::string prefix;             // "Bearer "
    std::string suffix;
    std::string secret_name;        // instead of value: the name of a secret of the sandbox
};

// GitHub access for the given repositories ("owner/name"): the token is sent as
// "Authorization: Basic base64(x-access-token:TOKEN)" to https://<host>/<owner>/<name> (git over HTTPS) and as
// "Authorization: Bearer TOKEN" to https://api.<host>/repos/<owner>/<name>. ttl_seconds is how long a minted
// token lives where a service mints it (MistralSandbox); locally the token is taken from `token`, or the
// embedder's GITHUB_TOKEN when empty. all_repos (the Python API's repos="all") gives access to every
// repository the token can reach: the header goes to every path of <host> and api.<host>; repos is then empty.
struct GitHubBinding {
    std::vector<std::string> repos;
    int ttl_seconds = 3600;
    std::string host = "github.com";
    std::string token;
    bool all_repos = false;
};

// The Mistral API (https://api.mistral.ai/) with "Authorization: Bearer KEY"; the key from `api_key`, or the
// embedder's MISTRAL_API_KEY when empty. ttl_seconds as for GitHubBinding.
struct MistralApiBinding {
    int ttl_seconds = 3600;
    std::string api_key;
};

using AnyHeaderBinding = std::variant<HeaderBinding, GitHubBinding, MistralApiBinding>;
// "HeaderBinding" | "GitHubBinding" | "MistralApiBinding"
std::string_view binding_kind(const AnyHeaderBinding& b);

// The header bindings of a sandbox. validate() checks each binding (hosts parse as net::parse_host_port,
// header names are tokens without CR/LF, repos are "owner/name", ttl_seconds > 0) and throws
// std::invalid_argument naming the binding. wire() expands them to the HTTP client's bindings and a secret
// store holding the values (the secrets never leave that store except as header values on the wire).
class WorkspaceHeaderBindings {
public:
    WorkspaceHeaderBindings() = default;
    WorkspaceHeaderBindings(std::initializer_list<AnyHeaderBinding> b) : bindings_(b) {}
    explicit WorkspaceHeaderBindings(std::vector<AnyHeaderBinding> b) : bindings_(std::move(b)) {}

    void add(AnyHeaderBinding b) { bindings_.push_back(std::move(b)); }
    bool empty() const { return bindings_.empty(); }
    const std::vector<AnyHeaderBinding>& bindings() const { return bindings_; }

    void validate() const;

    struct Wire {
        std::vector<net::HeaderBinding> bindings;
        std::shared_ptr<const net::SecretStore> secrets;
    };
    // Throws std::invalid_argument when a secret is missing (no token and no environment variable, or a
    // secret_name that `secrets` does not know).
    Wire wire(const SecretLookup& secrets = {}) const;
    // The secret names of the HeaderBindings that have one, in order.
    std::vector<std::string> secret_names() const;

private:
    std::vector<AnyHeaderBinding> bindings_;
};

}  // namespace bashkit::sandbox
