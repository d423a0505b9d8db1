// Utilities of every family writing into a pipe that closes early: tests/utils_common/cases/*.txt (format
// in tests/common/difftable.hpp), compared with bash and the GNU tools under LC_ALL=C.
#include "tests/common/difftable.hpp"

BASHKIT_DIFF_TABLE(CommonDiff, ([] {
                       bashkit::testing::DiffConfig c;
                       c.cases_dir = "tests/utils_common/cases";
                       return c;
                   }()))
