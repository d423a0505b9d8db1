// libsqlite3, loaded on first use (base/lazy_library.hpp): a process that never runs sqlite3 does not load it.
// Every call goes through sq(), after need_sqlite() has said yes.
#pragma once

#include <sqlite3.h>

#include <string>
#include <string_view>

#include "base/lazy_library.hpp"
#include "interp/command.hpp"

#define BASHKIT_SQLITE_FUNCTIONS(X) \
    X(sqlite3_open_v2) X(sqlite3_close_v2) X(sqlite3_vfs_register) X(sqlite3_vfs_unregister) \
    X(sqlite3_vfs_find) X(sqlite3_prepare_v2) X(sqlite3_step) X(sqlite3_finalize) X(sqlite3_reset) \
    X(sqlite3_column_count) X(sqlite3_column_name) X(sqlite3_column_type) X(sqlite3_column_text) \
    X(sqlite3_column_bytes) X(sqlite3_column_blob) X(sqlite3_column_double) X(sqlite3_column_int64) \
    X(sqlite3_errmsg) X(sqlite3_errcode) X(sqlite3_error_offset) X(sqlite3_progress_handler) \
    X(sqlite3_set_authorizer) X(sqlite3_limit) X(sqlite3_complete) X(sqlite3_db_config) X(sqlite3_free) \
    X(sqlite3_mprintf) X(sqlite3_snprintf) X(sqlite3_bind_text) X(sqlite3_bind_null) \
    X(sqlite3_bind_parameter_count) X(sqlite3_stmt_isexplain) X(sqlite3_libversion) X(sqlite3_sourceid) \
    X(sqlite3_exec) X(sqlite3_busy_timeout) X(sqlite3_get_autocommit)

namespace bashkit::utils::sqlite {

struct SqliteApi {
    BASHKIT_SQLITE_FUNCTIONS(BASHKIT_API_MEMBER)
};

// libsqlite3's functions, or nullptr with *error set when the library cannot be loaded.
const SqliteApi* sqlite_api(std::string* error = nullptr);

// Loads libsqlite3; false after "sqlite3: libsqlite3 cannot be loaded: WHY" on stderr.
bool need_sqlite(interp::CommandContext& ctx);

// The loaded API: only after need_sqlite() returned true.
inline const SqliteApi& sq() { return *sqlite_api(); }

}  // namespace bashkit::utils::sqlite
