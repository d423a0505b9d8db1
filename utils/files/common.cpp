#include "utils/files/common.hpp"

#include <array>
#include <cctype>
#include <vector>

namespace bashkit::utils::files {

namespace {

bool is_ctrl_or_high(unsigned char c) { return c < 0x20 || c >= 0x7f; }

void append_escape(std::string& out, unsigned char c) {
    switch (c) {
        case '\a': out += "\\a"; return;
        case '\b': out += "\\b"; return;
        case '\f': out += "\\f"; return;
        case '\n': out += "\\n"; return;
        case '\r': out += "\\r"; return;
        case '\t': out += "\\t"; return;
        case '\v': out += "\\v"; return;
        default: break;
    }
    out.push_back('\\');
    out.push_back(static_cast<char>('0' + ((c >> 6) & 7)));
    out.push_back(static_cast<char>('0' + ((c >> 3) & 7)));
    out.push_back(static_cast<char>('0' + (c & 7)));
}

// Single-quoted with $'..' segments for control bytes.
std::string quote_single(std::string_view s) {
    std::string out = "'";
    bool open = true;
    for (unsigned char c : s) {
        if (is_ctrl_or_high(c)) {
            if (open) out.push_back('\'');
            out += "$'";
            append_escape(out, c);
            out.push_back('\'');
            open = false;
            continue;
        }
        if (!open) {
            out.push_back('\'');
            open = true;
        }
        if (c == '\'')
            out += "'\\''";
        else
            out.push_back(static_cast<char>(c));
    }
    if (open) out.push_back('\'');
    return out;
}

// "it's" form: a single quote and otherwise only characters that need no escaping inside "..".
bool double_quote_ok(std::string_view s) {
    bool quote = false;
    for (unsigned char c : s) {
        if (is_ctrl_or_high(c) || c == '"' || c == '$' || c == '`' || c == '\\' || c == '!') return false;
        if (c == '\'') quote = true;
    }
    return quote;
}

}  // namespace

std::string quote(std::string_view s) {
    if (double_quote_ok(s)) return "\"" + std::string(s) + "\"";
    return quote_single(s);
}

std::string quotef(std::string_view s) {
    bool need = s.empty() || s == "{" || s == "}" || s.front() == '#' || s.front() == '~';
    for (unsigned char c : s) {
        if (need) break;
        if (is_ctrl_or_high(c)) need = true;
        switch (c) {
            case ' ': case '!': case '"': case '$': case '&': case '(': case ')': case '*': case ':':
            case ';': case '<': case '=': case '>': case '?': case '[': case '\\': case '^': case '`':
            case '|': case '\'':
                need = true;
                break;
            default: break;
        }
    }
    return need ? quote(s) : std::string(s);
}

char type_letter(vfs::FileType t) {
    switch (t) {
        case vfs::FileType::regular: return '-';
        case vfs::FileType::directory: return 'd';
        case vfs::FileType::symlink: return 'l';
        case vfs::FileType::char_device: return 'c';
        case vfs::FileType::block_device: return 'b';
        case vfs::FileType::fifo: return 'p';
        case vfs::FileType::socket: return 's';
        default: return '?';
    }
}

std::string mode_string(const vfs::Stat& st) {
    std::string s(10, '-');
    s[0] = type_letter(st.type);
    vfs::Mode m = st.mode;
    const char* rwx = "rwx";
    for (int i = 0; i < 9; ++i)
        if (m & (0400u >> i)) s[1 + i] = rwx[i % 3];
    if (m & 04000) s[3] = (m & 0100) ? 's' : 'S';
    if (m & 02000) s[6] = (m & 0010) ? 's' : 'S';
    if (m & 01000) s[9] = (m & 0001) ? 't' : 'T';
    return s;
}

namespace {
std::string session_name(const CommandContext& ctx) {
    const std::string* u = ctx.env.get("USER");
    return (u && !u->empty()) ? *u : std::string("user");
}
}  // namespace

std::string user_name(const CommandContext& ctx, uint32_t uid) {
    if (uid == 0) return "root";
    if (uid == 1000) return session_name(ctx);
    return std::to_string(uid);
}

std::string group_name(const CommandContext& ctx, uint32_t gid) {
    if (gid == 0) return "root";
    if (gid == 1000) return session_name(ctx);
    return std::to_string(gid);
}

// ---------------------------------------------------------------------------------------------- time

namespace {
// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm, written out).
int64_t days_from_civil(int64_t y, int m, int d) {
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t mp = (m + 9) % 12;
    int64_t doy = (153 * mp + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

bool is_leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int days_in_month(int64_t y, int m) {
    static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m == 2 && is_leap(y)) return 29;
    return kDays[(m - 1) % 12];
}

constexpr std::array<const char*, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                 "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
constexpr std::array<const char*, 7> kDaysOfWeek = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
}  // namespace

Civil to_civil(int64_t t) {
    Civil c;
    int64_t days = floor_div(t, 86400);
    int64_t rem = t - days * 86400;
    c.hour = static_cast<int>(rem / 3600);
    c.min = static_cast<int>(rem % 3600 / 60);
    c.sec = static_cast<int>(rem % 60);
    c.wday = static_cast<int>(((days % 7) + 11) % 7);  // 1970-01-01 was a Thursday
    int64_t z = days + 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t y = yoe + era * 400;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    c.day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
    c.mon = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
    c.year = y + (c.mon <= 2);
    c.yday = static_cast<int>(days - days_from_civil(c.year, 1, 1));
    return c;
}

int64_t from_civil(int64_t year, int mon, int day, int hour, int min, int sec) {
    return days_from_civil(year, mon, day) * 86400 + hour * 3600 + min * 60 + sec;
}

namespace {
std::string pad(int64_t v, int width, char fill = '0') {
    std::string s = std::to_string(v < 0 ? -v : v);
    while (static_cast<int>(s.size()) < width) s.insert(s.begin(), fill);
    if (v < 0) s.insert(s.begin(), '-');
    return s;
}
}  // namespace

std::string format_time(std::string_view fmt, int64_t t) {
    Civil c = to_civil(t);
    std::string out;
    for (size_t i = 0; i < fmt.size(); ++i) {
        if (fmt[i] != '%' || i + 1 == fmt.size()) {
            out.push_back(fmt[i]);
            continue;
        }
        char f = fmt[++i];
        switch (f) {
            case 'Y': out += std::to_string(c.year); break;
            case 'y': out += pad(((c.year % 100) + 100) % 100, 2); break;
            case 'm': out += pad(c.mon, 2); break;
            case 'd': out += pad(c.day, 2); break;
            case 'e': out += pad(c.day, 2, ' '); break;
            case 'H': out += pad(c.hour, 2); break;
            case 'M': out += pad(c.min, 2); break;
            case 'S': out += pad(c.sec, 2); break;
            case 'b': case 'h': out += kMonths[c.mon - 1]; break;
            case 'a': out += kDaysOfWeek[c.wday]; break;
            case 'j': out += pad(c.yday + 1, 3); break;
            case 'F': out += std::to_string(c.year) + "-" + pad(c.mon, 2) + "-" + pad(c.day, 2); break;
            case 'T': out += pad(c.hour, 2) + ":" + pad(c.min, 2) + ":" + pad(c.sec, 2); break;
            case 'R': out += pad(c.hour, 2) + ":" + pad(c.min, 2); break;
            case 'D': out += pad(c.mon, 2) + "/" + pad(c.day, 2) + "/" + pad(((c.year % 100) + 100) % 100, 2); break;
            case 'z': out += "+0000"; break;
            case 'Z': out += "UTC"; break;
            case 's': out += std::to_string(t); break;
            case 'u': out += std::to_string(c.wday == 0 ? 7 : c.wday); break;
            case 'w': out += std::to_string(c.wday); break;
            case 'p': out += c.hour < 12 ? "AM" : "PM"; break;
            case 'I': out += pad(c.hour % 12 == 0 ? 12 : c.hour % 12, 2); break;
            case 'n': out.push_back('\n'); break;
            case 't': out.push_back('\t'); break;
            case '%': out.push_back('%'); break;
            default: out.push_back('%'); out.push_back(f); break;
        }
    }
    return out;
}

std::string stat_time(vfs::TimeSpec t) {
    return format_time("%F %T", t.sec) + "." + pad(t.nsec, 9) + " +0000";
}

// ---------------------------------------------------------------------------------------------- dates

namespace {

struct Tok {
    enum Kind { Num, Word, Sym } kind;
    std::string text;
    int64_t num = 0;
    int digits = 0;
};

std::vector<Tok> tokenize(std::string_view s, bool& ok) {
    std::vector<Tok> out;
    ok = true;
    size_t i = 0;
    while (i < s.size()) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        if (std::isspace(c) || c == ',') {
            ++i;
            continue;
        }
        if (std::isdigit(c)) {
            size_t j = i;
            int64_t v = 0;
            while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) {
                if (v > (INT64_MAX - 9) / 10) {
                    ok = false;
                    return out;
                }
                v = v * 10 + (s[j] - '0');
                ++j;
            }
            out.push_back({Tok::Num, std::string(s.substr(i, j - i)), v, static_cast<int>(j - i)});
            i = j;
            continue;
        }
        if (std::isalpha(c)) {
            size_t j = i;
            while (j < s.size() && (std::isalpha(static_cast<unsigned char>(s[j])) || s[j] == '.')) ++j;
            std::string w(s.substr(i, j - i));
            for (auto& ch : w) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
            if (!w.empty() && w.back() == '.') w.pop_back();
            out.push_back({Tok::Word, w, 0, 0});
            i = j;
            continue;
        }
        out.push_back({Tok::Sym, std::string(1, static_cast<char>(c)), 0, 0});
        ++i;
    }
    return out;
}

int month_of(const std::string& w) {
    static constexpr std::array<const char*, 12> kFull = {"january", "february", "march", "april", "may", "june",
                                                          "july", "august", "september", "october", "november",
                                                          "december"};
    for (int m = 0; m < 12; ++m) {
        std::string full = kFull[m];
        if (w == full || (w.size() >= 3 && full.compare(0, w.size(), w) == 0 && w.size() <= full.size()))
            return m + 1;
    }
    if (w == "sept") return 9;
    return 0;
}

int weekday_of(const std::string& w) {
    static constexpr std::array<const char*, 7> kFull = {"sunday", "monday", "tuesday", "wednesday", "thursday",
                                                         "friday", "saturday"};
    for (int d = 0; d < 7; ++d) {
        std::string full = kFull[d];
        if (w == full || (w.size() >= 3 && full.compare(0, w.size(), w) == 0)) return d;
    }
    if (w == "tues") return 2;
    if (w == "wednes") return 3;
    if (w == "thur" || w == "thurs") return 4;
    return -1;
}

// Seconds of a relative unit; months and years are counted separately.
bool unit_of(std::string w, int64_t& secs, int& months) {
    if (w.size() > 1 && w.back() == 's') w.pop_back();
    secs = 0;
    months = 0;
    if (w == "sec" || w == "second") secs = 1;
    else if (w == "min" || w == "minute") secs = 60;
    else if (w == "hour") secs = 3600;
    else if (w == "day") secs = 86400;
    else if (w == "week") secs = 7 * 86400;
    else if (w == "fortnight") secs = 14 * 86400;
    else if (w == "month") months = 1;
    else if (w == "year") months = 12;
    else return false;
    return true;
}

}  // namespace

