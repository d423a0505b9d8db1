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
#include <span>
#include <string>
#include <string_view>

#include "interp/command.hpp"
#include "vfs/filesystem.hpp"

namespace bashkit::utils {

using interp::CommandContext;

// A utility's 64 KiB read buffer, reused by the next utility on the same thread (a pipeline stage's thread is
// pooled too). A fresh one per command made the allocator grow its heap and trim it again, a system call and
// a TLB shootdown of every thread per pipeline stage. A second buffer on the thread while the first is in use
// (a utility that runs another) is its own allocation. Not zeroed: read into it before looking.
class ChunkBuffer {
public:
    static constexpr size_t kSize = 64 * 1024;
    ChunkBuffer();
    ~ChunkBuffer();
    ChunkBuffer(const ChunkBuffer&) = delete;
    ChunkBuffer& operator=(const ChunkBuffer&) = delete;
    char* data() { return p_; }
    static constexpr size_t size() { return kSize; }
    char& operator[](size_t i) { return p_[i]; }

private:
    std::unique_ptr<char[]> own_;  // when the thread's buffer was taken
    char* p_;
};

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


// ---------------------------------------------------------------------------------------------------------
// For each input file or stdin

// How a failed input is named in messages. Open: "X: NAME: No such file or directory" (cat, cut, nl, wc) or
// "X: cannot open 'NAME' for reading: ..." (head, tail, fold, expand). Read: "X: NAME: Is a directory" or
// "X: error reading 'NAME': Is a directory" (head, tail).
struct InputMessages {
    enum class Open : uint8_t { name, cannot_open } open = Open::name;
    enum class Read : uint8_t { name, error_reading } read = Read::name;
};
void report_open_error(CommandContext& ctx, std::string_view name, vfs::Errc e, InputMessages style = {});
void report_read_error(CommandContext& ctx, std::string_view name, vfs::Errc e, InputMessages style = {});

// Runs each(Input&, const std::string& name) over the operands in order ("-" is stdin; no operand at all is
// stdin), the GNU way: an input that cannot be opened is reported and skipped, each returns the read error
// that ended its input (vfs::Errc::ok at its end), which is reported too; either makes the status 1 and the
// next input still runs. Stops at a cancel (status 130) and once out has failed (a closed pipe: the caller's
// out.status() turns it into 141). Returns 0, 1 or 130; callers end with `return out.status(status)`.
template <class Fn>
int for_each_input(CommandContext& ctx, Output& out, std::span<const std::string> names, Fn&& each,
                   InputMessages style = {}) {
    static const std::string kStdin = "-";
    if (names.empty()) names = std::span<const std::string>(&kStdin, 1);
    int status = 0;
    for (const std::string& name : names) {
        if (ctx.cancelled()) return 130;
        Input in;
        if (const vfs::Errc e = in.open_input(ctx, name); e != vfs::Errc::ok) {
            out.flush();
            report_open_error(ctx, name, e, style);
            status = 1;
            continue;
        }
        const vfs::Errc e = each(in, name);
        if (e == vfs::Errc::cancelled) return 130;
        if (e != vfs::Errc::ok) {
            out.flush();
            report_read_error(ctx, name, e, style);
            status = 1;
        }
        if (out.failed()) break;
    }
    return status;
}

// for_each_input over records: line(record, terminated) for every record ending with delim (terminated is
// false only for a last one without it); stops as soon as out has failed.
template <class Fn>
int for_each_line(CommandContext& ctx, Output& out, std::span<const std::string> names, Fn&& line,
                  char delim = '\n', InputMessages style = {}) {
    return for_each_input(
        ctx, out, names,
        [&](Input& in, const std::string&) {
            LineReader reader(in, delim);
            std::string_view record;
            bool terminated = false;
            while (reader.next(record, terminated)) {
                line(record, terminated);
                if (out.failed()) return vfs::Errc::ok;
            }
            return reader.error();
        },
        style);
}

}  // namespace bashkit::utils
