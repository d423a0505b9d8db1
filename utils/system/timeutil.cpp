#include "utils/system/timeutil.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

namespace bashkit::utils::systemutil {

// ---------------------------------------------------------------------------------------------------------
// Calendar

int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
    // Month carries into the year; the day is linear.
    y += floordiv(m - 1, 12);
    m = floormod(m - 1, 12) + 1;
    y -= m <= 2;
    const int64_t era = floordiv(y, 400);
    const int64_t yoe = y - era * 400;                                   // [0, 399]
    const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5;          // [0, 365] from March 1
    const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;           // [0, 146096]
    return era * 146097 + doe - 719468 + (d - 1);
}

void civil_from_days(int64_t z, int64_t& y, int& m, int& d) {
    z += 719468;
    const int64_t era = floordiv(z, 146097);
    const int64_t doe = z - era * 146097;
    const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    y = yoe + era * 400;
    const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const int64_t mp = (5 * doy + 2) / 153;
    d = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
    m = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
    if (m <= 2) ++y;
}

bool is_leap(int64_t y) { return floormod(y, 4) == 0 && (floormod(y, 100) != 0 || floormod(y, 400) == 0); }

int days_in_month(int64_t y, int m) {
    static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m == 2 && is_leap(y)) return 29;
    return kDays[(m - 1) % 12];
}

// ---------------------------------------------------------------------------------------------------------
// Time zones

