// The smallest embedder: an in-memory BashkitSandbox session running two commands.
#include <iostream>

#include "sandbox/bashkit_sandbox.hpp"

int main() {
    using namespace bashkit::sandbox;
    BashkitSandbox sandbox({.instance_id = "consumer", .ephemeral = true});
    SandboxSession s = sandbox.open("s1");
    std::cout << s.execute("printf 'a\\nb\\nc\\n' | wc -l").stdout_;
    SandboxExecutionResult r = s.execute("echo hello from bashkit");
    std::cout << r.stdout_;
    s.close();
    return r.exit_code;
}
