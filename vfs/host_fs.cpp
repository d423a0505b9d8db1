#include "vfs/host_fs.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "vfs/limited_fs.hpp"

#ifndef SYS_fchmodat2
#define SYS_fchmodat2 452  // Linux 6.6, the same number on every architecture
#endif

namespace bashkit::vfs {
namespace {

// An owned file descriptor.
class Fd {
public:
    Fd() = default;
    explicit Fd(int fd) : fd_(fd) {}
    ~Fd() { reset(); }
    Fd(Fd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
    Fd& operator=(Fd&& other) noexcept {
        if (this != &other) {
            reset();
            fd_ = std::exchange(other.fd_, -1);
        }
        return *this;
    }
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    int get() const { return fd_; }
    bool valid() const { return fd_ >= 0; }
    int release() { return std::exchange(fd_, -1); }
    void reset() {
        if (fd_ >= 0) ::close(fd_);
        fd_ = -1;
    }

private:
    int fd_ = -1;
};

Errc last_error() { return from_errno(errno); }

bool is_single_name(std::string_view name) {
    return !name.empty() && name != "." && name != ".." && name.find('/') == std::string_view::npos &&
           name.find('\0') == std::string_view::npos;
}

}  // namespace

namespace detail {

struct HostState {
    std::string root_path;
    Fd root;
    bool openat2 = false;
    HostFsOptions opts;
    std::atomic<bool> read_only{false};
    std::string canon_root;  // the folder's canonical host path: absolute symlink targets are stored under it

    // A target the script gives symlink(): an absolute one is stored under the folder's canonical path, so
    // it also works for tools on the host and reads back as the script's own text.
    std::string to_host_target(std::string_view target) const {
        if (target.empty() || target.front() != '/' || canon_root == "/") return std::string(target);
        return canon_root + std::string(target);
    }

    // A target read from the host, as the script sees it (and as walks follow it): below the folder's
    // canonical path -> the virtual path; any other absolute target -> kHostLinkOutsideRoot, never the host
    // path; a relative target as it is.
    std::string to_virtual_target(std::string host_target) const {
        if (host_target.empty() || host_target.front() != '/' || canon_root == "/") return host_target;
        if (host_target.compare(0, canon_root.size(), canon_root) == 0) {
            if (host_target.size() == canon_root.size()) return "/";
            if (host_target[canon_root.size()] == '/') return host_target.substr(canon_root.size());
        }
        return std::string(kHostLinkOutsideRoot);
    }

    // Opens one component `name` of the directory dirfd, never following a symlink and never leaving dirfd.
    Result<Fd> open_child(int dirfd, const std::string& name, int flags, mode_t mode = 0) const {
        if (!is_single_name(name)) return Errc::invalid_argument;
        flags |= O_NOFOLLOW | O_CLOEXEC;
        for (;;) {
            long fd;
            if (openat2) {
                struct open_how how;
                std::memset(&how, 0, sizeof how);
                how.flags = static_cast<uint64_t>(flags);
                how.mode = (flags & O_CREAT) ? mode : 0;
                how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
                fd = ::syscall(SYS_openat2, dirfd, name.c_str(), &how, sizeof how);
            } else {
                fd = ::openat(dirfd, name.c_str(), flags, mode);
            }
            if (fd >= 0) return Fd(static_cast<int>(fd));
            if (errno == EINTR || errno == EAGAIN) continue;
            return last_error();
        }
    }

    // With openat2 only: opens the directory at `rel` (plain names joined by '/', no "." or "..") below
    // dirfd in one call. The kernel refuses any symlink on the way and never leaves dirfd.
    Result<Fd> open_dirs(int dirfd, const std::string& rel) const {
        if (!openat2) return Errc::not_supported;
        struct open_how how;
        std::memset(&how, 0, sizeof how);
        how.flags = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
        how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
        for (;;) {
            long fd = ::syscall(SYS_openat2, dirfd, rel.c_str(), &how, sizeof how);
            if (fd >= 0) return Fd(static_cast<int>(fd));
            if (errno == EINTR || errno == EAGAIN) continue;
            return last_error();
        }
    }
};

}  // namespace detail

namespace {

using detail::HostState;

constexpr std::size_t kFdCache = 32;  // directory descriptors a walk keeps for ".."
constexpr int kRaceRetries = 16;      // a host rename racing a walk: how many times to look again
// The permission bits a script may set on the host: never setuid, setgid or sticky (a setuid file left in a
// shared folder would run as whoever runs bashkit). Over the host's "/" itself (--host, DangerousLocalSandbox:
// no sandbox) the bits are the caller's.
Mode host_mode_mask(const HostState& hs) { return hs.canon_root == "/" ? 07777 : 0777; }

// A regular file with more than one name: the other names may lie outside the folder (planted on the host),
// so its content and metadata are never changed (Errc::not_permitted). Nothing lies outside "/" itself.
bool shared_file(const HostState& hs, const struct stat& st) {
    return S_ISREG(st.st_mode) && st.st_nlink > 1 && hs.canon_root != "/";
}

FileType type_of(mode_t m) {
    switch (m & S_IFMT) {
        case S_IFREG: return FileType::regular;
        case S_IFDIR: return FileType::directory;
        case S_IFLNK: return FileType::symlink;
        case S_IFCHR: return FileType::char_device;
        case S_IFBLK: return FileType::block_device;
        case S_IFIFO: return FileType::fifo;
        case S_IFSOCK: return FileType::socket;
        default: return FileType::unknown;
    }
}

Stat make_stat(uint32_t uid, uint32_t gid, const struct stat& s) {
    Stat out;
    out.type = type_of(s.st_mode);
    out.mode = s.st_mode & 07777;
    out.dev = s.st_dev;
    out.ino = s.st_ino;
    out.nlink = s.st_nlink;
    out.uid = uid;
    out.gid = gid;
    out.rdev = s.st_rdev;
    out.size = static_cast<uint64_t>(s.st_size);
    out.blocks = static_cast<uint64_t>(s.st_blocks);
    out.blksize = s.st_blksize > 0 ? static_cast<uint64_t>(s.st_blksize) : 4096;
    out.atime = {s.st_atim.tv_sec, s.st_atim.tv_nsec};
    out.mtime = {s.st_mtim.tv_sec, s.st_mtim.tv_nsec};
    out.ctime = {s.st_ctim.tv_sec, s.st_ctim.tv_nsec};
    return out;
}

bool has_trailing_slash(std::string_view path) { return path.size() > 1 && path.back() == '/'; }

// The chain of directories a walk stands in: the canonical names from the root, and descriptors for the
// deepest kFdCache of them (re-opened from the root when ".." climbs past the cache).
class DirStack {
public:
    explicit DirStack(const HostState& hs) : hs_(&hs) {}

