// Calendar arithmetic, time zones and strftime for date (and anything else that prints times).
//
// Time zones come from the TZ variable of the command's environment, never from the host's process state:
//  - unset or empty: UTC;
//  - a POSIX TZ string ("UTC0", "EST5EDT,M3.2.0,M11.1.0", "<+0530>-5:30"), with DST rules;
//  - a zone name ("Europe/Paris", ":America/New_York"): the TZif file /usr/share/zoneinfo/NAME of the
//    session's FileSystem when there is one (full history), else the current rule of a built-in table of
//    common zones; an unknown name is UTC shown with the name's leading letters as abbreviation (glibc).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "vfs/filesystem.hpp"

namespace bashkit::utils::systemutil {

// Days since 1970-01-01 of a proleptic Gregorian date (month 1-12; day may be out of range: it carries).
int64_t days_from_civil(int64_t y, int64_t m, int64_t d);
void civil_from_days(int64_t z, int64_t& y, int& m, int& d);
bool is_leap(int64_t y);
int days_in_month(int64_t y, int m);
// Floor division and modulo.
inline int64_t floordiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
inline int64_t floormod(int64_t a, int64_t b) { return a - floordiv(a, b) * b; }

// A local time, broken down.
struct LocalTime {
    int64_t year = 1970;
    int mon = 1;  // 1-12
    int mday = 1;
    int hour = 0, min = 0, sec = 0;
    int wday = 4;  // 0 = Sunday
    int yday = 0;  // 0-365
    int32_t offset = 0;  // seconds east of UTC
    bool dst = false;
    std::string abbr = "UTC";
    int64_t epoch = 0;  // the instant, seconds since the epoch
    int64_t nsec = 0;
};

struct ZoneType {
    int32_t offset = 0;
    bool dst = false;
    std::string abbr;
};

class TimeZone {
public:
    // UTC.
    TimeZone();
    // From the value of TZ (set == false: TZ unset). fs is consulted for TZif files.
    static TimeZone from_tz(const std::string* tz, vfs::FileSystem* fs);
    static TimeZone fixed(int32_t offset, std::string abbr);

    ZoneType at(int64_t utc) const;
    LocalTime local(int64_t utc, int64_t nsec = 0) const;
    // The instant of a local wall-clock time (fields may be out of range: they carry like mktime).
    // isdst_hint: -1 unknown, else prefer the type with that dst flag when the time is ambiguous.
    int64_t to_utc(int64_t year, int64_t mon, int64_t mday, int64_t hour, int64_t min, int64_t sec) const;

private:
    struct Rule {  // a POSIX TZ transition rule
        char kind = 0;  // 'J' (1-365, no Feb 29), 'D' (0-365), 'M' (month.week.day)
        int a = 0, b = 0, c = 0;
        int32_t time = 7200;  // seconds after local midnight
    };
    bool parse_posix(std::string_view s);
    bool parse_tzif(std::string_view data);
    ZoneType posix_at(int64_t utc) const;
    int64_t rule_time(int64_t year, const Rule& r, int32_t offset) const;

    ZoneType std_;
    ZoneType dst_;
    bool has_dst_ = false;
    bool has_rules_ = false;
    Rule start_, end_;
    // TZif data: transitions with the type in force from each one on.
    std::vector<int64_t> trans_;
    std::vector<uint8_t> trans_type_;
    std::vector<ZoneType> types_;
    bool has_footer_ = true;  // times after the last transition follow the POSIX part
};

// strftime with GNU's extensions (flags - _ 0 ^ #, widths, %N, %:z %::z %:::z, %q, %P, %s), C locale.
std::string format_time(std::string_view fmt, const LocalTime& t);

}  // namespace bashkit::utils::systemutil
