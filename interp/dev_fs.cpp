#include "interp/dev_fs.hpp"

#include <cerrno>
#include <charconv>

namespace bashkit::interp {

namespace {

using vfs::Errc;

// An open device: reads and writes go to the stream; no offsets.
class DeviceHandle final : public vfs::FileHandle {
public:
    DeviceHandle(StreamPtr s, vfs::Stat st, bool can_read, bool can_write)
        : s_(std::move(s)), st_(st), read_(can_read), write_(can_write) {}

    vfs::Result<std::size_t> read(char* buf, std::size_t n) override {
        if (!read_) return Errc::bad_descriptor;
        IoResult r = s_->read(buf, n);
        if (!r.ok()) return vfs::from_errno(r.err);
        return r.n;
    }
    vfs::Result<std::size_t> pread(char*, std::size_t, uint64_t) override { return Errc::illegal_seek; }
    vfs::Result<std::size_t> write(std::string_view data) override {
        if (!write_) return Errc::bad_descriptor;
        IoResult r = s_->write(data);
        if (!r.ok()) return vfs::from_errno(r.err);
        return r.n;
    }
    vfs::Result<std::size_t> pwrite(std::string_view, uint64_t) override { return Errc::illegal_seek; }
    vfs::Result<uint64_t> seek(int64_t, vfs::Whence) override { return Errc::illegal_seek; }
    vfs::Status truncate(uint64_t) override { return Errc::invalid_argument; }
    vfs::Result<vfs::Stat> stat() override { return st_; }

private:
    StreamPtr s_;
    vfs::Stat st_;
    bool read_, write_;
};

// /dev/full: reads zeros, every write fails with ENOSPC.
class FullStream final : public ByteStream {
public:
    explicit FullStream(const CancelToken* cancel) : zero_(cancel) {}
    bool readable() const override { return true; }
    bool writable() const override { return true; }
    IoResult read(char* buf, size_t n) override { return zero_.read(buf, n); }
    IoResult write(std::string_view) override { return {0, ENOSPC}; }
    std::string describe() const override { return "/dev/full"; }

private:
    ZeroStream zero_;
};

bool parse_fd(std::string_view s, int& out) {
    if (s.empty() || s.size() > 4) return false;
    int v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || v < 0 || v > 1023) return false;
    out = v;
    return true;
}

}  // namespace

DevicePath classify_device(std::string_view p) {
    using K = DevicePath::Kind;
    if (p == "/dev") return {K::dev_dir};
    if (!p.starts_with("/dev/")) return {};
    std::string_view d = p.substr(5);
    if (d == "null") return {K::null};
    if (d == "zero") return {K::zero};
    if (d == "full") return {K::full};
    if (d == "random" || d == "urandom") return {K::random};
    if (d == "tty") return {K::tty};
    if (d == "stdin") return {K::fd, 0};
    if (d == "stdout") return {K::fd, 1};
    if (d == "stderr") return {K::fd, 2};
    if (d == "fd") return {K::fd_dir};
    if (d.starts_with("fd/")) {
        int n = -1;
        if (parse_fd(d.substr(3), n)) return {K::fd, n};
        return {K::fd, -1};  // under /dev/fd but no descriptor number: ENOENT
    }
    return {};
}

StreamPtr open_device(const DevicePath& d, const DeviceSource& src, int& err) {
    using K = DevicePath::Kind;
    err = 0;
    switch (d.kind) {
        case K::null: return std::make_shared<NullStream>();
        case K::zero: return std::make_shared<ZeroStream>(src.cancel);
        case K::full: return std::make_shared<FullStream>(src.cancel);
        case K::random: return std::make_shared<RandomStream>(src.seed ? src.seed() : 0x51ed, src.cancel);
        case K::tty: err = ENXIO; return nullptr;
        case K::dev_dir:
        case K::fd_dir: err = EISDIR; return nullptr;
        case K::fd: {
            if (d.fd < 0) {
                err = ENOENT;
                return nullptr;
            }
            StreamPtr s = src.fd ? src.fd(d.fd) : nullptr;
            if (!s) err = EBADF;
            return s;
        }
        case K::none: break;
    }
    err = ENOENT;
    return nullptr;
}

// ---------------------------------------------------------------------------------------------------- DevFs

DevicePath DevFs::device(std::string_view path) const {
    if (path.find("/dev") == std::string_view::npos) return {};
    std::string p = vfs::normalize_path(path);
    return classify_device(p);
}

