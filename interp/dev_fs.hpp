// /dev as the interpreter provides it: devices (null, zero, full, random, urandom, tty) and the shell's file
// descriptors (stdin, stdout, stderr, fd/N), for redirections, file tests and - through DevFs - utilities
// that open them by name (`cat <(cmd)`, `diff <(a) <(b)`, `sort -o /dev/stdout`).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "interp/stream.hpp"
#include "vfs/filesystem.hpp"

namespace bashkit::interp {

using StreamPtr = std::shared_ptr<ByteStream>;

// What a normalised absolute path names under /dev.
struct DevicePath {
    enum class Kind : uint8_t { none, dev_dir, fd_dir, null, zero, full, random, tty, fd };
    Kind kind = Kind::none;
    int fd = -1;  // for Kind::fd: 0 for /dev/stdin, 1 stdout, 2 stderr, N for /dev/fd/N
};
DevicePath classify_device(std::string_view normalized_path);

// Where DevFs and the interpreter's redirections find what a device path refers to.
struct DeviceSource {
    std::function<StreamPtr(int)> fd;     // the stream open on descriptor n, or null
    std::function<uint64_t()> seed;       // a fresh seed for /dev/urandom
    const CancelToken* cancel = nullptr;  // ends endless reads (/dev/zero)
};

// Opens a device (the same stream serves reading and writing). Null with err set (an errno value) when the
// device refuses: ENXIO for /dev/tty (no terminal in the sandbox), EBADF for a closed descriptor, ENOENT for
// /dev/fd/N out of range, EISDIR for /dev and /dev/fd. Writes to /dev/full fail with ENOSPC.
StreamPtr open_device(const DevicePath& d, const DeviceSource& src, int& err);

// A FileSystem that shows /dev over another one: the devices above, /dev/fd listing the open descriptors,
// everything else delegated unchanged. Each device is a character device (a descriptor on a pipe is a fifo);
// an open device reads and writes its stream, cannot seek (ESPIPE) and has no size. Names under /dev that
// are not devices of ours go to the inner FileSystem (a host root's own /dev/sda stays what it is).
class DevFs final : public vfs::FileSystem {
public:
    DevFs(vfs::FileSystem& inner, DeviceSource src) : inner_(inner), src_(std::move(src)) {}

    vfs::Result<vfs::Stat> stat(std::string_view path) override;
    vfs::Result<vfs::Stat> lstat(std::string_view path) override;
    std::vector<vfs::Result<vfs::Stat>> lstat_in(std::string_view dir, const std::vector<std::string>& names) override;
    vfs::Result<std::unique_ptr<vfs::FileHandle>> open(std::string_view path, vfs::OpenFlags flags,
                                                       vfs::Mode mode = 0644) override;
    vfs::Result<std::vector<vfs::DirEntry>> readdir(std::string_view path) override;
    vfs::Status mkdir(std::string_view path, vfs::Mode mode = 0755) override;
    vfs::Status rmdir(std::string_view path) override;
    vfs::Status unlink(std::string_view path) override;
    vfs::Status rename(std::string_view from, std::string_view to) override;
    vfs::Status symlink(std::string_view target, std::string_view link_path) override;
    vfs::Result<std::string> readlink(std::string_view path) override;
    vfs::Status link(std::string_view existing, std::string_view new_path) override;
    vfs::Status chmod(std::string_view path, vfs::Mode mode) override;
    vfs::Status chown(std::string_view path, uint32_t uid, uint32_t gid) override;
    vfs::Status utimes(std::string_view path, vfs::TimeSet atime, vfs::TimeSet mtime, bool follow = true) override;
    vfs::Status truncate(std::string_view path, uint64_t size) override;
    vfs::Result<std::string> realpath(std::string_view path) override;
    std::optional<vfs::FsSpace> space() override { return inner_.space(); }

private:
    // The device a path names, when it is one of ours and the inner FileSystem does not have /dev itself
    // for a directory listing.
    DevicePath device(std::string_view path) const;
    bool mine(std::string_view path) const { return device(path).kind != DevicePath::Kind::none; }
    vfs::Result<vfs::Stat> device_stat(const DevicePath& d);

    vfs::FileSystem& inner_;
    DeviceSource src_;
};

}  // namespace bashkit::interp
