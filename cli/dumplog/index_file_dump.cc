#include "cli/dumplog/index_file_dump.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "broker/storage/file.h"
#include "broker/storage/index_file.h"
#include "broker/storage/log_names.h"
#include "broker/storage/offset_index.h"
#include "broker/storage/time_index.h"
#include "cli/dumplog/log_entry_reader.h"

namespace weir::cli::dumplog {

namespace {

// Index files are at most a few MiB (log.index.size.max.bytes); refuse to slurp anything absurd.
constexpr std::uint64_t kMaxIndexBytes = std::uint64_t{1} << 31;

struct IndexEntries {
    std::vector<std::uint8_t> bytes;
    std::size_t entry_size = 0;
    std::size_t used = 0;  // entries before the trailing zero run
    std::int64_t base_offset = 0;

    [[nodiscard]] const std::uint8_t* entry(std::size_t i) const { return bytes.data() + i * entry_size; }
};

// The entries as the broker counts them (length / entry size; a remainder makes the
// broker rebuild the index), less a trailing run of all-zero entries: the
// preallocated space of an active index, or of one left by an unclean shutdown,
// which the broker rebuilds from the log. An all-zero entry cannot be told from
// padding, and the broker writes none: the offset index never points at position 0
// (the first batch is never indexed) and a time index entry needs timestamp 0.
IndexEntries read_entries(const std::filesystem::path& path, std::string_view suffix, std::size_t entry_size,
                          FileReport& report) {
    IndexEntries out;
    out.entry_size = entry_size;
    const auto file = storage::File::open_read_only(path);
    const auto size = file.size();
    if (size > kMaxIndexBytes) {
        report.problem(fmt::format("The index is {} bytes, larger than any index the broker writes; not read", size));
        return out;
    }
    out.bytes.resize(static_cast<std::size_t>(size));
    out.bytes.resize(file.pread_upto(out.bytes, 0));

    const auto name = path.filename().string();
    if (auto base = storage::parse_segment_file_name(name, suffix)) {
        out.base_offset = *base;
    } else {
        report.problem(
            fmt::format("{} is not named <20-digit base offset>{}: offsets shown relative to 0", name, suffix));
    }
    if (out.bytes.size() % entry_size != 0)
        report.problem(
            fmt::format("The index is {} bytes, not a multiple of its {}-byte entries (the broker rebuilds "
                        "such an index); the last {} bytes are ignored",
                        out.bytes.size(), entry_size, out.bytes.size() % entry_size));
    const std::size_t entries = out.bytes.size() / entry_size;
    out.used = entries;
    while (out.used > 0) {
        const auto* e = out.entry(out.used - 1);
        if (!std::all_of(e, e + entry_size, [](std::uint8_t b) { return b == 0; })) break;
        --out.used;
    }
    return out;
}

struct LogBatch {
    std::uint64_t position = 0;
    std::int64_t last_offset = 0;
    std::int64_t max_timestamp = -1;
};

struct SegmentLog {
    std::vector<LogBatch> batches;  // the valid prefix of the log, in file order
    std::uint64_t size = 0;
    std::uint64_t valid_end = 0;
};

std::optional<SegmentLog> read_sibling_log(const std::filesystem::path& index_path, FileReport& report) {
    auto log_path = index_path;
    log_path.replace_extension(storage::kLogSuffix);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(log_path, ec)) {
        report.problem(fmt::format("Cannot check the index: its log {} does not exist", log_path.string()));
        return std::nullopt;
    }
    SegmentLog log;
    LogEntryReader reader(log_path);
    log.size = reader.file_size();
    while (auto e = reader.next()) log.batches.push_back({e->position, e->last_offset, e->max_timestamp});
    log.valid_end = reader.position();
    return log;
}

// Prints a group of mismatches under its heading, as Kafka's DumpLogSegments does.
void print_group(FileReport& report, const std::string& heading, const std::vector<std::string>& lines) {
    if (lines.empty()) return;
    report.line(heading);
    for (const auto& l : lines) report.problem(l);
}

void note_padding(FileReport& report, const IndexEntries& entries) {
    const auto zeros = entries.bytes.size() / entries.entry_size - entries.used;
    if (zeros > 0) report.line(fmt::format("({} trailing zero entries: preallocated index space, not checked)", zeros));
}

}  // namespace

