// The names of the shell builtins (cd, eval, export, ...), for front ends that classify commands without
// running them, such as the pre-run analysis of interp/syntax/analyze.hpp. The table itself is in
// builtins/table.cpp; this only looks names up in it.
#pragma once

#include <string_view>

namespace bashkit::interp {

bool is_shell_builtin(std::string_view name);

}  // namespace bashkit::interp
