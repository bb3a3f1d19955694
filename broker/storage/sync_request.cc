#include "broker/storage/sync_request.h"

#include <cerrno>
#include <optional>

#include "broker/storage/log_error.h"

namespace weir::storage {

void SyncRequest::run() const {
    for (const auto& file : files) file->sync();
    for (const auto& path : paths) {
        std::optional<File> file;
        try {
            file.emplace(File::open_read_only(path));
        } catch (const StorageError& e) {
            if (e.error_number() == ENOENT) continue;
            throw;
        }
        file->sync();
    }
    if (dir.empty()) return;
    try {
        sync_dir(dir);
    } catch (const StorageError& e) {
        if (e.error_number() != ENOENT) throw;
    }
}

}  // namespace weir::storage
