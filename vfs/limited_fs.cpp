#include "vfs/limited_fs.hpp"

#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace bashkit::vfs {

FsLimits FsLimits::unlimited() {
    FsLimits l;
    l.max_total_bytes = UINT64_MAX;
    l.max_file_bytes = UINT64_MAX;
    l.max_nodes = UINT64_MAX;
    l.max_depth = SIZE_MAX;
    l.max_open_files = UINT64_MAX;
    return l;
}

Errc check_new_name(std::string_view name, std::size_t max_name) noexcept {
    if (name.empty() || name == "." || name == "..") return Errc::invalid_argument;
    if (name.size() > max_name || name.size() > kMaxNameLength) return Errc::name_too_long;
    for (char c : name) {
        auto u = static_cast<unsigned char>(c);
        if (u == '/' || u < 0x20 || u == 0x7f) return Errc::invalid_argument;
    }
    return Errc::ok;
}

Status write_file_atomic(FileSystem& fs, std::string_view path, std::string_view data, Mode mode) {
    if (Errc e = check_path(path); e != Errc::ok) return e;
    std::string target(path);
    // Follow a final symlink: the file it names is replaced, the link stays.
    if (auto lst = fs.lstat(path); lst && lst->is_symlink()) {
        auto real = fs.realpath(path);
        if (real) {
            target = *real;
        } else if (real.error() != Errc::no_such_file) {
            return real.error();
        } else {
            return fs.write_file(path, data, mode);  // dangling: creating through it is what open does
        }
    }
    if (auto st = fs.stat(target)) {
        if (st->is_directory()) return Errc::is_directory;
        mode = st->mode;
    }
    const std::string dir = path_dirname(target);
    const std::string base = path_basename(target);
    std::string temp;
    std::random_device random;
    for (int attempt = 0;; ++attempt) {
        std::string name(".");
        name.append(base, 0, 200);
        name.append(".tmp");
        name.append(std::to_string(random()));
        temp = join_path(dir, name);
        auto h = fs.open(temp, OpenFlags::write | OpenFlags::create | OpenFlags::exclusive, mode);
        if (!h) {
            if (h.error() == Errc::file_exists && attempt < 100) continue;
            return h.error();
        }
        if (!data.empty()) {
            auto n = (*h)->write(data);
            if (!n) {
                h.value().reset();
                (void)fs.unlink(temp);
                return n.error();
            }
        }
        break;
    }
    if (Status s = fs.rename(temp, target); !s) {
        (void)fs.unlink(temp);
        return s;
    }
    return {};
}

// ---------------------------------------------------------------------------------------------------------

namespace detail {

struct LimitState {
    std::shared_ptr<FileSystem> inner;
    FsLimits limits;
    std::mutex mu;           // serialises the check-then-change of every accounted operation
    uint64_t bytes = 0;      // guarded by mu
    uint64_t nodes = 0;      // guarded by mu
    uint64_t open = 0;       // handles open, guarded by mu
    // Files held by open handles, by (dev, ino): how many handles, and whether the last name is gone (its
    // bytes are then given back when the last handle closes). Guarded by mu.
    struct Held {
        uint64_t handles = 0;
        bool orphaned = false;
    };
    std::map<std::pair<uint64_t, uint64_t>, Held> held;

    // A name of a file with these stats went away (unlink, rename over it): its bytes are given back now,
    // or when the last handle holding it closes.
    void name_removed(const Stat& st) {
        if (st.is_regular()) {
            auto it = held.find({st.dev, st.ino});
            if (it != held.end() && it->second.handles > 0) {
                it->second.orphaned = true;
                return;
            }
        }
        add_bytes(-static_cast<int64_t>(st.is_regular() || st.is_symlink() ? st.size : 0));
    }

    Errc reserve_bytes(uint64_t grow) {
        if (grow > limits.max_total_bytes || bytes > limits.max_total_bytes - grow) return Errc::no_space;
        return Errc::ok;
    }
    void add_bytes(int64_t delta) {
        if (delta >= 0) {
            bytes += static_cast<uint64_t>(delta);
        } else {
            uint64_t d = static_cast<uint64_t>(-delta);
            bytes = bytes > d ? bytes - d : 0;
        }
    }
    void drop_node() { nodes = nodes > 0 ? nodes - 1 : 0; }
};

}  // namespace detail

