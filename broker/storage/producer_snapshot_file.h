#pragma once
// Kafka's producer-state snapshot files, `<offset>.snapshot` in a partition
// directory (20-digit offset, as segment names): the producers' state as of
// that offset, so that start-up replays only the log after it. Kafka's
// ProducerSnapshot format, version 1 (big-endian):
//   version int16 | crc uint32 (CRC32C of everything after it) |
//   count int32 | count x { producerId int64, epoch int16, lastSequence int32,
//   lastOffset int64, offsetDelta int32, timestamp int64,
//   coordinatorEpoch int32, currentTxnFirstOffset int64 }
// Files are written atomically (temp file, fsync, rename).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <vector>

#include "broker/storage/file.h"
#include "protocol/wire/reader.h"

namespace weir::storage {

inline constexpr std::string_view kProducerSnapshotSuffix = ".snapshot";

struct ProducerSnapshotEntry {
    std::int64_t producer_id = -1;
    std::int16_t epoch = -1;
    std::int32_t last_sequence = -1;
    std::int64_t last_offset = -1;
    std::int32_t offset_delta = 0;
    std::int64_t timestamp = -1;
    std::int32_t coordinator_epoch = -1;
    std::int64_t current_txn_first_offset = -1;
    bool operator==(const ProducerSnapshotEntry&) const = default;
};

wire::Bytes encode_producer_snapshot(const std::vector<ProducerSnapshotEntry>& entries);
// Throws wire::DecodeError on an unknown version, a bad CRC or a short file.
std::vector<ProducerSnapshotEntry> decode_producer_snapshot(wire::ByteSpan data);

// The offsets of the snapshot files in `dir`, ascending.
std::vector<std::int64_t> list_producer_snapshots(const std::filesystem::path& dir);
void write_producer_snapshot(const std::filesystem::path& dir, std::int64_t offset,
                             const std::vector<ProducerSnapshotEntry>& entries,
                             Durability durability = Durability::now);
// Throws wire::DecodeError (corrupt) or StorageError (unreadable).
std::vector<ProducerSnapshotEntry> read_producer_snapshot(const std::filesystem::path& dir, std::int64_t offset);
void delete_producer_snapshot(const std::filesystem::path& dir, std::int64_t offset);

}  // namespace weir::storage
