// The data utilities' differential table: tests/utils_data/cases/*.txt (format in
// tests/common/difftable.hpp), compared with GNU coreutils and GNU bc under LC_ALL=C. Error messages are
// compared by redirecting stderr (2>&1).
#include "tests/common/difftable.hpp"

BASHKIT_DIFF_TABLE(DataDiff, ([] {
                       bashkit::testing::DiffConfig c;
                       c.cases_dir = "tests/utils_data/cases";
                       return c;
                   }()))
