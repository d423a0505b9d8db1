// Under AddressSanitizer, a program whose evaluator fiber uses ucontext (EvalFiber's fallback on
// architectures other than x86-64 and AArch64) prints a one-time notice on stderr; tests that compare a
// program's stderr remove it.
#pragma once

#include <string>

namespace bashkit::testing {

inline void strip_asan_fiber_notice(std::string& err) {
    for (size_t at; (at = err.find("WARNING: ASan doesn't fully support makecontext/swapcontext")) != std::string::npos;) {
        size_t start = err.rfind('\n', at);
        start = start == std::string::npos ? 0 : start + 1;
        size_t end = err.find('\n', at);
        err.erase(start, end == std::string::npos ? std::string::npos : end + 1 - start);
    }
}

}  // namespace bashkit::testing
