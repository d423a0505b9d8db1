// An sqlite3_vfs over the session's FileSystem: every file SQLite opens (the database, its rollback journal,
// a statement journal, temporary tables and sorter spills) is a file of the virtual tree or a buffer charged to
// the session's memory budget. SQLite never sees a host path.
//
// Each sqlite3 invocation registers its own VFS object ("bashkit-N", never the default VFS) that carries the
// invocation's FileSystem, working directory, clock and memory budget, opens its connections with it by
// name, and unregisters it when it ends. Locks are kept in a process-wide table keyed by (FileSystem, path),
// so two sqlite3 commands of a pipeline (two threads) see each other's locks as separate processes would.
// There is no shared-memory (WAL) support: PRAGMA journal_mode=WAL fails over to the rollback journal, as
// SQLite does on a VFS without xShmMap.
#pragma once

#include <sqlite3.h>

#include <string>

#include "interp/command.hpp"
#include "interp/governor.hpp"

namespace bashkit::utils::sqlite {

class SessionVfs {
public:
    explicit SessionVfs(interp::CommandContext& ctx);
    ~SessionVfs();
    SessionVfs(const SessionVfs&) = delete;
    SessionVfs& operator=(const SessionVfs&) = delete;

    const char* name() const { return name_.c_str(); }
    bool registered() const { return registered_; }

    interp::CommandContext& ctx;
    // What temporary files are charged to: the session's budget, or (a context without one) a budget of this
    // invocation sized from ExecutionLimits::max_memory_bytes.
    interp::MemoryBudget* memory() { return ctx.memory ? ctx.memory : &fallback_; }

private:
    interp::MemoryBudget fallback_;
    sqlite3_vfs vfs_{};
    std::string name_;
    bool registered_ = false;
};

}  // namespace bashkit::utils::sqlite
