// Hooks: code a sandbox session runs once it is ready (on_create) and when it closes (on_destroy).
//
// The context a hook gets is the session itself (sandbox/sandbox.hpp): execute(), read_file(), write_file().
// A hook that throws from on_create makes open() fail (the session is closed again); exceptions from
// on_destroy are swallowed so close() always finishes.
//
// Unified state: every hook serialises to JSON as {"type": "<TypeName>", ...its fields} and a registry by
// type name rebuilds it, so a deployed agent can recreate its hooks from configuration:
//
//   nlohmann::json j = GitIdentity{"Ada", "ada@example.com"}.to_unified_state();
//   // {"type": "GitIdentity", "name": "Ada", "email": "ada@example.com"}
//   std::shared_ptr<SandboxHook> h = SandboxHook::from_unified_state(j);
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace bashkit::sandbox {

class SandboxSession;

class SandboxHook {
public:
    virtual ~SandboxHook() = default;
    virtual std::string type_name() const = 0;
    virtual void on_create(SandboxSession& ctx) { (void)ctx; }
    virtual void on_destroy(SandboxSession& ctx) { (void)ctx; }
    // {"type": type_name(), ...}
    virtual nlohmann::json to_unified_state() const = 0;

    // Rebuilds a hook from its unified state through the registry. Throws std::invalid_argument for a
    // missing or unknown "type" or bad fields.
    static std::shared_ptr<SandboxHook> from_unified_state(const nlohmann::json& state);

    using Factory = std::function<std::shared_ptr<SandboxHook>(const nlohmann::json&)>;
    // Adds (or replaces) a hook type; GitIdentity is registered from the start.
    static void register_type(const std::string& type_name, Factory factory);
    static std::vector<std::string> registered_types();  // sorted
};

// `git config --global user.name NAME` and `user.email EMAIL` at on_create. Refused by DangerousLocalSandbox
// (it would overwrite the user's own ~/.gitconfig).
class GitIdentity final : public SandboxHook {
public:
    // Throws std::invalid_argument when name or email is empty or contains a newline.
    GitIdentity(std::string name, std::string email);
    const std::string& name() const { return name_; }
    const std::string& email() const { return email_; }

    std::string type_name() const override { return "GitIdentity"; }
    void on_create(SandboxSession& ctx) override;
    nlohmann::json to_unified_state() const override;
    static std::shared_ptr<SandboxHook> from_state(const nlohmann::json& state);

private:
    std::string name_;
    std::string email_;
};

}  // namespace bashkit::sandbox
