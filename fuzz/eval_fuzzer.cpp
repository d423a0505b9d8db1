// libFuzzer target for the evaluator: the input runs as a script in a fresh session (every utility, a
// MemoryFs, 100 ms, 64 MiB). The host process must survive everything (no crash, sanitizer report, leak or
// hang) and the session must still answer `echo ok` afterwards.
#include <chrono>
#include <string>

#include "fuzz/fuzz_input.hpp"
#include "fuzz/session.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > 4096) return 0;
    std::string_view script(reinterpret_cast<const char*>(data), size);
    bashkit::vfs::MemoryFs fs;
    bashkit::interp::Shell sh(fs, bashkit::builtins::all_utilities(), bashkit::fuzz::tight_options());
    (void)sh.run(script);
    // The check itself is given time: a loaded machine must not turn into a finding.
    sh.set_timeout(std::chrono::seconds(5));
    // The script may have redefined echo, set traps or options; the check asks for the builtin plainly.
    bashkit::interp::ExecResult r = sh.run("\\builtin echo ok");
    // A script may close its stdout for the session (`exec >&-`), as in bash: the answer is then the write error.
    bool closed = r.err.find("write error: Bad file descriptor") != std::string::npos;
    // Background jobs of the script may still write around the answer (as at an interactive bash): "ok" is
    // looked for as a line of its own. The script may also have sent the session's stdout elsewhere for good
    // (`exec >&2`, `exec > log`, as in bash): stderr counts, and then a file the check reads back itself.
    bool answered = ("\n" + r.out + "\n" + r.err).find("\nok\n") != std::string::npos;
    if (!closed && !answered) {
        (void)sh.run("\\builtin echo ok >| /.fuzz-probe");
        auto probe = fs.read_file("/.fuzz-probe");
        answered = probe && *probe == "ok\n";
    }
    if (!closed && !answered) bashkit::fuzz::finding("the session does not answer echo ok", script, r.out + r.err);
    (void)sh.close();
    return 0;
}
