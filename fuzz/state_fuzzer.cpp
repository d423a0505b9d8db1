// libFuzzer target for shell-state snapshots (save_state / restore_state). An input starting with `{` is a
// snapshot to load; anything else runs as a script in a fresh session (100 ms, 64 MiB) whose state is then
// saved. Either way the round trip must hold: save, load into a fresh session, save again gives the same
// text. No crash, sanitizer report, leak or hang; a bad snapshot is refused with StateError only.
#include <string>

#include "fuzz/fuzz_input.hpp"
#include "fuzz/session.hpp"

namespace ia = bashkit::interp;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > 8192) return 0;
    std::string_view in(reinterpret_cast<const char*>(data), size);
    bashkit::vfs::MemoryFs fs;
    const auto& reg = bashkit::utils::all_utilities();
    std::string first;
    {
        ia::Shell a(fs, reg, bashkit::fuzz::tight_options());
        if (!in.empty() && in[0] == '{') {
            try {
                a.restore_state(in);
            } catch (const ia::StateError&) {
                return 0;
            }
        } else {
            (void)a.run(in);
        }
        first = a.save_state();
    }
    ia::Shell b(fs, reg, bashkit::fuzz::tight_options());
    try {
        b.restore_state(first);
    } catch (const ia::StateError& e) {
        bashkit::fuzz::finding("a saved state does not load", first, e.what());
    }
    std::string second = b.save_state();
    if (second != first) bashkit::fuzz::finding("save/load/save changed the snapshot", first, second);
    return 0;
}