namespace {

// The current rules of common zones (the POSIX strings at the end of their TZif files), for sessions whose
// FileSystem has no /usr/share/zoneinfo. Dates before a zone's last rule change follow today's rule.
struct NamedZone {
    std::string_view name;
    std::string_view rule;
};
constexpr NamedZone kZones[] = {
    {"UTC", "UTC0"}, {"Etc/UTC", "UTC0"}, {"Etc/UCT", "UTC0"}, {"UCT", "UTC0"}, {"Universal", "UTC0"},
    {"Etc/Universal", "UTC0"}, {"Zulu", "UTC0"}, {"Etc/Zulu", "UTC0"}, {"GMT", "GMT0"}, {"Etc/GMT", "GMT0"},
    {"GMT0", "GMT0"}, {"Greenwich", "GMT0"}, {"Etc/Greenwich", "GMT0"},
    {"EST", "EST5"}, {"MST", "MST7"}, {"HST", "HST10"},
    {"CET", "CET-1CEST,M3.5.0,M10.5.0/3"}, {"MET", "MET-1MEST,M3.5.0,M10.5.0/3"},
    {"EET", "EET-2EEST,M3.5.0/3,M10.5.0/4"}, {"WET", "WET0WEST,M3.5.0/1,M10.5.0"},
    {"Europe/London", "GMT0BST,M3.5.0/1,M10.5.0"}, {"Europe/Dublin", "GMT0IST,M3.5.0/1,M10.5.0"},
    {"Europe/Lisbon", "WET0WEST,M3.5.0/1,M10.5.0"},
    {"Europe/Paris", "CET-1CEST,M3.5.0,M10.5.0/3"}, {"Europe/Berlin", "CET-1CEST,M3.5.0,M10.5.0/3"},
    {"Europe/Madrid", "CET-1CEST,M3.5.0,M10.5.0/3"}, {"Europe/Rome", "CET-1CEST,M3.5.0,M10.5.0/3"},
    {"Europe/Amsterdam", "CET-1CEST,M3.5.0,M10.5.0/3"}, {"Europe/Brussels", "CET-1CEST,M3.5.0,M10.5.0/3"},
    {"Europe/Vienna", "CET-1CEST,M3.5.0,M10.5.0/3"}, {"Europe/Zurich", "CET-1CEST,M3.5.0,M10.5.0/3"},
    {"Europe/Stockholm", "CET-1CEST,M3.5.0,M10.5.0/3"}, {"Europe/Oslo", "CET-1CEST,M3.5.0,M10.5.0/3"},
    {"Europe/Copenhagen", "CET-1CEST,M3.5.0,M10.5.0/3"}, {"Europe/Warsaw", "CET-1CEST,M3.5.0,M10.5.0/3"},
    {"Europe/Prague", "CET-1CEST,M3.5.0,M10.5.0/3"}, {"Europe/Budapest", "CET-1CEST,M3.5.0,M10.5.0/3"},
    {"Europe/Belgrade", "CET-1CEST,M3.5.0,M10.5.0/3"}, {"Europe/Luxembourg", "CET-1CEST,M3.5.0,M10.5.0/3"},
    {"Europe/Athens", "EET-2EEST,M3.5.0/3,M10.5.0/4"}, {"Europe/Helsinki", "EET-2EEST,M3.5.0/3,M10.5.0/4"},
    {"Europe/Kiev", "EET-2EEST,M3.5.0/3,M10.5.0/4"}, {"Europe/Kyiv", "EET-2EEST,M3.5.0/3,M10.5.0/4"},
    {"Europe/Bucharest", "EET-2EEST,M3.5.0/3,M10.5.0/4"}, {"Europe/Sofia", "EET-2EEST,M3.5.0/3,M10.5.0/4"},
    {"Europe/Riga", "EET-2EEST,M3.5.0/3,M10.5.0/4"}, {"Europe/Vilnius", "EET-2EEST,M3.5.0/3,M10.5.0/4"},
    {"Europe/Tallinn", "EET-2EEST,M3.5.0/3,M10.5.0/4"},
    {"Europe/Moscow", "MSK-3"}, {"Europe/Istanbul", "<+03>-3"}, {"Europe/Minsk", "<+03>-3"},
    {"America/New_York", "EST5EDT,M3.2.0,M11.1.0"}, {"US/Eastern", "EST5EDT,M3.2.0,M11.1.0"},
    {"America/Toronto", "EST5EDT,M3.2.0,M11.1.0"}, {"America/Detroit", "EST5EDT,M3.2.0,M11.1.0"},
    {"America/Chicago", "CST6CDT,M3.2.0,M11.1.0"}, {"US/Central", "CST6CDT,M3.2.0,M11.1.0"},
    {"America/Winnipeg", "CST6CDT,M3.2.0,M11.1.0"},
    {"America/Denver", "MST7MDT,M3.2.0,M11.1.0"}, {"US/Mountain", "MST7MDT,M3.2.0,M11.1.0"},
    {"America/Edmonton", "MST7MDT,M3.2.0,M11.1.0"}, {"America/Phoenix", "MST7"}, {"US/Arizona", "MST7"},
    {"America/Los_Angeles", "PST8PDT,M3.2.0,M11.1.0"}, {"US/Pacific", "PST8PDT,M3.2.0,M11.1.0"},
    {"America/Vancouver", "PST8PDT,M3.2.0,M11.1.0"},
    {"America/Anchorage", "AKST9AKDT,M3.2.0,M11.1.0"}, {"US/Alaska", "AKST9AKDT,M3.2.0,M11.1.0"},
    {"Pacific/Honolulu", "HST10"}, {"US/Hawaii", "HST10"},
    {"America/Halifax", "AST4ADT,M3.2.0,M11.1.0"}, {"America/St_Johns", "NST3:30NDT,M3.2.0,M11.1.0"},
    {"America/Mexico_City", "CST6"}, {"America/Bogota", "<-05>5"}, {"America/Lima", "<-05>5"},
    {"America/Caracas", "<-04>4"}, {"America/Santiago", "<-04>4<-03>,M9.1.6/24,M4.1.6/24"},
    {"America/Sao_Paulo", "<-03>3"}, {"America/Argentina/Buenos_Aires", "<-03>3"},
    {"America/Buenos_Aires", "<-03>3"}, {"America/Montevideo", "<-03>3"},
    {"Asia/Tokyo", "JST-9"}, {"Japan", "JST-9"}, {"Asia/Seoul", "KST-9"}, {"Asia/Shanghai", "CST-8"},
    {"PRC", "CST-8"}, {"Asia/Hong_Kong", "HKT-8"}, {"Asia/Taipei", "CST-8"}, {"Asia/Singapore", "<+08>-8"},
    {"Asia/Kuala_Lumpur", "<+08>-8"}, {"Asia/Manila", "PST-8"}, {"Asia/Jakarta", "WIB-7"},
    {"Asia/Bangkok", "<+07>-7"}, {"Asia/Ho_Chi_Minh", "<+07>-7"}, {"Asia/Kolkata", "IST-5:30"},
    {"Asia/Calcutta", "IST-5:30"}, {"Asia/Kathmandu", "<+0545>-5:45"}, {"Asia/Dhaka", "<+06>-6"},
    {"Asia/Karachi", "PKT-5"}, {"Asia/Tashkent", "<+05>-5"}, {"Asia/Dubai", "<+04>-4"},
    {"Asia/Tehran", "<+0330>-3:30"}, {"Asia/Riyadh", "<+03>-3"}, {"Asia/Baghdad", "<+03>-3"},
    {"Asia/Jerusalem", "IST-2IDT,M3.4.4/26,M10.5.0"}, {"Asia/Tel_Aviv", "IST-2IDT,M3.4.4/26,M10.5.0"},
    {"Australia/Sydney", "AEST-10AEDT,M10.1.0,M4.1.0/3"}, {"Australia/Melbourne", "AEST-10AEDT,M10.1.0,M4.1.0/3"},
    {"Australia/Canberra", "AEST-10AEDT,M10.1.0,M4.1.0/3"}, {"Australia/Hobart", "AEST-10AEDT,M10.1.0,M4.1.0/3"},
    {"Australia/Brisbane", "AEST-10"}, {"Australia/Adelaide", "ACST-9:30ACDT,M10.1.0,M4.1.0/3"},
    {"Australia/Darwin", "ACST-9:30"}, {"Australia/Perth", "AWST-8"},
    {"Pacific/Auckland", "NZST-12NZDT,M9.5.0,M4.1.0/3"}, {"NZ", "NZST-12NZDT,M9.5.0,M4.1.0/3"},
    {"Africa/Cairo", "EET-2EEST,M4.5.5/0,M10.5.4/24"}, {"Africa/Johannesburg", "SAST-2"},
    {"Africa/Lagos", "WAT-1"}, {"Africa/Nairobi", "EAT-3"}, {"Africa/Casablanca", "<+01>-1"},
    {"Africa/Algiers", "CET-1"}, {"Africa/Abidjan", "GMT0"}, {"Africa/Accra", "GMT0"},
};

uint32_t be32(std::string_view d, size_t at) {
    return (uint32_t(uint8_t(d[at])) << 24) | (uint32_t(uint8_t(d[at + 1])) << 16) |
           (uint32_t(uint8_t(d[at + 2])) << 8) | uint32_t(uint8_t(d[at + 3]));
}

// Parses [+-]hh[:mm[:ss]]; returns seconds (signed as written) and advances i.
bool parse_hms(std::string_view s, size_t& i, int32_t& out) {
    int sign = 1;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) sign = s[i++] == '-' ? -1 : 1;
    int32_t parts[3] = {0, 0, 0};
    for (int k = 0; k < 3; ++k) {
        if (k > 0) {
            if (i >= s.size() || s[i] != ':') break;
            ++i;
        }
        size_t start = i;
        int32_t v = 0;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) && i - start < 3) v = v * 10 + (s[i++] - '0');
        if (i == start) return false;
        parts[k] = v;
    }
    if (parts[0] > 167 || parts[1] > 59 || parts[2] > 59) return false;
    out = sign * (parts[0] * 3600 + parts[1] * 60 + parts[2]);
    return true;
}

