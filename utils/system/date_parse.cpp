// date -d STRING: the common forms of GNU's parse_datetime, with its grammar's semantics.
#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "utils/system/tools.hpp"

namespace bashkit::utils::systemutil {

namespace {

enum class Tok : unsigned char {
    unum,     // unsigned number
    snum,     // signed number (+N / -N)
    month,    // value 1-12
    day,      // value 0-6
    meridian, // 0 am, 1 pm
    unit,     // value: seconds-unit code (see Unit)
    ordinal,  // value
    ago,
    dayshift, // tomorrow (1), yesterday (-1), today/now (0)
    zone,     // value: offset seconds; dst flag in aux
    t_sep,    // 'T'
    at,       // '@'
    colon,
    slash,
    comma,
};

enum Unit : int { kYear, kMonth, kDay, kHour, kMinute, kSecond };

struct Token {
    Tok kind;
    int64_t value = 0;
    int digits = 0;       // numbers
    int64_t nsec = 0;     // numbers with a fraction
    bool decimal = false; // had a fraction
    int64_t aux = 1;      // unit multiplier (week = 7 days, fortnight = 14)
};

std::string upper(std::string_view s) {
    std::string u;
    for (char c : s)
        if (c != '.') u.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
    return u;
}

struct Word {
    std::string_view name;
    Tok kind;
    int64_t value;
    int64_t aux = 1;
};

constexpr Word kWords[] = {
    {"JANUARY", Tok::month, 1}, {"FEBRUARY", Tok::month, 2}, {"MARCH", Tok::month, 3},
    {"APRIL", Tok::month, 4}, {"MAY", Tok::month, 5}, {"JUNE", Tok::month, 6}, {"JULY", Tok::month, 7},
    {"AUGUST", Tok::month, 8}, {"SEPTEMBER", Tok::month, 9}, {"SEPT", Tok::month, 9},
    {"OCTOBER", Tok::month, 10}, {"NOVEMBER", Tok::month, 11}, {"DECEMBER", Tok::month, 12},
    {"SUNDAY", Tok::day, 0}, {"MONDAY", Tok::day, 1}, {"TUESDAY", Tok::day, 2}, {"TUES", Tok::day, 2},
    {"WEDNESDAY", Tok::day, 3}, {"WEDNES", Tok::day, 3}, {"THURSDAY", Tok::day, 4}, {"THUR", Tok::day, 4},
    {"THURS", Tok::day, 4}, {"FRIDAY", Tok::day, 5}, {"SATURDAY", Tok::day, 6},
    {"AM", Tok::meridian, 0}, {"PM", Tok::meridian, 1},
    {"YEAR", Tok::unit, kYear}, {"MONTH", Tok::unit, kMonth}, {"FORTNIGHT", Tok::unit, kDay, 14},
    {"WEEK", Tok::unit, kDay, 7}, {"DAY", Tok::unit, kDay}, {"HOUR", Tok::unit, kHour},
    {"MINUTE", Tok::unit, kMinute}, {"MIN", Tok::unit, kMinute}, {"SECOND", Tok::unit, kSecond},
    {"SEC", Tok::unit, kSecond},
    {"TOMORROW", Tok::dayshift, 1}, {"YESTERDAY", Tok::dayshift, -1}, {"TODAY", Tok::dayshift, 0},
    {"NOW", Tok::dayshift, 0},
    {"LAST", Tok::ordinal, -1}, {"THIS", Tok::ordinal, 0}, {"NEXT", Tok::ordinal, 1}, {"FIRST", Tok::ordinal, 1},
    {"THIRD", Tok::ordinal, 3}, {"FOURTH", Tok::ordinal, 4}, {"FIFTH", Tok::ordinal, 5},
    {"SIXTH", Tok::ordinal, 6}, {"SEVENTH", Tok::ordinal, 7}, {"EIGHTH", Tok::ordinal, 8},
    {"NINTH", Tok::ordinal, 9}, {"TENTH", Tok::ordinal, 10}, {"ELEVENTH", Tok::ordinal, 11},
    {"TWELFTH", Tok::ordinal, 12}, {"AGO", Tok::ago, 0},
    // Time zones (offsets east of UTC, in seconds; aux 1 marks a daylight-saving zone).
    {"GMT", Tok::zone, 0, 0}, {"UT", Tok::zone, 0, 0}, {"UTC", Tok::zone, 0, 0}, {"Z", Tok::zone, 0, 0},
    {"WET", Tok::zone, 0, 0}, {"WEST", Tok::zone, 3600, 1}, {"BST", Tok::zone, 3600, 1},
    {"ART", Tok::zone, -3 * 3600, 0}, {"BRT", Tok::zone, -3 * 3600, 0}, {"BRST", Tok::zone, -2 * 3600, 1},
    {"NST", Tok::zone, -(3 * 3600 + 1800), 0}, {"NDT", Tok::zone, -(2 * 3600 + 1800), 1},
    {"AST", Tok::zone, -4 * 3600, 0}, {"ADT", Tok::zone, -3 * 3600, 1}, {"CLT", Tok::zone, -4 * 3600, 0},
    {"CLST", Tok::zone, -3 * 3600, 1}, {"EST", Tok::zone, -5 * 3600, 0}, {"EDT", Tok::zone, -4 * 3600, 1},
    {"CST", Tok::zone, -6 * 3600, 0}, {"CDT", Tok::zone, -5 * 3600, 1}, {"MST", Tok::zone, -7 * 3600, 0},
    {"MDT", Tok::zone, -6 * 3600, 1}, {"PST", Tok::zone, -8 * 3600, 0}, {"PDT", Tok::zone, -7 * 3600, 1},
    {"AKST", Tok::zone, -9 * 3600, 0}, {"AKDT", Tok::zone, -8 * 3600, 1}, {"HST", Tok::zone, -10 * 3600, 0},
    {"HAST", Tok::zone, -10 * 3600, 0}, {"HADT", Tok::zone, -9 * 3600, 1}, {"SST", Tok::zone, -12 * 3600, 0},
    {"WAT", Tok::zone, 3600, 0}, {"CET", Tok::zone, 3600, 0}, {"CEST", Tok::zone, 2 * 3600, 1},
    {"MET", Tok::zone, 3600, 0}, {"MEZ", Tok::zone, 3600, 0}, {"MEST", Tok::zone, 2 * 3600, 1},
    {"MESZ", Tok::zone, 2 * 3600, 1}, {"EET", Tok::zone, 2 * 3600, 0}, {"EEST", Tok::zone, 3 * 3600, 1},
    {"CAT", Tok::zone, 2 * 3600, 0}, {"SAST", Tok::zone, 2 * 3600, 0}, {"EAT", Tok::zone, 3 * 3600, 0},
    {"MSK", Tok::zone, 3 * 3600, 0}, {"MSD", Tok::zone, 4 * 3600, 1}, {"IST", Tok::zone, 5 * 3600 + 1800, 0},
    {"SGT", Tok::zone, 8 * 3600, 0}, {"KST", Tok::zone, 9 * 3600, 0}, {"JST", Tok::zone, 9 * 3600, 0},
    {"GST", Tok::zone, 10 * 3600, 0}, {"NZST", Tok::zone, 12 * 3600, 0}, {"NZDT", Tok::zone, 13 * 3600, 1},
    {"AEST", Tok::zone, 10 * 3600, 0}, {"AEDT", Tok::zone, 11 * 3600, 1}, {"ACST", Tok::zone, 9 * 3600 + 1800, 0},
    {"AWST", Tok::zone, 8 * 3600, 0},
};

std::optional<Token> lookup_word(std::string_view raw, const TimeZone& local) {
    std::string w = upper(raw);
    if (w.empty()) return std::nullopt;
    for (const Word& e : kWords)
        if (e.name == w) return Token{e.kind, e.value, 0, 0, false, e.aux};
    // Three-letter abbreviations of month and day names.
    if (w.size() == 3)
        for (const Word& e : kWords)
            if ((e.kind == Tok::month || e.kind == Tok::day) && e.name.substr(0, 3) == w)
                return Token{e.kind, e.value, 0, 0, false, 1};
    // Plural units.
    if (w.size() > 1 && w.back() == 'S') {
        std::string_view s(w.data(), w.size() - 1);
        for (const Word& e : kWords)
            if (e.kind == Tok::unit && e.name == s) return Token{e.kind, e.value, 0, 0, false, e.aux};
    }
    // The local zone's own abbreviations.
    (void)local;
    if (w == "T") return Token{Tok::t_sep};
    // Military zones (single letters; J is not one).
    if (w.size() == 1 && w[0] != 'J') {
        char c = w[0];
        int64_t h = c <= 'I' ? c - 'A' + 1 : c <= 'M' ? c - 'A' : c <= 'Y' ? -(c - 'N' + 1) : 0;
        return Token{Tok::zone, -h * 3600, 0, 0, false, 0};
    }
    return std::nullopt;
}

bool lex(std::string_view s, const TimeZone& local, std::vector<Token>& out) {
    size_t i = 0;
    while (i < s.size()) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        if (std::isspace(c)) {
            ++i;
            continue;
        }
        if (c == '(') {  // comments nest
            int depth = 0;
            do {
                if (s[i] == '(') ++depth;
                else if (s[i] == ')') --depth;
                ++i;
            } while (i < s.size() && depth > 0);
            if (depth > 0) return false;
            continue;
        }
        if (std::isdigit(c) || c == '+' || c == '-') {
            int sign = 0;
            if (c == '+' || c == '-') {
                sign = c == '-' ? -1 : 1;
                ++i;
                while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
                if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i]))) continue;  // a lone sign
            }
            Token t{sign ? Tok::snum : Tok::unum};
            uint64_t v = 0;
            size_t st = i;
            while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
                if (v > (INT64_MAX - 9) / 10) return false;
                v = v * 10 + static_cast<uint64_t>(s[i++] - '0');
            }
            t.digits = static_cast<int>(i - st);
            t.value = static_cast<int64_t>(v) * (sign < 0 ? -1 : 1);
            if (i + 1 < s.size() && (s[i] == '.' || s[i] == ',') && std::isdigit(static_cast<unsigned char>(s[i + 1]))) {
                ++i;
                int64_t ns = 0;
                int n = 0;
                while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
                    if (n < 9) {
                        ns = ns * 10 + (s[i] - '0');
                        ++n;
                    }
                    ++i;
                }
                for (; n < 9; ++n) ns *= 10;
                t.decimal = true;
                t.nsec = ns;
            }
            out.push_back(t);
            continue;
        }
        if (std::isalpha(c)) {
            size_t st = i;
            while (i < s.size() && (std::isalpha(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
            auto t = lookup_word(s.substr(st, i - st), local);
            if (!t) return false;
            out.push_back(*t);
            continue;
        }
        ++i;
        switch (c) {
            case '@': out.push_back({Tok::at}); break;
            case ':': out.push_back({Tok::colon}); break;
            case '/': out.push_back({Tok::slash}); break;
            case ',': out.push_back({Tok::comma}); break;
            default: return false;
        }
    }
    return true;
}

struct State {
    int dates = 0, times = 0, days = 0, zones = 0, rels = 0, locals = 0;
    int64_t year = 0, month = 0, mday = 0;
    int year_digits = 0;
    int64_t hour = 0, minute = 0, sec = 0, nsec = 0;
    int meridian = -1;  // -1 24-hour, 0 am, 1 pm
    int64_t zone = 0;
    int64_t day_number = 0, day_ordinal = 0;
    int64_t rel[6] = {0, 0, 0, 0, 0, 0};
    int64_t rel_ns = 0;
};

class Parser {
public:
    Parser(std::vector<Token> t) : t_(std::move(t)) {}
    bool parse(State& st);

private:
    const Token* peek(size_t k = 0) const { return pos_ + k < t_.size() ? &t_[pos_ + k] : nullptr; }
    bool is(size_t k, Tok kind) const {
        const Token* p = peek(k);
        return p && p->kind == kind;
    }
    bool time_zone_number(State& st);
    bool time_rest(State& st);
    bool relunit(State& st);
    void set_year(State& st, const Token& t) {
        st.year = t.value < 0 ? -t.value : t.value;
        st.year_digits = t.digits;
    }
    std::vector<Token> t_;
    size_t pos_ = 0;
};

// After a time: an optional zone correction (+hh, +hhmm, +hh:mm).
bool Parser::time_zone_number(State& st) {
    if (!is(0, Tok::snum) || peek()->decimal) return true;
    Token z = *peek();
    ++pos_;
    int64_t h, m;
    if (is(0, Tok::colon) && is(1, Tok::unum)) {
        h = z.value < 0 ? -z.value : z.value;
        m = peek(1)->value;
        pos_ += 2;
    } else if (z.digits <= 2) {
        h = z.value < 0 ? -z.value : z.value;
        m = 0;
    } else {
        int64_t a = z.value < 0 ? -z.value : z.value;
        h = a / 100;
        m = a % 100;
    }
    if (h > 24 || m > 59) return false;
    int64_t off = (h * 3600 + m * 60) * (z.value < 0 ? -1 : 1);
    st.zone = off;
    ++st.zones;
    return true;
}

// After HH:MM: [:SS[.frac]] [am|pm] [zone number].
bool Parser::time_rest(State& st) {
    if (is(0, Tok::colon) && is(1, Tok::unum)) {
        st.sec = peek(1)->value;
        st.nsec = peek(1)->nsec;
        pos_ += 2;
    }
    if (is(0, Tok::meridian)) {
        st.meridian = static_cast<int>(peek()->value);
        ++pos_;
    }
    return time_zone_number(st);
}

bool Parser::relunit(State& st) {
    const Token* a = peek();
    int64_t n = 1;
    size_t used = 0;
    if (a->kind == Tok::unum || a->kind == Tok::snum || a->kind == Tok::ordinal) {
        if (!is(1, Tok::unit) || a->decimal) return false;
        n = a->value;
        used = 1;
    } else if (a->kind != Tok::unit) {
        return false;
    }
    const Token& u = *peek(used);
    pos_ += used + 1;
    if (is(0, Tok::ago)) {
        n = -n;
        ++pos_;
    }
    st.rel[u.value] += n * u.aux;
    ++st.rels;
    return true;
}

bool Parser::parse(State& st) {
    while (pos_ < t_.size()) {
        const Token& a = t_[pos_];
        switch (a.kind) {
            case Tok::unum: {
                if (a.decimal) return false;
                if (is(1, Tok::colon) && is(2, Tok::unum)) {  // HH:MM
                    if (peek(2)->decimal) return false;
                    st.hour = a.value;
                    st.minute = peek(2)->value;
                    st.sec = 0;
                    st.nsec = 0;
                    st.meridian = -1;
                    pos_ += 3;
                    ++st.times;
                    if (!time_rest(st)) return false;
                    continue;
                }
                if (is(1, Tok::slash) && is(2, Tok::unum)) {  // M/D[/Y] or Y/M/D
                    const Token& b = *peek(2);
                    if (is(3, Tok::slash) && is(4, Tok::unum)) {
                        const Token& c = *peek(4);
                        if (a.digits >= 4) {
                            set_year(st, a);
                            st.month = b.value;
                            st.mday = c.value;
                        } else {
                            st.month = a.value;
                            st.mday = b.value;
                            set_year(st, c);
                        }
                        pos_ += 5;
                    } else {
                        st.month = a.value;
                        st.mday = b.value;
                        pos_ += 3;
                    }
                    ++st.dates;
                    continue;
                }
                if (is(1, Tok::snum) && is(2, Tok::snum) && !peek(1)->decimal && !peek(2)->decimal) {  // Y-M-D
                    set_year(st, a);
                    st.month = -peek(1)->value;
                    st.mday = -peek(2)->value;
                    pos_ += 3;
                    ++st.dates;
                    if (is(0, Tok::t_sep) && is(1, Tok::unum)) {  // ISO 8601 date T time
                        ++pos_;
                        const Token& h = *peek();
                        st.hour = h.value;
                        st.minute = 0;
                        st.sec = 0;
                        st.nsec = 0;
                        st.meridian = -1;
                        ++pos_;
                        if (is(0, Tok::colon) && is(1, Tok::unum)) {
                            st.minute = peek(1)->value;
                            pos_ += 2;
                        }
                        ++st.times;
                        if (!time_rest(st)) return false;
                    }
                    continue;
                }
                if (is(1, Tok::month)) {  // D MON [Y]
                    st.mday = a.value;
                    st.month = peek(1)->value;
                    pos_ += 2;
                    if ((is(0, Tok::unum) || is(0, Tok::snum)) && !peek()->decimal && !is(1, Tok::colon) &&
                        !is(1, Tok::unit)) {
                        set_year(st, *peek());
                        ++pos_;
                    }
                    ++st.dates;
                    continue;
                }
                if (is(1, Tok::meridian)) {  // 5pm
                    st.hour = a.value;
                    st.minute = st.sec = st.nsec = 0;
                    st.meridian = static_cast<int>(peek(1)->value);
                    pos_ += 2;
                    ++st.times;
                    if (!time_zone_number(st)) return false;
                    continue;
                }
                if (is(1, Tok::unit)) {
                    if (!relunit(st)) return false;
                    continue;
                }
                if (is(1, Tok::day)) {
                    st.day_ordinal = a.value;
                    st.day_number = peek(1)->value;
                    pos_ += 2;
                    ++st.days;
                    continue;
                }
                // A bare number: a year, a date YYYYMMDD or a time HH / HHMM.
                ++pos_;
                if (st.dates && !st.year_digits && !st.rels && (st.times || a.digits > 2)) {
                    set_year(st, a);
                } else if (a.digits > 4) {
                    ++st.dates;
                    st.mday = a.value % 100;
                    st.month = a.value / 100 % 100;
                    st.year = a.value / 10000;
                    st.year_digits = a.digits - 4;
                } else {
                    ++st.times;
                    if (a.digits <= 2) {
                        st.hour = a.value;
                        st.minute = 0;
                    } else {
                        st.hour = a.value / 100;
                        st.minute = a.value % 100;
                    }
                    st.sec = st.nsec = 0;
                    st.meridian = -1;
                }
                continue;
            }
            case Tok::snum:
            case Tok::unit:
                if (!relunit(st)) return false;
                continue;
            case Tok::ordinal:
                if (is(1, Tok::day)) {
                    st.day_ordinal = a.value;
                    st.day_number = peek(1)->value;
                    pos_ += 2;
                    ++st.days;
                    continue;
                }
                if (!relunit(st)) return false;
                continue;
            case Tok::dayshift:
                st.rel[kDay] += a.value;
                ++st.rels;
                ++pos_;
                continue;
            case Tok::month: {
                st.month = a.value;
                ++pos_;
                if (is(0, Tok::snum) && is(1, Tok::snum)) {  // MON-DD-YYYY
                    st.mday = -peek()->value;
                    set_year(st, *peek(1));
                    pos_ += 2;
                } else if (is(0, Tok::unum) && !peek()->decimal && !is(1, Tok::colon)) {
                    st.mday = peek()->value;
                    ++pos_;
                    if (is(0, Tok::comma) && is(1, Tok::unum)) {
                        set_year(st, *peek(1));
                        pos_ += 2;
                    }
                } else {
                    return false;
                }
                ++st.dates;
                continue;
            }
            case Tok::day:
                st.day_ordinal = 0;
                st.day_number = a.value;
                ++pos_;
                if (is(0, Tok::comma)) ++pos_;
                ++st.days;
                continue;
            case Tok::zone: {
                st.zone = a.value;
                ++st.zones;
                ++pos_;
                if (is(0, Tok::snum) && !peek()->decimal && !is(1, Tok::unit)) {  // UTC+3, GMT-0530
                    State z;
                    if (!time_zone_number(z)) return false;
                    st.zone += z.zone;
                }
                continue;
            }
            default: return false;
        }
    }
    return true;
}

}  // namespace

