// The archive utilities' differential table: tests/utils_archive/cases/*.txt (format in
// tests/common/difftable.hpp), compared with GNU tar, GNU gzip and Info-ZIP zip/unzip under LC_ALL=C.
// Listings fix owners and times (--owner/--group/--mtime, touch -d) so they are the same everywhere.
#include "tests/common/difftable.hpp"

BASHKIT_DIFF_TABLE(ArchiveDiff, ([] {
                       bashkit::testing::DiffConfig c;
                       c.cases_dir = "tests/utils_archive/cases";
                       // GNU tar stores a directory in readdir order unless told; bashkit's tar always sorts.
                       c.env.emplace_back("TAR_OPTIONS", "--sort=name");
                       return c;
                   }()))
