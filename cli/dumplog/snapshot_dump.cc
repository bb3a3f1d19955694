#include "cli/dumplog/snapshot_dump.h"

#include <fmt/format.h>

#include <limits>
#include <vector>

#include "broker/storage/file.h"
#include "broker/storage/producer_snapshot_file.h"

namespace weir::cli::dumplog {

namespace {

// A snapshot holds ~50 bytes per producer; anything this large is not one.
constexpr std::uint64_t kMaxSnapshotBytes = std::uint64_t{1} << 30;

// Kafka's DefaultRecordBatch.decrementSequence: sequences wrap at INT32_MAX to 0.
std::int32_t first_sequence(std::int32_t last, std::int32_t delta) {
    if (last < 0 || delta < 0) return -1;
    if (last < delta) return std::numeric_limits<std::int32_t>::max() - (delta - last) + 1;
    return last - delta;
}

std::string optional_offset(std::int64_t offset) {
    return offset < 0 ? std::string("OptionalLong.empty") : fmt::format("OptionalLong[{}]", offset);
}

}  // namespace

void dump_producer_snapshot(const std::filesystem::path& path, FileReport& report) {
    const auto file = storage::File::open_read_only(path);
    const auto size = file.size();
    if (size > kMaxSnapshotBytes) {
        report.problem(fmt::format("The file is {} bytes, too large for a producer snapshot; not read", size));
        return;
    }
    wire::Bytes bytes(static_cast<std::size_t>(size));
    bytes.resize(file.pread_upto(bytes, 0));
    std::vector<storage::ProducerSnapshotEntry> entries;
    try {
        entries = storage::decode_producer_snapshot(bytes);
    } catch (const wire::DecodeError& e) {
        report.problem(fmt::format("Not a valid producer snapshot: {}", e.what()));
        return;
    }
    for (const auto& e : entries) {
        report.count_one();
        // Kafka's format: the producer, then its last batch's metadata if it has one.
        std::string line = fmt::format(
            "producerId: {} producerEpoch: {} coordinatorEpoch: {} currentTxnFirstOffset: {} lastTimestamp: {}",
            e.producer_id, e.epoch, e.coordinator_epoch, optional_offset(e.current_txn_first_offset), e.timestamp);
        if (e.last_offset >= 0)
            line += fmt::format(" firstSequence: {} lastSequence: {} lastOffset: {} offsetDelta: {} timestamp: {}",
                                first_sequence(e.last_sequence, e.offset_delta), e.last_sequence, e.last_offset,
                                e.offset_delta, e.timestamp);
        report.line(line);
    }
}

}  // namespace weir::cli::dumplog
