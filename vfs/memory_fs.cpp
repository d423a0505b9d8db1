#include "vfs/memory_fs.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <vector>

namespace bashkit::vfs {
namespace detail {

struct MemState;

// One file, directory or symlink. Owned by the directory entries naming it and by open handles.
struct Inode : std::enable_shared_from_this<Inode> {
    Inode(MemState* owner_state, uint64_t number, FileType t, Mode m, uint32_t u, uint32_t g, TimeSpec now);
    ~Inode();
    Inode(const Inode&) = delete;
    Inode& operator=(const Inode&) = delete;

    MemState* owner;
    uint64_t ino;
    FileType type;
    Mode mode;
    uint32_t uid;
    uint32_t gid;
    uint64_t nlink = 1;        // names referring to a non-directory
    TimeSpec atime, mtime, ctime;
    // Regular file: the first data.size() bytes of the content; bytes in [data.size(), size) are zeros that
    // take no memory (a sparse tail, so `truncate -s 10G` costs nothing). Symlink: the target.
    std::string data;
    uint64_t size = 0;         // regular files only
    // Directory: entries and the parent (null for the root and for a removed directory).
    std::map<std::string, std::shared_ptr<Inode>, std::less<>> children;
    Inode* parent = nullptr;
    uint64_t subdirs = 0;
};

using InodePtr = std::shared_ptr<Inode>;

struct MemState {
    explicit MemState(MemoryFsOptions o);
    ~MemState();
    MemState(const MemState&) = delete;
    MemState& operator=(const MemState&) = delete;

    TimeSpec now() const { return clock->now(); }

    // Counts n more data bytes against max_bytes and the account; no_space (nothing counted) when either
    // refuses them.
    Errc add_bytes(uint64_t n) {
        if (n == 0) return Errc::ok;
        std::lock_guard lock(account_mu);
        uint64_t used = bytes.load(std::memory_order_relaxed);
        if (n > opts.max_bytes || used > opts.max_bytes - n) return Errc::no_space;
        if (account && !account->try_charge(n)) return Errc::no_space;
        bytes.fetch_add(n, std::memory_order_relaxed);
        return Errc::ok;
    }
    void sub_bytes(uint64_t n) {
        if (n == 0) return;
        std::lock_guard lock(account_mu);
        bytes.fetch_sub(n, std::memory_order_relaxed);
        if (account) account->release(n);
    }
    void set_account(std::shared_ptr<MemoryAccount> a) {
        std::lock_guard lock(account_mu);
        uint64_t held = bytes.load(std::memory_order_relaxed);
        if (account) account->release(held);
        account = std::move(a);
        if (account) account->force_charge(held);
    }

