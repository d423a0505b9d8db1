#include "utils/files/files.hpp"
#include "utils/files/files_impl.hpp"

namespace bashkit::utils {

void register_file_utils(interp::CommandRegistry& registry) {
    files::register_ls(registry);
    files::register_cp_mv(registry);
    files::register_rm(registry);
    files::register_mkdir(registry);
    files::register_touch(registry);
    files::register_ln(registry);
    files::register_chmod(registry);
    files::register_stat(registry);
    files::register_find(registry);
    files::register_paths(registry);
    files::register_du_df(registry);
    files::register_tree(registry);
    files::register_file(registry);
    files::register_links_sizes(registry);
    files::register_rename(registry);
    files::register_dd(registry);
    files::register_chown(registry);
    files::register_install(registry);
}

}  // namespace bashkit::utils
