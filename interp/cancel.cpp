// The timer thread behind CancelToken deadlines (limits.hpp): one per process, started when a deadline is first
// watched (a run that lasts, or code that reads only the flag: see limits.hpp), sleeping until the earliest
// queued deadline and raising that token's flag when it passes.
#include <condition_variable>
#include <limits>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#include "interp/limits.hpp"

namespace bashkit::interp {

class DeadlineWatch {
public:
    // Never destroyed: a token may be disarmed during static destruction, after a static watch would be gone;
    // the thread is detached and ends with the process.
    static DeadlineWatch& instance() {
        static DeadlineWatch* w = new DeadlineWatch;
        return *w;
    }

    // Queues the token at its current deadline, unless an entry at or before it is queued already (the thread
    // re-queues the later deadline when that entry comes due). The deadline is read here, under the lock, after
    // the caller cleared kUnwatched: a set_deadline() this read misses sets the flag again after the clear.
    // Returns false when the thread cannot be started or has stopped, or the queue cannot grow: the token then
    // relies on cancelled()'s clock read (the evaluator reads it every 1024th check).
    bool arm(const CancelToken* t) {
        std::lock_guard lock(mu_);
        auto when = t->deadline_ns_.load();
        if (when == CancelToken::kNoDeadline) return true;
        auto a = t->armed_ns_.load();
        if (a != CancelToken::kNoDeadline && a <= when) return true;
        erase_locked(t);
        if (dead_) return false;
        try {
            if (!started_) {
                std::thread([this] { entry(); }).detach();
                started_ = true;
            }
            queue_locked(t, when);
        } catch (...) {
            return false;
        }
        return true;
    }
    void disarm(const CancelToken* t) {
        std::lock_guard lock(mu_);
        erase_locked(t);
    }

private:
    using Entry = std::pair<CancelToken::Clock::rep, const CancelToken*>;

    void queue_locked(const CancelToken* t, CancelToken::Clock::rep when) {
        queue_.insert({when, t});
        t->armed_ns_.store(when);
        // Woken only for a deadline before the one it sleeps until.
        if (when < sleep_until_) cv_.notify_one();
    }

    void erase_locked(const CancelToken* t) {
        // A token is in the queue at most once, under armed_ns_ (written only here, under mu_).
        auto a = t->armed_ns_.load();
        if (a == CancelToken::kNoDeadline) return;
        queue_.erase(Entry{a, t});
        t->armed_ns_.store(CancelToken::kNoDeadline);
    }

    // An entry came due. The token's deadline may have moved since it was queued: set_deadline() does not
    // mark a later deadline unwatched while an earlier entry exists, and a disarm only clears the deadline; both
    // are settled here. armed_ns_ is cleared before the deadline is read, and set_deadline() writes the
    // deadline before it reads armed_ns_ (both sequentially consistent): so either this read sees the new
    // deadline, or set_deadline() sees no entry and marks the token unwatched (queued again when it lasts).
    void due_locked(const CancelToken* t, CancelToken::Clock::rep now) {
        t->armed_ns_.store(CancelToken::kNoDeadline);
        uint64_t epoch = t->state_.load() >> CancelToken::kEpochShift;
        auto d = t->deadline_ns_.load();
        if (d == CancelToken::kNoDeadline) return;
        if (d > now) {
            queue_locked(t, d);
            return;
        }
        t->expire(epoch);  // only if that run is still the current one
    }

    // The thread's entry: nothing may leave it (std::terminate would end the host process). Should the loop
    // ever fail, the watch stops taking deadlines and the tokens fall back on reading the clock.
    void entry() noexcept {
        try {
            loop();
        } catch (...) {
        }
        try {
            std::lock_guard lock(mu_);
            dead_ = true;
            queue_.clear();
        } catch (...) {
        }
    }

    void loop() {
        std::unique_lock lock(mu_);
        for (;;) {
            if (queue_.empty()) {
                sleep_until_ = kForever;
                cv_.wait(lock);
                continue;
            }
            auto [when, token] = *queue_.begin();
            auto now = CancelToken::Clock::now().time_since_epoch().count();
            if (now >= when) {
                queue_.erase(queue_.begin());
                due_locked(token, now);  // under mu_: the token cannot be destroyed meanwhile (~CancelToken disarms)
                continue;
            }
            sleep_until_ = when;
            cv_.wait_until(lock, CancelToken::Clock::time_point(CancelToken::Clock::duration(when)));
        }
    }

