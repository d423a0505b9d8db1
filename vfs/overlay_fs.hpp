// OverlayFs: copy-on-write over a lower file system that is only ever read.
//
//  - Reads fall through: an entry of the upper layer hides the lower one of the same path; directories
//    present in both are merged (readdir lists the union).
//  - Every change goes to the upper layer (a MemoryFs, or a HostFs for changes that outlive the process).
//    Changing a lower file (write, truncate, chmod, utimes, chown, hard link) first copies it up, with its
//    mode and times, under a temporary name renamed into place, then changes the copy. Directories are
//    copied up (created in the upper layer) as needed to hold what is put in them.
//  - Removing a lower entry leaves a whiteout in the upper layer: an empty file ".wh.<name>" beside it
//    (".wh.#<hash>" for names too long for the prefix). A directory made where a lower one was removed gets
//    an opaque marker ".wh..wh..opq" so the old content does not show through. Whiteouts and markers are
//    plain files, so a HostFs upper keeps them across sessions. Names starting with ".wh." are reserved:
//    creating one is Errc::not_permitted, and upper entries with such names are never listed.
//  - Renaming a directory that has lower content is Errc::cross_device (EXDEV), as on Linux's overlayfs:
//    `mv` falls back to copy + delete. Everything else renames in the upper layer.
//  - Symlinks resolve in the merged tree (vfs/virtual_walk.hpp), never in one layer alone.
//  - stat reports one device (options.dev) and inode numbers 2n for upper entries and 2n+1 for lower ones,
//    so they never collide; a file copied up gets a new number (like overlayfs without xino).
//  - Thread-safe: changes are serialised by one lock (copy-up included); reads are not.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

#include "vfs/filesystem.hpp"

namespace bashkit::vfs {

struct OverlayOptions {
    uint64_t dev = 3;  // Stat::dev of every entry
};

class OverlayFs final : public FileSystem {
public:
    // lower is only read; upper receives every change. Both must be non-null, with a directory at "/".
    OverlayFs(std::shared_ptr<FileSystem> lower, std::shared_ptr<FileSystem> upper, OverlayOptions options = {});
    ~OverlayFs() override = default;
    OverlayFs(const OverlayFs&) = delete;
    OverlayFs& operator=(const OverlayFs&) = delete;

    Result<Stat> stat(std::string_view path) override;
    Result<Stat> lstat(std::string_view path) override;
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

    FileSystem& lower() { return *lower_; }
    FileSystem& upper() { return *upper_; }

    struct Node {
        FileType type = FileType::directory;
        bool upper = false;  // the entry is in the upper layer
        bool lower = false;  // the lower entry shows (for a directory: merged with the upper one)
    };

private:
    struct Impl;
    friend struct Impl;

    std::shared_ptr<FileSystem> lower_;
    std::shared_ptr<FileSystem> upper_;
    OverlayOptions opts_;
    std::mutex mu_;                     // serialises changes
    std::atomic<uint64_t> temp_seq_{0}; // names of copy-up temporaries
};

}  // namespace bashkit::vfs
