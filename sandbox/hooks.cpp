#include "sandbox/hooks.hpp"

#include <map>
#include <mutex>
#include <stdexcept>

#include "sandbox/process.hpp"
#include "sandbox/sandbox.hpp"

namespace bashkit::sandbox {
namespace {

struct Registry {
    std::mutex mu;
    std::map<std::string, SandboxHook::Factory> factories;
    Registry() { factories["GitIdentity"] = &GitIdentity::from_state; }
};

Registry& registry() {
    static Registry r;
    return r;
}

}  // namespace

std::shared_ptr<SandboxHook> SandboxHook::from_unified_state(const nlohmann::json& state) {
    if (!state.is_object() || !state.contains("type") || !state["type"].is_string())
        throw std::invalid_argument("hook state: expected an object with a string \"type\"");
    std::string type = state["type"].get<std::string>();
    Factory f;
    {
        auto& r = registry();
        std::lock_guard lock(r.mu);
        auto it = r.factories.find(type);
        if (it == r.factories.end()) throw std::invalid_argument("hook state: unknown hook type '" + type + "'");
        f = it->second;
    }
    return f(state);
}

void SandboxHook::register_type(const std::string& type_name, Factory factory) {
    auto& r = registry();
    std::lock_guard lock(r.mu);
    r.factories[type_name] = std::move(factory);
}

std::vector<std::string> SandboxHook::registered_types() {
    auto& r = registry();
    std::lock_guard lock(r.mu);
    std::vector<std::string> names;
    for (const auto& [k, v] : r.factories) names.push_back(k);
    return names;
}

GitIdentity::GitIdentity(std::string name, std::string email) : name_(std::move(name)), email_(std::move(email)) {
    if (name_.empty()) throw std::invalid_argument("GitIdentity: name must not be empty");
    if (email_.empty()) throw std::invalid_argument("GitIdentity: email must not be empty");
    for (const std::string* s : {&name_, &email_})
        if (s->find_first_of(std::string("\r\n\0", 3)) != std::string::npos)
            throw std::invalid_argument("GitIdentity: name and email must be one line");
}

void GitIdentity::on_create(SandboxSession& ctx) {
    SandboxExecutionResult r = ctx.execute("git config --global user.name " + shell_quote(name_) +
                                           " && git config --global user.email " + shell_quote(email_));
    if (r.exit_code != 0)
        throw SandboxError("GitIdentity: git config failed (status " + std::to_string(r.exit_code) + "): " + r.stderr_);
}

nlohmann::json GitIdentity::to_unified_state() const {
    return {{"type", type_name()}, {"name", name_}, {"email", email_}};
}

std::shared_ptr<SandboxHook> GitIdentity::from_state(const nlohmann::json& state) {
    for (const char* k : {"name", "email"})
        if (!state.contains(k) || !state[k].is_string())
            throw std::invalid_argument(std::string("hook state: GitIdentity needs a string \"") + k + "\"");
    return std::make_shared<GitIdentity>(state["name"].get<std::string>(), state["email"].get<std::string>());
}

}  // namespace bashkit::sandbox
