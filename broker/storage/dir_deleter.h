#pragma once
// Removes partition directories already renamed to `-delete` on a thread of
// its own, as Kafka's kafka-delete-logs task does: removing a large log's
// files takes as long as the file system needs, and the I/O thread must not
// wait for it. A directory not removed when the process stops is removed by
// the next start's scan (LogManager), as after a crash.
#include <boost/asio/thread_pool.hpp>
#include <filesystem>

namespace weir::storage {

class DirDeleter {
public:
    DirDeleter() = default;
    DirDeleter(const DirDeleter&) = delete;
    DirDeleter& operator=(const DirDeleter&) = delete;
    // Stops without waiting for directories not yet removed.
    ~DirDeleter();

    void remove(std::filesystem::path dir);
    // Returns once every directory handed over so far is removed.
    void wait();

private:
    boost::asio::thread_pool thread_{1};
};

}  // namespace weir::storage
