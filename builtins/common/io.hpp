// Inputs and outputs of the utilities: an input (a file of the FileSystem, a device, or stdin) read in chunks
// or records, output files opened by name, and the one buffered writer every utility prints through.
//
// Output and a closed pipe: a write into a pipe whose reader is gone fails with EPIPE. A GNU tool gets SIGPIPE
// then and dies with status 141 (128 + 13); here the utility stops writing (every later put is dropped), should
// stop working as soon as it notices failed(), and returns status(own), which is 141 after a broken pipe,
// 130 when the command was cancelled, and 1 with "X: write error: ..." for any other failed write.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "interp/command.hpp"
#include "vfs/filesystem.hpp"

namespace bashkit::builtins {

using interp::CommandContext;

struct ReadResult {
    size_t n = 0;
    vfs::Errc err = vfs::Errc::ok;
};

// One input: stdin ("-") or a file. Opening a directory succeeds; reading it fails with is_directory.
class Input {
public:
    Input() = default;
    // Opens name ("-" is stdin). Returns the error, without printing it.
    vfs::Errc open_input(CommandContext& ctx, std::string_view name);
    void open_stdin(CommandContext& ctx);
    ReadResult read(char* buf, size_t n);
    bool is_stream() const { return stream_ != nullptr; }
    const std::string& name() const { return name_; }
    // Size of a regular file (for tail -c and seeking), or -1.
    int64_t file_size();
    // The session's memory budget (from the context it was opened with; may be null).
    interp::MemoryBudget* memory() const { return memory_; }
    vfs::FileHandle* handle() { return file_.get(); }
    void close();

private:
    std::unique_ptr<interp::ByteStream> device_;  // /dev/zero, /dev/null, /dev/urandom
    interp::ByteStream* stream_ = nullptr;
    std::unique_ptr<vfs::FileHandle> file_;
    std::string name_;
    const interp::CancelToken* cancel_ = nullptr;
    interp::MemoryBudget* memory_ = nullptr;
};

// Splits an Input into records ending with delim. The view returned by next() stays valid until the next
// call. `terminated` tells whether the record ended with the delimiter (false only for a last partial one).
// A record longer than what is left of the session's memory budget throws interp::MemoryLimitExceeded (a
// newline-free endless input such as /dev/zero).
class LineReader {
public:
    explicit LineReader(Input& in, char delim = '\n') : in_(in), delim_(delim) {}
    // True with a record; false at end of input or on error (see error()).
    bool next(std::string_view& line, bool& terminated);
    bool next(std::string_view& line) {
        bool t;
        return next(line, t);
    }
    vfs::Errc error() const { return err_; }

private:
    bool fill();
    Input& in_;
    char delim_;
    std::string buf_;
    size_t pos_ = 0, end_ = 0;
    std::string acc_;
    bool eof_ = false;
    vfs::Errc err_ = vfs::Errc::ok;
};

// The devices the interpreter provides only to redirections (/dev/null, /dev/zero, /dev/urandom, /dev/random,
// /dev/stdin, /dev/stdout, /dev/stderr, /dev/fd/0-2), for utilities that open them by name. `owned` receives a
// new stream when one is made; the result may also point at ctx.in/out/err. Null when abs_path is no device.
interp::ByteStream* device_stream(CommandContext& ctx, std::string_view abs_path,
                                  std::unique_ptr<interp::ByteStream>& owned);

// An output file opened by name (sort -o, tee, split, uniq OUTPUT, ...): a file of the FileSystem, created
// or truncated (or appended to), or one of the devices above.
class OutputFile {
public:
    vfs::Errc open_output(CommandContext& ctx, std::string_view name, bool append = false);
    interp::ByteStream* stream() { return stream_; }

private:
    std::unique_ptr<interp::ByteStream> owned_;
    interp::ByteStream* stream_ = nullptr;
};

// A 64-bit seed from the first bytes (up to 64 KiB) of a file or device (--random-source=FILE).
vfs::Errc seed_from_file(CommandContext& ctx, std::string_view name, uint64_t& seed);

// Reads a whole input into out (sort, tac, shuf hold their input). Returns the error, if any.
vfs::Errc read_all(CommandContext& ctx, Input& in, std::string& out);

// Buffers writes to a stream and flushes in large chunks. After a failed write every further write is
// dropped; status() turns the failure into the utility's exit status (141 for a broken pipe, as a process
// killed by SIGPIPE; 1 with "X: write error: ..." otherwise).
class Output {
public:
    explicit Output(CommandContext& ctx, interp::ByteStream* target = nullptr);
    ~Output();
    Output(const Output&) = delete;
    Output& operator=(const Output&) = delete;

    void put(std::string_view s) {
        if (failed_) return;
        buf_.append(s);
        if (buf_.size() >= kChunk) flush();
    }
    void put(char c) {
        if (failed_) return;
        buf_.push_back(c);
        if (buf_.size() >= kChunk) flush();
    }
    bool flush();
    bool failed() const { return failed_; }
    int error() const { return err_; }
    // Flushes; returns 0 when all went well, else the status to exit with (message printed once).
    int finish();
    // The status to exit with given the utility's own status.
    int status(int own) {
        int s = finish();
        return s ? s : own;
    }
    std::string& buffer() { return buf_; }

    static constexpr size_t kChunk = 64 * 1024;

private:
    CommandContext& ctx_;
    interp::ByteStream& out_;
    std::string buf_;
    bool failed_ = false;
    bool reported_ = false;
    int err_ = 0;
};

// "X: NAME: message" for an error of vfs.
void file_error(CommandContext& ctx, std::string_view name, vfs::Errc e);
// The text of an error.
std::string errstr(vfs::Errc e);

}  // namespace bashkit::builtins
