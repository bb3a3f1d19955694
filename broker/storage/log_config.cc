#include "broker/storage/log_config.h"

#include <chrono>

namespace weir::storage {

Clock system_clock_ms() {
    return [] {
        return std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
            .count();
    };
}

}  // namespace weir::storage
