// git differential table: tests/utils_git/cases/*.txt (format in tests/common/difftable.hpp), compared
// with the real git 2.39 of this machine. Both sides get a fixed identity and dates, so commit ids are equal
// and outputs compare byte for byte. Output lines starting with "--- " would read as sections of the case
// file, so diffs run under `q`, which prefixes every line of their output with '|' and keeps their status.
#include "tests/common/difftable.hpp"

BASHKIT_DIFF_TABLE(GitTable, ([] {
                       bashkit::testing::DiffConfig c;
                       c.cases_dir = "tests/utils_git/cases";
                       c.env = {{"LC_ALL", "C"},
                                {"GIT_AUTHOR_NAME", "A U Thor"},
                                {"GIT_AUTHOR_EMAIL", "author@example.com"},
                                {"GIT_COMMITTER_NAME", "A U Thor"},
                                {"GIT_COMMITTER_EMAIL", "author@example.com"},
                                {"GIT_AUTHOR_DATE", "@1700000000 +0000"},
                                {"GIT_COMMITTER_DATE", "@1700000000 +0000"},
                                {"GIT_CONFIG_NOSYSTEM", "1"},
                                {"TZ", "UTC"}};
                       c.prelude = "q() { \"$@\" | sed 's/^/|/'; return \"${PIPESTATUS[0]}\"; }; ";
                       // Asked once: a shell and a git a case cost 11 s of CPU time over the table.
                       static const bool have_git = std::system("git --version >/dev/null 2>&1") == 0;
                       c.real_available = [](const bashkit::testing::DiffCase&) { return have_git; };
                       return c;
                   }()))
