#include "interp/command.hpp"

#include <algorithm>

namespace bashkit::interp {

Environment::Environment(std::vector<std::pair<std::string, std::string>> vars) : vars_(std::move(vars)) {
    std::stable_sort(vars_.begin(), vars_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    // Keep the last of duplicate names.
    std::vector<std::pair<std::string, std::string>> out;
    for (auto& v : vars_) {
        if (!out.empty() && out.back().first == v.first)
            out.back() = std::move(v);
        else
            out.push_back(std::move(v));
    }
    vars_ = std::move(out);
}

const std::string* Environment::get(std::string_view name) const {
    auto it = std::lower_bound(vars_.begin(), vars_.end(), name,
                               [](const auto& e, std::string_view n) { return e.first < n; });
    if (it == vars_.end() || it->first != name) return nullptr;
    return &it->second;
}

void Environment::set(std::string name, std::string value) {
    auto it = std::lower_bound(vars_.begin(), vars_.end(), std::string_view(name),
                               [](const auto& e, std::string_view n) { return e.first < n; });
    if (it != vars_.end() && it->first == name)
        it->second = std::move(value);
    else
        vars_.insert(it, {std::move(name), std::move(value)});
}

void Environment::unset(std::string_view name) {
    auto it = std::lower_bound(vars_.begin(), vars_.end(), name,
                               [](const auto& e, std::string_view n) { return e.first < n; });
    if (it != vars_.end() && it->first == name) vars_.erase(it);
}

std::string CommandContext::resolve(std::string_view path) const {
    if (!path.empty() && path.front() == '/') return std::string(path);
    std::string out = cwd;
    if (out.empty() || out.back() != '/') out.push_back('/');
    out.append(path);
    return out;
}

void CommandContext::error(std::string_view message) const {
    std::string line;
    line.reserve(message.size() + 32);
    line.append(argv.empty() ? std::string_view("bashkit") : std::string_view(argv[0]));
    line.append(": ");
    line.append(message);
    line.push_back('\n');
    (void)err.write(line);
}

void CommandRegistry::add(std::string name, std::string help, CommandFn fn) {
    RegisteredCommand cmd{name, std::move(help), std::move(fn)};
    commands_.insert_or_assign(std::move(name), std::move(cmd));
}

bool CommandRegistry::erase(std::string_view name) {
    auto it = commands_.find(name);
    if (it == commands_.end()) return false;
    commands_.erase(it);
    return true;
}

const RegisteredCommand* CommandRegistry::find(std::string_view name) const {
    auto it = commands_.find(name);
    return it == commands_.end() ? nullptr : &it->second;
}

std::vector<std::string> CommandRegistry::names() const {
    std::vector<std::string> out;
    out.reserve(commands_.size());
    for (const auto& [k, v] : commands_) out.push_back(k);
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace bashkit::interp
