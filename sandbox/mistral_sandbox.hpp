// MistralSandbox: a remote sandbox (Mistral Cloud, or any server of the protocol in sandbox/PROTOCOL.md, such
// as `bashkit serve`), reached over HTTP+JSON with a bearer token.
//
//   MistralSandbox sandbox({.endpoint = "https://sandboxes.example", .api_token = token,
//                           .network = Network::allow({"pypi.org"})});
//   SandboxSession s = sandbox.open("conversation-42");   // POST /v1/sessions, readiness probes, setup_script
//   s.execute("pip install requests");                     // POST /v1/sessions/ID/exec
//   s.close();                                             // DELETE /v1/sessions/ID
//
// Every option is std::optional so that "omitted" can be told from "passed": an omitted option is read from the
// environment variable AGENTS_SDK_KOYEB_SANDBOX_<OPTION IN UPPER CASE> (AGENTS_SDK_KOYEB_SANDBOX_REGION,
// ..._TTL_SECONDS, ..._ENDPOINT, ..._API_TOKEN, ...), else it takes its default (MistralSandboxSettings).
// network, egress, header_bindings, hooks and access are never read from the environment. Booleans in the
// environment are 1/0, true/false, yes/no, on/off (any case); numbers are decimal.
//
// authored_settings() is what the caller passed (the api_token as "[redacted]"), settings() what is in effect.
// egress_policy() is the IP-level policy sent to the service: network none -> block_all, all -> allow_all;
// `egress` (only EgressPolicy::custom(...) is accepted) adds the listed addresses to network none.
//
// Refusals (std::invalid_argument from the constructor), besides the common ones of sandbox.hpp:
//   This network policy is not supported in region 'fra'; it is supported only in nl-north-1. Pass
//   network=Network.all() or a supported region.
//   (and the same for egress: "This egress policy is not supported in region 'fra'; ... Pass
//   egress=EgressPolicy.allow_all() or a supported region.")
//   MistralSandbox: egress accepts only EgressPolicy.custom(allow_cidrs=...); block_all() and allow_all() are what
//   egress_policy is for Network.none() and Network.all()
//   MistralSandbox: egress=EgressPolicy.custom(...) adds addresses to network=Network.none(); with
//   network=Network.all() every address is allowed already
//   MistralSandbox: ttl_seconds must be positive   (and the other numeric options; see the .cpp)
//   MistralSandbox: AGENTS_SDK_KOYEB_SANDBOX_TTL_SECONDS: expected an integer, got 'soon'
// Failures to create or reach the sandbox are SandboxError from open(), e.g.
//   Mistral Cloud refused to create the sandbox (HTTP 401). The identity of the API key needs the cloud_user
//   role (Mistral Cloud User) in the workspace: ...
//
// Connections: the adapter talks to its endpoint with libcurl directly (no proxy, http and https only, no
// redirects). It is not a script's request, so the sandbox network policy and the private/loopback address
// block of net/ do not apply to it: a `bashkit serve` on 127.0.0.1 is reachable. Scripts inside the sandbox
// are governed by `network`/`egress` on the service side.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sandbox/sandbox.hpp"

