// The session's memory budget: one per session, shared by every subshell, pipeline stage, background job,
// command substitution and utility of that session (a subshell copy does not get a fresh budget).
//
// Everything that grows with the script's input is charged here: variables, arrays, aliases, function
// bodies, here-document bodies, command-substitution and pipe buffers, utility buffers (sort, tac, awk
// strings, jq values...). Charge before allocating where the size is known in advance; charge as you go
// otherwise.
//
//   MemoryCharge held(ctx.memory);          // released when `held` goes out of scope
//   held.add(line.size());                  // throws MemoryLimitExceeded past the budget
//   if (!ctx.memory->try_charge(n)) ...     // or test without throwing, then release(n) yourself
//
// MemoryLimitExceeded (and std::bad_alloc) thrown by a command are caught where the interpreter calls it:
// the command fails with status 1 and `bashkit: NAME: memory limit exceeded (1024 MiB)` on its stderr, and
// the script goes on as after any failed command. Nothing is thrown across a thread or the public API.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>
#include <string>

namespace bashkit::interp {

// The message of a tripped budget, without the command's prefix: "memory limit exceeded (1024 MiB)".
inline std::string memory_limit_message(size_t limit_bytes) {
    if (limit_bytes != 0 && limit_bytes % (1u << 20) == 0)
        return "memory limit exceeded (" + std::to_string(limit_bytes >> 20) + " MiB)";
    return "memory limit exceeded (" + std::to_string(limit_bytes) + " bytes)";
}

class MemoryLimitExceeded : public std::bad_alloc {
public:
    explicit MemoryLimitExceeded(size_t limit_bytes) : limit_(limit_bytes) {}
    const char* what() const noexcept override { return "memory limit exceeded"; }
    size_t limit() const { return limit_; }

private:
    size_t limit_;
};

// Words, argument lists and variable values from this size on are checked against the session's budget as
// they are made (the field builder, charge_words, assign_to); below it the check would cost more than the
// copy it guards.
inline constexpr size_t kBudgetCheckFloor = 64u << 10;

// Thread-safe: any thread of the session charges and releases.
class MemoryBudget {
public:
    // limit_bytes 0: unlimited (still counted).
    explicit MemoryBudget(size_t limit_bytes = 0) : limit_(limit_bytes) {}
    MemoryBudget(const MemoryBudget&) = delete;
    MemoryBudget& operator=(const MemoryBudget&) = delete;

    // Adds n to the count unless that would pass the limit; false (count unchanged) then.
    bool try_charge(size_t n) {
        if (n == 0) return true;
        size_t cur = used_.load(std::memory_order_relaxed);
        for (;;) {
            if (limit_ != 0 && (n > limit_ || cur > limit_ - n)) return false;
            if (used_.compare_exchange_weak(cur, cur + n, std::memory_order_relaxed)) break;
        }
        size_t now = cur + n;
        size_t peak = peak_.load(std::memory_order_relaxed);
        while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
        }
        return true;
    }
    // try_charge or throw MemoryLimitExceeded.
    void charge(size_t n) {
        if (!try_charge(n)) throw MemoryLimitExceeded(limit_);
    }
    // Adds n past the limit if need be (what was already allocated without a check): the next charge fails.
    void force_charge(size_t n) {
        size_t now = used_.fetch_add(n, std::memory_order_relaxed) + n;
        size_t peak = peak_.load(std::memory_order_relaxed);
        while (now > peak && !peak_.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
        }
    }
    void release(size_t n) {
        size_t cur = used_.load(std::memory_order_relaxed);
        for (;;) {
            size_t next = n > cur ? 0 : cur - n;
            if (used_.compare_exchange_weak(cur, next, std::memory_order_relaxed)) return;
        }
    }
    // Whether n more bytes would fit now (no charge).
    bool fits(size_t n) const {
        size_t cur = used_.load(std::memory_order_relaxed);
        return limit_ == 0 || (n <= limit_ && cur <= limit_ - n);
    }
    size_t used() const { return used_.load(std::memory_order_relaxed); }
    size_t peak() const { return peak_.load(std::memory_order_relaxed); }
    size_t limit() const { return limit_; }
    void set_limit(size_t limit_bytes) { limit_ = limit_bytes; }

private:
    size_t limit_;
    std::atomic<size_t> used_{0};
    std::atomic<size_t> peak_{0};
};

// Bytes held on a budget for as long as the object lives (a utility's buffer, a here-document body).
// A null budget makes every call a no-op, so code works the same without a governor.
class MemoryCharge {
public:
    explicit MemoryCharge(MemoryBudget* budget = nullptr) : budget_(budget) {}
    MemoryCharge(const MemoryCharge&) = delete;
    MemoryCharge& operator=(const MemoryCharge&) = delete;
    MemoryCharge(MemoryCharge&& o) noexcept : budget_(o.budget_), held_(o.held_) { o.held_ = 0; }
    MemoryCharge& operator=(MemoryCharge&& o) noexcept {
        if (this != &o) {
            clear();
            budget_ = o.budget_;
            held_ = o.held_;
            o.held_ = 0;
        }
        return *this;
    }
    ~MemoryCharge() { clear(); }

    // Holds n more bytes; throws MemoryLimitExceeded past the budget (nothing held then).
    void add(size_t n) {
        if (!budget_) return;
        budget_->charge(n);
        held_ += n;
    }
    // Non-throwing add.
    bool try_add(size_t n) {
        if (!budget_) return true;
        if (!budget_->try_charge(n)) return false;
        held_ += n;
        return true;
    }
    void sub(size_t n) {
        if (!budget_) return;
        n = n > held_ ? held_ : n;
        budget_->release(n);
        held_ -= n;
    }
    // Holds exactly n bytes (grows or shrinks the charge); throws when growing past the budget.
    void set(size_t n) {
        if (n > held_)
            add(n - held_);
        else
            sub(held_ - n);
    }
    void clear() {
        if (budget_ && held_) budget_->release(held_);
        held_ = 0;
    }
    size_t held() const { return held_; }
    MemoryBudget* budget() const { return budget_; }

private:
    MemoryBudget* budget_;
    size_t held_ = 0;
};

}  // namespace bashkit::interp
