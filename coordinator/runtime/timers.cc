#include "coordinator/runtime/timers.h"

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

namespace weir::coordinator::runtime {

namespace asio = boost::asio;

DeadlineTimer::DeadlineTimer(const asio::any_io_executor& executor, Clock clock, std::function<void()> on_deadline)
    : timer_(executor), clock_(std::move(clock)), on_deadline_(std::move(on_deadline)) {}

DeadlineTimer::~DeadlineTimer() {
    *alive_ = false;
    timer_.cancel();
}

void DeadlineTimer::arm(TimeMs deadline) {
    if (stopped_) return;
    if (armed_ && *armed_ <= deadline) return;
    armed_ = deadline;
    timer_.expires_after(std::chrono::milliseconds(std::max<TimeMs>(deadline - clock_(), 0)));
    std::weak_ptr<bool> alive = alive_;
    timer_.async_wait([this, alive](boost::system::error_code ec) {
        auto a = alive.lock();
        if (ec || !a || !*a || stopped_) return;
        armed_.reset();
        on_deadline_();
    });
}

void DeadlineTimer::stop() {
    stopped_ = true;
    armed_.reset();
    timer_.cancel();
}

PeriodicTask::PeriodicTask(const asio::any_io_executor& executor, std::chrono::milliseconds interval, Body body)
    : executor_(executor),
      timer_(executor),
      interval_(std::max(interval, std::chrono::milliseconds(1))),
      body_(std::move(body)) {}

PeriodicTask::~PeriodicTask() {
    *alive_ = false;
    timer_.cancel();
}

void PeriodicTask::start() {
    if (running_) return;
    running_ = true;
    schedule();
}

void PeriodicTask::stop() {
    running_ = false;
    timer_.cancel();
}

void PeriodicTask::schedule() {
    if (!running_) return;
    timer_.expires_after(interval_);
    std::weak_ptr<bool> alive = alive_;
    timer_.async_wait([this, alive](boost::system::error_code ec) {
        auto a = alive.lock();
        if (ec || !a || !*a || !running_) return;
        asio::co_spawn(
            executor_,
            [this, alive]() -> asio::awaitable<void> {
                co_await body_();
                auto a2 = alive.lock();
                if (!a2 || !*a2) co_return;
                schedule();
            },
            asio::detached);
    });
}

}  // namespace weir::coordinator::runtime
