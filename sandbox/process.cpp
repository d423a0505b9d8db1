#include "sandbox/process.hpp"
#include "sandbox/tools.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>
#include <utility>

extern char** environ;

namespace bashkit::sandbox {

std::string shell_quote(const std::string& s) {
    bool plain = !s.empty();
    for (char c : s) {
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  std::strchr("@%+=:,./-_", c) != nullptr;
        if (!ok || c == '\0') plain = false;
    }
    if (plain) return s;
    std::string out = "'";
    for (char c : s) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    return out + "'";
}

namespace {

using Clock = std::chrono::steady_clock;

struct Fd {
    int fd = -1;
    ~Fd() { reset(); }
    void reset() {
        if (fd >= 0) ::close(fd);
        fd = -1;
    }
};

// Reads what poll() reported ready on fds[idx] into buf; closes fd at end of file or on a hard error.
// Returns the bytes read (0 when there was nothing, or idx < 0).
size_t read_ready(const pollfd* fds, int idx, Fd& fd, char* buf, size_t n) {
    if (idx < 0 || !(fds[idx].revents & (POLLIN | POLLHUP | POLLERR))) return 0;
    ssize_t k = ::read(fd.fd, buf, n);
    if (k > 0) return size_t(k);
    if (!(k < 0 && (errno == EINTR || errno == EAGAIN))) fd.reset();
    return 0;
}

// A waitpid() status as a shell status: the exit code, or 128 + the signal.
int shell_status(int status) {
    return WIFEXITED(status) ? WEXITSTATUS(status) : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
}

}  // namespace

namespace {

// Starts argv with three pipes, in a new process group. On success the caller owns pid and the parent ends.
struct Spawned {
    pid_t pid = -1;
    int in = -1, out = -1, err = -1;
};

std::optional<Spawned> spawn_piped(const std::vector<std::string>& args, const std::string& cwd, std::string& error) {
    if (args.empty()) {
        error = "run_process: empty argv";
        return std::nullopt;
    }
    int in[2], out[2], err[2];
    if (::pipe2(in, O_CLOEXEC) != 0) {
        error = std::string("pipe: ") + std::strerror(errno);
        return std::nullopt;
    }
    Fd in_r{in[0]}, in_w{in[1]};
    if (::pipe2(out, O_CLOEXEC) != 0) {
        error = std::string("pipe: ") + std::strerror(errno);
        return std::nullopt;
    }
    Fd out_r{out[0]}, out_w{out[1]};
    if (::pipe2(err, O_CLOEXEC) != 0) {
        error = std::string("pipe: ") + std::strerror(errno);
        return std::nullopt;
    }
    Fd err_r{err[0]}, err_w{err[1]};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err[1], 2);
    if (!cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, cwd.c_str());
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    pid_t pid = -1;
    int rc = posix_spawnp(&pid, argv[0], &fa, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) {
        error = args[0] + ": " + std::strerror(rc);
        return std::nullopt;
    }
    Spawned s;
    s.pid = pid;
    s.in = std::exchange(in_w.fd, -1);
    s.out = std::exchange(out_r.fd, -1);
    s.err = std::exchange(err_r.fd, -1);
    return s;
}

}  // namespace

ProcessResult run_process(const ProcessOptions& o) { return run_process(o, ProcessOutputFn{}); }

