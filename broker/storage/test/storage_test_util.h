#pragma once
// Helpers for storage tests: batch builders and file pokes.
#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <string>
#include <vector>

#include "broker/common/temp_dir.h"
#include "broker/storage/log_config.h"
#include "protocol/records/record_batch.h"

namespace weir::storage::test {

using weir::TempDir;

// A batch of `count` records with `value_size`-byte values, timestamps
// base_timestamp + i. Base offset 0 (the log assigns it).
inline wire::Bytes make_batch(int count, std::size_t value_size = 16, std::int64_t base_timestamp = 1000,
                              records::Compression compression = records::Compression::none) {
    records::BatchBuilderOptions options;
    options.base_timestamp = base_timestamp;
    options.compression = compression;
    std::vector<records::Record> recs;
    for (int i = 0; i < count; ++i) {
        records::Record r;
        r.offset_delta = i;
        r.timestamp_delta = i;
        r.value = wire::Bytes(value_size, static_cast<std::uint8_t>('a' + i % 26));
        recs.push_back(std::move(r));
    }
    return records::build_batch(options, recs);
}

// Splits concatenated batches into their headers.
inline std::vector<records::BatchHeader> headers_of(std::span<const std::uint8_t> data) {
    std::vector<records::BatchHeader> out;
    for (std::size_t pos = 0; pos < data.size();) {
        auto h = records::parse_batch_header(data.subspan(pos));
        out.push_back(h);
        pos += h.total_size();
    }
    return out;
}

// Appends a temporary batch (append() wants a mutable buffer).
template <typename Log>
auto append_batch(Log& log, wire::Bytes batch) {
    return log.append(batch);
}

// A few batches of append_batches() per segment, for tests that need many segments.
inline LogConfig small_segments() {
    LogConfig c;
    c.segment_bytes = 1500;
    c.index_interval_bytes = 300;
    return c;
}

// Appends `n` batches of 4 records of 100 bytes.
template <typename Log>
void append_batches(Log& log, int n) {
    for (int i = 0; i < n; ++i) append_batch(log, make_batch(4, 100));
}

// Descriptors the process holds now.
inline std::size_t open_descriptors() {
    return static_cast<std::size_t>(
        std::distance(std::filesystem::directory_iterator("/proc/self/fd"), std::filesystem::directory_iterator{}));
}

inline std::uintmax_t file_size(const std::filesystem::path& p) { return std::filesystem::file_size(p); }

inline void flip_byte(const std::filesystem::path& p, std::uintmax_t position) {
    std::fstream f(p, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(position));
    char c = 0;
    f.read(&c, 1);
    c = static_cast<char>(c ^ 0x5a);
    f.seekp(static_cast<std::streamoff>(position));
    f.write(&c, 1);
}

inline void write_bytes(const std::filesystem::path& p, std::uintmax_t position, std::span<const std::uint8_t> data) {
    std::fstream f(p, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(position));
    f.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
}

}  // namespace weir::storage::test
