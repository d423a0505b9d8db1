#include "utils/diff/myers.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace bashkit::utils::diffutil {

int64_t cost_cap(size_t total_lines) {
    int64_t root = static_cast<int64_t>(std::sqrt(static_cast<double>(total_lines)));
    return std::max<int64_t>(4096, 2 * root);
}

namespace {

// The search state: the two sequences, the result flags and the two furthest-reaching vectors, indexed by
// diagonal k = x - y shifted by `off` (diagonals run from -M-1 to N+1).
class Search {
public:
    Search(std::span<const int> a, std::span<const int> b, EditFlags& flags, const interp::CancelToken* cancel)
        : a_(a), b_(b), flags_(flags), cancel_(cancel), cap_(cost_cap(a.size() + b.size())) {
        const size_t diags = a.size() + b.size() + 3;
        fwd_.assign(diags, 0);
        bwd_.assign(diags, 0);
        off_ = static_cast<int64_t>(b.size()) + 1;
    }

    // Finds the edits of a[x0,x1) against b[y0,y1). Iterative over the second half (the first half recurses:
    // each split halves the cost, so the depth is logarithmic).
    bool run(int64_t x0, int64_t x1, int64_t y0, int64_t y1) {
        for (;;) {
            while (x0 < x1 && y0 < y1 && a_[x0] == b_[y0]) ++x0, ++y0;
            while (x0 < x1 && y0 < y1 && a_[x1 - 1] == b_[y1 - 1]) --x1, --y1;
            if (x0 == x1) {
                for (int64_t j = y0; j < y1; ++j) flags_.b[j] = 1;
                return true;
            }
            if (y0 == y1) {
                for (int64_t i = x0; i < x1; ++i) flags_.a[i] = 1;
                return true;
            }
            int64_t xm = 0, ym = 0;
            if (!middle(x0, x1, y0, y1, xm, ym)) return false;
            if ((xm == x0 && ym == y0) || (xm == x1 && ym == y1)) {
                // No progress (only possible after the heuristic cut): give up on this box.
                for (int64_t i = x0; i < x1; ++i) flags_.a[i] = 1;
                for (int64_t j = y0; j < y1; ++j) flags_.b[j] = 1;
                return true;
            }
            if (!run(x0, xm, y0, ym)) return false;
            x0 = xm;
            y0 = ym;
        }
    }

private:
    int64_t& F(int64_t k) { return fwd_[static_cast<size_t>(k + off_)]; }
    int64_t& B(int64_t k) { return bwd_[static_cast<size_t>(k + off_)]; }

    // The middle snake of the box: a point (xm, ym) on an optimal path (or the furthest point reached when
    // the cost cap is hit). False when cancelled.
    bool middle(int64_t x0, int64_t x1, int64_t y0, int64_t y1, int64_t& xm, int64_t& ym) {
        const int64_t kmin = x0 - y1, kmax = x1 - y0;
        const int64_t fk = x0 - y0, bk = x1 - y1;
        const bool odd = ((fk - bk) & 1) != 0;
        constexpr int64_t kLow = std::numeric_limits<int64_t>::min() / 4;
        constexpr int64_t kHigh = std::numeric_limits<int64_t>::max() / 4;
        int64_t flo = fk, fhi = fk, blo = bk, bhi = bk;
        F(fk) = x0;
        B(bk) = x1;
        for (int64_t cost = 1;; ++cost) {
            if (cancel_ && (cost & 63) == 0 && cancel_->cancelled()) return false;
            // Forward: widen the band of diagonals by one on each side where the box allows.
            if (flo > kmin) F(--flo - 1) = kLow; else ++flo;
            if (fhi < kmax) F(++fhi + 1) = kLow; else --fhi;
            for (int64_t k = fhi; k >= flo; k -= 2) {
                const int64_t from_left = F(k - 1), from_above = F(k + 1);
                int64_t x = from_left >= from_above ? from_left + 1 : from_above;
                int64_t y = x - k;
                while (x < x1 && y < y1 && a_[x] == b_[y]) ++x, ++y;
                F(k) = x;
                if (odd && k >= blo && k <= bhi && B(k) <= x) {
                    xm = x;
                    ym = y;
                    return true;
                }
            }
            // Backward.
            if (blo > kmin) B(--blo - 1) = kHigh; else ++blo;
            if (bhi < kmax) B(++bhi + 1) = kHigh; else --bhi;
            for (int64_t k = bhi; k >= blo; k -= 2) {
                const int64_t from_left = B(k - 1), from_above = B(k + 1);
                int64_t x = from_left < from_above ? from_left : from_above - 1;
                int64_t y = x - k;
                while (x > x0 && y > y0 && a_[x - 1] == b_[y - 1]) --x, --y;
                B(k) = x;
                if (!odd && k >= flo && k <= fhi && x <= F(k)) {
                    xm = x;
                    ym = y;
                    return true;
                }
            }
            if (cost >= cap_) {
                // Too expensive: split at the forward point furthest along (x + y), clipped to the box.
                int64_t best = -1;
                for (int64_t k = fhi; k >= flo; k -= 2) {
                    int64_t x = std::min(F(k), x1);
                    int64_t y = x - k;
                    if (y > y1) {
                        y = y1;
                        x = y + k;
                    }
                    if (x < x0 || y < y0) continue;
                    if (x + y > best) {
                        best = x + y;
                        xm = x;
                        ym = y;
                    }
                }
                if (best < 0) {
                    xm = x0;
                    ym = y0;
                }
                return true;
            }
        }
    }