    std::mutex mu_;
    std::condition_variable cv_;
    std::set<Entry> queue_;
    static constexpr CancelToken::Clock::rep kForever = std::numeric_limits<CancelToken::Clock::rep>::max();
    // When the thread wakes up next, unless notified (kForever: when notified); under mu_.
    CancelToken::Clock::rep sleep_until_ = kForever;
    bool started_ = false;
    bool dead_ = false;
};

CancelToken::~CancelToken() {
    // Under the watch's lock, even when no entry is seen: the thread may be settling this token's entry.
    if (ever_armed_.load()) DeadlineWatch::instance().disarm(this);
}

void CancelToken::set_deadline(Clock::time_point when, Clock::time_point now) {
    // Disarming only clears the deadline: the entry, if any, is dropped when it comes due. A later deadline
    // than the queued entry is left for the thread to re-queue then. So a session's runs, each setting its
    // timeout and clearing it at the end, take the watch's lock once per timeout period, not twice a run;
    // and once a run of the session lasted, the next ones are watched from their start.
    // Disarming is a plain store and leaves kUnwatched as it is (reset() clears it): with no deadline,
    // cancelled() returns before it looks at the flag, and unwatched() and watch() ignore it. A warm
    // execute("true") is ~600 ns; each locked instruction (a sequentially consistent store, a fetch_and) costs
    // ~15 ns of it, and a run used to pay six at its two ends (reset, set, disarm), now two at most (see
    // reset()). The watch thread may still read the old deadline; the same race was there with a
    // sequentially consistent store, and the expiry it computes is for this run's epoch only.
    if (when == Clock::time_point::max()) {
        deadline_ns_.store(kNoDeadline, std::memory_order_release);
        return;
    }
    auto d = when.time_since_epoch().count();
    deadline_ns_.store(d);
    auto a = armed_ns_.load();
    if (a != kNoDeadline && a <= d) return;
    // Not queued: the watch takes it up when the run lasts (limits.hpp). The flag is raised after the deadline
    // is stored, so whoever clears it (watch_slow) and then reads the deadline sees this one.
    watch_from_ns_.store(now.time_since_epoch().count() + kWatchAfter, std::memory_order_relaxed);
    state_.fetch_or(kUnwatched);
}

void CancelToken::watch_slow() const {
    // Cleared before the deadline is read (arm() reads it under the watch's lock): a set_deadline() meanwhile
    // either is seen or raises the flag again. Several threads may get here at once: arm() is idempotent.
    state_.fetch_and(~kUnwatched);
    ever_armed_.store(true);
    // When the thread cannot start, the clock reads remain (cancelled(), poll's every 1024th).
    (void)DeadlineWatch::instance().arm(this);
}

void CancelToken::reset(Clock::time_point when, Clock::time_point now, bool alone) {
    // A new epoch with clear flags: an expire() computed for the run that ends cannot touch the next one.
    // With a deadline, as set_deadline() does (the deadline stored first, sequentially consistent, then
    // armed_ns_ read, then the flag raised), but the flag comes with the new epoch in one exchange: a run's
    // start costs two locked instructions, not four.
    // None when `alone` (no background job of an earlier run is alive) and the token was never queued with
    // the watch thread: then only the caller and cancel() touch it, and plain stores do. There is no entry
    // to settle with the thread; a cancel() landing between the load and the store below came before the
    // run, which a reset drops anyway (the embedder's cancel applies to a run under way). A warm
    // execute("true") is ~600 ns and each locked instruction ~15 ns of it.
    if (alone && !ever_armed_.load(std::memory_order_relaxed)) {
        const bool timed = when != Clock::time_point::max();
        deadline_ns_.store(timed ? when.time_since_epoch().count() : kNoDeadline, std::memory_order_relaxed);
        if (timed)
            watch_from_ns_.store(now.time_since_epoch().count() + kWatchAfter, std::memory_order_relaxed);
        uint64_t old = state_.load(std::memory_order_relaxed);
        // Released: whoever sees the flag (watch_slow) sees the deadline.
        state_.store((((old >> kEpochShift) + 1) << kEpochShift) | (timed ? kUnwatched : 0),
                     std::memory_order_release);
        if (old & kCancelled) ended_cancelled_.fetch_add(1, std::memory_order_relaxed);
        return;
    }
    uint64_t unwatched = 0;
    if (when == Clock::time_point::max()) {
        deadline_ns_.store(kNoDeadline, std::memory_order_release);  // as in disarming (set_deadline)
    } else {
        auto d = when.time_since_epoch().count();
        deadline_ns_.store(d);
        auto a = armed_ns_.load();
        if (a == kNoDeadline || a > d) {
            watch_from_ns_.store(now.time_since_epoch().count() + kWatchAfter, std::memory_order_relaxed);
            unwatched = kUnwatched;
        }
    }
    uint64_t old = state_.load(std::memory_order_relaxed);
    while (!state_.compare_exchange_weak(old, (((old >> kEpochShift) + 1) << kEpochShift) | unwatched)) {
    }
    if (old & kCancelled) ended_cancelled_.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace bashkit::interp
