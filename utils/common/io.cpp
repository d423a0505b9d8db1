#include "utils/common/io.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "utils/common/quote.hpp"

namespace bashkit::utils {

namespace {
struct ThreadChunk {
    std::unique_ptr<char[]> mem;
    bool in_use = false;
};
thread_local ThreadChunk t_chunk;
}  // namespace

ChunkBuffer::ChunkBuffer() {
    ThreadChunk& t = t_chunk;
    if (!t.in_use) {
        if (!t.mem) t.mem = std::make_unique_for_overwrite<char[]>(kSize);
        t.in_use = true;
        p_ = t.mem.get();
    } else {
        own_ = std::make_unique_for_overwrite<char[]>(kSize);
        p_ = own_.get();
    }
}

ChunkBuffer::~ChunkBuffer() {
    if (!own_) t_chunk.in_use = false;
}

namespace {

// A FileHandle as a ByteStream (for output files).
class HandleStream final : public interp::ByteStream {
public:
    explicit HandleStream(std::unique_ptr<vfs::FileHandle> h) : h_(std::move(h)) {}
    bool writable() const override { return true; }
    interp::IoResult write(std::string_view d) override {
        auto r = h_->write(d);
        if (!r) return {0, vfs::to_errno(r.error())};
        return {*r, 0};
    }

private:
    std::unique_ptr<vfs::FileHandle> h_;
};

}  // namespace

interp::ByteStream* device_stream(CommandContext& ctx, std::string_view abs_path,
                                  std::unique_ptr<interp::ByteStream>& owned) {
    std::string p = vfs::normalize_path(abs_path);
    if (p.rfind("/dev/", 0) != 0) return nullptr;
    std::string_view dev = std::string_view(p).substr(5);
    if (dev == "null") {
        owned = std::make_unique<interp::NullStream>();
        return owned.get();
    }
    if (dev == "zero") {
        owned = std::make_unique<interp::ZeroStream>(&ctx.cancel);
        return owned.get();
    }
    if (dev == "urandom" || dev == "random") {
        auto now = ctx.clock.now();
        uint64_t seed = static_cast<uint64_t>(now.sec) * 1000003u ^ static_cast<uint64_t>(now.nsec) ^
                        reinterpret_cast<uintptr_t>(&owned);
        owned = std::make_unique<interp::RandomStream>(seed, &ctx.cancel);
        return owned.get();
    }
    if (dev == "stdin" || dev == "fd/0") return &ctx.in;
    if (dev == "stdout" || dev == "fd/1") return &ctx.out;
    if (dev == "stderr" || dev == "fd/2") return &ctx.err;
    return nullptr;
}

vfs::Errc OutputFile::open_output(CommandContext& ctx, std::string_view name, bool append) {
    std::string path = ctx.resolve(name);
    if (interp::ByteStream* d = device_stream(ctx, path, owned_)) {
        stream_ = d;
        return vfs::Errc::ok;
    }
    auto h = ctx.fs.open_write(path, append);
    if (!h) return h.error();
    owned_ = std::make_unique<HandleStream>(std::move(h).value());
    stream_ = owned_.get();
    return vfs::Errc::ok;
}

vfs::Errc Input::open_input(CommandContext& ctx, std::string_view name) {
    close();
    name_ = std::string(name);
    cancel_ = &ctx.cancel;
    memory_ = ctx.memory;
    if (name == "-") {
        stream_ = &ctx.in;
        return vfs::Errc::ok;
    }
    std::string path = ctx.resolve(name);
    if (interp::ByteStream* d = device_stream(ctx, path, device_)) {
        stream_ = d;
        return vfs::Errc::ok;
    }
    auto h = ctx.fs.open_read(path);
    if (!h) return h.error();
    file_ = std::move(h).value();
    return vfs::Errc::ok;
}

void Input::open_stdin(CommandContext& ctx) {
    close();
    device_.reset();
    name_ = "-";
    cancel_ = &ctx.cancel;
    memory_ = ctx.memory;
    stream_ = &ctx.in;
}

ReadResult Input::read(char* buf, size_t n) {
    if (cancel_ && cancel_->cancelled()) return {0, vfs::Errc::cancelled};
    if (stream_) {
        auto r = stream_->read(buf, n);
        if (r.err) return {r.n, vfs::from_errno(r.err)};
        return {r.n, vfs::Errc::ok};
    }
    if (!file_) return {0, vfs::Errc::bad_descriptor};
    auto r = file_->read(buf, n);
    if (!r) return {0, r.error()};
    return {*r, vfs::Errc::ok};
}

int64_t Input::file_size() {
    if (!file_) return -1;
    auto st = file_->stat();
    if (!st || !st->is_regular()) return -1;
    return static_cast<int64_t>(st->size);
}

void Input::close() {
    stream_ = nullptr;
    device_.reset();
    file_.reset();
}

bool LineReader::fill() {
    if (eof_) return false;
    if (buf_.size() < 64 * 1024) buf_.resize(64 * 1024);
    auto r = in_.read(buf_.data(), buf_.size());
    if (r.err != vfs::Errc::ok) {
        err_ = r.err;
        eof_ = true;
        return false;
    }
    if (r.n == 0) {
        eof_ = true;
        return false;
    }
    pos_ = 0;
    end_ = r.n;
    return true;
}

namespace {
// Throws interp::MemoryLimitExceeded when `s` cannot take `more` bytes within what is left of the budget m:
// past 1 MiB, a regrowth holds the old buffer beside the new one, twice as large, while it copies, and both
// must fit (the caller charges what it keeps).
void check_growth(interp::MemoryBudget* m, const std::string& s, size_t more) {
    const size_t need = s.size() + more;
    if (!m || need <= s.capacity() || need <= (size_t{1} << 20)) return;
    if (!m->fits(s.capacity() + std::max(need, 2 * s.capacity()))) throw interp::MemoryLimitExceeded(m->limit());
}
}  // namespace

bool LineReader::next(std::string_view& line, bool& terminated) {
    acc_.clear();
    bool have_acc = false;
    for (;;) {
        if (pos_ < end_) {
            const char* start = buf_.data() + pos_;
            const void* hit = std::memchr(start, delim_, end_ - pos_);
            if (hit) {
                size_t len = static_cast<const char*>(hit) - start;
                pos_ += len + 1;
                terminated = true;
                if (have_acc) {
                    check_growth(in_.memory(), acc_, len);
                    acc_.append(start, len);
                    line = acc_;
                } else {
                    line = std::string_view(start, len);
                }
                return true;
            }
            check_growth(in_.memory(), acc_, end_ - pos_);
            acc_.append(start, end_ - pos_);
            have_acc = true;
            pos_ = end_;
        }
        if (!fill()) {
            if (have_acc) {
                terminated = false;
                line = acc_;
                return true;
            }
            return false;
        }
    }
}

vfs::Errc seed_from_file(CommandContext& ctx, std::string_view name, uint64_t& seed) {
    Input in;
    if (auto e = in.open_input(ctx, name); e != vfs::Errc::ok) return e;
    ChunkBuffer buf;
    size_t got = 0;
    while (got < buf.size()) {
        auto r = in.read(buf.data() + got, buf.size() - got);
        if (r.err != vfs::Errc::ok) return r.err;
        if (r.n == 0) break;
        got += r.n;
    }
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < got; ++i) h = (h ^ static_cast<unsigned char>(buf[i])) * 1099511628211ull;
    seed = h;
    return vfs::Errc::ok;
}

