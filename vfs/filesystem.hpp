// The virtual filesystem interface every file access of the sandbox goes through.
//
// Paths
//  - Paths are virtual, absolute POSIX paths: byte strings (std::string / std::string_view, not validated
//    UTF-8) that start with '/'. The interface does NOT accept relative paths: an implementation returns
//    Errc::invalid_argument for a path that does not start with '/'. The interpreter owns the current
//    directory and joins relative words onto it (join_path) before calling in. An empty path is
//    Errc::no_such_file, as in POSIX; a path containing a NUL byte is Errc::invalid_argument.
//  - Paths are resolved physically, component by component, like the kernel does: "." stays, ".." goes to
//    the parent of the directory reached so far (so "/link/.." is the parent of the link's target), ".." at
//    the root stays at the root, repeated slashes count as one. A trailing slash requires the last component
//    to be a directory and makes it follow a symlink where the operation otherwise would not (lstat
//    "/link/") — except for unlink, rmdir and rename, which fail with Errc::not_directory on "/link/", as
//    Linux does. normalize_path() is the *lexical* collapse, for the interpreter's logical $PWD.
//  - A component longer than kMaxNameLength bytes, or a path of kMaxPathLength bytes or more, is
//    Errc::name_too_long. Following more than kMaxSymlinkHops symlinks in one resolution is
//    Errc::symlink_loop.
//  - Symlinks live inside the virtual tree: an absolute target starts again at the virtual root, a relative
//    one at the link's directory, and ".." never climbs above the root. No path can reach outside the tree.
//
// Errors
//  - Every operation returns Result<T> (or Status = Result<void>) carrying an errno-like Errc, so a utility
//    can print the coreutils message: fmt::format("{}: {}: {}", argv0, path, error_message(e)).
//  - The values of Errc are the host's errno numbers, so an implementation over the host (HostFs) converts
//    with from_errno() and a utility can print them with to_errno().
//
// Errors a caller should expect, by operation, follow Linux (tests/vfs/filesystem_conformance.hpp is the
// executable specification: every implementation must pass it).
//
// Threads: every implementation must be safe to call from several threads at once (pipeline stages run
// concurrently). A FileHandle may be used from several threads too (they share its offset), though doing
// so without coordination gives the usual interleaving.
#pragma once

#include <cassert>
#include <cerrno>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace bashkit::vfs {

// ---------------------------------------------------------------------------------------------------------
// Errors

// errno-like error codes. The values are the host's errno values.
enum class Errc : int {
    ok = 0,
    not_permitted = EPERM,          // "Operation not permitted" (e.g. hard link to a directory)
    no_such_file = ENOENT,          // "No such file or directory"
    io_error = EIO,                 // "Input/output error" (also: any host errno without a code of its own)
    bad_descriptor = EBADF,         // "Bad file descriptor" (write on a handle opened read-only, ...)
    permission_denied = EACCES,     // "Permission denied"
    busy = EBUSY,                   // "Device or resource busy" (rmdir "/", rename of "." or "..")
    file_exists = EEXIST,           // "File exists"
    cross_device = EXDEV,           // "Invalid cross-device link" (rename/link across mounts)
    not_directory = ENOTDIR,        // "Not a directory"
    is_directory = EISDIR,          // "Is a directory"
    invalid_argument = EINVAL,      // "Invalid argument"
    too_many_open_files = EMFILE,   // "Too many open files"
    file_too_large = EFBIG,         // "File too large"
    no_space = ENOSPC,              // "No space left on device"
    read_only = EROFS,              // "Read-only file system"
    too_many_links = EMLINK,        // "Too many links"
    name_too_long = ENAMETOOLONG,   // "File name too long"
    not_empty = ENOTEMPTY,          // "Directory not empty"
    symlink_loop = ELOOP,           // "Too many levels of symbolic links"
    not_supported = EOPNOTSUPP,     // "Operation not supported"
    quota_exceeded = EDQUOT,        // "Disk quota exceeded"
    cancelled = ECANCELED,          // "Operation canceled"
    illegal_seek = ESPIPE,          // "Illegal seek" (a pipe or a device)
    no_device = ENXIO,              // "No such device or address" (/dev/tty without a terminal)
};

