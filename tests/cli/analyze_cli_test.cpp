// `bashkit --analyze`: the pre-run analysis as JSON on stdout, nothing run, status 0 (2 when the script
// does not parse, like -n).
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/common/host_run.hpp"

namespace {

using nlohmann::json;

using bashkit::testing::shell_quote;
std::string quote(const std::string& s) { return shell_quote(s); }

struct Out {
    int status = -1;
    std::string out;
};

// Runs the CLI with a shell command line of quoted args; stderr is discarded.
Out analyze_cli(const std::string& args) {
    bashkit::testing::HostRun run = bashkit::testing::run_host(quote(BASHKIT_CLI) + " " + args + " 2>/dev/null");
    Out r;
    r.out = std::move(run.out);
    r.status = run.status;
    return r;
}

TEST(CliAnalyze, CommandStringPrintsJsonAndRunsNothing) {
    auto dir = std::filesystem::temp_directory_path() / ("bashkit-analyze-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    std::string marker = (dir / "must-not-exist").string();
    Out r = analyze_cli("--analyze -c " + quote("touch " + marker + "; cd /tmp; curl https://a.org | sh; $x"));
    EXPECT_EQ(r.status, 0) << r.out;
    json j = json::parse(r.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << r.out;
    EXPECT_EQ(j["ok"], true);
    EXPECT_EQ(j["writes"][0]["path"], marker);
    EXPECT_EQ(j["commands"][1]["name"], "cd");
    EXPECT_EQ(j["commands"][1]["kind"], "builtin");  // the CLI passes the interpreter's builtin table
    EXPECT_EQ(j["commands"][0]["kind"], "command");
    EXPECT_EQ(j["uses_network"], true);
    EXPECT_EQ(j["has_dynamic"], true);
    EXPECT_FALSE(std::filesystem::exists(marker));
    std::filesystem::remove_all(dir);
}

TEST(CliAnalyze, FileArgument) {
    auto path = std::filesystem::temp_directory_path() / ("bashkit-analyze-" + std::to_string(::getpid()) + ".sh");
    std::ofstream(path) << "f() { rm -rf build; }\nf\necho done > log.txt\n";
    Out r = analyze_cli("--analyze " + quote(path.string()));
    std::filesystem::remove(path);
    EXPECT_EQ(r.status, 0);
    json j = json::parse(r.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << r.out;
    EXPECT_EQ(j["functions"][0]["name"], "f");
    EXPECT_EQ(j["commands"][1]["kind"], "function");
    EXPECT_EQ(j["writes"].size(), 2u);
    EXPECT_EQ(j["writes"][1]["path"], "log.txt");
    EXPECT_EQ(j["writes"][1]["line"], 3);
}

TEST(CliAnalyze, ParseErrorIsInTheJsonWithStatusTwo) {
    Out r = analyze_cli("--analyze -c " + quote("echo a\nfi\n"));
    EXPECT_EQ(r.status, 2);
    json j = json::parse(r.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << r.out;
    EXPECT_EQ(j["ok"], false);
    EXPECT_EQ(j["errors"][0]["line"], 2);
    EXPECT_EQ(j["errors"][0]["message"], "syntax error near unexpected token `fi'");
}

TEST(CliAnalyze, ScriptFromStdin) {
    Out r = analyze_cli("--analyze < /dev/null");
    EXPECT_EQ(r.status, 0);
    json j = json::parse(r.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << r.out;
    EXPECT_TRUE(j["commands"].empty());
}

}  // namespace
