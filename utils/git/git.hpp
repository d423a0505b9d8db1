// git as an in-process utility: utils/git/. Our own implementation of git's on-disk formats over the
// session's FileSystem (no libgit2, no host git): see README.md in this folder.
//   core.hpp      the repository layer (objects, packs, refs, config, index, work tree, diff output)
//   objects.cpp   SHA-1, zlib, object formats, loose objects and packs
//   repo.cpp      discovery, refs, revisions, config files, identity, the index file
//   worktree.cpp  paths, .gitignore, status, trees from the index, switching trees
//   diffout.cpp   dates and git's diff output
//   git.cpp       the entry point, init, config; cmd_*.cpp the other subcommands
#pragma once

#include "interp/command.hpp"

namespace bashkit::utils {
void register_git_utils(interp::CommandRegistry& registry);
}

namespace bashkit::utils::git {
int git_main(interp::CommandContext& ctx);
}
