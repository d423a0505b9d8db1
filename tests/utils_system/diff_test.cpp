// The system utilities' differential table: tests/utils_system/cases/*.txt (format in
// tests/common/difftable.hpp), compared with GNU coreutils/findutils under LC_ALL=C. Only inputs that do
// not depend on the machine are compared (date -d with fixed dates and TZ, env/xargs/timeout behaviour);
// what depends on the host (now, uname, id, hostname) is in scenario_test.cpp with a virtual clock and
// identity. Never a case that sets the clock: the real side may run as root.
#include "tests/common/difftable.hpp"

BASHKIT_DIFF_TABLE(SystemDiff, ([] {
                       bashkit::testing::DiffConfig c;
                       c.cases_dir = "tests/utils_system/cases";
                       c.dirs = {"dir"};
                       return c;
                   }()))
