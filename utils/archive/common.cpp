#include "utils/archive/common.hpp"

#include <fmt/format.h>

#include "utils/files/common.hpp"
#include "utils/system/timeutil.hpp"

namespace bashkit::utils::archive {

namespace {

la_ssize_t read_cb(struct archive* a, void* data, const void** buf) {
    auto* src = static_cast<InputSource*>(data);
    if (src->ctx->cancelled()) {
        src->cancelled = true;
        la().archive_set_error(a, ECANCELED, "Operation canceled");
        return -1;
    }
    auto r = src->in.read(src->buf.data(), src->buf.size());
    if (r.err != vfs::Errc::ok) {
        src->err = r.err;
        la().archive_set_error(a, vfs::to_errno(r.err), "%s", std::string(vfs::error_message(r.err)).c_str());
        return -1;
    }
    *buf = src->buf.data();
    if (src->head.size() < 8) src->head.append(src->buf.data(), std::min<size_t>(r.n, 8 - src->head.size()));
    src->total += r.n;
    return static_cast<la_ssize_t>(r.n);
}

la_ssize_t write_cb(struct archive* a, void* data, const void* buf, size_t n) {
    auto* sink = static_cast<OutputSink*>(data);
    if (sink->ctx->cancelled()) {
        sink->cancelled = true;
        la().archive_set_error(a, ECANCELED, "Operation canceled");
        return -1;
    }
    std::string_view bytes(static_cast<const char*>(buf), n);
    if (sink->file) {
        auto r = sink->file->write(bytes);
        if (!r) {
            sink->err = vfs::to_errno(r.error());
            la().archive_set_error(a, sink->err, "%s", std::string(vfs::error_message(r.error())).c_str());
            return -1;
        }
    } else {
        auto r = sink->stream->write(bytes);
        if (!r.ok()) {
            sink->err = r.err;
            la().archive_set_error(a, r.err, "write error");
            return -1;
        }
    }
    return static_cast<la_ssize_t>(n);
}

}  // namespace

int open_read(struct archive* a, InputSource& src) { return la().archive_read_open(a, &src, nullptr, read_cb, nullptr); }

int open_write(struct archive* a, OutputSink& sink) {
    // Full blocks even for the last one, like GNU tar's 10240-byte records.
    return la().archive_write_open(a, &sink, nullptr, write_cb, nullptr);
}

std::string user_name(const CommandContext& ctx, uint32_t uid) { return files::user_name(ctx, uid); }
std::string group_name(const CommandContext& ctx, uint32_t gid) { return files::group_name(ctx, gid); }

bool is_within(std::string_view root, std::string_view path) {
    if (root == "/") return true;
    if (!path.starts_with(root)) return false;
    return path.size() == root.size() || path[root.size()] == '/';
}

SafeName safe_name(std::string_view member) {
    SafeName s;
    size_t i = 0;
    while (i < member.size() && member[i] == '/') ++i;
    s.stripped_slash = i > 0;
    for (auto comp : vfs::split_path(member.substr(i))) {
        if (comp == ".") continue;
        if (comp == "..") s.has_dotdot = true;
        if (!s.name.empty()) s.name += '/';
        s.name.append(comp);
    }
    return s;
}

bool strip_components(std::string& name, int n) {
    size_t pos = 0;
    for (int i = 0; i < n; ++i) {
        pos = name.find('/', pos);
        if (pos == std::string::npos) return false;
        ++pos;
    }
    name.erase(0, pos);
    return !name.empty();
}

std::string format_time(const CommandContext& ctx, int64_t sec) {
    auto tz = systemutil::TimeZone::from_tz(ctx.env.get("TZ"), &ctx.fs);
    auto lt = tz.local(sec);
    return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}", lt.year, lt.mon, lt.mday, lt.hour, lt.min);
}

std::string mode_string(uint32_t mode, bool hardlink) {
    std::string s(10, '-');
    switch (mode & AE_IFMT) {
        case AE_IFDIR: s[0] = 'd'; break;
        case AE_IFLNK: s[0] = 'l'; break;
        case AE_IFCHR: s[0] = 'c'; break;
        case AE_IFBLK: s[0] = 'b'; break;
        case AE_IFIFO: s[0] = 'p'; break;
        case AE_IFSOCK: s[0] = 's'; break;
        default: s[0] = hardlink ? 'h' : '-'; break;
    }
    const char* rwx = "rwxrwxrwx";
    for (int i = 0; i < 9; ++i)
        if (mode & (0400u >> i)) s[1 + i] = rwx[i];
    if (mode & 04000) s[3] = (mode & 0100) ? 's' : 'S';
    if (mode & 02000) s[6] = (mode & 0010) ? 's' : 'S';
    if (mode & 01000) s[9] = (mode & 0001) ? 't' : 'T';
    return s;
}

