// The other side of the hostile suite: work that is large but legitimate must not trip a default limit.
// Release builds only, like the hostile suite (tests/hostile/CMakeLists.txt): under ASan the same work takes
// ten times as long and the allocator's footprint is not the one the default budget is sized for.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "sandbox/bashkit_sandbox.hpp"
#include "tests/utils_contain/contain.hpp"
#include "tests/vfs/host_test_util.hpp"

namespace bashkit::sandbox {
namespace {

namespace fs = std::filesystem;

using bashkit::vfs::testing_util::TempDir;

TEST(Legitimate, A200MegabyteFileWrittenAndSortedFitsTheDefaultBudget) {
    // The input file, sort's buffers and the sorted file all live in the session's memory (an ephemeral
    // tree) under the default 1 GiB budget.
    TempDir base{"legit"};
    BashkitSandboxOptions o;
    o.instance_id = "inst";
    o.base_dir = base.path;
    o.ephemeral = true;
    o.default_exec_timeout_seconds = 600;
    BashkitSandbox sb(o);
    SandboxSession s = sb.open();
    auto r = s.execute("head -c 150000000 /dev/urandom | base64 -w 100 > big; sort big > sorted; "
                       "wc -l < sorted; wc -c < sorted; sort -c sorted && echo sorted; rm big; "
                       "sort -r sorted | tail -n 1 | cmp - <(head -n 1 sorted) && echo same");
    EXPECT_EQ(r.stdout_, "2000000\n202000000\nsorted\nsame\n") << r.stderr_;
    EXPECT_EQ(r.exit_code, 0) << r.stderr_;
}

TEST(Legitimate, ThreeMillionLinesThroughSortTacShufAndDiffAreChargedAndReleased) {
    // 23 MB of numbers through sort, tac, shuf and diff, each charged to the budget (utils_contain's Env).
    contain_test::Env e;
    auto r = e.sh->run("seq 1 3000000 | sort -r > big; wc -c < big; sort -n big | tail -n 1; sort -k1,1n -s big | head -n 1; "
                       "tac big | head -n 1; shuf big | wc -l; sort -r big | diff big - > /dev/null; echo $?");
    EXPECT_EQ(r.out, "22888896\n3000000\n1\n1\n3000000\n0\n") << r.err.substr(0, 400);
    EXPECT_EQ(e.budget.used(), 0u);
    EXPECT_GT(e.budget.peak(), size_t{20} << 20);  // the buffers were charged
}

}  // namespace
}  // namespace bashkit::sandbox