void dump_offset_index(const std::filesystem::path& path, FileReport& report) {
    const auto index = read_entries(path, storage::kIndexSuffix, storage::OffsetIndex::kEntrySize, report);
    const auto log = read_sibling_log(path, report);

    std::vector<std::string> mismatches;
    std::optional<std::int64_t> previous_offset;
    std::optional<std::uint32_t> previous_position;
    for (std::size_t i = 0; i < index.used; ++i) {
        const auto relative = storage::be::get32(index.entry(i));
        const auto position = storage::be::get32(index.entry(i) + 4);
        // As OffsetIndex::entry reads it.
        const std::int64_t offset = index.base_offset + static_cast<std::int32_t>(relative);
        report.line(fmt::format("offset: {} position: {}", offset, position));
        report.count_one(offset, offset);

        if (relative > static_cast<std::uint32_t>(std::numeric_limits<std::int32_t>::max()))
            mismatches.push_back(fmt::format("  Index offset: {}, relative offset {} is negative", offset, relative));
        if (previous_offset && offset <= *previous_offset)
            mismatches.push_back(
                fmt::format("  Index offset: {}, not above the previous entry's offset {}", offset, *previous_offset));
        if (previous_position && position <= *previous_position)
            mismatches.push_back(
                fmt::format("  Index offset: {}, position {} not above the previous entry's position {}", offset,
                            position, *previous_position));
        previous_offset = offset;
        previous_position = position;
        if (!log) continue;
        if (position >= log->size) {
            mismatches.push_back(fmt::format("  Index offset: {}, position {} is beyond the end of the log ({} bytes)",
                                             offset, position, log->size));
            continue;
        }
        const auto it = std::lower_bound(log->batches.begin(), log->batches.end(), std::uint64_t{position},
                                         [](const LogBatch& b, std::uint64_t p) { return b.position < p; });
        if (it == log->batches.end() || it->position != position) {
            mismatches.push_back(fmt::format("  Index offset: {}, position {} is not the start of a batch{}", offset,
                                             position,
                                             position >= log->valid_end ? " (it is in the log's invalid tail)" : ""));
        } else if (it->last_offset != offset) {
            mismatches.push_back(fmt::format("  Index offset: {}, log offset: {}", offset, it->last_offset));
        }
    }
    note_padding(report, index);
    print_group(report, "Mismatches in :" + path.string(), mismatches);
}

void dump_time_index(const std::filesystem::path& path, FileReport& report) {
    const auto index = read_entries(path, storage::kTimeIndexSuffix, storage::TimeIndex::kEntrySize, report);
    const auto log = read_sibling_log(path, report);

    // What Segment::index_batch tracks: the largest batch max timestamp so far, batch by batch.
    std::vector<std::int64_t> max_so_far;
    if (log) {
        std::int64_t running = -1;
        for (const auto& b : log->batches) max_so_far.push_back(running = std::max(running, b.max_timestamp));
    }

    std::vector<std::string> timestamp_mismatches, out_of_order, bad_offsets, not_found;
    std::optional<std::int64_t> previous_timestamp;
    std::optional<std::int64_t> previous_offset;
    for (std::size_t i = 0; i < index.used; ++i) {
        const auto timestamp = static_cast<std::int64_t>(storage::be::get64(index.entry(i)));
        const auto relative = storage::be::get32(index.entry(i) + 8);
        const std::int64_t offset = index.base_offset + static_cast<std::int32_t>(relative);
        report.line(fmt::format("timestamp: {} offset: {}", timestamp, offset));
        report.count_one(offset, offset);

        // TimeIndex::maybe_append only adds an entry when the timestamp grows.
        if (previous_timestamp && timestamp <= *previous_timestamp)
            out_of_order.push_back(
                fmt::format("  Index timestamp: {}, Previously indexed timestamp: {}", timestamp, *previous_timestamp));
        if (offset < index.base_offset)
            bad_offsets.push_back(
                fmt::format("  Indexed offset: {}, below the segment's base offset {}", offset, index.base_offset));
        else if (previous_offset && offset < *previous_offset)
            bad_offsets.push_back(
                fmt::format("  Indexed offset: {}, below the previous entry's offset {}", offset, *previous_offset));
        previous_timestamp = timestamp;
        previous_offset = offset;
        if (!log) continue;

        // The broker indexes (max timestamp so far, last offset of the batch that set it).
        const auto it = std::lower_bound(log->batches.begin(), log->batches.end(), offset,
                                         [](const LogBatch& b, std::int64_t o) { return b.last_offset < o; });
        if (it == log->batches.end() || it->last_offset != offset) {
            not_found.push_back(fmt::format("Indexed offset: {}, found log offset: {}", offset,
                                            it == log->batches.end() ? -1 : it->last_offset));
            continue;
        }
        const auto log_timestamp = max_so_far[static_cast<std::size_t>(it - log->batches.begin())];
        if (log_timestamp != timestamp)
            timestamp_mismatches.push_back(
                fmt::format("  Index timestamp: {}, log timestamp: {}", timestamp, log_timestamp));
    }
    note_padding(report, index);
    print_group(report, "Found timestamp mismatch in :" + path.string(), timestamp_mismatches);
    print_group(report, "Found out of order timestamp in :" + path.string(), out_of_order);
    print_group(report, "Found offsets out of order in :" + path.string(), bad_offsets);
    print_group(report, "The following indexed offsets are not found in the log.", not_found);
}

}  // namespace weir::cli::dumplog
