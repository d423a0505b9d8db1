#include "sandbox/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

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

}  // namespace

ProcessResult run_process(const ProcessOptions& o) {
    ProcessResult r;
    if (o.argv.empty()) {
        r.started = false;
        r.exit_code = 127;
        r.err = "run_process: empty argv";
        return r;
    }
    int in[2], out[2], err[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0) {
        r.started = false;
        r.exit_code = 127;
        r.err = std::string("pipe: ") + std::strerror(errno);
        return r;
    }
    Fd in_w{in[1]}, out_r{out[0]}, err_r{err[0]};
    {
        Fd in_r{in[0]}, out_w{out[1]}, err_w{err[1]};
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, in[0], 0);
        posix_spawn_file_actions_adddup2(&fa, out[1], 1);
        posix_spawn_file_actions_adddup2(&fa, err[1], 2);
        if (!o.cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, o.cwd.c_str());
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
        for (const auto& a : o.argv) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        pid_t pid = -1;
        int rc = posix_spawnp(&pid, argv[0], &fa, &attr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&fa);
        posix_spawnattr_destroy(&attr);
        if (rc != 0) {
            r.started = false;
            r.exit_code = 127;
            r.err = o.argv[0] + ": " + std::strerror(rc);
            return r;
        }
        // Children's ends close here.
        in_r.reset();
        out_w.reset();
        err_w.reset();

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
                if (idx < 0 || !(fds[idx].revents & (POLLIN | POLLHUP | POLLERR))) return;
                ssize_t k = ::read(fd.fd, buf, sizeof buf);
                if (k <= 0) {
                    if (k < 0 && (errno == EINTR || errno == EAGAIN)) return;
                    fd.reset();
                    return;
                }
                size_t room = o.max_output_bytes > dst.size() ? o.max_output_bytes - dst.size() : 0;
                dst.append(buf, std::min(room, size_t(k)));
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
        if (r.timed_out) {
            r.exit_code = 124;
        } else if (WIFEXITED(status)) {
            r.exit_code = WEXITSTATUS(status);
        } else if (WIFSIGNALED(status)) {
            r.exit_code = 128 + WTERMSIG(status);
        }
    }
    return r;
}

}  // namespace bashkit::sandbox
