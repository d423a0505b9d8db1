// EvalFiber: the evaluator's stack. The function runs on the fiber's stack, comes back to the caller's,
// may be run again, and an exception it throws reaches the caller.
#include "interp/fiber.hpp"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace bashkit::interp {
namespace {

// The frame's address (a local's could be on AddressSanitizer's heap-allocated fake stack).
__attribute__((noinline)) uintptr_t stack_address() { return reinterpret_cast<uintptr_t>(__builtin_frame_address(0)); }

// Recursion of real frames (not a loop: the result is used after the call), recording the deepest frame.
__attribute__((noinline)) size_t depth_sum(size_t n, uintptr_t& lowest) {
    volatile char frame[512];
    frame[0] = static_cast<char>(n);
    uintptr_t here = stack_address();
    if (here < lowest) lowest = here;
    if (n == 0) return 0;
    size_t below = depth_sum(n - 1, lowest);
    return below + n + static_cast<size_t>(frame[0] != static_cast<char>(n));
}

TEST(EvalFiber, RunsOnItsOwnStackAndReturns) {
    EvalFiber f;
    ASSERT_TRUE(f.allocate(64u << 20));
    uintptr_t inside = 0;
    std::function<void()> fn = [&] { inside = stack_address(); };
    uintptr_t outside = stack_address();
    f.run(fn);
    EXPECT_GE(inside, f.low());
    EXPECT_LT(inside, f.high());
    EXPECT_FALSE(outside >= f.low() && outside < f.high());
    // Again, and with callee-saved state of the caller intact across the switch.
    int calls = 0;
    std::string kept = "caller's";
    std::function<void()> count = [&] { ++calls; };
    for (int i = 0; i < 1000; ++i) f.run(count);
    EXPECT_EQ(calls, 1000);
    EXPECT_EQ(kept, "caller's");
}

TEST(EvalFiber, DeepRecursionFitsInTheFiberStack) {
    EvalFiber f;
    ASSERT_TRUE(f.allocate(256u << 20));
    size_t sum = 0;
    uintptr_t lowest = UINTPTR_MAX;
    std::function<void()> fn = [&] { sum = depth_sum(100000, lowest); };  // ~60 MB of frames
    f.run(fn);
    EXPECT_EQ(sum, size_t{100000} * 100001 / 2);
    // Deeper than a default 8 MiB thread stack, and still inside the fiber's.
    EXPECT_GT(f.high() - lowest, uintptr_t{16} << 20);
    EXPECT_GE(lowest, f.low());
}

TEST(EvalFiber, ExceptionReachesTheCaller) {
    EvalFiber f;
    ASSERT_TRUE(f.allocate(1u << 20));
    std::function<void()> fn = [] { throw std::runtime_error("from the fiber"); };
    try {
        f.run(fn);
        FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "from the fiber");
    }
    // The fiber is usable afterwards.
    bool ran = false;
    std::function<void()> ok = [&] { ran = true; };
    f.run(ok);
    EXPECT_TRUE(ran);
}

#if defined(__SANITIZE_ADDRESS__)
#define FIBER_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FIBER_TEST_ASAN 1
#endif
#endif

// Pages of [low, high) that are in memory.
[[maybe_unused]] size_t resident_pages(uintptr_t low, uintptr_t high) {
    size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    size_t n = (high - low) / page;
    std::vector<unsigned char> v(n);
    if (mincore(reinterpret_cast<void*>(low), high - low, v.data()) != 0) return SIZE_MAX;
    size_t in = 0;
    for (unsigned char c : v) in += c & 1;
    return in;
}

TEST(EvalFiber, AnEndedStackIsReusedWithItsDeepPagesGivenBack) {
#ifdef FIBER_TEST_ASAN
    GTEST_SKIP() << "stacks are not reused under AddressSanitizer";
#else
    constexpr size_t kSize = (256u << 20) + 4096 * 3;  // a size no other test uses
    uintptr_t low = 0, high = 0;
    {
        EvalFiber f;
        ASSERT_TRUE(f.allocate(kSize));
        size_t sum = 0;
        uintptr_t lowest = UINTPTR_MAX;
        std::function<void()> fn = [&] { sum = depth_sum(100000, lowest); };
        f.run(fn);
        EXPECT_EQ(sum, size_t{100000} * 100001 / 2);
        low = f.low(), high = f.high();
        EXPECT_GT(resident_pages(low, high) * 4096, size_t{16} << 20);  // the recursion's pages
        *reinterpret_cast<volatile char*>(high - (200u << 10)) = 'm';     // a mark in the warm top
        *reinterpret_cast<volatile char*>(high - (32u << 20)) = 'd';      // and one deep down
    }
    EvalFiber g;
    ASSERT_TRUE(g.allocate(kSize));
    EXPECT_EQ(g.low(), low);  // the same mapping, without a new one (a new one would be zero-filled)
    EXPECT_EQ(g.high(), high);
    // Only the top of it stayed in memory; the deep pages were given back (they read as zeros again).
    EXPECT_LE(resident_pages(low, high) * 4096, size_t{256} << 10);
    EXPECT_EQ(*reinterpret_cast<volatile char*>(high - (200u << 10)), 'm');
    EXPECT_EQ(*reinterpret_cast<volatile char*>(high - (32u << 20)), 0);
    size_t sum = 0;
    uintptr_t lowest = UINTPTR_MAX;
    std::function<void()> fn = [&] { sum = depth_sum(100000, lowest); };
    g.run(fn);
    EXPECT_EQ(sum, size_t{100000} * 100001 / 2);
    EXPECT_GE(lowest, g.low());
#endif
}

}  // namespace
}  // namespace bashkit::interp
