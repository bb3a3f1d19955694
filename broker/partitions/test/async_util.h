#pragma once
// Running coroutines in partition tests: start one on an io_context, and run
// the context until a condition holds or a bound passes (every wait bounded).
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <exception>
#include <memory>
#include <optional>

namespace weir::partitions::test {

// The task's result appears in the returned optional once it completes.
template <typename T>
std::shared_ptr<std::optional<T>> spawn(boost::asio::io_context& io, boost::asio::awaitable<T> task) {
    auto out = std::make_shared<std::optional<T>>();
    boost::asio::co_spawn(io, std::move(task), [out](std::exception_ptr e, T value) {
        if (e) std::rethrow_exception(e);
        *out = std::move(value);
    });
    return out;
}

template <typename Pred>
bool run_until(boost::asio::io_context& io, Pred done, std::chrono::milliseconds bound = std::chrono::seconds(5)) {
    auto deadline = std::chrono::steady_clock::now() + bound;
    io.restart();
    while (!done() && std::chrono::steady_clock::now() < deadline) io.run_one_for(std::chrono::milliseconds(10));
    return done();
}

// Runs what is ready now, without waiting for timers.
inline void poll(boost::asio::io_context& io) {
    io.restart();
    io.poll();
}

// True if nothing is left on the context (no timer still armed, no parked
// coroutine), found within `bound`.
inline bool drained(boost::asio::io_context& io, std::chrono::milliseconds bound = std::chrono::seconds(2)) {
    io.restart();
    io.run_for(bound);
    return io.stopped();
}

}  // namespace weir::partitions::test
