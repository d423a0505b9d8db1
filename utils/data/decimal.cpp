#include "utils/data/decimal.hpp"

#include <algorithm>

#include "interp/governor.hpp"
#include "interp/limits.hpp"

namespace bashkit::utils::data {

namespace {
thread_local const DecimalGuard* g_guard = nullptr;
thread_local uint64_t g_work = 0;  // digit steps since the last look at the cancel token
constexpr uint64_t kPollEvery = uint64_t{1} << 22;  // a few ms of digit steps
}  // namespace

struct DecimalLimitsAccess {
    // Counts `steps` digit steps; every kPollEvery of them, throws DecimalInterrupted when the guard's token fired.
    static void work(uint64_t steps) {
        g_work += steps;
        if (g_work < kPollEvery) return;
        g_work = 0;
        const DecimalGuard* g = g_guard;
        if (g && g->cancel_ && g->cancel_->cancelled()) throw DecimalInterrupted{};
    }
    // A result of n digits is about to be made: refuse it when it would not fit in the budget.
    static void need(size_t n) {
        const DecimalGuard* g = g_guard;
        if (n < 4096 || !g || !g->memory_) return;
        if (!g->memory_->fits(n)) throw interp::MemoryLimitExceeded(g->memory_->limit());
    }
};

namespace {
void work(uint64_t steps) { DecimalLimitsAccess::work(steps); }
void need(size_t n) { DecimalLimitsAccess::need(n); }
}  // namespace

DecimalGuard::DecimalGuard(const interp::CancelToken* cancel, interp::MemoryBudget* memory)
    : cancel_(cancel), memory_(memory), prev_(g_guard) {
    g_guard = this;
}

DecimalGuard::~DecimalGuard() { g_guard = prev_; }

Decimal Decimal::from_int(int64_t v) {
    Decimal r;
    r.neg_ = v < 0;
    uint64_t m = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    while (m) {
        r.d_.push_back(static_cast<uint8_t>(m % 10));
        m /= 10;
    }
    if (r.d_.empty()) r.neg_ = false;
    return r;
}

bool Decimal::parse(std::string_view s, Decimal& out) {
    Decimal r;
    size_t i = 0;
    if (i < s.size() && s[i] == '-') {
        r.neg_ = true;
        ++i;
    }
    size_t start = i;
    std::string digits;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') digits.push_back(s[i++]);
    bool any = i > start;
    if (i < s.size() && s[i] == '.') {
        ++i;
        size_t f = i;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9') digits.push_back(s[i++]);
        r.scale_ = static_cast<int>(i - f);
        any = any || i > f;
    }
    if (!any || i != s.size()) return false;
    for (auto it = digits.rbegin(); it != digits.rend(); ++it) r.d_.push_back(static_cast<uint8_t>(*it - '0'));
    r.trim();
    out = std::move(r);
    return true;
}

void Decimal::trim() {
    while (!d_.empty() && d_.back() == 0) d_.pop_back();
    if (d_.empty()) neg_ = false;
}

int Decimal::int_digits() const {
    int n = static_cast<int>(d_.size()) - scale_;
    return n > 0 ? n : 0;
}

int Decimal::length() const {
    if (d_.empty()) return scale_ > 0 ? scale_ : 1;
    int n = static_cast<int>(d_.size());
    return n > scale_ ? n : scale_;
}

std::string Decimal::to_string(bool bc_style) const {
    if (bc_style && d_.empty()) return "0";  // bc prints zero as 0 whatever its scale
    std::string s;
    if (neg_) s.push_back('-');
    int n = static_cast<int>(d_.size());
    int ip = n - scale_;
    if (ip <= 0) {
        if (!bc_style || scale_ == 0) s.push_back('0');
    } else {
        for (int k = n - 1; k >= scale_; --k) s.push_back(static_cast<char>('0' + d_[static_cast<size_t>(k)]));
    }
    if (scale_ > 0) {
        s.push_back('.');
        for (int k = scale_ - 1; k >= 0; --k) {
            s.push_back(k < n ? static_cast<char>('0' + d_[static_cast<size_t>(k)]) : '0');
        }
    }
    return s;
}

bool Decimal::to_int64(int64_t& out) const {
    uint64_t v = 0;
    for (int k = static_cast<int>(d_.size()) - 1; k >= scale_; --k) {
        if (v > (UINT64_MAX - 9) / 10) return false;
        v = v * 10 + d_[static_cast<size_t>(k)];
    }
    if (v > static_cast<uint64_t>(INT64_MAX)) return false;
    out = neg_ ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
    return true;
}

std::vector<uint8_t> Decimal::shifted(const std::vector<uint8_t>& a, int n) {
    if (a.empty()) return a;
    if (n >= 0) {
        need(static_cast<size_t>(n) + a.size());
        work(static_cast<size_t>(n) + a.size());
        std::vector<uint8_t> r(static_cast<size_t>(n), 0);
        r.insert(r.end(), a.begin(), a.end());
        return r;
    }
    size_t drop = static_cast<size_t>(-n);
    if (drop >= a.size()) return {};
    std::vector<uint8_t> r(a.begin() + static_cast<std::ptrdiff_t>(drop), a.end());
    while (!r.empty() && r.back() == 0) r.pop_back();
    return r;
}

Decimal Decimal::with_scale(int scale) const {
    Decimal r;
    r.neg_ = neg_;
    r.scale_ = scale;
    r.d_ = shifted(d_, scale - scale_);
    r.trim();
    return r;
}

Decimal Decimal::negated() const {
    Decimal r = *this;
    if (!r.d_.empty()) r.neg_ = !r.neg_;
    return r;
}

Decimal Decimal::abs() const {
    Decimal r = *this;
    r.neg_ = false;
    return r;
}

int Decimal::compare_mag(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
    if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
    for (size_t k = a.size(); k-- > 0;) {
        if (a[k] != b[k]) return a[k] < b[k] ? -1 : 1;
    }
    return 0;
}

int Decimal::compare(const Decimal& a, const Decimal& b) {
    if (a.neg_ != b.neg_) return a.neg_ ? -1 : 1;
    int s = std::max(a.scale_, b.scale_);
    int c = compare_mag(shifted(a.d_, s - a.scale_), shifted(b.d_, s - b.scale_));
    return a.neg_ ? -c : c;
}

std::vector<uint8_t> Decimal::add_mag(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
    std::vector<uint8_t> r;
    need(std::max(a.size(), b.size()) + 1);
    work(std::max(a.size(), b.size()));
    r.reserve(std::max(a.size(), b.size()) + 1);
    int carry = 0;
    for (size_t k = 0; k < std::max(a.size(), b.size()) || carry; ++k) {
        int v = carry + (k < a.size() ? a[k] : 0) + (k < b.size() ? b[k] : 0);
        r.push_back(static_cast<uint8_t>(v % 10));
        carry = v / 10;
    }
    return r;
}

std::vector<uint8_t> Decimal::sub_mag(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
    work(a.size());
    std::vector<uint8_t> r(a);
    int borrow = 0;
    for (size_t k = 0; k < r.size(); ++k) {
        int v = r[k] - borrow - (k < b.size() ? b[k] : 0);
        borrow = v < 0;
        r[k] = static_cast<uint8_t>(v < 0 ? v + 10 : v);
    }
    while (!r.empty() && r.back() == 0) r.pop_back();
    return r;
}

Decimal Decimal::add(const Decimal& a, const Decimal& b) {
    int s = std::max(a.scale_, b.scale_);
    std::vector<uint8_t> x = shifted(a.d_, s - a.scale_), y = shifted(b.d_, s - b.scale_);
    Decimal r;
    r.scale_ = s;
    if (a.neg_ == b.neg_) {
        r.d_ = add_mag(x, y);
        r.neg_ = a.neg_;
    } else if (compare_mag(x, y) >= 0) {
        r.d_ = sub_mag(x, y);
        r.neg_ = a.neg_;
    } else {
        r.d_ = sub_mag(y, x);
        r.neg_ = b.neg_;
    }
    r.trim();
    return r;
}

Decimal Decimal::sub(const Decimal& a, const Decimal& b) { return add(a, b.negated()); }

std::vector<uint8_t> Decimal::mul_mag(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
    if (a.empty() || b.empty()) return {};
    need(5 * (a.size() + b.size() + 1));  // the accumulators, then the digits
    std::vector<uint32_t> acc(a.size() + b.size() + 1, 0);
    for (size_t i = 0; i < a.size(); ++i) {
        work(b.size());
        if (!a[i]) continue;
        for (size_t j = 0; j < b.size(); ++j) acc[i + j] += static_cast<uint32_t>(a[i]) * b[j];
        if ((i & 0xffffff) == 0xffffff) {  // keep the accumulators far from overflow on huge inputs
            for (size_t k = 0; k + 1 < acc.size(); ++k) {
                acc[k + 1] += acc[k] / 10;
                acc[k] %= 10;
            }
        }
    }
    std::vector<uint8_t> r(acc.size());
    uint64_t carry = 0;
    for (size_t k = 0; k < acc.size(); ++k) {
        uint64_t v = acc[k] + carry;
        r[k] = static_cast<uint8_t>(v % 10);
        carry = v / 10;
    }
    while (carry) {
        r.push_back(static_cast<uint8_t>(carry % 10));
        carry /= 10;
    }
    while (!r.empty() && r.back() == 0) r.pop_back();
    return r;
}

Decimal Decimal::mul(const Decimal& a, const Decimal& b, int scale) {
    Decimal r;
    r.d_ = mul_mag(a.d_, b.d_);
    r.scale_ = a.scale_ + b.scale_;
    r.neg_ = a.neg_ != b.neg_;
    r.trim();
    return scale < r.scale_ ? r.with_scale(scale) : r;
}

std::vector<uint8_t> Decimal::div_mag(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
    if (compare_mag(a, b) < 0) return {};
    need(a.size() + b.size());
    std::vector<uint8_t> q(a.size(), 0);
    std::vector<uint8_t> rem;
    for (size_t k = a.size(); k-- > 0;) {
        work(rem.size() + 1);
        rem.insert(rem.begin(), a[k]);
        while (!rem.empty() && rem.back() == 0) rem.pop_back();
        uint8_t digit = 0;
        while (compare_mag(rem, b) >= 0) {
            rem = sub_mag(rem, b);
            ++digit;
        }
        q[k] = digit;
    }
    while (!q.empty() && q.back() == 0) q.pop_back();
    return q;
}

Decimal Decimal::div(const Decimal& a, const Decimal& b, int scale) {
    // (a.d * 10^(scale + b.scale - a.scale)) / b.d, as integers.
    Decimal r;
    int shift = scale + b.scale_ - a.scale_;
    std::vector<uint8_t> num = shifted(a.d_, shift);
    r.d_ = div_mag(num, b.d_);
    r.scale_ = scale;
    r.neg_ = a.neg_ != b.neg_;
    r.trim();
    return r;
}

Decimal Decimal::mod(const Decimal& a, const Decimal& b, int scale) {
    int rscale = std::max(scale + b.scale_, a.scale_);
    Decimal q = div(a, b, scale);
    Decimal r = sub(a, mul(q, b, rscale));
    return r.with_scale(rscale);
}

Decimal Decimal::sqrt(const Decimal& a, int scale) {
    // isqrt(a.d * 10^(2*scale - a.scale)) with the result at `scale` digits (Newton on integers).
    Decimal r;
    r.scale_ = scale;
    std::vector<uint8_t> n = shifted(a.d_, 2 * scale - a.scale_);
    if (n.empty()) return r;
    // Initial guess: 10^ceil(digits/2), always >= the root.
    std::vector<uint8_t> x(n.size() / 2 + 1, 0);
    x.push_back(1);
    for (;;) {
        work(n.size());
        // y = (x + n / x) / 2
        std::vector<uint8_t> y = add_mag(x, div_mag(n, x));
        // halve
        std::vector<uint8_t> h(y.size(), 0);
        int rem = 0;
        for (size_t k = y.size(); k-- > 0;) {
            int v = rem * 10 + y[k];
            h[k] = static_cast<uint8_t>(v / 2);
            rem = v % 2;
        }
        while (!h.empty() && h.back() == 0) h.pop_back();
        if (compare_mag(h, x) >= 0) break;
        x = std::move(h);
    }
    r.d_ = std::move(x);
    r.trim();
    return r;
}

std::vector<uint32_t> Decimal::int_digits_in_base(uint32_t base) const {
    std::vector<uint8_t> m = shifted(d_, -scale_);
    std::vector<uint32_t> out;
    // Repeated division of the big-endian decimal magnitude by base.
    std::vector<uint32_t> num(m.rbegin(), m.rend());
    while (!num.empty()) {
        work(num.size());
        std::vector<uint32_t> q;
        uint64_t rem = 0;
        for (uint32_t dgt : num) {
            rem = rem * 10 + dgt;
            uint64_t qd = rem / base;
            rem %= base;
            if (!q.empty() || qd) q.push_back(static_cast<uint32_t>(qd));
        }
        out.push_back(static_cast<uint32_t>(rem));
        num = std::move(q);
    }
    std::reverse(out.begin(), out.end());
    return out;
}

}  // namespace bashkit::utils::data
