// awk's differential table: tests/builtins_awk/cases/*.txt (format in tests/common/difftable.hpp), compared
// with gawk 5.2 under LC_ALL=C (the real side runs `awk` as gawk whatever /usr/bin/awk points to). Error
// messages are compared through 2>&1.
#include <filesystem>

#include "tests/common/difftable.hpp"

BASHKIT_DIFF_TABLE(AwkDiff, ([] {
                       bashkit::testing::DiffConfig c;
                       c.cases_dir = "tests/builtins_awk/cases";
                       c.real_script = [](const bashkit::testing::DiffCase&, const std::string& s) {
                           return "awk() { gawk \"$@\"; }; " + s;
                       };
                       c.real_available = [](const bashkit::testing::DiffCase&) {
                           return std::filesystem::exists("/usr/bin/gawk");
                       };
                       return c;
                   }()))
