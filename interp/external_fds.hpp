// The shell's open descriptors above 2 (`3<<EOF`, `4>file`) while an ExternalRunner runs, for a runner that
// starts a real program to hand them on (the CLI's --host). Exec::exec_external sets them for the duration
// of the call, on the thread that calls the runner; they are empty at any other time and on other threads.
#pragma once

#include <span>
#include <utility>

#include "interp/stream.hpp"

namespace bashkit::interp {

using ExternalFds = std::span<const std::pair<int, ByteStream*>>;

// The descriptors of the ExternalCommand being run on this thread, by number.
ExternalFds external_more_fds();

class ExternalFdsScope {
public:
    explicit ExternalFdsScope(ExternalFds fds);
    ~ExternalFdsScope();
    ExternalFdsScope(const ExternalFdsScope&) = delete;
    ExternalFdsScope& operator=(const ExternalFdsScope&) = delete;

private:
    ExternalFds saved_;
};

}  // namespace bashkit::interp