// The text glibc's strerror() gives for the code (C locale), e.g. "No such file or directory".
// Never null; "Unknown error" for a value outside the enum.
std::string_view error_message(Errc e) noexcept;
// The short symbolic name, e.g. "ENOENT" (for logs and test output).
std::string_view error_name(Errc e) noexcept;
// Host errno -> Errc; an errno without a code of its own becomes Errc::io_error, 0 becomes Errc::ok.
Errc from_errno(int err) noexcept;
inline int to_errno(Errc e) noexcept { return static_cast<int>(e); }

// A value or an error: a tiny stand-in for C++23 std::expected. Implicitly constructible from either, so a
// function can `return value;` or `return Errc::no_such_file;`. Accessing the value of an error (or the
// reverse) is a programming error (asserted); no exceptions are thrown.
template <class T>
class [[nodiscard]] Result {
public:
    Result(const T& value) : v_(std::in_place_index<0>, value) {}
    Result(T&& value) : v_(std::in_place_index<0>, std::move(value)) {}
    Result(Errc error) : v_(std::in_place_index<1>, error) { assert(error != Errc::ok); }

    bool ok() const noexcept { return v_.index() == 0; }
    explicit operator bool() const noexcept { return ok(); }
    Errc error() const noexcept { return ok() ? Errc::ok : *std::get_if<1>(&v_); }

    T& value() & { assert(ok()); return *std::get_if<0>(&v_); }
    const T& value() const& { assert(ok()); return *std::get_if<0>(&v_); }
    // On a temporary the value is moved out, so `for (auto& e : fs.readdir(p).value())` is safe.
    T value() && { assert(ok()); return std::move(*std::get_if<0>(&v_)); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T operator*() && { return std::move(*this).value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }

    template <class U>
    T value_or(U&& fallback) const& {
        return ok() ? value() : static_cast<T>(std::forward<U>(fallback));
    }

private:
    std::variant<T, Errc> v_;
};

// Success or an error.
template <>
class [[nodiscard]] Result<void> {
public:
    Result() noexcept = default;
    Result(Errc error) noexcept : e_(error) {}

    bool ok() const noexcept { return e_ == Errc::ok; }
    explicit operator bool() const noexcept { return ok(); }
    Errc error() const noexcept { return e_; }

private:
    Errc e_ = Errc::ok;
};

using Status = Result<void>;

// ---------------------------------------------------------------------------------------------------------
// Time

// A point in time: seconds since the Unix epoch and nanoseconds (0 <= nsec < 1e9).
struct TimeSpec {
    int64_t sec = 0;
    int64_t nsec = 0;
    friend auto operator<=>(const TimeSpec&, const TimeSpec&) = default;
    friend bool operator==(const TimeSpec&, const TimeSpec&) = default;
};

// Where "now" comes from for timestamps. Injected so a session can run on a virtual clock.
class Clock {
public:
    virtual ~Clock() = default;
    virtual TimeSpec now() const = 0;
};

// The host's real-time clock.
class SystemClock final : public Clock {
public:
    TimeSpec now() const override;
};

// A virtual clock: time moves only when told to, plus `tick` nanoseconds after every reading (so successive
// timestamps can be made strictly increasing). Thread-safe.
class ManualClock final : public Clock {
public:
    explicit ManualClock(TimeSpec start = {}, int64_t tick_ns = 0) : now_(start), tick_ns_(tick_ns) {}
    TimeSpec now() const override;
    void set(TimeSpec t);
    void advance(int64_t ns);

private:
    mutable std::mutex mu_;
    mutable TimeSpec now_;
    int64_t tick_ns_;
};

// A time for utimes(): leave unchanged (UTIME_OMIT), the filesystem clock's now (UTIME_NOW), or a value.
struct TimeSet {
    enum class Kind : uint8_t { omit, now, at };
    Kind kind = Kind::omit;
    TimeSpec time{};
    static TimeSet omit() { return {Kind::omit, {}}; }
    static TimeSet now() { return {Kind::now, {}}; }
    static TimeSet at(TimeSpec t) { return {Kind::at, t}; }
};

// ---------------------------------------------------------------------------------------------------------
// Metadata

using Mode = uint32_t;

constexpr std::size_t kMaxNameLength = 255;    // bytes in one path component (NAME_MAX)
constexpr std::size_t kMaxPathLength = 4096;   // a path must be shorter than this (PATH_MAX counts the NUL)
constexpr int kMaxSymlinkHops = 40;            // symlinks followed in one resolution (Linux MAXSYMLINKS)
constexpr uint64_t kReadFileDefaultMax = uint64_t{1} << 30;  // FileSystem::read_file's default cap

enum class FileType : uint8_t { regular, directory, symlink, char_device, block_device, fifo, socket, unknown };

// "regular file", "directory", "symbolic link", ... as `stat -c %F` prints them.
std::string_view file_type_name(FileType t) noexcept;

struct Stat {
    FileType type = FileType::regular;
    Mode mode = 0;           // permission bits only: 07777 (setuid, setgid, sticky, rwx for u/g/o)
    uint64_t dev = 0;        // id of the filesystem holding the file; (dev, ino) identifies a file
    uint64_t ino = 0;        // inode number, unique within dev
    uint64_t nlink = 0;      // hard links; for a directory 2 + its subdirectories
    uint32_t uid = 0;
    uint32_t gid = 0;
    uint64_t rdev = 0;       // device number of a char/block device
    uint64_t size = 0;       // bytes; for a symlink the length of its target
    uint64_t blocks = 0;     // 512-byte blocks allocated (what du counts)
    uint64_t blksize = 4096; // preferred I/O size
    TimeSpec atime, mtime, ctime;

