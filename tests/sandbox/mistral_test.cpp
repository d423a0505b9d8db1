// MistralSandbox: every default, every AGENTS_SDK_KOYEB_SANDBOX_* default, every refusal with its message,
// authored_settings, egress_policy; end to end against a SandboxServer (what `bashkit serve` runs) started
// in this process on 127.0.0.1: exec, files, tools, hooks, a wrong token, one token unable to touch another's
// session, an oversized request, TTLs; and the `bashkit serve` command itself.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include <httplib.h>

#include "sandbox/hooks.hpp"
#include "sandbox/mistral_sandbox.hpp"
#include "tests/sandbox/process_check.hpp"
#include "sandbox/process.hpp"
#include "sandbox/server/server.hpp"
#include "tests/sandbox/error_of.hpp"
#include "tests/sandbox/process_check.hpp"

namespace bashkit::sandbox {
namespace {

using json = nlohmann::json;
using Env = std::map<std::string, std::string>;

EnvLookup env_of(Env vars) {
    return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
        auto it = vars.find(name);
        if (it == vars.end()) return std::nullopt;
        return it->second;
    };
}
const EnvLookup kNoEnv = env_of({});

// ================================================================================ defaults

TEST(MistralSandbox, SettingsDefaults) {
    MistralSandboxSettings d;
    EXPECT_EQ(d.endpoint, "");
    EXPECT_EQ(d.api_token, "");
    EXPECT_EQ(d.instance_type, "medium");
    EXPECT_EQ(d.region, "nl-north-1");
    EXPECT_EQ(d.name_prefix, "unknown");
    EXPECT_EQ(d.ttl_seconds, 86400);
    EXPECT_EQ(d.idle_timeout_seconds, 0);
    EXPECT_EQ(d.default_exec_timeout_seconds, 30);
    EXPECT_FALSE(d.privileged);
    EXPECT_FALSE(d.docker_daemon_enabled);
    EXPECT_EQ(d.docker_daemon_network_mode, "auto");
    EXPECT_TRUE(d.enable_light_sleep);
    EXPECT_EQ(d.setup_script, "");
    EXPECT_EQ(d.setup_script_timeout_seconds, 300);
    EXPECT_EQ(d.readiness_max_retries, 10);
    EXPECT_EQ(d.readiness_interval_seconds, 2.0);
    EXPECT_EQ(d.readiness_probe_timeout_seconds, 5);
    EXPECT_EQ(d.wait_ready_timeout_seconds, 300);
    EXPECT_FALSE(d.enable_mesh);
    EXPECT_EQ(d.pre_provisioned_sandbox_id, "");
}

TEST(MistralSandbox, OmittedOptionsTakeTheDefaults) {
    MistralSandboxOptions o;
    EXPECT_FALSE(o.endpoint || o.api_token || o.instance_type || o.region || o.name_prefix || o.ttl_seconds ||
                 o.idle_timeout_seconds || o.default_exec_timeout_seconds || o.privileged || o.docker_daemon_enabled ||
                 o.docker_daemon_network_mode || o.enable_light_sleep || o.setup_script || o.setup_script_timeout_seconds ||
                 o.readiness_max_retries || o.readiness_interval_seconds || o.readiness_probe_timeout_seconds ||
                 o.wait_ready_timeout_seconds || o.enable_mesh || o.pre_provisioned_sandbox_id || o.network || o.egress ||
                 o.access);
    EXPECT_TRUE(o.header_bindings.empty());
    EXPECT_TRUE(o.hooks.empty());

    MistralSandbox sb({}, kNoEnv);
    const MistralSandboxSettings& s = sb.settings();
    MistralSandboxSettings d;
    EXPECT_EQ(s.instance_type, d.instance_type);
    EXPECT_EQ(s.region, d.region);
    EXPECT_EQ(s.name_prefix, d.name_prefix);
    EXPECT_EQ(s.ttl_seconds, d.ttl_seconds);
    EXPECT_EQ(s.idle_timeout_seconds, d.idle_timeout_seconds);
    EXPECT_EQ(s.default_exec_timeout_seconds, d.default_exec_timeout_seconds);
    EXPECT_EQ(s.privileged, d.privileged);
    EXPECT_EQ(s.docker_daemon_enabled, d.docker_daemon_enabled);
    EXPECT_EQ(s.docker_daemon_network_mode, d.docker_daemon_network_mode);
    EXPECT_EQ(s.enable_light_sleep, d.enable_light_sleep);
    EXPECT_EQ(s.setup_script_timeout_seconds, d.setup_script_timeout_seconds);
    EXPECT_EQ(s.readiness_max_retries, d.readiness_max_retries);
    EXPECT_EQ(s.readiness_interval_seconds, d.readiness_interval_seconds);
    EXPECT_EQ(s.readiness_probe_timeout_seconds, d.readiness_probe_timeout_seconds);
    EXPECT_EQ(s.wait_ready_timeout_seconds, d.wait_ready_timeout_seconds);
    EXPECT_EQ(s.enable_mesh, d.enable_mesh);
    EXPECT_EQ(s.pre_provisioned_sandbox_id, "");
    EXPECT_EQ(sb.network().kind(), Network::Kind::None);
    EXPECT_EQ(sb.egress_policy(), EgressPolicy::block_all());
    EXPECT_TRUE(sb.header_bindings().empty());
    EXPECT_TRUE(sb.hooks().empty());
    EXPECT_EQ(sb.access(), SandboxAccess::full);
    EXPECT_EQ(sb.authored_settings(), json::object());
}

TEST(MistralSandbox, Attributes) {
    MistralSandbox sb({}, kNoEnv);
    EXPECT_EQ(sb.type_name(), "MistralSandbox");
    // Mistral Cloud filters by IP address: network none or all only.
    EXPECT_EQ(sb.supported_network(), (std::vector{Network::Kind::None, Network::Kind::All}));
    EXPECT_EQ(sb.supported_header_bindings(), (std::vector<std::string>{"GitHubBinding", "MistralApiBinding"}));
    EXPECT_EQ(sb.supported_access(), (std::vector{SandboxAccess::none, SandboxAccess::files, SandboxAccess::full}));
    EXPECT_TRUE(sb.delete_on_cleanup());
    // The process tools: on by default with the service's image, off with another unless asked for.
    EXPECT_TRUE(sb.supports_background_processes());
    EXPECT_EQ(sb.tools().size(), 10u);
    EXPECT_FALSE(MistralSandbox({.image = "python:3.12"}, kNoEnv).supports_background_processes());
    EXPECT_EQ(MistralSandbox({.image = "python:3.12"}, kNoEnv).tools().size(), 6u);
    EXPECT_TRUE(MistralSandbox({.image = "python:3.12", .supports_background_processes = true}, kNoEnv)
                    .supports_background_processes());
    EXPECT_FALSE(MistralSandbox({.supports_background_processes = false}, kNoEnv).supports_background_processes());
    EXPECT_FALSE(MistralSandbox({.pre_provisioned_sandbox_id = "sbx-1"}, kNoEnv).delete_on_cleanup());
    EXPECT_EQ(MistralSandbox({.access = SandboxAccess::files}, kNoEnv).access(), SandboxAccess::files);
    std::vector<std::string> names;
    for (const auto& t : MistralSandbox({.access = SandboxAccess::files}, kNoEnv).tools()) names.push_back(t.name);
    EXPECT_EQ(names, (std::vector<std::string>{"read_file", "write_file", "edit_file", "list_files", "search_files"}));
}

// ================================================================================ the environment

TEST(MistralSandbox, EnvVarNames) {
    EXPECT_EQ(MistralSandbox::env_var("ttl_seconds"), "AGENTS_SDK_KOYEB_SANDBOX_TTL_SECONDS");
    EXPECT_EQ(MistralSandbox::env_var("region"), "AGENTS_SDK_KOYEB_SANDBOX_REGION");
    EXPECT_EQ(MistralSandbox::env_options(),
              (std::vector<std::string>{"image", "endpoint", "api_token", "instance_type", "region", "name_prefix", "ttl_seconds",
                                        "idle_timeout_seconds", "default_exec_timeout_seconds", "privileged",
                                        "docker_daemon_enabled", "docker_daemon_network_mode", "enable_light_sleep",
                                        "setup_script", "setup_script_timeout_seconds", "readiness_max_retries",
                                        "readiness_interval_seconds", "readiness_probe_timeout_seconds",
                                        "wait_ready_timeout_seconds", "enable_mesh", "pre_provisioned_sandbox_id"}));
}

const Env kFullEnv = {
    {"AGENTS_SDK_KOYEB_SANDBOX_ENDPOINT", "http://sandboxes.internal:8080"},
    {"AGENTS_SDK_KOYEB_SANDBOX_API_TOKEN", "tok-env"},
    {"AGENTS_SDK_KOYEB_SANDBOX_INSTANCE_TYPE", "large"},
    {"AGENTS_SDK_KOYEB_SANDBOX_REGION", "fra"},
    {"AGENTS_SDK_KOYEB_SANDBOX_NAME_PREFIX", "ci-bot"},
    {"AGENTS_SDK_KOYEB_SANDBOX_TTL_SECONDS", "3600"},
    {"AGENTS_SDK_KOYEB_SANDBOX_IDLE_TIMEOUT_SECONDS", "600"},
    {"AGENTS_SDK_KOYEB_SANDBOX_DEFAULT_EXEC_TIMEOUT_SECONDS", "12.5"},
    {"AGENTS_SDK_KOYEB_SANDBOX_PRIVILEGED", "true"},
    {"AGENTS_SDK_KOYEB_SANDBOX_DOCKER_DAEMON_ENABLED", "1"},
    {"AGENTS_SDK_KOYEB_SANDBOX_DOCKER_DAEMON_NETWORK_MODE", "host"},
    {"AGENTS_SDK_KOYEB_SANDBOX_ENABLE_LIGHT_SLEEP", "off"},
    {"AGENTS_SDK_KOYEB_SANDBOX_SETUP_SCRIPT", "echo ready"},
    {"AGENTS_SDK_KOYEB_SANDBOX_SETUP_SCRIPT_TIMEOUT_SECONDS", "90"},
    {"AGENTS_SDK_KOYEB_SANDBOX_READINESS_MAX_RETRIES", "3"},
    {"AGENTS_SDK_KOYEB_SANDBOX_READINESS_INTERVAL_SECONDS", "0.5"},
    {"AGENTS_SDK_KOYEB_SANDBOX_READINESS_PROBE_TIMEOUT_SECONDS", "7"},
    {"AGENTS_SDK_KOYEB_SANDBOX_WAIT_READY_TIMEOUT_SECONDS", "120"},
    {"AGENTS_SDK_KOYEB_SANDBOX_ENABLE_MESH", "YES"},
    {"AGENTS_SDK_KOYEB_SANDBOX_PRE_PROVISIONED_SANDBOX_ID", "sbx-42"},
    {"AGENTS_SDK_KOYEB_SANDBOX_IMAGE", "registry.example/sbx:1"},
    // Never read from the environment:
    {"AGENTS_SDK_KOYEB_SANDBOX_NETWORK", "none"},
    {"AGENTS_SDK_KOYEB_SANDBOX_EGRESS", "block_all"},
    {"AGENTS_SDK_KOYEB_SANDBOX_ACCESS", "none"},
    {"AGENTS_SDK_KOYEB_SANDBOX_HOOKS", "GitIdentity"},
    {"AGENTS_SDK_KOYEB_SANDBOX_HEADER_BINDINGS", "MistralApiBinding"},
};

TEST(MistralSandbox, EveryEnvVarDefault) {
    MistralSandbox sb({.network = Network::all()}, env_of(kFullEnv));
    const MistralSandboxSettings& s = sb.settings();
    EXPECT_EQ(s.endpoint, "http://sandboxes.internal:8080");
    EXPECT_EQ(s.api_token, "tok-env");
    EXPECT_EQ(s.instance_type, "large");
    EXPECT_EQ(s.region, "fra");
    EXPECT_EQ(s.name_prefix, "ci-bot");
    EXPECT_EQ(s.ttl_seconds, 3600);
    EXPECT_EQ(s.idle_timeout_seconds, 600);
    EXPECT_EQ(s.default_exec_timeout_seconds, 12.5);
    EXPECT_TRUE(s.privileged);
    EXPECT_TRUE(s.docker_daemon_enabled);
    EXPECT_EQ(s.docker_daemon_network_mode, "host");
    EXPECT_FALSE(s.enable_light_sleep);
    EXPECT_EQ(s.setup_script, "echo ready");
    EXPECT_EQ(s.setup_script_timeout_seconds, 90);
    EXPECT_EQ(s.readiness_max_retries, 3);
    EXPECT_EQ(s.readiness_interval_seconds, 0.5);
    EXPECT_EQ(s.readiness_probe_timeout_seconds, 7);
    EXPECT_EQ(s.wait_ready_timeout_seconds, 120);
    EXPECT_TRUE(s.enable_mesh);
    EXPECT_EQ(s.pre_provisioned_sandbox_id, "sbx-42");
    EXPECT_EQ(s.image, "registry.example/sbx:1");
    // network, egress, access, hooks and header bindings are not taken from the environment.
    EXPECT_EQ(sb.network().kind(), Network::Kind::All);
    EXPECT_EQ(sb.egress_policy(), EgressPolicy::allow_all());
    EXPECT_EQ(sb.access(), SandboxAccess::full);
    EXPECT_TRUE(sb.hooks().empty());
    EXPECT_TRUE(sb.header_bindings().empty());
    EXPECT_FALSE(sb.delete_on_cleanup());  // pre-provisioned
    // What was passed beats the environment; authored_settings() shows only what was passed.
    MistralSandbox given({.instance_type = "small", .ttl_seconds = 5, .privileged = false, .network = Network::all()},
                         env_of(kFullEnv));
    EXPECT_EQ(given.settings().instance_type, "small");
    EXPECT_EQ(given.settings().ttl_seconds, 5);
    EXPECT_TRUE(given.settings().privileged);  // docker_daemon_enabled (from the environment) makes it privileged
    EXPECT_EQ(given.settings().region, "fra");
    EXPECT_EQ(given.authored_settings(),
              (json{{"instance_type", "small"}, {"ttl_seconds", 5}, {"privileged", false}, {"network", {{"kind", "all"}}}}));
}

TEST(MistralSandbox, ProcessEnvironmentIsTheDefaultLookup) {
    ::setenv("AGENTS_SDK_KOYEB_SANDBOX_INSTANCE_TYPE", "xlarge", 1);
    ::setenv("AGENTS_SDK_KOYEB_SANDBOX_READINESS_MAX_RETRIES", "4", 1);
    MistralSandbox sb;
    ::unsetenv("AGENTS_SDK_KOYEB_SANDBOX_INSTANCE_TYPE");
    ::unsetenv("AGENTS_SDK_KOYEB_SANDBOX_READINESS_MAX_RETRIES");
    EXPECT_EQ(sb.settings().instance_type, "xlarge");
    EXPECT_EQ(sb.settings().readiness_max_retries, 4);
}

TEST(MistralSandbox, BooleanSpellingsInTheEnvironment) {
    for (const char* yes : {"1", "true", "TRUE", "yes", "On"})
        EXPECT_TRUE(MistralSandbox({}, env_of({{"AGENTS_SDK_KOYEB_SANDBOX_ENABLE_MESH", yes}})).settings().enable_mesh) << yes;
    for (const char* no : {"0", "false", "No", "off"})
        EXPECT_FALSE(MistralSandbox({}, env_of({{"AGENTS_SDK_KOYEB_SANDBOX_ENABLE_LIGHT_SLEEP", no}})).settings().enable_light_sleep)
            << no;
}

TEST(MistralSandbox, BadEnvironmentValues) {
    auto with = [](const char* var, const char* value) {
        return error_of([&] { MistralSandbox({}, env_of({{var, value}})); });
    };
    EXPECT_EQ(with("AGENTS_SDK_KOYEB_SANDBOX_TTL_SECONDS", "soon"),
              "MistralSandbox: AGENTS_SDK_KOYEB_SANDBOX_TTL_SECONDS: expected an integer, got 'soon'");
    EXPECT_EQ(with("AGENTS_SDK_KOYEB_SANDBOX_READINESS_MAX_RETRIES", "99999999999"),
              "MistralSandbox: AGENTS_SDK_KOYEB_SANDBOX_READINESS_MAX_RETRIES: expected an integer, got '99999999999'");
    EXPECT_EQ(with("AGENTS_SDK_KOYEB_SANDBOX_IDLE_TIMEOUT_SECONDS", "1.5"),
              "MistralSandbox: AGENTS_SDK_KOYEB_SANDBOX_IDLE_TIMEOUT_SECONDS: expected an integer, got '1.5'");
    EXPECT_EQ(with("AGENTS_SDK_KOYEB_SANDBOX_PRIVILEGED", "maybe"),
              "MistralSandbox: AGENTS_SDK_KOYEB_SANDBOX_PRIVILEGED: expected a boolean (true/false, 1/0, yes/no, on/off), got 'maybe'");
    EXPECT_EQ(with("AGENTS_SDK_KOYEB_SANDBOX_READINESS_INTERVAL_SECONDS", "2s"),
              "MistralSandbox: AGENTS_SDK_KOYEB_SANDBOX_READINESS_INTERVAL_SECONDS: expected a number, got '2s'");
    EXPECT_EQ(with("AGENTS_SDK_KOYEB_SANDBOX_WAIT_READY_TIMEOUT_SECONDS", ""),
              "MistralSandbox: AGENTS_SDK_KOYEB_SANDBOX_WAIT_READY_TIMEOUT_SECONDS: expected a number, got ''");
    // A value in the environment is validated like a passed one.
    EXPECT_EQ(with("AGENTS_SDK_KOYEB_SANDBOX_TTL_SECONDS", "0"), "MistralSandbox: ttl_seconds must be positive");
    EXPECT_EQ(with("AGENTS_SDK_KOYEB_SANDBOX_REGION", "fra"),
              "This network policy is not supported in region 'fra'; it is supported only in nl-north-1. Pass "
              "network=Network.all() or a supported region.");
}

// ================================================================================ refusals

TEST(MistralSandbox, RegionRefusals) {
    const std::string fra =
        "This network policy is not supported in region 'fra'; it is supported only in nl-north-1. Pass "
        "network=Network.all() or a supported region.";
    EXPECT_EQ(error_of([] { MistralSandbox({.region = "fra"}, kNoEnv); }), fra);
    EXPECT_EQ(error_of([] { MistralSandbox({.region = "fra", .network = Network::none()}, kNoEnv); }), fra);
    EXPECT_EQ(error_of([] { MistralSandbox({.region = "us-east-1"}, kNoEnv); }),
              "This network policy is not supported in region 'us-east-1'; it is supported only in nl-north-1. Pass "
              "network=Network.all() or a supported region.");
    EXPECT_NO_THROW(MistralSandbox({.region = "fra", .network = Network::all()}, kNoEnv));
    // custom() adds to Network.none(), which only nl-north-1 enforces.
    EXPECT_EQ(error_of([] { MistralSandbox({.region = "fra", .egress = EgressPolicy::custom({"10.0.0.0/8"})}, kNoEnv); }), fra);
}

TEST(MistralSandbox, OptionRefusals) {
    auto err = [](MistralSandboxOptions o) { return error_of([&] { MistralSandbox(std::move(o), kNoEnv); }); };
    EXPECT_EQ(err({.endpoint = "ftp://x"}), "MistralSandbox: endpoint must be an http:// or https:// URL, got 'ftp://x'");
    EXPECT_EQ(err({.api_token = "a\nb"}), "MistralSandbox: api_token must not contain CR, LF or NUL");
    EXPECT_EQ(err({.instance_type = ""}), "MistralSandbox: instance_type must not be empty");
    EXPECT_EQ(err({.region = ""}), "MistralSandbox: region must not be empty");
    EXPECT_EQ(err({.name_prefix = "my bot"}), "MistralSandbox: name_prefix must be 1 to 40 letters, digits or '-', got 'my bot'");
    EXPECT_EQ(err({.name_prefix = ""}), "MistralSandbox: name_prefix must be 1 to 40 letters, digits or '-', got ''");
    EXPECT_EQ(err({.ttl_seconds = 0}), "MistralSandbox: ttl_seconds must be positive");
    EXPECT_EQ(err({.idle_timeout_seconds = -1}), "MistralSandbox: idle_timeout_seconds must not be negative (0 turns it off)");
    EXPECT_EQ(err({.default_exec_timeout_seconds = 0}), "MistralSandbox: default_exec_timeout_seconds must be positive");
    EXPECT_EQ(err({.docker_daemon_network_mode = "overlay"}),
              "MistralSandbox: docker_daemon_network_mode must be one of auto, host, bridge, none; got 'overlay'");
    EXPECT_EQ(err({.setup_script_timeout_seconds = -1}), "MistralSandbox: setup_script_timeout_seconds must be positive");
    EXPECT_EQ(err({.readiness_max_retries = -1}), "MistralSandbox: readiness_max_retries must not be negative");
    EXPECT_EQ(err({.readiness_interval_seconds = -0.5}), "MistralSandbox: readiness_interval_seconds must not be negative");
    EXPECT_EQ(err({.readiness_probe_timeout_seconds = 0}), "MistralSandbox: readiness_probe_timeout_seconds must be positive");
    EXPECT_EQ(err({.wait_ready_timeout_seconds = 0}), "MistralSandbox: wait_ready_timeout_seconds must be positive");
    // Mistral Cloud filters by IP address: network none or all, never a host allow list.
    EXPECT_EQ(err({.network = Network::allow({"pypi.org"})}),
              "MistralSandbox does not support network=allow; supported: none, all");
    // egress takes only custom(); block_all()/allow_all() are what egress_policy() is for none/all.
    EXPECT_EQ(err({.egress = EgressPolicy::allow_all()}),
              "MistralSandbox: egress accepts only EgressPolicy.custom(allow_cidrs=...); allow_all() is what "
              "egress_policy is for Network.all(): pass network= instead");
    EXPECT_EQ(err({.network = Network::all(), .egress = EgressPolicy::block_all()}),
              "MistralSandbox: egress accepts only EgressPolicy.custom(allow_cidrs=...); block_all() is what "
              "egress_policy is for Network.none(): pass network= instead");
    EXPECT_EQ(err({.network = Network::all(), .egress = EgressPolicy::custom({"10.0.0.0/8"})}),
              "MistralSandbox: egress=EgressPolicy.custom(...) adds addresses to network=Network.none(); with "
              "network=Network.all() every address is allowed already");
    EXPECT_EQ(err({.header_bindings = {HeaderBinding{.host = "api.example.com", .header = "X-Key", .value = "v"}}}),
              "MistralSandbox does not support header binding HeaderBinding; supported: GitHubBinding, MistralApiBinding");
    EXPECT_EQ(err({.header_bindings = {GitHubBinding{.repos = {"a/b"}, .token = "ghp_x"}}}),
              "MistralSandbox: header_bindings: GitHubBinding #1: token must be empty (the service mints the token)");
    EXPECT_EQ(err({.header_bindings = {GitHubBinding{.repos = {"a/b"}}, MistralApiBinding{.api_key = "k"}}}),
              "MistralSandbox: header_bindings: MistralApiBinding #2: api_key must be empty (the service mints the key)");
    EXPECT_EQ(err({.header_bindings = {GitHubBinding{.repos = {"justone"}}}}),
              "header_bindings: GitHubBinding #1: repos: expected 'owner/name', got 'justone'");
    EXPECT_EQ(err({.hooks = {nullptr}}), "MistralSandbox: hooks: a hook is null");
    EXPECT_NO_THROW(MistralSandbox({.header_bindings = {GitHubBinding{.repos = {"a/b"}}, MistralApiBinding{}}}, kNoEnv));
}

// ================================================================================ settings and egress

TEST(MistralSandbox, AuthoredSettings) {
    MistralSandbox sb({.endpoint = "https://sandboxes.example",
                       .api_token = "secret-token",
                       .region = "nl-north-1",
                       .readiness_interval_seconds = 0.25,
                       .enable_mesh = true,
                       .egress = EgressPolicy::custom({"10.0.0.0/8"}),
                       .header_bindings = {GitHubBinding{.repos = {"octo/repo"}}},
                       .hooks = {std::make_shared<GitIdentity>("Ada", "ada@example.com")},
                       .access = SandboxAccess::files},
                      env_of({{"AGENTS_SDK_KOYEB_SANDBOX_NAME_PREFIX", "from-env"}}));
    json expected = {
        {"endpoint", "https://sandboxes.example"},
        {"api_token", "[redacted]"},
        {"region", "nl-north-1"},
        {"readiness_interval_seconds", 0.25},
        {"enable_mesh", true},
        {"egress", {{"kind", "custom"}, {"allow_cidrs", {"10.0.0.0/8"}}}},
        {"header_bindings", {{{"type", "GitHubBinding"}, {"repos", {"octo/repo"}}, {"ttl_seconds", 3600}, {"host", "github.com"}}}},
        {"hooks", {{{"type", "GitIdentity"}, {"name", "Ada"}, {"email", "ada@example.com"}}}},
        {"access", "files"},
    };
    EXPECT_EQ(sb.authored_settings(), expected);
    EXPECT_EQ(sb.settings().name_prefix, "from-env");
    EXPECT_EQ(sb.authored_settings().dump().find("secret-token"), std::string::npos);
}

TEST(MistralSandbox, EgressPolicy) {
    EXPECT_EQ(MistralSandbox({}, kNoEnv).egress_policy().describe(), "block_all");
    EXPECT_EQ(MistralSandbox({.network = Network::all()}, kNoEnv).egress_policy().describe(), "allow_all");
    // Passed explicitly (custom, with network none): as passed.
    EXPECT_EQ(MistralSandbox({.egress = EgressPolicy::custom({"192.168.0.0/16"})}, kNoEnv).egress_policy().describe(),
              "custom(192.168.0.0/16)");
}

TEST(MistralSandbox, CreateRequest) {
    MistralSandbox sb({.image = "registry.example/sbx:1", .name_prefix = "bot", .ttl_seconds = 60,
                       .egress = EgressPolicy::custom({"203.0.113.0/24"}), .header_bindings = {MistralApiBinding{}},
                       .workspace_header_bindings = true},
                      kNoEnv);
    json expected = {{"name", "bot-conv-1"},
                     {"instance_type", "medium"},
                     {"region", "nl-north-1"},
                     {"ttl_seconds", 60},
                     {"idle_timeout_seconds", 0},
                     {"network", {{"kind", "none"}}},
                     {"egress", {{"kind", "custom"}, {"allow_cidrs", {"203.0.113.0/24"}}}},
                     {"header_bindings", {{{"type", "MistralApiBinding"}, {"ttl_seconds", 3600}}}},
                     {"privileged", false},
                     {"docker_daemon_enabled", false},
                     {"docker_daemon_network_mode", "auto"},
                     {"enable_light_sleep", true},
                     {"enable_mesh", false},
                     {"image", "registry.example/sbx:1"},
                     {"workspace_header_bindings", true}};
    EXPECT_EQ(sb.create_request("conv-1"), expected);
    // docker_daemon_enabled puts the sandbox in privileged mode.
    EXPECT_TRUE(MistralSandbox({.docker_daemon_enabled = true}, kNoEnv).create_request("c")["privileged"]);
}

TEST(MistralSandbox, JsonForms) {
    EXPECT_EQ(network_from_json(network_to_json(Network::allow({"a.example", "b.example:8443"}))).describe(),
              Network::allow({"a.example", "b.example:8443"}).describe());
    EXPECT_EQ(egress_from_json(egress_to_json(EgressPolicy::custom({"10.0.0.0/8"}))), EgressPolicy::custom({"10.0.0.0/8"}));
    EXPECT_EQ(error_of([] { network_from_json({{"kind", "some"}}); }), "network: unknown kind 'some'");
    EXPECT_EQ(error_of([] { egress_from_json({{"kind", "custom"}, {"allow_cidrs", {"10.0.0.1/8"}}}); }),
              "EgressPolicy.custom: invalid CIDR '10.0.0.1/8' (host bits set)");
    // Lists that are not arrays of strings.
    EXPECT_EQ(error_of([] { network_from_json({{"kind", "allow"}, {"allow", "a.example"}}); }),
              "network: allow must be an array of host strings");
    EXPECT_EQ(error_of([] { network_from_json({{"kind", "allow"}, {"allow", {"a.example", 443}}}); }),
              "network: allow must be an array of host strings");
    EXPECT_EQ(error_of([] { egress_from_json({{"kind", "custom"}, {"allow_cidrs", {{"ip", "10.0.0.0/8"}}}}); }),
              "egress: allow_cidrs must be an array of CIDR strings");
    EXPECT_EQ(error_of([] { egress_from_json({{"kind", "custom"}, {"allow_cidrs", 8}}); }),
              "egress: allow_cidrs must be an array of CIDR strings");
    // An absent list is an empty one.
    EXPECT_EQ(egress_from_json({{"kind", "custom"}}), EgressPolicy::custom({}));
}

TEST(MistralSandbox, OpenNeedsAnEndpointAndAToken) {
    MistralSandbox none({}, kNoEnv);
    EXPECT_EQ(error_of([&] { none.open("s"); }),
              "MistralSandbox: no endpoint: pass endpoint or set AGENTS_SDK_KOYEB_SANDBOX_ENDPOINT");
    MistralSandbox no_token({.endpoint = "http://127.0.0.1:1"}, kNoEnv);
    EXPECT_EQ(error_of([&] { no_token.open("s"); }),
              "MistralSandbox: no API token: pass api_token or set AGENTS_SDK_KOYEB_SANDBOX_API_TOKEN");
    // Nothing listens on port 1.
    MistralSandbox unreachable({.endpoint = "http://127.0.0.1:1", .api_token = "t"}, kNoEnv);
    std::string e = error_of([&] { unreachable.open("s"); });
    EXPECT_TRUE(e.starts_with("MistralSandbox: creating the sandbox failed (cannot reach http://127.0.0.1:1: ")) << e;
}

// ================================================================================ end to end

// A SandboxServer on 127.0.0.1 with two tokens and a clock the test can move forward.
struct Served {
    std::shared_ptr<std::atomic<int64_t>> skew = std::make_shared<std::atomic<int64_t>>(0);  // seconds
    std::unique_ptr<SandboxServer> server;
    int port = 0;
    explicit Served(SandboxServerOptions o = {}) {
        if (o.tokens.empty()) o.tokens = {"token-a", "token-b"};
        auto skew_ = skew;
        o.clock = [skew_] { return std::chrono::steady_clock::now() + std::chrono::seconds(skew_->load()); };
        server = std::make_unique<SandboxServer>(std::move(o));
        port = server->start();
    }
    std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port); }
    MistralSandboxOptions options(std::string token = "token-a") const {
        MistralSandboxOptions o;
        o.endpoint = endpoint();
        o.api_token = std::move(token);
        o.readiness_interval_seconds = 0.01;
        return o;
    }
    httplib::Client client() const {
        httplib::Client c("127.0.0.1", port);
        c.set_read_timeout(30, 0);
        return c;
    }
};

