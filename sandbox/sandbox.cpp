#include "sandbox/sandbox.hpp"

#include <algorithm>
#include <random>

namespace bashkit::sandbox {
namespace {

template <class T, class F>
std::string join(const std::vector<T>& v, F name) {
    if (v.empty()) return "none";
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::string(name(v[i]));
    return s;
}

// A timeout beyond any use (about 31 years) is capped there, so conversions to clock ticks cannot overflow.
std::optional<double> capped(std::optional<double> t) {
    if (t && *t > 1e9) return 1e9;
    return t;
}

}  // namespace

std::string random_session_id() {
    std::random_device rd;
    std::mt19937_64 gen((uint64_t(rd()) << 32) ^ rd());
    static const char* hex = "0123456789abcdef";
    uint64_t v = gen();
    std::string s(16, '0');
    for (int i = 15; i >= 0; --i, v >>= 4) s[i] = hex[v & 15];
    return s;
}

// ------------------------------------------------------------------------------------------ Sandbox

Sandbox::Sandbox(SandboxAttributes attrs, Network network, WorkspaceHeaderBindings bindings,
                 std::vector<std::shared_ptr<SandboxHook>> hooks, std::optional<SandboxAccess> access,
                 const std::vector<std::pair<std::string, std::string>>& refused_hooks)
    : attrs_(std::move(attrs)), network_(std::move(network)), bindings_(std::move(bindings)), hooks_(std::move(hooks)) {
    const std::string& type = attrs_.type;
    const auto& nets = attrs_.supported_network;
    if (std::find(nets.begin(), nets.end(), network_.kind()) == nets.end()) {
        throw std::invalid_argument(type + " does not support network=" + std::string(network_kind_name(network_.kind())) +
                                    "; supported: " + join(nets, network_kind_name));
    }
    for (const auto& b : bindings_.bindings()) {
        const auto& ok = attrs_.supported_header_bindings;
        if (std::find(ok.begin(), ok.end(), binding_kind(b)) == ok.end()) {
            throw std::invalid_argument(type + " does not support header binding " + std::string(binding_kind(b)) +
                                        "; supported: " + join(ok, [](const std::string& s) { return s; }));
        }
    }
    bindings_.validate();
    const auto& acc = attrs_.supported_access;
    if (access) {
        if (std::find(acc.begin(), acc.end(), *access) == acc.end()) {
            throw std::invalid_argument(type + " does not support access=" + std::string(to_string(*access)) +
                                        "; supported: " + join(acc, [](SandboxAccess a) { return to_string(a); }));
        }
        access_ = *access;
    } else {
        access_ = acc.empty() ? SandboxAccess::none : *std::max_element(acc.begin(), acc.end());
    }
    for (const auto& h : hooks_) {
        if (!h) throw std::invalid_argument(type + ": hooks: a hook is null");
        for (const auto& [name, why] : refused_hooks) {
            if (h->type_name() == name) throw std::invalid_argument(type + " does not support the " + name + " hook: " + why);
        }
    }
}

SandboxSession Sandbox::session(std::string session_id) {
    if (session_id.empty()) session_id = random_session_id();
    auto backend = make_backend(session_id);
    return SandboxSession(attrs_.type, std::move(session_id), access_, hooks_, std::move(backend),
                          attrs_.supports_background_processes);
}

SandboxSession Sandbox::open(std::string session_id) {
    SandboxSession s = session(std::move(session_id));
    s.open();
    return s;
}

std::vector<ToolSpec> Sandbox::tools() const { return tools_for(access_, attrs_.supports_background_processes); }

// ------------------------------------------------------------------------------------------ SandboxSession

SandboxSession::SandboxSession(std::string type, std::string id, SandboxAccess access,
                               std::vector<std::shared_ptr<SandboxHook>> hooks, std::unique_ptr<SessionBackend> backend,
                               bool background_processes)
    : type_(std::move(type)),
      id_(std::move(id)),
      access_(access),
      hooks_(std::move(hooks)),
      backend_(std::move(backend)),
      background_(background_processes) {}

SandboxSession::SandboxSession(SandboxSession&& o) noexcept
    : type_(std::move(o.type_)),
      id_(std::move(o.id_)),
      access_(o.access_),
      hooks_(std::move(o.hooks_)),
      backend_(std::move(o.backend_)),
      background_(o.background_),
      open_(std::exchange(o.open_, false)) {}

SandboxSession& SandboxSession::operator=(SandboxSession&& o) noexcept {
    if (this != &o) {
        close();
        type_ = std::move(o.type_);
        id_ = std::move(o.id_);
        access_ = o.access_;
        hooks_ = std::move(o.hooks_);
        backend_ = std::move(o.backend_);
        background_ = o.background_;
        open_ = std::exchange(o.open_, false);
    }
    return *this;
}

SandboxSession::~SandboxSession() { close(); }

void SandboxSession::open() {
    if (open_ || !backend_) return;
    backend_->start();
    open_ = true;
    try {
        for (const auto& h : hooks_) h->on_create(*this);
    } catch (...) {
        close();
        throw;
    }
}

void SandboxSession::close() {
    if (!open_ || !backend_) return;
    for (auto it = hooks_.rbegin(); it != hooks_.rend(); ++it) {
        try {
            (*it)->on_destroy(*this);
        } catch (...) {
        }
    }
    open_ = false;
    backend_->stop();
}

SandboxExecutionResult SandboxSession::execute(const std::string& command, std::optional<double> timeout_seconds) {
    if (!open_) throw SandboxError(type_ + ": session '" + id_ + "' is not open");
    if (timeout_seconds && !(*timeout_seconds > 0)) throw std::invalid_argument("execute: timeout_seconds must be positive");
    return backend_->execute(command, capped(timeout_seconds));
}

SandboxExecutionResult SandboxSession::execute(const std::string& command, std::optional<double> timeout_seconds,
                                               const OutputCallbacks& callbacks) {
    if (!open_) throw SandboxError(type_ + ": session '" + id_ + "' is not open");
    if (timeout_seconds && !(*timeout_seconds > 0)) throw std::invalid_argument("execute: timeout_seconds must be positive");
    return backend_->execute_streaming(command, capped(timeout_seconds), callbacks);
}

SandboxExecutionResult SessionBackend::execute_streaming(const std::string& command,
                                                         std::optional<double> timeout_seconds,
                                                         const OutputCallbacks& callbacks) {
    SandboxExecutionResult r = execute(command, timeout_seconds);
    if (callbacks.on_stdout && !r.stdout_.empty()) callbacks.on_stdout(r.stdout_);
    if (callbacks.on_stderr && !r.stderr_.empty()) callbacks.on_stderr(r.stderr_);
    return r;
}

void SandboxSession::add_command(CustomCommand command) {
    if (!open_) throw SandboxError(type_ + ": session '" + id_ + "' is not open");
    if (!backend_->add_command(command)) throw SandboxError(type_ + " does not support custom commands");
}

std::string SandboxSession::save_state() {
    if (!open_) throw SandboxError(type_ + ": session '" + id_ + "' is not open");
    auto s = backend_->save_state();
    if (!s) throw SandboxError(type_ + " does not support shell state snapshots");
    return std::move(*s);
}

void SandboxSession::restore_state(const std::string& snapshot) {
    if (!open_) throw SandboxError(type_ + ": session '" + id_ + "' is not open");
    try {
        if (!backend_->restore_state(snapshot)) throw SandboxError(type_ + " does not support shell state snapshots");
    } catch (const interp::StateError& e) {
        throw SandboxError(type_ + ": " + e.what());
    }
}
bool SandboxSession::cancel() { return open_ && backend_ && backend_->cancel(); }

std::string SandboxSession::read_file(const std::string& path) {
    if (!open_) throw SandboxError(type_ + ": session '" + id_ + "' is not open");
    auto t = backend_->read_text(path);
    if (!t.data) throw SandboxError(t.error);
    return std::move(*t.data);
}

void SandboxSession::write_file(const std::string& path, const std::string& content) {
    if (!open_) throw SandboxError(type_ + ": session '" + id_ + "' is not open");
    if (auto e = backend_->write_text(path, content)) throw SandboxError(*e);
}

std::vector<ToolSpec> SandboxSession::tools() const { return tools_for(access_, background_); }

nlohmann::json SandboxSession::call_tool(const std::string& name, const nlohmann::json& args) {
    if (!open_) return {{"ok", false}, {"error", name + ": the session is not open"}};
    return sandbox::call_tool(access_, *backend_,
                              [this](const std::string& cmd, std::optional<double> t) { return backend_->execute(cmd, capped(t)); },
                              name, args, backend_->processes());
}

}  // namespace bashkit::sandbox
