#include "interp/fiber.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <mutex>
#include <utility>
#include <vector>

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

namespace {

// Stacks of ended sessions, kept for the next ones: a new mapping costs a new session its system calls and
// a page fault for every page its first run touches (most of a new session's time). At most kKeep are kept,
// each with only its top kWarm bytes left in memory (the rest given back with MADV_DONTNEED, so a deep
// recursion in one session does not stay resident). Not under AddressSanitizer, whose shadow of a stack that
// ended by an exception is not clean.
constexpr size_t kKeep = 8;
constexpr size_t kWarm = 256 * 1024;

struct StackCache {
    std::mutex mu;
    struct Entry {
        void* mem;
        size_t size;
    };
    std::vector<Entry> free;

    static StackCache& instance() {
        static auto* c = new StackCache;  // never destroyed: sessions may end during static destruction
        return *c;
    }
    void* take(size_t size) {
#ifdef BASHKIT_ASAN
        (void)size;
        return nullptr;
#else
        std::lock_guard lock(mu);
        for (size_t i = 0; i < free.size(); ++i) {
            if (free[i].size != size) continue;
            void* m = free[i].mem;
            free[i] = free.back();
            free.pop_back();
            return m;
        }
        return nullptr;
#endif
    }
    bool give(void* mem, size_t size, size_t page) {
#ifdef BASHKIT_ASAN
        (void)mem, (void)size, (void)page;
        return false;
#else
        {
            std::lock_guard lock(mu);
            if (free.size() >= kKeep) return false;
        }
        // The guard page stays; below the warm top, pages go back to the system.
        if (size > page + kWarm) {
            if (madvise(static_cast<char*>(mem) + page, size - page - kWarm, MADV_DONTNEED) != 0) return false;
        }
        std::lock_guard lock(mu);
        if (free.size() >= kKeep) return false;
        try {
            free.push_back({mem, size});
        } catch (...) {
            return false;
        }
        return true;
#endif
    }
};

}  // namespace

EvalFiber::~EvalFiber() {
    if (!mem_) return;
    size_t page = static_cast<char*>(base_) - static_cast<char*>(mem_);
    if (!StackCache::instance().give(mem_, size_, page)) munmap(mem_, size_);
}

bool EvalFiber::allocate(size_t bytes) {
    size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    if (page == 0 || page > (1u << 20)) page = 4096;
    bytes = (bytes + page - 1) / page * page;
    size_t total = bytes + page;
    if (void* m = StackCache::instance().take(total)) {
        mem_ = m;
        size_ = total;
        base_ = static_cast<char*>(m) + page;
        usable_ = bytes;
        return true;
    }
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

#if BASHKIT_FIBER_ASM
// bashkit_call_on_stack(arg, fn, top): calls fn(arg) with the stack pointer at `top` (16-byte aligned) and
// returns on the caller's stack. The frame pointer keeps the caller's stack pointer, so debuggers and the
// unwinder walk through it (the CFI says so).
extern "C" void bashkit_call_on_stack(void* arg, void (*fn)(void*), void* top);
#if defined(__x86_64__)
asm(R"(
    .text
    .globl bashkit_call_on_stack
    .hidden bashkit_call_on_stack
    .type bashkit_call_on_stack, @function
    .p2align 4
bashkit_call_on_stack:
    .cfi_startproc
    pushq %rbp
    .cfi_def_cfa_offset 16
    .cfi_offset %rbp, -16
    movq %rsp, %rbp
    .cfi_def_cfa_register %rbp
    movq %rdx, %rsp
    callq *%rsi
    movq %rbp, %rsp
    popq %rbp
    .cfi_def_cfa %rsp, 8
    retq
    .cfi_endproc
    .size bashkit_call_on_stack, .-bashkit_call_on_stack
)");
#elif defined(__aarch64__)
asm(R"(
    .text
    .globl bashkit_call_on_stack
    .hidden bashkit_call_on_stack
    .type bashkit_call_on_stack, %function
    .p2align 4
bashkit_call_on_stack:
    .cfi_startproc
    stp x29, x30, [sp, #-16]!
    .cfi_def_cfa_offset 16
    .cfi_offset x29, -16
    .cfi_offset x30, -8
    mov x29, sp
    .cfi_def_cfa_register x29
    mov sp, x2
    blr x1
    mov sp, x29
    ldp x29, x30, [sp], #16
    .cfi_def_cfa sp, 0
    ret
    .cfi_endproc
    .size bashkit_call_on_stack, .-bashkit_call_on_stack
)");
#endif
#endif

void EvalFiber::entry(void* arg) {
    auto* self = static_cast<EvalFiber*>(arg);
#ifdef BASHKIT_ASAN
    __sanitizer_finish_switch_fiber(nullptr, &self->caller_bottom_, &self->caller_size_);
#endif
    try {
        (*self->fn_)();
    } catch (...) {
        // Carried to the caller's stack: unwinding must not leave the fiber's stack through its first frame.
        self->error_ = std::current_exception();
    }
#ifdef BASHKIT_ASAN
    // Leaving for good: no fake stack to keep.
    __sanitizer_start_switch_fiber(nullptr, self->caller_bottom_, self->caller_size_);
#endif
}

#if !BASHKIT_FIBER_ASM
void EvalFiber::entry_ucontext(unsigned hi, unsigned lo) {
    entry(reinterpret_cast<EvalFiber*>((static_cast<uintptr_t>(hi) << 32) | static_cast<uintptr_t>(lo)));
    // Returning resumes uc_link (the caller).
}
#endif

void EvalFiber::run(std::function<void()>& fn) {
    fn_ = &fn;
    error_ = nullptr;
#ifdef BASHKIT_ASAN
    void* fake = nullptr;
    __sanitizer_start_switch_fiber(&fake, base_, usable_);
#endif
#if BASHKIT_FIBER_ASM
    bashkit_call_on_stack(this, &EvalFiber::entry, static_cast<char*>(base_) + usable_);
#else
    getcontext(&fiber_);
    fiber_.uc_stack.ss_sp = base_;
    fiber_.uc_stack.ss_size = usable_;
    fiber_.uc_link = &caller_;
    auto p = reinterpret_cast<uintptr_t>(this);
    makecontext(&fiber_, reinterpret_cast<void (*)()>(&EvalFiber::entry_ucontext), 2, static_cast<unsigned>(p >> 32),
                static_cast<unsigned>(p & 0xffffffffu));
    swapcontext(&caller_, &fiber_);
#endif
#ifdef BASHKIT_ASAN
    __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
    fn_ = nullptr;
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void run_on_eval_stack(const std::function<void()>& fn) {
    static EvalFiber* fiber = [] {
        auto* f = new EvalFiber;  // never destroyed: a static's destructor could run while another static uses it
        (void)f->allocate(size_t{256} << 20);
        return f;
    }();
    std::function<void()> body = fn;
    if (fiber->ok()) {
        fiber->run(body);
    } else {
        body();
    }
}

}  // namespace bashkit::interp
