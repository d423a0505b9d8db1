// The edit-script engine (utils/diff/myers.hpp): every script it returns is a valid edit script (the
// unchanged lines of both sides are equal, in order), minimal while under the cost cap, bounded in time on
// hostile input, and stops when cancelled.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "utils/diff/myers.hpp"

namespace {

using bashkit::utils::diffutil::compute_edits;
using bashkit::utils::diffutil::EditFlags;

// The unchanged lines of a and b, paired in order, must be equal; returns the number of changed lines.
size_t check_valid(const std::vector<int>& a, const std::vector<int>& b, const EditFlags& f) {
    std::vector<int> ka, kb;
    size_t changed = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        if (f.a[i]) ++changed;
        else ka.push_back(a[i]);
    }
    for (size_t j = 0; j < b.size(); ++j) {
        if (f.b[j]) ++changed;
        else kb.push_back(b[j]);
    }
    EXPECT_EQ(ka, kb);
    return changed;
}

// Length of the longest common subsequence (quadratic; small inputs only).
size_t lcs(const std::vector<int>& a, const std::vector<int>& b) {
    std::vector<size_t> prev(b.size() + 1, 0), cur(b.size() + 1, 0);
    for (size_t i = 1; i <= a.size(); ++i) {
        for (size_t j = 1; j <= b.size(); ++j)
            cur[j] = a[i - 1] == b[j - 1] ? prev[j - 1] + 1 : std::max(prev[j], cur[j - 1]);
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

struct Lcg {
    uint64_t s;
    int next(int mod) {
        s = s * 6364136223846793005ULL + 1442695040888963407ULL;
        return static_cast<int>((s >> 33) % static_cast<uint64_t>(mod));
    }
};

TEST(DiffEngine, MinimalOnRandomSmallInputs) {
    Lcg r{42};
    for (int round = 0; round < 300; ++round) {
        std::vector<int> a(static_cast<size_t>(r.next(40))), b(static_cast<size_t>(r.next(40)));
        const int alpha = 1 + r.next(5);
        for (int& v : a) v = r.next(alpha);
        for (int& v : b) v = r.next(alpha);
        EditFlags f;
        ASSERT_TRUE(compute_edits(a, b, f));
        size_t changed = check_valid(a, b, f);
        EXPECT_EQ(changed, a.size() + b.size() - 2 * lcs(a, b)) << "round " << round;
    }
}

TEST(DiffEngine, EmptySides) {
    EditFlags f;
    std::vector<int> none, some = {1, 2, 3};
    ASSERT_TRUE(compute_edits(none, some, f));
    EXPECT_EQ(f.b, std::vector<char>({1, 1, 1}));
    ASSERT_TRUE(compute_edits(some, none, f));
    EXPECT_EQ(f.a, std::vector<char>({1, 1, 1}));
    ASSERT_TRUE(compute_edits(none, none, f));
}

// Two long unrelated sequences over a two-letter alphabet: D is in the tens of thousands, far past the cost
// cap. The heuristic split keeps it fast, and the script stays valid.
TEST(DiffEngine, HostileInputIsBoundedAndValid) {
    Lcg r{7};
    std::vector<int> a(60000), b(60000);
    for (int& v : a) v = r.next(2);
    for (int& v : b) v = r.next(2);
    auto t0 = std::chrono::steady_clock::now();
    EditFlags f;
    ASSERT_TRUE(compute_edits(a, b, f));
    auto secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    check_valid(a, b, f);
    EXPECT_LT(secs, 60.0);
}

TEST(DiffEngine, StopsWhenCancelled) {
    Lcg r{9};
    std::vector<int> a(200000), b(200000);
    for (int& v : a) v = r.next(2);
    for (int& v : b) v = r.next(2);
    bashkit::interp::CancelToken cancel;
    cancel.cancel();
    EditFlags f;
    EXPECT_FALSE(compute_edits(a, b, f, &cancel));
}

}  // namespace