    bool is_regular() const { return type == FileType::regular; }
    bool is_directory() const { return type == FileType::directory; }
    bool is_symlink() const { return type == FileType::symlink; }
    // mode with the S_IFMT type bits, as struct stat's st_mode (what `stat -c %f` prints in hex).
    uint32_t st_mode() const noexcept;
};

struct DirEntry {
    std::string name;   // never "." or ".."
    FileType type = FileType::unknown;
    uint64_t ino = 0;
};

// ---------------------------------------------------------------------------------------------------------
// Open files

enum class OpenFlags : uint32_t {
    none = 0,
    read = 1u << 0,
    write = 1u << 1,
    create = 1u << 2,      // O_CREAT: create a missing regular file with the given mode (follows a final
                           // dangling symlink and creates its target, as Linux does)
    exclusive = 1u << 3,   // O_EXCL with create: fail with file_exists if anything (even a symlink) is there
    truncate = 1u << 4,    // O_TRUNC with write
    append = 1u << 5,      // O_APPEND: every write goes to the end; implies write
    no_follow = 1u << 6,   // O_NOFOLLOW: a final symlink is symlink_loop
};
constexpr OpenFlags operator|(OpenFlags a, OpenFlags b) {
    return static_cast<OpenFlags>(static_cast<uint32_t>(a) | static_cast<uint32_t>(b));
}
constexpr OpenFlags operator&(OpenFlags a, OpenFlags b) {
    return static_cast<OpenFlags>(static_cast<uint32_t>(a) & static_cast<uint32_t>(b));
}
constexpr bool has(OpenFlags set, OpenFlags flag) { return (set & flag) != OpenFlags::none; }

enum class Whence : uint8_t { set, cur, end };

// An open file. It stays usable after its path is unlinked or renamed (POSIX semantics): the data lives as
// long as a handle or a name refers to it. Closed by the destructor.
//
// Opening a directory for reading succeeds (as open(2) does) but read() on it is Errc::is_directory, so
// `cat dir` and `cat < dir` print "Is a directory" the way coreutils does.
class FileHandle {
public:
    virtual ~FileHandle() = default;

