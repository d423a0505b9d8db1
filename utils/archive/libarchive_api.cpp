#include "utils/archive/libarchive_api.hpp"

namespace bashkit::utils::archive {

BASHKIT_DEFINE_API(LibarchiveApi, libarchive_api, BASHKIT_SONAME_LIBARCHIVE, BASHKIT_LIBARCHIVE_FUNCTIONS)

bool need_libarchive(interp::CommandContext& ctx, std::string_view name) {
    std::string why;
    if (libarchive_api(&why)) return true;
    ctx.err.write(std::string(name) + ": libarchive cannot be loaded: " + why + "\n");
    return false;
}

}  // namespace bashkit::utils::archive