httplib::Headers bearer(const std::string& token) { return {{"Authorization", "Bearer " + token}}; }

TEST(MistralRemote, ExecFilesAndTools) {
    Served srv;
    MistralSandbox sb(srv.options(), kNoEnv);
    SandboxSession s = sb.open("conv-1");
    EXPECT_TRUE(s.location().starts_with("sbx-")) << s.location();
    EXPECT_EQ(srv.server->session_count(), 1u);

    SandboxExecutionResult r = s.execute("echo hello; echo oops >&2; x=41; cd /tmp; exit 3");
    EXPECT_EQ(r.exit_code, 3);
    EXPECT_EQ(r.stdout_, "hello\n");
    EXPECT_EQ(r.stderr_, "oops\n");
    EXPECT_FALSE(r.timed_out);
    // Shell state lasts from one exec to the next (the `exit` ended only that run).
    EXPECT_EQ(s.execute("echo $((x+1)) $PWD").stdout_, "42 /tmp\n");

    s.write_file("/workspace/notes/a.txt", std::string("line1\nline2\n\0bin\xff", 17));
    EXPECT_EQ(s.read_file("/workspace/notes/a.txt"), std::string("line1\nline2\n\0bin\xff", 17));
    EXPECT_EQ(s.execute("cd /workspace && wc -l < notes/a.txt").stdout_, "2\n");
    EXPECT_EQ(error_of([&] { s.read_file("/workspace/missing.txt"); }), "/workspace/missing.txt: No such file or directory");

    json w = s.call_tool("write_file", {{"path", "src/main.py"}, {"content", "print('hi')\n"}});
    EXPECT_EQ(w["ok"], true) << w.dump();
    json e = s.call_tool("edit_file", {{"path", "src/main.py"}, {"old_string", "hi"}, {"new_string", "bye"}});
    EXPECT_EQ(e["ok"], true) << e.dump();
    json rd = s.call_tool("read_file", {{"path", "src/main.py"}});
    EXPECT_EQ(rd["content"], "print('bye')\n") << rd.dump();
    json ls = s.call_tool("list_files", {{"path", "."}, {"recursive", true}});
    ASSERT_EQ(ls["ok"], true) << ls.dump();
    std::vector<std::string> paths;
    for (const auto& x : ls["entries"]) paths.push_back(x["path"].get<std::string>() + ":" + x["type"].get<std::string>());
    EXPECT_EQ(paths, (std::vector<std::string>{"notes:directory", "notes/a.txt:file", "src:directory", "src/main.py:file"}));
    json bash = s.call_tool("bash", {{"command", "cat src/main.py"}});
    EXPECT_EQ(bash["stdout"], "print('bye')\n") << bash.dump();
    json bad = s.call_tool("read_file", {{"path", "nope.txt"}});
    EXPECT_EQ(bad["ok"], false);

    SandboxExecutionResult slow = s.execute("sleep 5", 0.3);
    EXPECT_EQ(slow.exit_code, 124);
    EXPECT_TRUE(slow.timed_out);

    std::string id = s.location();
    s.close();
    EXPECT_EQ(srv.server->session_count(), 0u);
    auto c = srv.client();
    auto got = c.Get(("/v1/sessions/" + id).c_str(), bearer("token-a"));
    ASSERT_TRUE(got);
    EXPECT_EQ(got->status, 404);
}