bool parse_name(std::string_view s, size_t& i, std::string& out) {
    if (i < s.size() && s[i] == '<') {
        size_t e = s.find('>', i);
        if (e == std::string_view::npos) return false;
        out = std::string(s.substr(i + 1, e - i - 1));
        i = e + 1;
        return out.size() >= 1;
    }
    size_t start = i;
    while (i < s.size() && std::isalpha(static_cast<unsigned char>(s[i]))) ++i;
    out = std::string(s.substr(start, i - start));
    return out.size() >= 3;
}

}  // namespace

TimeZone::TimeZone() : std_{0, false, "UTC"} {}

TimeZone TimeZone::fixed(int32_t offset, std::string abbr) {
    TimeZone z;
    z.std_ = {offset, false, std::move(abbr)};
    return z;
}

bool TimeZone::parse_posix(std::string_view s) {
    size_t i = 0;
    std::string name;
    if (!parse_name(s, i, name)) return false;
    int32_t off = 0;
    if (!parse_hms(s, i, off)) {
        // glibc: a name without an offset is UTC shown with that name.
        std_ = {0, false, name};
        return true;
    }
    std_ = {-off, false, name};
    if (i >= s.size()) return true;
    std::string dname;
    if (!parse_name(s, i, dname)) return i >= s.size();
    has_dst_ = true;
    dst_ = {std_.offset + 3600, true, dname};
    if (i < s.size() && s[i] != ',') {
        int32_t d = 0;
        if (!parse_hms(s, i, d)) return false;
        dst_.offset = -d;
    }
    // Without rules: the US rules (glibc's default).
    start_ = {'M', 3, 2, 0, 7200};
    end_ = {'M', 11, 1, 0, 7200};
    has_rules_ = true;
    if (i >= s.size() || s[i] != ',') return true;
    auto rule = [&](Rule& r) -> bool {
        if (i >= s.size()) return false;
        auto num = [&](int& v) {
            size_t st = i;
            v = 0;
            while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) && i - st < 4) v = v * 10 + (s[i++] - '0');
            return i > st;
        };
        if (s[i] == 'J') {
            ++i;
            r.kind = 'J';
            if (!num(r.a) || r.a < 1 || r.a > 365) return false;
        } else if (s[i] == 'M') {
            ++i;
            r.kind = 'M';
            if (!num(r.a) || i >= s.size() || s[i++] != '.' || !num(r.b) || i >= s.size() || s[i++] != '.' ||
                !num(r.c))
                return false;
            if (r.a < 1 || r.a > 12 || r.b < 1 || r.b > 5 || r.c > 6) return false;
        } else {
            r.kind = 'D';
            if (!num(r.a) || r.a > 365) return false;
        }
        r.time = 7200;
        if (i < s.size() && s[i] == '/') {
            ++i;
            int32_t t = 0;
            if (!parse_hms(s, i, t)) return false;
            r.time = t;
        }
        return true;
    };
    ++i;
    if (!rule(start_)) return false;
    if (i >= s.size() || s[i] != ',') return false;
    ++i;
    return rule(end_);
}

