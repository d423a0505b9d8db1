// Helpers of the embedder-extension tests: a shell over an in-memory file system with every utility.
#pragma once

#include <memory>
#include <string>

#include "utils/registry.hpp"
#include "tests/sandbox/error_of.hpp"
#include "interp/shell.hpp"
#include "vfs/memory_fs.hpp"

namespace bashkit::ext_test {

using ::bashkit::sandbox::error_of;

struct TestShell {
    vfs::MemoryFs fs;
    interp::Shell sh;
    explicit TestShell(interp::ShellOptions o = {}) : sh(fs, utils::all_utilities(), std::move(o)) {}
};

}  // namespace bashkit::ext_test