// The process tools over the protocol, served by `bashkit serve`'s in-process processes.
TEST(MistralRemote, ProcessTools) {
    Served srv;
    MistralSandbox sb(srv.options(), kNoEnv);
    SandboxSession s = sb.open();
    check_process_tools(s);
    // Another token cannot reach them; a bad process id or body is refused.
    int id = s.call_tool("start_process", {{"command", "sleep 600"}})["process_id"];
    auto c = srv.client();
    std::string base = "/v1/sessions/" + s.location() + "/processes";
    auto other = c.Post((base + "/" + std::to_string(id) + "/kill").c_str(), bearer("token-b"), "{}", "application/json");
    ASSERT_TRUE(other);
    EXPECT_EQ(other->status, 404);
    EXPECT_EQ(json::parse(other->body)["code"], "no_session");
    auto none = c.Post((base + "/999/read").c_str(), bearer("token-a"), "{}", "application/json");
    ASSERT_TRUE(none);
    EXPECT_EQ(none->status, 404);
    EXPECT_EQ(json::parse(none->body), json({{"error", "no process 999"}, {"code", "no_process"}}));
    auto bad = c.Post(base.c_str(), bearer("token-a"), R"({"cmd": "ls"})", "application/json");
    ASSERT_TRUE(bad);
    EXPECT_EQ(bad->status, 400);
    // A read answers while a command of the session runs (it does not wait for the exec's lock).
    std::thread slow([&] { (void)s.execute("sleep 1"); });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    auto t0 = std::chrono::steady_clock::now();
    EXPECT_EQ(s.call_tool("read_process_output", {{"process_id", id}})["running"], true);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(700));
    slow.join();
    // Closing the session kills it.
    s.close();
    EXPECT_EQ(srv.server->session_count(), 0u);
}