std::optional<vfs::TimeSpec> parse_date(std::string_view text, vfs::TimeSpec now) {
    // @epoch[.frac]
    {
        size_t b = 0;
        while (b < text.size() && std::isspace(static_cast<unsigned char>(text[b]))) ++b;
        if (b < text.size() && text[b] == '@') {
            std::string_view rest = text.substr(b + 1);
            while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.back()))) rest.remove_suffix(1);
            bool neg = !rest.empty() && rest.front() == '-';
            if (neg || (!rest.empty() && rest.front() == '+')) rest.remove_prefix(1);
            size_t i = 0;
            int64_t sec = 0;
            while (i < rest.size() && std::isdigit(static_cast<unsigned char>(rest[i]))) {
                if (sec > INT64_MAX / 10 - 10) return std::nullopt;
                sec = sec * 10 + (rest[i++] - '0');
            }
            if (i == 0) return std::nullopt;
            int64_t nsec = 0;
            if (i < rest.size() && (rest[i] == '.' || rest[i] == ',')) {
                ++i;
                int64_t scale = 100000000;
                while (i < rest.size() && std::isdigit(static_cast<unsigned char>(rest[i]))) {
                    nsec += (rest[i++] - '0') * scale;
                    scale /= 10;
                }
            }
            if (i != rest.size()) return std::nullopt;
            if (neg) {
                sec = -sec;
                if (nsec) {
                    sec -= 1;
                    nsec = 1000000000 - nsec;
                }
            }
            return vfs::TimeSpec{sec, nsec};
        }
    }
    bool ok = true;
    std::vector<Tok> t = tokenize(text, ok);
    if (!ok) return std::nullopt;
    Civil base = to_civil(now.sec);
    std::optional<int64_t> year;
    int mon = 0, day = 0;
    bool have_date = false, have_time = false;
    int hour = 0, min = 0, sec = 0;
    int64_t nsec = 0;
    std::optional<int64_t> zone;  // seconds east of UTC
    int64_t rel_secs = 0;
    int64_t rel_months = 0;
    bool rel_day_keyword = false;  // today/yesterday/tomorrow keep the time of day
    int weekday = -1;
    int weekday_ord = 0;

    auto set_date = [&](int64_t y, int m, int d, bool has_year) -> bool {
        if (have_date || m < 1 || m > 12 || d < 1) return false;
        int64_t yy = has_year ? y : base.year;
        if (has_year && y < 100 && y >= 0) yy = y < 69 ? 2000 + y : 1900 + y;
        if (d > days_in_month(yy, m)) return false;
        year = yy;
        mon = m;
        day = d;
        have_date = true;
        return true;
    };

    size_t i = 0;
    auto peek_sym = [&](size_t k, char c) { return k < t.size() && t[k].kind == Tok::Sym && t[k].text[0] == c; };
    auto parse_time_at = [&](size_t& k) -> bool {
        // k at a number followed by ':'.
        if (have_time) return false;
        int64_t h = t[k].num;
        if (!peek_sym(k + 1, ':') || k + 2 >= t.size() || t[k + 2].kind != Tok::Num) return false;
        int64_t m = t[k + 2].num;
        k += 3;
        int64_t s = 0;
        if (peek_sym(k, ':') && k + 1 < t.size() && t[k + 1].kind == Tok::Num) {
            s = t[k + 1].num;
            k += 2;
            if ((peek_sym(k, '.') || peek_sym(k, ',')) && k + 1 < t.size() && t[k + 1].kind == Tok::Num) {
                std::string frac = t[k + 1].text.substr(0, 9);
                while (frac.size() < 9) frac.push_back('0');
                nsec = std::stoll(frac);
                k += 2;
            }
        }
        if (h > 23 || m > 59 || s > 60) return false;
        // am/pm
        if (k < t.size() && t[k].kind == Tok::Word && (t[k].text == "am" || t[k].text == "pm" ||
                                                      t[k].text == "a.m" || t[k].text == "p.m")) {
            if (h < 1 || h > 12) return false;
            bool pm = t[k].text[0] == 'p';
            h = h % 12 + (pm ? 12 : 0);
            ++k;
        }
        hour = static_cast<int>(h);
        min = static_cast<int>(m);
        sec = static_cast<int>(s);
        have_time = true;
        // A numeric zone right after the time: +0200, -05:00, +2.
        if (k < t.size() && (peek_sym(k, '+') || peek_sym(k, '-')) && k + 1 < t.size() && t[k + 1].kind == Tok::Num &&
            !(k + 2 < t.size() && t[k + 2].kind == Tok::Word)) {
            int sign = t[k].text[0] == '-' ? -1 : 1;
            int64_t v = t[k + 1].num;
            int digits = t[k + 1].digits;
            k += 2;
            int64_t zsec;
            if (peek_sym(k, ':') && k + 1 < t.size() && t[k + 1].kind == Tok::Num) {
                zsec = v * 3600 + t[k + 1].num * 60;
                k += 2;
            } else if (digits <= 2) {
                zsec = v * 3600;
            } else {
                zsec = (v / 100) * 3600 + (v % 100) * 60;
            }
            zone = sign * zsec;
        }
        return true;
    };

    while (i < t.size()) {
        const Tok& k = t[i];
        if (k.kind == Tok::Num) {
            // YYYY-MM-DD
            if (peek_sym(i + 1, '-') && i + 2 < t.size() && t[i + 2].kind == Tok::Num && peek_sym(i + 3, '-') &&
                i + 4 < t.size() && t[i + 4].kind == Tok::Num) {
                if (!set_date(k.num, static_cast<int>(t[i + 2].num), static_cast<int>(t[i + 4].num), true))
                    return std::nullopt;
                if (k.digits <= 2) year = k.num < 69 ? 2000 + k.num : 1900 + k.num;
                i += 5;
                // 'T' separator
                if (i < t.size() && t[i].kind == Tok::Word && t[i].text == "t" && i + 1 < t.size() &&
                    t[i + 1].kind == Tok::Num)
                    ++i;
                else if (i < t.size() && t[i].kind == Tok::Word && t[i].text.size() > 1 && t[i].text[0] == 't')
                    return std::nullopt;
                continue;
            }
            // MM/DD/YYYY or MM/DD
            if (peek_sym(i + 1, '/') && i + 2 < t.size() && t[i + 2].kind == Tok::Num) {
                int m = static_cast<int>(k.num), d = static_cast<int>(t[i + 2].num);
                if (peek_sym(i + 3, '/') && i + 4 < t.size() && t[i + 4].kind == Tok::Num) {
                    if (!set_date(t[i + 4].num, m, d, true)) return std::nullopt;
                    i += 5;
                } else {
                    if (!set_date(0, m, d, false)) return std::nullopt;
                    i += 3;
                }
                continue;
            }
            if (peek_sym(i + 1, ':')) {
                if (!parse_time_at(i)) return std::nullopt;
                continue;
            }
            // N unit [ago]
            if (i + 1 < t.size() && t[i + 1].kind == Tok::Word) {
                int64_t us;
                int um;
                if (unit_of(t[i + 1].text, us, um)) {
                    int64_t n = k.num;
                    i += 2;
                    if (i < t.size() && t[i].kind == Tok::Word && t[i].text == "ago") {
                        n = -n;
                        ++i;
                    }
                    rel_secs += n * us;
                    rel_months += n * um;
                    continue;
                }
                // DD Mon [YYYY]
                if (int m = month_of(t[i + 1].text); m != 0) {
                    size_t j = i + 2;
                    if (peek_sym(j, '-') && j + 1 < t.size() && t[j + 1].kind == Tok::Num) ++j;
                    if (j < t.size() && t[j].kind == Tok::Num && !peek_sym(j + 1, ':')) {
                        if (!set_date(t[j].num, m, static_cast<int>(k.num), true)) return std::nullopt;
                        i = j + 1;
                    } else {
                        if (!set_date(0, m, static_cast<int>(k.num), false)) return std::nullopt;
                        i += 2;
                    }
                    continue;
                }
            }
            // YYYYMMDD
            if (k.digits == 8 && !have_date) {
                if (!set_date(k.num / 10000, static_cast<int>(k.num / 100 % 100), static_cast<int>(k.num % 100), true))
                    return std::nullopt;
                ++i;
                continue;
            }
            // A bare year after a date without one, or a bare HHMM after a date.
            if (have_date && k.digits == 4 && !have_time) {
                hour = static_cast<int>(k.num / 100);
                min = static_cast<int>(k.num % 100);
                if (hour > 23 || min > 59) return std::nullopt;
                have_time = true;
                ++i;
                continue;
            }
            return std::nullopt;
        }
        if (k.kind == Tok::Sym) {
            if ((k.text == "+" || k.text == "-") && i + 2 < t.size() && t[i + 1].kind == Tok::Num &&
                t[i + 2].kind == Tok::Word) {
                int64_t us;
                int um;
                if (!unit_of(t[i + 2].text, us, um)) return std::nullopt;
                int64_t n = k.text == "-" ? -t[i + 1].num : t[i + 1].num;
                i += 3;
                if (i < t.size() && t[i].kind == Tok::Word && t[i].text == "ago") {
                    n = -n;
                    ++i;
                }
                rel_secs += n * us;
                rel_months += n * um;
                continue;
            }
            return std::nullopt;
        }
        // Words.
        const std::string& w = k.text;
        if (w == "now") {
            ++i;
            continue;
        }
        if (w == "today") {
            rel_day_keyword = true;
            ++i;
            continue;
        }
        if (w == "yesterday" || w == "tomorrow") {
            rel_secs += (w == "yesterday" ? -86400 : 86400);
            rel_day_keyword = true;
            ++i;
            continue;
        }
        if (w == "utc" || w == "gmt" || w == "z") {
            zone = 0;
            ++i;
            continue;
        }
        if (w == "last" || w == "next" || w == "this") {
            int n = w == "last" ? -1 : (w == "next" ? 1 : 0);
            if (i + 1 >= t.size() || t[i + 1].kind != Tok::Word) return std::nullopt;
            int64_t us;
            int um;
            if (unit_of(t[i + 1].text, us, um)) {
                rel_secs += n * us;
                rel_months += n * um;
                i += 2;
                continue;
            }
            int wd = weekday_of(t[i + 1].text);
            if (wd < 0 || weekday >= 0) return std::nullopt;
            weekday = wd;
            weekday_ord = n;
            i += 2;
            continue;
        }
        if (int m = month_of(w); m != 0) {
            // Mon DD [YYYY]
            if (i + 1 < t.size() && t[i + 1].kind == Tok::Num) {
                size_t j = i + 2;
                if (j < t.size() && t[j].kind == Tok::Num && !peek_sym(j + 1, ':')) {
                    if (!set_date(t[j].num, m, static_cast<int>(t[i + 1].num), true)) return std::nullopt;
                    i = j + 1;
                } else {
                    if (!set_date(0, m, static_cast<int>(t[i + 1].num), false)) return std::nullopt;
                    i += 2;
                }
                continue;
            }
            return std::nullopt;
        }
        if (int wd = weekday_of(w); wd >= 0) {
            if (weekday >= 0) return std::nullopt;
            weekday = wd;
            weekday_ord = 0;
            ++i;
            continue;
        }
        if (w == "ago") return std::nullopt;
        return std::nullopt;
    }

    int64_t y = have_date ? *year : base.year;
    int m = have_date ? mon : base.mon;
    int d = have_date ? day : base.day;
    int hh, mm, ss;
    int64_t ns;
    if (have_time) {
        hh = hour;
        mm = min;
        ss = sec;
        ns = nsec;
    } else if (have_date || weekday >= 0) {
        hh = mm = ss = 0;
        ns = 0;
    } else {
        hh = base.hour;
        mm = base.min;
        ss = base.sec;
        ns = now.nsec;
    }
    (void)rel_day_keyword;
    // Months first (clamping is not GNU's: it normalises overflowing days into the next month).
    if (rel_months != 0) {
        int64_t total = y * 12 + (m - 1) + rel_months;
        y = floor_div(total, 12);
        m = static_cast<int>(total - y * 12) + 1;
    }
    int64_t days = days_from_civil(y, m, 1) + (d - 1);
    if (weekday >= 0) {
        int cur = static_cast<int>(((days % 7) + 11) % 7);
        int delta = (weekday - cur + 7) % 7;
        if (weekday_ord < 0) delta = delta == 0 ? -7 : delta - 7;
        else if (weekday_ord > 0 && delta == 0) delta = 7;
        days += delta;
    }
    int64_t secs = days * 86400 + hh * 3600 + mm * 60 + ss + rel_secs;
    if (zone) secs -= *zone;
    return vfs::TimeSpec{secs, ns};
}