// ------------------------------------------------------------------------------------------- Extractor

Extractor::Extractor(CommandContext& ctx, const ArchiveLimits& limits, std::string prog, std::string root)
    : ctx_(ctx), limits_(limits), prog_(std::move(prog)), root_(std::move(root)) {}

void Extractor::error(std::string_view msg) { ctx_.err.write(fmt::format("{}: {}\n", prog_, msg)); }

void Extractor::limit_error() {
    error(fmt::format("archive expands beyond the limit of {} bytes", limits_.max_expanded_bytes));
}

bool Extractor::prepare() {
    const std::string& shown = shown_root.empty() ? root_ : shown_root;
    auto rp = ctx_.fs.realpath(root_);
    if (!rp) {
        error(fmt::format("{}: Cannot open: {}", shown, vfs::error_message(rp.error())));
        return false;
    }
    if (!ctx_.fs.is_directory(*rp)) {
        error(fmt::format("{}: Cannot open: {}", shown, vfs::error_message(vfs::Errc::not_directory)));
        return false;
    }
    real_root_ = *rp;
    return true;
}

bool Extractor::count_entry() {
    if (++entries > limits_.max_entries) {
        error(fmt::format("archive has more members than the limit of {}", limits_.max_entries));
        return false;
    }
    return true;
}

// The parent directory of path exists (created as needed) and resolves inside the root.
bool Extractor::parent_ok(const std::string& path, const std::string& name) {
    const std::string parent = vfs::path_dirname(path);
    std::string failed;
    if (!ctx_.fs.is_directory(parent)) {
        auto st = ctx_.fs.mkdir_all(parent, 0755, &failed);
        if (!st) {
            error(fmt::format("{}: Cannot mkdir: {}", name, vfs::error_message(st.error())));
            return false;
        }
    }
    auto rp = ctx_.fs.realpath(parent);
    if (!rp || !is_within(real_root_, *rp)) {
        error(fmt::format("{}: Cannot extract through a symbolic link leading outside the target directory",
                          name));
        return false;
    }
    return true;
}

