#include "cli/host_exec.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "interp/external_fds.hpp"

namespace bashkit::cli {
namespace {

using namespace std::chrono_literals;

// Whether the #! line of the file names a shell (bashkit runs those scripts itself).
bool names_a_shell(const std::string& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return false;  // posix_spawn reports the error
    char buf[256];
    ssize_t n;
    do {
        n = ::read(fd, buf, sizeof buf);
    } while (n < 0 && errno == EINTR);
    ::close(fd);
    std::string_view head(buf, n > 0 ? size_t(n) : 0);
    if (!head.starts_with("#!")) return false;
    std::string_view line = head.substr(2, head.find('\n') == std::string_view::npos ? std::string_view::npos
                                                                                      : head.find('\n') - 2);
    auto skip_blanks = [](std::string_view& s) {
        while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    };
    auto word = [&](std::string_view& s) {
        skip_blanks(s);
        std::string_view w = s.substr(0, s.find_first_of(" \t\r"));
        s.remove_prefix(w.size());
        return w;
    };
    auto base = [](std::string_view w) {
        size_t slash = w.rfind('/');
        return slash == std::string_view::npos ? w : w.substr(slash + 1);
    };
    std::string_view interp = base(word(line));
    if (interp == "env") {
        std::string_view w;
        do {
            w = word(line);
        } while (w.starts_with("-"));  // env -S, env -i ...
        interp = base(w);
    }
    return interp == "bash" || interp == "sh" || interp == "dash" || interp == "bashkit";
}

void block_sigpipe() {
    // A thread writing to a program that has exited gets EPIPE instead of killing the CLI. SIGPIPE is sent
    // to the thread that wrote, so blocking it here is enough.
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

// stream -> program. The pipe is non-blocking; `wake` is signalled when the program has exited. Whatever
// was taken from the stream but not written is left in `pending` for the caller to put back.
void pump_in(interp::ByteStream& in, int fd, int wake, const std::atomic<bool>& exited, std::string& pending) {
    block_sigpipe();
    std::vector<char> buf(64 * 1024);
    auto slice = 1ms;  // how long to wait for input before looking at `exited` again (grows while idle)
    while (!exited.load()) {
        if (pending.empty()) {
            // Not blocking in read() while the program may exit: a stream that never ends must not hold us.
            if (!in.wait_readable(std::chrono::steady_clock::now() + slice)) {
                if (slice < 50ms) slice *= 2;
                continue;
            }
            slice = 1ms;
            if (exited.load()) break;
            interp::IoResult r = in.read(buf.data(), buf.size());
            if (r.n == 0) break;  // end of input (or an error): the program sees EOF
            pending.assign(buf.data(), r.n);
        }
        pollfd p[2] = {{fd, POLLOUT, 0}, {wake, POLLIN, 0}};
        if (::poll(p, 2, -1) < 0 && errno != EINTR) break;
        if (exited.load()) break;
        ssize_t w = ::write(fd, pending.data(), pending.size());
        if (w > 0) {
            pending.erase(0, size_t(w));
        } else if (w < 0 && errno != EAGAIN && errno != EINTR) {
            pending.clear();
            break;
        }
    }
    ::close(fd);
}

// program -> stream: copies until every writer of the pipe is gone. When the stream refuses bytes (its
// reader left), the pipe is closed so the program gets EPIPE/SIGPIPE like a program writing to a pipe.
void pump_out(int fd, interp::ByteStream& out) {
    block_sigpipe();
    std::vector<char> buf(64 * 1024);
    for (;;) {
        ssize_t n = ::read(fd, buf.data(), buf.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        if (!out.write(std::string_view(buf.data(), size_t(n))).ok()) break;
    }
    ::close(fd);
}

int wait_child(pid_t pid, const interp::CancelToken& cancel) {
    int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    auto signalled_at = std::chrono::steady_clock::time_point{};
    bool termed = false, killed = false;
    auto nap = 1ms;
    for (;;) {
        int st = 0;
        pid_t r = ::waitpid(pid, &st, WNOHANG);
        if (r < 0 && errno == EINTR) continue;
        if (r == pid || r < 0) {
            if (pidfd >= 0) ::close(pidfd);
            if (r < 0) return 127;
            if (WIFEXITED(st)) return WEXITSTATUS(st);
            if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
            return 1;
        }
        if (cancel.cancelled()) {
            auto now = std::chrono::steady_clock::now();
            if (!termed) {
                ::kill(pid, SIGTERM);
                termed = true;
                signalled_at = now;
            } else if (!killed && now - signalled_at > 1s) {
                ::kill(pid, SIGKILL);
                killed = true;
            }
        }
        if (pidfd >= 0) {
            pollfd p{pidfd, POLLIN, 0};
            ::poll(&p, 1, 50);
        } else {
            std::this_thread::sleep_for(nap);
            if (nap < 50ms) nap *= 2;
        }
    }
}

// Owns host descriptors until they are handed on.
struct Fds {
    std::vector<int> fds;
    int keep(int fd) {
        fds.push_back(fd);
        return fd;
    }
    void close_all() {
        for (int fd : fds) ::close(fd);
        fds.clear();
    }
    ~Fds() { close_all(); }
};

}  // namespace

std::optional<int> run_host_program(const interp::ExternalCommand& cmd) {
    const std::string path(cmd.path);
    if (names_a_shell(path)) return std::nullopt;

    std::vector<std::string> args(cmd.argv.begin(), cmd.argv.end());
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> envs;
    for (const auto& [k, v] : cmd.env.entries()) envs.push_back(k + "=" + v);
    std::vector<char*> envp;
    for (auto& e : envs) envp.push_back(e.data());
    envp.push_back(nullptr);

    // The program's fds 0-2: the CLI's own descriptor, or one end of a pipe copied by a thread. Everything
    // made here is close-on-exec, so programs spawned at the same time by other pipeline stages never
    // inherit another program's pipe (which would keep it from seeing end of input).
    interp::ByteStream* streams[3] = {&cmd.in, &cmd.out, &cmd.err};
    Fds child_side;      // closed once the program has them
    int parent_side[3] = {-1, -1, -1};  // pumped: our end of the pipe
    int keep_read = -1;
    int child_fd[3] = {-1, -1, -1};
    for (int i = 0; i < 3; ++i) {
        if (i == 2 && streams[2] == streams[1] && parent_side[1] >= 0) {
            child_fd[2] = child_fd[1];  // 2>&1 into a pumped stream: one pipe keeps the order of the bytes
            continue;
        }
        int host = streams[i]->host_fd();
        if (host >= 0) {
            // A copy above 2, so that the dup2s below cannot overwrite one another's source.
            int copy = ::fcntl(host, F_DUPFD_CLOEXEC, 3);
            if (copy >= 0) {
                child_fd[i] = child_side.keep(copy);
                continue;
            }
        }
        int p[2];
        if (::pipe2(p, O_CLOEXEC) != 0) {
            int e = errno;
            for (int& fd : parent_side)
                if (fd >= 0) ::close(fd);
            if (keep_read >= 0) ::close(keep_read);
            cmd.err.write("bashkit: " + args[0] + ": " + std::strerror(e) + "\n");
            return 126;
        }
        child_fd[i] = child_side.keep(i == 0 ? p[0] : p[1]);
        parent_side[i] = i == 0 ? p[1] : p[0];
        if (i == 0) {
            // A copy of the program's end of its stdin pipe, to take back what it leaves unread.
            keep_read = ::fcntl(p[0], F_DUPFD_CLOEXEC, 3);
        }
    }

    // The shell's descriptors 3 and up (`3<<EOF`, `4>file`): a host file is passed as it is, any other stream
    // through a pipe pumped like 0-2. Their copies sit at 256 and up, above every target, so that no dup2
    // below overwrites the source of another.
    struct MoreFd {
        int target = -1, child = -1, parent = -1;
        bool in = false;
        interp::ByteStream* stream = nullptr;
        std::string pending;
    };
    std::vector<MoreFd> more;
    const interp::ExternalFds more_fds = interp::external_more_fds();
    more.reserve(more_fds.size());
    for (const auto& [target, stream] : more_fds) {
        if (target < 3 || target >= 256 || !stream) continue;
        MoreFd m;
        m.target = target;
        m.stream = stream;
        // `5>&1` into a pumped stream: the same pipe as that descriptor, so the bytes keep their order.
        int shared = -1;
        for (int i = 1; i < 3 && shared < 0; ++i)
            if (streams[i] == stream && parent_side[i] >= 0) shared = child_fd[i];
        for (const MoreFd& o : more)
            if (shared < 0 && o.stream == stream && o.parent >= 0 && !o.in) shared = o.child;
        if (shared >= 0) {
            m.child = shared;
        } else if (int host = stream->host_fd(); host >= 0) {
            int copy = ::fcntl(host, F_DUPFD_CLOEXEC, 256);
            if (copy < 0) continue;
            m.child = child_side.keep(copy);
        } else if (stream->readable() || stream->writable()) {
            int p[2];
            if (::pipe2(p, O_CLOEXEC) != 0) continue;
            m.in = stream->readable();
            int child = m.in ? p[0] : p[1];
            m.parent = m.in ? p[1] : p[0];
            int high = ::fcntl(child, F_DUPFD_CLOEXEC, 256);
            ::close(child);
            if (high < 0) {
                ::close(m.parent);
                continue;
            }
            m.child = child_side.keep(high);
        } else {
            continue;
        }
        more.push_back(std::move(m));
    }

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    for (int i = 0; i < 3; ++i) posix_spawn_file_actions_adddup2(&fa, child_fd[i], i);
    for (const MoreFd& m : more) posix_spawn_file_actions_adddup2(&fa, m.child, m.target);
    const std::string cwd(cmd.cwd);
    posix_spawn_file_actions_addchdir_np(&fa, cwd.c_str());
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    for (int sig : {SIGPIPE, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGCHLD, SIGTSTP, SIGTTIN, SIGTTOU, SIGUSR1, SIGUSR2})
        sigaddset(&defaults, sig);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    pid_t pid = -1;
    int rc = ::posix_spawn(&pid, path.c_str(), &fa, &attr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    child_side.close_all();

    if (rc != 0) {
        for (int& fd : parent_side)
            if (fd >= 0) ::close(fd);
        for (MoreFd& m : more)
            if (m.parent >= 0) ::close(m.parent);
        if (keep_read >= 0) ::close(keep_read);
        if (rc == ENOEXEC) return std::nullopt;  // no #! line: a shell script, run by the interpreter
        cmd.err.write("bashkit: " + args[0] + ": " + std::strerror(rc) + "\n");
        return rc == ENOENT ? 127 : 126;
    }

    std::atomic<bool> exited{false};
    std::thread in_pump;
    std::string pending;
    int wake = -1;
    if (parent_side[0] >= 0) {
        wake = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        ::fcntl(parent_side[0], F_SETFL, ::fcntl(parent_side[0], F_GETFL) | O_NONBLOCK);
        in_pump = std::thread(pump_in, std::ref(cmd.in), parent_side[0], wake, std::cref(exited), std::ref(pending));
    }
    std::vector<std::thread> out_pumps;
    for (int i = 1; i < 3; ++i)
        if (parent_side[i] >= 0) out_pumps.emplace_back(pump_out, parent_side[i], std::ref(*streams[i]));
    std::vector<std::thread> more_in_pumps;
    int more_wake = -1;
    for (MoreFd& m : more) {
        if (m.parent < 0) continue;
        if (!m.in) {
            out_pumps.emplace_back(pump_out, m.parent, std::ref(*m.stream));
            continue;
        }
        if (more_wake < 0) more_wake = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        ::fcntl(m.parent, F_SETFL, ::fcntl(m.parent, F_GETFL) | O_NONBLOCK);
        more_in_pumps.emplace_back(pump_in, std::ref(*m.stream), m.parent, more_wake, std::cref(exited),
                                   std::ref(m.pending));
    }

    int status = wait_child(pid, cmd.cancel);
    exited.store(true);
    if (!more_in_pumps.empty()) {
        uint64_t one = 1;
        (void)!::write(more_wake, &one, sizeof one);
        for (auto& t : more_in_pumps) t.join();
        ::close(more_wake);
    }
    if (in_pump.joinable()) {
        uint64_t one = 1;
        (void)!::write(wake, &one, sizeof one);
        in_pump.join();
        // What the program did not read goes back to the stream, as it would stay in a real pipe.
        std::string left;
        if (keep_read >= 0) {
            ::fcntl(keep_read, F_SETFL, ::fcntl(keep_read, F_GETFL) | O_NONBLOCK);
            char b[65536];
            ssize_t n;
            while ((n = ::read(keep_read, b, sizeof b)) > 0) left.append(b, size_t(n));
            ::close(keep_read);
        }
        left += pending;
        if (!left.empty()) (void)cmd.in.unread(left);
        ::close(wake);
    }
    for (auto& t : out_pumps) t.join();
    return status;
}

}  // namespace bashkit::cli