namespace {

using detail::LimitState;

// The bytes an entry counts for: a regular file's size, a symlink's target length.
uint64_t counted_bytes(const Stat& st) { return st.is_regular() || st.is_symlink() ? st.size : 0; }

class LimitedHandle final : public FileHandle {
public:
    // Made with state->mu held, after state->open was counted.
    LimitedHandle(std::shared_ptr<LimitState> state, std::unique_ptr<FileHandle> inner, bool writable, bool append,
                  std::optional<std::pair<uint64_t, uint64_t>> key)
        : state_(std::move(state)), inner_(std::move(inner)), writable_(writable), append_(append), key_(key) {
        if (key_) state_->held[*key_].handles++;
    }

    ~LimitedHandle() override {
        std::lock_guard lock(state_->mu);
        state_->open = state_->open > 0 ? state_->open - 1 : 0;
        if (!key_) return;
        auto it = state_->held.find(*key_);
        if (it == state_->held.end()) return;
        if (--it->second.handles == 0) {
            if (it->second.orphaned) {
                auto st = inner_->stat();
                if (st) state_->add_bytes(-static_cast<int64_t>(st->size));
            }
            state_->held.erase(it);
        }
    }

    Result<std::size_t> read(char* buf, std::size_t n) override { return inner_->read(buf, n); }
    Result<std::size_t> pread(char* buf, std::size_t n, uint64_t offset) override {
        return inner_->pread(buf, n, offset);
    }

    Result<std::size_t> write(std::string_view data) override {
        if (!writable_) return inner_->write(data);
        std::lock_guard lock(state_->mu);
        uint64_t offset = 0;
        if (!append_) {
            auto pos = inner_->seek(0, Whence::cur);
            if (!pos) return pos.error();
            offset = *pos;
        }
        return write_locked(data, offset, false);
    }

    Result<std::size_t> pwrite(std::string_view data, uint64_t offset) override {
        if (!writable_) return inner_->pwrite(data, offset);
        std::lock_guard lock(state_->mu);
        return write_locked(data, offset, true);
    }

    Result<uint64_t> seek(int64_t offset, Whence whence) override { return inner_->seek(offset, whence); }

    Status truncate(uint64_t size) override {
        if (!writable_) return inner_->truncate(size);
        std::lock_guard lock(state_->mu);
        auto st = inner_->stat();
        if (!st) return st.error();
        if (size > st->size) {
            if (size > state_->limits.max_file_bytes) return Errc::file_too_large;
            if (Errc e = state_->reserve_bytes(size - st->size); e != Errc::ok) return e;
        }
        Status s = inner_->truncate(size);
        if (s) state_->add_bytes(static_cast<int64_t>(size) - static_cast<int64_t>(st->size));
        return s;
    }

    Result<Stat> stat() override { return inner_->stat(); }

private:
    // Checks the limits for data landing at offset (at the end with append) before writing anything.
    Result<std::size_t> write_locked(std::string_view data, uint64_t offset, bool positional) {
        auto st = inner_->stat();
        if (!st) return st.error();
        if (data.empty()) return positional ? inner_->pwrite(data, offset) : inner_->write(data);
        const uint64_t size = st->size;
        const uint64_t at = append_ ? size : offset;
        const uint64_t max_file = state_->limits.max_file_bytes;
        if (at > max_file || data.size() > max_file - at) return Errc::file_too_large;
        const uint64_t end = at + data.size();
        const uint64_t grow = end > size ? end - size : 0;
        if (Errc e = state_->reserve_bytes(grow); e != Errc::ok) return e;
        auto n = positional ? inner_->pwrite(data, offset) : inner_->write(data);
        if (n) state_->add_bytes(static_cast<int64_t>(grow));
        return n;
    }

    std::shared_ptr<LimitState> state_;
    std::unique_ptr<FileHandle> inner_;
    const bool writable_;
    const bool append_;
    const std::optional<std::pair<uint64_t, uint64_t>> key_;
};

}  // namespace