bool TimeZone::parse_tzif(std::string_view d) {
    if (d.size() < 44 || d.substr(0, 4) != "TZif") return false;
    auto counts = [&](size_t at, uint32_t c[6]) {
        for (int k = 0; k < 6; ++k) c[k] = be32(d, at + 20 + 4 * k);
    };
    uint32_t c[6];
    counts(0, c);
    // isutcnt isstdcnt leapcnt timecnt typecnt charcnt
    size_t v1 = size_t(c[3]) * 5 + size_t(c[4]) * 6 + c[5] + size_t(c[2]) * 8 + c[1] + c[0];
    size_t at = 44;
    int tsize = 4;
    if (d[4] >= '2' && d.size() >= 44 + v1 + 44 && d.substr(44 + v1, 4) == "TZif") {
        at = 44 + v1 + 44;
        counts(44 + v1, c);
        tsize = 8;
    }
    const size_t timecnt = c[3], typecnt = c[4], charcnt = c[5];
    if (typecnt == 0 || d.size() < at + timecnt * (tsize + 1) + typecnt * 6 + charcnt) return false;
    trans_.resize(timecnt);
    trans_type_.resize(timecnt);
    for (size_t k = 0; k < timecnt; ++k) {
        if (tsize == 8) {
            uint64_t v = (uint64_t(be32(d, at + 8 * k)) << 32) | be32(d, at + 8 * k + 4);
            trans_[k] = static_cast<int64_t>(v);
        } else {
            trans_[k] = static_cast<int32_t>(be32(d, at + 4 * k));
        }
    }
    at += timecnt * tsize;
    for (size_t k = 0; k < timecnt; ++k) trans_type_[k] = static_cast<uint8_t>(d[at + k]);
    at += timecnt;
    std::string_view chars = d.substr(at + typecnt * 6, charcnt);
    types_.clear();
    for (size_t k = 0; k < typecnt; ++k) {
        ZoneType t;
        t.offset = static_cast<int32_t>(be32(d, at + 6 * k));
        t.dst = d[at + 6 * k + 4] != 0;
        size_t idx = static_cast<uint8_t>(d[at + 6 * k + 5]);
        if (idx < chars.size()) {
            size_t e = chars.find('\0', idx);
            t.abbr = std::string(chars.substr(idx, e == std::string_view::npos ? std::string_view::npos : e - idx));
        }
        types_.push_back(std::move(t));
    }
    for (uint8_t& t : trans_type_)
        if (t >= typecnt) t = 0;
    // The footer (v2+): "\n<POSIX TZ>\n" after the 64-bit data.
    std_ = types_[0];
    for (const ZoneType& t : types_)
        if (!t.dst) {
            std_ = t;
            break;
        }
    has_footer_ = false;
    if (tsize == 8) {
        size_t data_end = at + typecnt * 6 + charcnt + size_t(c[2]) * 12 + c[1] + c[0];
        if (data_end < d.size() && d[data_end] == '\n') {
            size_t e = d.find('\n', data_end + 1);
            if (e != std::string_view::npos && e > data_end + 1) {
                TimeZone f;
                if (f.parse_posix(d.substr(data_end + 1, e - data_end - 1))) {
                    std_ = f.std_;
                    dst_ = f.dst_;
                    has_dst_ = f.has_dst_;
                    has_rules_ = f.has_rules_;
                    start_ = f.start_;
                    end_ = f.end_;
                    has_footer_ = true;
                }
            }
        }
    }
    return true;
}