ProcessResult run_process(const ProcessOptions& o, const ProcessOutputFn& on_output) {
    ProcessResult r;
    std::string error;
    auto sp = spawn_piped(o.argv, o.cwd, error);
    if (!sp) {
        r.started = false;
        r.exit_code = 127;
        r.err = error;
        return r;
    }
    pid_t pid = sp->pid;
    Fd in_w{sp->in}, out_r{sp->out}, err_r{sp->err};
    {

        ::fcntl(in_w.fd, F_SETFL, O_NONBLOCK);
        if (o.stdin_data.empty()) in_w.reset();
        size_t written = 0;
        auto deadline = o.timeout_seconds ? Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                               std::chrono::duration<double>(*o.timeout_seconds))
                                          : Clock::time_point::max();
        constexpr auto never = Clock::time_point::max();
        Clock::time_point kill_at = never;      // when SIGKILL follows SIGTERM
        Clock::time_point drain_until = never;  // after the program ended or was killed
        bool exited = false;
        int status = 0;
        char buf[65536];
        while (!exited || out_r.fd >= 0 || err_r.fd >= 0) {
            pollfd fds[3];
            int n = 0;
            int idx_out = -1, idx_err = -1, idx_in = -1;
            if (out_r.fd >= 0) { fds[n] = {out_r.fd, POLLIN, 0}; idx_out = n++; }
            if (err_r.fd >= 0) { fds[n] = {err_r.fd, POLLIN, 0}; idx_err = n++; }
            if (in_w.fd >= 0) { fds[n] = {in_w.fd, POLLOUT, 0}; idx_in = n++; }
            auto now = Clock::now();
            if (!r.timed_out && now >= deadline) {
                r.timed_out = true;
                ::kill(-pid, o.kill_grace_seconds > 0 ? SIGTERM : SIGKILL);
                if (o.kill_grace_seconds > 0)
                    kill_at = now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.kill_grace_seconds));
                else
                    drain_until = now + std::chrono::seconds(1);
            }
            if (kill_at != never && now >= kill_at) {
                ::kill(-pid, SIGKILL);
                kill_at = never;
                drain_until = now + std::chrono::seconds(1);
            }
            if (!exited) {
                pid_t w = ::waitpid(pid, &status, WNOHANG);
                if (w == pid) {
                    exited = true;
                    // Background processes may keep the pipes open: read what is there, briefly.
                    if (drain_until == never) drain_until = now + std::chrono::milliseconds(300);
                }
            }
            if (drain_until != never && now >= drain_until) break;
            int wait_ms = 50;
            if (exited) wait_ms = 10;
            int pr = ::poll(fds, nfds_t(n), wait_ms);
            if (pr < 0 && errno != EINTR) break;
            if (pr <= 0) continue;
            auto pump = [&](int idx, Fd& fd, std::string& dst) {
                size_t k = read_ready(fds, idx, fd, buf, sizeof buf);
                size_t room = o.max_output_bytes > dst.size() ? o.max_output_bytes - dst.size() : 0;
                dst.append(buf, std::min(room, k));
                if (k && on_output) on_output(&dst == &r.err, std::string_view(buf, k));
            };
            pump(idx_out, out_r, r.out);
            pump(idx_err, err_r, r.err);
            if (idx_in >= 0 && (fds[idx_in].revents & (POLLOUT | POLLERR | POLLHUP))) {
                if (fds[idx_in].revents & (POLLERR | POLLHUP)) {
                    in_w.reset();
                } else {
                    ssize_t k = ::write(in_w.fd, o.stdin_data.data() + written, o.stdin_data.size() - written);
                    if (k > 0) written += size_t(k);
                    if ((k < 0 && errno != EAGAIN && errno != EINTR) || written >= o.stdin_data.size()) in_w.reset();
                }
            }
        }
        in_w.reset();
        if (!exited) {
            if (r.timed_out) ::kill(-pid, SIGKILL);
            while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
            }
        }
        r.exit_code = r.timed_out ? 124 : shell_status(status);
    }
    return r;
}

// ------------------------------------------------------------------------------------------ ProcessTable

struct ProcessTable::Proc {
    pid_t pid = -1;
    int in = -1;
    std::mutex mu;
    std::string out, err;
    bool running = true;
    int exit_code = 0;
    std::thread reader;
    size_t cap = 0;
    std::function<void(int id)> kill_inside;
};

ProcessTable::~ProcessTable() { kill_all(); }

ProcessTable::Started ProcessTable::start(const std::vector<std::string>& argv, const std::string& cwd) {
    return start([&](int) { return argv; }, cwd, nullptr);
}

ProcessTable::Started ProcessTable::start(const std::function<std::vector<std::string>(int id)>& make_argv,
                                          const std::string& cwd, std::function<void(int id)> kill_inside) {
    int id;
    {
        std::lock_guard lock(mu_);
        id = next_id_++;
    }
    std::string error;
    auto sp = spawn_piped(make_argv(id), cwd, error);
    if (!sp) return {0, error};
    auto p = std::make_shared<Proc>();
    p->kill_inside = std::move(kill_inside);
    p->pid = sp->pid;
    p->in = sp->in;
    p->cap = max_buffer_bytes;
    int out = sp->out, err = sp->err;
    p->reader = std::thread([p, out, err] {
        Fd o{out}, e{err};
        char buf[65536];
        bool exited = false;
        int status = 0;
        Clock::time_point drain_until = Clock::time_point::max();
        while (!exited || o.fd >= 0 || e.fd >= 0) {
            if (!exited && ::waitpid(p->pid, &status, WNOHANG) == p->pid) {
                exited = true;
                drain_until = Clock::now() + std::chrono::milliseconds(300);
            }
            if (exited && Clock::now() >= drain_until) break;
            pollfd fds[2];
            int n = 0, io = -1, ie = -1;
            if (o.fd >= 0) { fds[n] = {o.fd, POLLIN, 0}; io = n++; }
            if (e.fd >= 0) { fds[n] = {e.fd, POLLIN, 0}; ie = n++; }
            int pr = ::poll(fds, nfds_t(n), 50);
            if (pr <= 0) continue;
            auto pump = [&](int idx, Fd& fd, std::string Proc::*dst) {
                size_t k = read_ready(fds, idx, fd, buf, sizeof buf);
                if (k == 0) return;
                std::lock_guard lock(p->mu);
                std::string& d = (*p).*dst;
                d.append(buf, k);
                if (d.size() > p->cap) d.erase(0, d.size() - p->cap);
            };
            // A thread entry: nothing may leave it. Output that cannot be kept (no memory) is dropped; the
            // process is still waited for below.
            try {
                pump(io, o, &Proc::out);
                pump(ie, e, &Proc::err);
            } catch (...) {
            }
        }
        if (!exited) {
            while (::waitpid(p->pid, &status, 0) < 0 && errno == EINTR) {
            }
        }
        try {  // nothing may leave the thread, a failed lock included
            std::lock_guard lock(p->mu);
            p->running = false;
            p->exit_code = shell_status(status);
        } catch (...) {
        }
    });
    std::lock_guard lock(mu_);
    procs_[id] = std::move(p);
    return {id, {}};
}

