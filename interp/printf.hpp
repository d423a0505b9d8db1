// bash's printf builtin without its option parsing (-v var, --): formats the arguments with the format
// string exactly as bash 5.2 does in the C.UTF-8 locale. Pure: the clock and the time zone come in through
// PrintfContext, the output and messages go back in PrintfResult. Used by the `printf` builtin and utility.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ctime>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace bashkit::interp {

struct PrintfContext {
    // Most bytes one call may produce. A conversion whose width or precision alone exceeds it, or output
    // that grows past it, stops formatting with status 1 and "printf: output too large", so a hostile
    // `printf '%*d' 2000000000 1` never allocates gigabytes.
    size_t max_output = size_t{16} << 20;
    // Most format bytes scanned over all passes (the format is reused while arguments remain). Past it:
    // status 1 and "printf: format too costly for its arguments", before the pass that would exceed it.
    uint64_t max_steps = uint64_t{1} << 28;
    // %(fmt)T: the time for an argument of -1 (or no argument) and for -2 (the shell's start), in seconds
    // since the epoch.
    int64_t now = 0;
    int64_t shell_start = 0;
    // Breaks seconds since the epoch down to local time (the session's TZ); returns false when it cannot.
    // Unset: UTC.
    std::function<bool(int64_t seconds, std::tm& out)> local_time;
    // The locale is UTF-8 (C.UTF-8): \u escapes give UTF-8, 'c arguments give code points, %q keeps
    // printable non-ASCII characters. false means the C locale.
    bool utf8 = true;
};

struct PrintfResult {
    std::string output;
    int status = 0;
    // bash's messages without its "bash: line N: " prefix and without newline, in order, e.g.
    // "printf: abc: invalid number", "printf: warning: 99999999999999999999: Numerical result out of range".
    std::vector<std::string> diagnostics;
    // %n: variables to set, in order, to the number of bytes written so far in the current pass of the format.
    std::vector<std::pair<std::string, int64_t>> assignments;
};

PrintfResult format(std::string_view fmt, std::span<const std::string> args, const PrintfContext& ctx = {});

}  // namespace bashkit::interp
