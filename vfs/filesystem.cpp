#include "vfs/filesystem.hpp"

#include <algorithm>
#include <chrono>

namespace bashkit::vfs {

// ---------------------------------------------------------------------------------------------------------
// Errors

namespace {

struct ErrcInfo {
    Errc code;
    std::string_view name;
    std::string_view message;  // glibc's strerror text
};

constexpr ErrcInfo kErrcInfo[] = {
    {Errc::ok, "OK", "Success"},
    {Errc::not_permitted, "EPERM", "Operation not permitted"},
    {Errc::no_such_file, "ENOENT", "No such file or directory"},
    {Errc::io_error, "EIO", "Input/output error"},
    {Errc::bad_descriptor, "EBADF", "Bad file descriptor"},
    {Errc::permission_denied, "EACCES", "Permission denied"},
    {Errc::busy, "EBUSY", "Device or resource busy"},
    {Errc::file_exists, "EEXIST", "File exists"},
    {Errc::cross_device, "EXDEV", "Invalid cross-device link"},
    {Errc::not_directory, "ENOTDIR", "Not a directory"},
    {Errc::is_directory, "EISDIR", "Is a directory"},
    {Errc::invalid_argument, "EINVAL", "Invalid argument"},
    {Errc::too_many_open_files, "EMFILE", "Too many open files"},
    {Errc::file_too_large, "EFBIG", "File too large"},
    {Errc::no_space, "ENOSPC", "No space left on device"},
    {Errc::read_only, "EROFS", "Read-only file system"},
    {Errc::too_many_links, "EMLINK", "Too many links"},
    {Errc::name_too_long, "ENAMETOOLONG", "File name too long"},
    {Errc::not_empty, "ENOTEMPTY", "Directory not empty"},
    {Errc::symlink_loop, "ELOOP", "Too many levels of symbolic links"},
    {Errc::not_supported, "EOPNOTSUPP", "Operation not supported"},
    {Errc::quota_exceeded, "EDQUOT", "Disk quota exceeded"},
    {Errc::cancelled, "ECANCELED", "Operation canceled"},
    {Errc::illegal_seek, "ESPIPE", "Illegal seek"},
    {Errc::no_device, "ENXIO", "No such device or address"},
};

const ErrcInfo* find_info(Errc e) noexcept {
    for (const ErrcInfo& info : kErrcInfo) {
        if (info.code == e) return &info;
    }
    return nullptr;
}

}  // namespace

std::string_view error_message(Errc e) noexcept {
    const ErrcInfo* info = find_info(e);
    return info ? info->message : std::string_view("Unknown error");
}

std::string_view error_name(Errc e) noexcept {
    const ErrcInfo* info = find_info(e);
    return info ? info->name : std::string_view("E?");
}

Errc from_errno(int err) noexcept {
    if (err == 0) return Errc::ok;
#if defined(ENOTSUP) && ENOTSUP != EOPNOTSUPP
    if (err == ENOTSUP) return Errc::not_supported;
#endif
    const ErrcInfo* info = find_info(static_cast<Errc>(err));
    return info ? info->code : Errc::io_error;
}

// ---------------------------------------------------------------------------------------------------------
// Time

TimeSpec SystemClock::now() const {
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                  std::chrono::system_clock::now().time_since_epoch())
                  .count();
    int64_t sec = ns / 1'000'000'000;
    int64_t nsec = ns % 1'000'000'000;
    if (nsec < 0) {
        nsec += 1'000'000'000;
        --sec;
    }
    return {sec, nsec};
}

namespace {

TimeSpec add_ns(TimeSpec t, int64_t ns) {
    t.sec += ns / 1'000'000'000;
    t.nsec += ns % 1'000'000'000;
    if (t.nsec >= 1'000'000'000) {
        t.nsec -= 1'000'000'000;
        ++t.sec;
    } else if (t.nsec < 0) {
        t.nsec += 1'000'000'000;
        --t.sec;
    }
    return t;
}

}  // namespace

TimeSpec ManualClock::now() const {
    std::lock_guard lock(mu_);
    TimeSpec t = now_;
    if (tick_ns_ != 0) now_ = add_ns(now_, tick_ns_);
    return t;
}

void ManualClock::set(TimeSpec t) {
    std::lock_guard lock(mu_);
    now_ = t;
}

void ManualClock::advance(int64_t ns) {
    std::lock_guard lock(mu_);
    now_ = add_ns(now_, ns);
}

// ---------------------------------------------------------------------------------------------------------
// Metadata

