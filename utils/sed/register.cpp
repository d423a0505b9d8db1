#include "utils/sed/sed.hpp"

#include "utils/sed/runtime.hpp"

namespace bashkit::utils {

void register_sed_utils(interp::CommandRegistry& registry) {
    registry.add("sed",
                 "sed [-nEsuz] [-i[SUFFIX]] [-l N] [-e SCRIPT]... [-f FILE]... [SCRIPT] [FILE]... : stream editor "
                 "(GNU sed 4.9; no e command)",
                 sed::cmd_sed);
}

}  // namespace bashkit::utils
