#pragma once
// The two timers a coordinator's state machine needs: one that follows its
// next deadline, and one for periodic housekeeping. Single-threaded (the
// broker's I/O thread); a stopped or destroyed timer never calls back.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>

#include "broker/common/task_gate.h"
#include "coordinator/runtime/record_batches.h"

namespace weir::coordinator::runtime {

// Fires `on_deadline` once the clock reaches the earliest deadline armed.
// Arming a later deadline than the pending one does nothing: the state
// machine re-arms from its own deadline queue when it fires.
class DeadlineTimer {
public:
    using Clock = std::function<TimeMs()>;
    DeadlineTimer(const boost::asio::any_io_executor& executor, Clock clock, std::function<void()> on_deadline);
    ~DeadlineTimer();
    DeadlineTimer(const DeadlineTimer&) = delete;
    DeadlineTimer& operator=(const DeadlineTimer&) = delete;

    void arm(TimeMs deadline);
    void stop();
    [[nodiscard]] std::optional<TimeMs> armed() const { return armed_; }

private:
    boost::asio::steady_timer timer_;
    Clock clock_;
    std::function<void()> on_deadline_;
    std::optional<TimeMs> armed_;
    bool stopped_ = false;
    // Last: closed first, so a completion that outlives the timer does nothing.
    common::TaskGate gate_;
};

// Runs `body` every `interval` (the next run is scheduled once the previous
// one finished, so runs never overlap) until stopped.
class PeriodicTask {
public:
    using Body = std::function<boost::asio::awaitable<void>()>;
    PeriodicTask(const boost::asio::any_io_executor& executor, std::chrono::milliseconds interval, Body body);
    ~PeriodicTask();
    PeriodicTask(const PeriodicTask&) = delete;
    PeriodicTask& operator=(const PeriodicTask&) = delete;

    void start();
    void stop();
    // After stop(): resolves once a run in progress has ended.
    boost::asio::awaitable<void> stopped();

private:
    void schedule();

    boost::asio::steady_timer timer_;
    std::chrono::milliseconds interval_;
    Body body_;
    bool running_ = false;
    common::TaskGate gate_;
};

}  // namespace weir::coordinator::runtime
