// The shared option parser (utils/common/args.hpp): glibc getopt_long behaviour, table-driven.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "utils/common/args.hpp"

namespace {

using namespace bashkit::utils;

enum : int { kLongOnly = kOptFirstLongOnly, kSize, kSi, kSort };

constexpr OptionSpec kSpecs[] = {
    {'a', 'a', "all"},
    {'A', 'A', "almost-all"},
    {'n', 'n', "lines", ArgKind::required},
    {'c', 'c', "color", ArgKind::optional},
    {'v', 'v', "verbose"},
    {kSize, 's', "size"},
    {kSi, 0, "si"},
    {kSort, 0, "sort", ArgKind::required},
    {kLongOnly, 0, "long-only"},
    {'v', 0, "verbose-alias"},
    {kOptHelp, 0, "help"},
};

// Renders a parse as "id[=value] ... | operands | error" for compact expectations.
std::string render(const std::vector<std::string>& argv, ParseConfig cfg = {}) {
    std::vector<std::string> full = {"prog"};
    full.insert(full.end(), argv.begin(), argv.end());
    ParsedArgs p = parse_args(full, kSpecs, cfg);
    std::string out;
    for (const auto& o : p.options) {
        if (!out.empty()) out += ' ';
        if (o.id == kOptHelp) out += "help";
        else out += o.id < 256 ? std::string(1, static_cast<char>(o.id)) : std::to_string(o.id - kOptFirstLongOnly);
        if (o.has_value) out += "=" + o.value;
    }
    out += " |";
    for (const auto& op : p.operands) out += " " + op;
    if (!p.ok()) out += " | " + p.error;
    return out;
}

struct Row {
    std::vector<std::string> argv;
    std::string expected;
};

TEST(Args, Table) {
    const std::vector<Row> rows = {
        {{}, " |"},
        {{"-a"}, "a |"},
        {{"-av"}, "a v |"},
        {{"-n5"}, "n=5 |"},
        {{"-n", "5"}, "n=5 |"},
        {{"-vn5", "x"}, "v n=5 | x"},
        {{"-vn", "5", "x"}, "v n=5 | x"},
        {{"--lines=7"}, "n=7 |"},
        {{"--lines", "7"}, "n=7 |"},
        {{"--li=7"}, "n=7 |"},
        {{"--all", "--almost-all"}, "a A |"},
        {{"--al"}, " | | option '--al' is ambiguous; possibilities: '--all' '--almost-all'"},
        {{"--al=3"}, " | | option '--al=3' is ambiguous; possibilities: '--all' '--almost-all'"},
        {{"--s"}, " | | option '--s' is ambiguous; possibilities: '--size' '--si' '--sort'"},
        {{"--si"}, "2 |"},
        {{"--verbose"}, "v |"},
        {{"--verb"}, "v |"},  // both prefixes mean -v: not ambiguous
        {{"--long"}, "0 |"},
        {{"-c"}, "c |"},
        {{"-cauto"}, "c=auto |"},
        {{"-c", "auto"}, "c | auto"},
        {{"--color"}, "c |"},
        {{"--color=never"}, "c=never |"},
        {{"--color", "never"}, "c | never"},
        {{"-z"}, " | | invalid option -- 'z'"},
        {{"-az"}, "a | | invalid option -- 'z'"},
        {{"-n"}, " | | option requires an argument -- 'n'"},
        {{"--lines"}, " | | option '--lines' requires an argument"},
        {{"--all=1"}, " | | option '--all' doesn't allow an argument"},
        {{"--bogus"}, " | | unrecognized option '--bogus'"},
        {{"--bogus=1"}, " | | unrecognized option '--bogus=1'"},
        {{"x", "-a", "y"}, "a | x y"},
        {{"--", "-a"}, " | -a"},
        {{"-a", "--", "-v", "--"}, "a | -v --"},
        {{"-"}, " | -"},
        {{"-", "-a"}, "a | -"},
        {{"--help", "-z"}, "help | | invalid option -- 'z'"},
    };
    for (const auto& r : rows) {
        std::string joined;
        for (const auto& a : r.argv) joined += "[" + a + "]";
        EXPECT_EQ(render(r.argv), r.expected) << joined;
    }
}

TEST(Args, StopAtOperand) {
    ParseConfig cfg;
    cfg.mode = ParseMode::StopAtOperand;
    EXPECT_EQ(render({"-a", "cmd", "-v"}, cfg), "a | cmd -v");
    EXPECT_EQ(render({"cmd", "-a"}, cfg), " | cmd -a");
}

TEST(Args, DigitOption) {
    ParseConfig cfg;
    cfg.digit_option = 'n';
    EXPECT_EQ(render({"-5", "f"}, cfg), "n=5 | f");
    EXPECT_EQ(render({"-12", "-v"}, cfg), "n=12 v |");
    EXPECT_EQ(render({"-5x"}, cfg), " | | invalid option -- '5'");
}

TEST(Args, HasAndLast) {
    std::vector<std::string> argv = {"prog", "-n1", "-v", "-n2"};
    ParsedArgs p = parse_args(argv, kSpecs);
    ASSERT_TRUE(p.ok());
    EXPECT_TRUE(p.has('v'));
    EXPECT_FALSE(p.has('a'));
    ASSERT_NE(p.last('n'), nullptr);
    EXPECT_EQ(p.last('n')->value, "2");
    EXPECT_EQ(p.last('n')->spelled, "-n");
    EXPECT_EQ(p.last('a'), nullptr);
}

}  // namespace