bool parse_date(std::string_view text, int64_t now_sec, int64_t now_nsec, const TimeZone& tz_in,
                vfs::FileSystem* fs, int64_t& out_sec, int64_t& out_nsec) {
    std::string_view s = text;
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    TimeZone tz = tz_in;
    // TZ="ZONE" prefix.
    if (s.starts_with("TZ=\"")) {
        size_t e = s.find('"', 4);
        if (e == std::string_view::npos) return false;
        std::string name(s.substr(4, e - 4));
        tz = TimeZone::from_tz(&name, fs);
        s.remove_prefix(e + 1);
    }
    std::vector<Token> toks;
    if (!lex(s, tz, toks)) return false;
    // @SECONDS[.frac]
    if (!toks.empty() && toks[0].kind == Tok::at) {
        if (toks.size() != 2 || (toks[1].kind != Tok::unum && toks[1].kind != Tok::snum)) return false;
        const Token& n = toks[1];
        out_sec = n.value;
        out_nsec = n.nsec;
        if (n.value < 0 && n.nsec) {
            out_sec -= 1;
            out_nsec = 1000000000 - n.nsec;
        }
        return true;
    }
    State st;
    if (toks.empty()) ++st.dates;  // an empty string is today's midnight
    Parser p(std::move(toks));
    if (!p.parse(st)) return false;
    if (st.dates > 1 || st.times > 1 || st.days > 1 || st.zones > 1) return false;

    LocalTime now = tz.local(now_sec, now_nsec);
    int64_t year = now.year, mon = now.mon, mday = now.mday;
    int64_t hour = now.hour, minute = now.min, sec = now.sec, nsec = now_nsec;
    if (st.dates) {
        year = st.year;
        if (st.year_digits == 0) {
            year = now.year;
        } else if (st.year_digits == 2) {
            year += year < 69 ? 2000 : 1900;
        }
        if (st.month || st.mday) {
            mon = st.month;
            mday = st.mday;
        }
        if (mon < 1 || mon > 12 || mday < 1 || mday > days_in_month(year, static_cast<int>(mon))) return false;
    }
    if (st.times) {
        hour = st.hour;
        if (st.meridian >= 0) {
            if (hour < 1 || hour > 12) return false;
            hour = hour % 12 + (st.meridian == 1 ? 12 : 0);
        }
        minute = st.minute;
        sec = st.sec;
        nsec = st.nsec;
        if (hour > 23 || minute > 59 || sec > 59) return false;
    } else if (st.dates || st.days || st.zones) {
        hour = minute = sec = nsec = 0;
    }
    year += st.rel[kYear];
    mon += st.rel[kMonth];
    mday += st.rel[kDay];
    // Normalise (like mktime), then move to the day of the week.
    int64_t days = days_from_civil(year, mon, mday);
    if (st.days && !st.dates) {
        int64_t wday = floormod(days + 4, 7);
        days += floormod(st.day_number - wday + 7, 7) +
                7 * (st.day_ordinal - (0 < st.day_ordinal && wday != st.day_number ? 1 : 0));
    }
    int64_t y;
    int m, d;
    civil_from_days(days, y, m, d);
    int64_t t;
    if (st.zones)
        t = days * 86400 + hour * 3600 + minute * 60 + sec - st.zone;
    else {
        t = tz.to_utc(y, m, d, hour, minute, sec);
        // Like gnulib's mktime_ok: a wall-clock time the zone skips (a DST gap) is an invalid date.
        LocalTime back = tz.local(t);
        if (back.year != y || back.mon != m || back.mday != d || back.hour != hour || back.min != minute ||
            back.sec != sec)
            return false;
    }
    t += st.rel[kHour] * 3600 + st.rel[kMinute] * 60 + st.rel[kSecond];
    out_sec = t;
    out_nsec = nsec;
    return true;
}

}  // namespace bashkit::utils::systemutil
