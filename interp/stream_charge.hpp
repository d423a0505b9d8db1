// Pipes whose buffer is held on the session's memory budget (governor.hpp).
//
// make_charged_pipe() is make_pipe() (stream.hpp) with the buffer charged before it is allocated and for as
// long as either end lives: past the budget it throws MemoryLimitExceeded, as a failed allocation would (the
// interpreter's command boundary makes that the command's `memory limit exceeded`). Bytes put back with
// unread() are charged as the buffer grows for them (refused past the budget). The interpreter makes every
// pipe of a session this way: pipeline stages, process substitutions, coprocesses.
#pragma once

#include <cstddef>

#include "interp/governor.hpp"
#include "interp/stream.hpp"

namespace bashkit::interp {

PipeEnds make_charged_pipe(const CancelToken* cancel, MemoryBudget& budget, size_t capacity = kPipeCapacity);

}  // namespace bashkit::interp
