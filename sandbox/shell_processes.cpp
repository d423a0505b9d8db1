#include "sandbox/shell_processes.hpp"

#include <cerrno>
#include <condition_variable>
#include <thread>
#include <utility>

#include "interp/stream.hpp"

namespace bashkit::sandbox {

// One process: its shell, its thread, its input queue and its output, all under mu.
struct ShellProcesses::Proc {
    std::mutex mu;
    std::condition_variable input_ready;
    std::string input;          // written, not yet read by the shell
    bool input_closed = false;  // write(close_stdin) or kill(): the shell reads EOF after `input`
    std::string out, err;
    size_t cap = 0;
    bool running = true;
    bool killed = false;
    int exit_code = 0;
    std::unique_ptr<ConfiguredShell> shell;
    std::thread thread;

    void append(std::string Proc::*dst, std::string_view data) {
        std::lock_guard lock(mu);
        std::string& d = this->*dst;
        if (data.size() >= cap) {
            d.assign(data.substr(data.size() - cap));
            return;
        }
        if (d.size() + data.size() > cap) d.erase(0, d.size() + data.size() - cap);
        d.append(data);
    }
};

namespace {

using interp::IoResult;

// The process's stdin: what write() queued, then EOF once the input is closed.
class InputStream final : public interp::ByteStream {
public:
    explicit InputStream(std::shared_ptr<ShellProcesses::Proc> p) : p_(std::move(p)) {}
    bool readable() const override { return true; }
    IoResult read(char* buf, size_t n) override {
        std::unique_lock lock(p_->mu);
        p_->input_ready.wait(lock, [&] { return !p_->input.empty() || p_->input_closed; });
        size_t k = std::min(n, p_->input.size());
        p_->input.copy(buf, k);
        p_->input.erase(0, k);
        return {k, 0};
    }
    bool wait_readable(std::chrono::steady_clock::time_point deadline) override {
        std::unique_lock lock(p_->mu);
        return p_->input_ready.wait_until(lock, deadline, [&] { return !p_->input.empty() || p_->input_closed; });
    }
    std::string describe() const override { return "pipe"; }

private:
    std::shared_ptr<ShellProcesses::Proc> p_;
};

// stdout or stderr of the process: kept in the process's buffer until read.
class OutputStream final : public interp::ByteStream {
public:
    OutputStream(std::shared_ptr<ShellProcesses::Proc> p, std::string ShellProcesses::Proc::*dst)
        : p_(std::move(p)), dst_(dst) {}
    bool writable() const override { return true; }
    IoResult write(std::string_view data) override {
        p_->append(dst_, data);
        return {data.size(), 0};
    }
    std::string describe() const override { return "pipe"; }

private:
    std::shared_ptr<ShellProcesses::Proc> p_;
    std::string ShellProcesses::Proc::*dst_;
};

}  // namespace

ShellProcesses::ShellProcesses(MakeShell make_shell) : make_shell_(std::move(make_shell)) {}

ShellProcesses::~ShellProcesses() { kill_all(); }

ProcessTools::Started ShellProcesses::start(const std::string& command) {
    try {
        {
            std::lock_guard lock(mu_);
            size_t running = 0;
            for (const auto& [id, p] : procs_) {
                std::lock_guard plock(p->mu);
                running += p->running;
            }
            if (running >= max_running)
                return {0, "too many background processes (" + std::to_string(max_running) +
                               " running): kill one or wait for one to end"};
        }
        auto p = std::make_shared<Proc>();
        p->cap = max_buffer_bytes;
        p->shell = make_shell_();
        p->shell->shell().set_timeout(std::chrono::milliseconds(0));
        int id;
        {
            std::lock_guard lock(mu_);
            id = next_id_++;
            procs_[id] = p;
        }
        // A process whose thread cannot start leaves the table again (kill() would wait for it to end).
        try {
            p->thread = std::thread([p, command] {
                int status = 1;
                // A thread entry: nothing may leave it (a failure's message is dropped when it cannot be kept).
                try {
                    InputStream in(p);
                    OutputStream out(p, &Proc::out), err(p, &Proc::err);
                    status = p->shell->shell().run(command, in, out, err);
                } catch (const std::exception& e) {
                    try {
                        p->append(&Proc::err, std::string("bashkit: ") + e.what() + "\n");
                    } catch (...) {
                    }
                } catch (...) {
                }
                try {  // nothing may leave the thread, a failed lock included
                    std::lock_guard lock(p->mu);
                    p->running = false;
                    p->exit_code = p->killed ? 137 : status;
                    p->input_ready.notify_all();
                } catch (...) {
                }
            });
        } catch (...) {
            std::lock_guard lock(mu_);
            procs_.erase(id);
            throw;
        }
        return {id, {}};
    } catch (const std::exception& e) {
        return {0, std::string("cannot start the process: ") + e.what()};
    }
}

std::shared_ptr<ShellProcesses::Proc> ShellProcesses::find(int id) {
    std::lock_guard lock(mu_);
    auto it = procs_.find(id);
    return it == procs_.end() ? nullptr : it->second;
}

ProcessTools::Output ShellProcesses::read(int id) {
    auto p = find(id);
    return p ? take_output(*p) : Output{};
}

std::optional<std::string> ShellProcesses::write(int id, const std::string& data, bool close_stdin) {
    auto p = find(id);
    if (!p) return "no process " + std::to_string(id);
    std::lock_guard lock(p->mu);
    if (p->input_closed) return "the input of process " + std::to_string(id) + " is closed";
    if (!p->running) return "write: Broken pipe";
    if (p->input.size() + data.size() > p->cap)
        return "write: the process has not read its input: more than " + std::to_string(p->cap) + " bytes are waiting";
    p->input += data;
    if (close_stdin) p->input_closed = true;
    p->input_ready.notify_all();
    return std::nullopt;
}

ProcessTools::Output ShellProcesses::kill(int id) {
    auto p = find(id);
    if (!p) return {};
    {
        std::lock_guard lock(p->mu);
        if (p->running) p->killed = true;
        p->input_closed = true;
        p->input_ready.notify_all();
    }
    // A cancel() that comes before the shell's run starts is reset by it: cancel again until the run ends.
    for (;;) {
        p->shell->shell().cancel();
        std::unique_lock lock(p->mu);
        if (p->input_ready.wait_for(lock, std::chrono::milliseconds(20), [&] { return !p->running; })) break;
    }
    {
        std::lock_guard lock(join_mu_);  // one joiner at a time
        if (p->thread.joinable()) p->thread.join();
    }
    return read(id);
}

void ShellProcesses::kill_all() {
    std::vector<int> ids;
    {
        std::lock_guard lock(mu_);
        for (const auto& [id, p] : procs_) ids.push_back(id);
    }
    for (int id : ids) (void)kill(id);
}

}  // namespace bashkit::sandbox
