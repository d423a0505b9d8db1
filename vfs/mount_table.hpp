// MountTable: one virtual tree made of several file systems, each mounted at a path prefix.
//
//  - The longest mounted prefix of a path owns it; the rest of the path is handed to that file system.
//    Mounting at "/" gives the tree its root; without it, "/" and every directory leading to a mount point
//    are synthetic, empty, read-only directories.
//  - A directory that holds a mount point lists it (readdir of "/" shows "workspace" when /workspace is a
//    mount), whether or not the file system below has a directory of that name.
//  - Each mount is read-only (every change is Errc::read_only, EROFS) or read-write.
//  - Paths are resolved here, component by component (vfs/virtual_walk.hpp), so a symlink in one mount
//    may name a file in another, and an absolute target starts at the root of the whole table.
//  - rename and link across mounts give Errc::cross_device (EXDEV: `mv` falls back to copy + delete);
//    renaming, removing or replacing a mount point itself is Errc::busy.
//  - stat reports each mount's files with a device number of its own (so `find -xdev`, `cp` and `mv` can
//    tell mounts apart); inode numbers are the mounted file system's.
//  - mount/umount are thread-safe and may happen while other threads use the table: each operation works
//    on the mount list as it was when it started. Handles already open stay usable after umount.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "vfs/filesystem.hpp"

namespace bashkit::vfs {

struct MountInfo {
    std::string prefix;               // normalised absolute path, "/" for the root
    std::shared_ptr<FileSystem> fs;
    bool read_only = false;
    uint64_t id = 0;                  // distinct per mount; part of the device number stat reports
};

class MountTable final : public FileSystem {
public:
    MountTable() = default;
    ~MountTable() override = default;
    MountTable(const MountTable&) = delete;
    MountTable& operator=(const MountTable&) = delete;

    // Mounts fs at prefix (an absolute path, normalised lexically). busy when something is already mounted
    // there; invalid_argument for a relative path or a null fs.
    Status mount(std::string_view prefix, std::shared_ptr<FileSystem> fs, bool read_only = false);
    // Removes the mount at prefix; invalid_argument when nothing is mounted there.
    Status umount(std::string_view prefix);
    // The mounts, sorted by prefix.
    std::vector<MountInfo> mounts() const;

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

    using Mounts = std::vector<MountInfo>;

private:
    std::shared_ptr<const Mounts> snapshot() const;

    mutable std::mutex mu_;
    std::shared_ptr<const Mounts> mounts_ = std::make_shared<const Mounts>();
    uint64_t next_id_ = 1;  // guarded by mu_
};

}  // namespace bashkit::vfs
