// The pre-run analysis against table cases (tests/analyze/cases/*.txt), plus hostile inputs.
//
// Case file format:
//   - lines outside a case are ignored (comments, blank lines);
//   - "=== NAME" starts a case (NAME is [A-Za-z0-9_]+, unique within its file);
//   - the following lines, up to a line "--- expect", are the script (joined with "\n", plus a final "\n");
//   - the lines after "--- expect", up to a blank line, the next "===" or the end, are the expected JSON.
// The comparison is structural: every key of an expected object must be in the actual object with a
// matching value; arrays must have the same length and matching elements; other values must be equal.
// Keys an expectation leaves out are not checked, so a case states what it is about and nothing else.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "interp/builtin_names.hpp"
#include "interp/syntax/analyze.hpp"

namespace {

namespace fs = std::filesystem;
namespace sx = bashkit::syntax;
using nlohmann::json;

struct Case {
    std::string file, name, script, expect;
    int line = 0;
};

std::vector<Case> load_cases() {
    std::vector<Case> out;
    fs::path dir = fs::path(BASHKIT_SOURCE_DIR) / "tests" / "analyze" / "cases";
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".txt") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& p : files) {
        std::ifstream in(p);
        std::string line;
        int lineno = 0;
        enum { Outside, Script, Expect } state = Outside;
        Case cur;
        auto flush = [&] {
            if (state != Outside) out.push_back(cur);
            state = Outside;
        };
        while (std::getline(in, line)) {
            ++lineno;
            if (line.rfind("=== ", 0) == 0) {
                flush();
                cur = Case{p.stem().string(), line.substr(4), "", "", lineno};
                state = Script;
            } else if (state == Script && line == "--- expect") {
                state = Expect;
            } else if (state == Script) {
                cur.script += line + "\n";
            } else if (state == Expect) {
                if (line.empty()) flush();
                else cur.expect += line + "\n";
            }
        }
        flush();
    }
    return out;
}

// Empty when actual matches expected (see the file comment); else where and how it differs.
std::string json_mismatch(const json& expected, const json& actual, const std::string& path) {
    if (expected.is_object()) {
        if (!actual.is_object()) return path + ": expected an object, got " + actual.dump();
        for (auto it = expected.begin(); it != expected.end(); ++it) {
            if (!actual.contains(it.key())) return path + "." + it.key() + ": missing in " + actual.dump();
            std::string m = json_mismatch(it.value(), actual.at(it.key()), path + "." + it.key());
            if (!m.empty()) return m;
        }
        return "";
    }
    if (expected.is_array()) {
        if (!actual.is_array() || actual.size() != expected.size())
            return path + ": expected " + expected.dump() + ", got " + actual.dump();
        for (size_t i = 0; i < expected.size(); ++i) {
            std::string m = json_mismatch(expected[i], actual[i], path + "[" + std::to_string(i) + "]");
            if (!m.empty()) return m;
        }
        return "";
    }
    if (expected != actual) return path + ": expected " + expected.dump() + ", got " + actual.dump();
    return "";
}

sx::AnalyzeOptions options() {
    sx::AnalyzeOptions o;
    o.is_builtin = bashkit::interp::is_shell_builtin;
    return o;
}

json analyze_json(const std::string& script, const sx::AnalyzeOptions& o = options()) {
    return json::parse(sx::to_json(sx::analyze(script, o)));
}

class AnalyzeTable : public ::testing::TestWithParam<Case> {};

TEST_P(AnalyzeTable, Matches) {
    const Case& c = GetParam();
    SCOPED_TRACE(c.file + ".txt:" + std::to_string(c.line) + " " + c.name);
    json expected = json::parse(c.expect, nullptr, false);
    ASSERT_FALSE(expected.is_discarded()) << "bad expected JSON:\n" << c.expect;
    std::string out = sx::to_json(sx::analyze(c.script, options()));
    json actual = json::parse(out, nullptr, false);
    ASSERT_FALSE(actual.is_discarded()) << "to_json wrote invalid JSON: " << out;
    std::string m = json_mismatch(expected, actual, "$");
    EXPECT_TRUE(m.empty()) << m << "\nscript:\n" << c.script << "actual: " << out;
}

INSTANTIATE_TEST_SUITE_P(Cases, AnalyzeTable, ::testing::ValuesIn(load_cases()),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.file + "_" + i.param.name; });

TEST(AnalyzeCases, AtLeastFiftyAndUniqueNames) {
    auto cases = load_cases();
    EXPECT_GE(cases.size(), 50u);
    std::vector<std::string> names;
    for (const auto& c : cases) names.push_back(c.file + "_" + c.name);
    std::sort(names.begin(), names.end());
    EXPECT_EQ(std::adjacent_find(names.begin(), names.end()), names.end());
}

// ------------------------------------------------------------------------------------ the JSON shape

TEST(AnalyzeJson, EveryTopLevelFieldIsPresent) {
    json j = analyze_json("true\n");
    for (const char* k : {"ok", "errors", "commands", "command_names", "functions", "writes", "reads", "sources",
                          "network", "dynamic", "uses_network", "uses_eval", "uses_source", "has_dynamic",
                          "truncated"})
        EXPECT_TRUE(j.contains(k)) << k;
}

