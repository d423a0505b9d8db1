// jq's input reader, as jq's jq_util_input (src/util.c) behaves, over the sandbox's files and stdin.
//
// The files named on the command line (stdin, "<stdin>", when there are none; "-" is stdin too) are read in
// chunks the way jq reads them with fgets (a line, at most 4095 bytes) and fed to one JSON parser shared by
// every file (so a text may continue from one file into the next, as in jq), or, with -R, cut into lines.
// The current file name and line count are tracked for error positions ("<stdin>:3") and input_filename.
// Input documents are charged to the session's memory budget (value.hpp).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "utils/jq/value.hpp"
#include "utils/text/util.hpp"

namespace bashkit::utils::jq {

class InputReader {
public:
    InputReader(interp::CommandContext& ctx, std::vector<std::string> files, bool raw, bool slurp, bool seq,
                bool stream);
    InputReader(const InputReader&) = delete;
    InputReader& operator=(const InputReader&) = delete;

    enum Status { kValue, kEnd, kError };
    // The next input value, the end, or a parse error (message in err).
    Status next(Value& out, std::string& err);
    // Called with stderr text to show (file errors).
    std::function<void(const std::string&)> on_error;

    int failures() const { return failures_; }
    bool cancelled() const { return cancelled_; }
    // "<file>:<line>", or "<unknown>" before any file was opened (for "jq: error (at ...)").
    std::string position() const;
    Value filename() const;
    unsigned long line() const { return line_; }

private:
    bool read_more();   // one chunk into chunk_; true when it was the last
    bool read_chunk();  // one fgets-like chunk of the current file; false at its end or on an error
    Status next_raw(Value& out, std::string& err);
    Status next_json(Value& out, std::string& err);

    interp::CommandContext& ctx_;
    std::vector<std::string> files_;
    size_t next_file_ = 0;
    bool raw_, slurp_, stream_;
    JsonParser parser_;
    bool slurp_done_ = false;
    std::vector<Value> pending_;  // stream events not yet returned
    size_t pending_pos_ = 0;

    text::Input in_;
    bool open_ = false, eof_ = false, error_ = false;
    vfs::Errc read_err_ = vfs::Errc::ok;
    std::string buf_;
    size_t pos_ = 0;
    bool src_eof_ = false;
    std::string chunk_;
    bool have_name_ = false;
    std::string name_;
    unsigned long line_ = 0;
    int failures_ = 0;
    bool cancelled_ = false;
    bool finished_ = false;
};

// The --stream events of a value ([[path, leaf]] ... [[path]]), as jq's streaming parser emits them.
void stream_events(const Value& v, std::vector<Value>& out);

}  // namespace bashkit::utils::jq