vfs::Errc read_all(CommandContext& ctx, Input& in, std::string& out) {
    // A regular file's size is known: one allocation instead of a string doubling as it fills.
    if (const int64_t size = in.file_size(); size > 0) {
        check_growth(ctx.memory, out, static_cast<size_t>(size) + 1);
        out.reserve(out.size() + static_cast<size_t>(size) + 1);
    }
    size_t chunk = 64 * 1024;
    for (;;) {
        // A writer that never blocks (`yes | pr`) keeps reads returning data: the token is checked here too.
        if (ctx.cancelled()) return vfs::Errc::cancelled;
        size_t old = out.size();
        size_t want = chunk;
        if (out.capacity() > old && out.capacity() - old < want) want = out.capacity() - old;  // no regrowth
        check_growth(ctx.memory, out, want);  // what is left of the session's budget
        out.resize(old + want);
        auto r = in.read(out.data() + old, want);
        out.resize(old + r.n);
        if (r.err != vfs::Errc::ok) return r.err;
        // An end of input after a cancel may be the writer stopping on it: the input is incomplete.
        if (r.n == 0) return ctx.cancelled() ? vfs::Errc::cancelled : vfs::Errc::ok;
        if (chunk < (1u << 20)) chunk *= 2;
    }
}

// ---------------------------------------------------------------------------------------------------------

Output::Output(CommandContext& ctx, interp::ByteStream* target) : ctx_(ctx), out_(target ? *target : ctx.out) {
    buf_.reserve(kChunk + 4096);
}

Output::~Output() { flush(); }

bool Output::flush() {
    if (failed_) {
        buf_.clear();
        return false;
    }
    if (buf_.empty()) return true;
    auto r = out_.write(buf_);
    buf_.clear();
    if (r.err) {
        failed_ = true;
        err_ = r.err;
        return false;
    }
    return true;
}

int Output::finish() {
    flush();
    if (!failed_) return 0;
    if (err_ == EPIPE) return 141;
    if (err_ == ECANCELED) return 130;
    if (!reported_) {
        reported_ = true;
        ctx_.error("write error: " + errstr(vfs::from_errno(err_)));
    }
    return 1;
}

std::string errstr(vfs::Errc e) { return std::string(vfs::error_message(e)); }

void file_error(CommandContext& ctx, std::string_view name, vfs::Errc e) {
    ctx.error(quote_name(name) + ": " + errstr(e));
}


void report_open_error(CommandContext& ctx, std::string_view name, vfs::Errc e, InputMessages style) {
    if (style.open == InputMessages::Open::cannot_open)
        ctx.error("cannot open " + quote(name) + " for reading: " + errstr(e));
    else
        file_error(ctx, name, e);
}

void report_read_error(CommandContext& ctx, std::string_view name, vfs::Errc e, InputMessages style) {
    if (style.read == InputMessages::Read::error_reading)
        ctx.error("error reading " + quote(name) + ": " + errstr(e));
    else
        file_error(ctx, name, e);
}

}  // namespace bashkit::utils
