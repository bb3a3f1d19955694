#include "broker/common/task_gate.h"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <exception>

#include "broker/common/logging.h"

namespace weir::common {

struct TaskGate::State {
    std::atomic<bool> open{true};
    // On the executor only.
    std::size_t running = 0;
    boost::asio::steady_timer* idle = nullptr;  // wait()'s, while it waits
    std::string name;
};

bool TaskGate::Pass::open() const { return state_->open.load(std::memory_order_acquire); }

TaskGate::TaskGate(boost::asio::any_io_executor executor, std::string name)
    : executor_(std::move(executor)), state_(std::make_shared<State>()) {
    state_->name = std::move(name);
}

TaskGate::~TaskGate() { close(); }

bool TaskGate::open() const { return state_->open.load(std::memory_order_acquire); }

void TaskGate::close() noexcept { state_->open.store(false, std::memory_order_release); }

std::function<void(std::exception_ptr)> TaskGate::started() {
    ++state_->running;
    return [state = state_](std::exception_ptr error) {
        --state->running;
        if (state->running == 0 && state->idle) state->idle->cancel();
        if (!error) return;
        try {
            std::rethrow_exception(error);
        } catch (const std::exception& e) {
            logging::error("{} failed: {}", state->name, e.what());
        }
    };
}

std::size_t TaskGate::running() const { return state_->running; }

boost::asio::awaitable<void> TaskGate::wait() {
    auto state = state_;
    while (state->running > 0) {
        boost::asio::steady_timer timer(executor_, boost::asio::steady_timer::time_point::max());
        state->idle = &timer;
        boost::system::error_code ec;
        co_await timer.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ec));
        state->idle = nullptr;
    }
}

}  // namespace weir::common
