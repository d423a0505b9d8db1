#include "builtins/files/files.hpp"
#include "builtins/files/files_impl.hpp"

namespace bashkit::builtins {

void register_file_utils(interp::CommandRegistry& registry) {
    files::register_ls(registry);
    files::register_cp_mv(registry);
    files::register_rm(registry);
    files::register_mkdir(registry);
    files::register_touch(registry);
    files::register_ln(registry);
}

}  // namespace bashkit::builtins
