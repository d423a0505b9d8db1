#include "sandbox/local_sandbox.hpp"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "vfs/host_fs.hpp"

namespace bashkit::sandbox {
namespace {

// ------------------------------------------------------------------------------------------ NoSandbox

class NoBackend final : public SessionBackend {
public:
    void start() override {}
    void stop() override {}
    SandboxExecutionResult execute(const std::string&, std::optional<double>) override {
        return {127, "", "NoSandbox: no commands can run in this sandbox\n", false};
    }
    Text read_text(const std::string&) override { return {std::nullopt, "NoSandbox: no files"}; }
    std::optional<std::string> write_text(const std::string&, const std::string&) override { return "NoSandbox: no files"; }
    Listing list(const std::string&, bool, size_t) override { return {{}, "NoSandbox: no files", false}; }
};

// ------------------------------------------------------------------------------------------ local host

std::string home_dir() {
    const char* h = std::getenv("HOME");
    return h && h[0] == '/' ? std::string(h) : std::string();
}

std::string current_dir() {
    char buf[PATH_MAX];
    return ::getcwd(buf, sizeof buf) ? std::string(buf) : std::string();
}

// The real path when it exists; else the lexically normal form.
std::string canonical(const std::string& p) {
    std::error_code ec;
    auto c = std::filesystem::weakly_canonical(p, ec);
    return ec ? vfs::normalize_path(p) : c.lexically_normal().string();
}

// Whether `outer` is `inner` or one of its ancestors.
bool contains(const std::string& outer, const std::string& inner) {
    if (outer == "/" ) return true;
    std::string o = outer;
    while (o.size() > 1 && o.back() == '/') o.pop_back();
    return inner == o || inner.starts_with(o + "/");
}

class LocalBackend final : public SessionBackend {
public:
    LocalBackend(const DangerousLocalSandboxOptions& o, bool delete_on_cleanup, std::string id)
        : opts_(o), delete_(delete_on_cleanup), id_(std::move(id)) {}
    ~LocalBackend() override { stop(); }

    void start() override {
        std::string ws = opts_.workspace;
        if (ws.empty()) {
            std::string base = DangerousLocalSandbox::default_workspace_base();
            if (base.empty()) throw SandboxError("DangerousLocalSandbox: $HOME is not set; pass a workspace");
            std::error_code ec;
            std::filesystem::create_directories(base, ec);
            if (ec) throw SandboxError("DangerousLocalSandbox: cannot create " + base + ": " + ec.message());
            std::string tmpl = base + "/" + id_ + "-XXXXXX";
            std::vector<char> buf(tmpl.begin(), tmpl.end());
            buf.push_back('\0');
            if (!::mkdtemp(buf.data()))
                throw SandboxError("DangerousLocalSandbox: cannot create a workspace under " + base + ": " + std::strerror(errno));
            ws = buf.data();
        } else {
            if (ws[0] != '/') ws = current_dir() + "/" + ws;
            if (delete_) {
                if (auto e = DangerousLocalSandbox::check_deletable_workspace(opts_.workspace)) throw SandboxError(*e);
            }
            std::error_code ec;
            std::filesystem::create_directories(ws, ec);
            if (ec) throw SandboxError("DangerousLocalSandbox: cannot create workspace " + ws + ": " + ec.message());
        }
        workspace_ = canonical(ws);
        vfs::HostFsOptions ho;
        ho.uid = ::getuid();
        ho.gid = ::getgid();
        auto fs = vfs::HostFs::open("/", ho);
        if (!fs) throw SandboxError("DangerousLocalSandbox: cannot open the host file system");
        fs_ = std::move(*fs);
        table_ = std::make_unique<ProcessTable>();
        procs_ = HostProcessTools{};
        procs_.table = table_.get();
        procs_.shell = {opts_.shell == "sh" ? "/bin/sh" : "/bin/bash", "-c"};
        procs_.cwd = workspace_;
        started_ = true;
    }

    void stop() override {
        if (!started_) return;
        started_ = false;
        procs_ = HostProcessTools{};
        table_.reset();  // kills the background processes
        fs_.reset();
        if (delete_ && !workspace_.empty() && !DangerousLocalSandbox::check_deletable_workspace(workspace_)) {
            std::error_code ec;
            std::filesystem::remove_all(workspace_, ec);
        }
    }

    SandboxExecutionResult execute(const std::string& command, std::optional<double> timeout_seconds) override {
        return execute_streaming(command, timeout_seconds, OutputCallbacks{});
    }