// ---------------------------------------------------------------------------------------------- sizes

std::string human_size(uint64_t amt, bool si) {
    const unsigned base = si ? 1000 : 1024;
    static constexpr char kPrefix[] = "KMGTPEZY";
    if (amt < base) return std::to_string(amt);
    int exponent = 0;
    unsigned tenths = 0, rounding = 0;
    do {
        unsigned r10 = static_cast<unsigned>(amt % base) * 10 + tenths;
        unsigned r2 = (r10 % base) * 2 + (rounding >> 1);
        amt /= base;
        tenths = r10 / base;
        rounding = r2 < base ? (r2 != 0) : 2 + (base < r2);
        ++exponent;
    } while (base <= amt && exponent < 8);
    int frac = -1;  // the digit after the point, when there is one
    if (amt < 10) {
        if (rounding > 0) {
            ++tenths;
            rounding = 0;
            if (tenths == 10) {
                ++amt;
                tenths = 0;
            }
        }
        if (amt < 10) {
            frac = static_cast<int>(tenths);
            tenths = rounding = 0;
        }
    }
    if (tenths + rounding > 0) {
        ++amt;
        if (amt == base && exponent < 8) {
            ++exponent;
            frac = 0;
            amt = 1;
        }
    }
    char prefix = kPrefix[exponent - 1];
    if (si && prefix == 'K') prefix = 'k';
    std::string out = std::to_string(amt);
    if (frac >= 0) {
        out.push_back('.');
        out.push_back(static_cast<char>('0' + frac));
    }
    out.push_back(prefix);
    return out;
}

