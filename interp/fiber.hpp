// A large stack for the evaluator without a thread: run() switches the calling thread onto the fiber's
// stack, runs the function to completion, and switches back. The evaluation always runs to completion, so
// the switch is a call on another stack (a few instructions of assembly on x86-64 and AArch64, see
// fiber.cpp), not a general context switch: glibc's swapcontext/getcontext also save and restore the signal
// mask, three system calls per run that cost about 3 us on a VM (most of an `execute("true")`). Other
// architectures use ucontext. The run gives deep recursion room that the caller's stack (often 8 MiB, less
// on other threads) does not have. The stack is reserved, not committed: pages are used only as deep as the
// evaluation goes. A guard page below it turns an overflow into a fault instead of heap corruption (the
// evaluator's own depth checks stop well before it). An exception thrown by the function is carried back
// and rethrown on the caller's stack.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>

#if defined(__x86_64__) || defined(__aarch64__)
#define BASHKIT_FIBER_ASM 1
#else
#define BASHKIT_FIBER_ASM 0
#include <ucontext.h>
#endif

namespace bashkit::interp {

class EvalFiber {
public:
    EvalFiber() = default;
    ~EvalFiber();
    EvalFiber(const EvalFiber&) = delete;
    EvalFiber& operator=(const EvalFiber&) = delete;

    // Reserves the stack; false (and ok() false) when the memory cannot be mapped.
    bool allocate(size_t bytes);
    bool ok() const { return mem_ != nullptr; }
    // Runs fn on the fiber's stack and returns when it returns. Not reentrant.
    void run(std::function<void()>& fn);

    // The usable stack range (above the guard page).
    uintptr_t low() const { return reinterpret_cast<uintptr_t>(base_); }
    uintptr_t high() const { return reinterpret_cast<uintptr_t>(base_) + usable_; }

private:
    static void entry(void* self);
#if !BASHKIT_FIBER_ASM
    static void entry_ucontext(unsigned hi, unsigned lo);
    ucontext_t caller_{};
    ucontext_t fiber_{};
#endif
    void* mem_ = nullptr;  // the whole mapping, guard page included
    size_t size_ = 0;
    void* base_ = nullptr;  // above the guard page
    size_t usable_ = 0;
    std::function<void()>* fn_ = nullptr;
    std::exception_ptr error_;
    // AddressSanitizer's view of the caller's stack while the fiber runs.
    const void* caller_bottom_ = nullptr;
    size_t caller_size_ = 0;
};

// Runs fn on one fiber of the evaluation stack's default size (256 MiB), kept for the process, or on the
// caller's stack when that cannot be mapped: for code that evaluates outside a Shell (table tests, fuzz
// targets), where a self-referring variable goes max_depth (1024) expressions deep, more than a sanitized
// build's 8 MiB main stack holds. One thread only, and not reentrant.
void run_on_eval_stack(const std::function<void()>& fn);

}  // namespace bashkit::interp
