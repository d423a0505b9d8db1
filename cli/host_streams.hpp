// ByteStreams over the CLI's own file descriptors. Only the front end touches the host like this; the
// library underneath reaches the world through CommandContext alone.
#pragma once

#include <atomic>
#include <algorithm>
#include <cstdint>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <string_view>

#include "interp/stream.hpp"

namespace bashkit::cli {

class FdSink final : public interp::ByteStream {
public:
    // tty: whether `test -t` may report a terminal (only outside the sandbox: --host).
    // cap: bytes written at most (--max-output); what passes it is dropped, as the library's result drops it.
    explicit FdSink(int fd, bool tty = false, size_t cap = SIZE_MAX) : fd_(fd), tty_(tty), cap_(cap) {}
    bool writable() const override { return true; }
    int host_fd() const override { return fd_; }
    bool is_tty() const override { return tty_ && ::isatty(fd_) == 1; }
    interp::IoResult write(std::string_view data) override {
        if (cap_ != SIZE_MAX) {
            size_t whole = data.size();
            size_t room = cap_ - std::min(cap_, written_.load());
            if (room == 0) return {whole, 0};
            data = data.substr(0, std::min(room, data.size()));
            written_ += data.size();
            interp::IoResult r = write_all(data);
            return r.ok() ? interp::IoResult{whole, 0} : r;
        }
        return write_all(data);
    }
    std::string describe() const override { return fd_ == 1 ? "/dev/stdout" : "/dev/stderr"; }

private:
    interp::IoResult write_all(std::string_view data) {
        size_t done = 0;
        while (done < data.size()) {
            ssize_t n = ::write(fd_, data.data() + done, data.size() - done);
            if (n < 0) {
                if (errno == EINTR) continue;
                return {done, errno};
            }
            done += size_t(n);
        }
        return {done, 0};
    }
    int fd_;
    bool tty_;
    size_t cap_;
    std::atomic<size_t> written_{0};
};

// Unbuffered reads, so a script read from stdin line by line leaves the rest for its commands.
class FdSource final : public interp::ByteStream {
public:
    explicit FdSource(int fd, bool tty = false) : fd_(fd), tty_(tty) {}
    bool readable() const override { return true; }
    int host_fd() const override { return fd_; }
    bool is_tty() const override { return tty_ && ::isatty(fd_) == 1; }
    interp::IoResult read(char* buf, size_t n) override {
        for (;;) {
            ssize_t r = ::read(fd_, buf, n);
            if (r < 0 && errno == EINTR) continue;
            if (r < 0) return {0, errno};
            return {size_t(r), 0};
        }
    }
    std::string describe() const override { return "/dev/stdin"; }

private:
    int fd_;
    bool tty_;
};

}  // namespace bashkit::cli
