// Limits on what a script may store, as one decorator over any FileSystem.
//
// FsLimits names every bound with its default. LimitedFs wraps a FileSystem (MemoryFs, HostFs, OverlayFs,
// MountTable...) and enforces them, so the same limits apply whatever holds the files:
//  - max_total_bytes: bytes of file data and symlink targets in the tree (logical sizes: a sparse file counts
//    its full size). Growing past it is Errc::no_space ("No space left on device").
//  - max_file_bytes: the size of one file. Growing a file past it is Errc::file_too_large ("File too large").
//  - max_nodes: files, directories and symlinks in the tree (the root not counted). Errc::no_space.
//  - max_path_length / max_name_length: bytes in a path / in one component of a name being created
//    (Errc::name_too_long). The interface's own caps (kMaxPathLength, kMaxNameLength) apply to every path.
//  - max_depth: components in the (lexically normalised) path of a new entry. Errc::no_space would be
//    misleading, so it is Errc::name_too_long.
//  - Names of new entries must not contain NUL or control bytes (0x01-0x1f, 0x7f): Errc::invalid_argument.
//  - space() reports max_total_bytes and max_nodes with their usage, so `df` shows the limits, not a disk.
//  - max_open_files: handles open at once through this LimitedFs (files and directories, read or write; on
//    a host-backed tree each holds a host descriptor). One more is Errc::too_many_open_files ("Too many
//    open files"), so a session cannot starve the process (and the other sessions) of descriptors.
//
// Usage is counted from the tree as it is when the LimitedFs is made (one iterative walk; pass
// count_existing=false to start from zero) and then tracked through the operations made through it. A write
// is checked before any byte is written, so a write that would pass a limit fails whole and the file keeps
// what it had ("never a half-written file"). write_file_atomic() goes further: it writes a temporary file
// beside the target and renames it over, so a failed write leaves the old file untouched.
//
// Changes made to the wrapped filesystem behind the decorator's back (another handle on it, the host) are
// not seen until the next LimitedFs is made. A file unlinked (or replaced by rename) while a handle opened
// through this LimitedFs still holds it stays charged until the last such handle closes: its bytes are still
// on the disk, and writes through the handle are still counted.
//
// For a host-backed tree, make it with count_existing=false: the byte count is then what the session wrote
// (new files, growth of existing ones), not what the host folder already held; removing files the host put
// there gives nothing back below zero.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "vfs/filesystem.hpp"

namespace bashkit::vfs {

struct FsLimits {
    uint64_t max_total_bytes = uint64_t{1} << 30;  // 1 GiB of data in the tree
    uint64_t max_file_bytes = uint64_t{256} << 20; // 256 MiB in one file
    uint64_t max_nodes = 100'000;                  // files + directories + symlinks
    std::size_t max_path_length = kMaxPathLength;  // bytes in a path (must be shorter)
    std::size_t max_name_length = kMaxNameLength;  // bytes in one name
    std::size_t max_depth = 1024;                  // components in the path of a new entry
    uint64_t max_open_files = 256;                 // handles open at once (host descriptors)

    // No limit at all (the interface's caps on path and name length remain).
    static FsLimits unlimited();
};

// The rule for the name of a new entry (one component): Errc::ok, invalid_argument for an empty name, "." or
// "..", a '/' or a NUL or control byte; name_too_long past max_name. Used by LimitedFs and by HostFs (which
// refuses such names on the host whatever the limits, since host tools may trip on them).
Errc check_new_name(std::string_view name, std::size_t max_name = kMaxNameLength) noexcept;

// Writes data to a temporary name in the same directory, then renames it over path: on any failure (a
// limit, a full disk) path keeps its old content and the temporary is removed. A final symlink is followed
// (the target is replaced, the link stays). The new file gets `mode`, or the old file's mode if it existed.
Status write_file_atomic(FileSystem& fs, std::string_view path, std::string_view data, Mode mode = 0644);

namespace detail {
struct LimitState;
}

class LimitedFs final : public FileSystem {
public:
    LimitedFs(std::shared_ptr<FileSystem> inner, FsLimits limits = {}, bool count_existing = true);
    ~LimitedFs() override;
    LimitedFs(const LimitedFs&) = delete;
    LimitedFs& operator=(const LimitedFs&) = delete;

    Result<Stat> stat(std::string_view path) override;
    Result<Stat> lstat(std::string_view path) override;
    std::vector<Result<Stat>> lstat_in(std::string_view dir, const std::vector<std::string>& names) override;
    Result<std::unique_ptr<FileHandle>> open(std::string_view path, OpenFlags flags, Mode mode = 0644) override;
    Result<std::vector<DirEntry>> readdir(std::string_view path) override;
    Status mkdir(std::string_view path, Mode mode = 0755) override;
    Status rmdir(std::string_view path) override;
    Status unlink(std::string_view path) override;
    Status rename(std::string_view from, std::string_view to) override;
    Status symlink(std::string_view target, std::string_view link_path) override;
    Result<std::string> readlink(std::string_view path) override;
    Status link(std::string_view existing, std::string_view new_path) override;
    Status chmod(std::string_view path, Mode mode) override;
    Status chown(std::string_view path, uint32_t uid, uint32_t gid) override;
    Status utimes(std::string_view path, TimeSet atime, TimeSet mtime, bool follow = true) override;
    Status truncate(std::string_view path, uint64_t size) override;
    Result<std::string> realpath(std::string_view path) override;
    // max_total_bytes and max_nodes with their usage (an unlimited one as 0).
    std::optional<FsSpace> space() override;

    const FsLimits& limits() const;
    uint64_t bytes_used() const;
    uint64_t nodes_used() const;
    uint64_t open_files() const;
    FileSystem& inner();

private:
    Errc check_new_path(std::string_view path) const;
    std::shared_ptr<detail::LimitState> state_;
};

}  // namespace bashkit::vfs
