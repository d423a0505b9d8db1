#include "utils/sqlite/vfs.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <random>
#include <utility>

#include "utils/sqlite/sqlite_api.hpp"
#include "interp/governor.hpp"

namespace bashkit::utils::sqlite {

namespace {

// ---------------------------------------------------------------------------------------------------------
// Locks: SQLite's five levels, per (FileSystem, path), shared by every connection of the process.

struct LockState {
    int shared = 0;      // handles holding SHARED or more
    bool reserved = false;
    bool pending = false;
    bool exclusive = false;
    int handles = 0;     // open handles on this file (the entry is dropped at 0)
};

std::mutex g_lock_mu;
std::map<std::pair<const vfs::FileSystem*, std::string>, LockState>& lock_table() {
    static auto* table = new std::map<std::pair<const vfs::FileSystem*, std::string>, LockState>();
    return *table;
}

// ---------------------------------------------------------------------------------------------------------
// Files

struct BkFile {
    sqlite3_file base;  // first: SQLite sees a sqlite3_file*
    SessionVfs* owner = nullptr;
    std::unique_ptr<vfs::FileHandle> handle;  // a file of the tree, or
    std::string mem;                          // a temporary file held in memory (charged)
    std::unique_ptr<interp::MemoryCharge> charge;
    bool in_memory = false;
    bool delete_on_close = false;
    std::string path;
    int lock = SQLITE_LOCK_NONE;
    LockState* lock_state = nullptr;
};

BkFile* as(sqlite3_file* f) { return reinterpret_cast<BkFile*>(f); }
SessionVfs* owner_of(sqlite3_vfs* v) { return static_cast<SessionVfs*>(v->pAppData); }

int x_close(sqlite3_file* f) {
    BkFile* b = as(f);
    if (b->lock_state) {
        std::lock_guard<std::mutex> g(g_lock_mu);
        LockState& s = *b->lock_state;
        if (b->lock >= SQLITE_LOCK_SHARED) --s.shared;
        if (b->lock >= SQLITE_LOCK_RESERVED) s.reserved = false;
        if (b->lock >= SQLITE_LOCK_PENDING) s.pending = false;
        if (b->lock >= SQLITE_LOCK_EXCLUSIVE) s.exclusive = false;
        if (--s.handles == 0) lock_table().erase({&b->owner->ctx.fs, b->path});
    }
    b->handle.reset();
    if (b->delete_on_close && !b->path.empty()) (void)b->owner->ctx.fs.unlink(b->path);
    b->~BkFile();
    return SQLITE_OK;
}

int x_read(sqlite3_file* f, void* buf, int amt, sqlite3_int64 off) {
    BkFile* b = as(f);
    char* out = static_cast<char*>(buf);
    size_t got = 0;
    if (b->in_memory) {
        if (off < static_cast<sqlite3_int64>(b->mem.size())) {
            got = std::min(static_cast<size_t>(amt), b->mem.size() - static_cast<size_t>(off));
            std::memcpy(out, b->mem.data() + off, got);
        }
    } else {
        while (got < static_cast<size_t>(amt)) {
            auto r = b->handle->pread(out + got, static_cast<size_t>(amt) - got, static_cast<uint64_t>(off) + got);
            if (!r.ok()) return SQLITE_IOERR_READ;
            if (*r == 0) break;
            got += *r;
        }
    }
    if (got < static_cast<size_t>(amt)) {
        std::memset(out + got, 0, static_cast<size_t>(amt) - got);
        return SQLITE_IOERR_SHORT_READ;
    }
    return SQLITE_OK;
}

int write_error(vfs::Errc e) {
    switch (e) {
        case vfs::Errc::no_space:
        case vfs::Errc::quota_exceeded:
        case vfs::Errc::file_too_large: return SQLITE_FULL;
        case vfs::Errc::read_only:
        case vfs::Errc::permission_denied: return SQLITE_READONLY;
        default: return SQLITE_IOERR_WRITE;
    }
}

int x_write(sqlite3_file* f, const void* buf, int amt, sqlite3_int64 off) {
    BkFile* b = as(f);
    const char* in = static_cast<const char*>(buf);
    if (b->in_memory) {
        const size_t end = static_cast<size_t>(off) + static_cast<size_t>(amt);
        if (end > b->mem.size()) {
            if (!b->charge->try_add(end - b->mem.size())) return SQLITE_FULL;
            b->mem.resize(end);
        }
        std::memcpy(b->mem.data() + off, in, static_cast<size_t>(amt));
        return SQLITE_OK;
    }
    size_t done = 0;
    while (done < static_cast<size_t>(amt)) {
        auto r = b->handle->pwrite(std::string_view(in + done, static_cast<size_t>(amt) - done),
                                   static_cast<uint64_t>(off) + done);
        if (!r.ok()) return write_error(r.error());
        if (*r == 0) return SQLITE_IOERR_WRITE;
        done += *r;
    }
    return SQLITE_OK;
}

int x_truncate(sqlite3_file* f, sqlite3_int64 size) {
    BkFile* b = as(f);
    if (b->in_memory) {
        if (static_cast<size_t>(size) < b->mem.size()) {
            b->mem.resize(static_cast<size_t>(size));
            b->charge->set(b->mem.size());
        }
        return SQLITE_OK;
    }
    return b->handle->truncate(static_cast<uint64_t>(size)).ok() ? SQLITE_OK : SQLITE_IOERR_TRUNCATE;
}

int x_sync(sqlite3_file*, int) { return SQLITE_OK; }

int x_file_size(sqlite3_file* f, sqlite3_int64* size) {
    BkFile* b = as(f);
    if (b->in_memory) {
        *size = static_cast<sqlite3_int64>(b->mem.size());
        return SQLITE_OK;
    }
    auto st = b->handle->stat();
    if (!st.ok()) return SQLITE_IOERR_FSTAT;
    *size = static_cast<sqlite3_int64>(st->size);
    return SQLITE_OK;
}

int x_lock(sqlite3_file* f, int level) {
    BkFile* b = as(f);
    if (b->lock >= level) return SQLITE_OK;
    if (!b->lock_state) {
        b->lock = level;
        return SQLITE_OK;
    }
    std::lock_guard<std::mutex> g(g_lock_mu);
    LockState& s = *b->lock_state;
    if (level == SQLITE_LOCK_SHARED) {
        if (s.pending || s.exclusive) return SQLITE_BUSY;
        ++s.shared;
        b->lock = SQLITE_LOCK_SHARED;
        return SQLITE_OK;
    }
    if (level == SQLITE_LOCK_RESERVED) {
        if (s.reserved || s.pending || s.exclusive) return SQLITE_BUSY;
        s.reserved = true;
        b->lock = SQLITE_LOCK_RESERVED;
        return SQLITE_OK;
    }
    // EXCLUSIVE (through PENDING): from SHARED (hot-journal rollback) there must be no writer either.
    if (b->lock < SQLITE_LOCK_RESERVED && (s.reserved || s.pending)) return SQLITE_BUSY;
    if (b->lock < SQLITE_LOCK_PENDING) {
        if (s.pending) return SQLITE_BUSY;
        s.pending = true;
        if (b->lock < SQLITE_LOCK_RESERVED) s.reserved = true;
        b->lock = SQLITE_LOCK_PENDING;
    }
    if (s.shared > 1) return SQLITE_BUSY;  // readers still there: keep PENDING so no new reader comes
    s.exclusive = true;
    b->lock = SQLITE_LOCK_EXCLUSIVE;
    return SQLITE_OK;
}

int x_unlock(sqlite3_file* f, int level) {
    BkFile* b = as(f);
    if (b->lock <= level) return SQLITE_OK;
    if (!b->lock_state) {
        b->lock = level;
        return SQLITE_OK;
    }
    std::lock_guard<std::mutex> g(g_lock_mu);
    LockState& s = *b->lock_state;
    if (b->lock >= SQLITE_LOCK_EXCLUSIVE) s.exclusive = false;
    if (b->lock >= SQLITE_LOCK_PENDING) s.pending = false;
    if (b->lock >= SQLITE_LOCK_RESERVED) s.reserved = false;
    if (level == SQLITE_LOCK_NONE && b->lock >= SQLITE_LOCK_SHARED) --s.shared;
    b->lock = level;
    return SQLITE_OK;
}

int x_check_reserved(sqlite3_file* f, int* out) {
    BkFile* b = as(f);
    if (!b->lock_state) {
        *out = 0;
        return SQLITE_OK;
    }
    std::lock_guard<std::mutex> g(g_lock_mu);
    const LockState& s = *b->lock_state;
    *out = (s.reserved || s.pending || s.exclusive) ? 1 : 0;
    return SQLITE_OK;
}

int x_file_control(sqlite3_file*, int, void*) { return SQLITE_NOTFOUND; }
int x_sector_size(sqlite3_file*) { return 4096; }
int x_device_characteristics(sqlite3_file*) { return 0; }

const sqlite3_io_methods kIoMethods = {
    1,  // iVersion: no shared memory (WAL), no memory mapping
    x_close, x_read, x_write, x_truncate, x_sync, x_file_size, x_lock, x_unlock, x_check_reserved,
    x_file_control, x_sector_size, x_device_characteristics,
    nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
};

// ---------------------------------------------------------------------------------------------------------
// The VFS

int x_open(sqlite3_vfs* v, const char* name, sqlite3_file* f, int flags, int* out_flags) {
    SessionVfs* o = owner_of(v);
    f->pMethods = nullptr;
    auto* b = new (f) BkFile();
    b->owner = o;
    if (!name) {
        // A temporary file: held in memory, charged to the session's budget.
        b->in_memory = true;
        b->charge = std::make_unique<interp::MemoryCharge>(o->memory());
        if (out_flags) *out_flags = flags;
        b->base.pMethods = &kIoMethods;
        return SQLITE_OK;
    }
    b->path = name;
    vfs::OpenFlags of = vfs::OpenFlags::read;
    const bool rw = (flags & SQLITE_OPEN_READWRITE) != 0;
    if (rw) of = of | vfs::OpenFlags::write;
    if (flags & SQLITE_OPEN_CREATE) of = of | vfs::OpenFlags::create;
    if (flags & SQLITE_OPEN_EXCLUSIVE) of = of | vfs::OpenFlags::exclusive;
    auto h = o->ctx.fs.open(b->path, of, 0644);
    int got = flags;
    if (!h.ok() && rw && (h.error() == vfs::Errc::permission_denied || h.error() == vfs::Errc::read_only) &&
        (flags & SQLITE_OPEN_MAIN_DB)) {
        h = o->ctx.fs.open(b->path, vfs::OpenFlags::read, 0644);
        got = (flags & ~(SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)) | SQLITE_OPEN_READONLY;
    }
    if (!h.ok()) {
        b->~BkFile();
        return SQLITE_CANTOPEN;
    }
    if (auto st = (*h)->stat(); st.ok() && st->is_directory()) {
        b->~BkFile();
        return SQLITE_CANTOPEN;
    }
    b->handle = std::move(h).value();
    b->delete_on_close = (flags & SQLITE_OPEN_DELETEONCLOSE) != 0;
    if (flags & SQLITE_OPEN_MAIN_DB) {
        std::lock_guard<std::mutex> g(g_lock_mu);
        LockState& s = lock_table()[{&o->ctx.fs, b->path}];
        ++s.handles;
        b->lock_state = &s;
    }
    if (out_flags) *out_flags = got;
    b->base.pMethods = &kIoMethods;
    return SQLITE_OK;
}

int x_delete(sqlite3_vfs* v, const char* name, int) {
    auto st = owner_of(v)->ctx.fs.unlink(name);
    if (st.ok() || st.error() == vfs::Errc::no_such_file) return SQLITE_OK;
    return SQLITE_IOERR_DELETE;
}

int x_access(sqlite3_vfs* v, const char* name, int, int* out) {
    auto st = owner_of(v)->ctx.fs.stat(name);
    *out = st.ok() ? 1 : 0;
    return SQLITE_OK;
}

int x_full_pathname(sqlite3_vfs* v, const char* name, int n, char* out) {
    const std::string full = vfs::normalize_path(vfs::join_path(owner_of(v)->ctx.cwd, name));
    if (full.size() + 1 > static_cast<size_t>(n)) return SQLITE_CANTOPEN;
    std::memcpy(out, full.c_str(), full.size() + 1);
    return SQLITE_OK;
}

void* x_dlopen(sqlite3_vfs*, const char*) { return nullptr; }
void x_dlerror(sqlite3_vfs*, int n, char* out) {
    const char msg[] = "extensions cannot be loaded in bashkit";
    if (n <= 0) return;
    const size_t len = std::min(static_cast<size_t>(n) - 1, sizeof(msg) - 1);
    std::memcpy(out, msg, len);
    out[len] = 0;
}
void (*x_dlsym(sqlite3_vfs*, void*, const char*))(void) { return nullptr; }
void x_dlclose(sqlite3_vfs*, void*) {}

int x_randomness(sqlite3_vfs*, int n, char* out) {
    static std::mutex mu;
    static std::mt19937_64 gen{std::random_device{}()};
    std::lock_guard<std::mutex> g(mu);
    for (int i = 0; i < n; ++i) out[i] = static_cast<char>(gen());
    return n;
}

int x_sleep(sqlite3_vfs*, int us) { return us; }

int x_current_time_int64(sqlite3_vfs* v, sqlite3_int64* out) {
    // Julian day number times 86400000 (milliseconds), from the session's clock.
    const vfs::TimeSpec t = owner_of(v)->ctx.clock.now();
    constexpr sqlite3_int64 kUnixEpoch = 24405875 * static_cast<sqlite3_int64>(8640000);
    *out = kUnixEpoch + t.sec * 1000 + t.nsec / 1000000;
    return SQLITE_OK;
}

int x_current_time(sqlite3_vfs* v, double* out) {
    sqlite3_int64 ms = 0;
    x_current_time_int64(v, &ms);
    *out = static_cast<double>(ms) / 86400000.0;
    return SQLITE_OK;
}

int x_get_last_error(sqlite3_vfs*, int, char*) { return 0; }

std::atomic<uint64_t> g_vfs_serial{0};

}  // namespace

SessionVfs::SessionVfs(interp::CommandContext& c) : ctx(c), fallback_(c.limits.max_memory_bytes) {
    name_ = "bashkit-" + std::to_string(++g_vfs_serial);
    vfs_.iVersion = 2;
    vfs_.szOsFile = static_cast<int>(sizeof(BkFile));
    vfs_.mxPathname = static_cast<int>(vfs::kMaxPathLength);
    vfs_.zName = name_.c_str();
    vfs_.pAppData = this;
    vfs_.xOpen = x_open;
    vfs_.xDelete = x_delete;
    vfs_.xAccess = x_access;
    vfs_.xFullPathname = x_full_pathname;
    vfs_.xDlOpen = x_dlopen;
    vfs_.xDlError = x_dlerror;
    vfs_.xDlSym = x_dlsym;
    vfs_.xDlClose = x_dlclose;
    vfs_.xRandomness = x_randomness;
    vfs_.xSleep = x_sleep;
    vfs_.xCurrentTime = x_current_time;
    vfs_.xGetLastError = x_get_last_error;
    vfs_.xCurrentTimeInt64 = x_current_time_int64;
    registered_ = sq().sqlite3_vfs_register(&vfs_, 0) == SQLITE_OK;
}

SessionVfs::~SessionVfs() {
    if (registered_) sq().sqlite3_vfs_unregister(&vfs_);
}

}  // namespace bashkit::utils::sqlite
