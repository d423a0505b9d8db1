// Pieces curl and wget share: the transfer (with the shell's cancel token bridged to the client), an output
// target that streams into stdout or a file of the virtual filesystem, and small text helpers.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/strings.hpp"
#include "interp/command.hpp"
#include "net/http.hpp"

namespace bashkit::utils::netutil {

bool iequals(std::string_view a, std::string_view b);
std::string to_lower(std::string_view s);
using base::trim;  // base/strings.hpp

// RFC 4648 base64 (for -u user:password).
std::string base64(std::string_view data);

// application/x-www-form-urlencoded escaping as curl's --data-urlencode does it: letters, digits and
// "-._~" stay, space becomes '+', every other byte %XX (upper-case hex).
std::string form_urlencode(std::string_view data);

// The value of the first response header `name` (case-insensitive), or nullopt.
std::optional<std::string> find_header(const std::vector<std::pair<std::string, std::string>>& headers,
                                       std::string_view name);

// "HTTP/1.1 404 Not Found" -> "Not Found" (empty when the line has no reason phrase).
std::string reason_phrase(std::string_view status_line);

// Splits a block of raw response headers (every hop, as received) into one block per response, each
// ending with its blank line.
std::vector<std::string> split_header_blocks(std::string_view raw);

// Sleeps for `d` in small steps, giving up early when the command is cancelled. False when cancelled.
bool sleep_for(const interp::CommandContext& ctx, std::chrono::milliseconds d);

// One transfer with the client. The shell's cancel token (a deadline and a flag, not an atomic) is watched
// by a helper thread that raises the client's cancel flag; `abort` lets the caller stop the transfer from
// the body callback (an output write that failed).
struct Transfer {
    net::HttpResult result;
    std::chrono::milliseconds elapsed{0};
    bool aborted = false;    // `abort` was raised
    bool cancelled = false;  // the shell cancelled the command
};
Transfer perform(interp::CommandContext& ctx, net::HttpClient& client, const net::HttpRequest& request,
                 std::atomic<bool>& abort, const std::function<void(std::string_view)>& on_body = {});

// Where a body goes: the command's stdout, or a file of the virtual filesystem opened at the first byte
// (or at finish(), so an empty answer still makes an empty file). Writes are gathered into large chunks.
class Output {
public:
    // stdout.
    explicit Output(interp::CommandContext& ctx);
    // A file (absolute path). create_dirs: make missing parent directories first (curl --create-dirs).
    Output(interp::CommandContext& ctx, std::string path, bool create_dirs = false);
    Output(const Output&) = delete;
    Output& operator=(const Output&) = delete;
    ~Output();

    // True when the body goes to a stream (stdout, or /dev/stdout, /dev/stderr, /dev/null named as file).
    bool to_stdout() const { return stream_ != nullptr || discard_; }
    const std::string& path() const { return path_; }
    // False once a write failed (see error()).
    bool write(std::string_view data);
    // Flushes; opens (creating an empty file) if nothing was written yet. False on failure.
    bool finish();
    // Opens the file now (wget creates its -O file before the transfer). False on failure.
    bool open_now();
    // Throws away what was written to a file so far (truncates it; a retry starts again).
    bool reset();
    bool opened() const { return handle_ != nullptr; }
    bool failed() const { return failed_; }
    // The errno-like cause of the failure (for "Failed to open the file X: No such file or directory").
    vfs::Errc error() const { return error_; }
    bool open_failed() const { return open_failed_; }
    uint64_t bytes() const { return bytes_; }

private:
    bool flush();
    bool ensure_open();
    interp::CommandContext& ctx_;
    std::string path_;
    interp::ByteStream* stream_ = nullptr;  // stdout or stderr
    bool discard_ = false;                  // /dev/null
    bool create_dirs_ = false;
    std::unique_ptr<vfs::FileHandle> handle_;
    std::string buf_;
    uint64_t bytes_ = 0;
    bool failed_ = false;
    bool open_failed_ = false;
    vfs::Errc error_ = vfs::Errc::ok;
};

// Reads a whole file of the virtual filesystem ("-" and /dev/stdin are stdin, /dev/null is empty), up to
// `max` bytes.
std::optional<std::string> read_input(interp::CommandContext& ctx, std::string_view name, vfs::Errc* err,
                                      size_t max = 64u << 20);

}  // namespace bashkit::utils::netutil