vfs::Result<vfs::Stat> DevFs::device_stat(const DevicePath& d) {
    using K = DevicePath::Kind;
    vfs::Stat st;
    st.dev = 5;  // devtmpfs-like: never equal to a file system's own dev
    st.uid = 0;
    st.gid = 0;
    switch (d.kind) {
        case K::dev_dir:
        case K::fd_dir: {
            // A host root with its own /dev keeps its directory's metadata.
            if (d.kind == K::dev_dir) {
                if (auto inner = inner_.stat("/dev")) return inner;
            }
            st.type = vfs::FileType::directory;
            st.mode = d.kind == K::dev_dir ? 0755 : 0500;
            st.nlink = 2;
            st.ino = d.kind == K::dev_dir ? 1 : 2;
            return st;
        }
        case K::fd: {
            StreamPtr s = d.fd >= 0 && src_.fd ? src_.fd(d.fd) : nullptr;
            // As Linux's /proc/self/fd: a closed descriptor has no entry (a redirection says EBADF instead).
            if (!s) return Errc::no_such_file;
            st.type = s->describe() == "pipe" ? vfs::FileType::fifo : vfs::FileType::char_device;
            st.mode = 0600;
            st.ino = 100 + static_cast<uint64_t>(d.fd);
            st.nlink = 1;
            return st;
        }
        case K::none: return Errc::no_such_file;
        default:
            st.type = vfs::FileType::char_device;
            st.mode = 0666;
            st.nlink = 1;
            st.ino = 10 + static_cast<uint64_t>(d.kind);
            st.rdev = d.kind == K::tty ? 0x500 : 0x100 + static_cast<uint64_t>(d.kind);
            return st;
    }
}

vfs::Result<vfs::Stat> DevFs::stat(std::string_view path) {
    DevicePath d = device(path);
    if (d.kind == DevicePath::Kind::none) return inner_.stat(path);
    return device_stat(d);
}

vfs::Result<vfs::Stat> DevFs::lstat(std::string_view path) {
    DevicePath d = device(path);
    if (d.kind == DevicePath::Kind::none) return inner_.lstat(path);
    return device_stat(d);
}

std::vector<vfs::Result<vfs::Stat>> DevFs::lstat_in(std::string_view dir, const std::vector<std::string>& names) {
    // Below /dev the names may be devices of ours: one by one.
    std::string norm = vfs::normalize_path(dir);
    if (norm == "/" || norm == "/dev" || norm.starts_with("/dev/")) return FileSystem::lstat_in(dir, names);
    return inner_.lstat_in(dir, names);
}

vfs::Result<std::unique_ptr<vfs::FileHandle>> DevFs::open(std::string_view path, vfs::OpenFlags flags,
                                                          vfs::Mode mode) {
    DevicePath d = device(path);
    if (d.kind == DevicePath::Kind::none) return inner_.open(path, flags, mode);
    bool w = vfs::has(flags, vfs::OpenFlags::write) || vfs::has(flags, vfs::OpenFlags::append);
    bool r = vfs::has(flags, vfs::OpenFlags::read);
    if (!r && !w) return Errc::invalid_argument;
    if (vfs::has(flags, vfs::OpenFlags::exclusive)) return Errc::file_exists;
    if (d.kind == DevicePath::Kind::dev_dir || d.kind == DevicePath::Kind::fd_dir) {
        if (w) return Errc::is_directory;
        if (d.kind == DevicePath::Kind::dev_dir && inner_.stat("/dev")) return inner_.open("/dev", flags, mode);
        // A directory opens for reading; reading it is EISDIR, as for any directory.
        auto st = device_stat(d);
        class DirHandle final : public vfs::FileHandle {
        public:
            explicit DirHandle(vfs::Stat st) : st_(st) {}
            vfs::Result<std::size_t> read(char*, std::size_t) override { return Errc::is_directory; }
            vfs::Result<std::size_t> pread(char*, std::size_t, uint64_t) override { return Errc::is_directory; }
            vfs::Result<std::size_t> write(std::string_view) override { return Errc::bad_descriptor; }
            vfs::Result<std::size_t> pwrite(std::string_view, uint64_t) override { return Errc::bad_descriptor; }
            vfs::Result<uint64_t> seek(int64_t, vfs::Whence) override { return uint64_t{0}; }
            vfs::Status truncate(uint64_t) override { return Errc::invalid_argument; }
            vfs::Result<vfs::Stat> stat() override { return st_; }

        private:
            vfs::Stat st_;
        };
        return std::unique_ptr<vfs::FileHandle>(std::make_unique<DirHandle>(*st));
    }
    int err = 0;
    StreamPtr s = open_device(d, src_, err);
    if (!s) return d.kind == DevicePath::Kind::fd ? Errc::no_such_file : vfs::from_errno(err);
    auto st = device_stat(d);
    if (!st) return st.error();
    return std::unique_ptr<vfs::FileHandle>(std::make_unique<DeviceHandle>(std::move(s), *st, r, w));
}

