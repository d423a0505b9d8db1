// jq's input reader, as jq 1.6's jq_util_input (src/util.c) behaves, over the sandbox's files and stdin.
//
// The files named on the command line (stdin, "<stdin>", when there are none; "-" is stdin too) are read in
// chunks the way jq reads them with fgets (a line, at most 4095 bytes) and fed to one jv_parser shared by
// every file (so a text may continue from one file into the next, as in jq), or, with -R, cut into lines.
// The current file name and line count are tracked for error positions ("<stdin>:3"), input_filename and
// input_line_number.
//
// Every method is called with the libjq lock held (jq.cpp); the lock is released only while bytes are read
// from a stream, which may block on a pipe.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "builtins/jq/libjq_api.hpp"
#include "builtins/text/util.hpp"

namespace bashkit::builtins::jq {

class InputReader {
public:
    // files: the input files (empty: stdin). parser_flags: JV_PARSE_* (ignored with raw).
    InputReader(interp::CommandContext& ctx, std::unique_lock<std::mutex>& lock, std::vector<std::string> files,
           bool raw, bool slurp, int parser_flags);
    ~InputReader();
    InputReader(const InputReader&) = delete;
    InputReader& operator=(const InputReader&) = delete;

    // The next input value; jqlib().jv_invalid() at the end, or an invalid with a message for a parse error.
    jv next();
    // Called with stderr text to show (file errors) while the lock is released.
    std::function<void(const std::string&)> on_error;
    // Called (lock held) when the file name or line count changed.
    std::function<void()> on_position;

    int failures() const { return failures_; }
    bool cancelled() const { return cancelled_; }
    // "<file>:<line>", or "<unknown>" before any file was opened (for "jq: error (at ...)").
    std::string position() const;
    // input_filename / input_line_number: [name or null, line].
    jv origin() const;

private:
    bool read_more();  // jq's jq_util_input_read_more: one chunk into chunk_; true when it was the last
    bool read_chunk();  // one fgets-like chunk of the current file; false at its end or on an error

    interp::CommandContext& ctx_;
    std::unique_lock<std::mutex>& lock_;
    std::vector<std::string> files_;
    size_t next_file_ = 0;
    bool raw_;
    jv_parser* parser_ = nullptr;
    jv slurped_;

    text::Input in_;
    bool open_ = false, eof_ = false, error_ = false;
    vfs::Errc read_err_ = vfs::Errc::ok;
    std::string buf_;  // bytes read from the current file and not yet chunked
    size_t pos_ = 0;
    bool src_eof_ = false;
    std::string chunk_;  // what the parser is working on (it keeps a pointer)
    bool have_name_ = false;
    std::string name_;
    unsigned long line_ = 0;
    int failures_ = 0;
    bool cancelled_ = false;
};

}  // namespace bashkit::builtins::jq
