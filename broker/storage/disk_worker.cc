#include "broker/storage/disk_worker.h"

#include <boost/asio/post.hpp>
#include <future>
#include <utility>

#include "broker/common/logging.h"

namespace weir::storage {

DiskWorker::DiskWorker(Mode mode) : mode_(mode) {}

DiskWorker::~DiskWorker() {
    thread_.stop();
    thread_.join();
}

void DiskWorker::submit(Job job, Completion completion) {
    if (mode_ == Mode::inline_) {
        std::exception_ptr error;
        try {
            job();
        } catch (...) {
            error = std::current_exception();
        }
        if (completion) completion(error);
        return;
    }
    ++pending_;
    boost::asio::post(thread_, [job = std::move(job), completion = std::move(completion), finished = finished_] {
        std::exception_ptr error;
        try {
            job();
        } catch (...) {
            error = std::current_exception();
        }
        std::lock_guard lock(finished->mutex);
        finished->done.emplace_back(std::move(completion), error);
    });
}

std::size_t DiskWorker::collect() {
    std::vector<std::pair<Completion, std::exception_ptr>> done;
    {
        std::lock_guard lock(finished_->mutex);
        done.swap(finished_->done);
    }
    pending_ -= done.size();
    for (auto& [completion, error] : done) {
        if (!completion) continue;
        try {
            completion(error);
        } catch (const std::exception& e) {
            // One failed completion must not lose the others'.
            logging::error("applying the result of background disk work failed: {}", e.what());
        }
    }
    return done.size();
}

void DiskWorker::drain() {
    if (mode_ == Mode::background) {
        std::promise<void> reached;
        auto future = reached.get_future();
        boost::asio::post(thread_, [&reached] { reached.set_value(); });
        future.wait();
    }
    collect();
}

}  // namespace weir::storage
