#include "broker/storage/dir_deleter.h"

#include <boost/asio/post.hpp>
#include <future>
#include <system_error>

#include "broker/common/logging.h"

namespace weir::storage {

DirDeleter::~DirDeleter() {
    thread_.stop();
    thread_.join();
}

void DirDeleter::remove(std::filesystem::path dir) {
    boost::asio::post(thread_, [dir = std::move(dir)] {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
        if (ec) logging::warn("could not remove {}: {} (tried again at the next start)", dir.string(), ec.message());
    });
}

void DirDeleter::wait() {
    std::promise<void> done;
    auto future = done.get_future();
    boost::asio::post(thread_, [&done] { done.set_value(); });
    future.wait();
}

}  // namespace weir::storage