TEST(MistralRemote, HooksAndSetupScriptRunRemotely) {
    Served srv;
    MistralSandboxOptions o = srv.options();
    o.setup_script = "echo setup > /workspace/setup.txt";
    o.hooks = {std::make_shared<GitIdentity>("Ada", "ada@example.com")};
    MistralSandbox sb(std::move(o), kNoEnv);
    SandboxSession s = sb.open();
    EXPECT_EQ(s.execute("cat /workspace/setup.txt; git config --global user.name").stdout_, "setup\nAda\n");

    MistralSandboxOptions failing = srv.options();
    failing.setup_script = "echo broken >&2; exit 7";
    MistralSandbox bad(std::move(failing), kNoEnv);
    EXPECT_EQ(error_of([&] { bad.open(); }), "MistralSandbox: setup_script failed (status 7): broken");
    EXPECT_EQ(srv.server->session_count(), 1u);  // the failed one was deleted again
}

TEST(MistralRemote, WrongTokenIsRefused) {
    Served srv;
    MistralSandbox sb(srv.options("not-a-token"), kNoEnv);
    EXPECT_EQ(error_of([&] { sb.open(); }),
              "Mistral Cloud refused to create the sandbox (HTTP 401). The identity of the API key needs the cloud_user "
              "role (Mistral Cloud User) in the workspace: ask an "
              "administrator for it (Organization > Workspaces > your workspace > Members), then restart the session; "
              "for a deployed agent, deploy it again once the role is granted.");
    auto c = srv.client();
    auto none = c.Post("/v1/sessions", "{}", "application/json");
    ASSERT_TRUE(none);
    EXPECT_EQ(none->status, 401);
    EXPECT_EQ(none->get_header_value("WWW-Authenticate"), "Bearer");
    EXPECT_EQ(json::parse(none->body), (json{{"error", "missing or invalid bearer token"}, {"code", "unauthorized"}}));
    auto basic = c.Get("/v1/sessions/x", {{"Authorization", "Basic dG9rZW4tYQ=="}});
    ASSERT_TRUE(basic);
    EXPECT_EQ(basic->status, 401);
    // An unknown endpoint: 401 without a token, 404 with one.
    auto unknown = c.Get("/v2/anything");
    ASSERT_TRUE(unknown);
    EXPECT_EQ(unknown->status, 401);
    auto unknown2 = c.Get("/v2/anything", bearer("token-b"));
    ASSERT_TRUE(unknown2);
    EXPECT_EQ(unknown2->status, 404);
    EXPECT_EQ(json::parse(unknown2->body)["code"], "not_found");
    EXPECT_EQ(srv.server->session_count(), 0u);
}

