// bc, expr and awk under the governor.
#include "tests/utils_contain/contain.hpp"

namespace bashkit::contain_test {
namespace {

TEST(ContainBc, EndlessArithmeticStopsAtTheDeadline) {
    for (const char* s : {
             "echo 'scale=100000; 4*a(1)' | bc -l",
             "echo '2^1000000' | bc",
             "echo 'scale=100000; sqrt(2)' | bc",
             "echo 'scale=100000; e(100)' | bc -l",
             "echo 'obase=3; 10^100000' | bc",
             "echo 'while(1){}' | bc",
             "echo 'define f(n){ return f(n) } ; x=1; while(1){x=x*2}' | bc",
         })
        expect_deadline_stops(s);
}

TEST(ContainBc, CancelFromAnotherThreadStopsIt) {
    expect_cancel_stops("echo 'scale=100000; 4*a(1)' | bc -l");
    expect_cancel_stops("echo 'scale=100000; sqrt(3)' | bc");
}

TEST(ContainBc, HugeNumbersHitTheMemoryLimit) {
    // Each squaring doubles the digits (of a power of ten: fast to multiply).
    expect_memory_limit("echo 'x=10; while(1) x=x*x' | bc");
    // An array of big numbers.
    expect_memory_limit("echo 'x=10^20000; for(i=0;i<100000;i++) a[i]=x' | bc");
}

TEST(ContainBc, LegitimateWorkPassesUnderTheDefaultBudget) {
    Env e;
    auto r = e.sh->run("echo 'scale=200; 4*a(1)' | bc -l | head -c 12; echo; echo '2^10000' | bc | wc -c; "
                       "echo 'for(i=0;i<100000;i++) a[i]=i; a[99999]' | bc");
    EXPECT_EQ(r.out, "3.1415926535\n3100\n99999\n");
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(e.budget.used(), 0u);
}

TEST(ContainExpr, LongArithmeticIsCancellable) {
    // Two 200000-digit operands: a quadratic product of 4e10 digit steps.
    Env e(size_t{1} << 30, 300ms);
    auto t0 = std::chrono::steady_clock::now();
    auto r = e.sh->run("a=$(printf '9%.0s' {1..200000}); expr $a \\* $a > /dev/null");
    EXPECT_EQ(r.exit_code, 124) << r.err;
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 10s);
}

TEST(ContainAwk, EndlessProgramsStopAtTheDeadline) {
    for (const char* s : {
             "awk 'BEGIN{while(1)x=x\"a\"}'",
             "awk 'BEGIN{while(1) a[i++]=i}'",
             "yes | awk '{a[NR]=$0}'",
             "awk 'BEGIN{while(1) s = sprintf(\"%5000s\", s)}'",
             // Slow iterations (32 MiB built each): the deadline is seen at the next one, not the 1024th.
             "awk 'BEGIN{x = sprintf(\"%1000000s\", \"\"); x = x x x x x x x x; while(1) s = x x x x}'",
         })
        expect_deadline_stops(s);
}

TEST(ContainAwk, CancelFromAnotherThreadStopsIt) {
    expect_cancel_stops("awk 'BEGIN{while(1)x=x\"a\"}'");
    expect_cancel_stops("yes | awk '{ n++ }'");
}

TEST(ContainAwk, GrowingStateHitsTheMemoryLimit) {
    expect_memory_limit("awk 'BEGIN{x=\"a\"; while(1) x=x x}'");
    expect_memory_limit("awk 'BEGIN{x=\"a\"; while(1) x=x x x}'");
    expect_memory_limit("awk 'BEGIN{while(1) a[i++]=sprintf(\"%1000s\", i)}'");
    expect_memory_limit("yes | awk '{a[NR]=$0}'");
    expect_memory_limit("awk 'BEGIN{$0=\"a\"; while(1) $0=$0 $0}'");
    expect_memory_limit("awk 'BEGIN{$2000000000=1}'");
    expect_memory_limit("awk 'BEGIN{for (i = 0; i < 120000; i++) a[i]; for (k in a) for (j in a) n++}'");
    expect_memory_limit("awk 'BEGIN{x=\"a\"; while(1) gsub(/a/, \"aa\", x)}'");
    expect_memory_limit("awk 'BEGIN{$0=\"a\"; while(1) gsub(/a/, \"aa\")}'");
    expect_memory_limit("awk 'function f(s) { return f(s s) } BEGIN{ f(\"ab\") }'");
}

TEST(ContainAwk, DeletedElementsAreReleased) {
    // 100000 x 1 KiB through the same few slots: never more than a few KiB held at once.
    Env e(16 * kMiB);
    auto r = e.sh->run("awk 'BEGIN{ for (i = 0; i < 100000; i++) { a[i] = sprintf(\"%1000s\", i); delete a[i] } "
                       "for (i = 0; i < 20000; i++) b[i] = sprintf(\"%500s\", i); delete b; "
                       "for (i = 0; i < 20000; i++) c[i] = sprintf(\"%500s\", i); split(\"\", c); print \"done\" }'");
    EXPECT_EQ(r.out, "done\n") << r.err;
    EXPECT_EQ(e.budget.used(), 0u);
}

TEST(ContainAwk, LegitimateWorkPassesUnderTheDefaultBudget) {
    Env e;
    auto r = e.sh->run("seq 1 1000000 | awk '{a[$1]=$1; s+=$1} END{print length(a), s}'");
    EXPECT_EQ(r.out, "1000000 500000500000\n") << r.err;
    EXPECT_EQ(e.budget.used(), 0u);
}

}  // namespace
}  // namespace bashkit::contain_test