TEST(AnalyzeJson, BytesThatAreNotUtf8StayValidJson) {
    std::string s = "echo $'\\xff\\x01' > \"\xfe\"\n";
    std::string out = sx::to_json(sx::analyze(s));
    json j = json::parse(out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << out;
    EXPECT_NE(out.find("\\u00fe"), std::string::npos);
    EXPECT_NE(out.find("\\u00ff\\u0001"), std::string::npos);
}

TEST(AnalyzeApi, ParsedTreeOverloadAgreesWithTheStringOne) {
    std::string s = "f() { curl https://a.org > out; }; f; $x\n";
    auto r = sx::parse(s);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(sx::to_json(sx::analyze(*r.script, options())), sx::to_json(sx::analyze(s, options())));
}

TEST(AnalyzeApi, WithoutABuiltinTableEveryCommandIsACommand) {
    json j = analyze_json("cd /tmp; ls\n", sx::AnalyzeOptions{});
    EXPECT_EQ(j["commands"][0]["kind"], "command");
    EXPECT_EQ(j["commands"][1]["kind"], "command");
}

// ------------------------------------------------------------------------------------ hostile input

TEST(AnalyzeHostile, DeepNestingIsAParseErrorNotACrash) {
    std::string s;
    for (int i = 0; i < 5000; ++i) s += "$(";
    s += "rm -rf /";
    for (int i = 0; i < 5000; ++i) s += ")";
    json j = analyze_json("echo " + s + "\n");
    EXPECT_EQ(j["ok"], false);
    ASSERT_EQ(j["errors"].size(), 1u);
    EXPECT_EQ(j["errors"][0]["context"], "script");
}

TEST(AnalyzeHostile, NestingJustUnderTheParserLimitIsWalked) {
    std::string s;
    for (int i = 0; i < 100; ++i) s += "( { ";
    s += "rm -rf /x";
    for (int i = 0; i < 100; ++i) s += "; } )";
    json j = analyze_json(s + "\n");
    ASSERT_EQ(j["ok"], true) << j["errors"].dump();
    ASSERT_EQ(j["commands"].size(), 1u);
    EXPECT_EQ(j["writes"][0]["path"], "/x");
}

TEST(AnalyzeHostile, NestedBashCStopsAtTheLimit) {
    // bash -c 'bash -c '\''...'\''' eight levels deep (the quoting grows 4x a level), followed up to max_nested.
    std::string s = "touch /deep";
    for (int i = 0; i < 8; ++i) {
        std::string q;
        for (char c : s) {
            if (c == '\'') q += "'\\''";
            else q += c;
        }
        s = "bash -c '" + q + "'";
    }
    sx::AnalyzeOptions o = options();
    o.max_nested = 5;
    json j = analyze_json(s + "\n", o);
    EXPECT_EQ(j["ok"], true);
    EXPECT_EQ(j["commands"].size(), 6u);  // the outer bash and five nested ones
    ASSERT_EQ(j["dynamic"].size(), 1u);
    EXPECT_EQ(j["dynamic"][0]["reason"], "nesting_limit");
    EXPECT_LE(j["dynamic"][0]["text"].get<std::string>().size(), 515u);
    EXPECT_TRUE(j["writes"].empty());
}

TEST(AnalyzeHostile, HugeScriptIsBoundedAndFast) {
    std::string s;
    for (int i = 0; i < 60000; ++i) s += "echo " + std::to_string(i) + " > f" + std::to_string(i) + "\n";
    sx::AnalyzeOptions o = options();
    o.max_entries = 1000;
    auto t0 = std::chrono::steady_clock::now();
    sx::Analysis a = sx::analyze(s, o);
    std::string out = sx::to_json(a);
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_TRUE(a.ok);
    EXPECT_TRUE(a.truncated);
    EXPECT_EQ(a.commands.size(), 1000u);
    EXPECT_EQ(a.writes.size(), 1000u);
    EXPECT_EQ(a.command_names, std::vector<std::string>{"echo"});
    EXPECT_LT(ms, 20000);
    EXPECT_FALSE(json::parse(out, nullptr, false).is_discarded());
}

TEST(AnalyzeHostile, HugeDynamicTextIsClipped) {
    std::string big(100000, 'a');
    json j = analyze_json("eval \"$x" + big + "\"\n");
    ASSERT_EQ(j["dynamic"].size(), 1u);
    EXPECT_LE(j["dynamic"][0]["text"].get<std::string>().size(), 515u);
}

TEST(AnalyzeHostile, EvalOfEvalOfEvalIsBounded) {
    // Each level doubles the quoting; the walk stays linear in the input per level.
    std::string s = "eval eval eval eval eval eval eval eval eval eval eval eval rm /z";
    json j = analyze_json(s + "\n");
    EXPECT_EQ(j["ok"], true);
    EXPECT_EQ(j["uses_eval"], true);
    bool limit = false;
    for (const auto& d : j["dynamic"]) limit = limit || d["reason"] == "nesting_limit";
    EXPECT_TRUE(limit);
}

}  // namespace
