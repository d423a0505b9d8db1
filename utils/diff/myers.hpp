// The edit-script engine of diff: which lines of two sequences are changed.
//
// Lines are compared as integers (equivalence classes: two lines are equal when their ids are). The engine
// is Myers' O(ND) algorithm in its linear-space form (the "middle snake" divide and conquer): memory is
// O(N+M) whatever the input. The cost is bounded too: when the search for one middle snake passes
// kCostCap(N+M) edit steps, the furthest-reaching point found so far is taken as the split instead
// (the result is then still a correct edit script, just not necessarily a minimal one). Cancellation is
// polled in the search.
//
// After the search, shift_boundaries() slides every run of changed lines up or down over equal lines so
// that runs merge where they can and line up with a run of the other side (a change rather than a
// deletion next to an insertion), then as low as the merged run allows: the same canonical choice among
// equal-cost scripts that GNU diff makes.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "interp/limits.hpp"

namespace bashkit::utils::diffutil {

struct EditFlags {
    std::vector<char> a;  // a[i] != 0: line i of the first sequence is deleted
    std::vector<char> b;  // b[j] != 0: line j of the second sequence is inserted
};

// Edit steps one middle-snake search may take before the heuristic split: at least 4096, and about
// 2*sqrt(N+M) beyond that.
int64_t cost_cap(size_t total_lines);

// Computes the changed lines of a and b. False when cancelled (flags are then incomplete).
bool compute_edits(std::span<const int> a, std::span<const int> b, EditFlags& flags,
                   const interp::CancelToken* cancel = nullptr);

}  // namespace bashkit::utils::diffutil
