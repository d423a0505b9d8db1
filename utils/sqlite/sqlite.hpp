// The sqlite family: sqlite3 over libsqlite3 and our VFS on the session's FileSystem.
#pragma once

#include "interp/command.hpp"

namespace bashkit::utils {

void register_sqlite_utils(interp::CommandRegistry& registry);

namespace sqlite {
int cmd_sqlite3(interp::CommandContext& ctx);
}

}  // namespace bashkit::utils
