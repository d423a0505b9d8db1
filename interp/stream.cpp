#include "interp/stream.hpp"
#include "interp/stream_charge.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "interp/limits.hpp"

namespace bashkit::interp {

namespace {
// How often a blocked pipe end wakes up to look at the cancel token.
constexpr auto kCancelPoll = std::chrono::milliseconds(20);
}  // namespace

// ---------------------------------------------------------------- ByteStream defaults

IoResult ByteStream::read(char*, size_t) { return {0, EBADF}; }
IoResult ByteStream::write(std::string_view) { return {0, EBADF}; }

IoResult ByteStream::read_until(char delim, std::string& out, size_t max) {
    size_t got = 0;
    while (got < max) {
        char c;
        IoResult r = read(&c, 1);
        if (!r.ok()) return {got, r.err};
        if (r.n == 0) break;
        out.push_back(c);
        ++got;
        if (c == delim) break;
    }
    return {got, 0};
}

IoResult ByteStream::read_all(std::string& out, size_t max) {
    char buf[16384];
    size_t got = 0;
    while (got < max) {
        IoResult r = read(buf, std::min(sizeof buf, max - got));
        if (!r.ok()) return {got, r.err};
        if (r.n == 0) break;
        out.append(buf, r.n);
        got += r.n;
    }
    return {got, 0};
}

// ---------------------------------------------------------------- StringSink

namespace {
// Gives the system back the free memory of the process's malloc arenas. Called after freeing a large
// buffer that grew by doubling (a command substitution's capture): glibc raises its mmap threshold each time
// it frees a mapped block (up to 32 MiB), so the smaller steps of the next captures come from the arenas of
// their threads and stay there once freed; with fifty jobs capturing at once the process held half as much
// again as the budget.
inline void return_free_memory() noexcept {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

}  // namespace

IoResult StringSink::write(std::string_view data) {
    std::lock_guard lock(mu_);
    size_t room = cap_ > buf_.size() ? cap_ - buf_.size() : 0;
    size_t take = std::min(room, data.size());
    if (take && charge_.budget()) {
        // The buffer's capacity is what it holds of memory: it doubles as it grows, so charging only the
        // bytes let ten captures at half their capacity hold twice their budget.
        size_t need = buf_.size() + take;
        size_t capacity = need > buf_.capacity() ? std::max(need, 2 * buf_.capacity()) : buf_.capacity();
        // A regrowth holds the old buffer beside the new one while it copies: both are charged for that time.
        size_t during = capacity > buf_.capacity() ? capacity + buf_.capacity() : capacity;
        if (during > charge_.held() && !charge_.try_add(during - charge_.held())) {
            over_budget_ = truncated_ = true;
            return {0, ENOMEM};
        }
        size_t before = buf_.capacity();
        buf_.reserve(capacity);
        if (charge_.held() > capacity) charge_.sub(charge_.held() - capacity);
        if (before >= (4u << 20) && capacity > before) return_free_memory();
    }
    buf_.append(data.substr(0, take));
    if (take < data.size()) truncated_ = true;
    return {data.size(), 0};
}

bool StringSink::over_budget() const {
    std::lock_guard lock(mu_);
    return over_budget_;
}

bool StringSink::truncated() const {
    std::lock_guard lock(mu_);
    return truncated_;
}

std::string StringSink::take() { return take(nullptr); }

std::string StringSink::take(bool* truncated) {
    std::lock_guard lock(mu_);
    if (truncated) *truncated = truncated_;
    std::string out = std::move(buf_);
    buf_.clear();
    truncated_ = false;
    charge_.clear();  // the caller holds the bytes now
    return out;
}

std::string StringSink::str() const {
    std::lock_guard lock(mu_);
    return buf_;
}

size_t StringSink::size() const {
    std::lock_guard lock(mu_);
    return buf_.size();
}

// ---------------------------------------------------------------- StringSource

IoResult StringSource::read(char* buf, size_t n) {
    std::lock_guard lock(mu_);
    size_t k = std::min(n, data_.size() - pos_);
    if (k) std::memcpy(buf, data_.data() + pos_, k);
    pos_ += k;
    return {k, 0};
}

IoResult StringSource::read_until(char delim, std::string& out, size_t max) {
    std::lock_guard lock(mu_);
    size_t avail = std::min(max, data_.size() - pos_);
    const char* start = data_.data() + pos_;
    const void* hit = avail ? std::memchr(start, static_cast<unsigned char>(delim), avail) : nullptr;
    size_t k = hit ? static_cast<size_t>(static_cast<const char*>(hit) - start) + 1 : avail;
    out.append(start, k);
    pos_ += k;
    return {k, 0};
}

bool StringSource::unread(std::string_view data) {
    std::lock_guard lock(mu_);
    if (data.size() <= pos_ && std::string_view(data_).substr(pos_ - data.size(), data.size()) == data) {
        pos_ -= data.size();
    } else {
        data_ = std::string(data) + data_.substr(pos_);
        pos_ = 0;
    }
    return true;
}

// ---------------------------------------------------------------- /dev/zero, /dev/urandom

IoResult ZeroStream::read(char* buf, size_t n) {
    if (cancel_ && cancel_->cancelled()) return {0, ECANCELED};
    std::memset(buf, 0, n);
    return {n, 0};
}

IoResult RandomStream::read(char* buf, size_t n) {
    if (cancel_ && cancel_->cancelled()) return {0, ECANCELED};
    std::lock_guard lock(mu_);
    size_t i = 0;
    while (i < n) {
        uint64_t v = rng_();
        size_t k = std::min<size_t>(8, n - i);
        std::memcpy(buf + i, &v, k);
        i += k;
    }
    return {n, 0};
}

// ---------------------------------------------------------------- pipes

struct PipeCore {
    std::mutex mu;
    std::condition_variable can_read;
    std::condition_variable can_write;
    // The ring grows on demand up to `capacity` (what a writer may buffer before it waits, charged in full
    // from the start): most pipes carry a few bytes, and a 64 KiB buffer zeroed and freed per pipe cost a
    // pipeline its malloc trims and their TLB shootdowns.
    std::vector<char> ring;
    size_t capacity = 0;
    size_t head = 0;  // index of the first unread byte
    size_t size = 0;  // unread bytes
    int writers = 1;
    bool reader_open = true;
    bool touched = false;  // a byte was ever written or read
    const CancelToken* cancel = nullptr;
    MemoryCharge held;  // the ring's bytes, on the session's budget