TEST(MistralRemote, OneTokenCannotTouchAnothersSession) {
    Served srv;
    MistralSandbox a(srv.options("token-a"), kNoEnv);
    SandboxSession s = a.open();
    s.write_file("secret.txt", "a's data");
    std::string id = s.location();
    auto c = srv.client();
    std::string base = "/v1/sessions/" + id;
    json no_session = {{"error", "no session '" + id + "'"}, {"code", "no_session"}};
    auto get = c.Get(base.c_str(), bearer("token-b"));
    ASSERT_TRUE(get);
    EXPECT_EQ(get->status, 404);
    EXPECT_EQ(json::parse(get->body), no_session);
    auto exec = c.Post((base + "/exec").c_str(), bearer("token-b"), R"({"command": "cat secret.txt"})", "application/json");
    ASSERT_TRUE(exec);
    EXPECT_EQ(exec->status, 404);
    auto read = c.Get((base + "/files?path=secret.txt").c_str(), bearer("token-b"));
    ASSERT_TRUE(read);
    EXPECT_EQ(read->status, 404);
    EXPECT_EQ(read->body.find("a's data"), std::string::npos);
    auto put = c.Put((base + "/files?path=secret.txt").c_str(), bearer("token-b"), "overwritten", "application/octet-stream");
    ASSERT_TRUE(put);
    EXPECT_EQ(put->status, 404);
    auto del = c.Delete(base.c_str(), bearer("token-b"));
    ASSERT_TRUE(del);
    EXPECT_EQ(del->status, 404);
    // Attaching to it as a pre-provisioned sandbox with the other token fails too.
    MistralSandboxOptions ob = srv.options("token-b");
    ob.pre_provisioned_sandbox_id = id;
    ob.readiness_max_retries = 0;
    MistralSandbox b(std::move(ob), kNoEnv);
    EXPECT_EQ(error_of([&] { b.open(); }), "MistralSandbox: sandbox '" + id + "' is not ready (HTTP 404: sandbox '" + id +
                                              "' does not exist (expired or deleted))");
    // Token A's session is untouched, and A itself can reach it.
    EXPECT_EQ(s.read_file("secret.txt"), "a's data");
    auto mine = c.Get(base.c_str(), bearer("token-a"));
    ASSERT_TRUE(mine);
    EXPECT_EQ(mine->status, 200);
    EXPECT_EQ(json::parse(mine->body)["status"], "ready");
}

