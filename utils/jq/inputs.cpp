#include "utils/jq/inputs.hpp"

#include <algorithm>
#include <cstring>

namespace bashkit::utils::jq {

namespace {
constexpr size_t kChunkMax = 4095;  // jq reads with fgets into a 4096-byte buffer

void events(const Value& v, std::vector<Value>& path, std::vector<Value>& out, bool top) {
    bool container = v.is_array() || v.is_object();
    if (!container || v.size() == 0) {
        out.push_back(Value::array({Value::array(path), v}));
    } else if (v.is_array()) {
        const auto& a = v.arr();
        for (size_t i = 0; i < a.size(); ++i) {
            path.push_back(Value::number(static_cast<double>(i)));
            events(a[i], path, out, false);
            path.pop_back();
        }
        path.push_back(Value::number(static_cast<double>(a.size() - 1)));
        out.push_back(Value::array({Value::array(path)}));
        path.pop_back();
    } else {
        const auto& items = v.obj().items;
        for (const auto& [k, x] : items) {
            path.push_back(Value::string(k));
            events(x, path, out, false);
            path.pop_back();
        }
        path.push_back(Value::string(items.back().first));
        out.push_back(Value::array({Value::array(path)}));
        path.pop_back();
    }
    (void)top;
}
}  // namespace

void stream_events(const Value& v, std::vector<Value>& out) {
    std::vector<Value> path;
    events(v, path, out, true);
}

InputReader::InputReader(interp::CommandContext& ctx, std::vector<std::string> files, bool raw, bool slurp, bool seq,
                         bool stream)
    : ctx_(ctx), files_(std::move(files)), raw_(raw), slurp_(slurp), stream_(stream) {
    if (files_.empty()) files_.emplace_back("-");
    parser_.set_seq(seq);
}

std::string InputReader::position() const {
    if (!have_name_) return "<unknown>";
    return name_ + ":" + std::to_string(line_);
}

Value InputReader::filename() const {
    if (!have_name_) return Value();
    return Value::string(name_);
}

bool InputReader::read_chunk() {
    chunk_.clear();
    while (chunk_.size() < kChunkMax) {
        if (pos_ == buf_.size()) {
            if (src_eof_) break;
            buf_.resize(64 * 1024);
            pos_ = 0;
            text::ReadResult r = in_.read(buf_.data(), buf_.size());
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
        if (open_ && error_ && !cancelled_ && on_error) on_error("Input error: " + text::errstr(read_err_) + "\n");
        if (open_) {
            in_.close();
            open_ = false;
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
                if (on_error) on_error("jq: error: Could not open file " + f + ": " + text::errstr(e) + "\n");
            } else {
                open_ = true;
            }
        }
    }
    chunk_.clear();
    if (ctx_.cancelled()) cancelled_ = true;
    if (open_ && !cancelled_) {
        if (!read_chunk()) {
            if (error_ && !cancelled_) ++failures_;
        } else if (chunk_.back() == '\n') {
            ++line_;
        }
    }
    if (cancelled_) return true;
    return next_file_ == files_.size() && (!open_ || eof_ || error_);
}

InputReader::Status InputReader::next_raw(Value& out, std::string&) {
    if (finished_) return kEnd;
    std::string acc;
    bool have = false;
    interp::MemoryCharge held(ctx_.memory);
    for (;;) {
        bool last = read_more();
        if (cancelled_) return kEnd;
        if (!chunk_.empty()) {
            held.add(chunk_.size());
            if (!slurp_ && chunk_.back() == '\n') {
                acc.append(chunk_, 0, chunk_.size() - 1);
                out = Value::string(fix_utf8(std::move(acc)));
                return kValue;
            }
            acc += chunk_;
            have = true;
        }
        if (last) break;
    }
    finished_ = true;
    if (slurp_) {
        out = Value::string(fix_utf8(std::move(acc)));
        return kValue;
    }
    if (have) {
        out = Value::string(fix_utf8(std::move(acc)));
        return kValue;
    }
    return kEnd;
}

InputReader::Status InputReader::next_json(Value& out, std::string& err) {
    for (;;) {
        auto st = parser_.next(out, err);
        if (st == JsonParser::kValue) return kValue;
        if (st == JsonParser::kError) return kError;
        if (st == JsonParser::kEnd || finished_) {
            finished_ = true;
            return kEnd;
        }
        bool last = read_more();
        if (cancelled_) return kEnd;
        parser_.feed(chunk_, last);
        if (ctx_.memory && !ctx_.memory->fits(parser_.buffered())) throw interp::MemoryLimitExceeded(ctx_.memory->limit());
    }
}

InputReader::Status InputReader::next(Value& out, std::string& err) {
    if (raw_) return next_raw(out, err);
    if (stream_) {
        if (pending_pos_ < pending_.size()) {
            out = std::move(pending_[pending_pos_++]);
            return kValue;
        }
        pending_.clear();
        pending_pos_ = 0;
        Value v;
        Status st = next_json(v, err);
        if (st != kValue) return st;
        stream_events(v, pending_);
        out = std::move(pending_[pending_pos_++]);
        return kValue;
    }
    if (!slurp_) return next_json(out, err);
    if (slurp_done_) return kEnd;
    std::vector<Value> all;
    for (;;) {
        Value v;
        Status st = next_json(v, err);
        if (st == kError) return kError;
        if (st == kEnd) break;
        all.push_back(std::move(v));
    }
    slurp_done_ = true;
    out = Value::array(std::move(all));
    return kValue;
}

}  // namespace bashkit::utils::jq