    MemoryFsOptions opts;
    std::shared_ptr<const Clock> clock;
    std::atomic<uint64_t> bytes{0};    // allocated data bytes of live inodes
    // Where `bytes` is charged besides max_bytes (set_memory_account). account_mu guards it and is held for
    // every change of `bytes`, so the two counts move together (inodes die under no lock of the tree's).
    std::mutex account_mu;
    std::shared_ptr<MemoryAccount> account;
    std::atomic<uint64_t> inodes{0};   // live inodes
    std::atomic<bool> read_only{false};
    mutable std::shared_mutex mu;      // guards the tree and every inode's fields
    uint64_t next_ino = 2;             // guarded by mu
    InodePtr root;                     // last member: torn down first, while the counters still exist
};

Inode::Inode(MemState* owner_state, uint64_t number, FileType t, Mode m, uint32_t u, uint32_t g, TimeSpec now)
    : owner(owner_state), ino(number), type(t), mode(m & 07777), uid(u), gid(g), atime(now), mtime(now),
      ctime(now) {
    owner->inodes.fetch_add(1, std::memory_order_relaxed);
}

Inode::~Inode() {
    owner->sub_bytes(data.size());
    owner->inodes.fetch_sub(1, std::memory_order_relaxed);
}

MemState::MemState(MemoryFsOptions o) : opts(std::move(o)) {
    clock = opts.clock ? opts.clock : std::make_shared<SystemClock>();
    read_only.store(opts.read_only);
    root = std::make_shared<Inode>(this, next_ino++, FileType::directory, opts.root_mode, opts.uid, opts.gid,
                                   now());
}

MemState::~MemState() {
    // Iterative teardown: a recursive destructor chain would overflow the stack on a deep tree (which
    // renames can build beyond the path length limit).
    std::vector<InodePtr> stack;
    stack.push_back(std::move(root));
    while (!stack.empty()) {
        InodePtr node = std::move(stack.back());
        stack.pop_back();
        for (auto& entry : node->children) stack.push_back(std::move(entry.second));
        node->children.clear();
        node->parent = nullptr;
    }
}

namespace {

constexpr uint64_t kDirSize = 4096;
constexpr uint64_t kBlockSize = 4096;

uint64_t round_up_blocks(uint64_t bytes) {
    return (bytes + kBlockSize - 1) / kBlockSize * (kBlockSize / 512);
}

Stat make_stat(const MemState& st, const Inode& n) {
    Stat s;
    s.type = n.type;
    s.mode = n.mode;
    s.dev = st.opts.dev;
    s.ino = n.ino;
    s.uid = n.uid;
    s.gid = n.gid;
    s.atime = n.atime;
    s.mtime = n.mtime;
    s.ctime = n.ctime;
    s.blksize = kBlockSize;
    switch (n.type) {
        case FileType::directory:
            s.nlink = 2 + n.subdirs;
            s.size = kDirSize;
            s.blocks = kDirSize / 512;
            break;
        case FileType::symlink:
            s.nlink = n.nlink;
            s.size = n.data.size();
            s.blocks = 0;
            break;
        default:
            s.nlink = n.nlink;
            s.size = n.size;
            s.blocks = round_up_blocks(n.data.size());
            break;
    }
    return s;
}

bool mem_has_trailing_slash(std::string_view path) { return path.size() > 1 && path.back() == '/'; }

// The outcome of resolving a path.
struct Resolved {
    Inode* dir = nullptr;      // directory holding the final entry; null when the path ends in "/", "." or ".."
    std::string name;          // the final entry's name
    InodePtr node;             // the final entry, null when it does not exist (dir is then set)
    std::string_view dots;     // "/", "." or ".." when the final component is not a name
    bool trailing = false;     // the path ended with a slash
    std::string canonical;     // with want_canonical: the absolute resolved path of node (or of dir/name)

