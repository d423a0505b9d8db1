#include "sandbox/docker_sandbox.hpp"

#include <algorithm>
#include <cstdio>

#include "base/strings.hpp"

namespace bashkit::sandbox {
namespace {

using base::trim;  // docker's answers end with a newline

class DockerBackend final : public SessionBackend {
public:
    DockerBackend(const LocalDockerSandbox& sb, std::string id)
        : self_(std::make_shared<LocalDockerSandbox>(sb)), sb_(*self_), opts_(sb.options()), id_(std::move(id)) {}
    ~DockerBackend() override { stop(); }

    ProcessResult run(std::vector<std::string> argv, std::optional<double> timeout, std::string input = {}) {
        ProcessOptions po;
        po.argv = std::move(argv);
        po.timeout_seconds = timeout;
        po.stdin_data = std::move(input);
        return opts_.runner ? opts_.runner(po) : run_process(po);
    }

    void start() override {
        ProcessResult info = run(sb_.info_argv(), 30);
        if (!info.started || info.exit_code != 0) {
            throw SandboxError("LocalDockerSandbox: no docker engine is reachable (`" + opts_.docker +
                               " info` failed: " + trim(info.err.empty() ? info.out : info.err) +
                               "). Install Docker and start its daemon, or use another sandbox type.");
        }
        std::string name = LocalDockerSandbox::container_name(id_);
        ProcessResult r = run(sb_.run_argv(name), 600);
        if (r.exit_code != 0)
            throw SandboxError("LocalDockerSandbox: docker run " + opts_.image + " failed (status " +
                               std::to_string(r.exit_code) + "): " + trim(r.err));
        container_ = trim(r.out);
        if (container_.empty()) container_ = name;
        if (sb_.supports_background_processes()) {
            table_ = std::make_unique<ProcessTable>();
            procs_.table = table_.get();
            procs_.argv_for = [this](int id, const std::string& command) {
                return sb_.process_argv(container_, id, command);
            };
            procs_.kill_inside = [this](int id) { (void)run(sb_.process_kill_argv(container_, id), 30); };
        }
        if (!opts_.setup_script.empty()) {
            SandboxExecutionResult s = execute(opts_.setup_script, opts_.setup_script_timeout_seconds);
            if (s.exit_code != 0) {
                std::string msg = "LocalDockerSandbox: setup_script failed (status " + std::to_string(s.exit_code) +
                                  "): " + trim(s.stderr_);
                stop();
                throw SandboxError(msg);
            }
        }
    }

    void stop() override {
        procs_ = HostProcessTools{};
        table_.reset();  // kills the background processes (in the container too) and their docker clients
        if (container_.empty()) return;
        (void)run(sb_.rm_argv(container_), 60);
        container_.clear();
    }

    SandboxExecutionResult execute(const std::string& command, std::optional<double> timeout_seconds) override {
        double t = timeout_seconds.value_or(opts_.default_exec_timeout_seconds);
        ProcessResult r = run(sb_.exec_argv(container_, command, t), t + 15);
        SandboxExecutionResult out{r.exit_code, std::move(r.out), std::move(r.err), r.exit_code == 124};
        return out;
    }

    Text read_text(const std::string& path) override {
        ProcessResult r = run(sb_.read_argv(container_, path), 60);
        if (r.exit_code != 0) return {std::nullopt, trim(r.err)};
        return {std::move(r.out), {}};
    }
    std::optional<std::string> write_text(const std::string& path, const std::string& content) override {
        ProcessResult r = run(sb_.write_argv(container_, path), 60, content);
        if (r.exit_code != 0) return trim(r.err);
        return std::nullopt;
    }
    Listing list(const std::string& path, bool recursive, size_t max_entries) override {
        ProcessResult r = run(sb_.list_argv(container_, path, recursive), 60);
        if (r.exit_code != 0) return {{}, trim(r.err), false};
        Listing l;
        size_t start = 0;
        const std::string& s = r.out;
        while (start < s.size() && l.entries.size() < max_entries) {
            size_t nl = s.find('\n', start);
            std::string line = s.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
            start = nl == std::string::npos ? s.size() : nl + 1;
            size_t sp1 = line.find(' '), sp2 = line.find(' ', sp1 + 1);
            if (sp1 == std::string::npos || sp2 == std::string::npos) continue;
            char t = line[0];
            FileEntry e;
            e.type = t == 'f' ? "file" : t == 'd' ? "directory" : t == 'l' ? "symlink" : "other";
            e.size = e.type == "directory" ? 0 : std::strtoull(line.c_str() + sp1 + 1, nullptr, 10);
            e.path = line.substr(sp2 + 1);
            if (path == "." && e.path.starts_with("./")) e.path.erase(0, 2);
            l.entries.push_back(std::move(e));
        }
        std::sort(l.entries.begin(), l.entries.end(), [](const FileEntry& a, const FileEntry& b) { return a.path < b.path; });
        return l;
    }

