// A fresh session for the evaluator and snapshot targets: every utility, a MemoryFs, tight limits.
#pragma once

#include <chrono>
#include <memory>

#include "builtins/registry.hpp"
#include "interp/shell.hpp"
#include "vfs/memory_fs.hpp"

namespace bashkit::fuzz {

inline interp::ShellOptions tight_options() {
    interp::ShellOptions o;
    o.limits.timeout = std::chrono::milliseconds(100);
    o.limits.max_memory_bytes = size_t{64} << 20;
    o.limits.max_output_bytes = size_t{1} << 20;
    o.limits.max_variable_bytes = size_t{8} << 20;
    o.limits.max_array_entries = 100000;
    o.limits.max_background_jobs = 8;
    o.limits.max_threads = 16;
    o.limits.max_printf_width = 1u << 16;
    o.limits.eval_stack_bytes = size_t{64} << 20;
    o.limits.stage_stack_bytes = size_t{16} << 20;
    o.random_seed = 1;
    return o;
}

}  // namespace bashkit::fuzz