TimeZone TimeZone::from_tz(const std::string* tz, vfs::FileSystem* fs) {
    TimeZone z;
    if (!tz || tz->empty()) return z;
    std::string_view v = *tz;
    bool file_only = false;
    if (v.front() == ':') {
        v.remove_prefix(1);
        file_only = true;
        if (v.empty()) return z;
    }
    if (fs && v.find("..") == std::string_view::npos) {
        std::string path = v.front() == '/' ? std::string(v) : "/usr/share/zoneinfo/" + std::string(v);
        auto data = fs->read_file(path, 1u << 20);
        if (data) {
            TimeZone f;
            if (f.parse_tzif(*data)) return f;
        }
    }
    for (const NamedZone& nz : kZones)
        if (nz.name == v) {
            TimeZone f;
            (void)f.parse_posix(nz.rule);
            return f;
        }
    // Etc/GMT+5 is five hours west (POSIX sign).
    if (v.starts_with("Etc/GMT") && v.size() > 7) {
        size_t i = 7;
        int32_t off = 0;
        if (parse_hms(v, i, off) && i == v.size() && (v[7] == '+' || v[7] == '-')) {
            std::string sign = off <= 0 ? "+" : "-";
            int32_t h = (off < 0 ? -off : off) / 3600;
            return fixed(-off, sign + (h < 10 ? "0" : "") + std::to_string(h));
        }
    }
    if (file_only) {
        // glibc: an unreadable zone file gives UTC under the file's name's leading letters.
        TimeZone f;
        size_t i = 0;
        std::string name;
        (void)parse_name(v, i, name);
        f.std_ = {0, false, name.empty() ? std::string(v) : name};
        return f;
    }
    TimeZone f;
    if (f.parse_posix(v)) return f;
    size_t i = 0;
    std::string name;
    (void)parse_name(v, i, name);
    z.std_ = {0, false, name.size() >= 3 ? name : std::string("UTC")};
    return z;
}

