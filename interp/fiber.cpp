#include "interp/fiber.hpp"

#include <sys/mman.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define BASHKIT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BASHKIT_ASAN 1
#endif
#endif

#ifdef BASHKIT_ASAN
extern "C" {
void __sanitizer_start_switch_fiber(void** fake_stack_save, const void* bottom, size_t size);
void __sanitizer_finish_switch_fiber(void* fake_stack_save, const void** bottom_old, size_t* size_old);
}
#endif

namespace bashkit::interp {

EvalFiber::~EvalFiber() {
    if (mem_) munmap(mem_, size_);
}

bool EvalFiber::allocate(size_t bytes) {
    size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    if (page == 0 || page > (1u << 20)) page = 4096;
    bytes = (bytes + page - 1) / page * page;
    size_t total = bytes + page;
    void* m = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK,
                   -1, 0);
    if (m == MAP_FAILED) return false;
    // The guard page at the low end (stacks grow down).
    if (mprotect(m, page, PROT_NONE) != 0) {
        munmap(m, total);
        return false;
    }
    mem_ = m;
    size_ = total;
    base_ = static_cast<char*>(m) + page;
    usable_ = bytes;
    return true;
}

void EvalFiber::entry(unsigned hi, unsigned lo) {
    auto* self = reinterpret_cast<EvalFiber*>((static_cast<uintptr_t>(hi) << 32) | static_cast<uintptr_t>(lo));
#ifdef BASHKIT_ASAN
    __sanitizer_finish_switch_fiber(nullptr, &self->caller_bottom_, &self->caller_size_);
#endif
    (*self->fn_)();
#ifdef BASHKIT_ASAN
    // Leaving for good: no fake stack to keep.
    __sanitizer_start_switch_fiber(nullptr, self->caller_bottom_, self->caller_size_);
#endif
    // Returning resumes uc_link (the caller).
}

void EvalFiber::run(std::function<void()>& fn) {
    fn_ = &fn;
    getcontext(&fiber_);
    fiber_.uc_stack.ss_sp = base_;
    fiber_.uc_stack.ss_size = usable_;
    fiber_.uc_link = &caller_;
    auto p = reinterpret_cast<uintptr_t>(this);
    makecontext(&fiber_, reinterpret_cast<void (*)()>(&EvalFiber::entry), 2, static_cast<unsigned>(p >> 32),
                static_cast<unsigned>(p & 0xffffffffu));
#ifdef BASHKIT_ASAN
    void* fake = nullptr;
    __sanitizer_start_switch_fiber(&fake, base_, usable_);
    swapcontext(&caller_, &fiber_);
    __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#else
    swapcontext(&caller_, &fiber_);
#endif
    fn_ = nullptr;
}

}  // namespace bashkit::interp
