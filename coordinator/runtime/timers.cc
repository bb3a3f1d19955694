#include "coordinator/runtime/timers.h"

#include <algorithm>

namespace weir::coordinator::runtime {

namespace asio = boost::asio;

DeadlineTimer::DeadlineTimer(const asio::any_io_executor& executor, Clock clock, std::function<void()> on_deadline)
    : timer_(executor),
      clock_(std::move(clock)),
      on_deadline_(std::move(on_deadline)),
      gate_(executor, "deadline timer") {}

DeadlineTimer::~DeadlineTimer() {
    gate_.close();
    timer_.cancel();
}

void DeadlineTimer::arm(TimeMs deadline) {
    if (stopped_) return;
    if (armed_ && *armed_ <= deadline) return;
    armed_ = deadline;
    timer_.expires_after(std::chrono::milliseconds(std::max<TimeMs>(deadline - clock_(), 0)));
    timer_.async_wait(gate_.guard([this](boost::system::error_code ec) {
        if (ec || stopped_) return;
        armed_.reset();
        on_deadline_();
    }));
}

void DeadlineTimer::stop() {
    stopped_ = true;
    armed_.reset();
    timer_.cancel();
}

PeriodicTask::PeriodicTask(const asio::any_io_executor& executor, std::chrono::milliseconds interval, Body body)
    : timer_(executor),
      interval_(std::max(interval, std::chrono::milliseconds(1))),
      body_(std::move(body)),
      gate_(executor, "periodic task") {}

PeriodicTask::~PeriodicTask() {
    gate_.close();
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

asio::awaitable<void> PeriodicTask::stopped() {
    gate_.close();
    co_await gate_.wait();
}

void PeriodicTask::schedule() {
    if (!running_) return;
    timer_.expires_after(interval_);
    timer_.async_wait(gate_.guard([this](boost::system::error_code ec) {
        if (ec || !running_) return;
        gate_.spawn([this, pass = gate_.pass()]() -> asio::awaitable<void> {
            co_await body_();
            if (pass.open()) schedule();
        });
    }));
}

}  // namespace weir::coordinator::runtime