int64_t TimeZone::rule_time(int64_t year, const Rule& r, int32_t offset) const {
    int64_t day = days_from_civil(year, 1, 1);
    if (r.kind == 'J') {
        int64_t n = r.a - 1;
        if (is_leap(year) && r.a >= 60) ++n;
        day += n;
    } else if (r.kind == 'D') {
        day += r.a;
    } else {
        int64_t first = days_from_civil(year, r.a, 1);
        int wd_first = static_cast<int>(floormod(first + 4, 7));
        int64_t mday = 1 + floormod(r.c - wd_first, 7) + 7 * (r.b - 1);
        while (mday > days_in_month(year, r.a)) mday -= 7;
        day = first + mday - 1;
    }
    return day * 86400 + r.time - offset;
}

ZoneType TimeZone::posix_at(int64_t utc) const {
    if (!has_dst_ || !has_rules_) return std_;
    int64_t y;
    int m, d;
    civil_from_days(floordiv(utc + std_.offset, 86400), y, m, d);
    int64_t start = rule_time(y, start_, std_.offset);
    int64_t end = rule_time(y, end_, dst_.offset);
    bool in_dst;
    if (start < end)
        in_dst = utc >= start && utc < end;
    else
        in_dst = !(utc >= end && utc < start);
    return in_dst ? dst_ : std_;
}

ZoneType TimeZone::at(int64_t utc) const {
    if (!types_.empty()) {
        if (trans_.empty() || utc < trans_.front()) {
            // Before the first transition: the first standard-time type.
            for (const ZoneType& t : types_)
                if (!t.dst) return t;
            return types_[0];
        }
        if (utc >= trans_.back() && has_footer_) return posix_at(utc);
        size_t k = static_cast<size_t>(std::upper_bound(trans_.begin(), trans_.end(), utc) - trans_.begin()) - 1;
        return types_[trans_type_[k]];
    }
    return posix_at(utc);
}

LocalTime TimeZone::local(int64_t utc, int64_t nsec) const {
    ZoneType zt = at(utc);
    LocalTime t;
    t.epoch = utc;
    t.nsec = nsec;
    t.offset = zt.offset;
    t.dst = zt.dst;
    t.abbr = zt.abbr;
    int64_t l = utc + zt.offset;
    int64_t days = floordiv(l, 86400);
    int64_t secs = l - days * 86400;
    civil_from_days(days, t.year, t.mon, t.mday);
    t.hour = static_cast<int>(secs / 3600);
    t.min = static_cast<int>(secs / 60 % 60);
    t.sec = static_cast<int>(secs % 60);
    t.wday = static_cast<int>(floormod(days + 4, 7));
    t.yday = static_cast<int>(days - days_from_civil(t.year, 1, 1));
    return t;
}

int64_t TimeZone::to_utc(int64_t year, int64_t mon, int64_t mday, int64_t hour, int64_t min, int64_t sec) const {
    int64_t l = days_from_civil(year, mon, mday) * 86400 + hour * 3600 + min * 60 + sec;
    int64_t t = l - at(l - std_.offset).offset;
    for (int k = 0; k < 3; ++k) {
        int64_t t2 = l - at(t).offset;
        if (t2 == t) break;
        t = t2;
    }
    return t;
}

// ---------------------------------------------------------------------------------------------------------
// strftime