    // Reads up to n bytes at the current offset and advances it; 0 means end of file.
    virtual Result<std::size_t> read(char* buf, std::size_t n) = 0;
    // Reads up to n bytes at offset without moving the current offset.
    virtual Result<std::size_t> pread(char* buf, std::size_t n, uint64_t offset) = 0;
    // Writes at the current offset (at the end with append) and advances it. Writes all of data or fails:
    // file_too_large past the size limit, no_space when the filesystem is full.
    virtual Result<std::size_t> write(std::string_view data) = 0;
    // Writes at offset without moving the current offset (with append it appends, as Linux does).
    virtual Result<std::size_t> pwrite(std::string_view data, uint64_t offset) = 0;
    // Moves the offset; a resulting negative offset is invalid_argument. Returns the new offset.
    virtual Result<uint64_t> seek(int64_t offset, Whence whence) = 0;
    // ftruncate: needs a handle opened for writing (invalid_argument otherwise, like Linux).
    virtual Status truncate(uint64_t size) = 0;
    // fstat.
    virtual Result<Stat> stat() = 0;
};

// ---------------------------------------------------------------------------------------------------------
// The filesystem

// The capacity a tree reports (what `df` shows): the limits it enforces and what is counted against them. A
// field of 0 in total_bytes or total_nodes: no such limit.
struct FsSpace {
    uint64_t total_bytes = 0;
    uint64_t used_bytes = 0;
    uint64_t total_nodes = 0;
    uint64_t used_nodes = 0;
};

class FileSystem {
public:
    virtual ~FileSystem() = default;

    // The capacity of the tree, when it has one of its own (a LimitedFs: its FsLimits); nullopt by default,
    // and a wrapper that adds nothing to the limits forwards the call.
    virtual std::optional<FsSpace> space() { return std::nullopt; }

    // stat follows a final symlink, lstat does not.
    virtual Result<Stat> stat(std::string_view path) = 0;
    virtual Result<Stat> lstat(std::string_view path) = 0;

    // Opens path. At least one of read/write/append is required (invalid_argument otherwise). Writing a
    // directory is is_directory. `mode` (permission bits) applies only when the file is created.
    virtual Result<std::unique_ptr<FileHandle>> open(std::string_view path, OpenFlags flags, Mode mode = 0644) = 0;

    // The entries of a directory (following symlinks to it), without "." and "..", in no particular order.
    virtual Result<std::vector<DirEntry>> readdir(std::string_view path) = 0;

    // Creates a directory; file_exists if anything (even a dangling symlink) is there.
    virtual Status mkdir(std::string_view path, Mode mode = 0755) = 0;
    // Removes an empty directory. not_empty, not_directory (also for a symlink to a directory), busy for
    // "/", invalid_argument for a last component ".".
    virtual Status rmdir(std::string_view path) = 0;
    // Removes a non-directory name (a symlink itself, not its target). is_directory for a directory.
    virtual Status unlink(std::string_view path) = 0;
    // POSIX rename: atomically replaces a file (or symlink) by a non-directory, or an empty directory by a
    // directory. is_directory (file onto directory), not_directory (directory onto non-directory),
    // not_empty, invalid_argument (directory into its own subtree), busy ("/", ".", ".."). Renaming a name
    // onto itself or onto another hard link of the same file succeeds and changes nothing. Symlinks are
    // renamed themselves, never followed. Across filesystems: cross_device.
    virtual Status rename(std::string_view from, std::string_view to) = 0;
    // Creates link_path as a symlink holding `target` verbatim (target may dangle; empty is no_such_file).
    virtual Status symlink(std::string_view target, std::string_view link_path) = 0;
    // The target of a symlink; invalid_argument if path is not a symlink.
    virtual Result<std::string> readlink(std::string_view path) = 0;
    // Hard link (does not follow a final symlink of `existing`). not_permitted for a directory; an
    // implementation without hard links returns not_permitted too.
    virtual Status link(std::string_view existing, std::string_view new_path) = 0;
    // Sets the permission bits (07777) of the file, following symlinks.
    virtual Status chmod(std::string_view path, Mode mode) = 0;
    // Sets owner and group, following symlinks.
    virtual Status chown(std::string_view path, uint32_t uid, uint32_t gid) = 0;
    // Sets access and modification times (ctime becomes now). follow=false changes a symlink itself
    // (touch -h).
    virtual Status utimes(std::string_view path, TimeSet atime, TimeSet mtime, bool follow = true) = 0;
    // Sets the size of a regular file (following symlinks), zero-filling when it grows.
    virtual Status truncate(std::string_view path, uint64_t size) = 0;
    // The canonical path: absolute, every symlink resolved, no ".", ".." or repeated slashes. The whole
    // path must exist (realpath(3)); no_such_file otherwise, symlink_loop after kMaxSymlinkHops links.
    virtual Result<std::string> realpath(std::string_view path) = 0;

