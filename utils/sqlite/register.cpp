#include "utils/sqlite/sqlite.hpp"

namespace bashkit::utils {

void register_sqlite_utils(interp::CommandRegistry& registry) {
    registry.add("sqlite3",
                 "sqlite3 [-csv|-json|-line|-column|-box|-markdown|-table|-quote|-tabs|-html|-list] [-[no]header] "
                 "[-separator SEP] [-cmd CMD] [-bail] [-readonly] [FILE] [SQL]... : the SQLite shell over the "
                 "virtual tree",
                 sqlite::cmd_sqlite3);
}

}  // namespace bashkit::utils
