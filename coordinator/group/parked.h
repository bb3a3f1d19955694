#pragma once
// A result a coroutine waits for and someone else provides later (a parked
// JoinGroup/SyncGroup answer). Single-threaded: complete() and wait() run on
// the same executor.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <optional>

namespace weir::coordinator {

template <typename T>
class Parked {
public:
    explicit Parked(const boost::asio::any_io_executor& executor)
        : timer_(executor, std::chrono::steady_clock::time_point::max()) {}

    void complete(T value) {
        value_ = std::move(value);
        timer_.cancel();
    }
    [[nodiscard]] bool done() const { return value_.has_value(); }

    // Use as `while (!p.done()) co_await p.wake(); auto v = p.take();` (a
    // nested coroutine returning T trips GCC 12's -Wmismatched-new-delete).
    auto wake() { return timer_.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ec_)); }
    T take() { return std::move(*value_); }

private:
    boost::asio::steady_timer timer_;
    std::optional<T> value_;
    boost::system::error_code ec_;
};

}  // namespace weir::coordinator
