// awk values: numbers (double), strings, and strnums (input strings that compare as numbers when they look
// like one), with POSIX/gawk conversion rules.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace bashkit::utils::awk {

struct Value {
    enum Type : uint8_t { kUninit, kNum, kStr, kStrnum };
    Type type = kUninit;
    // For kStr/kStrnum: cached numeric value (kHasNum) and, for kStrnum, whether it looks numeric.
    mutable uint8_t flags = 0;
    mutable double n = 0;
    std::string s;

    static constexpr uint8_t kHasNum = 1;
    static constexpr uint8_t kChecked = 2;   // strnum: looks-numeric decided
    static constexpr uint8_t kLooksNum = 4;

    void set_num(double v) {
        type = kNum;
        n = v;
        flags = 0;
    }
    void set_str(std::string_view v) {
        type = kStr;
        s.assign(v.data(), v.size());
        flags = 0;
    }
    void set_str(const char* v) { set_str(std::string_view(v)); }
    void set_str(const std::string& v) { set_str(std::string_view(v)); }
    void set_str(std::string&& v) {
        type = kStr;
        s = std::move(v);
        flags = 0;
    }
    void set_strnum(std::string_view v) {
        type = kStrnum;
        s.assign(v.data(), v.size());
        flags = 0;
    }
    void set_uninit() {
        type = kUninit;
        s.clear();
        n = 0;
        flags = 0;
    }
    // Whether the value compares as a number (a number, an uninitialised value, or a numeric strnum).
    bool numeric() const;
};

// The leading numeric prefix of s as awk reads it (decimal, optional sign, exponent; gawk's +inf/-nan).
double str_to_num(std::string_view s);
// Whether s as a whole (surrounding blanks allowed) is a number: the strnum test.
bool looks_numeric(std::string_view s);

double to_num(const Value& v);
bool to_bool(const Value& v);

// Appends the number formatted as awk does for output or conversion: integers as integers, others
// through fmt (CONVFMT or OFMT); inf/nan as gawk (+inf -inf +nan -nan).
void format_number(double d, std::string_view fmt, std::string& out);

// Integral value in the range where "%d" formatting is exact.
inline bool is_integral(double d) {
    // The range check comes first: converting a double outside int64_t's range is undefined behaviour.
    return d > -9.2e18 && d < 9.2e18 && d == static_cast<double>(static_cast<int64_t>(d));
}

}  // namespace bashkit::utils::awk
