// HostFs: a real host folder as the root of a virtual tree.
//
// Confinement (nothing outside the folder is ever read, listed, created, changed or deleted):
//  - The folder is opened once as an O_PATH|O_DIRECTORY descriptor. Every access afterwards is relative to a
//    descriptor reached from it, one path component at a time, with O_NOFOLLOW / AT_SYMLINK_NOFOLLOW, and
//    with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS) when the kernel has it
//    (syscall(SYS_openat2), ENOSYS detected at open). The kernel therefore never follows a symlink and never
//    sees "..": a name handed to it is a single component of the directory we stand in.
//  - Symlinks, those already in the folder and those the script makes, are followed by our own code inside
//    the virtual tree: an absolute target starts again at the virtual root, ".." at the root stays there. A
//    symlink swapped in on the host between two operations (or between two steps of one) is met by an
//    O_NOFOLLOW open or an AT_SYMLINK_NOFOLLOW call, so it is either followed virtually or refused.
//  - ".." is taken from the chain of directories the walk went through (physical semantics, like Linux),
//    re-opened from the root when an ancestor's descriptor is no longer cached, never by asking the kernel.
//  - chmod, utimes, chown and link act on a name with *_NOFOLLOW flags (fchmodat2 with AT_SYMLINK_NOFOLLOW,
//    falling back to /proc/self/fd/N on an O_PATH descriptor of a checked non-symlink).
//  - Only regular files and directories are opened; a FIFO, socket or device found in the folder is
//    permission_denied (so a planted FIFO cannot hang a reader).
//
// What a script may leave on the host, and what it learns about it:
//  - Mode bits: never setuid, setgid or sticky. Every create (open, mkdir) and every chmod masks the mode
//    with 0777, silently, so `chmod 4755 f`, `cp -p`, `install -m 6755` and `tar -xp` of a 06755 member
//    all leave a plain 0755 file. stat shows the bits the host really has. (Over the host's "/" itself,
//    i.e. no sandbox at all, the bits are kept.)
//  - Only regular files, directories and symlinks are ever created (the interface has no mknod): no device
//    node, FIFO or socket.
//  - Hard links: a regular file with more than one name may be a link planted on the host to a file
//    outside the folder, so HostFs never changes one: opening it for writing, truncate, chmod and utimes
//    are Errc::not_permitted ("Operation not permitted"); reading, rename and unlink of the name work.
//    link() is not_permitted too (no hard links on the host: one would freeze both names). A HostFs over
//    the host's "/" itself (DangerousLocalSandbox) has nothing outside: there both work as usual.
//  - Symlink targets: an absolute target the script gives is stored under the folder's canonical host
//    path (so the link works for host tools as well) and reads back as the script's own text. A link found
//    on the host whose absolute target lies below the folder shows (and is followed as) that target relative
//    to the virtual root; any other absolute target shows as kHostLinkOutsideRoot, never the host path, and
//    is followed as that path (normally dangling). lstat's size of a symlink is the length of what
//    readlink shows. (Links made by older versions, holding a bare virtual path, now show the placeholder.)
//  - Names of new entries follow check_new_name(): no NUL or control bytes.
//
// Metadata: stat reports the host's types, permission bits, sizes, inode numbers, device, link counts and
// nanosecond times; the owner is always the virtual user (options.uid/gid). chown to that user (or -1) is
// accepted and changes nothing on the host; chown to anyone else is not_permitted. Modes are exact (the
// process umask is undone with fchmod after creation) but for the masked bits below. Times come from the host kernel (TimeSet::now is
// UTIME_NOW); no Clock is involved.
//
// Permissions are the host's: running as an unprivileged user, a file the script chmods to 000 can no longer
// be read. Run as root, nothing is enforced (like MemoryFs).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "vfs/filesystem.hpp"

namespace bashkit::vfs {

struct HostFsOptions {
    uint32_t uid = 1000;  // owner reported by stat (the virtual user)
    uint32_t gid = 1000;
    bool read_only = false;  // every change is Errc::read_only (EROFS)
    // How paths are confined. automatic: openat2 when the kernel has it, else the O_NOFOLLOW walk.
    enum class Confinement : uint8_t { automatic, openat2, nofollow_walk };
    Confinement confinement = Confinement::automatic;
    // Remove the whole host folder when the HostFs is destroyed (temporary trees, tests). Never follows
    // symlinks while removing.
    bool remove_root_on_destroy = false;
};

// What readlink shows for a host symlink whose absolute target lies outside the folder.
inline constexpr std::string_view kHostLinkOutsideRoot = "/(outside-sandbox)";

namespace detail {
struct HostState;
}

class HostFs final : public FileSystem {
public:
    // Opens host_root (which must be an existing directory; symlinks in host_root itself are followed, it is
    // the embedder's choice). Errors: the errno of open(2), or not_supported when openat2 is demanded and the
    // kernel lacks it.
    static Result<std::unique_ptr<HostFs>> open(const std::string& host_root, HostFsOptions options = {});
    ~HostFs() override;
    HostFs(const HostFs&) = delete;
    HostFs& operator=(const HostFs&) = delete;

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

    // The host folder as given to open().
    const std::string& host_root() const;
    // Whether paths are confined with openat2 (false: the O_NOFOLLOW walk).
    bool uses_openat2() const;
    void set_read_only(bool read_only);

private:
    explicit HostFs(std::unique_ptr<detail::HostState> state);
    std::unique_ptr<detail::HostState> state_;
};

// Whether the running kernel has openat2(2).
bool host_has_openat2();

// Removes a host folder and everything below it without following symlinks (rm -rf). A missing folder is
// success. For session trees and tests.
Status remove_host_tree(const std::string& host_path);

}  // namespace bashkit::vfs
