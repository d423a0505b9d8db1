// A large stack for the evaluator without a thread: run() switches the calling thread onto the fiber's
// stack (ucontext), runs the function to completion, and switches back. Costs two context switches
// (well under a microsecond) instead of waking another thread, and gives deep recursion room that the
// caller's stack (often 8 MiB) does not have. The stack is reserved, not committed: pages are used only
// as deep as the evaluation goes. A guard page below it turns an overflow into a fault instead of heap
// corruption (the evaluator's own depth checks stop well before it).
#pragma once

#include <ucontext.h>

#include <cstddef>
#include <cstdint>
#include <functional>

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
    static void entry(unsigned hi, unsigned lo);
    void* mem_ = nullptr;  // the whole mapping, guard page included
    size_t size_ = 0;
    void* base_ = nullptr;  // above the guard page
    size_t usable_ = 0;
    ucontext_t caller_{};
    ucontext_t fiber_{};
    std::function<void()>* fn_ = nullptr;
    // AddressSanitizer's view of the caller's stack while the fiber runs.
    const void* caller_bottom_ = nullptr;
    size_t caller_size_ = 0;
};

}  // namespace bashkit::interp