Extractor::Outcome Extractor::extract(struct archive* a, struct archive_entry* e, const std::string& name) {
    const std::string path = name.empty() ? root_ : vfs::join_path(root_, name);
    const auto type = la().archive_entry_filetype(e);
    const uint32_t perm = la().archive_entry_perm(e) & 07777;
    const uint32_t mode = preserve_perms ? perm : (perm & ~ctx_.umask);
    const char* hardlink = la().archive_entry_hardlink(e);

    if (to_stdout) {
        if (type != AE_IFREG || hardlink) return Outcome::ok;
        return write_file(a, e, "", name);
    }
    if (name.empty()) return Outcome::ok;  // "./": the root itself
    if (!parent_ok(path, name)) return Outcome::skipped;

    if (hardlink) {
        SafeName target = safe_name(hardlink);
        if (target.has_dotdot || target.name.empty()) {
            error(fmt::format("{}: Refusing to create a hard link to '{}' outside the target directory", name,
                              hardlink));
            return Outcome::skipped;
        }
        const std::string tpath = vfs::join_path(root_, target.name);
        auto tparent = ctx_.fs.realpath(vfs::path_dirname(tpath));
        if (!tparent || !is_within(real_root_, *tparent)) {
            error(fmt::format("{}: Refusing to create a hard link to '{}' outside the target directory", name,
                              hardlink));
            return Outcome::skipped;
        }
        if (tpath == path) return Outcome::ok;
        if (ctx_.fs.lexists(path)) {
            if (keep_old || skip_existing) {
                if (keep_old) {
                    error(fmt::format("{}: Cannot open: File exists", name));
                    return Outcome::skipped;
                }
                return Outcome::ok;
            }
            (void)ctx_.fs.unlink(path);
        }
        auto st = ctx_.fs.link(tpath, path);
        if (st.error() == vfs::Errc::not_permitted && ctx_.fs.is_regular_file(tpath)) {
            // A FileSystem without hard links: copy the data instead.
            auto data = ctx_.fs.read_file(tpath, limits_.max_expanded_bytes);
            if (data) {
                if (expanded + data->size() > limits_.max_expanded_bytes) {
                    limit_error();
                    return Outcome::fatal;
                }
                expanded += data->size();
                st = ctx_.fs.write_file(path, *data);
            } else {
                st = data.error();
            }
        }
        if (!st) {
            error(fmt::format("{}: Cannot hard link to '{}': {}", name, hardlink, vfs::error_message(st.error())));
            return Outcome::skipped;
        }
        return Outcome::ok;
    }

    switch (type) {
        case AE_IFDIR: {
            auto lst = ctx_.fs.lstat(path);
            if (lst && !lst->is_directory()) {
                if (skip_existing) return Outcome::ok;
                (void)ctx_.fs.unlink(path);
                lst = vfs::Errc::no_such_file;
            }
            if (!lst) {
                auto st = ctx_.fs.mkdir(path, mode | 0700);
                if (!st && st.error() != vfs::Errc::file_exists) {
                    error(fmt::format("{}: Cannot mkdir: {}", name, vfs::error_message(st.error())));
                    return Outcome::skipped;
                }
            }
            (void)ctx_.fs.chmod(path, mode | 0700);
            const bool has_time = restore_mtime && la().archive_entry_mtime_is_set(e);
            dir_times_.push_back({path, mode, has_time, has_time ? la().archive_entry_mtime(e) : 0,
                                  has_time ? la().archive_entry_mtime_nsec(e) : 0});
            return Outcome::ok;
        }
        case AE_IFLNK: {
            const char* target = la().archive_entry_symlink(e);
            std::string t = target ? target : "";
            // Where the link would point: from its parent's real location, through the links already there
            // ("b" -> "." makes "b/.." the root's parent).
            auto parent_real = ctx_.fs.realpath(vfs::path_dirname(path));
            const std::string resolved = link_destination(parent_real ? *parent_real : "/", t);
            if (t.empty() || vfs::is_absolute(t) || !is_within(real_root_, resolved)) {
                error(fmt::format("{}: Refusing to create a symbolic link to '{}' outside the target directory",
                                  name, t));
                return Outcome::skipped;
            }
            if (ctx_.fs.lexists(path)) {
                if (keep_old) {
                    error(fmt::format("{}: Cannot create symlink to '{}': File exists", name, t));
                    return Outcome::skipped;
                }
                if (skip_existing) return Outcome::ok;
                auto st = ctx_.fs.remove(path);
                if (!st) {
                    error(fmt::format("{}: Cannot create symlink to '{}': {}", name, t,
                                      vfs::error_message(st.error())));
                    return Outcome::skipped;
                }
            }
            auto st = ctx_.fs.symlink(t, path);
            if (!st) {
                error(fmt::format("{}: Cannot create symlink to '{}': {}", name, t, vfs::error_message(st.error())));
                return Outcome::skipped;
            }
            links_.push_back({path, t, name});
            return Outcome::ok;
        }
        case AE_IFREG:
        case 0:
            return write_file(a, e, path, name);
        default:
            error(fmt::format("{}: Cannot create special file: Operation not permitted", name));
            return Outcome::skipped;
    }
}

