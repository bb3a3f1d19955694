#pragma once
// Whether a log dir is still usable: Kafka's LogDirFailureChannel for one dir.
// Every log of the dir shares one, and reports the I/O failures it meets.
// A failure of the disk itself (EIO, EROFS, a dir gone) takes the dir offline
// for good, as in Kafka: its partitions answer KAFKA_STORAGE_ERROR, nothing
// more is written there, and the other dirs carry on. Out-of-space failures
// leave it online (space can be freed by retention or DeleteTopics), and so
// do failures without an errno (a logic check, a damaged file).
#include <filesystem>
#include <functional>
#include <string>

#include "broker/storage/log_error.h"

namespace weir::storage {

class LogDirHealth {
public:
    using OfflineListener = std::function<void(const std::filesystem::path& dir, const std::string& reason)>;

    LogDirHealth(std::filesystem::path dir, OfflineListener on_offline)
        : dir_(std::move(dir)), on_offline_(std::move(on_offline)) {}

    [[nodiscard]] bool offline() const { return offline_; }
    // Why it went offline (empty while online).
    [[nodiscard]] const std::string& reason() const { return reason_; }

    // Takes the dir offline if `error` is a failure of the disk; true if it is offline now.
    bool failed(const StorageError& error) {
        if (error.error_number() == 0 || error.out_of_space()) return offline_;
        if (offline_) return true;
        offline_ = true;
        reason_ = error.what();
        if (on_offline_) on_offline_(dir_, reason_);
        return true;
    }

private:
    std::filesystem::path dir_;
    OfflineListener on_offline_;
    bool offline_ = false;
    std::string reason_;
};

}  // namespace weir::storage