namespace {

constexpr std::array<std::string_view, 7> kDays = {"Sunday", "Monday", "Tuesday", "Wednesday",
                                                   "Thursday", "Friday", "Saturday"};
constexpr std::array<std::string_view, 12> kMonths = {"January", "February", "March",     "April",
                                                      "May",     "June",     "July",      "August",
                                                      "September", "October", "November", "December"};

int iso_weeks(int64_t y) {
    auto p = [](int64_t x) { return floormod(x + floordiv(x, 4) - floordiv(x, 100) + floordiv(x, 400), 7); };
    return (p(y) == 4 || p(y - 1) == 3) ? 53 : 52;
}

void iso_week(const LocalTime& t, int64_t& year, int& week) {
    int wd = (t.wday + 6) % 7;  // Monday = 0
    year = t.year;
    week = (t.yday - wd + 10) / 7;
    if (week < 1) {
        --year;
        week = iso_weeks(year);
    } else if (week > iso_weeks(year)) {
        ++year;
        week = 1;
    }
}

std::string zone_offset(int32_t off, int colons) {
    std::string s(1, off < 0 ? '-' : '+');
    int32_t a = off < 0 ? -off : off;
    int h = a / 3600, m = a / 60 % 60, sec = a % 60;
    auto two = [&](int v) {
        s.push_back(static_cast<char>('0' + v / 10));
        s.push_back(static_cast<char>('0' + v % 10));
    };
    two(h);
    if (colons == 0) {
        two(m);
    } else if (colons == 1) {
        s.push_back(':');
        two(m);
    } else if (colons == 2) {
        s.push_back(':');
        two(m);
        s.push_back(':');
        two(sec);
    } else {
        if (m || sec) {
            s.push_back(':');
            two(m);
        }
        if (sec) {
            s.push_back(':');
            two(sec);
        }
    }
    return s;
}

}  // namespace