    // The host process's pipes are read as the program writes: each read goes to the callbacks at once.
    SandboxExecutionResult execute_streaming(const std::string& command, std::optional<double> timeout_seconds,
                                             const OutputCallbacks& callbacks) override {
        ProcessOptions po;
        po.argv = {opts_.shell == "sh" ? "/bin/sh" : "/bin/bash", "-c", command};
        po.cwd = workspace_;
        po.timeout_seconds = timeout_seconds.value_or(opts_.default_exec_timeout_seconds);
        ProcessOutputFn fn;
        if (callbacks.on_stdout || callbacks.on_stderr) {
            fn = [&callbacks](bool is_err, std::string_view chunk) {
                const auto& cb = is_err ? callbacks.on_stderr : callbacks.on_stdout;
                if (cb) cb(chunk);
            };
        }
        ProcessResult r = run_process(po, fn);
        SandboxExecutionResult out{r.exit_code, std::move(r.out), std::move(r.err), r.timed_out};
        if (r.timed_out) {
            std::string note = "DangerousLocalSandbox: command timed out after " + std::to_string(*po.timeout_seconds) + " s\n";
            if (callbacks.on_stderr) callbacks.on_stderr(note);
            out.stderr_ += note;
        }
        return out;
    }

    std::string location() const override { return workspace_; }
    ProcessTools* processes() override { return table_ ? &procs_ : nullptr; }

protected:
    vfs::FileSystem* filesystem() override { return fs_.get(); }
    std::string working_directory() override { return workspace_; }

private:
    DangerousLocalSandboxOptions opts_;
    bool delete_;
    std::string id_;
    std::string workspace_;
    std::shared_ptr<vfs::FileSystem> fs_;
    std::unique_ptr<ProcessTable> table_;
    HostProcessTools procs_;
    bool started_ = false;
};

}  // namespace

// ------------------------------------------------------------------------------------------ NoSandbox

SandboxAttributes NoSandbox::static_attributes() {
    SandboxAttributes a;
    a.type = "NoSandbox";
    a.supported_network = {Network::Kind::None};
    a.supported_header_bindings = {};
    a.supported_access = {SandboxAccess::none};
    a.delete_on_cleanup = true;
    a.supports_background_processes = false;
    return a;
}

NoSandbox::NoSandbox(NoSandboxOptions options)
    : Sandbox(static_attributes(), options.network, options.header_bindings, std::move(options.hooks), options.access) {}

std::unique_ptr<SessionBackend> NoSandbox::make_backend(const std::string&) { return std::make_unique<NoBackend>(); }

// ------------------------------------------------------------------------------------------ DangerousLocalSandbox

SandboxAttributes DangerousLocalSandbox::static_attributes() {
    SandboxAttributes a;
    a.type = "DangerousLocalSandbox";
    a.supported_network = {Network::Kind::All};
    a.supported_header_bindings = {};
    a.supported_access = {SandboxAccess::none, SandboxAccess::files, SandboxAccess::full};
    a.delete_on_cleanup = true;
    a.supports_background_processes = true;
    return a;
}

DangerousLocalSandbox::DangerousLocalSandbox(DangerousLocalSandboxOptions options)
    : Sandbox(static_attributes(), options.network.value_or(Network::all()), options.header_bindings, options.hooks,
              options.access,
              {{"GitIdentity", "it would overwrite the user's own ~/.gitconfig"}}),
      opts_(std::move(options)) {
    if (opts_.shell != "bash" && opts_.shell != "sh")
        throw std::invalid_argument("DangerousLocalSandbox: shell must be 'bash' or 'sh', got '" + opts_.shell + "'");
    if (!(opts_.default_exec_timeout_seconds > 0))
        throw std::invalid_argument("DangerousLocalSandbox: default_exec_timeout_seconds must be positive");
    attrs_.delete_on_cleanup = opts_.delete_on_cleanup.value_or(opts_.workspace.empty());
}

std::string DangerousLocalSandbox::default_workspace_base() {
    std::string home = home_dir();
    return home.empty() ? std::string() : home + "/.cache/mistral-vibe-harness-local-host";
}

std::optional<std::string> DangerousLocalSandbox::check_deletable_workspace(const std::string& workspace) {
    const std::string who = "DangerousLocalSandbox: workspace '" + workspace + "'";
    if (workspace.empty() || workspace[0] != '/')
        return who + " must be an absolute path when delete_on_cleanup is true";
    std::string ws = canonical(workspace);
    std::string home = home_dir();
    if (!home.empty() && contains(ws, canonical(home)))
        return who + " contains the home folder '" + home + "'; refusing to delete it at cleanup";
    std::string cwd = current_dir();
    if (!cwd.empty() && contains(ws, canonical(cwd)))
        return who + " contains the current directory '" + cwd + "'; refusing to delete it at cleanup";
    return std::nullopt;
}

std::unique_ptr<SessionBackend> DangerousLocalSandbox::make_backend(const std::string& session_id) {
    return std::make_unique<LocalBackend>(opts_, attrs_.delete_on_cleanup, session_id);
}

}  // namespace bashkit::sandbox
