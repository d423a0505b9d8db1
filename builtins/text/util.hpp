// Shared plumbing of the text utilities: GNU-style option parsing, inputs (a file of the FileSystem or
// stdin), a line reader over chunks, and a buffered output that reports write errors like coreutils.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "interp/command.hpp"
#include "vfs/filesystem.hpp"

namespace bashkit::builtins::text {

using interp::CommandContext;

// ---------------------------------------------------------------------------------------------------------
// Options (getopt_long-like)

enum class Arg : uint8_t { none, required, optional };

struct LongOpt {
    std::string_view name;
    Arg arg;
    int id;  // a short option's character, or a value >= 256 for long-only options
};

struct ParsedOpt {
    int id = 0;
    bool has_value = false;
    std::string value;
};

// Ids of the long options every utility has.
inline constexpr int kOptHelp = 1000;
inline constexpr int kOptVersion = 1001;

struct OptionSpec {
    std::string_view shortopts;           // getopt syntax: "n:c:qv", "x::" for an optional argument
    std::span<const LongOpt> longopts;    // --help / --version are added automatically
    bool permute = true;                  // options may follow operands (GNU default)
    bool stop_at_negative_number = false; // "-1" "-.5" are operands (seq)
};

// Parses ctx.argv[1..]. On a bad option prints GNU's message and the "Try 'X --help'" line, returns false.
bool parse_options(CommandContext& ctx, const OptionSpec& spec, std::vector<ParsedOpt>& opts,
                   std::vector<std::string>& operands);

// "Try 'X --help' for more information."
void try_help(CommandContext& ctx);
// Prints "X: message" then the try-help line.
void usage_error(CommandContext& ctx, std::string_view message);
// The program name used in messages (argv[0]).
std::string_view prog(const CommandContext& ctx);
// 'name' quoted the way coreutils' quote() does it in the C locale (shell-escaped when needed).
std::string quote(std::string_view s);
// GNU quotearg with shell-escape style for file names in "X: NAME: error" messages (no quotes when plain).
std::string quote_name(std::string_view s);

// Writes the usage text for --help: "Usage: X ...\n" then the summary line.
int print_help(CommandContext& ctx, std::string_view usage);

// ---------------------------------------------------------------------------------------------------------
// Inputs

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

// ---------------------------------------------------------------------------------------------------------
// Output

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
// Numbers

// Parses a non-negative decimal count with an optional multiplier suffix (b 512, kB 1000, K/KiB 1024, MB,
// M, G, T, P, E; as head/tail/split accept). Returns false when invalid; saturates at UINT64_MAX.
bool parse_size(std::string_view s, uint64_t& out, bool allow_suffix = true);
enum class SizeParse : uint8_t { ok, invalid, overflow };
// Like parse_size but tells an overflow apart (out is then UINT64_MAX).
SizeParse parse_size_checked(std::string_view s, uint64_t& out, bool allow_suffix = true);
// A plain unsigned decimal (no sign, no suffix); saturates.
bool parse_uint(std::string_view s, uint64_t& out);

}  // namespace bashkit::builtins::text
