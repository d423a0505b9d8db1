// Custom commands: the embedder's own command, registered on a sandbox (for every session) and on one
// session, used like any utility - in a pipeline, under xargs, find -exec and timeout, with redirections.
//
//   custom_command        run the demo; exit status 0 when every command gave what it should
#include <iostream>
#include <string>

#include "sandbox/bashkit_sandbox.hpp"

namespace sb = bashkit::sandbox;
using bashkit::interp::CommandContext;

// ticket ID...: looks tickets up in the embedder's own data (here a fixed table) - what an agent's host
// application would expose without giving the script the database.
int ticket(CommandContext& ctx) {
    if (ctx.argv.size() < 2) {
        ctx.error("usage: ticket ID...");
        return 2;
    }
    int status = 0;
    for (size_t i = 1; i < ctx.argv.size(); ++i) {
        const std::string& id = ctx.argv[i];
        if (id == "T-1") (void)ctx.out.write("T-1 open    login page broken\n");
        else if (id == "T-2") (void)ctx.out.write("T-2 closed  typo in README\n");
        else {
            ctx.error(id + ": no such ticket");
            status = 1;
        }
    }
    return status;
}

// rot13: a filter, reading stdin in chunks (and stopping when cancelled).
int rot13(CommandContext& ctx) {
    char buf[4096];
    for (;;) {
        if (ctx.cancelled()) return 130;
        auto r = ctx.in.read(buf, sizeof buf);
        if (r.n == 0) return r.err ? 1 : 0;
        std::string s(buf, r.n);
        for (char& c : s) {
            if (c >= 'a' && c <= 'z') c = static_cast<char>('a' + (c - 'a' + 13) % 26);
            else if (c >= 'A' && c <= 'Z') c = static_cast<char>('A' + (c - 'A' + 13) % 26);
        }
        if (!ctx.out.write(s).ok()) return 141;
    }
}

int main() {
    sb::BashkitSandboxOptions options;
    options.ephemeral = true;
    options.commands.push_back({"ticket", "ticket ID... : show tickets of the tracker", ticket});
    sb::BashkitSandbox sandbox(std::move(options));
    sb::SandboxSession session = sandbox.open("custom-commands");
    session.add_command({"rot13", "rot13 : rotate letters by 13 (stdin to stdout)", rot13});

    struct Step {
        std::string command;
        std::string expected;
    };
    const Step steps[] = {
        {"ticket T-1 T-2 | grep open", "T-1 open    login page broken\n"},
        {"printf 'T-2\\nT-1\\n' | xargs -n1 ticket | sort | cut -c1-3", "T-1\nT-2\n"},
        {"mkdir -p q && touch q/T-1 && cd q && find . -type f -exec basename {} \\; | xargs ticket | rot13",
         "G-1 bcra    ybtva cntr oebxra\n"},
        {"timeout 5 ticket T-2 > saved.txt && rot13 < saved.txt | rot13", "T-2 closed  typo in README\n"},
        {"ticket T-9 2>&1; echo \"status $?\"", "ticket: T-9: no such ticket\nstatus 1\n"},
        {"help rot13", "rot13: rot13 : rotate letters by 13 (stdin to stdout)\n"},
    };
    int failures = 0;
    for (const Step& s : steps) {
        sb::SandboxExecutionResult r = session.execute(s.command);
        std::cout << "$ " << s.command << "\n" << r.stdout_ << r.stderr_;
        if (r.stdout_ != s.expected) {
            std::cout << "  !! expected: " << s.expected;
            ++failures;
        }
    }
    // Names of builtins and utilities are refused unless replacing is asked for.
    try {
        session.add_command({"grep", "", rot13});
        ++failures;
    } catch (const std::invalid_argument& e) {
        std::cout << "refused: " << e.what() << "\n";
    }
    return failures == 0 ? 0 : 1;
}