    int fd() const { return fds_.empty() ? hs_->root.get() : fds_.back().get(); }
    bool at_root() const { return names_.empty(); }
    const std::vector<std::string>& names() const { return names_; }

    void push(std::string name, Fd fd) {
        names_.push_back(std::move(name));
        fds_.push_back(std::move(fd));
        if (fds_.size() > kFdCache) fds_.erase(fds_.begin());
    }

    // Several levels at once, with the descriptor of the deepest only.
    void push_many(std::vector<std::string>&& names, Fd fd) {
        for (std::string& n : names) names_.push_back(std::move(n));
        fds_.clear();
        fds_.push_back(std::move(fd));
    }

    // "..": the parent, never above the root.
    Errc pop() {
        if (names_.empty()) return Errc::ok;
        names_.pop_back();
        fds_.pop_back();
        if (fds_.empty() && !names_.empty()) return refill();
        return Errc::ok;
    }

    void reset() {
        names_.clear();
        fds_.clear();
    }

    std::string path() const {
        if (names_.empty()) return "/";
        std::string out;
        for (const std::string& n : names_) {
            out += '/';
            out += n;
        }
        return out;
    }

private:
    // Re-opens the directories of names_ from the root, keeping the deepest kFdCache descriptors.
    Errc refill() {
        fds_.clear();
        if (hs_->openat2) {
            std::string rel;
            for (const std::string& n : names_) {
                if (!rel.empty()) rel += '/';
                rel += n;
            }
            if (auto fd = hs_->open_dirs(hs_->root.get(), rel)) {
                fds_.push_back(std::move(*fd));
                return Errc::ok;
            }
        }
        Fd cur;
        for (std::size_t i = 0; i < names_.size(); ++i) {
            int parent = cur.valid() ? cur.get() : hs_->root.get();
            auto next = hs_->open_child(parent, names_[i], O_PATH | O_DIRECTORY);
            if (!next) return next.error() == Errc::symlink_loop ? Errc::no_such_file : next.error();
            if (names_.size() - i <= kFdCache) {
                // Keep it: a duplicate is needed to continue the walk from it.
                int dup = ::fcntl(next->get(), F_DUPFD_CLOEXEC, 0);
                if (dup < 0) return last_error();
                fds_.emplace_back(dup);
            }
            cur = std::move(*next);
        }
        return Errc::ok;
    }

    const HostState* hs_;
    std::vector<std::string> names_;
    std::vector<Fd> fds_;
};

// The outcome of resolving a path.
struct Walked {
    explicit Walked(const HostState& hs) : dirs(hs) {}
    DirStack dirs;            // the directory holding the final entry; the final directory itself when dots
    std::string name;         // the final entry's name (empty when dots)
    bool exists = false;
    struct stat st {};        // lstat of the final entry (of the directory itself when dots)
    const char* dots = "";    // "/", "." or ".." when the path ends on a directory rather than a name
    bool trailing = false;

