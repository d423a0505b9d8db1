#include "vfs/mount_table.hpp"

#include <algorithm>
#include <optional>
#include <utility>

#include "vfs/virtual_walk.hpp"

namespace bashkit::vfs {
namespace {

using Mounts = MountTable::Mounts;

// path is prefix or below it (both normalised).
bool under(std::string_view path, std::string_view prefix) {
    if (prefix == "/") return true;
    return path.size() >= prefix.size() && path.compare(0, prefix.size(), prefix) == 0 &&
           (path.size() == prefix.size() || path[prefix.size()] == '/');
}

const MountInfo* owner(const Mounts& ms, std::string_view path) {
    const MountInfo* best = nullptr;
    for (const MountInfo& m : ms) {
        if (under(path, m.prefix) && (!best || m.prefix.size() > best->prefix.size())) best = &m;
    }
    return best;
}

const MountInfo* exact(const Mounts& ms, std::string_view path) {
    for (const MountInfo& m : ms) {
        if (m.prefix == path) return &m;
    }
    return nullptr;
}

// Some mount point lies strictly below path.
bool leads_to_mount(const Mounts& ms, std::string_view path) {
    for (const MountInfo& m : ms) {
        if (m.prefix != path && under(m.prefix, path)) return true;
    }
    return false;
}

std::string rel_path(const MountInfo& m, std::string_view path) {
    if (m.prefix == "/") return std::string(path);
    std::string_view rest = path.substr(m.prefix.size());
    return rest.empty() ? std::string("/") : std::string(rest);
}

uint64_t map_dev(uint64_t mount_id, uint64_t dev) { return (mount_id << 40) ^ (dev & ((uint64_t{1} << 40) - 1)); }

struct MountNode {
    FileType type = FileType::directory;
    const MountInfo* mount = nullptr;  // the mount holding the entry; null for a synthetic directory
    bool synthetic = false;            // a directory that only leads to mount points
};

struct Tree {
    using Node = MountNode;
    const Mounts& ms;

    Node root() {
        if (const MountInfo* m = exact(ms, "/")) return {FileType::directory, m, false};
        return {FileType::directory, nullptr, true};
    }

    Result<Node> child(const MountNode&, const std::string& path) {
        if (const MountInfo* m = exact(ms, path)) return Node{FileType::directory, m, false};
        const bool leads = leads_to_mount(ms, path);
        if (const MountInfo* m = owner(ms, path)) {
            auto st = m->fs->lstat(rel_path(*m, path));
            if (st && (!leads || st->is_directory())) return Node{st->type, m, false};
            if (!st && st.error() != Errc::no_such_file && !leads) return st.error();
        }
        if (leads) return Node{FileType::directory, nullptr, true};
        return Errc::no_such_file;
    }

    // Several names at once when they stay in dir's mount and its realpath finds no symlink on the way.
    Result<Node> descend(const MountNode& dir, const std::string& path) {
        if (dir.synthetic || owner(ms, path) != dir.mount) return Errc::invalid_argument;
        const std::string rel = rel_path(*dir.mount, path);
        auto real = dir.mount->fs->realpath(rel + "/");  // the slash: a directory or an error
        if (!real || *real != rel) return Errc::invalid_argument;
        return Node{FileType::directory, dir.mount, false};
    }

