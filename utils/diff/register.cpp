#include "utils/diff/diff.hpp"

#include "utils/diff/tools.hpp"

namespace bashkit::utils {

void register_diff_utils(interp::CommandRegistry& registry) {
    registry.add("diff",
                 "diff [-qrNuciwbBy] [-U N] [-C N] [-W N] [--label L]... FILE1 FILE2 : compare files line by line "
                 "(GNU diff 3.8)",
                 diffutil::cmd_diff);
    registry.add("sdiff",
                 "sdiff [-ilsZbWBa] [-w N] FILE1 FILE2 : side-by-side differences (GNU sdiff 3.8; -o refused: no "
                 "terminal to answer its prompts)",
                 diffutil::cmd_sdiff);
    registry.add("diff3",
                 "diff3 [-m|-e|-E|-x|-X|-3|-A] [-i] [-a] [-T] [-L LABEL]... MINE OLDER YOURS : compare three files "
                 "(GNU diff3 3.8)",
                 diffutil::cmd_diff3);
    registry.add("cmp", "cmp [-blsn N] FILE1 [FILE2 [SKIP1 [SKIP2]]] : compare two files byte by byte",
                 diffutil::cmd_cmp);
    registry.add("patch",
                 "patch [-pN] [-R] [-N] [--dry-run] [-i PATCHFILE] [-o OUT] [FILE] : apply a unified diff "
                 "(GNU patch 2.7; exact or offset matches, no fuzz)",
                 diffutil::cmd_patch);
}

}  // namespace bashkit::utils
