// Helpers of the embedder-extension tests: a shell over an in-memory file system with every utility.
#pragma once

#include <exception>
#include <memory>
#include <string>

#include "builtins/registry.hpp"
#include "interp/shell.hpp"
#include "vfs/memory_fs.hpp"

namespace bashkit::ext_test {

// The message of the exception f() throws, or "(no exception)".
template <class F>
std::string error_of(F f) {
    try {
        f();
    } catch (const std::exception& e) {
        return e.what();
    }
    return "(no exception)";
}

struct TestShell {
    vfs::MemoryFs fs;
    interp::Shell sh;
    explicit TestShell(interp::ShellOptions o = {}) : sh(fs, builtins::all_utilities(), std::move(o)) {}
};

}  // namespace bashkit::ext_test
