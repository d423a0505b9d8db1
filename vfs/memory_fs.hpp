// MemoryFs: the whole tree in memory. The default filesystem for tests and ephemeral sessions.
//
// Semantics (beyond the FileSystem contract):
//  - Permissions are stored and reported but NOT enforced: the sandbox user owns everything and may read,
//    write and search every file whatever its mode (like root, without root's other powers). chmod 000 on a
//    file therefore does not stop `cat` from reading it. A permission layer, if ever wanted, belongs in a
//    wrapper filesystem, not in the tree.
//  - Modes are explicit, there is no umask: open(create) uses the mode it is given (0644 by default),
//    mkdir its mode (0755 by default); bits outside 07777 are dropped.
//  - New inodes belong to options.uid/options.gid. Inode numbers are unique for the life of the MemoryFs and
//    never reused; the root is inode 2 (as on ext4).
//  - Timestamps come from options.clock (the system clock by default), with nanoseconds. Creating a file
//    sets its atime/mtime/ctime; writing or truncating sets mtime and ctime; chmod/chown/link/rename set
//    ctime; adding, removing or renaming an entry sets the directory's mtime and ctime. Reading does not
//    touch atime (like a `noatime` mount); utimes sets it.
//  - Sizes reported: a directory has size 4096 (like ext4, which `ls -l` users expect), a symlink the length
//    of its target; blocks are the size rounded up to 4 KiB, in 512-byte units.
//  - Limits: max_bytes (file contents + symlink targets, counted while any name or open handle keeps the
//    data alive) and max_inodes give no_space; max_file_size gives file_too_large. The same data bytes are
//    charged to a MemoryAccount when one is attached (set_memory_account: the session's memory budget), and
//    a growth it refuses is no_space too. Inodes and directory entries are not charged (max_inodes bounds
//    them). read_only makes every
//    change read_only (EROFS).
//  - Thread-safe: one reader-writer lock around the tree. Open handles keep their file alive after unlink.
//    Destroying the filesystem while handles are open is fine: they keep the data they need.
//  - No device files; the interpreter provides /dev/null and friends.
#pragma once

#include <cstdint>
#include <memory>

#include "vfs/filesystem.hpp"

namespace bashkit::vfs {

// An account of the bytes a MemoryFs keeps in the process's memory, kept by the embedder: the session's memory
// budget (interp/governor.hpp, through sandbox/configured_shell.cpp), so that the files of an in-memory tree and
// the script's other buffers share one bound. Thread-safe; every call is short and takes no lock of the tree's.
class MemoryAccount {
public:
    virtual ~MemoryAccount() = default;
    // Counts n more bytes unless they do not fit; false (nothing counted) then.
    virtual bool try_charge(uint64_t n) = 0;
    // Counts n bytes already held, past any limit (what the tree holds when the account is attached).
    virtual void force_charge(uint64_t n) = 0;
    virtual void release(uint64_t n) = 0;
};

struct MemoryFsOptions {
    std::shared_ptr<const Clock> clock;      // null: the system clock
    uint32_t uid = 1000;                     // owner of new files
    uint32_t gid = 1000;
    uint64_t dev = 1;                        // Stat::dev of every file
    Mode root_mode = 0755;
    // Limits. Finite by default so that a hostile script cannot exhaust the host's memory through a
    // MemoryFs built with default options. A session's own limits are FsLimits, applied by the LimitedFs
    // every front end puts over its tree (sandbox/configured_shell.hpp); these are only a backstop.
    uint64_t max_bytes = uint64_t{1} << 30;  // total bytes of file data and symlink targets (1 GiB)
    uint64_t max_inodes = 1'000'000;         // files + directories + symlinks, the root included
    uint64_t max_file_size = INT64_MAX;      // logical size of one file (off_t's range); sparse bytes are free
    bool read_only = false;
};

namespace detail {
struct MemState;
}

class MemoryFs final : public FileSystem {
public:
    explicit MemoryFs(MemoryFsOptions options = {});
    ~MemoryFs() override;
    MemoryFs(const MemoryFs&) = delete;
    MemoryFs& operator=(const MemoryFs&) = delete;

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

    // Current usage, as counted against max_bytes and max_inodes.
    uint64_t bytes_used() const;
    uint64_t inodes_used() const;
    // Switches read-only mode at run time (e.g. to freeze a lower layer).
    void set_read_only(bool read_only);
    // Charges the data bytes (file contents and symlink targets, as counted against max_bytes) to the account
    // too: the tree's bytes at once, then every growth; a growth the account refuses is no_space.
    // Attaching another account (or null) releases the bytes from the previous one. Thread-safe.
    void set_memory_account(std::shared_ptr<MemoryAccount> account);

private:
    std::shared_ptr<detail::MemState> state_;
};

}  // namespace bashkit::vfs