    bool is_name() const { return dots[0] == '\0'; }
    FileType type() const { return type_of(st.st_mode); }
    bool is_dir() const { return S_ISDIR(st.st_mode); }
    bool slash_on_non_dir() const { return trailing && exists && !is_dir(); }
    int dirfd() const { return dirs.fd(); }
    // The name for an *at() call: the entry, or "" (with AT_EMPTY_PATH) for the directory itself.
    const char* at_name() const { return is_name() ? name.c_str() : ""; }
    int at_flags() const { return is_name() ? AT_SYMLINK_NOFOLLOW : AT_EMPTY_PATH; }
    std::string canonical() const {
        if (!is_name()) return dirs.path();
        std::string p = dirs.path();
        if (p.size() > 1) p += '/';
        p += name;
        return p;
    }
};

Errc read_link_at(int dirfd, const char* name, std::string& out) {
    char buf[kMaxPathLength + 1];
    ssize_t n = ::readlinkat(dirfd, name, buf, sizeof buf);
    if (n < 0) return last_error();
    if (static_cast<std::size_t>(n) >= kMaxPathLength) return Errc::name_too_long;
    out.assign(buf, static_cast<std::size_t>(n));
    return Errc::ok;
}

// Walks path from the virtual root, component by component (see the header). Symlinks in the middle are
// always followed, the final one only with follow_last.
Errc walk(const HostState& hs, std::string_view path, bool follow_last, Walked& w) {
    if (Errc e = check_path(path); e != Errc::ok) return e;
    w.trailing = has_trailing_slash(path);
    std::vector<std::string> todo;
    for (std::string_view part : split_path(path)) todo.emplace_back(part);
    std::reverse(todo.begin(), todo.end());
    int hops = 0;
    int races = 0;
    const char* final_dots = "/";
    while (!todo.empty()) {
        std::string comp;
        comp.swap(todo.back());
        todo.pop_back();
        const bool last = todo.empty();
        if (comp == "." || comp == "..") {
            if (comp == "..") {
                if (Errc e = w.dirs.pop(); e != Errc::ok) return e;
            }
            if (last) {
                final_dots = comp == "." ? "." : "..";
                break;
            }
            continue;
        }
        if (comp.size() > kMaxNameLength) return Errc::name_too_long;
        if (!last && hs.openat2 && todo.size() >= 2) {
            // Fast path: this and the following plain names (not the last one) in one openat2 call, which
            // fails on any symlink; then the walk goes on one component at a time from where it was.
            std::size_t k = 0;  // how many of the following components join
            while (k + 2 <= todo.size()) {
                const std::string& next = todo[todo.size() - 1 - k];
                if (next == "." || next == ".." || next.size() > kMaxNameLength) break;
                ++k;
            }
            if (k > 0) {
                std::string rel = comp;
                for (std::size_t i = 0; i < k; ++i) {
                    rel += '/';
                    rel += todo[todo.size() - 1 - i];
                }
                if (auto fd = hs.open_dirs(w.dirs.fd(), rel)) {
                    std::vector<std::string> names;
                    names.push_back(std::move(comp));
                    for (std::size_t i = 0; i < k; ++i) {
                        names.push_back(std::move(todo.back()));
                        todo.pop_back();
                    }
                    w.dirs.push_many(std::move(names), std::move(*fd));
                    continue;
                }
            }
        }
        if (!last) {
            // The common case first: a directory, opened without following anything.
            auto fd = hs.open_child(w.dirs.fd(), comp, O_PATH | O_DIRECTORY);
            if (fd) {
                w.dirs.push(std::move(comp), std::move(*fd));
                continue;
            }
            if (fd.error() != Errc::not_directory && fd.error() != Errc::symlink_loop) return fd.error();
        }
        struct stat st;
        if (::fstatat(w.dirs.fd(), comp.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno == ENOENT && last) {
                w.name = std::move(comp);
                w.exists = false;
                return Errc::ok;
            }
            return last_error();
        }
        if (S_ISLNK(st.st_mode) && (!last || follow_last)) {
            if (++hops > kMaxSymlinkHops) return Errc::symlink_loop;
            std::string target;
            if (Errc e = read_link_at(w.dirs.fd(), comp.c_str(), target); e != Errc::ok) {
                if (e == Errc::invalid_argument && ++races <= kRaceRetries) {  // no longer a symlink
                    todo.push_back(std::move(comp));
                    continue;
                }
                return e;
            }
            if (target.empty()) return Errc::no_such_file;
            target = hs.to_virtual_target(std::move(target));
            std::vector<std::string_view> parts = split_path(target);
            if (target.back() == '/' && !parts.empty()) todo.emplace_back(".");
            for (auto it = parts.rbegin(); it != parts.rend(); ++it) todo.emplace_back(*it);
            if (target.front() == '/') w.dirs.reset();
            final_dots = "/";
            continue;
        }
        if (!last) {
            if (S_ISDIR(st.st_mode) && ++races <= kRaceRetries) {  // swapped back and forth: look again
                todo.push_back(std::move(comp));
                continue;
            }
            return S_ISDIR(st.st_mode) ? Errc::io_error : Errc::not_directory;
        }
        w.name = std::move(comp);
        w.exists = true;
        w.st = st;
        return Errc::ok;
    }
    w.dots = final_dots;
    w.exists = true;
    if (::fstatat(w.dirs.fd(), "", &w.st, AT_EMPTY_PATH) != 0) return last_error();
    return Errc::ok;
}

// chmod of one entry without following a symlink.
Errc chmod_entry(const HostState& hs, int dirfd, const char* name, int at_flags, Mode mode) {
    mode &= host_mode_mask(hs);
    if (::syscall(SYS_fchmodat2, dirfd, name, mode, at_flags) == 0) return Errc::ok;
    if (errno != ENOSYS && errno != EINVAL) return last_error();
    // Older kernels: through /proc/self/fd on an O_PATH descriptor checked not to be a symlink.
    Fd own;
    int fd = dirfd;
    if (name[0] != '\0') {
        auto opened = hs.open_child(dirfd, name, O_PATH);
        if (!opened) return opened.error();
        own = std::move(*opened);
        fd = own.get();
    }
    struct stat st;
    if (::fstat(fd, &st) != 0) return last_error();
    if (S_ISLNK(st.st_mode)) return Errc::not_supported;
    std::string proc = "/proc/self/fd/" + std::to_string(fd);
    if (::chmod(proc.c_str(), mode) != 0) return last_error();
    return Errc::ok;
}

// ---------------------------------------------------------------------------------------------------------

class HostHandle final : public FileHandle {
public:
    HostHandle(Fd fd, bool readable, bool writable, bool append, bool dir)
        : fd_(std::move(fd)), readable_(readable), writable_(writable), append_(append), dir_(dir) {}

