// File utilities: ls cp mv rm mkdir rmdir touch ln stat find du df chmod realpath readlink basename dirname
// mktemp tree file.
#pragma once

#include "interp/command.hpp"

namespace bashkit::utils {
void register_file_utils(interp::CommandRegistry& registry);
}