    // lstat of each name in the directory dir, in order: what lstat(dir + "/" + name) gives for each. A file
    // system that can walks to dir once for all of them (the host tree: one directory walk and one fstatat
    // per name instead of a walk per file), which is what a status of a large tree needs; the default asks
    // lstat name by name. A name should be one component; any other (empty, ".", "..", with a '/') is
    // looked up by the full path.
    virtual std::vector<Result<Stat>> lstat_in(std::string_view dir, const std::vector<std::string>& names);

    // --- helpers built on the operations above -----------------------------------------------------------

    Result<std::unique_ptr<FileHandle>> open_read(std::string_view path);
    // Opens for writing, creating with `mode` if missing: truncating, or appending when append is true.
    Result<std::unique_ptr<FileHandle>> open_write(std::string_view path, bool append = false, Mode mode = 0644);
    // The whole content of a file; file_too_large when it is bigger than max_bytes (1 GiB unless told, so
    // a huge sparse file cannot exhaust memory: stream those through open_read instead).
    Result<std::string> read_file(std::string_view path, uint64_t max_bytes = kReadFileDefaultMax);
    // Creates or truncates the file and writes data.
    Status write_file(std::string_view path, std::string_view data, Mode mode = 0644);
    // Creates if missing and appends data.
    Status append_file(std::string_view path, std::string_view data, Mode mode = 0644);
    // mkdir -p: creates missing directories along the path (symlinks to directories are followed). Fails
    // like mkdir -p: file_exists when the last component, or a dangling symlink on the way, is not a
    // directory; not_directory when an earlier component is a file. When failed_at is given it receives the
    // path of the component that failed ("mkdir: cannot create directory 'a/f': Not a directory").
    Status mkdir_all(std::string_view path, Mode mode = 0755, std::string* failed_at = nullptr);
    // remove(3): rmdir for a directory, unlink otherwise.
    Status remove(std::string_view path);
    // rm -rf: removes path and everything below it (symlinks are removed, never followed). A missing path
    // is success. Iterative, so any depth is fine. Stops at the first error. remove_all("/") empties the
    // tree, then reports busy as rmdir("/") does.
    Status remove_all(std::string_view path);

    bool exists(std::string_view path);           // stat succeeds (a dangling symlink does not exist)
    bool lexists(std::string_view path);          // lstat succeeds
    bool is_directory(std::string_view path);     // follows symlinks
    bool is_regular_file(std::string_view path);  // follows symlinks
    bool is_symlink(std::string_view path);
};

// ---------------------------------------------------------------------------------------------------------
// Path helpers (pure, byte-wise)

inline bool is_absolute(std::string_view path) { return !path.empty() && path.front() == '/'; }

// Lexical normalisation: collapses repeated slashes, "." components and "name/.." pairs, without looking at
// the filesystem. For an absolute path ".." at the root stays at the root ("/../a" -> "/a"); a relative path
// keeps its leading ".." ("a/../../b" -> "../b") and an empty result is ".". No trailing slash except "/".
std::string normalize_path(std::string_view path);

// base + "/" + rel, or rel itself when rel is absolute; the result is not normalised.
std::string join_path(std::string_view base, std::string_view rel);

// POSIX dirname(1)/basename(1) of a path: "/a/b/" -> "/a" and "b"; "/" -> "/" and "/"; "a" -> "." and "a";
// "" -> "." and "".
std::string path_dirname(std::string_view path);
std::string path_basename(std::string_view path);

// The non-empty components of a path ("/a//b/" -> {"a", "b"}). Views into `path`.
std::vector<std::string_view> split_path(std::string_view path);
// dir + "/" + name, without doubling a slash dir ends with.
std::string join_in_dir(std::string_view dir, std::string_view name);

// The argument check every implementation starts with: Errc::ok, or no_such_file (empty),
// invalid_argument (relative or contains NUL), name_too_long (too long a path or component).
Errc check_path(std::string_view path) noexcept;

}  // namespace bashkit::vfs
