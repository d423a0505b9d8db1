// Arbitrary-precision decimal numbers for expr (integers) and bc (fixed-point with a scale).
//
// A Decimal is sign * digits * 10^-scale, digits being base-10 little-endian with no leading (high) zeros;
// zero has no digits and is never negative. Operations take the result scale explicitly, truncating (never
// rounding) as bc does. Quadratic algorithms: fine for the sizes scripts use; a DecimalGuard makes the
// long ones cancellable and bounded in memory.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace bashkit::interp {
class CancelToken;
class MemoryBudget;
}  // namespace bashkit::interp

namespace bashkit::utils::data {

// Thrown out of a Decimal operation when the cancel token of the thread's DecimalGuard fired.
struct DecimalInterrupted {};

// Bounds the arithmetic this thread runs while the guard lives (bc and expr hold one per run): the
// operations poll `cancel` every few million digit steps and throw DecimalInterrupted once it fired, and
// refuse (interp::MemoryLimitExceeded) a result that would not fit in what is left of `memory`. Without a
// guard the operations run unbounded. Guards nest (the inner one wins until it ends).
class DecimalGuard {
public:
    DecimalGuard(const interp::CancelToken* cancel, interp::MemoryBudget* memory);
    ~DecimalGuard();
    DecimalGuard(const DecimalGuard&) = delete;
    DecimalGuard& operator=(const DecimalGuard&) = delete;

private:
    const interp::CancelToken* cancel_;
    interp::MemoryBudget* memory_;
    const DecimalGuard* prev_;
    friend struct DecimalLimitsAccess;
};

class Decimal {
public:
    Decimal() = default;
    static Decimal from_int(int64_t v);
    // Parses [-]digits[.digits] (base 10); false when s is not that.
    static bool parse(std::string_view s, Decimal& out);

    bool is_zero() const { return d_.empty(); }
    bool negative() const { return neg_; }
    int scale() const { return scale_; }
    // Digits before the point (at least 1 for bc's length()).
    int int_digits() const;
    // Significant digits as bc's length() counts them.
    int length() const;
    // Digits held (the size of the number in memory, in bytes).
    size_t digit_count() const { return d_.size(); }

    // "-12.50" style: no leading zero before the point for |x| < 1 when bc_style (".5"), else "0.5".
    std::string to_string(bool bc_style = true) const;
    // The integer part, when it fits in int64 (false otherwise).
    bool to_int64(int64_t& out) const;

    Decimal with_scale(int scale) const;  // truncates or extends
    Decimal negated() const;
    Decimal abs() const;
    Decimal trunc() const { return with_scale(0); }

    static int compare(const Decimal& a, const Decimal& b);
    static Decimal add(const Decimal& a, const Decimal& b);
    static Decimal sub(const Decimal& a, const Decimal& b);
    static Decimal mul(const Decimal& a, const Decimal& b, int scale);
    // a / b truncated to `scale` digits; b must not be zero.
    static Decimal div(const Decimal& a, const Decimal& b, int scale);
    // bc's a % b: a - (a / b at `scale`) * b, at scale max(scale + b.scale, a.scale).
    static Decimal mod(const Decimal& a, const Decimal& b, int scale);
    // Square root truncated to `scale` digits; a must not be negative.
    static Decimal sqrt(const Decimal& a, int scale);

    // Digits of the integer part in base `base` (most significant first), for bc's obase output.
    std::vector<uint32_t> int_digits_in_base(uint32_t base) const;

private:
    void trim();
    static int compare_mag(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b);
    static std::vector<uint8_t> add_mag(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b);
    static std::vector<uint8_t> sub_mag(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b);  // a >= b
    static std::vector<uint8_t> mul_mag(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b);
    static std::vector<uint8_t> div_mag(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b);
    static std::vector<uint8_t> shifted(const std::vector<uint8_t>& a, int n);  // a * 10^n (n may be < 0)

    std::vector<uint8_t> d_;
    int scale_ = 0;
    bool neg_ = false;
};

}  // namespace bashkit::utils::data
