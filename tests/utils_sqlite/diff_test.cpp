// sqlite3's differential table: tests/utils_sqlite/cases/*.txt (format in tests/common/difftable.hpp),
// compared with the Debian sqlite3 shell (3.40) under LC_ALL=C. Error messages are compared by redirecting
// stderr (2>&1).
#include "tests/common/difftable.hpp"

BASHKIT_DIFF_TABLE(SqliteDiff, ([] {
                       bashkit::testing::DiffConfig c;
                       c.cases_dir = "tests/utils_sqlite/cases";
                       return c;
                   }()))
