#pragma once
// Runs a coroutine of the metadata store to completion on a private
// io_context, for tests that call the store directly rather than from a
// request.
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <utility>

namespace weir::metadata::test {

template <typename T>
T run(boost::asio::awaitable<T> task) {
    boost::asio::io_context io;
    auto result = boost::asio::co_spawn(io, std::move(task), boost::asio::use_future);
    io.run();
    return result.get();
}

}  // namespace weir::metadata::test
