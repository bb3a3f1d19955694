#pragma once
// What a fetcher of an old Fetch version can read, decided where the records
// are read (Kafka's UnifiedLog and ReplicaManager, not KafkaApis): handlers
// pass the version and never see the log's files.
#include <cstdint>

#include "broker/partitions/replica_manager.h"

namespace weir::partitions {

// zstd needs Fetch v10+ (KIP-110), and v0-v3 get message sets of the magic
// their version knows. For v4-v9 only the headers of records left in their
// file are read; what is sent is still the file's. v0-v3 read them whole to
// convert them. Empty for versions that take records as they are.
[[nodiscard]] RecordsConverter converter_for_fetch_version(std::int16_t version);

}  // namespace weir::partitions
