// csplit, pr, diff3, sdiff and watch under the governor: endless inputs stop at the deadline or on a cancel,
// inputs held whole hit the memory limit, watch's sleep and runs end with the run.
#include "tests/utils_contain/contain.hpp"

namespace bashkit::contain_test {
namespace {

TEST(ContainNewUtils, EndlessInputsStopAtTheDeadline) {
    for (const char* s : {"yes | csplit - /x/", "yes | pr > /dev/null", "yes | pr -3 > /dev/null",
                          "yes | pr -m - /dev/null > /dev/null", "yes | diff3 - /dev/null /dev/null",
                          "yes | diff3 -m /dev/null - /dev/null", "yes | sdiff - /dev/null", "watch -n 0.1 true",
                          "watch -n 1000 true", "watch -x sleep 1000"})
        expect_deadline_stops(s);
}

TEST(ContainNewUtils, CancelFromAnotherThreadStopsIt) {
    expect_cancel_stops("yes | csplit - /x/");
    expect_cancel_stops("yes | pr > /dev/null");
    expect_cancel_stops("watch -n 1000 true");
    expect_cancel_stops("watch -n 0.1 'yes | head -1000'");
}

TEST(ContainNewUtils, InputsHeldWholeHitTheMemoryLimit) {
    for (const char* s : {"yes | csplit - 1000000000", "csplit /dev/zero 2", "yes | pr > /dev/null",
                          "pr /dev/zero > /dev/null", "yes | pr -m - - > /dev/null",
                          // 1.5 MB of short lines: the input fits, its line table (24 bytes a line) does not
                          "yes | head -c 1500000 | pr > /dev/null", "yes | head -c 1500000 | pr -m - /dev/null > /dev/null",
                          "yes | diff3 - /dev/null /dev/null", "yes | sdiff - /dev/null > /dev/null",
                          "watch -g -n 0.1 'yes | head -c 100000000'"})
        expect_memory_limit(s);
}

TEST(ContainNewUtils, CsplitLeavesNoPieceWhenStopped) {
    Env e(16 * kMiB);
    auto r = e.sh->run("yes | csplit - 1000000000; echo \"status $?\"; ls");
    EXPECT_NE(r.out.find("status 1\n"), std::string::npos) << r.out << r.err;
    EXPECT_EQ(r.out.find("xx00"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace bashkit::contain_test