    std::span<const int> a_, b_;
    EditFlags& flags_;
    const interp::CancelToken* cancel_;
    int64_t cap_;
    std::vector<int64_t> fwd_, bwd_;
    int64_t off_ = 0;
};

// Slides the runs of changed lines of one side (ids `id`, flags `ch`) given the other side's flags `other`.
// j follows the line of the other side paired with the first unchanged line after the current run.
void shift_boundaries(std::span<const int> id, std::vector<char>& ch, const std::vector<char>& other) {
    const size_t n = id.size(), on = other.size();
    size_t i = 0, j = 0;
    constexpr size_t kNone = static_cast<size_t>(-1);
    for (;;) {
        while (i < n && !ch[i]) {
            while (j < on && other[j]) ++j;
            ++i;
            ++j;
        }
        if (i >= n) break;
        size_t start = i;
        while (i < n && ch[i]) ++i;
        size_t end = i;
        while (j < on && other[j]) ++j;
        size_t corresponding = kNone;
        size_t runlength = 0;
        do {
            runlength = end - start;
            // Up as far as equal lines allow, merging with runs met on the way.
            while (start > 0 && id[start - 1] == id[end - 1]) {
                ch[--start] = 1;
                ch[--end] = 0;
                while (start > 0 && ch[start - 1]) --start;
                --j;
                while (j > 0 && j < on && other[j]) --j;
            }
            corresponding = (j > 0 && j - 1 < on && other[j - 1]) ? end : kNone;
            // Then down as far as possible, merging too; remember the last place facing a run of the other side.
            while (end < n && id[start] == id[end]) {
                ch[start++] = 0;
                ch[end++] = 1;
                while (end < n && ch[end]) ++end;
                ++j;
                while (j < on && other[j]) ++j;
                if (j > 0 && j - 1 < on && other[j - 1]) corresponding = end;
            }
        } while (runlength != end - start);
        // Back up to face the other side's run, when one was met.
        if (corresponding != kNone) {
            while (corresponding < end) {
                ch[--start] = 1;
                ch[--end] = 0;
                --j;
                while (j > 0 && j < on && other[j]) --j;
            }
        }
        i = end;
    }
}

}  // namespace

bool compute_edits(std::span<const int> a, std::span<const int> b, EditFlags& flags,
                   const interp::CancelToken* cancel) {
    flags.a.assign(a.size(), 0);
    flags.b.assign(b.size(), 0);
    // A line with no equal in the other sequence is changed whatever the alignment: leave such lines out
    // of the search (it gets shorter and cheaper), then map the result back.
    int max_id = 0;
    for (int v : a) max_id = std::max(max_id, v);
    for (int v : b) max_id = std::max(max_id, v);
    std::vector<uint32_t> in_a(static_cast<size_t>(max_id) + 1, 0), in_b(static_cast<size_t>(max_id) + 1, 0);
    for (int v : a) ++in_a[static_cast<size_t>(v)];
    for (int v : b) ++in_b[static_cast<size_t>(v)];
    std::vector<int> ka, kb;
    std::vector<size_t> map_a, map_b;
    for (size_t i = 0; i < a.size(); ++i) {
        if (in_b[static_cast<size_t>(a[i])] == 0) flags.a[i] = 1;
        else ka.push_back(a[i]), map_a.push_back(i);
    }
    for (size_t j = 0; j < b.size(); ++j) {
        if (in_a[static_cast<size_t>(b[j])] == 0) flags.b[j] = 1;
        else kb.push_back(b[j]), map_b.push_back(j);
    }
    EditFlags kept;
    kept.a.assign(ka.size(), 0);
    kept.b.assign(kb.size(), 0);
    Search s(ka, kb, kept, cancel);
    if (!s.run(0, static_cast<int64_t>(ka.size()), 0, static_cast<int64_t>(kb.size()))) return false;
    for (size_t i = 0; i < ka.size(); ++i)
        if (kept.a[i]) flags.a[map_a[i]] = 1;
    for (size_t j = 0; j < kb.size(); ++j)
        if (kept.b[j]) flags.b[map_b[j]] = 1;
    shift_boundaries(a, flags.a, flags.b);
    shift_boundaries(b, flags.b, flags.a);
    return true;
}

}  // namespace bashkit::utils::diffutil
