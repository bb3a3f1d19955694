#include "broker/storage/producer_snapshot_file.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string_view>

#include "broker/storage/file.h"
#include "broker/storage/log_error.h"
#include "broker/storage/log_names.h"
#include "protocol/records/record_batch.h"
#include "protocol/wire/writer.h"

namespace weir::storage {

namespace {

constexpr std::int16_t kVersion = 1;
constexpr std::size_t kCrcOffset = 2;
constexpr std::size_t kEntriesOffset = kCrcOffset + 4;
constexpr std::size_t kEntrySize = 8 + 2 + 4 + 8 + 4 + 8 + 4 + 8;

std::filesystem::path snapshot_path(const std::filesystem::path& dir, std::int64_t offset) {
    return dir / segment_file_name(offset, kProducerSnapshotSuffix);
}

}  // namespace

wire::Bytes encode_producer_snapshot(const std::vector<ProducerSnapshotEntry>& entries) {
    wire::Bytes out;
    out.reserve(kEntriesOffset + 4 + entries.size() * kEntrySize);
    wire::Writer w(out);
    w.int16(kVersion);
    w.uint32(0);  // the CRC, once the rest is written
    w.int32(static_cast<std::int32_t>(entries.size()));
    for (const auto& e : entries) {
        w.int64(e.producer_id);
        w.int16(e.epoch);
        w.int32(e.last_sequence);
        w.int64(e.last_offset);
        w.int32(e.offset_delta);
        w.int64(e.timestamp);
        w.int32(e.coordinator_epoch);
        w.int64(e.current_txn_first_offset);
    }
    const auto crc = records::crc32c(wire::ByteSpan(out).subspan(kEntriesOffset));
    for (int i = 0; i < 4; ++i) out[kCrcOffset + i] = static_cast<std::uint8_t>(crc >> (24 - 8 * i));
    return out;
}

std::vector<ProducerSnapshotEntry> decode_producer_snapshot(wire::ByteSpan data) {
    wire::Reader r(data);
    if (const auto version = r.int16(); version != kVersion)
        throw wire::DecodeError("producer snapshot of unknown version " + std::to_string(version));
    const auto crc = r.uint32();
    if (crc != records::crc32c(data.subspan(kEntriesOffset)))
        throw wire::DecodeError("producer snapshot is corrupt (CRC is no longer valid)");
    const auto count = r.int32();
    if (count < 0 || static_cast<std::size_t>(count) * kEntrySize != r.remaining())
        throw wire::DecodeError("producer snapshot has a bad entry count");
    std::vector<ProducerSnapshotEntry> entries(static_cast<std::size_t>(count));
    for (auto& e : entries) {
        e.producer_id = r.int64();
        e.epoch = r.int16();
        e.last_sequence = r.int32();
        e.last_offset = r.int64();
        e.offset_delta = r.int32();
        e.timestamp = r.int64();
        e.coordinator_epoch = r.int32();
        e.current_txn_first_offset = r.int64();
    }
    return entries;
}

std::vector<std::int64_t> list_producer_snapshots(const std::filesystem::path& dir) {
    std::vector<std::int64_t> offsets;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        if (auto offset = parse_segment_file_name(entry.path().filename().string(), kProducerSnapshotSuffix))
            offsets.push_back(*offset);
    }
    std::sort(offsets.begin(), offsets.end());
    return offsets;
}

void write_producer_snapshot(const std::filesystem::path& dir, std::int64_t offset,
                             const std::vector<ProducerSnapshotEntry>& entries, Durability durability) {
    const auto bytes = encode_producer_snapshot(entries);
    write_file_atomically(snapshot_path(dir, offset),
                          std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), durability);
}

std::vector<ProducerSnapshotEntry> read_producer_snapshot(const std::filesystem::path& dir, std::int64_t offset) {
    const auto path = snapshot_path(dir, offset);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw StorageError("cannot read " + path.string());
    wire::Bytes data{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (in.bad()) throw StorageError("cannot read " + path.string());
    return decode_producer_snapshot(data);
}

void delete_producer_snapshot(const std::filesystem::path& dir, std::int64_t offset) {
    std::error_code ec;
    std::filesystem::remove(snapshot_path(dir, offset), ec);
}

}  // namespace weir::storage
