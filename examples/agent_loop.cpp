// A minimal agent loop over the sandbox tools API, with the model replaced by a scripted list of tool calls.
//
// A real agent sends `tools` (their JSON Schemas) to its model, receives tool calls {name, arguments}, runs
// each with call_tool() and sends the JSON result back. Here the "model" is the list below. Bad arguments
// come back as {"ok": false, "error": ...} results, as a model would see them; nothing throws.
//
//   agent_loop            run the script; exit status 0 when every call meant to succeed did
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sandbox/bashkit_sandbox.hpp"

using nlohmann::json;
namespace sb = bashkit::sandbox;

struct ToolCall {
    std::string name;
    json arguments;
    bool expect_ok = true;
};

int main() {
    // An in-memory session (nothing written to disk), no network, the full tool set.
    sb::BashkitSandbox sandbox({.instance_id = "example", .ephemeral = true});
    sb::SandboxSession session = sandbox.open("agent-loop");

    std::cout << "tools offered to the model:\n";
    for (const auto& t : session.tools()) std::cout << "  " << t.to_json().dump() << "\n";

    const std::vector<ToolCall> script = {
        {"write_file", {{"path", "app/greet.sh"}, {"content", "#!/bin/bash\nname=${1:-world}\necho \"hello, $name\"\n"}}},
        {"bash", {{"command", "bash app/greet.sh agent"}}},
        {"edit_file", {{"path", "app/greet.sh"}, {"old_string", "hello"}, {"new_string", "goodbye"}}},
        {"bash", {{"command", "bash app/greet.sh && wc -l app/greet.sh"}}},
        {"list_files", {{"recursive", true}}},
        {"search_files", {{"pattern", "name"}, {"glob", "*.sh"}}},
        {"read_file", {{"path", "app/greet.sh"}, {"offset", 2}, {"limit", 1}}},
        {"bash", {{"command", "for i in 1 2 3; do echo $i; done | paste -sd+ | bc"}}},
        {"bash", {{"command", "while :; do :; done"}, {"timeout_seconds", 0.5}}},  // stopped: exit_code 124
        {"read_file", {{"path", "missing.txt"}}, false},                            // an error result
        {"bash", {{"cmd", "ls"}}, false},                                           // bad arguments
    };

    int failures = 0;
    for (const auto& call : script) {
        json result = session.call_tool(call.name, call.arguments);
        std::cout << "> " << call.name << " " << call.arguments.dump() << "\n< " << result.dump() << "\n";
        if (result["ok"].get<bool>() != call.expect_ok) ++failures;
    }
    session.close();
    std::cout << (failures ? "FAILED: " + std::to_string(failures) + " unexpected results\n" : "all tool calls behaved as expected\n");
    return failures ? 1 : 0;
}
