// utils/files/common.hpp: quoting, human sizes, civil time and date parsing.
#include <gtest/gtest.h>

#include "utils/files/common.hpp"

namespace {

using namespace bashkit::utils::files;
using bashkit::vfs::TimeSpec;

TEST(FilesHelpers, Quote) {
    EXPECT_EQ(quote("a"), "'a'");
    EXPECT_EQ(quote("a b"), "'a b'");
    EXPECT_EQ(quote("it's"), "\"it's\"");
    EXPECT_EQ(quote("it's$x"), "'it'\\''s$x'");
    EXPECT_EQ(quote("a\nb"), "'a'$'\\n''b'");
    EXPECT_EQ(quote(""), "''");
    EXPECT_EQ(quote(std::string("\x01", 1)), "''$'\\001'");
    EXPECT_EQ(quotef("plain"), "plain");
    EXPECT_EQ(quotef("a b"), "'a b'");
    EXPECT_EQ(quotef("x:"), "'x:'");
    EXPECT_EQ(quotef("a#"), "a#");
    EXPECT_EQ(quotef("#a"), "'#a'");
    EXPECT_EQ(quotef("{"), "'{'");
    EXPECT_EQ(quotef("x{"), "x{");
}

TEST(FilesHelpers, HumanSize) {
    EXPECT_EQ(human_size(0), "0");
    EXPECT_EQ(human_size(1023), "1023");
    EXPECT_EQ(human_size(1024), "1.0K");
    EXPECT_EQ(human_size(4096), "4.0K");
    EXPECT_EQ(human_size(5000), "4.9K");
    EXPECT_EQ(human_size(10 * 1024 + 1), "11K");
    EXPECT_EQ(human_size(1024 * 1024 - 1), "1.0M");
    EXPECT_EQ(human_size(2000000), "2.0M");
    EXPECT_EQ(human_size(17ull << 30), "17G");
    EXPECT_EQ(human_size(1500, true), "1.5k");
}

TEST(FilesHelpers, Civil) {
    EXPECT_EQ(format_time("%F %T %a %b %e %j", 0), "1970-01-01 00:00:00 Thu Jan  1 001");
    EXPECT_EQ(format_time("%F %T", 1577934245), "2020-01-02 03:04:05");
    EXPECT_EQ(format_time("%F", 951782400), "2000-02-29");
    EXPECT_EQ(format_time("%F %T", -1), "1969-12-31 23:59:59");
    EXPECT_EQ(from_civil(2020, 1, 2, 3, 4, 5), 1577934245);
    EXPECT_EQ(stat_time({1577934245, 5}), "2020-01-02 03:04:05.000000005 +0000");
}

TEST(FilesHelpers, ParseDate) {
    const TimeSpec now{1796223118, 0};  // 2026-12-02 14:51:58 UTC, a Wednesday
    struct Row {
        const char* text;
        int64_t sec;
    };
    const Row rows[] = {
        {"2020-01-02", 1577923200},
        {"2020-01-02 03:04:05", 1577934245},
        {"2020-01-02T03:04:05", 1577934245},
        {"2020-01-02 03:04:05 +0200", 1577934245 - 7200},
        {"2020-01-02 03:04 UTC", 1577934240},
        {"@1700000000", 1700000000},
        {"Jan 2 2020", 1577923200},
        {"2 Jan 2020", 1577923200},
        {"01/02/2020", 1577923200},
        {"20200102", 1577923200},
        {"2020-01-02 + 1 day", 1577923200 + 86400},
        {"now", 1796223118},
        {"yesterday", 1796223118 - 86400},
        {"1 day ago", 1796223118 - 86400},
        {"2 hours ago", 1796223118 - 7200},
        {"+1 day", 1796223118 + 86400},
        {"next week", 1796223118 + 7 * 86400},
        {"12:00", from_civil(2026, 12, 2, 12, 0, 0)},
        {"last monday", from_civil(2026, 11, 30)},
        {"13/45/2020", -1},
    };
    for (const auto& r : rows) {
        auto t = parse_date(r.text, now);
        if (r.sec == -1) {
            EXPECT_FALSE(t.has_value()) << r.text;
            continue;
        }
        ASSERT_TRUE(t.has_value()) << r.text;
        EXPECT_EQ(t->sec, r.sec) << r.text;
    }
    EXPECT_FALSE(parse_date("garbage", now));
    EXPECT_FALSE(parse_date("2020-13-01", now));
    EXPECT_FALSE(parse_date("2020-02-30", now));
    EXPECT_FALSE(parse_date("@", now));
    EXPECT_FALSE(parse_date("99999999999999999999999", now));
    auto frac = parse_date("2020-01-02 03:04:05.25", now);
    ASSERT_TRUE(frac);
    EXPECT_EQ(frac->nsec, 250000000);
}

TEST(FilesHelpers, ParseMode) {
    EXPECT_EQ(parse_mode("644", 0, false, 022), 0644u);
    EXPECT_EQ(parse_mode("u+x", 0644, false, 022), 0744u);
    EXPECT_EQ(parse_mode("go-r", 0644, false, 022), 0600u);
    EXPECT_EQ(parse_mode("=rw", 0777, false, 022), 0644u);
    EXPECT_EQ(parse_mode("a+X", 0600, true, 022), 0711u);
    EXPECT_EQ(parse_mode("a+X", 0600, false, 022), 0600u);
    EXPECT_EQ(parse_mode("o=u", 0640, false, 022), 0646u);
    EXPECT_EQ(parse_mode("+t", 0755, true, 022), 01755u);
    EXPECT_EQ(parse_mode("g+s", 0755, true, 022), 02755u);
    EXPECT_FALSE(parse_mode("999", 0, false, 022));
    EXPECT_FALSE(parse_mode("u+q", 0, false, 022));
    EXPECT_FALSE(parse_mode("", 0, false, 022));
    EXPECT_FALSE(parse_mode("17777", 0, false, 022));
}

}  // namespace
