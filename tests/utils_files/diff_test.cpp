// The file utilities' differential table: tests/utils_files/cases/*.txt (format in
// tests/common/difftable.hpp), compared with GNU coreutils/findutils under LC_ALL=C and TZ=UTC.
// Every script starts with a prelude (on its first line) defining `sorted`, an insertion sort in pure
// bash, so scripts can order output whose order GNU leaves to readdir (find, du) without `sort`.
#include "tests/common/difftable.hpp"

BASHKIT_DIFF_TABLE(FilesDiff, ([] {
                       bashkit::testing::DiffConfig c;
                       c.cases_dir = "tests/utils_files/cases";
                       c.env = {{"LC_ALL", "C"}, {"TZ", "UTC"}};
                       c.prelude =
    R"(sorted() { local -a a; local l i j t; while IFS= read -r l; do a+=("$l"); done; for ((i=1;i<${#a[@]};i++)); do t=${a[i]}; for ((j=i-1;j>=0;j--)); do [[ ${a[j]} > $t ]] || break; a[j+1]=${a[j]}; done; a[j+1]=$t; done; ((${#a[@]})) && printf '%s\n' "${a[@]}"; return 0; }; )";
                       return c;
                   }()))