    Result<std::string> target(const MountNode& link, const std::string& path) {
        return link.mount->fs->readlink(rel_path(*link.mount, path));
    }
};

using MountWalked = vwalk::Walked<MountNode>;

uint64_t synthetic_ino(std::string_view path) {
    uint64_t h = 1469598103934665603ull;
    for (char c : path) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ull;
    }
    return h | (uint64_t{1} << 62);
}

Stat synthetic_stat(std::string_view path) {
    Stat s;
    s.type = FileType::directory;
    s.mode = 0755;
    s.nlink = 2;
    s.ino = synthetic_ino(path);
    s.size = 4096;
    return s;
}

class SyntheticDirHandle final : public FileHandle {
public:
    explicit SyntheticDirHandle(Stat st) : st_(st) {}
    Result<std::size_t> read(char*, std::size_t) override { return Errc::is_directory; }
    Result<std::size_t> pread(char*, std::size_t, uint64_t) override { return Errc::is_directory; }
    Result<std::size_t> write(std::string_view) override { return Errc::bad_descriptor; }
    Result<std::size_t> pwrite(std::string_view, uint64_t) override { return Errc::bad_descriptor; }
    Result<uint64_t> seek(int64_t offset, Whence) override {
        if (offset < 0) return Errc::invalid_argument;
        return static_cast<uint64_t>(offset);
    }
    Status truncate(uint64_t) override { return Errc::invalid_argument; }
    Result<Stat> stat() override { return st_; }

private:
    Stat st_;
};

// The operations below share this shape: take the mount list, walk, check like Linux, hand the canonical
// path (relative to its mount) to the file system that owns it.
struct Op {
    std::shared_ptr<const Mounts> ms;
    Tree tree{*ms};
    explicit Op(std::shared_ptr<const Mounts> m) : ms(std::move(m)) {}

    Errc walk(std::string_view path, bool follow, MountWalked& w) { return vwalk::walk(tree, path, follow, w); }

    Result<Stat> stat_of(const MountWalked& w) {
        std::string p = w.path();
        if (w.node->synthetic) return synthetic_stat(p);
        const MountInfo& m = *w.node->mount;
        auto st = m.fs->lstat(rel_path(m, p));
        if (st) st->dev = map_dev(m.id, st->dev);
        return st;
    }
};

}  // namespace

std::shared_ptr<const Mounts> MountTable::snapshot() const {
    std::lock_guard lock(mu_);
    return mounts_;
}

Status MountTable::mount(std::string_view prefix, std::shared_ptr<FileSystem> fs, bool read_only) {
    if (!fs || !is_absolute(prefix)) return Errc::invalid_argument;
    if (Errc e = check_path(prefix); e != Errc::ok) return e;
    std::string norm = normalize_path(prefix);
    std::lock_guard lock(mu_);
    if (exact(*mounts_, norm)) return Errc::busy;
    auto next = std::make_shared<Mounts>(*mounts_);
    next->push_back({norm, std::move(fs), read_only, next_id_++});
    std::sort(next->begin(), next->end(), [](const MountInfo& a, const MountInfo& b) { return a.prefix < b.prefix; });
    mounts_ = std::move(next);
    return {};
}

Status MountTable::umount(std::string_view prefix) {
    if (!is_absolute(prefix)) return Errc::invalid_argument;
    std::string norm = normalize_path(prefix);
    std::lock_guard lock(mu_);
    auto next = std::make_shared<Mounts>(*mounts_);
    auto it = std::find_if(next->begin(), next->end(), [&](const MountInfo& m) { return m.prefix == norm; });
    if (it == next->end()) return Errc::invalid_argument;
    next->erase(it);
    mounts_ = std::move(next);
    return {};
}

std::vector<MountInfo> MountTable::mounts() const { return *snapshot(); }

Result<Stat> MountTable::stat(std::string_view path) {
    Op op(snapshot());
    MountWalked w;
    if (Errc e = op.walk(path, true, w); e != Errc::ok) return e;
    if (!w.node) return Errc::no_such_file;
    if (w.slash_on_non_dir()) return Errc::not_directory;
    return op.stat_of(w);
}

std::vector<Result<Stat>> MountTable::lstat_in(std::string_view dir, const std::vector<std::string>& names) {
    Op op(snapshot());
    MountWalked w;
    // The directory's own mount answers for all of them when no mount point lies below the directory (a
    // name could be one); anything else name by name.
    if (op.walk(dir, true, w) != Errc::ok || !w.node || w.node->synthetic || w.slash_on_non_dir())
        return FileSystem::lstat_in(dir, names);
    std::string p = w.path();
    if (leads_to_mount(*op.ms, p)) return FileSystem::lstat_in(dir, names);
    for (const std::string& n : names)
        if (n.empty() || n == "." || n == ".." || n.find('/') != std::string::npos) return FileSystem::lstat_in(dir, names);
    const MountInfo& m = *w.node->mount;
    std::vector<Result<Stat>> out = m.fs->lstat_in(rel_path(m, p), names);
    for (auto& st : out)
        if (st) st->dev = map_dev(m.id, st->dev);
    return out;
}

