// diff/cmp/patch differential table: tests/utils_diff/cases/*.txt (format in tests/common/difftable.hpp),
// compared with GNU diffutils 3.8 and GNU patch 2.7 under LC_ALL=C. Headers of diff -u/-c show file times:
// cases set them with touch -d (TZ is unset on both sides: UTC) or use --label. Output lines starting with
// "--- " would read as sections of the case file, so such commands run under `q`, which prefixes every line
// of their output with '|' and keeps their status.
#include "tests/common/difftable.hpp"

BASHKIT_DIFF_TABLE(DiffDiff, ([] {
                       bashkit::testing::DiffConfig c;
                       c.cases_dir = "tests/utils_diff/cases";
                       c.prelude = "q() { \"$@\" | sed 's/^/|/'; return \"${PIPESTATUS[0]}\"; }; ";
                       return c;
                   }()))
