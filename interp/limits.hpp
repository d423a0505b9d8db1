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
// so the hot checks (cancelled_fast, poll) are a single atomic load and still see the timeout at once, even
// when each iteration of a loop is slow (`while :; do read -r x <<< "$x$x"; done` used to run 32 slow
// iterations between two reads of the clock). cancelled() reads the clock too, in case the timer thread could
// not start or is late on a loaded machine.
//
// The watch is started lazily. Once a process has a second thread, libstdc++ counts every shared_ptr reference
// with atomic instructions (it checks __libc_single_threaded): starting the timer thread on the first deadline
// made a warm execute("true") 10% dearer and `bashkit -c true` 0.7 ms slower to start. So set_deadline() only
// stores the deadline and marks the token unwatched; it is queued with the watch (watch()):
//  - by cancelled(), when its clock read finds the deadline set more than kWatchAfter ago: a run that lasts
//    reaches a clock read soon (every blocking wait - a pipe, `wait`, sleep, a network transfer - loops on
//    cancelled() every 10-20 ms, and the utilities check it as they go);
//  - by poll() (the evaluator's check at each command, loop iteration and expansion step, awk's at each
//    statement), which reads the clock at every 16th call while the token or one of its parents is
//    unwatched, not only at every 1024th: so the flag goes unwatched for 16 checks at most once a run
//    lasts, and cancelled() arms the watch then. Not at every call: a clock read is ~45 ns on a KVM guest, a
//    warm execute("true") ~600 ns;
//  - by the caller, before code that reads only the flag for long (watch()): the evaluator watches before
//    it runs any utility (utilities.cpp), since a utility's round can be slow enough that 16 of them
//    overrun the deadline by seconds (awk building 32 MiB strings, under a sanitizer).
// What reads only cancelled_fast() (after a subshell, a pipeline or a command returns) asks whether what just
// ended was stopped, not whether to stop: a deadline it misses is seen at the next poll. A short run - `true`,
// assignments, echo - reads the clock a few times and never starts the thread.
// Blocking waits need no watch: none waits on the flag alone, each wakes up every 10-50 ms to call
// cancelled() (pipes, `wait`, sleep and timeout, the network transfers' watcher, host processes), which
// sees the deadline on the clock itself. Nor do the utilities: they check cancelled() (jq every 1024 steps,
// the rest per line, block or match), except awk, which polls.
//
// A session reuses one token for all its runs (reset() between two). The flags live in one word with a run
// count (the epoch), so a late expiry can only mark the run it was computed for: a thread that read a past
// deadline just before reset() cannot time out the next run (it once did, under load: `echo ok` after a
// timed-out script "timed out after 5 s" at once). And a run that ended cancelled stays cancelled for the
// tokens hanging below it (its background jobs), instead of reviving them when the next run resets the flags.
class CancelToken {
public:
    using Clock = std::chrono::steady_clock;

    CancelToken() = default;
    CancelToken(const CancelToken&) = delete;
    CancelToken& operator=(const CancelToken&) = delete;
    ~CancelToken();

