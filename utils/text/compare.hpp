// Comparisons shared by sort and the tools that order like it (version order for ls -v style uses too).
#pragma once

#include <string_view>

namespace bashkit::utils::text {

// A number as GNU sort -n reads it, parsed once (sort caches it per line).
struct NumericKey {
    bool neg = false;
    std::string_view whole;  // integer digits without leading zeros
    std::string_view frac;   // fraction digits without trailing zeros
};
NumericKey parse_numeric_key(std::string_view s);
int compare_numeric_keys(const NumericKey& a, const NumericKey& b);

// GNU sort -n: decimal numbers with optional '-' and '.', leading blanks skipped; anything else is 0.
int numeric_compare(std::string_view a, std::string_view b);
// GNU sort -h: like -n, but a unit suffix (K M G T P E Z Y R Q) orders first.
int human_compare(std::string_view a, std::string_view b);
// GNU sort -g: as strtold reads them; non-numbers first, then NaN, then numbers.
int general_numeric_compare(std::string_view a, std::string_view b);
// GNU sort -M: JAN < ... < DEC; anything else first.
int month_compare(std::string_view a, std::string_view b);
// Version order (sort -V, ls -v): the Debian algorithm with file-suffix handling, as GNU filevercmp.
int version_compare(std::string_view a, std::string_view b);

}  // namespace bashkit::utils::text