TEST(MistralRemote, PreProvisionedSandboxIsKept) {
    Served srv;
    MistralSandbox a(srv.options(), kNoEnv);
    SandboxSession first = a.open();
    first.execute("echo kept > k.txt");
    MistralSandboxOptions o = srv.options();
    o.pre_provisioned_sandbox_id = first.location();
    MistralSandbox attach(std::move(o), kNoEnv);
    {
        SandboxSession s = attach.open();
        EXPECT_EQ(s.location(), first.location());
        EXPECT_EQ(s.execute("cat k.txt").stdout_, "kept\n");
    }
    EXPECT_EQ(srv.server->session_count(), 1u);  // not deleted by the attached session's close
    EXPECT_EQ(first.execute("cat k.txt").stdout_, "kept\n");
}

TEST(MistralRemote, OversizedRequestIsRefused) {
    Served srv({.max_request_bytes = 4096});
    MistralSandbox sb(srv.options(), kNoEnv);
    SandboxSession s = sb.open();
    s.write_file("small.txt", std::string(1000, 'x'));
    std::string e = error_of([&] { s.write_file("big.txt", std::string(10000, 'x')); });
    EXPECT_EQ(e, "MistralSandbox: HTTP 413: the request is larger than 4096 bytes");
    std::string ex = error_of([&] { s.execute("echo " + std::string(10000, 'y')); });
    EXPECT_EQ(ex, "MistralSandbox: exec failed (HTTP 413: the request is larger than 4096 bytes)");
    auto c = srv.client();
    auto r = c.Post("/v1/sessions", bearer("token-a"), std::string(5000, ' ') + "{}", "application/json");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 413);
    EXPECT_EQ(json::parse(r->body)["code"], "too_large");
    EXPECT_EQ(s.execute("echo still fine").stdout_, "still fine\n");
}

TEST(MistralRemote, SessionTtlAndIdleTimeout) {
    Served srv({.max_ttl_seconds = 100, .reap_interval_seconds = 0});
    MistralSandboxOptions o = srv.options();
    o.ttl_seconds = 1000;  // capped by the server at 100
    MistralSandbox sb(std::move(o), kNoEnv);
    SandboxSession s = sb.open();
    auto c = srv.client();
    auto info = c.Get(("/v1/sessions/" + s.location()).c_str(), bearer("token-a"));
    ASSERT_TRUE(info);
    EXPECT_EQ(json::parse(info->body)["ttl_seconds"], 100);
    srv.skew->store(50);
    EXPECT_EQ(s.execute("echo alive").stdout_, "alive\n");
    srv.skew->store(101);
    EXPECT_EQ(error_of([&] { s.execute("echo late"); }),
              "MistralSandbox: exec failed (HTTP 404: sandbox '" + s.location() + "' does not exist (expired or deleted))");
    EXPECT_EQ(srv.server->session_count(), 0u);

    MistralSandboxOptions idle = srv.options();
    idle.idle_timeout_seconds = 10;
    MistralSandbox sbi(std::move(idle), kNoEnv);
    SandboxSession si = sbi.open();
    srv.skew->fetch_add(8);
    EXPECT_EQ(si.execute("echo touched").stdout_, "touched\n");  // resets the idle clock
    srv.skew->fetch_add(8);
    EXPECT_EQ(srv.server->reap(), 0u);
    srv.skew->fetch_add(3);
    EXPECT_EQ(srv.server->reap(), 1u);  // what the reaper thread does every second (off in this test)
    EXPECT_EQ(srv.server->session_count(), 0u);
}

TEST(MistralRemote, ReaperThreadDeletesExpiredSessions) {
    Served srv({.reap_interval_seconds = 0.05});
    MistralSandboxOptions o = srv.options();
    o.ttl_seconds = 30;
    MistralSandbox sb(std::move(o), kNoEnv);
    SandboxSession s = sb.open();
    EXPECT_EQ(srv.server->session_count(), 1u);
    srv.skew->store(31);
    for (int i = 0; i < 200 && srv.server->session_count() != 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_EQ(srv.server->session_count(), 0u);  // gone without any request for it
}

TEST(MistralRemote, ServerLimits) {
    Served srv({.max_sessions_per_token = 2});
    MistralSandbox a(srv.options("token-a"), kNoEnv);
    SandboxSession s1 = a.open(), s2 = a.open();
    EXPECT_EQ(error_of([&] { a.open(); }),
              "MistralSandbox: creating the sandbox failed (HTTP 429: this token already has 2 sessions (the limit))");
    MistralSandbox b(srv.options("token-b"), kNoEnv);  // the limit is per token
    EXPECT_NO_THROW(b.open());
    // Network and header bindings are off unless the server allows them.
    MistralSandboxOptions net = srv.options("token-b");
    net.network = Network::all();
    MistralSandbox with_net(std::move(net), kNoEnv);
    EXPECT_EQ(error_of([&] { with_net.open(); }),
              "MistralSandbox: creating the sandbox failed (HTTP 400: network=all is not allowed by this server (it was "
              "started without --allow-network))");
    MistralSandboxOptions bind = srv.options("token-b");
    bind.header_bindings = {MistralApiBinding{}};
    MistralSandbox with_bind(std::move(bind), kNoEnv);
    EXPECT_EQ(error_of([&] { with_bind.open(); }),
              "MistralSandbox: creating the sandbox failed (HTTP 400: header bindings are not allowed by this server (it "
              "was started without --allow-header-bindings))");
    auto c = srv.client();
    auto r = c.Post("/v1/sessions", bearer("token-b"), "[1, 2]", "application/json");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 400);
    EXPECT_EQ(json::parse(r->body), (json{{"error", "the body must be a JSON object"}, {"code", "bad_request"}}));
}

TEST(MistralRemote, NetworkAllowedByTheServer) {
    Served srv({.allow_network = true});
    MistralSandboxOptions o = srv.options();
    o.network = Network::all();
    MistralSandbox sb(std::move(o), kNoEnv);
    SandboxSession s = sb.open();
    auto c = srv.client();
    auto info = c.Get(("/v1/sessions/" + s.location()).c_str(), bearer("token-a"));
    ASSERT_TRUE(info);
    json j = json::parse(info->body);
    EXPECT_EQ(j["network"], (json{{"kind", "all"}}));
    EXPECT_EQ(j["egress"], (json{{"kind", "allow_all"}}));
    // The server's own loopback is not reachable from a script (private addresses stay blocked).
    SandboxExecutionResult r = s.execute("curl -s " + srv.endpoint() + "/v1/sessions");
    EXPECT_NE(r.exit_code, 0);
}

