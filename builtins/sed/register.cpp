#include "builtins/sed/sed.hpp"

#include "builtins/sed/runtime.hpp"

namespace bashkit::builtins {

void register_sed_utils(interp::CommandRegistry& registry) {
    registry.add("sed",
                 "sed [-nEsuz] [-i[SUFFIX]] [-l N] [-e SCRIPT]... [-f FILE]... [SCRIPT] [FILE]... : stream editor "
                 "(GNU sed 4.9; no e command)",
                 sed::cmd_sed);
}

}  // namespace bashkit::builtins
