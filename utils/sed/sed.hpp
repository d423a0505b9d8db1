// GNU sed (4.9, LC_ALL=C) as an in-process utility: utils/sed/.
//   program.hpp  the compiled script (commands, addresses, s/// and y/// data)
//   parser.cpp   script text -> Program, with GNU's error messages and positions
//   runtime.cpp  runs a Program over the inputs (streams line by line; -i, -s, -z)
//   sed.cpp      options and the utility entry point
#pragma once

#include "interp/command.hpp"

namespace bashkit::utils {
void register_sed_utils(interp::CommandRegistry& registry);
}