// A fake service: creates answer `create_status`; the status probe says "starting" `starting` times, then
// "ready"; counts the probes and deletes.
struct FakeService {
    httplib::Server http;
    std::thread thread;
    int port = 0;
    int create_status = 201;
    std::atomic<int> starting{0}, probes{0}, deletes{0};
    FakeService() {
        http.Post("/v1/sessions", [this](const httplib::Request&, httplib::Response& res) {
            res.status = create_status;
            res.set_content(create_status == 201 ? R"({"id": "sbx-fake", "status": "starting"})" : R"({"error": "no"})",
                            "application/json");
        });
        http.Get("/v1/sessions/sbx-fake", [this](const httplib::Request&, httplib::Response& res) {
            ++probes;
            res.set_content(starting-- > 0 ? R"({"status": "starting"})" : R"({"status": "ready"})", "application/json");
        });
        http.Delete("/v1/sessions/sbx-fake", [this](const httplib::Request&, httplib::Response& res) {
            ++deletes;
            res.status = 204;
        });
        port = http.bind_to_any_port("127.0.0.1");
        thread = std::thread([this] { http.listen_after_bind(); });
    }
    ~FakeService() {
        while (!http.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        http.stop();
        thread.join();
    }
    MistralSandboxOptions options() const {
        MistralSandboxOptions o;
        o.endpoint = "http://127.0.0.1:" + std::to_string(port);
        o.api_token = "t";
        o.readiness_interval_seconds = 0.01;
        return o;
    }
};

TEST(MistralRemote, ReadinessProbes) {
    {
        FakeService svc;
        svc.starting = 3;
        MistralSandboxOptions o = svc.options();
        o.readiness_max_retries = 3;  // the first probe and 3 retries: the 4th sees "ready"
        MistralSandbox sb(std::move(o), kNoEnv);
        SandboxSession s = sb.open();
        EXPECT_EQ(svc.probes, 4);
        EXPECT_EQ(s.location(), "sbx-fake");
    }
    {
        FakeService svc;
        svc.starting = 100;
        MistralSandboxOptions o = svc.options();
        o.readiness_max_retries = 2;
        MistralSandbox sb(std::move(o), kNoEnv);
        EXPECT_EQ(error_of([&] { sb.open(); }), "MistralSandbox: sandbox 'sbx-fake' is not ready (status 'starting')");
        EXPECT_EQ(svc.probes, 3);
        EXPECT_EQ(svc.deletes, 1);  // the sandbox that never became ready is deleted
    }
    {
        FakeService svc;
        svc.starting = 100;
        MistralSandboxOptions o = svc.options();
        o.readiness_interval_seconds = 0.2;
        o.wait_ready_timeout_seconds = 0.5;  // bounds the whole wait, whatever readiness_max_retries says
        MistralSandbox sb(std::move(o), kNoEnv);
        EXPECT_EQ(error_of([&] { sb.open(); }), "MistralSandbox: sandbox 'sbx-fake' is not ready (status 'starting')");
        EXPECT_LE(svc.probes, 3);
    }
}

TEST(MistralRemote, CreateRefusedByTheService) {
    for (int status : {401, 403}) {
        FakeService svc;
        svc.create_status = status;
        MistralSandbox sb(svc.options(), kNoEnv);
        EXPECT_EQ(error_of([&] { sb.open(); }),
                  "Mistral Cloud refused to create the sandbox (HTTP " + std::to_string(status) +
                      "). The identity of the API key needs the cloud_user role (Mistral Cloud User) in the workspace: "
                      "ask an administrator for it (Organization > Workspaces > your workspace > Members), then "
                      "restart the session; for a deployed agent, deploy it again once the role is granted.");
    }
    FakeService svc;
    svc.create_status = 503;
    MistralSandbox sb(svc.options(), kNoEnv);
    EXPECT_EQ(error_of([&] { sb.open(); }), "MistralSandbox: creating the sandbox failed (HTTP 503: no)");
}

// With base_dir the session trees are on disk, and deleting a session removes its folder.
TEST(MistralRemote, ServerSessionsOnDisk) {
    namespace fs = std::filesystem;
    fs::path base = fs::temp_directory_path() / ("bashkit-serve-base-" + random_session_id());
    fs::create_directories(base);
    {
        Served srv({.base_dir = base.string()});
        MistralSandbox sb(srv.options(), kNoEnv);
        SandboxSession s = sb.open();
        s.write_file("/workspace/on-disk.txt", "persisted");
        size_t found = 0;
        for (const auto& e : fs::recursive_directory_iterator(base))
            if (e.path().filename() == "on-disk.txt") ++found;
        EXPECT_EQ(found, 1u);
        s.close();
        EXPECT_TRUE(fs::is_empty(base)) << "the session folder is deleted with the session";
    }
    fs::remove_all(base);
}

// Files in /proc/self/fd: the host descriptors this process holds.
size_t open_descriptors() {
    size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) n += !e.path().empty();
    return n;
}

std::string create_session(httplib::Client& c, const std::string& token, int* status = nullptr) {
    auto r = c.Post("/v1/sessions", bearer(token), "{}", "application/json");
    if (status) *status = r ? r->status : -1;
    if (!r || r->status != 201) return r ? r->body : "no reply";
    return json::parse(r->body)["id"].get<std::string>();
}

json exec_in(httplib::Client& c, const std::string& token, const std::string& id, const std::string& command) {
    auto r = c.Post(("/v1/sessions/" + id + "/exec").c_str(), bearer(token), json{{"command", command}}.dump(),
                    "application/json");
    if (!r) return {{"error", "no reply"}};
    return json::parse(r->body);
}

// Tenant A takes every descriptor and every byte its session may have; tenant B keeps working.
TEST(MistralRemote, OneTenantCannotStarveAnother) {
    namespace fs = std::filesystem;
    fs::path base = fs::temp_directory_path() / ("bashkit-serve-tenants-" + random_session_id());
    fs::create_directories(base);
    {
        SandboxServerOptions o;
        o.base_dir = base.string();
        o.fs_limits.max_open_files = 8;
        o.fs_limits.max_total_bytes = 64 << 10;
        Served srv(std::move(o));
        auto c = srv.client();
        std::string a = create_session(c, "token-a");
        size_t before = open_descriptors();
        json r = exec_in(c, "token-a", a,
                         "head -c 100000 /dev/zero > big; echo $?;"
                         "touch f; for i in $(seq 50); do exec {fd}<f || break; done 2>/dev/null; echo $i");
        EXPECT_EQ(r["stdout"], "1\n9\n") << r.dump();
        EXPECT_EQ(r["stderr"], "head: write error: No space left on device\n") << r.dump();
        // A's descriptors stay open across its commands, and stay within its cap.
        r = exec_in(c, "token-a", a, "exec {fd}<f; echo $?");
        EXPECT_EQ(r["stdout"], "1\n") << r.dump();
        EXPECT_NE(r["stderr"].get<std::string>().find("Too many open files"), std::string::npos) << r.dump();
        EXPECT_LE(open_descriptors(), before + 8 + 4);  // 8 of A's, a few of the server's own (connections)
        // B creates a session, writes, opens files.
        std::string b = create_session(c, "token-b");
        r = exec_in(c, "token-b", b, "echo ok > x; cat x; exec {fd}<x; echo $?; head -c 1000 /dev/zero | wc -c");
        EXPECT_EQ(r["stdout"], "ok\n0\n1000\n") << r.dump();
        EXPECT_EQ(r["stderr"], "") << r.dump();
    }
    fs::remove_all(base);
}

// The server's descriptor budget: a session that could take it past it is refused (503), the others keep
// working, and a new one fits again once one is gone.
TEST(MistralRemote, ServerWideDescriptorBudget) {
    namespace fs = std::filesystem;
    fs::path base = fs::temp_directory_path() / ("bashkit-serve-budget-" + random_session_id());
    fs::create_directories(base);
    {
        SandboxServerOptions o;
        o.base_dir = base.string();
        o.fs_limits.max_open_files = 8;
        o.max_open_files = 20;  // two sessions of 8
        Served srv(std::move(o));
        auto c = srv.client();
        std::string a = create_session(c, "token-a");
        std::string b = create_session(c, "token-b");
        int status = 0;
        std::string refused = create_session(c, "token-a", &status);
        EXPECT_EQ(status, 503);
        EXPECT_EQ(json::parse(refused),
                  (json{{"error", "the server cannot hold another session's open files (2 sessions of 8 files each, 20 in all)"},
                        {"code", "server_full"}}));
        EXPECT_EQ(exec_in(c, "token-b", b, "echo fine")["stdout"], "fine\n");
        auto del = c.Delete(("/v1/sessions/" + a).c_str(), bearer("token-a"));
        ASSERT_TRUE(del);
        EXPECT_EQ(del->status, 204);
        create_session(c, "token-a", &status);
        EXPECT_EQ(status, 201);
    }
    fs::remove_all(base);
    // Sessions in memory hold no host descriptors: no budget applies.
    Served mem({.max_open_files = 1});
    auto c = mem.client();
    int status = 0;
    create_session(c, "token-a", &status);
    create_session(c, "token-a", &status);
    EXPECT_EQ(status, 201);
}

// Expiry never waits on a running command: the reaper cancels it, deletes the other expired sessions at
// once, and the running one is closed when its command returns.
TEST(MistralRemote, ReaperDoesNotWaitOnARunningCommand) {
    namespace fs = std::filesystem;
    fs::path base = fs::temp_directory_path() / ("bashkit-serve-reap-" + random_session_id());
    fs::create_directories(base);
    {
        SandboxServerOptions o;
        o.base_dir = base.string();
        o.reap_interval_seconds = 0;
        o.max_ttl_seconds = 30;
        Served srv(std::move(o));
        auto ca = srv.client();
        auto cb = srv.client();
        std::string a = create_session(ca, "token-a");
        std::string b = create_session(cb, "token-b");
        json slow;
        std::thread runner([&] { slow = exec_in(ca, "token-a", a, "sleep 20; echo not reached"); });
        std::this_thread::sleep_for(std::chrono::milliseconds(500));  // A's command is running
        srv.skew->store(31);
        auto t0 = std::chrono::steady_clock::now();
        EXPECT_EQ(srv.server->reap(), 2u);
        EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(3));
        EXPECT_EQ(srv.server->session_count(), 0u);
        runner.join();
        EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
        EXPECT_EQ(slow["exit_code"], 130) << slow.dump();
        EXPECT_EQ(slow["cancelled"], true) << slow.dump();
        EXPECT_TRUE(fs::is_empty(base)) << "both session folders are deleted";
    }
    fs::remove_all(base);
}