LimitedFs::LimitedFs(std::shared_ptr<FileSystem> inner, FsLimits limits, bool count_existing)
    : state_(std::make_shared<LimitState>()) {
    state_->inner = std::move(inner);
    state_->limits = limits;
    if (!count_existing) return;
    // One iterative walk over what is already there. Hard links count once.
    std::set<std::pair<uint64_t, uint64_t>> seen;
    std::vector<std::string> stack{"/"};
    while (!stack.empty()) {
        std::string dir = std::move(stack.back());
        stack.pop_back();
        auto entries = state_->inner->readdir(dir);
        if (!entries) continue;
        for (const DirEntry& e : *entries) {
            std::string child = join_path(dir, e.name);
            auto st = state_->inner->lstat(child);
            if (!st) continue;
            if (st->nlink > 1 && !st->is_directory() && !seen.insert({st->dev, st->ino}).second) continue;
            state_->nodes++;
            state_->bytes += counted_bytes(*st);
            if (st->is_directory()) stack.push_back(std::move(child));
        }
    }
}

LimitedFs::~LimitedFs() = default;

const FsLimits& LimitedFs::limits() const { return state_->limits; }
FileSystem& LimitedFs::inner() { return *state_->inner; }

std::optional<FsSpace> LimitedFs::space() {
    std::lock_guard lock(state_->mu);
    FsSpace sp;
    sp.total_bytes = state_->limits.max_total_bytes == UINT64_MAX ? 0 : state_->limits.max_total_bytes;
    sp.total_nodes = state_->limits.max_nodes == UINT64_MAX ? 0 : state_->limits.max_nodes;
    sp.used_bytes = state_->bytes;
    sp.used_nodes = state_->nodes;
    return sp;
}

uint64_t LimitedFs::bytes_used() const {
    std::lock_guard lock(state_->mu);
    return state_->bytes;
}

uint64_t LimitedFs::nodes_used() const {
    std::lock_guard lock(state_->mu);
    return state_->nodes;
}

uint64_t LimitedFs::open_files() const {
    std::lock_guard lock(state_->mu);
    return state_->open;
}

// The path of a new entry: its length, its depth and its last name.
Errc LimitedFs::check_new_path(std::string_view path) const {
    if (Errc e = check_path(path); e != Errc::ok) return e;
    const FsLimits& l = state_->limits;
    if (path.size() >= l.max_path_length) return Errc::name_too_long;
    std::vector<std::string_view> parts = split_path(normalize_path(path));
    if (parts.size() > l.max_depth) return Errc::name_too_long;
    std::string base = path_basename(path);
    if (base == "." || base == ".." || base == "/") return Errc::ok;  // not a new name: the call fails later
    return check_new_name(base, l.max_name_length);
}

Result<Stat> LimitedFs::stat(std::string_view path) { return state_->inner->stat(path); }
Result<Stat> LimitedFs::lstat(std::string_view path) { return state_->inner->lstat(path); }
std::vector<Result<Stat>> LimitedFs::lstat_in(std::string_view dir, const std::vector<std::string>& names) {
    return state_->inner->lstat_in(dir, names);
}
Result<std::vector<DirEntry>> LimitedFs::readdir(std::string_view path) { return state_->inner->readdir(path); }
Result<std::string> LimitedFs::readlink(std::string_view path) { return state_->inner->readlink(path); }
Result<std::string> LimitedFs::realpath(std::string_view path) { return state_->inner->realpath(path); }
Status LimitedFs::chmod(std::string_view path, Mode mode) { return state_->inner->chmod(path, mode); }
Status LimitedFs::chown(std::string_view path, uint32_t uid, uint32_t gid) {
    return state_->inner->chown(path, uid, gid);
}
Status LimitedFs::utimes(std::string_view path, TimeSet atime, TimeSet mtime, bool follow) {
    return state_->inner->utimes(path, atime, mtime, follow);
}