std::string_view file_type_name(FileType t) noexcept {
    switch (t) {
        case FileType::regular: return "regular file";
        case FileType::directory: return "directory";
        case FileType::symlink: return "symbolic link";
        case FileType::char_device: return "character special file";
        case FileType::block_device: return "block special file";
        case FileType::fifo: return "fifo";
        case FileType::socket: return "socket";
        case FileType::unknown: break;
    }
    return "weird file";
}

uint32_t Stat::st_mode() const noexcept {
    uint32_t type_bits = 0;
    switch (type) {
        case FileType::regular: type_bits = 0100000; break;
        case FileType::directory: type_bits = 0040000; break;
        case FileType::symlink: type_bits = 0120000; break;
        case FileType::char_device: type_bits = 0020000; break;
        case FileType::block_device: type_bits = 0060000; break;
        case FileType::fifo: type_bits = 0010000; break;
        case FileType::socket: type_bits = 0140000; break;
        case FileType::unknown: break;
    }
    return type_bits | (mode & 07777);
}

// ---------------------------------------------------------------------------------------------------------
// Helpers

Result<std::unique_ptr<FileHandle>> FileSystem::open_read(std::string_view path) {
    return open(path, OpenFlags::read);
}

Result<std::unique_ptr<FileHandle>> FileSystem::open_write(std::string_view path, bool append, Mode mode) {
    OpenFlags flags = OpenFlags::write | OpenFlags::create;
    flags = flags | (append ? OpenFlags::append : OpenFlags::truncate);
    return open(path, flags, mode);
}

Result<std::string> FileSystem::read_file(std::string_view path, uint64_t max_bytes) {
    auto handle = open(path, OpenFlags::read);
    if (!handle) return handle.error();
    std::string out;
    if (auto st = (*handle)->stat(); st && st->is_regular()) {
        if (st->size > max_bytes) return Errc::file_too_large;  // fail before reading a huge file
        out.reserve(static_cast<std::size_t>(std::min<uint64_t>(st->size, uint64_t{1} << 30)));
    }
    char buf[65536];
    for (;;) {
        auto n = (*handle)->read(buf, sizeof buf);
        if (!n) return n.error();
        if (*n == 0) break;
        if (out.size() + *n > max_bytes) return Errc::file_too_large;
        out.append(buf, *n);
    }
    return out;
}

Status FileSystem::write_file(std::string_view path, std::string_view data, Mode mode) {
    auto handle = open_write(path, false, mode);
    if (!handle) return handle.error();
    if (data.empty()) return {};
    auto n = (*handle)->write(data);
    if (!n) return n.error();
    return {};
}

Status FileSystem::append_file(std::string_view path, std::string_view data, Mode mode) {
    auto handle = open_write(path, true, mode);
    if (!handle) return handle.error();
    if (data.empty()) return {};
    auto n = (*handle)->write(data);
    if (!n) return n.error();
    return {};
}

Status FileSystem::mkdir_all(std::string_view path, Mode mode, std::string* failed_at) {
    if (Errc e = check_path(path); e != Errc::ok) {
        if (failed_at) *failed_at = std::string(path);
        return e;
    }
    std::vector<std::string_view> parts = split_path(path);
    std::string prefix;
    auto fail = [&](Errc e) -> Status {
        if (failed_at) *failed_at = prefix.empty() ? std::string("/") : prefix;
        return e;
    };
    for (std::size_t i = 0; i < parts.size(); ++i) {
        bool last = i + 1 == parts.size();
        prefix += '/';
        prefix += parts[i];
        auto st = stat(prefix);
        if (st) {
            if (st->is_directory()) continue;
            return fail(last ? Errc::file_exists : Errc::not_directory);
        }
        if (st.error() != Errc::no_such_file) return fail(st.error());
        Status made = mkdir(prefix, mode);
        if (made) continue;
        if (made.error() == Errc::file_exists) {
            // Lost a race with another creator, or a dangling symlink is in the way.
            if (is_directory(prefix)) continue;
        }
        return fail(made.error());
    }
    return {};
}

Status FileSystem::remove(std::string_view path) {
    auto st = lstat(path);
    if (!st) return st.error();
    return st->is_directory() ? rmdir(path) : unlink(path);
}