    Result<std::size_t> read(char* buf, std::size_t n) override {
        if (Errc e = check_read(); e != Errc::ok) return e;
        for (;;) {
            ssize_t got = ::read(fd_.get(), buf, n);
            if (got >= 0) return static_cast<std::size_t>(got);
            if (errno != EINTR) return last_error();
        }
    }

    Result<std::size_t> pread(char* buf, std::size_t n, uint64_t offset) override {
        if (Errc e = check_read(); e != Errc::ok) return e;
        if (offset > static_cast<uint64_t>(INT64_MAX)) return std::size_t{0};
        for (;;) {
            ssize_t got = ::pread(fd_.get(), buf, n, static_cast<off_t>(offset));
            if (got >= 0) return static_cast<std::size_t>(got);
            if (errno != EINTR) return last_error();
        }
    }

    Result<std::size_t> write(std::string_view data) override {
        if (!writable_) return Errc::bad_descriptor;
        std::size_t done = 0;
        while (done < data.size()) {
            ssize_t n = ::write(fd_.get(), data.data() + done, data.size() - done);
            if (n < 0) {
                if (errno == EINTR) continue;
                return last_error();
            }
            done += static_cast<std::size_t>(n);
        }
        return data.size();
    }

    Result<std::size_t> pwrite(std::string_view data, uint64_t offset) override {
        if (!writable_) return Errc::bad_descriptor;
        if (offset > static_cast<uint64_t>(INT64_MAX) || data.size() > static_cast<uint64_t>(INT64_MAX) - offset) {
            return Errc::file_too_large;
        }
        std::size_t done = 0;
        while (done < data.size()) {
            ssize_t n = ::pwrite(fd_.get(), data.data() + done, data.size() - done,
                                 static_cast<off_t>(offset + (append_ ? 0 : done)));
            if (n < 0) {
                if (errno == EINTR) continue;
                return last_error();
            }
            done += static_cast<std::size_t>(n);
        }
        return data.size();
    }

    Result<uint64_t> seek(int64_t offset, Whence whence) override {
        if (dir_) {
            std::lock_guard lock(mu_);
            int64_t base = whence == Whence::cur ? dir_offset_ : 0;
            if ((offset > 0 && base > INT64_MAX - offset) || base + offset < 0) return Errc::invalid_argument;
            dir_offset_ = base + offset;
            return static_cast<uint64_t>(dir_offset_);
        }
        int w = whence == Whence::set ? SEEK_SET : whence == Whence::cur ? SEEK_CUR : SEEK_END;
        off_t pos = ::lseek(fd_.get(), static_cast<off_t>(offset), w);
        if (pos < 0) return last_error();
        return static_cast<uint64_t>(pos);
    }

    Status truncate(uint64_t size) override {
        if (!writable_ || dir_) return Errc::invalid_argument;
        if (size > static_cast<uint64_t>(INT64_MAX)) return Errc::file_too_large;
        while (::ftruncate(fd_.get(), static_cast<off_t>(size)) != 0) {
            if (errno != EINTR) return last_error();
        }
        return {};
    }

    Result<Stat> stat() override {
        struct stat st;
        if (::fstat(fd_.get(), &st) != 0) return last_error();
        return make_stat(uid, gid, st);
    }

    uint32_t uid = 1000;
    uint32_t gid = 1000;

private:
    Errc check_read() const {
        if (!readable_) return Errc::bad_descriptor;
        if (dir_) return Errc::is_directory;
        return Errc::ok;
    }

