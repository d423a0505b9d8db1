// diff, cmp and patch (GNU diffutils 3.8 / GNU patch 2.7, LC_ALL=C) as in-process utilities: utils/diff/.
//   myers.hpp  the O(ND) edit-script engine (linear space, bounded cost) and the boundary shifting pass
//   diff.cpp   diff: options, files and directories, normal / unified / context / side-by-side output
//   cmp.cpp    cmp
//   patch.cpp  patch: unified diffs applied over the FileSystem
#pragma once

#include "interp/command.hpp"

namespace bashkit::utils {
void register_diff_utils(interp::CommandRegistry& registry);
}
