// A fresh session for the evaluator, snapshot and utility targets: every utility, a MemoryFs whose bytes are
// charged to the session's memory budget (as the sandbox does), tight limits.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "utils/registry.hpp"
#include "fuzz/fuzz_input.hpp"
#include "interp/governor.hpp"
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

// The tree's bytes on the session's budget (sandbox/configured_shell.cpp does the same for a sandbox).
class BudgetAccount final : public vfs::MemoryAccount {
public:
    explicit BudgetAccount(interp::MemoryBudget* budget) : budget_(budget) {}
    bool try_charge(uint64_t n) override {
        std::lock_guard lock(mu_);
        return !budget_ || (n <= SIZE_MAX && budget_->try_charge(static_cast<size_t>(n)));
    }
    void force_charge(uint64_t n) override {
        std::lock_guard lock(mu_);
        if (budget_) budget_->force_charge(static_cast<size_t>(n));
    }
    void release(uint64_t n) override {
        std::lock_guard lock(mu_);
        if (budget_) budget_->release(static_cast<size_t>(n));
    }
    void detach() {
        std::lock_guard lock(mu_);
        budget_ = nullptr;
    }

private:
    std::mutex mu_;
    interp::MemoryBudget* budget_;
};

// A MemoryFs (filled by the caller before the shell starts, if it likes) and a shell over it with
// tight_options(); the tree's bytes count against the session's 64 MiB.
struct Session {
    vfs::MemoryFs fs;
    std::unique_ptr<interp::Shell> sh;
    std::shared_ptr<BudgetAccount> account;

    void start(const interp::CommandRegistry& registry = utils::all_utilities()) {
        sh = std::make_unique<interp::Shell>(fs, registry, tight_options());
        account = std::make_shared<BudgetAccount>(&sh->memory());
        fs.set_memory_account(account);
    }
    // The tree stops charging the budget before the shell (which owns it) goes.
    ~Session() {
        if (!sh) return;
        fs.set_memory_account(nullptr);
        account->detach();
        (void)sh->close();
        sh.reset();
    }
};

// Empties the "traps" list of a saved state (Shell::save_state's JSON); false when it has none.
inline bool clear_traps(std::string& snapshot) {
    nlohmann::json state = nlohmann::json::parse(snapshot, nullptr, /*allow_exceptions=*/false);
    if (!state.is_object()) return false;
    auto traps = state.find("traps");
    if (traps == state.end() || !traps->is_array() || traps->empty()) return false;  // none, or already empty
    *traps = nlohmann::json::array();
    snapshot = state.dump();
    return true;
}

// After a fuzzed run: the session must still answer `echo ok` (a finding otherwise, showing `input`).
inline void check_answers_ok(interp::Shell& sh, vfs::MemoryFs& fs, std::string_view input) {
    // The check itself is given time: a loaded machine must not turn into a finding.
    sh.set_timeout(std::chrono::seconds(5));
    // The script may have redefined echo, set traps or options; the check asks for the builtin plainly.
    interp::ExecResult r = sh.run("\\builtin echo ok");
    // A script may close its stdout for the session (`exec >&-`), as in bash: the answer is then the write error.
    bool closed = r.err.find("write error: Bad file descriptor") != std::string::npos;
    // Background jobs of the script may still write around the answer (as at an interactive bash): "ok" is
    // looked for as a line of its own. The script may also have sent the session's stdout elsewhere for good
    // (`exec >&2`, `exec > log`, as in bash): stderr counts, and then a file the check reads back itself.
    bool answered = ("\n" + r.out + "\n" + r.err).find("\nok\n") != std::string::npos;
    // A script may leave a session that runs no command, as bash's would be: a DEBUG trap that fails under
    // set -e exits before each one. Its traps are then cleared through a saved state, and the check asks again.
    if (!closed && !answered) {
        std::string snapshot = sh.save_state();
        if (clear_traps(snapshot)) {
            try {
                sh.restore_state(snapshot);
            } catch (...) {
                finding("a saved state without its traps does not restore", input, snapshot);
            }
            r = sh.run("\\builtin echo ok");
            answered = ("\n" + r.out + "\n" + r.err).find("\nok\n") != std::string::npos;
        }
    }
    if (!closed && !answered) {
        (void)sh.run("\\builtin echo ok >| /.fuzz-probe");
        auto probe = fs.read_file("/.fuzz-probe");
        answered = probe && *probe == "ok\n";
    }
    if (!closed && !answered) finding("the session does not answer echo ok", input, r.out + r.err);
}

}  // namespace bashkit::fuzz
