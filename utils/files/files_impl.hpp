// Internal to utils/files: one register function per source file.
#pragma once

#include "interp/command.hpp"

namespace bashkit::utils::files {
void register_ls(interp::CommandRegistry& r);
void register_cp_mv(interp::CommandRegistry& r);
void register_rm(interp::CommandRegistry& r);
void register_mkdir(interp::CommandRegistry& r);
void register_touch(interp::CommandRegistry& r);
void register_ln(interp::CommandRegistry& r);
void register_stat(interp::CommandRegistry& r);
void register_find(interp::CommandRegistry& r);
void register_du_df(interp::CommandRegistry& r);
void register_chmod(interp::CommandRegistry& r);
void register_paths(interp::CommandRegistry& r);
void register_tree(interp::CommandRegistry& r);
void register_file(interp::CommandRegistry& r);
void register_links_sizes(interp::CommandRegistry& r);
void register_rename(interp::CommandRegistry& r);
void register_dd(interp::CommandRegistry& r);
void register_chown(interp::CommandRegistry& r);
void register_install(interp::CommandRegistry& r);
}  // namespace bashkit::utils::files
