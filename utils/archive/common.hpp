// What the archive utilities share: libarchive read/write callbacks over the sandbox's streams and files,
// path confinement, and the Extractor that writes archive members into the FileSystem safely.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "utils/archive/archive.hpp"
#include "utils/archive/libarchive_api.hpp"
#include "utils/text/util.hpp"
#include "interp/command.hpp"

namespace bashkit::utils::archive {

using interp::CommandContext;

// Owns an archive* (read or write) and frees it.
struct ReadArchive {
    struct archive* a = la().archive_read_new();
    ~ReadArchive() { la().archive_read_free(a); }
};
struct WriteArchive {
    struct archive* a = la().archive_write_new();
    ~WriteArchive() { la().archive_write_free(a); }
};

// A libarchive client reading from a text::Input (a file of the FileSystem or stdin), checking the cancel
// token at every block.
struct InputSource {
    CommandContext* ctx = nullptr;
    text::Input in;
    std::string buf = std::string(64 * 1024, '\0');
    vfs::Errc err = vfs::Errc::ok;
    bool cancelled = false;
    uint64_t total = 0;  // bytes read so far
    std::string head;    // the first bytes read (up to 8), for magic numbers
};
// Opens `a` (formats and filters already chosen) over src; returns archive_read_open's status.
int open_read(struct archive* a, InputSource& src);

// A libarchive client writing to a ByteStream or a FileHandle.
struct OutputSink {
    CommandContext* ctx = nullptr;
    interp::ByteStream* stream = nullptr;
    vfs::FileHandle* file = nullptr;
    int err = 0;               // errno-like
    bool cancelled = false;
};
int open_write(struct archive* a, OutputSink& sink);

// "user" names of ids as the session shows them (root, the session user, or the number).
std::string user_name(const CommandContext& ctx, uint32_t uid);
std::string group_name(const CommandContext& ctx, uint32_t gid);

// Whether `path` is `root` or below it (both absolute and canonical).
bool is_within(std::string_view root, std::string_view path);

// A member name made safe to extract: leading slashes removed (stripped_slash), "." components and
// repeated slashes dropped; has_dotdot when a ".." component is there (the member is refused).
struct SafeName {
    std::string name;          // relative, without trailing slash; empty for the root itself
    bool stripped_slash = false;
    bool has_dotdot = false;
};
SafeName safe_name(std::string_view member);

// Drops the first n components; false when the name has n or fewer (the member is skipped).
bool strip_components(std::string& name, int n);

// Writes archive members under a root directory, never outside it:
//  - member names are relative to the root (callers sanitise them with safe_name first);
//  - the parent of every member, once created, must resolve (realpath) inside the root, so a symlink in
//    the tree (from the archive or already there) cannot carry a write outside;
//  - symlinks whose target resolves outside the root, and hard links to names outside it, are refused;
//  - a regular file is written to a temporary name beside its place and renamed over it once complete, so a
//    failed member (limit, corrupt data, cancel) never replaces a good file;
//  - bytes and members are counted against ArchiveLimits.
class Extractor {
public:
    enum class Outcome { ok, skipped, fatal };
    Extractor(CommandContext& ctx, const ArchiveLimits& limits, std::string prog, std::string root);
    // Checks the links again (as finish() does) when a command returns early on an error without finish().
    ~Extractor();
    Extractor(const Extractor&) = delete;
    Extractor& operator=(const Extractor&) = delete;

    // The root exists and is a directory (prints the error otherwise).
    bool prepare();
    // Extracts the current member of `a` (entry `e`) as `name` (sanitised, relative). Prints its own errors.
    Outcome extract(struct archive* a, struct archive_entry* e, const std::string& name);
    // Counts one member against max_entries (prints the error when over).
    bool count_entry();
    // Applies the times of directories, after all members (GNU tar delays them too), and removes every symlink
    // made here that now leads outside the root through links made after it (with the refusal message);
    // false when it removed one.
    [[nodiscard]] bool finish();

    bool keep_old = false;         // tar -k: an existing file is an error, not replaced
    bool skip_existing = false;    // unzip without -o when answered "no": existing files are left alone
    bool restore_mtime = true;     // tar -m turns this off
    bool preserve_perms = false;   // tar -p: ignore the umask
    bool to_stdout = false;        // tar -O: regular files' data to stdout
    uint64_t expanded = 0;         // bytes written so far
    uint64_t entries = 0;
    bool read_error = false;
    std::string shown_root;        // the root as the user wrote it, for messages (default: the path)       // the last fatal outcome was the archive's data (truncated, corrupt)

    const std::string& root() const { return root_; }
    // Limit message: "<prog>: archive expands beyond the limit of N bytes".
    void limit_error();

private:
    Outcome write_file(struct archive* a, struct archive_entry* e, const std::string& path,
                       const std::string& name);
    bool parent_ok(const std::string& path, const std::string& name);
    // Where a symlink to `target` made in the directory whose real path is `dir` leads: followed component by
    // component as the kernel would, through the symlinks there now; a missing component is taken as named.
    std::string link_destination(const std::string& dir, std::string_view target);
    // Removes the links made here that now lead outside the root; false when it removed one.
    bool check_links();
    void error(std::string_view msg);

    CommandContext& ctx_;
    const ArchiveLimits& limits_;
    std::string prog_;
    std::string root_;       // as given (absolute)
    std::string real_root_;  // canonical
    struct DirTime {  // applied after all members: a read-only directory must still receive its members
        std::string path;
        uint32_t mode;
        bool has_time;
        int64_t sec, nsec;
    };
    std::vector<DirTime> dir_times_;
    struct MadeLink {  // checked again by finish(): a link made later may carry an earlier one outside
        std::string path, target, name;
    };
    std::vector<MadeLink> links_;
    unsigned serial_ = 0;
};

// "%Y-%m-%d %H:%M" of an epoch time in the zone of the command's TZ (UTC when unset).
std::string format_time(const CommandContext& ctx, int64_t sec);
// "-rw-r--r--" for a libarchive mode (type bits included); 'h' for a hard link as GNU tar shows it.
std::string mode_string(uint32_t mode, bool hardlink);

}  // namespace bashkit::utils::archive
