#include "utils/net/common.hpp"

#include <condition_variable>
#include <mutex>
#include <thread>

namespace bashkit::utils::netutil {

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
        auto l = [](char c) { return char(c >= 'A' && c <= 'Z' ? c + 32 : c); };
        if (l(a[i]) != l(b[i])) return false;
    }
    return true;
}

std::string to_lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) {
        if (c >= 'A' && c <= 'Z') c = char(c + 32);
    }
    return out;
}

std::string base64(std::string_view data) {
    static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((data.size() + 2) / 3 * 4);
    size_t i = 0;
    for (; i + 3 <= data.size(); i += 3) {
        uint32_t v = uint32_t(uint8_t(data[i])) << 16 | uint32_t(uint8_t(data[i + 1])) << 8 | uint8_t(data[i + 2]);
        out += kAlphabet[v >> 18 & 63];
        out += kAlphabet[v >> 12 & 63];
        out += kAlphabet[v >> 6 & 63];
        out += kAlphabet[v & 63];
    }
    if (size_t rest = data.size() - i) {
        uint32_t v = uint32_t(uint8_t(data[i])) << 16;
        if (rest == 2) v |= uint32_t(uint8_t(data[i + 1])) << 8;
        out += kAlphabet[v >> 18 & 63];
        out += kAlphabet[v >> 12 & 63];
        out += rest == 2 ? kAlphabet[v >> 6 & 63] : '=';
        out += '=';
    }
    return out;
}

std::string form_urlencode(std::string_view data) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    out.reserve(data.size());
    for (char ch : data) {
        auto c = static_cast<unsigned char>(ch);
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
            c == '_' || c == '~') {
            out += ch;
        } else if (c == ' ') {
            out += '+';
        } else {
            out += '%';
            out += kHex[c >> 4];
            out += kHex[c & 15];
        }
    }
    return out;
}

std::optional<std::string> find_header(const std::vector<std::pair<std::string, std::string>>& headers,
                                       std::string_view name) {
    for (const auto& [k, v] : headers) {
        if (iequals(k, name)) return v;
    }
    return std::nullopt;
}

std::string reason_phrase(std::string_view status_line) {
    size_t a = status_line.find(' ');
    if (a == std::string_view::npos) return {};
    size_t b = status_line.find(' ', a + 1);
    if (b == std::string_view::npos) return {};
    return trim(status_line.substr(b + 1));
}

std::vector<std::string> split_header_blocks(std::string_view raw) {
    std::vector<std::string> blocks;
    std::string cur;
    size_t pos = 0;
    while (pos < raw.size()) {
        size_t nl = raw.find('\n', pos);
        size_t end = nl == std::string_view::npos ? raw.size() : nl + 1;
        std::string_view line = raw.substr(pos, end - pos);
        cur.append(line);
        if (line == "\r\n" || line == "\n") {
            blocks.push_back(std::move(cur));
            cur.clear();
        }
        pos = end;
    }
    if (!cur.empty()) blocks.push_back(std::move(cur));
    return blocks;
}

bool sleep_for(const interp::CommandContext& ctx, std::chrono::milliseconds d) {
    auto until = std::chrono::steady_clock::now() + d;
    while (std::chrono::steady_clock::now() < until) {
        if (ctx.cancelled()) return false;
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
        std::this_thread::sleep_for(std::min(left, std::chrono::milliseconds(20)));
    }
    return !ctx.cancelled();
}

Transfer perform(interp::CommandContext& ctx, net::HttpClient& client, const net::HttpRequest& request,
                 std::atomic<bool>& abort, const std::function<void(std::string_view)>& on_body) {
    Transfer t;
    std::atomic<bool> stop{false};
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    bool shell_cancelled = false;
    // The client watches one atomic flag; raise it when the shell cancels (or its deadline passes).
    std::thread watcher([&] {
        std::unique_lock lock(mu);
        while (!done) {
            if (ctx.cancelled()) {
                shell_cancelled = true;
                stop = true;
                return;
            }
            if (abort.load()) {
                stop = true;
                return;
            }
            cv.wait_for(lock, std::chrono::milliseconds(20));
        }
    });
    auto start = std::chrono::steady_clock::now();
    std::function<void(std::string_view)> body_fn;
    if (on_body) {
        body_fn = [&](std::string_view chunk) {
            if (abort.load()) {
                stop = true;
                return;
            }
            on_body(chunk);
            if (abort.load()) stop = true;
        };
    }
    t.result = client.perform(request, &stop, body_fn);
    t.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    {
        std::lock_guard lock(mu);
        done = true;
    }
    cv.notify_all();
    watcher.join();
    t.aborted = abort.load();
    t.cancelled = shell_cancelled || ctx.cancelled();
    return t;
}

