// The search utilities' differential table: tests/utils_search/cases/*.txt (format in
// tests/common/difftable.hpp), compared with GNU grep under LC_ALL=C, and with ripgrep (Debian's
// `ripgrep`) for the cases in rg*.txt when it is installed.
//
// For rg, the real tool runs as `rg -n --sort path ...`: bashkit's rg shows line numbers by default and
// always walks in sorted order (see utils/search/rg.cpp), which is what these options ask of ripgrep
// writing to a pipe. Cases that read stdin alone give -n or -N explicitly.
#include <unistd.h>

#include "tests/common/difftable.hpp"

namespace {
bool is_rg_case(const bashkit::testing::DiffCase& c) { return c.file.rfind("rg", 0) == 0; }
}  // namespace

BASHKIT_DIFF_TABLE(SearchDiff, ([] {
                       bashkit::testing::DiffConfig c;
                       c.cases_dir = "tests/utils_search/cases";
                       c.real_available = [](const bashkit::testing::DiffCase& dc) {
                           return !is_rg_case(dc) || access("/usr/bin/rg", X_OK) == 0;
                       };
                       c.real_script = [](const bashkit::testing::DiffCase& dc, const std::string& s) {
                           if (!is_rg_case(dc)) return s;
                           return "rg() { command rg -n --sort path \"$@\"; }\n" + s;
                       };
                       return c;
                   }()))