    Fd fd_;
    const bool readable_;
    const bool writable_;
    const bool append_;
    const bool dir_;
    std::mutex mu_;
    int64_t dir_offset_ = 0;
};

Errc check_times(const TimeSet& t) {
    if (t.kind == TimeSet::Kind::at && (t.time.nsec < 0 || t.time.nsec >= 1'000'000'000)) {
        return Errc::invalid_argument;
    }
    return Errc::ok;
}

struct timespec to_timespec(const TimeSet& t) {
    struct timespec ts {};
    switch (t.kind) {
        case TimeSet::Kind::omit: ts.tv_nsec = UTIME_OMIT; break;
        case TimeSet::Kind::now: ts.tv_nsec = UTIME_NOW; break;
        case TimeSet::Kind::at:
            ts.tv_sec = static_cast<time_t>(t.time.sec);
            ts.tv_nsec = static_cast<long>(t.time.nsec);
            break;
    }
    return ts;
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------

bool host_has_openat2() {
    struct open_how how;
    std::memset(&how, 0, sizeof how);
    how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
    how.resolve = RESOLVE_BENEATH;
    long fd = ::syscall(SYS_openat2, AT_FDCWD, ".", &how, sizeof how);
    if (fd < 0) return false;
    ::close(static_cast<int>(fd));
    return true;
}

Status remove_host_tree(const std::string& host_path) {
    // std::filesystem::remove_all removes symlinks themselves and never follows them.
    std::error_code ec;
    std::filesystem::remove_all(host_path, ec);
    if (ec) return from_errno(ec.value());
    return {};
}

Result<std::unique_ptr<HostFs>> HostFs::open(const std::string& host_root, HostFsOptions options) {
    auto state = std::make_unique<detail::HostState>();
    state->root_path = host_root;
    state->opts = options;
    state->read_only.store(options.read_only);
    int fd = ::open(host_root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return last_error();
    state->root = Fd(fd);
    std::error_code ec;
    std::filesystem::path canon = std::filesystem::canonical(host_root, ec);
    state->canon_root = ec ? host_root : canon.string();
    while (state->canon_root.size() > 1 && state->canon_root.back() == '/') state->canon_root.pop_back();
    const bool have = host_has_openat2();
    switch (options.confinement) {
        case HostFsOptions::Confinement::automatic: state->openat2 = have; break;
        case HostFsOptions::Confinement::openat2:
            if (!have) return Errc::not_supported;
            state->openat2 = true;
            break;
        case HostFsOptions::Confinement::nofollow_walk: state->openat2 = false; break;
    }
    return std::unique_ptr<HostFs>(new HostFs(std::move(state)));
}

HostFs::HostFs(std::unique_ptr<detail::HostState> state) : state_(std::move(state)) {}

HostFs::~HostFs() {
    if (state_ && state_->opts.remove_root_on_destroy) {
        state_->root.reset();
        (void)remove_host_tree(state_->root_path);
    }
}

const std::string& HostFs::host_root() const { return state_->root_path; }
bool HostFs::uses_openat2() const { return state_->openat2; }
void HostFs::set_read_only(bool read_only) { state_->read_only.store(read_only); }

Result<Stat> HostFs::stat(std::string_view path) {
    Walked w(*state_);
    if (Errc e = walk(*state_, path, true, w); e != Errc::ok) return e;
    if (!w.exists) return Errc::no_such_file;
    if (w.slash_on_non_dir()) return Errc::not_directory;
    return make_stat(state_->opts.uid, state_->opts.gid, w.st);
}

Result<Stat> HostFs::lstat(std::string_view path) {
    Walked w(*state_);
    if (Errc e = walk(*state_, path, has_trailing_slash(path), w); e != Errc::ok) return e;
    if (!w.exists) return Errc::no_such_file;
    if (w.slash_on_non_dir()) return Errc::not_directory;
    Stat st = make_stat(state_->opts.uid, state_->opts.gid, w.st);
    if (S_ISLNK(w.st.st_mode) && w.is_name()) {
        // The size of a symlink is the length of the target the script sees.
        std::string target;
        if (read_link_at(w.dirfd(), w.name.c_str(), target) == Errc::ok) {
            st.size = state_->to_virtual_target(std::move(target)).size();
        }
    }
    return st;
}

std::vector<Result<Stat>> HostFs::lstat_in(std::string_view dir, const std::vector<std::string>& names) {
    HostState& hs = *state_;
    Walked w(hs);
    // Anything but a directory reached without trouble: name by name, so the errors are lstat's own.
    if (walk(hs, dir, true, w) != Errc::ok || !w.exists || !w.is_dir()) return FileSystem::lstat_in(dir, names);
    Fd opened;
    int dirfd = w.dirfd();
    if (w.is_name()) {
        auto fd = hs.open_child(w.dirfd(), w.name, O_PATH | O_DIRECTORY);
        if (!fd) return FileSystem::lstat_in(dir, names);
        opened = std::move(*fd);
        dirfd = opened.get();
    }
    std::vector<Result<Stat>> out;
    out.reserve(names.size());
    for (const std::string& name : names) {
        if (!is_single_name(name) || name.size() > kMaxNameLength) {
            out.push_back(lstat(join_in_dir(dir, name)));
            continue;
        }
        struct stat st;
        if (::fstatat(dirfd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
            out.push_back(last_error());
            continue;
        }
        Stat s = make_stat(hs.opts.uid, hs.opts.gid, st);
        if (S_ISLNK(st.st_mode)) {
            // As lstat: the size of a symlink is the length of the target the script sees.
            std::string target;
            if (read_link_at(dirfd, name.c_str(), target) == Errc::ok) s.size = hs.to_virtual_target(std::move(target)).size();
        }
        out.push_back(s);
    }
    return out;
}

Result<std::unique_ptr<FileHandle>> HostFs::open(std::string_view path, OpenFlags flags, Mode mode) {
    const bool want_read = has(flags, OpenFlags::read);
    const bool append = has(flags, OpenFlags::append);
    const bool want_write = has(flags, OpenFlags::write) || append;
    const bool create = has(flags, OpenFlags::create);
    const bool exclusive = create && has(flags, OpenFlags::exclusive);
    const bool truncate = want_write && has(flags, OpenFlags::truncate);
    if (!want_read && !want_write) return Errc::invalid_argument;
    HostState& hs = *state_;

    const bool follow = !(exclusive || has(flags, OpenFlags::no_follow)) || has_trailing_slash(path);
    int access = want_read && want_write ? O_RDWR : want_write ? O_WRONLY : O_RDONLY;
    if (append) access |= O_APPEND;

    for (int attempt = 0;; ++attempt) {
        Walked w(hs);
        if (Errc e = walk(hs, path, follow, w); e != Errc::ok) return e;
        if (w.exists) {
            if (exclusive) return Errc::file_exists;
            if (w.slash_on_non_dir()) return Errc::not_directory;
            if (S_ISLNK(w.st.st_mode)) return Errc::symlink_loop;  // only reached with no_follow
            if (w.is_dir()) {
                if (want_write) return Errc::is_directory;
                Fd fd;
                if (w.is_name()) {
                    auto opened = hs.open_child(w.dirfd(), w.name, O_PATH | O_DIRECTORY);
                    if (!opened) return opened.error();
                    fd = std::move(*opened);
                } else {
                    int dup = ::fcntl(w.dirfd(), F_DUPFD_CLOEXEC, 0);
                    if (dup < 0) return last_error();
                    fd = Fd(dup);
                }
                auto h = std::make_unique<HostHandle>(std::move(fd), true, false, false, true);
                h->uid = hs.opts.uid;
                h->gid = hs.opts.gid;
                return std::unique_ptr<FileHandle>(std::move(h));
            }
            if (!S_ISREG(w.st.st_mode)) return Errc::permission_denied;
            if (want_write && hs.read_only.load()) return Errc::read_only;
            auto opened = hs.open_child(w.dirfd(), w.name, access | O_NONBLOCK | O_NOCTTY);
            if (!opened) {
                // Replaced on the host by a symlink or removed since the walk: resolve again.
                if ((opened.error() == Errc::symlink_loop || opened.error() == Errc::no_such_file) &&
                    attempt < kRaceRetries) {
                    continue;
                }
                return opened.error();
            }
            struct stat st;
            if (::fstat(opened->get(), &st) != 0) return last_error();
            if (!S_ISREG(st.st_mode)) return S_ISDIR(st.st_mode) ? Errc::is_directory : Errc::permission_denied;
            if (want_write && shared_file(hs, st)) return Errc::not_permitted;
            // Back to blocking mode for regular files (O_NONBLOCK only guarded the open).
            int fl = ::fcntl(opened->get(), F_GETFL);
            if (fl >= 0) (void)::fcntl(opened->get(), F_SETFL, fl & ~O_NONBLOCK);
            if (truncate) {
                while (::ftruncate(opened->get(), 0) != 0) {
                    if (errno != EINTR) return last_error();
                }
            }
            auto h = std::make_unique<HostHandle>(std::move(*opened), want_read, want_write, append, false);
            h->uid = hs.opts.uid;
            h->gid = hs.opts.gid;
            return std::unique_ptr<FileHandle>(std::move(h));
        }
        if (!create) return Errc::no_such_file;
        if (w.trailing) return Errc::is_directory;
        if (hs.read_only.load()) return Errc::read_only;
        if (Errc e = check_new_name(w.name); e != Errc::ok) return e;
        auto opened = hs.open_child(w.dirfd(), w.name, access | O_CREAT | O_EXCL | O_NOCTTY, mode & host_mode_mask(hs));
        if (!opened) {
            if (opened.error() == Errc::file_exists && !exclusive && attempt < kRaceRetries) continue;
            return opened.error();
        }
        // Undo the umask: the mode is exact.
        if (::fchmod(opened->get(), mode & host_mode_mask(hs)) != 0) return last_error();
        auto h = std::make_unique<HostHandle>(std::move(*opened), want_read, want_write, append, false);
        h->uid = hs.opts.uid;
        h->gid = hs.opts.gid;
        return std::unique_ptr<FileHandle>(std::move(h));
    }
}

Result<std::vector<DirEntry>> HostFs::readdir(std::string_view path) {
    HostState& hs = *state_;
    Walked w(hs);
    if (Errc e = walk(hs, path, true, w); e != Errc::ok) return e;
    if (!w.exists) return Errc::no_such_file;
    if (!w.is_dir()) return Errc::not_directory;
    Fd fd;
    if (w.is_name()) {
        auto opened = hs.open_child(w.dirfd(), w.name, O_RDONLY | O_DIRECTORY);
        if (!opened) return opened.error() == Errc::symlink_loop ? Errc::no_such_file : opened.error();
        fd = std::move(*opened);
    } else {
        int f = ::openat(w.dirfd(), ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (f < 0) return last_error();
        fd = Fd(f);
    }
    DIR* dir = ::fdopendir(fd.get());
    if (!dir) return last_error();
    (void)fd.release();  // owned by dir now
    std::vector<DirEntry> out;
    errno = 0;
    while (struct dirent* d = ::readdir(dir)) {
        std::string_view name(d->d_name);
        if (name == "." || name == "..") continue;
        FileType t = FileType::unknown;
        switch (d->d_type) {
            case DT_REG: t = FileType::regular; break;
            case DT_DIR: t = FileType::directory; break;
            case DT_LNK: t = FileType::symlink; break;
            case DT_CHR: t = FileType::char_device; break;
            case DT_BLK: t = FileType::block_device; break;
            case DT_FIFO: t = FileType::fifo; break;
            case DT_SOCK: t = FileType::socket; break;
            default: break;
        }
        out.push_back({std::string(name), t, static_cast<uint64_t>(d->d_ino)});
    }
    Errc err = errno != 0 ? last_error() : Errc::ok;
    ::closedir(dir);
    if (err != Errc::ok) return err;
    return out;
}

Status HostFs::mkdir(std::string_view path, Mode mode) {
    HostState& hs = *state_;
    Walked w(hs);
    if (Errc e = walk(hs, path, false, w); e != Errc::ok) return e;
    if (w.exists) return Errc::file_exists;
    if (hs.read_only.load()) return Errc::read_only;
    if (Errc e = check_new_name(w.name); e != Errc::ok) return e;
    if (::mkdirat(w.dirfd(), w.name.c_str(), mode & host_mode_mask(hs)) != 0) return last_error();
    // Undo the umask on the directory we just made (by name, never following a symlink).
    if (Errc e = chmod_entry(hs, w.dirfd(), w.name.c_str(), AT_SYMLINK_NOFOLLOW, mode); e != Errc::ok) return e;
    return {};
}

Status HostFs::rmdir(std::string_view path) {
    HostState& hs = *state_;
    Walked w(hs);
    if (Errc e = walk(hs, path, false, w); e != Errc::ok) return e;
    if (std::string_view(w.dots) == "/") return Errc::busy;
    if (std::string_view(w.dots) == ".") return Errc::invalid_argument;
    if (std::string_view(w.dots) == "..") return Errc::not_empty;
    if (!w.exists) return Errc::no_such_file;
    if (!w.is_dir()) return Errc::not_directory;
    if (hs.read_only.load()) return Errc::read_only;
    if (::unlinkat(w.dirfd(), w.name.c_str(), AT_REMOVEDIR) != 0) return last_error();
    return {};
}

Status HostFs::unlink(std::string_view path) {
    HostState& hs = *state_;
    Walked w(hs);
    if (Errc e = walk(hs, path, false, w); e != Errc::ok) return e;
    if (!w.exists) return Errc::no_such_file;
    if (w.slash_on_non_dir()) return Errc::not_directory;
    if (w.is_dir()) return Errc::is_directory;
    if (hs.read_only.load()) return Errc::read_only;
    if (::unlinkat(w.dirfd(), w.name.c_str(), 0) != 0) return last_error();
    return {};
}

Status HostFs::rename(std::string_view from, std::string_view to) {
    HostState& hs = *state_;
    Walked wf(hs);
    if (Errc e = walk(hs, from, false, wf); e != Errc::ok) return e;
    Walked wt(hs);
    if (Errc e = walk(hs, to, false, wt); e != Errc::ok) return e;
    if (!wf.exists) return Errc::no_such_file;
    if (!wf.is_name() || !wt.is_name()) return Errc::busy;
    const bool src_dir = wf.is_dir();
    if (!src_dir && (wf.trailing || wt.trailing)) return Errc::not_directory;
    if (wt.exists && wt.st.st_dev == wf.st.st_dev && wt.st.st_ino == wf.st.st_ino) return {};
    if (hs.read_only.load()) return Errc::read_only;
    if (Errc e = check_new_name(wt.name); e != Errc::ok) return e;
    if (::renameat(wf.dirfd(), wf.name.c_str(), wt.dirfd(), wt.name.c_str()) != 0) return last_error();
    return {};
}

Status HostFs::symlink(std::string_view target, std::string_view link_path) {
    if (target.empty()) return Errc::no_such_file;
    if (target.find('\0') != std::string_view::npos) return Errc::invalid_argument;
    if (target.size() >= kMaxPathLength) return Errc::name_too_long;
    HostState& hs = *state_;
    Walked w(hs);
    if (Errc e = walk(hs, link_path, false, w); e != Errc::ok) return e;
    if (w.exists) return Errc::file_exists;
    if (w.trailing) return Errc::no_such_file;
    if (hs.read_only.load()) return Errc::read_only;
    if (Errc e = check_new_name(w.name); e != Errc::ok) return e;
    std::string t = hs.to_host_target(target);
    if (t.size() >= kMaxPathLength) return Errc::name_too_long;
    if (::symlinkat(t.c_str(), w.dirfd(), w.name.c_str()) != 0) return last_error();
    return {};
}

Result<std::string> HostFs::readlink(std::string_view path) {
    HostState& hs = *state_;
    Walked w(hs);
    if (Errc e = walk(hs, path, has_trailing_slash(path), w); e != Errc::ok) return e;
    if (!w.exists) return Errc::no_such_file;
    if (w.slash_on_non_dir()) return Errc::not_directory;
    if (!S_ISLNK(w.st.st_mode)) return Errc::invalid_argument;
    std::string target;
    if (Errc e = read_link_at(w.dirfd(), w.name.c_str(), target); e != Errc::ok) return e;
    return hs.to_virtual_target(std::move(target));
}

Status HostFs::link(std::string_view existing, std::string_view new_path) {
    HostState& hs = *state_;
    Walked we(hs);
    if (Errc e = walk(hs, existing, has_trailing_slash(existing), we); e != Errc::ok) return e;
    if (!we.exists) return Errc::no_such_file;
    if (we.slash_on_non_dir()) return Errc::not_directory;
    if (we.is_dir()) return Errc::not_permitted;
    Walked wn(hs);
    if (Errc e = walk(hs, new_path, false, wn); e != Errc::ok) return e;
    if (wn.exists) return Errc::file_exists;
    if (wn.trailing) return Errc::no_such_file;
    if (hs.read_only.load()) return Errc::read_only;
    // No hard links on the host: a file with several names is one HostFs never changes (see shared_file),
    // so a link made here would freeze both names. Only a HostFs over the host's "/" makes them.
    if (hs.canon_root != "/") return Errc::not_permitted;
    if (Errc e = check_new_name(wn.name); e != Errc::ok) return e;
    if (::linkat(we.dirfd(), we.name.c_str(), wn.dirfd(), wn.name.c_str(), 0) != 0) return last_error();
    return {};
}

Status HostFs::chmod(std::string_view path, Mode mode) {
    HostState& hs = *state_;
    Walked w(hs);
    if (Errc e = walk(hs, path, true, w); e != Errc::ok) return e;
    if (!w.exists) return Errc::no_such_file;
    if (w.slash_on_non_dir()) return Errc::not_directory;
    if (hs.read_only.load()) return Errc::read_only;
    if (shared_file(hs, w.st)) return Errc::not_permitted;
    return chmod_entry(hs, w.dirfd(), w.at_name(), w.at_flags(), mode);
}

Status HostFs::chown(std::string_view path, uint32_t uid, uint32_t gid) {
    HostState& hs = *state_;
    Walked w(hs);
    if (Errc e = walk(hs, path, true, w); e != Errc::ok) return e;
    if (!w.exists) return Errc::no_such_file;
    if (w.slash_on_non_dir()) return Errc::not_directory;
    if (hs.read_only.load()) return Errc::read_only;
    const bool uid_ok = uid == static_cast<uint32_t>(-1) || uid == hs.opts.uid;
    const bool gid_ok = gid == static_cast<uint32_t>(-1) || gid == hs.opts.gid;
    if (!uid_ok || !gid_ok) return Errc::not_permitted;
    return {};
}

Status HostFs::utimes(std::string_view path, TimeSet atime, TimeSet mtime, bool follow) {
    HostState& hs = *state_;
    Walked w(hs);
    if (Errc e = walk(hs, path, follow || has_trailing_slash(path), w); e != Errc::ok) return e;
    if (!w.exists) return Errc::no_such_file;
    if (w.slash_on_non_dir()) return Errc::not_directory;
    if (atime.kind == TimeSet::Kind::omit && mtime.kind == TimeSet::Kind::omit) return {};
    if (hs.read_only.load()) return Errc::read_only;
    if (shared_file(hs, w.st)) return Errc::not_permitted;
    if (Errc e = check_times(atime); e != Errc::ok) return e;
    if (Errc e = check_times(mtime); e != Errc::ok) return e;
    struct timespec ts[2] = {to_timespec(atime), to_timespec(mtime)};
    if (::utimensat(w.dirfd(), w.at_name(), ts, w.at_flags()) != 0) return last_error();
    return {};
}

Status HostFs::truncate(std::string_view path, uint64_t size) {
    HostState& hs = *state_;
    Walked w(hs);
    if (Errc e = walk(hs, path, true, w); e != Errc::ok) return e;
    if (!w.exists) return Errc::no_such_file;
    if (w.slash_on_non_dir()) return Errc::not_directory;
    if (w.is_dir()) return Errc::is_directory;
    if (!S_ISREG(w.st.st_mode)) return Errc::invalid_argument;
    if (hs.read_only.load()) return Errc::read_only;
    if (size > static_cast<uint64_t>(INT64_MAX)) return Errc::file_too_large;
    auto fd = hs.open_child(w.dirfd(), w.name, O_WRONLY | O_NONBLOCK | O_NOCTTY);
    if (!fd) return fd.error();
    struct stat st;
    if (::fstat(fd->get(), &st) != 0) return last_error();
    if (!S_ISREG(st.st_mode)) return Errc::invalid_argument;
    if (shared_file(hs, st)) return Errc::not_permitted;
    while (::ftruncate(fd->get(), static_cast<off_t>(size)) != 0) {
        if (errno != EINTR) return last_error();
    }
    return {};
}

Result<std::string> HostFs::realpath(std::string_view path) {
    HostState& hs = *state_;
    Walked w(hs);
    if (Errc e = walk(hs, path, true, w); e != Errc::ok) return e;
    if (!w.exists) return Errc::no_such_file;
    if (w.slash_on_non_dir()) return Errc::not_directory;
    return w.canonical();
}

}  // namespace bashkit::vfs