Status FileSystem::remove_all(std::string_view path) {
    auto st = lstat(path);
    if (!st) return st.error() == Errc::no_such_file ? Status{} : Status{st.error()};
    if (!st->is_directory()) return unlink(path);

    struct Pending {
        std::string path;
        bool expanded = false;
    };
    std::vector<Pending> stack;
    stack.push_back({std::string(path), false});
    while (!stack.empty()) {
        if (stack.back().expanded) {
            Status s = rmdir(stack.back().path);
            if (!s && s.error() != Errc::no_such_file) return s;
            stack.pop_back();
            continue;
        }
        stack.back().expanded = true;
        std::string dir = stack.back().path;
        auto entries = readdir(dir);
        if (!entries) return entries.error();
        for (const DirEntry& entry : *entries) {
            std::string child = join_path(dir, entry.name);
            FileType type = entry.type;
            if (type == FileType::unknown) {
                auto child_st = lstat(child);
                if (!child_st) {
                    if (child_st.error() == Errc::no_such_file) continue;
                    return child_st.error();
                }
                type = child_st->type;
            }
            if (type == FileType::directory) {
                stack.push_back({std::move(child), false});
            } else {
                Status s = unlink(child);
                if (!s && s.error() != Errc::no_such_file) return s;
            }
        }
    }
    return {};
}

bool FileSystem::exists(std::string_view path) { return stat(path).ok(); }
bool FileSystem::lexists(std::string_view path) { return lstat(path).ok(); }

bool FileSystem::is_directory(std::string_view path) {
    auto st = stat(path);
    return st && st->is_directory();
}

bool FileSystem::is_regular_file(std::string_view path) {
    auto st = stat(path);
    return st && st->is_regular();
}

bool FileSystem::is_symlink(std::string_view path) {
    auto st = lstat(path);
    return st && st->is_symlink();
}

// ---------------------------------------------------------------------------------------------------------
// Path helpers

std::vector<std::string_view> split_path(std::string_view path) {
    std::vector<std::string_view> parts;
    std::size_t i = 0;
    while (i < path.size()) {
        while (i < path.size() && path[i] == '/') ++i;
        std::size_t start = i;
        while (i < path.size() && path[i] != '/') ++i;
        if (i > start) parts.push_back(path.substr(start, i - start));
    }
    return parts;
}

std::string normalize_path(std::string_view path) {
    bool absolute = is_absolute(path);
    std::vector<std::string_view> out;
    for (std::string_view part : split_path(path)) {
        if (part == ".") continue;
        if (part == "..") {
            if (!out.empty() && out.back() != "..") {
                out.pop_back();
            } else if (!absolute) {
                out.push_back(part);
            }
            continue;
        }
        out.push_back(part);
    }
    if (out.empty()) return std::string(absolute ? "/" : ".");
    std::string result;
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (absolute || i > 0) result += '/';
        result += out[i];
    }
    return result;
}

std::string join_path(std::string_view base, std::string_view rel) {
    if (is_absolute(rel) || base.empty()) return std::string(rel);
    if (rel.empty()) return std::string(base);
    std::string result(base);
    if (result.back() != '/') result += '/';
    result += rel;
    return result;
}

std::string path_dirname(std::string_view path) {
    std::size_t end = path.size();
    while (end > 0 && path[end - 1] == '/') --end;
    if (end == 0) return path.empty() ? "." : "/";
    std::size_t slash = path.rfind('/', end - 1);
    if (slash == std::string_view::npos) return ".";
    end = slash;
    while (end > 0 && path[end - 1] == '/') --end;
    if (end == 0) return "/";
    return std::string(path.substr(0, end));
}

std::string path_basename(std::string_view path) {
    std::size_t end = path.size();
    while (end > 0 && path[end - 1] == '/') --end;
    if (end == 0) return path.empty() ? "" : "/";
    std::size_t slash = path.rfind('/', end - 1);
    std::size_t start = slash == std::string_view::npos ? 0 : slash + 1;
    return std::string(path.substr(start, end - start));
}

Errc check_path(std::string_view path) noexcept {
    if (path.empty()) return Errc::no_such_file;
    if (path.front() != '/') return Errc::invalid_argument;
    if (path.find('\0') != std::string_view::npos) return Errc::invalid_argument;
    if (path.size() >= kMaxPathLength) return Errc::name_too_long;
    std::size_t run = 0;
    for (char c : path) {
        if (c == '/') {
            run = 0;
        } else if (++run > kMaxNameLength) {
            return Errc::name_too_long;
        }
    }
    return Errc::ok;
}

std::string join_in_dir(std::string_view dir, std::string_view name) {
    std::string p(dir);
    if (p.empty() || p.back() != '/') p += '/';
    p += name;
    return p;
}

std::vector<Result<Stat>> FileSystem::lstat_in(std::string_view dir, const std::vector<std::string>& names) {
    std::vector<Result<Stat>> out;
    out.reserve(names.size());
    for (const std::string& n : names) out.push_back(lstat(join_in_dir(dir, n)));
    return out;
}

}  // namespace bashkit::vfs
