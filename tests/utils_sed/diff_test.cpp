// sed's differential table: tests/utils_sed/cases/*.txt (format in tests/common/difftable.hpp), compared
// with GNU sed 4.9 under LC_ALL=C. Scripts start in a directory holding only an empty directory `dir`; error
// messages are compared by redirecting stderr (2>&1); in-place edits are checked with cat afterwards.
#include "tests/common/difftable.hpp"

BASHKIT_DIFF_TABLE(SedDiff, ([] {
                       bashkit::testing::DiffConfig c;
                       c.cases_dir = "tests/utils_sed/cases";
                       c.dirs = {"dir"};
                       return c;
                   }()))