Extractor::Outcome Extractor::write_file(struct archive* a, struct archive_entry* e, const std::string& path,
                                         const std::string& name) {
    const int64_t declared = la().archive_entry_size_is_set(e) ? la().archive_entry_size(e) : 0;
    if (declared > 0 && expanded + static_cast<uint64_t>(declared) > limits_.max_expanded_bytes) {
        limit_error();
        return Outcome::fatal;
    }
    std::unique_ptr<vfs::FileHandle> fh;
    std::string tmp;
    if (!to_stdout) {
        auto lst = ctx_.fs.lstat(path);
        if (lst) {
            if (keep_old) {
                error(fmt::format("{}: Cannot open: File exists", name));
                return Outcome::skipped;
            }
            if (skip_existing) return Outcome::ok;
            if (lst->is_directory()) {
                error(fmt::format("{}: Cannot open: Is a directory", name));
                return Outcome::skipped;
            }
        }
        const std::string dir = vfs::path_dirname(path);
        for (int attempt = 0; attempt < 100 && !fh; ++attempt) {
            tmp = vfs::join_path(dir, fmt::format(".{}.bkx{}", vfs::path_basename(path), ++serial_));
            auto r = ctx_.fs.open(tmp, vfs::OpenFlags::write | vfs::OpenFlags::create | vfs::OpenFlags::exclusive |
                                           vfs::OpenFlags::no_follow,
                                  0600);
            if (r) {
                fh = std::move(*r);
            } else if (r.error() != vfs::Errc::file_exists) {
                error(fmt::format("{}: Cannot open: {}", name, vfs::error_message(r.error())));
                return Outcome::skipped;
            }
        }
        if (!fh) {
            error(fmt::format("{}: Cannot open: {}", name, vfs::error_message(vfs::Errc::file_exists)));
            return Outcome::skipped;
        }
    }
    auto discard = [&]() {
        fh.reset();
        if (!tmp.empty()) (void)ctx_.fs.unlink(tmp);
    };
    const void* buf;
    size_t size;
    la_int64_t offset;
    uint64_t written = 0;
    for (;;) {
        if (ctx_.cancelled()) {
            discard();
            error("Operation canceled");
            return Outcome::fatal;
        }
        int r = la().archive_read_data_block(a, &buf, &size, &offset);
        if (r == ARCHIVE_EOF) break;
        if (r < ARCHIVE_WARN) {
            discard();
            const std::string msg = la().archive_error_string(a) ? la().archive_error_string(a) : "Read error";
            if (msg.find("runcated") != std::string::npos || msg.find("EOF") != std::string::npos)
                error("Unexpected EOF in archive");
            else
                error(fmt::format("{}: {}", name, msg));
            read_error = true;
            return Outcome::fatal;
        }
        const uint64_t end = static_cast<uint64_t>(offset) + size;
        if (end > written && expanded + (end - written) > limits_.max_expanded_bytes) {
            discard();
            limit_error();
            return Outcome::fatal;
        }
        if (end > written) {
            expanded += end - written;
            written = end;
        }
        std::string_view bytes(static_cast<const char*>(buf), size);
        if (to_stdout) {
            auto w = ctx_.out.write(bytes);
            if (!w.ok()) return Outcome::fatal;
        } else {
            auto w = fh->pwrite(bytes, static_cast<uint64_t>(offset));
            if (!w) {
                discard();
                error(fmt::format("{}: Cannot write: {}", name, vfs::error_message(w.error())));
                return Outcome::fatal;
            }
        }
    }
    if (to_stdout) return Outcome::ok;
    // Sparse members end with a hole.
    if (declared > 0 && written < static_cast<uint64_t>(declared)) (void)fh->truncate(static_cast<uint64_t>(declared));
    fh.reset();
    const uint32_t perm = la().archive_entry_perm(e) & 07777;
    (void)ctx_.fs.chmod(tmp, preserve_perms ? perm : (perm & ~ctx_.umask));
    if (restore_mtime && la().archive_entry_mtime_is_set(e))
        (void)ctx_.fs.utimes(tmp, vfs::TimeSet::omit(),
                             vfs::TimeSet::at({la().archive_entry_mtime(e), la().archive_entry_mtime_nsec(e)}), false);
    // A symlink in place of the file is replaced, never followed.
    auto st = ctx_.fs.rename(tmp, path);
    if (!st) {
        (void)ctx_.fs.unlink(tmp);
        error(fmt::format("{}: Cannot open: {}", name, vfs::error_message(st.error())));
        return Outcome::skipped;
    }
    return Outcome::ok;
}

std::string Extractor::link_destination(const std::string& dir, std::string_view target) {
    std::string cur = vfs::is_absolute(target) ? "/" : dir;
    for (std::string_view c : vfs::split_path(target)) {
        if (c == ".") continue;
        if (c == "..") {
            cur = vfs::path_dirname(cur);
            continue;
        }
        std::string next = vfs::join_path(cur == "/" ? "" : cur, c);
        if (ctx_.fs.is_symlink(next)) {
            if (auto rp = ctx_.fs.realpath(next)) {
                cur = *rp;
                continue;
            }
        }
        cur = std::move(next);
    }
    return cur;
}

Extractor::~Extractor() {
    try {
        (void)check_links();
    } catch (...) {  // a message that cannot be allocated: the links were still removed before it
    }
}

bool Extractor::finish() {
    bool ok = check_links();
    for (auto it = dir_times_.rbegin(); it != dir_times_.rend(); ++it) {
        (void)ctx_.fs.chmod(it->path, it->mode);
        if (it->has_time) (void)ctx_.fs.utimes(it->path, vfs::TimeSet::omit(), vfs::TimeSet::at({it->sec, it->nsec}));
    }
    dir_times_.clear();
    return ok;
}

bool Extractor::check_links() {
    bool ok = true;
    // Links made before the one that carries them out: "c" -> "b/.." while "b" is missing, then "b" -> ".".
    // (Bounded by max_entries, and done even when cancelled: it only removes.)
    for (const MadeLink& l : links_) {
        auto now = ctx_.fs.readlink(l.path);
        if (!now || *now != l.target) continue;  // replaced since
        auto parent_real = ctx_.fs.realpath(vfs::path_dirname(l.path));
        if (parent_real && is_within(real_root_, link_destination(*parent_real, l.target))) continue;
        (void)ctx_.fs.unlink(l.path);
        error(fmt::format("{}: Refusing to create a symbolic link to '{}' outside the target directory", l.name,
                          l.target));
        ok = false;
    }
    links_.clear();
    return ok;
}

}  // namespace bashkit::utils::archive