std::string format_time(std::string_view fmt, const LocalTime& t) {
    std::string out;
    for (size_t i = 0; i < fmt.size(); ++i) {
        char c = fmt[i];
        if (c != '%') {
            out.push_back(c);
            continue;
        }
        size_t start = i;
        ++i;
        char pad = 0;  // '-', '_', '0' or none
        bool upper = false, swap = false;
        for (; i < fmt.size(); ++i) {
            char f = fmt[i];
            if (f == '-' || f == '_' || f == '0' || f == '+') pad = f == '+' ? '0' : f;
            else if (f == '^') upper = true;
            else if (f == '#') swap = true;
            else break;
        }
        int width = -1;
        if (i < fmt.size() && std::isdigit(static_cast<unsigned char>(fmt[i]))) {
            width = 0;
            while (i < fmt.size() && std::isdigit(static_cast<unsigned char>(fmt[i]))) {
                width = std::min(width * 10 + (fmt[i] - '0'), 4096);
                ++i;
            }
        }
        while (i < fmt.size() && (fmt[i] == 'E' || fmt[i] == 'O')) ++i;
        int colons = 0;
        while (i < fmt.size() && fmt[i] == ':' && colons < 4) {
            ++colons;
            ++i;
        }
        if (i >= fmt.size()) {
            out.append(fmt.substr(start));
            break;
        }
        char conv = fmt[i];
        if (colons && conv != 'z') {
            out.append(fmt.substr(start, i - start + 1));
            continue;
        }
        // A number with its default width and padding.
        auto num = [&](int64_t v, int def_width, char def_pad) {
            char p = pad ? pad : def_pad;
            int w = width >= 0 ? width : def_width;
            std::string digits = std::to_string(v < 0 ? -static_cast<uint64_t>(v) : static_cast<uint64_t>(v));
            std::string s;
            if (v < 0) s.push_back('-');
            if (p != '-') {
                int need = w - static_cast<int>(digits.size()) - (v < 0 ? 1 : 0);
                if (need > 0) {
                    if (p == '_' || p == ' ')
                        s.insert(0, std::string(static_cast<size_t>(need), ' '));
                    else
                        s.append(static_cast<size_t>(need), '0');
                }
            }
            s += digits;
            out += s;
        };
        // A word, with case flags and width.
        auto word = [&](std::string s, bool swap_lower) {
            if (upper || (swap && !swap_lower))
                for (char& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
            else if (swap && swap_lower)
                for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
            if (width > 0 && pad != '-' && static_cast<int>(s.size()) < width)
                s.insert(0, std::string(static_cast<size_t>(width) - s.size(), pad == '0' ? '0' : ' '));
            out += s;
        };
        auto sub = [&](std::string_view f) {
            std::string s = format_time(f, t);
            if (upper)
                for (char& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
            if (width > 0 && pad != '-' && static_cast<int>(s.size()) < width)
                s.insert(0, std::string(static_cast<size_t>(width) - s.size(), pad == '_' ? ' ' : (pad == '0' ? '0' : ' ')));
            out += s;
        };
        int h12 = t.hour % 12 == 0 ? 12 : t.hour % 12;
        switch (conv) {
            case '%': out.push_back('%'); break;
            case 'n': out.push_back('\n'); break;
            case 't': out.push_back('\t'); break;
            case 'a': word(std::string(kDays[t.wday].substr(0, 3)), false); break;
            case 'A': word(std::string(kDays[t.wday]), false); break;
            case 'b':
            case 'h': word(std::string(kMonths[t.mon - 1].substr(0, 3)), false); break;
            case 'B': word(std::string(kMonths[t.mon - 1]), false); break;
            case 'p': word(t.hour < 12 ? "AM" : "PM", true); break;
            case 'P': {
                bool keep = upper;
                upper = false;
                swap = false;
                std::string s = t.hour < 12 ? "am" : "pm";
                if (keep) s = t.hour < 12 ? "AM" : "PM";
                word(s, false);
                break;
            }
            case 'Z': word(t.abbr, true); break;
            case 'c': sub("%a %b %e %H:%M:%S %Y"); break;
            case 'D':
            case 'x': sub("%m/%d/%y"); break;
            case 'F': {
                // GNU: the width applies to the year part, the rest is fixed.
                if (width >= 0 || pad) {
                    int w = width >= 0 ? std::max(width - 6, 1) : 4;
                    int sw = width;
                    width = w;
                    num(t.year, 4, '0');
                    width = sw;
                    out += format_time("-%m-%d", t);
                } else {
                    sub("%Y-%m-%d");
                }
                break;
            }
            case 'r': sub("%I:%M:%S %p"); break;
            case 'R': sub("%H:%M"); break;
            case 'T':
            case 'X': sub("%H:%M:%S"); break;
            case 'C': num(floordiv(t.year, 100), 2, '0'); break;
            case 'd': num(t.mday, 2, '0'); break;
            case 'e': num(t.mday, 2, '_'); break;
            case 'G': {
                int64_t y;
                int w;
                iso_week(t, y, w);
                num(y, 4, '0');
                break;
            }
            case 'g': {
                int64_t y;
                int w;
                iso_week(t, y, w);
                num(floormod(y, 100), 2, '0');
                break;
            }
            case 'V': {
                int64_t y;
                int w;
                iso_week(t, y, w);
                num(w, 2, '0');
                break;
            }
            case 'H': num(t.hour, 2, '0'); break;
            case 'I': num(h12, 2, '0'); break;
            case 'k': num(t.hour, 2, '_'); break;
            case 'l': num(h12, 2, '_'); break;
            case 'j': num(t.yday + 1, 3, '0'); break;
            case 'm': num(t.mon, 2, '0'); break;
            case 'M': num(t.min, 2, '0'); break;
            case 'S': num(t.sec, 2, '0'); break;
            case 'q': num((t.mon - 1) / 3 + 1, 1, '0'); break;
            case 's': num(t.epoch, 1, '0'); break;
            case 'u': num(t.wday == 0 ? 7 : t.wday, 1, '0'); break;
            case 'w': num(t.wday, 1, '0'); break;
            case 'U': num((t.yday + 7 - t.wday) / 7, 2, '0'); break;
            case 'W': num((t.yday + 7 - (t.wday + 6) % 7) / 7, 2, '0'); break;
            case 'y': num(floormod(t.year, 100), 2, '0'); break;
            case 'Y': num(t.year, 4, '0'); break;
            case 'N': {
                std::string s = std::to_string(t.nsec);
                s.insert(0, 9 - std::min<size_t>(9, s.size()), '0');
                int w = width > 0 ? width : 9;
                if (w < 9)
                    s.resize(static_cast<size_t>(w));
                else
                    s.append(static_cast<size_t>(w - 9), '0');
                out += s;
                break;
            }
            case 'z': out += zone_offset(t.offset, colons); break;
            default: out.append(fmt.substr(start, i - start + 1)); break;
        }
    }
    return out;
}

}  // namespace bashkit::utils::systemutil