    bool cancelled() const { return cancel && cancel->cancelled(); }

    // Copies up to n unread bytes out (or up to and including delim when delim >= 0). Lock held.
    size_t take(char* out, size_t n) {
        size_t k = std::min(n, size);
        if (k == 0) return 0;
        size_t cap = ring.size();
        size_t first = std::min(k, cap - head);
        std::memcpy(out, ring.data() + head, first);
        if (k > first) std::memcpy(out + first, ring.data(), k - first);
        head = (head + k) % cap;
        size -= k;
        touched = true;
        return k;
    }
    // The most a writer may buffer: the capacity, or more when unread() has put bytes back.
    size_t limit() const { return std::max(capacity, ring.size()); }
    // Grows the ring (keeping the unread bytes, from index 0) so that n more bytes fit, up to limit().
    void make_room(size_t n) {
        if (ring.size() - size >= n || ring.size() >= limit()) return;
        size_t want = std::min(limit(), std::max({size + n, 2 * ring.size(), size_t{4096}}));
        std::vector<char> bigger(want);
        size_t had = size;
        take(bigger.data(), had);
        ring = std::move(bigger);
        head = 0;
        size = had;
    }
    size_t put(const char* in, size_t n) {
        make_room(n);
        size_t cap = ring.size();
        size_t k = std::min(n, cap - size);
        size_t tail = (head + size) % cap;
        size_t first = std::min(k, cap - tail);
        std::memcpy(ring.data() + tail, in, first);
        if (k > first) std::memcpy(ring.data(), in + first, k - first);
        size += k;
        touched = true;
        return k;
    }
};

namespace {
PipeEnds make_pipe_on(const CancelToken* cancel, size_t capacity, MemoryBudget* budget) {
    auto core = std::make_shared<PipeCore>();
    capacity = std::max<size_t>(capacity, 1);
    core->held = MemoryCharge(budget);
    core->held.add(capacity);  // before allocating: throws MemoryLimitExceeded past the budget
    core->capacity = capacity;
    core->cancel = cancel;
    return {std::make_shared<PipeReader>(core), std::make_shared<PipeWriter>(core)};
}
}  // namespace

PipeEnds make_pipe(const CancelToken* cancel, size_t capacity) { return make_pipe_on(cancel, capacity, nullptr); }

PipeEnds make_charged_pipe(const CancelToken* cancel, MemoryBudget& budget, size_t capacity) {
    return make_pipe_on(cancel, capacity, &budget);
}

PipeReader::~PipeReader() { close(); }

void PipeReader::close() {
    if (closed_) return;
    closed_ = true;
    std::lock_guard lock(core_->mu);
    core_->reader_open = false;
    core_->can_write.notify_all();
}

IoResult PipeReader::read(char* buf, size_t n) {
    if (n == 0) return {};
    PipeCore& c = *core_;
    std::unique_lock lock(c.mu);
    while (c.size == 0) {
        if (c.writers == 0) return {};
        if (c.cancelled()) return {0, ECANCELED};
        c.can_read.wait_for(lock, kCancelPoll);
    }
    size_t k = c.take(buf, n);
    c.can_write.notify_all();
    return {k, 0};
}

IoResult PipeReader::read_until(char delim, std::string& out, size_t max) {
    PipeCore& c = *core_;
    size_t got = 0;
    std::unique_lock lock(c.mu);
    while (got < max) {
        while (c.size == 0) {
            if (c.writers == 0) return {got, 0};
            if (c.cancelled()) return {got, ECANCELED};
            c.can_read.wait_for(lock, kCancelPoll);
        }
        // Scan the unread bytes for the delimiter, in at most two contiguous runs.
        size_t cap = c.ring.size();
        size_t limit = std::min(c.size, max - got);
        size_t k = 0;
        bool found = false;
        while (k < limit) {
            char ch = c.ring[(c.head + k) % cap];
            ++k;
            if (ch == delim) {
                found = true;
                break;
            }
        }
        size_t old = out.size();
        out.resize(old + k);
        c.take(out.data() + old, k);
        got += k;
        c.can_write.notify_all();
        if (found) break;
    }
    return {got, 0};
}

bool PipeReader::wait_readable(std::chrono::steady_clock::time_point deadline) {
    PipeCore& c = *core_;
    std::unique_lock lock(c.mu);
    while (c.size == 0 && c.writers > 0) {
        if (c.cancelled()) return true;  // the read will report it
        auto now = std::chrono::steady_clock::now();
        if (now >= deadline) return false;
        c.can_read.wait_for(lock, std::min<std::chrono::steady_clock::duration>(deadline - now, kCancelPoll));
    }
    return true;
}

bool PipeReader::unread(std::string_view data) {
    if (data.empty()) return true;
    PipeCore& c = *core_;
    std::lock_guard lock(c.mu);
    // The bytes go in front of the unread ones; the ring grows when they do not fit (charged first: past the
    // budget, the bytes are refused).
    const size_t old = c.size;
    const size_t cap = std::max(c.ring.size(), old + data.size());
    if (cap > c.held.held() && !c.held.try_add(cap - c.held.held())) return false;
    std::vector<char> ring(cap);
    std::memcpy(ring.data(), data.data(), data.size());
    c.take(ring.data() + data.size(), old);
    c.ring = std::move(ring);
    c.head = 0;
    c.size = old + data.size();
    c.can_read.notify_all();
    return true;
}

PipeWriter::~PipeWriter() { close(); }

void PipeWriter::close() {
    if (closed_) return;
    closed_ = true;
    std::lock_guard lock(core_->mu);
    --core_->writers;
    core_->can_read.notify_all();
}

IoResult PipeWriter::write(std::string_view data) {
    PipeCore& c = *core_;
    size_t done = 0;
    std::unique_lock lock(c.mu);
    if (!c.reader_open && !c.touched && data.size() <= c.limit()) {
        // The reader left before a byte went through: this first write is taken (and dropped) as if it had
        // come first, which is what a stage started first usually does in bash (`{ echo hi; exit 5; } | false`
        // ends with 5, not 141). Any later write finds the pipe broken.
        c.touched = true;
        return {data.size(), 0};
    }
    while (done < data.size()) {
        if (!c.reader_open) return {done, EPIPE};
        if (c.cancelled()) return {done, ECANCELED};
        if (c.size >= c.limit()) {
            c.can_write.wait_for(lock, kCancelPoll);
            continue;
        }
        done += c.put(data.data() + done, data.size() - done);
        c.can_read.notify_all();
    }
    return {done, 0};
}

}  // namespace bashkit::interp
