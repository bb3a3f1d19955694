#include "broker/storage/disk_worker.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <stdexcept>
#include <thread>
#include <vector>

namespace weir::storage {
namespace {

TEST(DiskWorker, RunsJobsInOrderAndCompletesOnlyWhenCollected) {
    DiskWorker worker;
    std::vector<int> ran;  // written by the worker's thread only
    std::vector<int> completed;
    for (int i = 0; i < 5; ++i)
        worker.submit([&ran, i] { ran.push_back(i); }, [&completed, i](std::exception_ptr) { completed.push_back(i); });
    EXPECT_EQ(worker.pending(), 5u);
    EXPECT_TRUE(completed.empty());  // nothing runs a completion but collect()
    worker.drain();
    EXPECT_EQ(ran, (std::vector<int>{0, 1, 2, 3, 4}));
    EXPECT_EQ(completed, (std::vector<int>{0, 1, 2, 3, 4}));
    EXPECT_EQ(worker.pending(), 0u);
    EXPECT_EQ(worker.collect(), 0u);
}

TEST(DiskWorker, HandsAJobsExceptionToItsCompletion) {
    DiskWorker worker;
    std::exception_ptr got;
    bool called = false;
    worker.submit([] { throw std::runtime_error("disk on fire"); },
                  [&](std::exception_ptr e) {
                      got = e;
                      called = true;
                  });
    worker.drain();
    ASSERT_TRUE(called);
    ASSERT_TRUE(got);
    EXPECT_THROW(std::rethrow_exception(got), std::runtime_error);
}

TEST(DiskWorker, DoesNotBlockTheSubmitterWhileAJobWaits) {
    DiskWorker worker;
    std::promise<void> release;
    auto released = release.get_future().share();
    std::atomic<bool> done{false};
    worker.submit([released, &done] {
        released.wait();
        done = true;
    });
    EXPECT_FALSE(done);  // submit() returned while the job is still blocked
    release.set_value();
    worker.drain();
    EXPECT_TRUE(done);
}

TEST(DiskWorker, InlineModeRunsJobAndCompletionInSubmit) {
    DiskWorker worker(DiskWorker::Mode::inline_);
    const auto caller = std::this_thread::get_id();
    std::thread::id ran_on;
    bool completed = false;
    worker.submit([&] { ran_on = std::this_thread::get_id(); }, [&](std::exception_ptr e) { completed = !e; });
    EXPECT_EQ(ran_on, caller);
    EXPECT_TRUE(completed);
    EXPECT_EQ(worker.pending(), 0u);
}

}  // namespace
}  // namespace weir::storage