vfs::Result<std::vector<vfs::DirEntry>> DevFs::readdir(std::string_view path) {
    DevicePath d = device(path);
    using K = DevicePath::Kind;
    if (d.kind == K::none) return inner_.readdir(path);
    if (d.kind == K::dev_dir) {
        if (inner_.stat("/dev")) return inner_.readdir("/dev");
        std::vector<vfs::DirEntry> out;
        for (const char* n : {"fd", "full", "null", "random", "stderr", "stdin", "stdout", "tty", "urandom", "zero"}) {
            vfs::DirEntry e;
            e.name = n;
            e.type = std::string_view(n) == "fd" ? vfs::FileType::directory : vfs::FileType::char_device;
            out.push_back(std::move(e));
        }
        return out;
    }
    if (d.kind == K::fd_dir) {
        std::vector<vfs::DirEntry> out;
        for (int n = 0; n < 1024 && src_.fd; ++n) {
            if (StreamPtr s = src_.fd(n)) {
                vfs::DirEntry e;
                e.name = std::to_string(n);
                e.type = s->describe() == "pipe" ? vfs::FileType::fifo : vfs::FileType::char_device;
                out.push_back(std::move(e));
            }
        }
        return out;
    }
    return Errc::not_directory;
}

// Devices cannot be created, removed, renamed or changed; names beside them go to the inner FileSystem.

vfs::Status DevFs::mkdir(std::string_view path, vfs::Mode mode) {
    if (mine(path)) return Errc::file_exists;
    return inner_.mkdir(path, mode);
}
vfs::Status DevFs::rmdir(std::string_view path) {
    if (mine(path)) return Errc::busy;
    return inner_.rmdir(path);
}
vfs::Status DevFs::unlink(std::string_view path) {
    if (mine(path)) return Errc::not_permitted;
    return inner_.unlink(path);
}
vfs::Status DevFs::rename(std::string_view from, std::string_view to) {
    if (mine(from)) return Errc::not_permitted;
    if (mine(to)) return Errc::not_permitted;
    return inner_.rename(from, to);
}
vfs::Status DevFs::symlink(std::string_view target, std::string_view link_path) {
    if (mine(link_path)) return Errc::file_exists;
    return inner_.symlink(target, link_path);
}
vfs::Result<std::string> DevFs::readlink(std::string_view path) {
    if (mine(path)) return Errc::invalid_argument;
    return inner_.readlink(path);
}
vfs::Status DevFs::link(std::string_view existing, std::string_view new_path) {
    if (mine(existing)) return Errc::not_permitted;
    if (mine(new_path)) return Errc::not_permitted;
    return inner_.link(existing, new_path);
}
vfs::Status DevFs::chmod(std::string_view path, vfs::Mode mode) {
    if (mine(path)) return Errc::not_permitted;
    return inner_.chmod(path, mode);
}
vfs::Status DevFs::chown(std::string_view path, uint32_t uid, uint32_t gid) {
    if (mine(path)) return Errc::not_permitted;
    return inner_.chown(path, uid, gid);
}
vfs::Status DevFs::utimes(std::string_view path, vfs::TimeSet atime, vfs::TimeSet mtime, bool follow) {
    if (mine(path)) return vfs::Status{};  // touch /dev/null succeeds
    return inner_.utimes(path, atime, mtime, follow);
}
vfs::Status DevFs::truncate(std::string_view path, uint64_t size) {
    DevicePath d = device(path);
    if (d.kind == DevicePath::Kind::none) return inner_.truncate(path, size);
    return d.kind == DevicePath::Kind::dev_dir || d.kind == DevicePath::Kind::fd_dir
               ? vfs::Status(Errc::is_directory)
               : vfs::Status{};  // `: > /dev/null` truncates nothing
}
vfs::Result<std::string> DevFs::realpath(std::string_view path) {
    DevicePath d = device(path);
    if (d.kind == DevicePath::Kind::none) return inner_.realpath(path);
    auto st = device_stat(d);
    if (!st) return st.error();
    return vfs::normalize_path(path);
}

}  // namespace bashkit::interp
