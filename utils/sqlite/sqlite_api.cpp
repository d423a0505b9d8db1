#include "utils/sqlite/sqlite_api.hpp"

namespace bashkit::utils::sqlite {

BASHKIT_DEFINE_API(SqliteApi, sqlite_api, BASHKIT_SONAME_LIBSQLITE3, BASHKIT_SQLITE_FUNCTIONS)

bool need_sqlite(interp::CommandContext& ctx) {
    std::string why;
    if (sqlite_api(&why)) return true;
    (void)ctx.err.write("sqlite3: libsqlite3 cannot be loaded: " + why + "\n");
    return false;
}

}  // namespace bashkit::utils::sqlite
