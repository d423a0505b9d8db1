// Execution limits and the cancel token.
//
// Every bound the interpreter enforces is a named field of ExecutionLimits with a default that legitimate
// agent work never reaches (a loop of a million iterations is legitimate). A limit that trips prints a
// clear message on stderr and fails the command, the substitution or the whole run() (the timeout: status
// 124); the session stays usable afterwards.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace bashkit::interp {

struct ExecutionLimits {
    // Wall-clock time of one Shell::run(); 0 disables. Status 124 when it trips.
    std::chrono::milliseconds timeout{std::chrono::seconds(300)};
    // Bytes of stdout and of stderr kept in the result of one run(); the rest is dropped and flagged.
    size_t max_output_bytes = 10u << 20;
    // Nesting of shell function calls (bash's FUNCNEST, which bash leaves unbounded).
    uint32_t max_call_depth = 1000;
    // Nesting of $( ), ( ), pipeline stages and background jobs inside one another.
    uint32_t max_subshell_depth = 64;
    // Nesting of eval, source, trap bodies and `bash -c` child interpreters.
    uint32_t max_eval_depth = 256;
    // Bytes of memory one session may hold for what grows with its input (variables, function bodies,
    // here-documents, substitution and pipe buffers, utility buffers, in-memory files): one budget shared
    // by every subshell, stage, job and utility of the session (interp/governor.hpp). 0 disables.
    size_t max_memory_bytes = size_t{1} << 30;
    // Bytes of one variable value (a scalar or one array element).
    size_t max_variable_bytes = 64u << 20;
    // Bytes of all variable values of one shell copy together; 0 (the default) leaves them to the session's
    // memory budget (max_memory_bytes), which every subshell copy, stage and job is charged to.
    size_t max_total_variable_bytes = 0;
    // Elements of one array, and words produced by one brace expansion or one word expansion.
    size_t max_array_entries = 1'000'000;
    // Background jobs (`&`) running at once in the whole session.
    uint32_t max_background_jobs = 64;
    // Threads running pipeline stages and jobs at once in the whole session (a fork bomb stops here).
    uint32_t max_threads = 256;
    // Iterations of one loop; 0 means no limit (the default: the timeout bounds loops).
    uint64_t max_loop_iterations = 0;
    // Width or precision printf will honour (`printf '%*d' 2000000000 1`).
    size_t max_printf_width = 1u << 20;
    // Stack reserved for the evaluation thread of a session and for each pipeline stage or job thread.
    size_t eval_stack_bytes = 256u << 20;
    size_t stage_stack_bytes = 64u << 20;
};

// Cooperative cancellation, shared by every thread of a run and settable from any thread (the embedder's
// included). Checked at each command, loop iteration and pipe read or write.
//
// A deadline is watched by one process-wide timer thread (cancel.cpp), which raises the flag when it passes:
// so the hot checks (cancelled_fast) are a single atomic load and still see the timeout at once, even when
// each iteration of a loop is slow (`while :; do read -r x <<< "$x$x"; done` used to run 32 slow iterations
// between two reads of the clock). cancelled() reads the clock too, in case the timer thread could not start
// or is late on a loaded machine.
class CancelToken {
public:
    using Clock = std::chrono::steady_clock;

    CancelToken() = default;
    CancelToken(const CancelToken&) = delete;
    CancelToken& operator=(const CancelToken&) = delete;
    ~CancelToken();

    void cancel() { cancelled_.store(true, std::memory_order_relaxed); }
    // Arms a deadline; Clock::time_point::max() disarms.
    void set_deadline(Clock::time_point when);
    void reset();
    // A token can hang below another one (a background job below the run that started it): it is
    // cancelled when its parent is. `hold` keeps a parent alive when it is not owned elsewhere.
    void set_parent(std::shared_ptr<const CancelToken> hold, const CancelToken* parent) {
        parent_hold_ = std::move(hold);
        parent_ = parent;
    }
    // True once cancel() was called, the deadline passed (reads the clock) or the parent is cancelled.
    bool cancelled() const {
        if (cancelled_.load(std::memory_order_relaxed)) return true;
        if (parent_ && parent_->cancelled()) return true;
        auto d = deadline_ns_.load(std::memory_order_relaxed);
        if (d != kNoDeadline && Clock::now().time_since_epoch().count() >= d) {
            expire();
            return true;
        }
        return false;
    }
    // Only the flag, without reading the clock: for hot paths (the timer thread raises it at the deadline).
    bool cancelled_fast() const {
        return cancelled_.load(std::memory_order_relaxed) || (parent_ && parent_->cancelled_fast());
    }
    bool timed_out() const {
        return timed_out_.load(std::memory_order_relaxed) || (parent_ && parent_->timed_out());
    }

private:
    friend class DeadlineWatch;
    void expire() const {
        timed_out_.store(true, std::memory_order_relaxed);
        cancelled_.store(true, std::memory_order_relaxed);
    }
    static constexpr Clock::rep kNoDeadline = INT64_MAX;
    mutable std::atomic<bool> cancelled_{false};
    mutable std::atomic<bool> timed_out_{false};
    std::atomic<Clock::rep> deadline_ns_{kNoDeadline};
    std::shared_ptr<const CancelToken> parent_hold_;
    const CancelToken* parent_ = nullptr;
};

}  // namespace bashkit::interp
