// The timer thread behind CancelToken deadlines (limits.hpp): one per process, started on the first deadline,
// sleeping until the earliest armed deadline and raising that token's flag when it passes.
#include <condition_variable>
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

    // Returns false when the thread cannot be started or has stopped, or the queue cannot grow: the token then
    // relies on cancelled()'s clock read (the evaluator reads it every 1024th check).
    bool arm(const CancelToken* t, CancelToken::Clock::rep when) {
        std::lock_guard lock(mu_);
        erase_locked(t);
        if (dead_) return false;
        try {
            if (!started_) {
                std::thread([this] { entry(); }).detach();
                started_ = true;
            }
            auto it = queue_.insert({when, t}).first;
            if (it == queue_.begin()) cv_.notify_one();
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

    void erase_locked(const CancelToken* t) {
        // A token is in the queue at most once, under the deadline it stored.
        auto d = t->deadline_ns_.load(std::memory_order_relaxed);
        if (queue_.erase(Entry{d, t})) return;
        for (auto it = queue_.begin(); it != queue_.end(); ++it)  // a deadline changed since it was armed
            if (it->second == t) {
                queue_.erase(it);
                break;
            }
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
                cv_.wait(lock);
                continue;
            }
            auto [when, token] = *queue_.begin();
            auto now = CancelToken::Clock::now().time_since_epoch().count();
            if (now >= when) {
                queue_.erase(queue_.begin());
                token->expire();  // under mu_: the token cannot be destroyed meanwhile (~CancelToken disarms)
                continue;
            }
            cv_.wait_until(lock, CancelToken::Clock::time_point(CancelToken::Clock::duration(when)));
        }
    }

    std::mutex mu_;
    std::condition_variable cv_;
    std::set<Entry> queue_;
    bool started_ = false;
    bool dead_ = false;
};

CancelToken::~CancelToken() {
    if (deadline_ns_.load(std::memory_order_relaxed) != kNoDeadline) DeadlineWatch::instance().disarm(this);
}

void CancelToken::set_deadline(Clock::time_point when) {
    if (when == Clock::time_point::max()) {
        DeadlineWatch::instance().disarm(this);
        deadline_ns_.store(kNoDeadline, std::memory_order_relaxed);
        return;
    }
    auto d = when.time_since_epoch().count();
    DeadlineWatch& w = DeadlineWatch::instance();
    w.disarm(this);
    deadline_ns_.store(d, std::memory_order_relaxed);
    (void)w.arm(this, d);
}

void CancelToken::reset() {
    if (deadline_ns_.load(std::memory_order_relaxed) != kNoDeadline) DeadlineWatch::instance().disarm(this);
    deadline_ns_.store(kNoDeadline, std::memory_order_relaxed);
    // A new epoch with clear flags: an expire() computed for the run that ends cannot touch the next one.
    uint64_t old = state_.load(std::memory_order_relaxed);
    while (!state_.compare_exchange_weak(old, ((old >> kEpochShift) + 1) << kEpochShift, std::memory_order_relaxed)) {
    }
    if (old & kCancelled) ended_cancelled_.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace bashkit::interp
