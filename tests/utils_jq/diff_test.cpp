// jq's differential table: tests/utils_jq/cases/*.txt (format in tests/common/difftable.hpp), compared
// with the real jq 1.6 (Debian 12's) under LC_ALL=C. Error messages are compared by redirecting stderr (2>&1).
#include "tests/common/difftable.hpp"

BASHKIT_DIFF_TABLE(JqDiff, ([] {
                       bashkit::testing::DiffConfig c;
                       c.cases_dir = "tests/utils_jq/cases";
                       return c;
                   }()))
