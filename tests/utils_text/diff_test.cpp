// The text utilities' differential table: tests/utils_text/cases/*.txt (format in
// tests/common/difftable.hpp), compared with GNU coreutils under LC_ALL=C. Scripts start in a directory
// holding only an empty directory `dir`; error messages are compared by redirecting stderr (2>&1).
#include "tests/common/difftable.hpp"

BASHKIT_DIFF_TABLE(TextDiff, ([] {
                       bashkit::testing::DiffConfig c;
                       c.cases_dir = "tests/utils_text/cases";
                       c.dirs = {"dir"};
                       return c;
                   }()))
