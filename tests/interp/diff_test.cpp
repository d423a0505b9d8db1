// The interpreter's differential table: tests/interp/cases/*.txt (format in tests/common/difftable.hpp).
// Scripts use shell builtins only: no utility is registered, so a case cannot pass thanks to a utility.
#include "tests/common/difftable.hpp"

BASHKIT_DIFF_TABLE(InterpDiff, ([] {
                       bashkit::testing::DiffConfig c;
                       c.cases_dir = "tests/interp/cases";
                       c.utilities = false;
                       c.env = {{"LC_ALL", "C.UTF-8"}};
                       return c;
                   }()))
