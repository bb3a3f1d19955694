#pragma once
// Walks a .log file read-only, entry by entry: magic 2 record batches through
// the broker's BatchScanner and, where a file copied from an old Kafka holds
// them, magic 0/1 messages (one top-level message, possibly a compressed
// wrapper, per entry). Stops at the end, at a torn entry or at garbage, and
// says which and why.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "broker/storage/batch_scanner.h"
#include "broker/storage/file.h"
#include "protocol/records/record_batch.h"

namespace weir::cli::dumplog {

struct LogEntry {
    std::uint64_t position = 0;
    std::uint64_t size = 0;
    std::int8_t magic = 2;
    // Magic 2 only.
    records::BatchHeader header;
    // For magic 0/1 the first and last offset are the message's (a wrapper's is its last inner offset).
    std::int64_t first_offset = 0;
    std::int64_t last_offset = 0;
    std::int64_t max_timestamp = -1;
};

class LogEntryReader {
public:
    using Stop = storage::BatchScanner::Stop;

    // Throws storage::StorageError if the file cannot be opened.
    explicit LogEntryReader(const std::filesystem::path& path);
    LogEntryReader(const LogEntryReader&) = delete;
    LogEntryReader& operator=(const LogEntryReader&) = delete;

    [[nodiscard]] std::uint64_t file_size() const { return size_; }
    // The next entry, or nullopt with stop() and stop_reason() saying why.
    std::optional<LogEntry> next();
    // All bytes of the entry last returned (empty if they could not be read).
    std::span<const std::uint8_t> entry_bytes();
    [[nodiscard]] Stop stop() const { return stop_; }
    // Where the entries stopped: the end of the last whole entry.
    [[nodiscard]] std::uint64_t position() const { return pos_; }
    [[nodiscard]] const std::string& stop_reason() const { return reason_; }

private:
    std::optional<LogEntry> stop_at(Stop stop, std::string reason);
    std::optional<LogEntry> read_legacy();
    std::optional<LogEntry> explain_stop(Stop stop);

    storage::File file_;
    std::uint64_t size_ = 0;
    std::uint64_t pos_ = 0;
    std::optional<storage::BatchScanner> scanner_;
    bool last_was_legacy_ = false;
    std::vector<std::uint8_t> legacy_;
    Stop stop_ = Stop::end;
    std::string reason_;
};

}  // namespace weir::cli::dumplog