namespace bashkit::sandbox {

// What is in effect once the environment and the defaults have filled in the omitted options.
struct MistralSandboxSettings {
    std::string image;      // empty: the service's default sandbox image
    std::string endpoint;   // base URL of the protocol (no default: open() fails without one)
    std::string api_token;  // bearer token (no default: open() fails without one)
    std::string instance_type = "medium";
    std::string region = "nl-north-1";
    std::string name_prefix = "unknown";
    int64_t ttl_seconds = 86400;
    int64_t idle_timeout_seconds = 0;  // 0: no idle timeout
    double default_exec_timeout_seconds = 30;
    bool privileged = false;              // also true when docker_daemon_enabled
    bool docker_daemon_enabled = false;
    std::string docker_daemon_network_mode = "auto";  // auto | host | bridge | none
    bool enable_light_sleep = true;
    std::string setup_script;  // run once the sandbox is ready (empty: none)
    double setup_script_timeout_seconds = 300;
    int readiness_max_retries = 10;
    double readiness_interval_seconds = 2.0;
    double readiness_probe_timeout_seconds = 5;
    double wait_ready_timeout_seconds = 300;
    bool enable_mesh = false;
    std::string pre_provisioned_sandbox_id;  // attach to this sandbox instead of creating one (kept at close)
    bool supports_background_processes = true;  // the process tools, through the service's /processes endpoints
};

struct MistralSandboxOptions {
    std::optional<std::string> image;
    // Not read from the environment. Unset: true when image is unset (the service's own image runs the
    // process tools), false when an image is given (it may not).
    std::optional<bool> supports_background_processes;
    std::optional<std::string> endpoint;
    std::optional<std::string> api_token;
    std::optional<std::string> instance_type;
    std::optional<std::string> region;
    std::optional<std::string> name_prefix;
    std::optional<int64_t> ttl_seconds;
    std::optional<int64_t> idle_timeout_seconds;
    std::optional<double> default_exec_timeout_seconds;
    std::optional<bool> privileged;
    std::optional<bool> docker_daemon_enabled;
    std::optional<std::string> docker_daemon_network_mode;
    std::optional<bool> enable_light_sleep;
    std::optional<std::string> setup_script;
    std::optional<double> setup_script_timeout_seconds;
    std::optional<int> readiness_max_retries;
    std::optional<double> readiness_interval_seconds;
    std::optional<double> readiness_probe_timeout_seconds;
    std::optional<double> wait_ready_timeout_seconds;
    std::optional<bool> enable_mesh;
    std::optional<std::string> pre_provisioned_sandbox_id;
    // Not read from the environment:
    std::optional<Network> network;     // omitted: Network::none(); none or all
    std::optional<EgressPolicy> egress; // only custom(...), with network none: addresses allowed besides it
    WorkspaceHeaderBindings header_bindings;  // GitHubBinding, MistralApiBinding (the service mints the secrets)
    // The Python API's WorkspaceHeaderBindings() marker: route the sandbox through the service's proxy and apply
    // the rules a workspace administrator registered there (sent as "workspace_header_bindings": true).
    bool workspace_header_bindings = false;
    std::vector<std::shared_ptr<SandboxHook>> hooks;
    std::optional<SandboxAccess> access;  // omitted: full
};

// Looks up an environment variable (nullopt: unset). The default reads the process environment.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;

class MistralSandbox final : public Sandbox {
public:
    static SandboxAttributes static_attributes();
    // "AGENTS_SDK_KOYEB_SANDBOX_" + the option name in upper case.
    static std::string env_var(const std::string& option);
    // The options read from the environment when omitted, in declaration order.
    static const std::vector<std::string>& env_options();

    explicit MistralSandbox(MistralSandboxOptions options = {}, EnvLookup env = {});

    const MistralSandboxOptions& options() const { return opts_; }
    const MistralSandboxSettings& settings() const { return settings_; }
    // The options as passed, as JSON (option name -> value; api_token "[redacted]"; network as
    // {"kind", "allow"}, egress as {"kind", "allow_cidrs"}, header bindings without secrets, hooks as their
    // unified state, access as its name).
    nlohmann::json authored_settings() const;
    EgressPolicy egress_policy() const { return egress_; }

    // The body of the create request (POST /v1/sessions) for a session.
    nlohmann::json create_request(const std::string& session_id) const;

protected:
    std::unique_ptr<SessionBackend> make_backend(const std::string& session_id) override;

private:
    MistralSandboxOptions opts_;
    MistralSandboxSettings settings_;
    EgressPolicy egress_ = EgressPolicy::block_all();
};

// JSON forms shared with the server of the protocol (sandbox/server/).
nlohmann::json network_to_json(const Network& n);
Network network_from_json(const nlohmann::json& j);        // throws std::invalid_argument
nlohmann::json egress_to_json(const EgressPolicy& e);
EgressPolicy egress_from_json(const nlohmann::json& j);    // throws std::invalid_argument
nlohmann::json binding_to_json(const AnyHeaderBinding& b); // without secrets

}  // namespace bashkit::sandbox
