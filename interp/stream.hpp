// Byte streams: what file descriptors of the virtual shell refer to.
//
// A stream is shared (std::shared_ptr) by every fd table entry that refers to it, as a file description is
// shared by dup'ed descriptors; the last reference going away closes it. Streams are used from several
// threads at once (pipeline stages, background jobs), so every implementation is thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <random>
#include <string>
#include <string_view>

#include "interp/governor.hpp"

namespace bashkit::interp {

class CancelToken;

// The outcome of a read or write: bytes moved, and an errno-like code (0, EPIPE, EBADF, ECANCELED, EIO,
// ENOSPC, EFBIG, EISDIR). A read returns n == 0 and err == 0 at end of input.
struct IoResult {
    size_t n = 0;
    int err = 0;
    bool ok() const { return err == 0; }
};

class ByteStream {
public:
    virtual ~ByteStream() = default;
    virtual bool readable() const { return false; }
    virtual bool writable() const { return false; }
    // Reads at most n bytes (at least one unless at end or on error); blocks on a pipe until data or EOF.
    virtual IoResult read(char* buf, size_t n);
    // Writes all of data (blocking on a full pipe) or fails; a short count comes with an error.
    virtual IoResult write(std::string_view data);
    // Reads up to and including `delim` (or up to max bytes, or to EOF), appending to out. Streams that can
    // look ahead override this so that `read` consumes exactly one line and leaves the rest.
    virtual IoResult read_until(char delim, std::string& out, size_t max = SIZE_MAX);
    // Waits until a read would not block (data or end of input) or the deadline passes; false on timeout.
    // Streams that never block say yes at once.
    virtual bool wait_readable(std::chrono::steady_clock::time_point deadline) {
        (void)deadline;
        return true;
    }
    // Ends this end of the stream early: a writer signals EOF, a reader makes writers fail with EPIPE.
    // Destruction closes too.
    virtual void close() {}
    // Whether the stream is a terminal, for `test -t` (never, in the sandbox).
    virtual bool is_tty() const { return false; }
    // A name for messages and /proc-like introspection ("pipe", "/dev/null", a path).
    virtual std::string describe() const { return {}; }
    // The host file descriptor the stream reads or writes directly, or -1. Always -1 for the library's own
    // streams; only a front end's streams over its own stdin/stdout/stderr have one, so that a front end
    // running host programs (ShellOptions::external) can hand them the descriptor instead of copying bytes.
    virtual int host_fd() const { return -1; }
    // Puts bytes back at the front of a readable stream, to be read again before anything else; false
    // when the stream cannot (the bytes are then lost). For a front end that copied more of the input to a
    // host program than the program read: with a real pipe, the rest would have stayed for the next reader.
    virtual bool unread(std::string_view data) {
        (void)data;
        return false;
    }

    // Convenience: reads everything to EOF (at most max bytes).
    IoResult read_all(std::string& out, size_t max = SIZE_MAX);
};

using StreamPtr = std::shared_ptr<ByteStream>;

// Collects output in memory up to a byte cap; the rest is dropped and truncated() becomes true.
// Writes never fail (bash keeps running when its output is cut).
class StringSink : public ByteStream {
public:
    explicit StringSink(size_t cap = SIZE_MAX) : cap_(cap) {}
    // The bytes held are charged to budget (a command substitution's capture): past it, writes fail with
    // ENOMEM and over_budget() is true.
    StringSink(size_t cap, MemoryBudget* budget) : cap_(cap), charge_(budget) {}
    bool writable() const override { return true; }
    IoResult write(std::string_view data) override;
    std::string describe() const override { return "pipe"; }

