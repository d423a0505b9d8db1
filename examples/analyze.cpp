// Pre-run analysis: before running a script an agent wrote, find what it may do and ask a person
// whether that is fine. Nothing is run; analyze() only reads the syntax tree.
//
//   example_analyze            analyses a built-in script and prints a permission prompt and the JSON
//
// Exits 1 if the analysis does not find what the script plainly does (so CI notices a regression).
#include <cstdio>
#include <string>

#include "interp/builtin_names.hpp"
#include "interp/syntax/analyze.hpp"

namespace sx = bashkit::syntax;

int main() {
    const std::string script = R"(#!/bin/bash
set -e
fetch() { curl -fsSL "https://api.example.com/items?page=$1"; }
mkdir -p out
for p in 1 2 3; do
    fetch "$p" | jq -r '.items[].name' >> out/names.txt
done
sort -u out/names.txt -o out/names.txt
eval "$POST_HOOK"
)";

    sx::AnalyzeOptions options;
    options.is_builtin = bashkit::interp::is_shell_builtin;  // tells `set` and `eval` from utilities
    sx::Analysis a = sx::analyze(script, options);
    if (!a.ok) {
        std::printf("the script does not parse: line %u: %s\n", a.errors[0].pos.line, a.errors[0].message.c_str());
        return 1;
    }

    // A prompt a person can answer.
    std::printf("This script wants to run:");
    for (const sx::CommandUse& c : a.commands)
        if (c.kind == "command") std::printf(" %s%s", c.name.c_str(), c.dynamic ? " [known at run time]" : "");
    std::printf("\n");
    for (const sx::FileUse& w : a.writes)
        std::printf("  writes %s%s (line %u, %s)\n", w.path.c_str(), w.dynamic ? " [known at run time]" : "",
                    w.pos.line, w.via.c_str());
    for (const sx::NetworkUse& n : a.network) {
        std::printf("  uses the network: %s", n.command.c_str());
        for (const std::string& u : n.urls) std::printf(" %s", u.c_str());
        std::printf(" (line %u)\n", n.pos.line);
    }
    for (const sx::DynamicUse& d : a.dynamic)
        std::printf("  cannot be checked before it runs: %s `%s` (line %u)\n", d.reason.c_str(), d.text.c_str(),
                    d.pos.line);
    for (const sx::FunctionDefinition& f : a.functions)
        std::printf("  defines the function %s (line %u)\n", f.name.c_str(), f.pos.line);
    std::printf("Allow? [y/N]\n\n%s\n", sx::to_json(a).c_str());

    bool ok = a.commands.size() == 7 && a.commands[0].kind == "builtin" && a.commands[3].kind == "function" &&
              a.uses_network && a.uses_eval && !a.dynamic.empty() && !a.writes.empty() &&
              a.writes.front().path == "out" && a.functions.size() == 1 && a.functions[0].name == "fetch";
    return ok ? 0 : 1;
}