Result<Stat> MountTable::lstat(std::string_view path) {
    Op op(snapshot());
    MountWalked w;
    if (Errc e = op.walk(path, path.size() > 1 && path.back() == '/', w); e != Errc::ok) return e;
    if (!w.node) return Errc::no_such_file;
    if (w.slash_on_non_dir()) return Errc::not_directory;
    return op.stat_of(w);
}

Result<std::unique_ptr<FileHandle>> MountTable::open(std::string_view path, OpenFlags flags, Mode mode) {
    const bool want_read = has(flags, OpenFlags::read);
    const bool append = has(flags, OpenFlags::append);
    const bool want_write = has(flags, OpenFlags::write) || append;
    const bool create = has(flags, OpenFlags::create);
    const bool exclusive = create && has(flags, OpenFlags::exclusive);
    if (!want_read && !want_write) return Errc::invalid_argument;
    const bool trailing = path.size() > 1 && path.back() == '/';
    const bool follow = !(exclusive || has(flags, OpenFlags::no_follow)) || trailing;

    Op op(snapshot());
    MountWalked w;
    if (Errc e = op.walk(path, follow, w); e != Errc::ok) return e;
    const std::string p = w.path();
    const MountInfo* m = nullptr;
    if (w.node) {
        if (exclusive) return Errc::file_exists;
        if (w.slash_on_non_dir()) return Errc::not_directory;
        if (w.node->type == FileType::symlink) return Errc::symlink_loop;
        if (w.node->type == FileType::directory && want_write) return Errc::is_directory;
        if (w.node->synthetic) {
            return std::unique_ptr<FileHandle>(std::make_unique<SyntheticDirHandle>(synthetic_stat(p)));
        }
        m = w.node->mount;
        if (want_write && m->read_only) return Errc::read_only;
    } else {
        if (!create) return Errc::no_such_file;
        if (w.trailing) return Errc::is_directory;
        if (w.dir().synthetic) return Errc::read_only;
        m = w.dir().mount;
        if (m->read_only) return Errc::read_only;
    }
    // The entry is known (or created) by its canonical path: nothing left to follow below.
    auto h = m->fs->open(rel_path(*m, p), flags, mode);
    if (!h) return h.error();
    auto dev_of = [id = m->id](Stat& st) { st.dev = map_dev(id, st.dev); };
    return std::unique_ptr<FileHandle>(std::make_unique<vwalk::MappedHandle>(std::move(*h), dev_of));
}

Result<std::vector<DirEntry>> MountTable::readdir(std::string_view path) {
    Op op(snapshot());
    MountWalked w;
    if (Errc e = op.walk(path, true, w); e != Errc::ok) return e;
    if (!w.node) return Errc::no_such_file;
    if (w.node->type != FileType::directory) return Errc::not_directory;
    const std::string p = w.path();
    std::vector<DirEntry> out;
    if (!w.node->synthetic) {
        auto entries = w.node->mount->fs->readdir(rel_path(*w.node->mount, p));
        if (!entries) return entries.error();
        out = std::move(*entries);
    }
    // Mount points (and synthetic directories leading to them) directly below p.
    const std::size_t base = p == "/" ? 1 : p.size() + 1;
    for (const MountInfo& mi : *op.ms) {
        if (mi.prefix == p || !under(mi.prefix, p)) continue;
        std::string_view rest = std::string_view(mi.prefix).substr(base);
        std::string name(rest.substr(0, rest.find('/')));
        const bool direct = rest.find('/') == std::string_view::npos;
        uint64_t ino = synthetic_ino(join_path(p, name));
        if (direct) {
            if (auto st = mi.fs->stat("/")) ino = st->ino;
        }
        auto it = std::find_if(out.begin(), out.end(), [&](const DirEntry& e) { return e.name == name; });
        if (it == out.end()) {
            out.push_back({name, FileType::directory, ino});
        } else if (direct || it->type != FileType::directory) {
            *it = {name, FileType::directory, ino};
        }
    }
    return out;
}