    bool is_name() const { return dots.empty(); }
    // A trailing slash on something that is not a directory.
    bool slash_on_non_dir() const { return trailing && node && node->type != FileType::directory; }
};

std::string join_names(const std::vector<std::string>& names) {
    if (names.empty()) return "/";
    std::string out;
    for (const std::string& n : names) {
        out += '/';
        out += n;
    }
    return out;
}

// Walks path component by component from the root (caller holds the lock). Symlinks in the middle are
// always followed, the final one only with follow_last. Errors: from check_path, no_such_file or
// not_directory for a middle component, symlink_loop, name_too_long for a long component in a link target.
Errc resolve(const MemState& st, std::string_view path, bool follow_last, Resolved& out,
             bool want_canonical = false) {
    if (Errc e = check_path(path); e != Errc::ok) return e;
    out.trailing = mem_has_trailing_slash(path);

    // Components still to walk, last one first (so the next is at the back). Views into `path` and into
    // symlink targets, which cannot change while the caller holds the lock.
    std::vector<std::string_view> todo = split_path(path);
    std::reverse(todo.begin(), todo.end());

    Inode* cur = st.root.get();
    std::vector<std::string> names;  // the canonical path of cur, when wanted
    int hops = 0;
    std::string_view final_dots = "/";
    while (!todo.empty()) {
        std::string_view comp = todo.back();
        todo.pop_back();
        bool last = todo.empty();
        if (comp == "." || comp == "..") {
            if (comp == "..") {
                if (cur->parent) cur = cur->parent;
                if (want_canonical && !names.empty()) names.pop_back();
            }
            if (last) {
                final_dots = comp;
                break;
            }
            continue;
        }
        if (comp.size() > kMaxNameLength) return Errc::name_too_long;
        auto it = cur->children.find(comp);
        if (it == cur->children.end()) {
            if (!last) return Errc::no_such_file;
            out.dir = cur;
            out.name = comp;
            if (want_canonical) {
                names.push_back(out.name);
                out.canonical = join_names(names);
            }
            return Errc::ok;
        }
        const InodePtr& child = it->second;
        if (child->type == FileType::symlink && (!last || follow_last)) {
            if (++hops > kMaxSymlinkHops) return Errc::symlink_loop;
            const std::string& target = child->data;
            if (target.empty()) return Errc::no_such_file;
            std::vector<std::string_view> target_parts = split_path(target);
            // "dir/" as a target must name a directory: walk an extra "." after it.
            if (target.back() == '/' && !target_parts.empty()) todo.push_back(".");
            todo.insert(todo.end(), target_parts.rbegin(), target_parts.rend());
            if (target.front() == '/') {
                cur = st.root.get();
                names.clear();
            }
            final_dots = "/";  // if the target is all slashes, the walk ends at the root
            continue;
        }
        if (!last) {
            if (child->type != FileType::directory) return Errc::not_directory;
            cur = child.get();
            if (want_canonical) names.emplace_back(comp);
            continue;
        }
        out.dir = cur;
        out.name = comp;
        out.node = child;
        if (want_canonical) {
            names.push_back(out.name);
            out.canonical = join_names(names);
        }
        return Errc::ok;
    }
    // The walk ended on a directory itself: "/", a final "." or "..", or a link to "/".
    out.dir = nullptr;
    out.node = cur->shared_from_this();
    out.dots = final_dots;
    if (want_canonical) out.canonical = join_names(names);
    return Errc::ok;
}

void touch_dir(Inode* dir, TimeSpec now) {
    dir->mtime = now;
    dir->ctime = now;
}

// Room for one more inode?
Errc can_add_inode(const MemState& st) {
    if (st.inodes.load(std::memory_order_relaxed) >= st.opts.max_inodes) return Errc::no_space;
    return Errc::ok;
}

// Reserves `grow` more data bytes against max_bytes and the memory account (caller holds the unique lock).
Errc reserve_bytes(MemState& st, uint64_t grow) { return st.add_bytes(grow); }

// Sets the logical size of a regular file (caller holds the unique lock).
Errc set_size(MemState& st, Inode& n, uint64_t size) {
    if (size > st.opts.max_file_size) return Errc::file_too_large;
    if (size < n.data.size()) {
        uint64_t freed = n.data.size() - size;
        n.data.resize(static_cast<std::size_t>(size));
        if (n.data.capacity() > 2 * n.data.size() + 4096) n.data.shrink_to_fit();
        st.sub_bytes(freed);
    }
    n.size = size;
    TimeSpec now = st.now();
    n.mtime = now;
    n.ctime = now;
    return Errc::ok;
}

// Writes bytes at offset, zero-filling any gap (caller holds the unique lock).
Errc write_at(MemState& st, Inode& n, uint64_t offset, std::string_view bytes) {
    if (bytes.empty()) return Errc::ok;
    uint64_t len = bytes.size();
    if (offset > st.opts.max_file_size || len > st.opts.max_file_size - offset) return Errc::file_too_large;
    uint64_t end = offset + len;
    if (end > n.data.size()) {
        const uint64_t grow = end - n.data.size();
        if (Errc e = reserve_bytes(st, grow); e != Errc::ok) return e;
        try {
            n.data.resize(static_cast<std::size_t>(end), '\0');
        } catch (...) {
            st.sub_bytes(grow);  // the allocation failed: nothing was added
            throw;
        }
    }
    std::copy(bytes.begin(), bytes.end(), n.data.begin() + static_cast<std::ptrdiff_t>(offset));
    n.size = std::max(n.size, end);
    TimeSpec now = st.now();
    n.mtime = now;
    n.ctime = now;
    return Errc::ok;
}

// Copies up to len bytes from offset; the sparse tail reads as zeros (caller holds a lock).
std::size_t read_at(const Inode& n, uint64_t offset, char* buf, std::size_t len) {
    if (offset >= n.size) return 0;
    std::size_t count = static_cast<std::size_t>(std::min<uint64_t>(len, n.size - offset));
    std::size_t stored = 0;
    if (offset < n.data.size()) {
        stored = static_cast<std::size_t>(std::min<uint64_t>(count, n.data.size() - offset));
        std::copy_n(n.data.data() + offset, stored, buf);
    }
    std::fill(buf + stored, buf + count, '\0');
    return count;
}

TimeSpec apply_time(const TimeSet& t, TimeSpec current, TimeSpec now) {
    switch (t.kind) {
        case TimeSet::Kind::omit: return current;
        case TimeSet::Kind::now: return now;
        case TimeSet::Kind::at: return t.time;
    }
    return current;
}

// ---------------------------------------------------------------------------------------------------------

class MemHandle final : public FileHandle {
public:
    MemHandle(std::shared_ptr<MemState> state, InodePtr node, bool readable, bool writable, bool append)
        : state_(std::move(state)), node_(std::move(node)), readable_(readable), writable_(writable),
          append_(append) {}

