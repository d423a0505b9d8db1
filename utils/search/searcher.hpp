// Searching one input: reads it in large chunks (bounded memory whatever its size), finds the matching
// lines with the Matcher a whole chunk at a time, and prints what grep or rg prints for them: selected
// lines with their prefixes, context lines and `--` separators, -o matches, counts, file names.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "utils/common/io.hpp"
#include "utils/search/matcher.hpp"
#include "interp/governor.hpp"
#include "interp/stream.hpp"
#include "vfs/filesystem.hpp"

namespace bashkit::utils::search {

// The utilities' buffered writer (utils/common/io.hpp: a closed pipe stops the search, 141) with what
// grep's context groups need across files.
class Output : public utils::Output {
public:
    explicit Output(interp::CommandContext& ctx) : utils::Output(ctx) {}
    // Whether a group of lines with context was printed (by any file): the next group, in this file or
    // the next, is preceded by the group separator.
    bool group_printed = false;
};

enum class BinaryMode {
    kGrep,          // grep: after a NUL, matching stops printing lines; "binary file matches" at the end
    kText,          // grep -a / rg -a: search as text
    kWithoutMatch,  // grep -I: a binary file does not match
    kRgQuit,        // rg on a file it found while walking: stop at the first NUL, silently
    kRgConvert,     // rg on a file named on the command line: stop at the first match after a NUL, with a
                    // "binary file matches (found "\0" byte around offset N)" line
};

struct SearchConfig {
    const Matcher* matcher = nullptr;
    bool invert = false;         // -v
    bool count = false;          // -c
    bool list_matching = false;  // -l
    bool list_missing = false;   // -L
    bool quiet = false;          // -q (stop at the first selected line)
    bool only_matching = false;  // -o
    bool line_numbers = false;   // -n
    bool with_filename = false;  // -H
    bool null_after_name = false;  // -Z
    size_t before = 0;           // -B
    size_t after = 0;            // -A
    uint64_t max_count = UINT64_MAX;  // -m
    char eol = '\n';             // '\0' with -z
    BinaryMode binary = BinaryMode::kGrep;
    bool suppress_errors = false;  // -s: no "binary file matches" message either
    bool separator = true;
    bool separator_always = false; // a context option was given, even -A0: separators between groups         // print group separators between context groups
    std::string group_separator = "--";
    std::string program = "grep";
    bool count_zero = true;        // -c prints files with no selected line (grep does, rg does not)  // for messages
};

// Where the bytes come from: returns bytes read (0 at end), or sets err (an errno) and returns 0.
using ReadFn = std::function<size_t(char* buf, size_t n, int& err)>;
// The ReadFn of a file, and of a stream (stdin), for grep and rg.
ReadFn read_from(vfs::FileHandle& file);
ReadFn read_from(interp::ByteStream& stream);

struct SearchResult {
    uint64_t selected = 0;  // selected lines (counted up to max_count)
    int read_error = 0;     // errno of a failed read (the caller prints the message)
    bool stopped = false;   // output failed or cancelled: the caller should stop everything
    bool match_error = false;  // grep -P: a match hit a PCRE2 limit (message printed): status 2
};

// The text of a pattern file (-f FILE; "-" is stdin), as grep and rg read it.
vfs::Errc read_pattern_file(interp::CommandContext& ctx, const std::string& name, std::string& text);

// Walking a tree (grep -r, rg): a directory on the walk's stack, its entries in byte order of their names
// (deterministic, where the real tools follow readdir), the next one to visit, and its identity (a
// directory already on the stack is a loop).
struct DirFrame {
    std::string display;  // as printed ("" for grep's implicit ".")
    std::string abs;
    std::vector<vfs::DirEntry> entries;
    size_t next = 0;
    uint64_t dev = 0, ino = 0;
};
// Reads the directory abs (whose stat is st) into a frame; the error of readdir, if any.
vfs::Errc read_dir_frame(vfs::FileSystem& fs, std::string display, std::string abs, const vfs::Stat& st,
                         DirFrame& frame);
// Whether the directory st is already on the stack (a loop through a symlink or a bind).
bool on_stack(const std::vector<DirFrame>& stack, const vfs::Stat& st);
// display/name ("" + name is name).
std::string join_display(const std::string& base, const std::string& name);

// Searches one input. `name` is what prefixes lines and what -l/-L/-c print.
SearchResult search_input(const SearchConfig& cfg, const ReadFn& read, std::string_view name, Output& out,
                          interp::ByteStream& err, const interp::CancelToken* cancel,
                          interp::MemoryBudget* memory = nullptr);

}  // namespace bashkit::utils::search