// A body sent as application/x-www-form-urlencoded (curl -d's default) follows max_request_bytes like JSON,
// not httplib's own 8 KiB cap for forms.
TEST(MistralRemote, FormBodiesFollowTheJsonSizeRule) {
    Served srv({.max_request_bytes = 64 << 10});
    auto c = srv.client();
    const std::string form = "application/x-www-form-urlencoded";
    auto created = c.Post("/v1/sessions", bearer("token-a"), "{\"name\": \"form\"}", form);
    ASSERT_TRUE(created);
    EXPECT_EQ(created->status, 201) << created->body;
    std::string id = json::parse(created->body)["id"];
    std::string data(20000, 'x');
    auto put = c.Put(("/v1/sessions/" + id + "/files?path=big.txt").c_str(), bearer("token-a"), data, form);
    ASSERT_TRUE(put);
    EXPECT_EQ(put->status, 204) << put->body;
    std::string command = "echo " + std::string(12000, 'y') + " | wc -c; wc -c < big.txt";
    auto exec = c.Post(("/v1/sessions/" + id + "/exec").c_str(), bearer("token-a"), json{{"command", command}}.dump(), form);
    ASSERT_TRUE(exec);
    EXPECT_EQ(exec->status, 200) << exec->body;
    EXPECT_EQ(json::parse(exec->body)["stdout"], "12001\n20000\n");
    // Past max_request_bytes it is 413 as for any body; another token still gets 404 for the session.
    auto big = c.Put(("/v1/sessions/" + id + "/files?path=b").c_str(), bearer("token-a"), std::string(70000, 'z'), form);
    ASSERT_TRUE(big);
    EXPECT_EQ(big->status, 413);
    EXPECT_EQ(json::parse(big->body)["code"], "too_large");
    auto other = srv.client().Put(("/v1/sessions/" + id + "/files?path=c").c_str(), bearer("token-b"), data, form);
    ASSERT_TRUE(other);
    EXPECT_EQ(other->status, 404);
    auto nowhere = srv.client().Put(("/v1/sessions/" + id + "/nope").c_str(), bearer("token-a"), data, form);
    ASSERT_TRUE(nowhere);
    EXPECT_EQ(nowhere->status, 404);
}

TEST(SandboxServer, Refusals) {
    EXPECT_EQ(error_of([] { SandboxServer s({}); }), "SandboxServer: at least one token is required");
    EXPECT_EQ(error_of([] { SandboxServer s({.tokens = {""}}); }), "SandboxServer: a token is empty");
    EXPECT_EQ(error_of([] { SandboxServer s({.tokens = {"a b"}}); }), "SandboxServer: a token contains a space, CR or LF");
    EXPECT_EQ(error_of([] { SandboxServer s({.tokens = {"t"}, .max_request_bytes = 0}); }),
              "SandboxServer: max_request_bytes must be positive");
    SandboxServerOptions d;
    EXPECT_EQ(d.host, "127.0.0.1");
    EXPECT_EQ(d.port, 0);
    EXPECT_EQ(d.max_request_bytes, size_t(16) << 20);
    EXPECT_EQ(d.max_ttl_seconds, 86400);
    EXPECT_EQ(d.max_sessions_per_token, 32u);
    EXPECT_EQ(d.max_exec_timeout_seconds, 3600);
    EXPECT_FALSE(d.allow_network);
    EXPECT_FALSE(d.allow_header_bindings);
}

#ifdef BASHKIT_CLI
TEST(BashkitServe, HelpAndUsageErrors) {
    ProcessResult help = run_process({.argv = {BASHKIT_CLI, "serve", "--help"}, .timeout_seconds = 30});
    EXPECT_EQ(help.exit_code, 0);
    for (const char* flag : {"--host", "--port", "--token-file", "--token-env", "--max-request-bytes", "--max-ttl",
                             "--max-sessions", "--max-exec-timeout", "--max-session-bytes", "--base-dir", "--allow-network",
                             "--allow-header-bindings", "--replica-id", "--lease-seconds", "--unload-idle", "--sync-writes"})
        EXPECT_NE(help.out.find(flag), std::string::npos) << flag;
    ProcessResult bad = run_process({.argv = {BASHKIT_CLI, "serve", "--port", "http"}, .timeout_seconds = 30});
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_EQ(bad.err, "bashkit serve: --port: expected a number, got 'http'\nTry 'bashkit serve --help' for more information.\n");
    ProcessResult unknown = run_process({.argv = {BASHKIT_CLI, "serve", "--token", "x"}, .timeout_seconds = 30});
    EXPECT_EQ(unknown.exit_code, 2);
    EXPECT_EQ(unknown.err, "bashkit serve: unknown option '--token'\nTry 'bashkit serve --help' for more information.\n");
    ProcessResult none = run_process({.argv = {"/usr/bin/env", "-u", "BASHKIT_SERVE_TOKENS", BASHKIT_CLI, "serve"},
                                      .timeout_seconds = 30});
    EXPECT_EQ(none.exit_code, 2);
    EXPECT_EQ(none.err, "bashkit serve: no token: pass --token-file FILE or set BASHKIT_SERVE_TOKENS (or the --token-env "
                        "variable)\nTry 'bashkit serve --help' for more information.\n");
}

// SIGTERM stops it cleanly (status 0); tokens from BASHKIT_SERVE_TOKENS.
TEST(BashkitServe, StopsOnSigterm) {
    std::string script = std::string("BASHKIT_SERVE_TOKENS=t1,t2 '") + BASHKIT_CLI +
                         "' serve --port 0 > out.txt & pid=$!; "
                         "for i in $(seq 100); do grep -q listening out.txt 2>/dev/null && break; sleep 0.05; done; "
                         "kill -TERM $pid; wait $pid; echo status=$?; cut -d: -f1-2 out.txt";
    namespace fs = std::filesystem;
    fs::path dir = fs::temp_directory_path() / ("bashkit-serve-" + random_session_id());
    fs::create_directories(dir);
    ProcessResult r = run_process({.argv = {"/bin/sh", "-c", script}, .cwd = dir.string(), .timeout_seconds = 60});
    EXPECT_EQ(r.out, "status=0\nbashkit serve: listening on http\n") << r.err;
    fs::remove_all(dir);
}

// The command itself: started with a token file, it prints its port; MistralSandbox works against it.
TEST(BashkitServe, ServesTheProtocol) {
    namespace fs = std::filesystem;
    fs::path tokens = fs::temp_directory_path() / ("bashkit-serve-tokens-" + random_session_id());
    {
        std::ofstream(tokens) << "# tokens\ncli-token\n\n";
    }
    ProcessTable table;
    auto started = table.start({BASHKIT_CLI, "serve", "--port", "0", "--token-file", tokens.string()}, "");
    ASSERT_EQ(started.error, "");
    std::string out;
    for (int i = 0; i < 200 && out.find('\n') == std::string::npos; ++i) {
        auto o = table.read(started.id);
        out += o.out;
        if (!o.running) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    const std::string prefix = "bashkit serve: listening on http://127.0.0.1:";
    ASSERT_TRUE(out.starts_with(prefix)) << out;
    std::string endpoint = out.substr(std::string("bashkit serve: listening on ").size());
    endpoint.pop_back();
    MistralSandbox sb({.endpoint = endpoint, .api_token = "cli-token", .readiness_interval_seconds = 0.01}, kNoEnv);
    {
        SandboxSession s = sb.open();
        EXPECT_EQ(s.execute("echo from serve | tr a-z A-Z").stdout_, "FROM SERVE\n");
    }
    MistralSandbox wrong({.endpoint = endpoint, .api_token = "other"}, kNoEnv);
    EXPECT_TRUE(error_of([&] { wrong.open(); }).starts_with("Mistral Cloud refused to create the sandbox (HTTP 401)"));
    EXPECT_TRUE(table.kill(started.id));
    fs::remove(tokens);
}
#endif

}  // namespace
}  // namespace bashkit::sandbox