    bool truncated() const;
    bool over_budget() const;
    std::string take();  // moves the collected bytes out and resets the sink
    std::string take(bool* truncated);  // the same, and whether bytes were dropped
    std::string str() const;
    size_t size() const;

private:
    mutable std::mutex mu_;
    std::string buf_;
    size_t cap_;
    bool truncated_ = false;
    bool over_budget_ = false;
    MemoryCharge charge_;
};

// Reads from a string (here-documents, here-strings, the stdin given to run()).
class StringSource : public ByteStream {
public:
    explicit StringSource(std::string data) : data_(std::move(data)) {}
    bool readable() const override { return true; }
    IoResult read(char* buf, size_t n) override;
    IoResult read_until(char delim, std::string& out, size_t max = SIZE_MAX) override;
    bool unread(std::string_view data) override;
    std::string describe() const override { return "pipe"; }

private:
    std::mutex mu_;
    std::string data_;
    size_t pos_ = 0;
};

// /dev/null: reads EOF, swallows writes.
class NullStream : public ByteStream {
public:
    bool readable() const override { return true; }
    bool writable() const override { return true; }
    IoResult read(char*, size_t) override { return {}; }
    IoResult write(std::string_view data) override { return {data.size(), 0}; }
    IoResult read_until(char, std::string&, size_t) override { return {}; }
    std::string describe() const override { return "/dev/null"; }
};

// /dev/zero: endless zero bytes; swallows writes. Checks the cancel token so a reader that never stops
// (`cat /dev/zero`) still ends with the run.
class ZeroStream : public ByteStream {
public:
    explicit ZeroStream(const CancelToken* cancel = nullptr) : cancel_(cancel) {}
    bool readable() const override { return true; }
    bool writable() const override { return true; }
    IoResult read(char* buf, size_t n) override;
    IoResult write(std::string_view data) override { return {data.size(), 0}; }
    std::string describe() const override { return "/dev/zero"; }

private:
    const CancelToken* cancel_;
};

// /dev/urandom: pseudo-random bytes from a generator seeded per stream (never the host's device).
class RandomStream : public ByteStream {
public:
    explicit RandomStream(uint64_t seed, const CancelToken* cancel = nullptr) : rng_(seed), cancel_(cancel) {}
    bool readable() const override { return true; }
    bool writable() const override { return true; }
    IoResult read(char* buf, size_t n) override;
    IoResult write(std::string_view data) override { return {data.size(), 0}; }
    std::string describe() const override { return "/dev/urandom"; }

private:
    std::mutex mu_;
    std::mt19937_64 rng_;
    const CancelToken* cancel_;
};

// A bounded in-process pipe. make_pipe() returns the two ends; each end closes when its last reference
// goes away (or on close()). A reader blocks until data or until every writer is gone (EOF); a writer
// blocks while the buffer is full and fails with EPIPE once the reader is gone. Both give up with
// ECANCELED when the cancel token fires.
struct PipeCore;

class PipeReader : public ByteStream {
public:
    explicit PipeReader(std::shared_ptr<PipeCore> core) : core_(std::move(core)) {}
    ~PipeReader() override;
    bool readable() const override { return true; }
    IoResult read(char* buf, size_t n) override;
    IoResult read_until(char delim, std::string& out, size_t max = SIZE_MAX) override;
    bool wait_readable(std::chrono::steady_clock::time_point deadline) override;
    bool unread(std::string_view data) override;
    void close() override;
    std::string describe() const override { return "pipe"; }

private:
    std::shared_ptr<PipeCore> core_;
    bool closed_ = false;
};

class PipeWriter : public ByteStream {
public:
    explicit PipeWriter(std::shared_ptr<PipeCore> core) : core_(std::move(core)) {}
    ~PipeWriter() override;
    bool writable() const override { return true; }
    IoResult write(std::string_view data) override;
    void close() override;
    std::string describe() const override { return "pipe"; }

private:
    std::shared_ptr<PipeCore> core_;
    bool closed_ = false;
};

struct PipeEnds {
    std::shared_ptr<PipeReader> reader;
    std::shared_ptr<PipeWriter> writer;
};

inline constexpr size_t kPipeCapacity = 64 * 1024;

PipeEnds make_pipe(const CancelToken* cancel, size_t capacity = kPipeCapacity);

// A stream that forwards to another one the shell does not own: what the fds of a script run through the
// embedder's API (`run_script`, `run_command`) refer to, since the caller's streams outlive only the call.
// A background job started by that script can hold the fd longer than the call, so the caller revokes the
// borrow on return (`BorrowedStreams` below): later operations fail with EBADF, as on a closed descriptor,
// instead of reaching a stream that no longer exists. revoke() waits for an operation in flight.
class BorrowedStream : public ByteStream {
public:
    explicit BorrowedStream(ByteStream& target) : t_(&target) {}
    void revoke() {
        std::unique_lock lock(mu_);
        t_ = nullptr;
    }
    bool readable() const override { return with(false, [](ByteStream& t) { return t.readable(); }); }
    bool writable() const override { return with(false, [](ByteStream& t) { return t.writable(); }); }
    IoResult read(char* buf, size_t n) override { return with(kBad, [&](ByteStream& t) { return t.read(buf, n); }); }
    IoResult write(std::string_view data) override {
        return with(kBad, [&](ByteStream& t) { return t.write(data); });
    }
    IoResult read_until(char delim, std::string& out, size_t max) override {
        return with(kBad, [&](ByteStream& t) { return t.read_until(delim, out, max); });
    }
    bool wait_readable(std::chrono::steady_clock::time_point deadline) override {
        return with(true, [&](ByteStream& t) { return t.wait_readable(deadline); });
    }
    std::string describe() const override { return with(std::string(), [](ByteStream& t) { return t.describe(); }); }
    int host_fd() const override { return with(-1, [](ByteStream& t) { return t.host_fd(); }); }
    bool unread(std::string_view data) override { return with(false, [&](ByteStream& t) { return t.unread(data); }); }

private:
    static constexpr IoResult kBad{0, 9 /* EBADF */};
    template <class R, class F>
    R with(R revoked, F&& f) const {
        std::shared_lock lock(mu_);
        return t_ ? static_cast<R>(f(*t_)) : revoked;
    }
    mutable std::shared_mutex mu_;
    ByteStream* t_;
};

// The three borrowed fds of one API call, revoked when the call returns.
struct BorrowedStreams {
    BorrowedStreams(ByteStream& in, ByteStream& out, ByteStream& err)
        : in(std::make_shared<BorrowedStream>(in)),
          out(std::make_shared<BorrowedStream>(out)),
          err(std::make_shared<BorrowedStream>(err)) {}
    ~BorrowedStreams() {
        in->revoke();
        out->revoke();
        err->revoke();
    }
    BorrowedStreams(const BorrowedStreams&) = delete;
    BorrowedStreams& operator=(const BorrowedStreams&) = delete;
    std::shared_ptr<BorrowedStream> in, out, err;
};

// A closed or never-opened descriptor: every operation fails with EBADF.
class BadStream : public ByteStream {
public:
    IoResult read(char*, size_t) override { return {0, 9 /* EBADF */}; }
    IoResult write(std::string_view) override { return {0, 9 /* EBADF */}; }
    IoResult read_until(char, std::string&, size_t) override { return {0, 9 /* EBADF */}; }
};

}  // namespace bashkit::interp