// ---------------------------------------------------------------- Output

namespace {
constexpr size_t kChunk = 64 * 1024;
}

Output::Output(interp::CommandContext& ctx) : ctx_(ctx), stream_(&ctx.out) {}

Output::Output(interp::CommandContext& ctx, std::string path, bool create_dirs)
    : ctx_(ctx), path_(std::move(path)), create_dirs_(create_dirs) {
    // The devices the interpreter provides are not files of the FileSystem.
    std::string norm = vfs::normalize_path(path_);
    if (norm == "/dev/null") discard_ = true;
    if (norm == "/dev/stdout" || norm == "/dev/fd/1") stream_ = &ctx.out;
    if (norm == "/dev/stderr" || norm == "/dev/fd/2") stream_ = &ctx.err;
}

Output::~Output() {
    if (!failed_) flush();
}

bool Output::ensure_open() {
    if (handle_ || to_stdout()) return true;
    if (create_dirs_) {
        std::string dir = vfs::path_dirname(path_);
        if (dir != "/" && !dir.empty()) (void)ctx_.fs.mkdir_all(dir);
    }
    auto h = ctx_.fs.open_write(path_);
    if (!h) {
        failed_ = open_failed_ = true;
        error_ = h.error();
        return false;
    }
    handle_ = std::move(h).value();
    return true;
}

bool Output::open_now() { return !failed_ && ensure_open(); }

bool Output::flush() {
    if (buf_.empty()) return !failed_;
    if (failed_) return false;
    if (discard_) {
        buf_.clear();
        return true;
    }
    if (stream_) {
        auto r = stream_->write(buf_);
        if (!r.ok()) {
            failed_ = true;
            error_ = vfs::Errc::io_error;
        }
    } else {
        if (!ensure_open()) return false;
        auto r = handle_->write(buf_);
        if (!r) {
            failed_ = true;
            error_ = r.error();
        }
    }
    buf_.clear();
    return !failed_;
}

bool Output::write(std::string_view data) {
    if (failed_) return false;
    if (data.empty()) return true;
    if (!to_stdout() && !ensure_open()) return false;
    bytes_ += data.size();
    if (buf_.size() + data.size() < kChunk) {
        buf_.append(data);
        return true;
    }
    if (!flush()) return false;
    if (data.size() >= kChunk) {
        buf_.assign(data);
        return flush();
    }
    buf_.assign(data);
    return true;
}

bool Output::finish() {
    if (failed_) return false;
    if (!to_stdout() && !ensure_open()) return false;
    return flush();
}

bool Output::reset() {
    buf_.clear();
    bytes_ = 0;
    if (failed_ || !handle_) return !failed_;
    auto t = handle_->truncate(0);
    auto s = handle_->seek(0, vfs::Whence::set);
    return t.ok() && s.ok();
}

std::optional<std::string> read_input(interp::CommandContext& ctx, std::string_view name, vfs::Errc* err,
                                      size_t max) {
    std::string norm = name == "-" ? "" : vfs::normalize_path(ctx.resolve(name));
    if (norm == "/dev/null") return std::string();
    if (name == "-" || norm == "/dev/stdin" || norm == "/dev/fd/0") {
        std::string data;
        auto r = ctx.in.read_all(data, max);
        if (!r.ok()) {
            if (err) *err = vfs::Errc::io_error;
            return std::nullopt;
        }
        return data;
    }
    auto r = ctx.fs.read_file(norm, max);
    if (!r) {
        if (err) *err = r.error();
        return std::nullopt;
    }
    return std::move(r).value();
}

}  // namespace bashkit::utils::netutil
