#pragma once
// Runs blocking file work (fsync, checkpoint writes, removing deleted logs)
// on a thread of its own, so that the broker's I/O thread never waits for the
// disk. Jobs run one at a time in the order submitted: two writes of the same
// file land in that order. A job's completion runs on the owner's thread,
// when the owner collects finished jobs (its periodic pass), never on the
// worker: the owner's state is touched by the owner alone, and a completion
// never outlives it.
#include <boost/asio/thread_pool.hpp>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace weir::storage {

class DiskWorker {
public:
    using Job = std::function<void()>;
    // Gets the job's exception, or null when it ran through.
    using Completion = std::function<void(std::exception_ptr)>;

    enum class Mode {
        background,  // jobs run on the worker's thread
        inline_,     // jobs and completions run in submit(), on the caller's thread
    };
    explicit DiskWorker(Mode mode = Mode::background);
    DiskWorker(const DiskWorker&) = delete;
    DiskWorker& operator=(const DiskWorker&) = delete;
    // Finishes the job under way; drops queued jobs and completions not yet
    // collected (what a crash would leave: nothing relies on them).
    ~DiskWorker();

    void submit(Job job, Completion completion = {});
    // Runs the completions of the jobs finished so far; returns how many.
    std::size_t collect();
    // Waits for every job submitted so far, then collects.
    void drain();
    // Submitted jobs whose completion has not run yet.
    [[nodiscard]] std::size_t pending() const { return pending_; }

private:
    struct Finished {
        std::mutex mutex;
        std::vector<std::pair<Completion, std::exception_ptr>> done;
    };
    Mode mode_;
    std::size_t pending_ = 0;
    std::shared_ptr<Finished> finished_ = std::make_shared<Finished>();
    boost::asio::thread_pool thread_{1};
};

}  // namespace weir::storage
