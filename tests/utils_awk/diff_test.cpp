// awk's differential table: tests/utils_awk/cases/*.txt (format in tests/common/difftable.hpp), compared
// with gawk 5.2 under LC_ALL=C (the real side runs only where /usr/bin/awk is gawk, as scripts/setup makes it). Error
// messages are compared through 2>&1.
#include <filesystem>

#include "tests/common/difftable.hpp"

BASHKIT_DIFF_TABLE(AwkDiff, ([] {
                       bashkit::testing::DiffConfig c;
                       c.cases_dir = "tests/utils_awk/cases";
                       c.real_available = [](const bashkit::testing::DiffCase&) {
                           std::error_code ec;
                           auto p = std::filesystem::canonical("/usr/bin/awk", ec);
                           return !ec && p.filename() == "gawk";
                       };
                       return c;
                   }()))