    void cancel() { state_.fetch_or(kCancelled, std::memory_order_relaxed); }
    // Sets a deadline (the watch takes it up lazily, see above); Clock::time_point::max() disarms.
    // `now` is the caller's reading of the clock (a run computes its deadline from one), which saves one.
    void set_deadline(Clock::time_point when, Clock::time_point now);
    void set_deadline(Clock::time_point when) { set_deadline(when, when == Clock::time_point::max() ? when : Clock::now()); }
    // Queues the deadline of this token and of its parents with the timer thread now (starting it), so that
    // cancelled_fast() sees it when it passes: for code that reads only the flag for a long time.
    void watch() const {
        if (unwatched_self()) watch_slow();
        if (parent_) parent_->watch();
    }
    // Whether this token or a parent has a deadline the timer thread does not watch yet.
    bool unwatched() const { return unwatched_self() || (parent_ && parent_->unwatched()); }
    // Starts a new run: clears the flags and sets the deadline (max(): none), as set_deadline() would.
    // `alone`: no other thread of the shell uses the token (no background job alive), see cancel.cpp.
    void reset(Clock::time_point when = Clock::time_point::max(), Clock::time_point now = {}, bool alone = false);
    // A token can hang below another one (a background job below the run that started it): it is
    // cancelled when its parent is, and for good once the parent's run ended cancelled. `hold` keeps a parent
    // alive when it is not owned elsewhere.
    void set_parent(std::shared_ptr<const CancelToken> hold, const CancelToken* parent) {
        parent_hold_ = std::move(hold);
        parent_ = parent;
        parent_ended_cancelled_ = parent ? parent->ended_cancelled_.load(std::memory_order_relaxed) : 0;
    }
    // True once cancel() was called, the deadline passed (reads the clock) or the parent is cancelled.
    bool cancelled() const {
        uint64_t st = state_.load(std::memory_order_relaxed);
        if (st & kCancelled) return true;
        if (parent_ && (parent_gone() || parent_->cancelled())) return true;
        auto d = deadline_ns_.load(std::memory_order_relaxed);
        if (d == kNoDeadline) return false;
        auto now = Clock::now().time_since_epoch().count();
        if (now >= d) {
            expire(st >> kEpochShift);
            return true;
        }
        if ((st & kUnwatched) && now >= watch_from_ns_.load(std::memory_order_relaxed)) watch_slow();
        return false;
    }
    // Only the flag, without reading the clock: for hot paths (the timer thread raises it at the deadline).
    bool cancelled_fast() const {
        return (state_.load(std::memory_order_relaxed) & kCancelled) ||
               (parent_ && (parent_gone() || parent_->cancelled_fast()));
    }
    // For a loop's check: the flag at every call, the clock at every 1024th (tick is the loop's counter).
    // An iteration may be slow (a string doubling), so the flag must be seen at once; reading the clock each
    // time would cost more than many iterations. While the watch does not raise the flag (a deadline set less
    // than kWatchAfter ago, see above), the clock at every 16th: cancelled() then arms the watch.
    template <class Tick>
    bool poll(Tick& tick) const {
        uint64_t st = state_.load(std::memory_order_relaxed);
        if (st & kCancelled) return true;
        if (parent_) {
            if (parent_gone() || parent_->cancelled_fast()) return true;
            if (parent_->unwatched()) return (++tick & 15) == 0 && cancelled();
        }
        if (st & kUnwatched) return (++tick & 15) == 0 && cancelled();
        return (++tick & 1023) == 0 && cancelled();
    }
    bool timed_out() const {
        return (state_.load(std::memory_order_relaxed) & kTimedOut) || (parent_ && parent_->timed_out());
    }

private:
    friend class DeadlineWatch;
    static constexpr uint64_t kCancelled = 1, kTimedOut = 2;
    // A deadline is set that the timer thread does not watch yet (cleared by watch() and by reset(); disarming
    // leaves it, see set_deadline(), and unwatched_self() then ignores it).
    static constexpr uint64_t kUnwatched = 4;
    static constexpr int kEpochShift = 3;
    // How long a deadline may go unwatched: past it, the first clock read queues it with the timer thread.
    // Far below any timeout's precision, and above what a short run (a few commands) lasts.
    static constexpr Clock::rep kWatchAfter = std::chrono::nanoseconds(std::chrono::milliseconds(1)).count();
    void watch_slow() const;
    // The flag counts only with a deadline: disarming leaves it (set_deadline), and a token without a deadline
    // has nothing to watch.
    bool unwatched_self() const {
        return (state_.load(std::memory_order_relaxed) & kUnwatched) &&
               deadline_ns_.load(std::memory_order_relaxed) != kNoDeadline;
    }
    // Raises both flags if the run `epoch` is still the current one.
    void expire(uint64_t epoch) const {
        uint64_t cur = state_.load(std::memory_order_relaxed);
        while ((cur >> kEpochShift) == epoch &&
               !state_.compare_exchange_weak(cur, cur | kCancelled | kTimedOut, std::memory_order_relaxed)) {
        }
    }
    bool parent_gone() const {
        return parent_->ended_cancelled_.load(std::memory_order_relaxed) != parent_ended_cancelled_;
    }
    static constexpr Clock::rep kNoDeadline = INT64_MAX;
    mutable std::atomic<uint64_t> state_{0};  // epoch << kEpochShift | kUnwatched | kTimedOut | kCancelled
    std::atomic<uint64_t> ended_cancelled_{0};  // runs that ended cancelled (counted by reset())
    std::atomic<Clock::rep> deadline_ns_{kNoDeadline};
    // When an unwatched deadline is to be queued with the timer thread by the next clock read.
    std::atomic<Clock::rep> watch_from_ns_{0};
    // Where the timer thread has this token queued (kNoDeadline: nowhere); written under its lock.
    mutable std::atomic<Clock::rep> armed_ns_{kNoDeadline};
    // The token was queued once: the destructor must take the thread's lock.
    mutable std::atomic<bool> ever_armed_{false};
    std::shared_ptr<const CancelToken> parent_hold_;
    const CancelToken* parent_ = nullptr;
    uint64_t parent_ended_cancelled_ = 0;
};

}  // namespace bashkit::interp