    std::string location() const override { return container_; }
    ProcessTools* processes() override { return table_ ? &procs_ : nullptr; }

private:
    std::shared_ptr<const LocalDockerSandbox> self_;  // a copy: the session may outlive the sandbox object
    const LocalDockerSandbox& sb_;
    LocalDockerSandboxOptions opts_;
    std::string id_;
    std::string container_;
    std::unique_ptr<ProcessTable> table_;
    HostProcessTools procs_;
};

SandboxAttributes attributes_for(const LocalDockerSandboxOptions& o) {
    SandboxAttributes a = LocalDockerSandbox::static_attributes();
    a.supports_background_processes =
        o.supports_background_processes.value_or(o.image == LocalDockerSandbox::kDefaultImage);
    return a;
}

}  // namespace

SandboxAttributes LocalDockerSandbox::static_attributes() {
    SandboxAttributes a;
    a.type = "LocalDockerSandbox";
    a.supported_network = {Network::Kind::None, Network::Kind::All};
    a.supported_header_bindings = {};
    a.supported_access = {SandboxAccess::none, SandboxAccess::files, SandboxAccess::full};
    a.delete_on_cleanup = true;
    a.supports_background_processes = true;  // with the default image
    return a;
}

LocalDockerSandbox::LocalDockerSandbox(LocalDockerSandboxOptions options)
    : Sandbox(attributes_for(options), options.network, options.header_bindings, options.hooks, options.access),
      opts_(std::move(options)) {
    if (opts_.image.empty()) throw std::invalid_argument("LocalDockerSandbox: image must not be empty");
    if (opts_.shell != "bash" && opts_.shell != "sh")
        throw std::invalid_argument("LocalDockerSandbox: shell must be 'bash' or 'sh', got '" + opts_.shell + "'");
    if (!(opts_.default_exec_timeout_seconds > 0))
        throw std::invalid_argument("LocalDockerSandbox: default_exec_timeout_seconds must be positive");
    if (!(opts_.setup_script_timeout_seconds > 0))
        throw std::invalid_argument("LocalDockerSandbox: setup_script_timeout_seconds must be positive");
}

std::string LocalDockerSandbox::format_seconds(double s) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f", s);
    std::string out = buf;
    while (out.back() == '0') out.pop_back();
    if (out.back() == '.') out.pop_back();
    return out;
}

std::string LocalDockerSandbox::container_name(const std::string& session_id) {
    std::string name = "bashkit-";
    for (char c : session_id) {
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
        name += ok ? c : '_';
    }
    return name;
}

std::vector<std::string> LocalDockerSandbox::info_argv() const { return {opts_.docker, "info", "--format", "{{.ServerVersion}}"}; }

std::vector<std::string> LocalDockerSandbox::run_argv(const std::string& name) const {
    std::vector<std::string> a = {opts_.docker, "run", "-d", "--init", "--name", name};
    if (network_.kind() == Network::Kind::None) {
        a.push_back("--network");
        a.push_back("none");
    }
    for (const char* s : {"-w", "/workspace"}) a.push_back(s);
    a.push_back(opts_.image);
    a.push_back("sleep");
    a.push_back("infinity");
    return a;
}

std::vector<std::string> LocalDockerSandbox::exec_argv(const std::string& container, const std::string& command,
                                                       double timeout_seconds) const {
    return {opts_.docker, "exec", "-w", "/workspace", container, "timeout", "-s", "TERM", "-k", "5",
            format_seconds(timeout_seconds), opts_.shell, "-c", command};
}

std::vector<std::string> LocalDockerSandbox::read_argv(const std::string& container, const std::string& path) const {
    return {opts_.docker, "exec", "-w", "/workspace", container, "cat", "--", path};
}

std::vector<std::string> LocalDockerSandbox::write_argv(const std::string& container, const std::string& path) const {
    return {opts_.docker, "exec", "-i", "-w", "/workspace", container, "sh", "-c",
            "mkdir -p -- \"$(dirname -- \"$1\")\" && cat > \"$1\"", "sh", path};
}

std::vector<std::string> LocalDockerSandbox::list_argv(const std::string& container, const std::string& path,
                                                       bool recursive) const {
    std::vector<std::string> a = {opts_.docker, "exec", "-w", "/workspace", container, "find", path, "-mindepth", "1"};
    if (!recursive) {
        a.push_back("-maxdepth");
        a.push_back("1");
    }
    a.push_back("-printf");
    a.push_back("%y %s %p\\n");
    return a;
}

std::vector<std::string> LocalDockerSandbox::rm_argv(const std::string& container) const {
    return {opts_.docker, "rm", "-f", container};
}

namespace {
std::string pid_file(const std::string& container, int id) {
    return "/tmp/.bashkit-process-" + container + "-" + std::to_string(id);
}
}  // namespace

std::vector<std::string> LocalDockerSandbox::process_argv(const std::string& container, int id,
                                                          const std::string& command) const {
    // A non-interactive shell gives a background command /dev/null as stdin before its own redirections,
    // so the exec's stdin is passed through fd 3. setsid makes the command a process group of its own.
    return {opts_.docker, "exec", "-i", "-w", "/workspace", container, "sh", "-c",
            "exec 3<&0; setsid \"$1\" -c \"$2\" <&3 3<&- & echo $! > \"$3\"; exec 3<&-; wait $!",
            "sh", opts_.shell, command, pid_file(container, id)};
}

// `kill -KILL -PGID`: dash's and BusyBox's kill take no `--`.
std::vector<std::string> LocalDockerSandbox::process_kill_argv(const std::string& container, int id) const {
    return {opts_.docker, "exec", container, "sh", "-c", "kill -KILL -\"$(cat \"$1\")\"", "sh",
            pid_file(container, id)};
}

std::unique_ptr<SessionBackend> LocalDockerSandbox::make_backend(const std::string& session_id) {
    return std::make_unique<DockerBackend>(*this, session_id);
}

}  // namespace bashkit::sandbox