ProcessTable::Output ProcessTable::read(int id) {
    std::shared_ptr<Proc> p;
    {
        std::lock_guard lock(mu_);
        auto it = procs_.find(id);
        if (it == procs_.end()) return {};
        p = it->second;
    }
    return take_output(*p);
}

std::optional<std::string> ProcessTable::write(int id, const std::string& data, bool close_stdin) {
    std::shared_ptr<Proc> p;
    {
        std::lock_guard lock(mu_);
        auto it = procs_.find(id);
        if (it == procs_.end()) return "no process " + std::to_string(id);
        p = it->second;
    }
    std::lock_guard lock(p->mu);
    if (p->in < 0) return "the input of process " + std::to_string(id) + " is closed";
    // A process that closed its input gives EPIPE, not a SIGPIPE that would end the embedder.
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    size_t done = 0;
    std::optional<std::string> error;
    while (done < data.size()) {
        ssize_t k = ::write(p->in, data.data() + done, data.size() - done);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) {
            error = std::string("write: ") + std::strerror(errno);
            if (errno == EPIPE) {
                timespec zero{0, 0};
                (void)sigtimedwait(&pipe_set, nullptr, &zero);
            }
            break;
        }
        done += size_t(k);
    }
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    if (error) return error;
    if (close_stdin) {
        ::close(p->in);
        p->in = -1;
    }
    return std::nullopt;
}

bool ProcessTable::kill(int id) {
    std::shared_ptr<Proc> p;
    {
        std::lock_guard lock(mu_);
        auto it = procs_.find(id);
        if (it == procs_.end()) return false;
        p = it->second;
    }
    bool running;
    {
        std::lock_guard lock(p->mu);
        running = p->running;
    }
    // kill() runs from the destructor too: a failure to reach the program elsewhere (no memory to start the
    // command) must not leave it; the host process group is killed below whatever happens.
    if (running && p->kill_inside) {
        try {
            p->kill_inside(id);
        } catch (...) {
        }
    }
    {
        std::lock_guard lock(p->mu);
        if (p->running) ::kill(-p->pid, SIGKILL);
        if (p->in >= 0) {
            ::close(p->in);
            p->in = -1;
        }
    }
    std::lock_guard lock(mu_);  // one joiner at a time
    if (p->reader.joinable()) p->reader.join();
    return true;
}

void ProcessTable::kill_all() {
    std::vector<int> ids;
    {
        std::lock_guard lock(mu_);
        for (const auto& [id, p] : procs_) ids.push_back(id);
    }
    for (int id : ids) kill(id);
}

}  // namespace bashkit::sandbox

namespace bashkit::sandbox {

ProcessTools::Started HostProcessTools::start(const std::string& command) {
    if (!table) return {0, "this sandbox has no background processes"};
    ProcessTable::Started st;
    if (argv_for) {
        st = table->start([&](int id) { return argv_for(id, command); }, cwd, kill_inside);
    } else {
        std::vector<std::string> argv = shell;
        argv.push_back(command);
        st = table->start(argv, cwd);
    }
    return {st.id, st.error};
}

ProcessTools::Output HostProcessTools::read(int id) { return table ? table->read(id) : Output{}; }

std::optional<std::string> HostProcessTools::write(int id, const std::string& data, bool close_stdin) {
    if (!table) return "no process " + std::to_string(id);
    return table->write(id, data, close_stdin);
}

ProcessTools::Output HostProcessTools::kill(int id) {
    if (!table || !table->kill(id)) return {};
    return table->read(id);
}

}  // namespace bashkit::sandbox
