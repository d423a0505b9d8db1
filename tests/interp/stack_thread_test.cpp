// StackThread: functions run on pooled threads of the requested stack size; join() returns once the function
// has returned and released what it captured; a worker that finished is given the next function.
#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <memory>
#include <stdexcept>

#include "interp/exec.hpp"

namespace bashkit::interp {
namespace {

constexpr size_t kStack = (8u << 20) + 4096 * 5;  // a size no other code asks for

TEST(StackThread, RunsTheFunctionWithTheStackSize) {
    StackThread t;
    size_t size = 0;
    ASSERT_TRUE(t.start(kStack, [&] {
        pthread_attr_t attr;
        if (pthread_getattr_np(pthread_self(), &attr) == 0) {
            pthread_attr_getstacksize(&attr, &size);
            pthread_attr_destroy(&attr);
        }
    }));
    t.join();
    EXPECT_GE(size, kStack);
    EXPECT_FALSE(t.joinable());
}

TEST(StackThread, JoinWaitsForTheCapturesToBeReleased) {
    // A pipeline stage's function holds the write end of its pipe: the reader sees the end only when the
    // function object is gone, so join() must not return before.
    auto held = std::make_shared<int>(1);
    std::weak_ptr<int> watch = held;
    StackThread t;
    ASSERT_TRUE(t.start(kStack, [h = std::move(held)] { (void)h; }));
    t.join();
    EXPECT_TRUE(watch.expired());
}

TEST(StackThread, AFinishedWorkerTakesTheNextFunction) {
    pthread_t first{}, second{};
    {
        StackThread t;
        ASSERT_TRUE(t.start(kStack, [&] { first = pthread_self(); }));
    }  // the destructor joins
    StackThread u;
    ASSERT_TRUE(u.start(kStack, [&] { second = pthread_self(); }));
    u.join();
    EXPECT_TRUE(pthread_equal(first, second));
}

TEST(StackThread, AThrowingFunctionDoesNotEndTheProcessAndTheWorkerServesAgain) {
    StackThread t;
    ASSERT_TRUE(t.start(kStack, [] { throw std::runtime_error("stage"); }));
    t.join();
    std::atomic<bool> ran{false};
    StackThread u;
    ASSERT_TRUE(u.start(kStack, [&] { ran = true; }));
    u.join();
    EXPECT_TRUE(ran);
}

TEST(StackThread, ADetachedFunctionMayOwnItsStackThread) {
    // A background job: the function holds the job, which holds the StackThread.
    struct Job {
        std::unique_ptr<StackThread> thread;
        std::atomic<bool>* done;
    };
    std::atomic<bool> done{false};
    auto job = std::make_shared<Job>();
    job->done = &done;
    auto th = std::make_unique<StackThread>();
    StackThread* raw = th.get();
    job->thread = std::move(th);
    ASSERT_TRUE(raw->start(kStack, [job]() mutable {
        job->done->store(true);
        job.reset();  // may destroy the StackThread on its own worker
    }));
    raw->detach();
    job.reset();
    for (int i = 0; i < 2000 && !done.load(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_TRUE(done.load());
}

}  // namespace
}  // namespace bashkit::interp
