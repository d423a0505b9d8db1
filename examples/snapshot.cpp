// Snapshot and resume: an agent's session is closed (the process may even exit) and resumed later exactly
// where it was - the files from the on-disk session tree, the shell state (variables, functions, aliases,
// options, cwd...) from a JSON snapshot.
//
//   snapshot              run the demo; exit status 0 when the resumed session matches
#include <iostream>
#include <string>

#include "sandbox/bashkit_sandbox.hpp"

namespace sb = bashkit::sandbox;

int main() {
    sb::BashkitSandbox sandbox({.instance_id = "example-snapshot-" + sb::random_session_id()});
    const std::string check = "declare -p project retries; declare -f build; alias b; set -o | grep pipefail; pwd";

    std::string snapshot, before;
    {
        sb::SandboxSession day1 = sandbox.open("conversation");
        day1.execute("mkdir -p app && cd app && echo 'int main(){}' > main.c");
        day1.execute("project=app; declare -i retries=3; set -o pipefail");
        day1.execute("build() { echo \"building $project (retries: $retries)\"; }; alias b=build");
        before = day1.execute(check).stdout_;
        snapshot = day1.save_state();  // JSON text: store it with the conversation
    }  // closed: the files stay on disk, the shell state is in `snapshot`

    sb::SandboxSession day2 = sandbox.open("conversation");
    day2.restore_state(snapshot);
    std::string after = day2.execute(check).stdout_;
    std::cout << "before:\n" << before << "after restore:\n" << after;
    std::cout << day2.execute("build; ls").stdout_;

    // A snapshot from another version is refused with a clear message.
    std::string old = snapshot;
    old.replace(old.find("\"version\": 1"), 12, "\"version\": 0");
    bool refused = false;
    try {
        day2.restore_state(old);
    } catch (const sb::SandboxError& e) {
        std::cout << "refused: " << e.what() << "\n";
        refused = true;
    }
    day2.close();
    sandbox.delete_session("conversation");
    return before == after && !before.empty() && refused ? 0 : 1;
}
