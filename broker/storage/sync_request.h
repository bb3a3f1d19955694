#pragma once
// The fsyncs a piece of log work leaves for a DiskWorker: a roll (the finished
// segments, the producer snapshot written at the roll, the directory that
// gained their entries) or a cleaning (a replacement segment's files before
// its swap). Built on the log's thread; run() may run on another: it holds the
// descriptors it syncs, and files or a directory removed meanwhile are
// skipped, since a deleted log needs no durability.
#include <filesystem>
#include <memory>
#include <vector>

#include "broker/storage/file.h"

namespace weir::storage {

struct SyncRequest {
    std::vector<std::shared_ptr<const File>> files;
    std::vector<std::filesystem::path> paths;  // opened and synced if still there
    std::filesystem::path dir;                 // synced last; none if empty
    void run() const;
};

}  // namespace weir::storage