// ---------------------------------------------------------------------------------------------- misc

bool copy_contents(CommandContext& ctx, vfs::FileHandle& in, vfs::FileHandle& out, std::string_view src,
                   std::string_view dst, std::string& error) {
    ChunkBuffer buf;
    while (true) {
        if (ctx.cancelled()) return false;
        auto n = in.read(buf.data(), buf.size());
        if (!n) {
            error = "error reading " + quote(src) + ": " + std::string(errstr(n.error()));
            return false;
        }
        if (*n == 0) return true;
        auto w = out.write(std::string_view(buf.data(), *n));
        if (!w) {
            error = "error writing " + quote(dst) + ": " + std::string(errstr(w.error()));
            return false;
        }
    }
}

std::string join(std::string_view dir, std::string_view name) {
    std::string out(dir);
    while (out.size() > 1 && out.back() == '/') out.pop_back();
    if (out.empty() || out.back() != '/') out.push_back('/');
    out.append(name);
    return out;
}

int print_help(CommandContext& ctx, std::string_view text) {
    (void)ctx.out.write(text);
    return 0;
}

std::optional<vfs::Mode> parse_mode(std::string_view spec, vfs::Mode old, bool is_dir, uint32_t umask) {
    if (spec.empty()) return std::nullopt;
    if (std::isdigit(static_cast<unsigned char>(spec[0]))) {
        vfs::Mode m = 0;
        for (char c : spec) {
            if (c < '0' || c > '7') return std::nullopt;
            m = m * 8 + static_cast<vfs::Mode>(c - '0');
            if (m > 07777) return std::nullopt;
        }
        // GNU: an octal mode with fewer than 5 digits keeps the setuid/setgid bits of a directory.
        if (is_dir && spec.size() < 5) m |= old & 06000;
        return m;
    }
    vfs::Mode mode = old & 07777;
    size_t i = 0;
    while (true) {
        // who
        vfs::Mode who = 0;
        bool who_given = false;
        for (; i < spec.size(); ++i) {
            char c = spec[i];
            if (c == 'u') who |= 04700;
            else if (c == 'g') who |= 02070;
            else if (c == 'o') who |= 01007;
            else if (c == 'a') who |= 07777;
            else break;
            who_given = true;
        }
        if (i >= spec.size()) return std::nullopt;
        if (spec[i] != '+' && spec[i] != '-' && spec[i] != '=') return std::nullopt;
        while (i < spec.size() && (spec[i] == '+' || spec[i] == '-' || spec[i] == '=')) {
            char op = spec[i++];
            vfs::Mode bits = 0;
            // perm: [rwxXst]* or one of [ugo]
            if (i < spec.size() && (spec[i] == 'u' || spec[i] == 'g' || spec[i] == 'o')) {
                vfs::Mode src = 0;
                if (spec[i] == 'u') src = (mode >> 6) & 7;
                else if (spec[i] == 'g') src = (mode >> 3) & 7;
                else src = mode & 7;
                bits = (src << 6) | (src << 3) | src;
                ++i;
            } else {
                for (; i < spec.size(); ++i) {
                    char c = spec[i];
                    if (c == 'r') bits |= 0444;
                    else if (c == 'w') bits |= 0222;
                    else if (c == 'x') bits |= 0111;
                    else if (c == 'X') {
                        if (is_dir || (mode & 0111)) bits |= 0111;
                    } else if (c == 's') bits |= 06000;
                    else if (c == 't') bits |= 01000;
                    else break;
                }
            }
            vfs::Mode mask = who_given ? who : (07777 & ~(umask & 0777));
            vfs::Mode affected = bits & mask;
            if (op == '+') {
                mode |= affected;
            } else if (op == '-') {
                mode &= ~affected;
            } else {
                vfs::Mode clear = who_given ? who : 07777;
                // '=' does not clear the setuid/setgid bits of a directory unless given.
                if (is_dir) clear &= ~06000u | (bits & 06000);
                mode = (mode & ~clear) | affected;
            }
        }
        if (i == spec.size()) break;
        if (spec[i] != ',') return std::nullopt;
        ++i;
    }
    return mode;
}

}  // namespace bashkit::utils::files
