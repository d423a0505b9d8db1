// The check every sandbox type with process tools passes (sandbox_test.cpp, mistral_test.cpp).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "sandbox/sandbox.hpp"

namespace bashkit::sandbox {

// The process tools of a session, whichever type runs them: stdin, output, exit code, kill, bad ids.
inline void check_process_tools(SandboxSession& s) {
    std::vector<std::string> names;
    for (const auto& t : s.tools()) names.push_back(t.name);
    ASSERT_EQ(names.size(), 10u);
    EXPECT_EQ(std::vector<std::string>(names.begin() + 6, names.end()),
              (std::vector<std::string>{"start_process", "read_process_output", "write_process_input", "kill_process"}));
    nlohmann::json r = s.call_tool("start_process", {{"command", "while read l; do echo \"got $l\"; done; echo done >&2; exit 3"}});
    ASSERT_EQ(r["ok"], true) << r.dump();
    int id = r["process_id"];
    EXPECT_EQ(s.call_tool("write_process_input", {{"process_id", id}, {"input", "a\nb\n"}})["bytes_written"], 4);
    EXPECT_EQ(s.call_tool("write_process_input", {{"process_id", id}, {"input", ""}, {"close_stdin", true}})["ok"], true);
    std::string out, err;
    nlohmann::json o;
    for (int i = 0; i < 100; ++i) {
        o = s.call_tool("read_process_output", {{"process_id", id}});
        out += o["stdout"].get<std::string>();
        err += o["stderr"].get<std::string>();
        if (!o["running"].get<bool>()) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_EQ(out, "got a\ngot b\n");
    EXPECT_EQ(err, "done\n");
    EXPECT_EQ(o["exit_code"], 3);
    // A long-running one, killed.
    int id2 = s.call_tool("start_process", {{"command", "sleep 60"}})["process_id"];
    EXPECT_EQ(s.call_tool("read_process_output", {{"process_id", id2}})["exit_code"], nullptr);
    EXPECT_EQ(s.call_tool("kill_process", {{"process_id", id2}}), nlohmann::json({{"ok", true}, {"process_id", id2}, {"exit_code", 137}}));
    EXPECT_EQ(s.call_tool("kill_process", {{"process_id", 99}})["error"], "kill_process: no process 99");
    // Ids beyond a small int name no process (4294967297 must not reach process 1).
    EXPECT_EQ(s.call_tool("read_process_output", {{"process_id", 4294967297LL}})["error"],
              "read_process_output: no process 4294967297");
    EXPECT_EQ(s.call_tool("read_process_output", {{"process_id", -1}})["error"], "read_process_output: no process -1");
    EXPECT_EQ(s.call_tool("read_process_output", {{"process_id", 18446744073709551615ULL}})["error"],
              "read_process_output: no process 18446744073709551615");
    EXPECT_EQ(s.call_tool("write_process_input", {{"process_id", id}, {"input", "x"}})["error"],
              "write_process_input: the input of process 1 is closed");
    // The files are the session's: what a process writes, the session reads.
    int id3 = s.call_tool("start_process", {{"command", "echo from-bg > bg.txt"}})["process_id"];
    for (int i = 0; i < 100 && s.call_tool("read_process_output", {{"process_id", id3}})["running"] == true; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_EQ(s.execute("cat bg.txt").stdout_, "from-bg\n");
}

}  // namespace bashkit::sandbox
