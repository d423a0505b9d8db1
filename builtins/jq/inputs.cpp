#include "builtins/jq/inputs.hpp"

#include <algorithm>
#include <cstring>

namespace bashkit::builtins::jq {

namespace {
constexpr size_t kChunkMax = 4095;  // jq reads with fgets into a 4096-byte buffer
}

InputReader::InputReader(interp::CommandContext& ctx, std::unique_lock<std::mutex>& lock, std::vector<std::string> files,
               bool raw, bool slurp, int parser_flags)
    : ctx_(ctx), lock_(lock), files_(std::move(files)), raw_(raw), slurped_(jqlib().jv_invalid()) {
    if (files_.empty()) files_.emplace_back("-");
    if (!raw_) parser_ = jqlib().jv_parser_new(parser_flags);
    if (slurp) slurped_ = raw_ ? jqlib().jv_string("") : jqlib().jv_array();
}

InputReader::~InputReader() {
    if (parser_) jqlib().jv_parser_free(parser_);
    jqlib().jv_free(slurped_);
}

std::string InputReader::position() const {
    if (!have_name_) return "<unknown>";
    return name_ + ":" + std::to_string(line_);
}

jv InputReader::origin() const {
    return array2(have_name_ ? jqlib().jv_string_sized(name_.data(), static_cast<int>(name_.size())) : jqlib().jv_null(),
                    jqlib().jv_number(static_cast<double>(line_)));
}

bool InputReader::read_chunk() {
    chunk_.clear();
    while (chunk_.size() < kChunkMax) {
        if (pos_ == buf_.size()) {
            if (src_eof_) break;
            buf_.resize(64 * 1024);
            pos_ = 0;
            lock_.unlock();
            text::ReadResult r = in_.read(buf_.data(), buf_.size());
            lock_.lock();
            if (r.err != vfs::Errc::ok) {
                buf_.clear();
                error_ = true;
                read_err_ = r.err;
                if (r.err == vfs::Errc::cancelled) cancelled_ = true;
                return false;
            }
            buf_.resize(r.n);
            if (r.n == 0) {
                src_eof_ = true;
                break;
            }
        }
        size_t want = kChunkMax - chunk_.size();
        size_t avail = buf_.size() - pos_;
        size_t n = std::min(want, avail);
        const char* start = buf_.data() + pos_;
        const void* nl = std::memchr(start, '\n', n);
        if (nl) n = static_cast<size_t>(static_cast<const char*>(nl) - start) + 1;
        chunk_.append(start, n);
        pos_ += n;
        if (nl) return true;
    }
    if (src_eof_ && pos_ == buf_.size()) eof_ = true;
    return !chunk_.empty();
}

bool InputReader::read_more() {
    if (!open_ || eof_ || error_) {
        if (open_ && error_ && !cancelled_ && on_error) {
            lock_.unlock();
            on_error("Input error: " + text::errstr(read_err_) + "\n");
            lock_.lock();
        }
        if (open_) {
            in_.close();
            open_ = false;
            have_name_ = false;
            line_ = 0;
        }
        if (next_file_ < files_.size() && !cancelled_) {
            const std::string& f = files_[next_file_++];
            have_name_ = true;
            name_ = f == "-" ? "<stdin>" : f;
            line_ = 0;
            eof_ = error_ = src_eof_ = false;
            buf_.clear();
            pos_ = 0;
            vfs::Errc e = in_.open_input(ctx_, f);
            if (e != vfs::Errc::ok) {
                ++failures_;
                if (on_error) {
                    lock_.unlock();
                    on_error("jq: error: Could not open file " + f + ": " + text::errstr(e) + "\n");
                    lock_.lock();
                }
            } else {
                open_ = true;
            }
        }
        if (on_position) on_position();
    }
    chunk_.clear();
    if (open_) {
        if (!read_chunk()) {
            if (error_ && !cancelled_) ++failures_;
        } else if (chunk_.back() == '\n') {
            ++line_;
            if (on_position) on_position();
        }
    }
    if (cancelled_) return true;
    return next_file_ == files_.size() && (!open_ || eof_ || error_);
}

jv InputReader::next() {
    bool is_last = false;
    bool has_more = false;  // slurping: more values may wait in the parser's last chunk
    jv value = jqlib().jv_invalid();
    do {
        if (!parser_) {
            is_last = read_more();
            if (cancelled_) break;
            if (!chunk_.empty()) {
                const int len = static_cast<int>(chunk_.size());
                if (is_valid(slurped_)) {
                    slurped_ = jqlib().jv_string_concat(slurped_, jqlib().jv_string_sized(chunk_.data(), len));
                } else {
                    if (!is_valid(value)) value = jqlib().jv_string("");
                    if (chunk_.back() == '\n') return jqlib().jv_string_concat(value, jqlib().jv_string_sized(chunk_.data(), len - 1));
                    value = jqlib().jv_string_concat(value, jqlib().jv_string_sized(chunk_.data(), len));
                }
            }
        } else {
            if (jqlib().jv_parser_remaining(parser_) == 0) {
                is_last = read_more();
                if (cancelled_) break;
                jqlib().jv_parser_set_buf(parser_, chunk_.data(), static_cast<int>(chunk_.size()), !is_last);
            }
            value = jqlib().jv_parser_next(parser_);
            if (is_valid(slurped_)) {
                has_more = jqlib().jv_parser_remaining(parser_) != 0;
                if (is_valid(value)) {
                    slurped_ = jqlib().jv_array_append(slurped_, value);
                    value = jqlib().jv_invalid();
                } else if (jqlib().jv_invalid_has_msg(jqlib().jv_copy(value))) {
                    return value;
                }
            } else if (is_valid(value) || jqlib().jv_invalid_has_msg(jqlib().jv_copy(value))) {
                return value;
            }
        }
    } while (!is_last || has_more);
    if (cancelled_) {
        jqlib().jv_free(value);
        return jqlib().jv_invalid();
    }
    if (is_valid(slurped_)) {
        jqlib().jv_free(value);
        value = slurped_;
        slurped_ = jqlib().jv_invalid();
    }
    return value;
}

}  // namespace bashkit::builtins::jq