    Result<std::size_t> read(char* buf, std::size_t n) override {
        std::lock_guard offset_lock(mu_);
        auto got = pread_locked(buf, n, offset_);
        if (got) offset_ += *got;
        return got;
    }

    Result<std::size_t> pread(char* buf, std::size_t n, uint64_t offset) override {
        return pread_locked(buf, n, offset);
    }

    Result<std::size_t> write(std::string_view data) override {
        std::lock_guard offset_lock(mu_);
        auto done = write_locked(data, offset_, true);
        return done;
    }

    Result<std::size_t> pwrite(std::string_view data, uint64_t offset) override {
        uint64_t ignored = offset;
        return write_locked(data, ignored, false);
    }

    Result<uint64_t> seek(int64_t offset, Whence whence) override {
        std::lock_guard offset_lock(mu_);
        int64_t base = 0;
        switch (whence) {
            case Whence::set: base = 0; break;
            case Whence::cur: base = static_cast<int64_t>(offset_); break;
            case Whence::end: {
                std::shared_lock lock(state_->mu);
                base = static_cast<int64_t>(node_->size);
                break;
            }
        }
        if ((offset > 0 && base > INT64_MAX - offset) || base + offset < 0) return Errc::invalid_argument;
        offset_ = static_cast<uint64_t>(base + offset);
        return offset_;
    }

    Status truncate(uint64_t size) override {
        if (!writable_ || node_->type != FileType::regular) return Errc::invalid_argument;
        std::unique_lock lock(state_->mu);
        if (state_->read_only.load()) return Errc::read_only;
        return set_size(*state_, *node_, size);
    }

    Result<Stat> stat() override {
        std::shared_lock lock(state_->mu);
        return make_stat(*state_, *node_);
    }

private:
    Result<std::size_t> pread_locked(char* buf, std::size_t n, uint64_t offset) {
        if (!readable_) return Errc::bad_descriptor;
        if (node_->type == FileType::directory) return Errc::is_directory;
        std::shared_lock lock(state_->mu);
        return read_at(*node_, offset, buf, n);
    }

