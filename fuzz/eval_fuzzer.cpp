// libFuzzer target for the evaluator: the input runs as a script in a fresh session (every utility, a
// MemoryFs charged to the session's budget, 100 ms, 64 MiB). The host process must survive everything (no crash, sanitizer report, leak or
// hang) and the session must still answer `echo ok` afterwards.
#include <string>

#include "fuzz/fuzz_input.hpp"
#include "fuzz/session.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > 4096) return 0;
    std::string_view script(reinterpret_cast<const char*>(data), size);
    bashkit::fuzz::Session s;
    s.start();
    (void)s.sh->run(script);
    bashkit::fuzz::check_answers_ok(*s.sh, s.fs, script);
    return 0;
}