Result<std::unique_ptr<FileHandle>> LimitedFs::open(std::string_view path, OpenFlags flags, Mode mode) {
    LimitState& s = *state_;
    const bool append = has(flags, OpenFlags::append);
    const bool writes = has(flags, OpenFlags::write) || append;
    const bool create = has(flags, OpenFlags::create);
    const bool truncate = writes && has(flags, OpenFlags::truncate);

    std::lock_guard lock(s.mu);
    if (s.open >= s.limits.max_open_files) return Errc::too_many_open_files;
    // Wraps the inner handle: counted while open, and keyed by the file it holds (see name_removed).
    auto wrap = [&](std::unique_ptr<FileHandle> inner) {
        std::optional<std::pair<uint64_t, uint64_t>> key;
        if (auto st = s.inner->stat(path); st && st->is_regular()) key = std::pair{st->dev, st->ino};
        s.open++;
        return std::unique_ptr<FileHandle>(std::make_unique<LimitedHandle>(state_, std::move(inner), writes, append, key));
    };
    if (!writes && !create) {
        auto h = s.inner->open(path, flags, mode);
        if (!h) return h.error();
        return wrap(std::move(*h));
    }
    auto before = s.inner->stat(path);
    const bool creates = create && !before && before.error() == Errc::no_such_file;
    if (creates) {
        if (Errc e = check_new_path(path); e != Errc::ok) return e;
        if (s.nodes >= s.limits.max_nodes) return Errc::no_space;
    }
    auto h = s.inner->open(path, flags, mode);
    if (!h) return h.error();
    if (creates) {
        s.nodes++;
    } else if (truncate && before && before->is_regular()) {
        s.add_bytes(-static_cast<int64_t>(before->size));
    }
    return wrap(std::move(*h));
}

Status LimitedFs::mkdir(std::string_view path, Mode mode) {
    LimitState& s = *state_;
    std::lock_guard lock(s.mu);
    if (s.inner->lexists(path)) return Errc::file_exists;
    if (Errc e = check_new_path(path); e != Errc::ok) return e;
    if (s.nodes >= s.limits.max_nodes) return Errc::no_space;
    Status r = s.inner->mkdir(path, mode);
    if (r) s.nodes++;
    return r;
}

Status LimitedFs::rmdir(std::string_view path) {
    LimitState& s = *state_;
    std::lock_guard lock(s.mu);
    Status r = s.inner->rmdir(path);
    if (r) s.drop_node();
    return r;
}

Status LimitedFs::unlink(std::string_view path) {
    LimitState& s = *state_;
    std::lock_guard lock(s.mu);
    auto st = s.inner->lstat(path);
    Status r = s.inner->unlink(path);
    if (r && st && st->nlink <= 1) {
        s.drop_node();
        s.name_removed(*st);
    }
    return r;
}

Status LimitedFs::rename(std::string_view from, std::string_view to) {
    LimitState& s = *state_;
    std::lock_guard lock(s.mu);
    auto src = s.inner->lstat(from);
    auto dst = s.inner->lstat(to);
    if (src && !dst && dst.error() == Errc::no_such_file) {
        if (Errc e = check_new_path(to); e != Errc::ok) return e;
    }
    Status r = s.inner->rename(from, to);
    if (r && src && dst && !(src->dev == dst->dev && src->ino == dst->ino) &&
        (dst->is_directory() || dst->nlink <= 1)) {
        s.drop_node();  // the replaced entry
        s.name_removed(*dst);
    }
    return r;
}

Status LimitedFs::symlink(std::string_view target, std::string_view link_path) {
    LimitState& s = *state_;
    std::lock_guard lock(s.mu);
    if (Errc e = check_new_path(link_path); e != Errc::ok) return e;
    if (s.nodes >= s.limits.max_nodes) return Errc::no_space;
    if (Errc e = s.reserve_bytes(target.size()); e != Errc::ok) return e;
    Status r = s.inner->symlink(target, link_path);
    if (r) {
        s.nodes++;
        s.bytes += target.size();
    }
    return r;
}

Status LimitedFs::link(std::string_view existing, std::string_view new_path) {
    LimitState& s = *state_;
    std::lock_guard lock(s.mu);
    if (Errc e = check_new_path(new_path); e != Errc::ok) return e;
    return s.inner->link(existing, new_path);  // a second name of the same file: nothing new to count
}

Status LimitedFs::truncate(std::string_view path, uint64_t size) {
    LimitState& s = *state_;
    std::lock_guard lock(s.mu);
    auto st = s.inner->stat(path);
    if (st && st->is_regular() && size > st->size) {
        if (size > s.limits.max_file_bytes) return Errc::file_too_large;
        if (Errc e = s.reserve_bytes(size - st->size); e != Errc::ok) return e;
    }
    Status r = s.inner->truncate(path, size);
    if (r && st) s.add_bytes(static_cast<int64_t>(size) - static_cast<int64_t>(st->size));
    return r;
}

}  // namespace bashkit::vfs