Status MountTable::mkdir(std::string_view path, Mode mode) {
    Op op(snapshot());
    MountWalked w;
    if (Errc e = op.walk(path, false, w); e != Errc::ok) return e;
    if (w.node) return Errc::file_exists;
    if (w.dir().synthetic) return Errc::read_only;
    const MountInfo& m = *w.dir().mount;
    if (m.read_only) return Errc::read_only;
    return m.fs->mkdir(rel_path(m, w.path()), mode);
}

Status MountTable::rmdir(std::string_view path) {
    Op op(snapshot());
    MountWalked w;
    if (Errc e = op.walk(path, false, w); e != Errc::ok) return e;
    if (std::string_view(w.dots) == "/") return Errc::busy;
    if (std::string_view(w.dots) == ".") return Errc::invalid_argument;
    if (std::string_view(w.dots) == "..") return Errc::not_empty;
    if (!w.node) return Errc::no_such_file;
    if (w.node->type != FileType::directory) return Errc::not_directory;
    const std::string p = w.path();
    if (w.node->synthetic || exact(*op.ms, p)) return Errc::busy;
    const MountInfo& m = *w.node->mount;
    if (m.read_only) return Errc::read_only;
    return m.fs->rmdir(rel_path(m, p));
}

Status MountTable::unlink(std::string_view path) {
    Op op(snapshot());
    MountWalked w;
    if (Errc e = op.walk(path, false, w); e != Errc::ok) return e;
    if (!w.node) return Errc::no_such_file;
    if (w.slash_on_non_dir()) return Errc::not_directory;
    if (w.node->type == FileType::directory) return Errc::is_directory;
    const MountInfo& m = *w.node->mount;
    if (m.read_only) return Errc::read_only;
    return m.fs->unlink(rel_path(m, w.path()));
}

Status MountTable::rename(std::string_view from, std::string_view to) {
    Op op(snapshot());
    MountWalked wf;
    if (Errc e = op.walk(from, false, wf); e != Errc::ok) return e;
    MountWalked wt;
    if (Errc e = op.walk(to, false, wt); e != Errc::ok) return e;
    if (!wf.node) return Errc::no_such_file;
    if (!wf.is_name() || !wt.is_name()) return Errc::busy;
    const bool src_dir = wf.node->type == FileType::directory;
    if (!src_dir && (wf.trailing || wt.trailing)) return Errc::not_directory;
    const std::string pf = wf.path();
    const std::string pt = wt.path();
    if (pf == pt) return {};
    if (wf.node->synthetic || exact(*op.ms, pf)) return Errc::busy;
    if (wt.node && (wt.node->synthetic || exact(*op.ms, pt))) return Errc::busy;
    if (src_dir && under(pt, pf)) return Errc::invalid_argument;
    if (wt.dir().synthetic) return Errc::cross_device;
    const MountInfo* mf = wf.node->mount;
    const MountInfo* mt = wt.node ? wt.node->mount : wt.dir().mount;
    if (mf != mt) return Errc::cross_device;
    if (mf->read_only) return Errc::read_only;
    return mf->fs->rename(rel_path(*mf, pf), rel_path(*mf, pt));
}

Status MountTable::symlink(std::string_view target, std::string_view link_path) {
    if (target.empty()) return Errc::no_such_file;
    if (target.find('\0') != std::string_view::npos) return Errc::invalid_argument;
    if (target.size() >= kMaxPathLength) return Errc::name_too_long;
    Op op(snapshot());
    MountWalked w;
    if (Errc e = op.walk(link_path, false, w); e != Errc::ok) return e;
    if (w.node) return Errc::file_exists;
    if (w.trailing) return Errc::no_such_file;
    if (w.dir().synthetic) return Errc::read_only;
    const MountInfo& m = *w.dir().mount;
    if (m.read_only) return Errc::read_only;
    return m.fs->symlink(target, rel_path(m, w.path()));
}

