#include "utils/text/compare.hpp"

#include <cmath>
#include <cstdlib>
#include <string>

namespace bashkit::utils::text {

namespace {

bool blank(char c) { return c == ' ' || c == '\t'; }
bool digit(char c) { return c >= '0' && c <= '9'; }
bool alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

struct Num {
    bool neg = false;
    std::string_view whole;  // without leading zeros
    std::string_view frac;   // without trailing zeros
    size_t end = 0;          // index just past the number
};

Num parse_num(std::string_view s) {
    Num n;
    size_t i = 0;
    while (i < s.size() && blank(s[i])) ++i;
    if (i < s.size() && s[i] == '-') {
        n.neg = true;
        ++i;
    }
    while (i < s.size() && s[i] == '0') ++i;
    size_t w = i;
    while (i < s.size() && digit(s[i])) ++i;
    n.whole = s.substr(w, i - w);
    if (i < s.size() && s[i] == '.') {
        size_t f = ++i;
        while (i < s.size() && digit(s[i])) ++i;
        std::string_view fr = s.substr(f, i - f);
        while (!fr.empty() && fr.back() == '0') fr.remove_suffix(1);
        n.frac = fr;
    }
    n.end = i;
    if (n.whole.empty() && n.frac.empty()) n.neg = false;
    return n;
}

int sign(int v) { return (v > 0) - (v < 0); }

int magnitude_compare(const Num& a, const Num& b) {
    if (a.whole.size() != b.whole.size()) return a.whole.size() < b.whole.size() ? -1 : 1;
    if (int c = a.whole.compare(b.whole)) return sign(c);
    return sign(a.frac.compare(b.frac));
}

int compare_nums(const Num& a, const Num& b) {
    if (a.neg != b.neg) return a.neg ? -1 : 1;
    int c = magnitude_compare(a, b);
    return a.neg ? -c : c;
}

int unit_order(std::string_view s, const Num& n) {
    if (n.whole.empty() && n.frac.empty()) return 0;
    if (n.end >= s.size()) return 0;
    static constexpr std::string_view kUnits = "KMGTPEZYRQ";
    char c = s[n.end];
    if (c == 'k') c = 'K';
    size_t p = kUnits.find(c);
    if (p == std::string_view::npos) return 0;
    int order = static_cast<int>(p) + 1;
    return n.neg ? -order : order;
}

}  // namespace

NumericKey parse_numeric_key(std::string_view s) {
    Num n = parse_num(s);
    return {n.neg, n.whole, n.frac};
}

int compare_numeric_keys(const NumericKey& a, const NumericKey& b) {
    Num x, y;
    x.neg = a.neg;
    x.whole = a.whole;
    x.frac = a.frac;
    y.neg = b.neg;
    y.whole = b.whole;
    y.frac = b.frac;
    return compare_nums(x, y);
}

int numeric_compare(std::string_view a, std::string_view b) { return compare_nums(parse_num(a), parse_num(b)); }

int human_compare(std::string_view a, std::string_view b) {
    Num na = parse_num(a), nb = parse_num(b);
    int ua = unit_order(a, na), ub = unit_order(b, nb);
    if (ua != ub) return ua < ub ? -1 : 1;
    return compare_nums(na, nb);
}

int general_numeric_compare(std::string_view a, std::string_view b) {
    std::string sa(a), sb(b);
    char* ea = nullptr;
    char* eb = nullptr;
    long double x = std::strtold(sa.c_str(), &ea);
    long double y = std::strtold(sb.c_str(), &eb);
    bool bad_a = ea == sa.c_str(), bad_b = eb == sb.c_str();
    if (bad_a) return bad_b ? 0 : -1;
    if (bad_b) return 1;
    bool nan_a = std::isnan(x), nan_b = std::isnan(y);
    if (nan_a || nan_b) return nan_a && nan_b ? 0 : nan_a ? -1 : 1;
    return x < y ? -1 : x > y ? 1 : 0;
}

int month_compare(std::string_view a, std::string_view b) {
    auto month = [](std::string_view s) {
        static constexpr std::string_view kMonths[] = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                                                       "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
        size_t i = 0;
        while (i < s.size() && blank(s[i])) ++i;
        if (s.size() - i < 3) return 0;
        char m[3];
        for (int k = 0; k < 3; ++k) {
            char c = s[i + static_cast<size_t>(k)];
            m[k] = (c >= 'a' && c <= 'z') ? static_cast<char>(c - 32) : c;
        }
        for (int k = 0; k < 12; ++k)
            if (std::string_view(m, 3) == kMonths[k]) return k + 1;
        return 0;
    };
    int ma = month(a), mb = month(b);
    return (ma > mb) - (ma < mb);
}

namespace {

// The length of s without its file suffix: the longest tail matching (\.[A-Za-z~][A-Za-z0-9~]*)*.
size_t without_suffix(std::string_view s) {
    // Walk forward; each position where a suffix run could start that reaches the end is a candidate.
    size_t best = s.size();
    size_t i = 0;
    while (i < s.size()) {
        // Try to match suffix groups starting at i (i > 0: the name must keep at least one byte).
        if (i > 0 && s[i] == '.') {
            size_t j = i;
            bool ok = true;
            while (j < s.size()) {
                if (s[j] != '.' || j + 1 >= s.size() || !(alpha(s[j + 1]) || s[j + 1] == '~')) {
                    ok = false;
                    break;
                }
                j += 2;
                while (j < s.size() && (alpha(s[j]) || digit(s[j]) || s[j] == '~')) ++j;
            }
            if (ok) {
                best = i;
                break;
            }
        }
        ++i;
    }
    return best;
}

// Weight of the byte at pos for the non-digit part of the Debian comparison.
int weight(std::string_view s, size_t pos) {
    if (pos >= s.size()) return -1;
    auto c = static_cast<unsigned char>(s[pos]);
    if (digit(static_cast<char>(c))) return 0;
    if (alpha(static_cast<char>(c))) return c;
    if (c == '~') return -2;
    return c + 256;
}

int debian_compare(std::string_view a, std::string_view b) {
    size_t i = 0, j = 0;
    while (i < a.size() || j < b.size()) {
        while ((i < a.size() && !digit(a[i])) || (j < b.size() && !digit(b[j]))) {
            int wa = weight(a, i), wb = weight(b, j);
            if (wa != wb) return wa - wb;
            ++i;
            ++j;
        }
        while (i < a.size() && a[i] == '0') ++i;
        while (j < b.size() && b[j] == '0') ++j;
        int first = 0;
        while (i < a.size() && j < b.size() && digit(a[i]) && digit(b[j])) {
            if (!first) first = a[i] - b[j];
            ++i;
            ++j;
        }
        if (i < a.size() && digit(a[i])) return 1;
        if (j < b.size() && digit(b[j])) return -1;
        if (first) return first;
    }
    return 0;
}

}  // namespace

int version_compare(std::string_view a, std::string_view b) {
    if (a.empty()) return b.empty() ? 0 : -1;
    if (b.empty()) return 1;
    if (a[0] == '.' || b[0] == '.') {
        if (a[0] != '.') return 1;
        if (b[0] != '.') return -1;
        bool adot = a.size() == 1, bdot = b.size() == 1;
        if (adot || bdot) return adot ? (bdot ? 0 : -1) : 1;
        bool add = a == "..", bdd = b == "..";
        if (add || bdd) return add ? (bdd ? 0 : -1) : 1;
    }
    size_t pa = without_suffix(a), pb = without_suffix(b);
    int r = debian_compare(a.substr(0, pa), b.substr(0, pb));
    if (r || (pa == a.size() && pb == b.size())) return sign(r);
    return sign(debian_compare(a, b));
}

}  // namespace bashkit::utils::text
