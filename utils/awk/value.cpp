#include "utils/awk/value.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace bashkit::utils::awk {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
bool is_dec_digit(char c) { return c >= '0' && c <= '9'; }

// Scans the numeric prefix of s starting at i (after blanks); returns its end (i when none) and the value.
size_t scan_number(std::string_view s, size_t i, double& out) {
    const size_t start = i;
    bool neg = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
        neg = s[i] == '-';
        ++i;
        // gawk: a signed inf or nan
        if (i + 3 <= s.size()) {
            char a = static_cast<char>(s[i] | 0x20), b = static_cast<char>(s[i + 1] | 0x20),
                 c = static_cast<char>(s[i + 2] | 0x20);
            if (a == 'i' && b == 'n' && c == 'f') {
                out = neg ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
                return i + 3;
            }
            if (a == 'n' && b == 'a' && c == 'n') {
                out = neg ? -std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::quiet_NaN();
                return i + 3;
            }
        }
    }
    const size_t digits_start = i;
    uint64_t iv = 0;
    int nd = 0;
    while (i < s.size() && is_dec_digit(s[i])) {
        if (nd < 18) iv = iv * 10 + static_cast<uint64_t>(s[i] - '0');
        ++nd;
        ++i;
    }
    bool simple = true;
    size_t int_end = i;
    if (i < s.size() && s[i] == '.') {
        ++i;
        size_t f = i;
        while (i < s.size() && is_dec_digit(s[i])) ++i;
        if (i > f) simple = false;
        if (int_end == digits_start && i == f) {
            out = 0;
            return start;  // a lone "."
        }
    } else if (int_end == digits_start) {
        out = 0;
        return start;
    }
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        size_t j = i + 1;
        if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
        if (j < s.size() && is_dec_digit(s[j])) {
            while (j < s.size() && is_dec_digit(s[j])) ++j;
            i = j;
            simple = false;
        }
    }
    if (simple && nd <= 18) {
        out = neg ? -static_cast<double>(iv) : static_cast<double>(iv);
        return i;
    }
    char buf[128];
    std::string big;
    const char* p;
    size_t len = i - start;
    if (len < sizeof buf) {
        std::memcpy(buf, s.data() + start, len);
        buf[len] = 0;
        p = buf;
    } else {
        big.assign(s.data() + start, len);
        p = big.c_str();
    }
    out = std::strtod(p, nullptr);
    return i;
}

}  // namespace

double str_to_num(std::string_view s) {
    size_t i = 0;
    while (i < s.size() && is_space(s[i])) ++i;
    double v = 0;
    scan_number(s, i, v);
    return v;
}

bool looks_numeric(std::string_view s) {
    size_t i = 0;
    while (i < s.size() && is_space(s[i])) ++i;
    if (i == s.size()) return false;
    double v = 0;
    size_t e = scan_number(s, i, v);
    if (e == i) return false;
    while (e < s.size() && is_space(s[e])) ++e;
    return e == s.size();
}

bool Value::numeric() const {
    switch (type) {
        case kNum:
        case kUninit:
            return true;
        case kStr:
            return false;
        case kStrnum:
            if (!(flags & kChecked)) {
                flags |= kChecked;
                if (looks_numeric(s)) flags |= kLooksNum;
            }
            return flags & kLooksNum;
    }
    return false;
}

double to_num(const Value& v) {
    switch (v.type) {
        case Value::kNum:
            return v.n;
        case Value::kUninit:
            return 0;
        default:
            if (!(v.flags & Value::kHasNum)) {
                v.n = str_to_num(v.s);
                v.flags |= Value::kHasNum;
            }
            return v.n;
    }
}

bool to_bool(const Value& v) {
    switch (v.type) {
        case Value::kNum:
            return v.n != 0;
        case Value::kUninit:
            return false;
        case Value::kStr:
            return !v.s.empty();
        case Value::kStrnum:
            if (v.numeric()) return to_num(v) != 0;
            return !v.s.empty();
    }
    return false;
}

void format_number(double d, std::string_view fmt, std::string& out) {
    if (std::isnan(d)) {
        out += std::signbit(d) ? "-nan" : "+nan";
        return;
    }
    if (std::isinf(d)) {
        out += d < 0 ? "-inf" : "+inf";
        return;
    }
    if (is_integral(d)) {
        char buf[32];
        auto v = static_cast<int64_t>(d);
        char* e = buf + sizeof buf;
        char* p = e;
        uint64_t u = v < 0 ? static_cast<uint64_t>(0) - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
        do {
            *--p = static_cast<char>('0' + u % 10);
            u /= 10;
        } while (u);
        if (v < 0) *--p = '-';
        out.append(p, static_cast<size_t>(e - p));
        return;
    }
    if (d == std::floor(d)) {
        char buf[400];
        int n = std::snprintf(buf, sizeof buf, "%.0f", d);
        out.append(buf, static_cast<size_t>(n));
        return;
    }
    char buf[512];
    char f[64];
    if (fmt.size() >= sizeof f) fmt = "%.6g";
    std::memcpy(f, fmt.data(), fmt.size());
    f[fmt.size()] = 0;
    int n = std::snprintf(buf, sizeof buf, f, d);
    if (n < 0) return;
    if (static_cast<size_t>(n) >= sizeof buf) {
        std::string big(static_cast<size_t>(n) + 1, '\0');
        std::snprintf(big.data(), big.size(), f, d);
        big.resize(static_cast<size_t>(n));
        out += big;
        return;
    }
    out.append(buf, static_cast<size_t>(n));
}

}  // namespace bashkit::utils::awk