Result<std::string> MountTable::readlink(std::string_view path) {
    Op op(snapshot());
    MountWalked w;
    if (Errc e = op.walk(path, path.size() > 1 && path.back() == '/', w); e != Errc::ok) return e;
    if (!w.node) return Errc::no_such_file;
    if (w.slash_on_non_dir()) return Errc::not_directory;
    if (w.node->type != FileType::symlink) return Errc::invalid_argument;
    return op.tree.target(*w.node, w.path());
}

Status MountTable::link(std::string_view existing, std::string_view new_path) {
    Op op(snapshot());
    MountWalked we;
    if (Errc e = op.walk(existing, existing.size() > 1 && existing.back() == '/', we); e != Errc::ok) return e;
    if (!we.node) return Errc::no_such_file;
    if (we.slash_on_non_dir()) return Errc::not_directory;
    if (we.node->type == FileType::directory) return Errc::not_permitted;
    MountWalked wn;
    if (Errc e = op.walk(new_path, false, wn); e != Errc::ok) return e;
    if (wn.node) return Errc::file_exists;
    if (wn.trailing) return Errc::no_such_file;
    if (wn.dir().synthetic || wn.dir().mount != we.node->mount) return Errc::cross_device;
    const MountInfo& m = *we.node->mount;
    if (m.read_only) return Errc::read_only;
    return m.fs->link(rel_path(m, we.path()), rel_path(m, wn.path()));
}

namespace {

// Resolves path (following) to the entry a metadata change applies to, checking it exists and is writable.
template <class Fn>
Status change(Op& op, std::string_view path, bool follow, Fn&& fn) {
    MountWalked w;
    if (Errc e = op.walk(path, follow || (path.size() > 1 && path.back() == '/'), w); e != Errc::ok) return e;
    if (!w.node) return Errc::no_such_file;
    if (w.slash_on_non_dir()) return Errc::not_directory;
    if (w.node->synthetic) return Errc::read_only;
    const MountInfo& m = *w.node->mount;
    return fn(m, rel_path(m, w.path()), *w.node);
}

}  // namespace

Status MountTable::chmod(std::string_view path, Mode mode) {
    Op op(snapshot());
    return change(op, path, true, [&](const MountInfo& m, const std::string& rel, const MountNode&) -> Status {
        if (m.read_only) return Errc::read_only;
        return m.fs->chmod(rel, mode);
    });
}

Status MountTable::chown(std::string_view path, uint32_t uid, uint32_t gid) {
    Op op(snapshot());
    return change(op, path, true, [&](const MountInfo& m, const std::string& rel, const MountNode&) -> Status {
        if (m.read_only) return Errc::read_only;
        return m.fs->chown(rel, uid, gid);
    });
}

Status MountTable::utimes(std::string_view path, TimeSet atime, TimeSet mtime, bool follow) {
    Op op(snapshot());
    return change(op, path, follow, [&](const MountInfo& m, const std::string& rel, const MountNode& n) -> Status {
        if (atime.kind == TimeSet::Kind::omit && mtime.kind == TimeSet::Kind::omit) return {};
        if (m.read_only) return Errc::read_only;
        return m.fs->utimes(rel, atime, mtime, n.type != FileType::symlink);
    });
}

Status MountTable::truncate(std::string_view path, uint64_t size) {
    Op op(snapshot());
    return change(op, path, true, [&](const MountInfo& m, const std::string& rel, const MountNode& n) -> Status {
        if (n.type == FileType::directory) return Errc::is_directory;
        if (m.read_only) return Errc::read_only;
        return m.fs->truncate(rel, size);
    });
}

Result<std::string> MountTable::realpath(std::string_view path) {
    Op op(snapshot());
    MountWalked w;
    if (Errc e = op.walk(path, true, w); e != Errc::ok) return e;
    if (!w.node) return Errc::no_such_file;
    if (w.slash_on_non_dir()) return Errc::not_directory;
    return w.path();
}

}  // namespace bashkit::vfs