    // Writes at `offset` (or the end with append) and, when advance, leaves offset after the data.
    Result<std::size_t> write_locked(std::string_view data, uint64_t& offset, bool advance) {
        if (!writable_) return Errc::bad_descriptor;
        std::unique_lock lock(state_->mu);
        if (state_->read_only.load()) return Errc::read_only;
        uint64_t at = append_ ? node_->size : offset;
        if (Errc e = write_at(*state_, *node_, at, data); e != Errc::ok) return e;
        if (advance) offset = at + data.size();
        return data.size();
    }

    // Declared before node_ so the inode is released first (its destructor reports to the state).
    std::shared_ptr<MemState> state_;
    InodePtr node_;
    const bool readable_;
    const bool writable_;
    const bool append_;
    std::mutex mu_;        // guards offset_
    uint64_t offset_ = 0;
};

}  // namespace
}  // namespace detail

using detail::Inode;
using detail::InodePtr;
using detail::Resolved;

MemoryFs::MemoryFs(MemoryFsOptions options) : state_(std::make_shared<detail::MemState>(std::move(options))) {}

MemoryFs::~MemoryFs() = default;

uint64_t MemoryFs::bytes_used() const { return state_->bytes.load(); }
uint64_t MemoryFs::inodes_used() const { return state_->inodes.load(); }
void MemoryFs::set_read_only(bool read_only) { state_->read_only.store(read_only); }
void MemoryFs::set_memory_account(std::shared_ptr<MemoryAccount> account) { state_->set_account(std::move(account)); }

Result<Stat> MemoryFs::stat(std::string_view path) {
    std::shared_lock lock(state_->mu);
    Resolved r;
    if (Errc e = detail::resolve(*state_, path, true, r); e != Errc::ok) return e;
    if (!r.node) return Errc::no_such_file;
    if (r.slash_on_non_dir()) return Errc::not_directory;
    return detail::make_stat(*state_, *r.node);
}

Result<Stat> MemoryFs::lstat(std::string_view path) {
    std::shared_lock lock(state_->mu);
    Resolved r;
    if (Errc e = detail::resolve(*state_, path, detail::mem_has_trailing_slash(path), r); e != Errc::ok) return e;
    if (!r.node) return Errc::no_such_file;
    if (r.slash_on_non_dir()) return Errc::not_directory;
    return detail::make_stat(*state_, *r.node);
}

Result<std::unique_ptr<FileHandle>> MemoryFs::open(std::string_view path, OpenFlags flags, Mode mode) {
    const bool want_read = has(flags, OpenFlags::read);
    const bool append = has(flags, OpenFlags::append);
    const bool want_write = has(flags, OpenFlags::write) || append;
    const bool create = has(flags, OpenFlags::create);
    const bool exclusive = create && has(flags, OpenFlags::exclusive);
    const bool truncate = want_write && has(flags, OpenFlags::truncate);
    if (!want_read && !want_write) return Errc::invalid_argument;

    detail::MemState& st = *state_;
    std::unique_lock lock(st.mu, std::defer_lock);
    std::shared_lock read_lock(st.mu, std::defer_lock);
    if (create || truncate) {
        lock.lock();
    } else {
        read_lock.lock();
    }

    // O_EXCL and O_NOFOLLOW do not follow a final symlink; a trailing slash does.
    bool follow = !(exclusive || has(flags, OpenFlags::no_follow)) || detail::mem_has_trailing_slash(path);
    Resolved r;
    if (Errc e = detail::resolve(st, path, follow, r); e != Errc::ok) return e;

    InodePtr node = r.node;
    if (node) {
        if (exclusive) return Errc::file_exists;
        if (r.slash_on_non_dir()) return Errc::not_directory;
        if (node->type == FileType::symlink) return Errc::symlink_loop;  // only reached with no_follow
        if (node->type == FileType::directory && want_write) return Errc::is_directory;
        if (want_write && st.read_only.load()) return Errc::read_only;
        if (truncate && node->type == FileType::regular) {
            if (Errc e = detail::set_size(st, *node, 0); e != Errc::ok) return e;
        }
    } else {
        if (!create) return Errc::no_such_file;
        if (r.trailing) return Errc::is_directory;
        if (st.read_only.load()) return Errc::read_only;
        if (Errc e = detail::can_add_inode(st); e != Errc::ok) return e;
        TimeSpec now = st.now();
        node = std::make_shared<Inode>(&st, st.next_ino++, FileType::regular, mode, st.opts.uid, st.opts.gid, now);
        r.dir->children.emplace(r.name, node);
        detail::touch_dir(r.dir, now);
    }
    return std::unique_ptr<FileHandle>(
        std::make_unique<detail::MemHandle>(state_, std::move(node), want_read, want_write, append));
}

Result<std::vector<DirEntry>> MemoryFs::readdir(std::string_view path) {
    std::shared_lock lock(state_->mu);
    Resolved r;
    if (Errc e = detail::resolve(*state_, path, true, r); e != Errc::ok) return e;
    if (!r.node) return Errc::no_such_file;
    if (r.node->type != FileType::directory) return Errc::not_directory;
    std::vector<DirEntry> entries;
    entries.reserve(r.node->children.size());
    for (const auto& [name, child] : r.node->children) entries.push_back({name, child->type, child->ino});
    return entries;
}

Status MemoryFs::mkdir(std::string_view path, Mode mode) {
    detail::MemState& st = *state_;
    std::unique_lock lock(st.mu);
    Resolved r;
    if (Errc e = detail::resolve(st, path, false, r); e != Errc::ok) return e;
    if (r.node) return Errc::file_exists;
    if (st.read_only.load()) return Errc::read_only;
    if (Errc e = detail::can_add_inode(st); e != Errc::ok) return e;
    TimeSpec now = st.now();
    auto dir = std::make_shared<Inode>(&st, st.next_ino++, FileType::directory, mode, st.opts.uid, st.opts.gid, now);
    dir->parent = r.dir;
    r.dir->children.emplace(r.name, std::move(dir));
    r.dir->subdirs++;
    detail::touch_dir(r.dir, now);
    return {};
}

Status MemoryFs::rmdir(std::string_view path) {
    detail::MemState& st = *state_;
    std::unique_lock lock(st.mu);
    Resolved r;
    if (Errc e = detail::resolve(st, path, false, r); e != Errc::ok) return e;
    if (r.dots == "/") return Errc::busy;
    if (r.dots == ".") return Errc::invalid_argument;
    if (r.dots == "..") return Errc::not_empty;
    if (!r.node) return Errc::no_such_file;
    if (r.node->type != FileType::directory) return Errc::not_directory;
    if (!r.node->children.empty()) return Errc::not_empty;
    if (st.read_only.load()) return Errc::read_only;
    TimeSpec now = st.now();
    InodePtr victim = std::move(r.node);
    r.dir->children.erase(r.name);
    r.dir->subdirs--;
    victim->parent = nullptr;
    victim->ctime = now;
    detail::touch_dir(r.dir, now);
    return {};
}

Status MemoryFs::unlink(std::string_view path) {
    detail::MemState& st = *state_;
    std::unique_lock lock(st.mu);
    Resolved r;
    if (Errc e = detail::resolve(st, path, false, r); e != Errc::ok) return e;
    if (!r.node) return Errc::no_such_file;
    if (r.slash_on_non_dir()) return Errc::not_directory;
    if (r.node->type == FileType::directory) return Errc::is_directory;
    if (st.read_only.load()) return Errc::read_only;
    TimeSpec now = st.now();
    InodePtr victim = std::move(r.node);
    r.dir->children.erase(r.name);
    victim->nlink--;
    victim->ctime = now;
    detail::touch_dir(r.dir, now);
    return {};
}

Status MemoryFs::rename(std::string_view from, std::string_view to) {
    detail::MemState& st = *state_;
    std::unique_lock lock(st.mu);
    Resolved rf;
    if (Errc e = detail::resolve(st, from, false, rf); e != Errc::ok) return e;
    Resolved rt;
    if (Errc e = detail::resolve(st, to, false, rt); e != Errc::ok) return e;
    if (!rf.node) return Errc::no_such_file;
    if (!rf.is_name() || !rt.is_name()) return Errc::busy;
    Inode* src = rf.node.get();
    const bool src_dir = src->type == FileType::directory;
    if (!src_dir && (rf.trailing || rt.trailing)) return Errc::not_directory;
    if (rt.node.get() == src) return {};  // the same name, or two hard links of one file: nothing to do
    if (src_dir) {
        for (Inode* p = rt.dir; p; p = p->parent) {
            if (p == src) return Errc::invalid_argument;  // into its own subtree
        }
    }
    if (rt.node) {
        if (src_dir) {
            if (rt.node->type != FileType::directory) return Errc::not_directory;
            if (!rt.node->children.empty()) return Errc::not_empty;
        } else if (rt.node->type == FileType::directory) {
            return Errc::is_directory;
        }
    }
    if (st.read_only.load()) return Errc::read_only;

    TimeSpec now = st.now();
    InodePtr moving = rf.node;
    if (InodePtr replaced = std::move(rt.node)) {
        rt.dir->children.erase(rt.name);
        if (replaced->type == FileType::directory) {
            rt.dir->subdirs--;
            replaced->parent = nullptr;
        } else {
            replaced->nlink--;
        }
        replaced->ctime = now;
    }
    rf.dir->children.erase(rf.name);
    rt.dir->children.emplace(rt.name, moving);
    if (src_dir) {
        rf.dir->subdirs--;
        rt.dir->subdirs++;
        moving->parent = rt.dir;
    }
    moving->ctime = now;
    detail::touch_dir(rf.dir, now);
    detail::touch_dir(rt.dir, now);
    return {};
}

Status MemoryFs::symlink(std::string_view target, std::string_view link_path) {
    if (target.empty()) return Errc::no_such_file;
    if (target.find('\0') != std::string_view::npos) return Errc::invalid_argument;
    if (target.size() >= kMaxPathLength) return Errc::name_too_long;
    detail::MemState& st = *state_;
    std::unique_lock lock(st.mu);
    Resolved r;
    if (Errc e = detail::resolve(st, link_path, false, r); e != Errc::ok) return e;
    if (r.node) return Errc::file_exists;
    if (r.trailing) return Errc::no_such_file;
    if (st.read_only.load()) return Errc::read_only;
    if (Errc e = detail::can_add_inode(st); e != Errc::ok) return e;
    if (Errc e = detail::reserve_bytes(st, target.size()); e != Errc::ok) return e;
    TimeSpec now = st.now();
    auto link = std::make_shared<Inode>(&st, st.next_ino++, FileType::symlink, 0777, st.opts.uid, st.opts.gid, now);
    link->data.assign(target);
    r.dir->children.emplace(r.name, std::move(link));
    detail::touch_dir(r.dir, now);
    return {};
}

Result<std::string> MemoryFs::readlink(std::string_view path) {
    std::shared_lock lock(state_->mu);
    Resolved r;
    if (Errc e = detail::resolve(*state_, path, detail::mem_has_trailing_slash(path), r); e != Errc::ok) return e;
    if (!r.node) return Errc::no_such_file;
    if (r.slash_on_non_dir()) return Errc::not_directory;
    if (r.node->type != FileType::symlink) return Errc::invalid_argument;
    return r.node->data;
}

Status MemoryFs::link(std::string_view existing, std::string_view new_path) {
    detail::MemState& st = *state_;
    std::unique_lock lock(st.mu);
    Resolved re;
    if (Errc e = detail::resolve(st, existing, detail::mem_has_trailing_slash(existing), re); e != Errc::ok) return e;
    if (!re.node) return Errc::no_such_file;
    if (re.slash_on_non_dir()) return Errc::not_directory;
    if (re.node->type == FileType::directory) return Errc::not_permitted;
    Resolved rn;
    if (Errc e = detail::resolve(st, new_path, false, rn); e != Errc::ok) return e;
    if (rn.node) return Errc::file_exists;
    if (rn.trailing) return Errc::no_such_file;
    if (st.read_only.load()) return Errc::read_only;
    TimeSpec now = st.now();
    re.node->nlink++;
    re.node->ctime = now;
    rn.dir->children.emplace(rn.name, re.node);
    detail::touch_dir(rn.dir, now);
    return {};
}

Status MemoryFs::chmod(std::string_view path, Mode mode) {
    detail::MemState& st = *state_;
    std::unique_lock lock(st.mu);
    Resolved r;
    if (Errc e = detail::resolve(st, path, true, r); e != Errc::ok) return e;
    if (!r.node) return Errc::no_such_file;
    if (r.slash_on_non_dir()) return Errc::not_directory;
    if (st.read_only.load()) return Errc::read_only;
    r.node->mode = mode & 07777;
    r.node->ctime = st.now();
    return {};
}

Status MemoryFs::chown(std::string_view path, uint32_t uid, uint32_t gid) {
    detail::MemState& st = *state_;
    std::unique_lock lock(st.mu);
    Resolved r;
    if (Errc e = detail::resolve(st, path, true, r); e != Errc::ok) return e;
    if (!r.node) return Errc::no_such_file;
    if (r.slash_on_non_dir()) return Errc::not_directory;
    if (st.read_only.load()) return Errc::read_only;
    r.node->uid = uid;
    r.node->gid = gid;
    r.node->ctime = st.now();
    return {};
}

Status MemoryFs::utimes(std::string_view path, TimeSet atime, TimeSet mtime, bool follow) {
    detail::MemState& st = *state_;
    std::unique_lock lock(st.mu);
    Resolved r;
    if (Errc e = detail::resolve(st, path, follow || detail::mem_has_trailing_slash(path), r); e != Errc::ok) return e;
    if (!r.node) return Errc::no_such_file;
    if (r.slash_on_non_dir()) return Errc::not_directory;
    if (atime.kind == TimeSet::Kind::omit && mtime.kind == TimeSet::Kind::omit) return {};
    if (st.read_only.load()) return Errc::read_only;
    for (const TimeSet* t : {&atime, &mtime}) {
        if (t->kind == TimeSet::Kind::at && (t->time.nsec < 0 || t->time.nsec >= 1'000'000'000)) {
            return Errc::invalid_argument;
        }
    }
    TimeSpec now = st.now();
    r.node->atime = detail::apply_time(atime, r.node->atime, now);
    r.node->mtime = detail::apply_time(mtime, r.node->mtime, now);
    r.node->ctime = now;
    return {};
}

Status MemoryFs::truncate(std::string_view path, uint64_t size) {
    detail::MemState& st = *state_;
    std::unique_lock lock(st.mu);
    Resolved r;
    if (Errc e = detail::resolve(st, path, true, r); e != Errc::ok) return e;
    if (!r.node) return Errc::no_such_file;
    if (r.slash_on_non_dir()) return Errc::not_directory;
    if (r.node->type == FileType::directory) return Errc::is_directory;
    if (r.node->type != FileType::regular) return Errc::invalid_argument;
    if (st.read_only.load()) return Errc::read_only;
    return detail::set_size(st, *r.node, size);
}

Result<std::string> MemoryFs::realpath(std::string_view path) {
    std::shared_lock lock(state_->mu);
    Resolved r;
    if (Errc e = detail::resolve(*state_, path, true, r, true); e != Errc::ok) return e;
    if (!r.node) return Errc::no_such_file;
    if (r.slash_on_non_dir()) return Errc::not_directory;
    return std::move(r.canonical);
}

}  // namespace bashkit::vfs
