#include "interp/file_stream.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace bashkit::interp {

namespace {
constexpr size_t kReadAhead = 16384;
}

bool FileStream::fill(int& err) {
    err = 0;
    if (pos_ < buf_.size()) return true;
    buf_.resize(kReadAhead);
    pos_ = 0;
    auto r = h_->read(buf_.data(), buf_.size());
    if (!r) {
        buf_.clear();
        err = vfs::to_errno(r.error());
        return false;
    }
    buf_.resize(*r);
    return !buf_.empty();
}

IoResult FileStream::read(char* buf, size_t n) {
    if (!readable_) return {0, EBADF};
    std::lock_guard lock(mu_);
    if (pos_ < buf_.size()) {
        size_t k = std::min(n, buf_.size() - pos_);
        std::memcpy(buf, buf_.data() + pos_, k);
        pos_ += k;
        return {k, 0};
    }
    auto r = h_->read(buf, n);
    if (!r) return {0, vfs::to_errno(r.error())};
    return {*r, 0};
}

bool FileStream::unread(std::string_view data) {
    if (!readable_) return false;
    std::lock_guard lock(mu_);
    buf_ = std::string(data) + buf_.substr(std::min(pos_, buf_.size()));
    pos_ = 0;
    return true;
}

IoResult FileStream::read_until(char delim, std::string& out, size_t max) {
    if (!readable_) return {0, EBADF};
    std::lock_guard lock(mu_);
    size_t got = 0;
    while (got < max) {
        int err = 0;
        if (!fill(err)) return {got, err};
        size_t avail = std::min(buf_.size() - pos_, max - got);
        const char* start = buf_.data() + pos_;
        const void* hit = std::memchr(start, static_cast<unsigned char>(delim), avail);
        size_t k = hit ? static_cast<size_t>(static_cast<const char*>(hit) - start) + 1 : avail;
        out.append(start, k);
        pos_ += k;
        got += k;
        if (hit) break;
    }
    return {got, 0};
}

IoResult FileStream::write(std::string_view data) {
    if (!writable_) return {0, EBADF};
    std::lock_guard lock(mu_);
    if (pos_ < buf_.size()) {
        // Read-ahead moved the handle's offset past what was consumed: put it back before writing.
        auto back = static_cast<int64_t>(buf_.size() - pos_);
        (void)h_->seek(-back, vfs::Whence::cur);
        buf_.clear();
        pos_ = 0;
    }
    auto r = h_->write(data);
    if (!r) return {0, vfs::to_errno(r.error())};
    return {*r, 0};
}

}  // namespace bashkit::interp
