// sed, sort, tac, shuf, join, diff and the line readers of the text utilities under the governor.
#include "tests/utils_contain/contain.hpp"

namespace bashkit::contain_test {
namespace {

TEST(ContainSed, EndlessProgramsStopAtTheDeadline) {
    for (const char* s : {
             "echo x | sed ':a;s/^/x/;ta'",
             "echo x | sed ':a;s/x/xx/;ta'",
             "echo x | sed ':a;ba'",
             "echo x | sed ':a;H;x;ba'",
             "echo x | sed ':a;G;h;ba'",
             "yes | sed -n H",
         })
        expect_deadline_stops(s);
}

TEST(ContainSed, CancelFromAnotherThreadStopsIt) {
    expect_cancel_stops("echo x | sed ':a;s/^/x/;ta'");
    expect_cancel_stops("echo x | sed ':a;ba'");
}

TEST(ContainSed, GrowingSpacesHitTheMemoryLimit) {
    expect_memory_limit("echo x | sed ':a;s/x*/&&/;ta'");
    expect_memory_limit("echo x | sed ':a;G;h;ba'");
    expect_memory_limit("echo x | sed ':a;H;x;ba'");
    expect_memory_limit("yes | sed -n 'H;$p'");
    expect_memory_limit("yes | sed ':a;N;ba'");
    expect_memory_limit("sed p /dev/zero");
    expect_memory_limit("echo x | sed ':a;s/x/xxxxxxxxxx/g;ta'");
}

TEST(ContainSed, InPlaceEditPastTheLimitLeavesTheFile) {
    Env e(16 * kMiB);
    ASSERT_TRUE(e.fs.write_file("/home/user/f", "x\n").ok());
    auto r = e.sh->run("sed -i ':a;s/x*/&&/;ta' f; echo \"status $?\"; cat f; ls");
    EXPECT_EQ(r.out, "status 1\nx\nf\n") << r.err;
}

TEST(ContainSort, EndlessInputStopsAtTheDeadline) {
    for (const char* s : {"yes | sort", "yes | sort -u", "yes | sort -k1,1 -s", "sort /dev/zero", "yes | tac",
                          "yes | shuf", "yes | uniq -c", "yes | join - /dev/null", "yes | comm - /dev/null",
                          "shuf -i 1-100000000000", "shuf -r -i 1-10", "yes | diff - /dev/null"})
        expect_deadline_stops(s);
}

TEST(ContainSort, CancelFromAnotherThreadStopsIt) {
    expect_cancel_stops("yes | sort");
    expect_cancel_stops("yes | tac");
    expect_cancel_stops("shuf -i 1-100000000000 > /dev/null");
}

TEST(ContainSort, BufferingUtilitiesHitTheMemoryLimit) {
    for (const char* s : {
             "yes | sort",
             "yes | sort -k1,1",
             "yes | sort -s -k1,1",
             "sort /dev/zero",
             "yes | tac",
             "tac /dev/zero",
             "yes | shuf",
             "shuf -n 1 /dev/zero",
             "yes | join - <(yes)",
             "yes | diff - /dev/null",
             "yes | cut -c1 /dev/zero",
             "uniq -c /dev/zero",
             "yes | head -c 100000000 | sort -o out",
             "yes | tail -n 50000000",
             "yes | head -n -50000000 > /dev/null",
             "yes | tail -c 50000000",
         })
        expect_memory_limit(s);
}

}  // namespace
}  // namespace bashkit::contain_test
