#include "broker/storage/log_cleaner.h"

#include <algorithm>
#include <limits>

#include "broker/storage/index_file.h"

namespace weir::storage {
namespace {

constexpr std::size_t kLastOffsetDeltaOffset = 23;
constexpr std::size_t kMaxTimestampOffset = 35;
constexpr std::int16_t kTimestampTypeBit = 0x08;
constexpr std::int16_t kTransactionalBit = 0x10;
constexpr std::int16_t kControlBit = 0x20;
// An unordered_map node holding a std::string key and an offset, its bucket
// and allocator overhead: what an entry costs beyond the key's bytes.
constexpr std::size_t kMapEntryOverhead = 64;

// Kafka's LocalLog.logSegments(from, to): the segments holding offsets in
// [from, to), as an index range into `segments`.
std::pair<std::size_t, std::size_t> segments_in(std::span<const SegmentStats> segments, std::int64_t from,
                                                std::int64_t to) {
    if (from >= to) return {0, 0};
    std::size_t begin = 0;
    for (std::size_t i = 0; i < segments.size() && segments[i].base_offset <= from; ++i) begin = i;
    std::size_t end = begin;
    while (end < segments.size() && segments[end].base_offset < to) ++end;
    return {begin, end};
}

void put_be(std::span<std::uint8_t> out, std::size_t at, std::uint64_t v, std::size_t width) {
    for (std::size_t i = 0; i < width; ++i) out[at + i] = static_cast<std::uint8_t>(v >> (8 * (width - 1 - i)));
}

void update_crc(std::span<std::uint8_t> batch) {
    be::put32(batch.data() + records::kCrcOffset,
              records::crc32c(std::span<const std::uint8_t>(batch).subspan(records::kAttributesOffset)));
}

std::string_view as_view(std::span<const std::uint8_t> key) {
    return {reinterpret_cast<const char*>(key.data()), key.size()};
}

}  // namespace

CleanableSection find_cleanable_section(std::span<const SegmentStats> segments, const LogBounds& bounds,
                                        std::optional<std::int64_t> checkpoint, const LogConfig& config,
                                        std::int64_t now_ms) {
    CleanableSection s;
    if (segments.empty()) return s;
    // A checkpoint outside the log (truncation, data lost at the tail) means
    // the whole log must be considered dirty again.
    auto dirty = checkpoint.value_or(bounds.log_start_offset);
    if (dirty < bounds.log_start_offset || dirty > bounds.log_end_offset) {
        s.checkpoint_reset = checkpoint.has_value();
        dirty = bounds.log_start_offset;
    }
    s.first_dirty_offset = dirty;

    const auto active_base = segments.back().base_offset;
    auto [dirty_begin, dirty_end] = segments_in(segments, dirty, active_base);

    auto uncleanable = std::min(bounds.last_stable_offset, active_base);
    if (config.min_compaction_lag_ms > 0) {
        for (auto i = dirty_begin; i < dirty_end; ++i) {
            if (segments[i].largest_timestamp > now_ms - config.min_compaction_lag_ms) {
                uncleanable = std::min(uncleanable, segments[i].base_offset);
                break;
            }
        }
    }
    uncleanable = std::max(dirty, uncleanable);

    // The first uncleanable offset is a segment boundary: the segment holding
    // `uncleanable` is not cleaned at all.
    auto [from, to] = segments_in(segments, uncleanable, active_base);
    s.first_uncleanable_offset = from < to ? segments[from].base_offset : active_base;

    auto [clean_begin, clean_end] = segments_in(segments, -1, dirty);
    for (auto i = clean_begin; i < clean_end; ++i) s.clean_bytes += segments[i].size;
    auto [c_begin, c_end] =
        segments_in(segments, std::min(dirty, s.first_uncleanable_offset), s.first_uncleanable_offset);
    for (auto i = c_begin; i < c_end; ++i) s.cleanable_bytes += segments[i].size;

    std::int64_t earliest = std::numeric_limits<std::int64_t>::max();
    for (auto i = dirty_begin; i < dirty_end; ++i)
        if (segments[i].first_batch_timestamp > 0) earliest = std::min(earliest, segments[i].first_batch_timestamp);
    auto clean_until = now_ms - std::max<std::int64_t>(config.max_compaction_lag_ms, 0);
    s.needs_compaction_now = earliest < clean_until;
    return s;
}

bool worth_cleaning(const CleanableSection& section, const LogConfig& config) {
    if (section.total_bytes() == 0) return false;
    return (section.needs_compaction_now && section.cleanable_bytes > 0) ||
           section.cleanable_ratio() > config.min_cleanable_dirty_ratio;
}

std::vector<std::vector<std::size_t>> group_segments_by_size(std::span<const SegmentStats> segments,
                                                             std::uint64_t max_size, std::uint64_t max_index_size,
                                                             std::int64_t first_uncleanable_offset) {
    std::vector<std::vector<std::size_t>> groups;
    std::size_t i = 0;
    while (i < segments.size()) {
        std::vector<std::size_t> group{i};
        auto log_size = segments[i].size;
        auto index_size = segments[i].offset_index_bytes;
        auto time_index_size = segments[i].time_index_bytes;
        ++i;
        while (i < segments.size()) {
            const auto& next = segments[i];
            // Kafka bounds the next segment's last offset by what follows it.
            auto last_offset = i + 1 < segments.size() ? segments[i + 1].base_offset - 1 : first_uncleanable_offset - 1;
            bool offsets_fit = next.size == 0 || last_offset - segments[group.back()].base_offset <=
                                                     std::numeric_limits<std::int32_t>::max();
            if (log_size + next.size > max_size || index_size + next.offset_index_bytes > max_index_size ||
                time_index_size + next.time_index_bytes > max_index_size || !offsets_fit)
                break;
            group.push_back(i);
            log_size += next.size;
            index_size += next.offset_index_bytes;
            time_index_size += next.time_index_bytes;
            ++i;
        }
        groups.push_back(std::move(group));
    }
    return groups;
}

void OffsetMap::put(std::span<const std::uint8_t> key, std::int64_t offset) {
    auto view = as_view(key);
    if (auto it = map_.find(view); it != map_.end()) {
        it->second = std::max(it->second, offset);
        return;
    }
    map_.emplace(std::string(view), offset);
    bytes_ += key.size() + kMapEntryOverhead;
}

std::int64_t OffsetMap::get(std::span<const std::uint8_t> key) const {
    auto it = map_.find(as_view(key));
    return it == map_.end() ? -1 : it->second;
}

void OffsetMap::clear() {
    map_.clear();
    bytes_ = 0;
    latest_offset_ = -1;
}

wire::Bytes empty_batch_like(const records::BatchHeader& h) {
    wire::Bytes out(records::kBatchHeaderSize);
    std::span<std::uint8_t> b(out);
    put_be(b, 0, static_cast<std::uint64_t>(h.base_offset), 8);
    put_be(b, 8, records::kBatchHeaderSize - records::kLogOverhead, 4);
    put_be(b, 12, static_cast<std::uint32_t>(h.partition_leader_epoch), 4);
    b[records::kMagicOffset] = 2;
    auto attributes = static_cast<std::uint16_t>(h.attributes & (kTimestampTypeBit | kTransactionalBit | kControlBit));
    put_be(b, records::kAttributesOffset, attributes, 2);
    put_be(b, kLastOffsetDeltaOffset, static_cast<std::uint32_t>(h.last_offset_delta), 4);
    put_be(b, 27, static_cast<std::uint64_t>(std::int64_t{-1}), 8);
    put_be(b, kMaxTimestampOffset, static_cast<std::uint64_t>(h.max_timestamp), 8);
    put_be(b, 43, static_cast<std::uint64_t>(h.producer_id), 8);
    put_be(b, 51, static_cast<std::uint16_t>(h.producer_epoch), 2);
    put_be(b, 53, static_cast<std::uint32_t>(h.base_sequence), 4);
    put_be(b, 57, 0, 4);
    update_crc(b);
    return out;
}

FilteredBatch filter_batch(std::span<const std::uint8_t> batch, const RecordFilter& filter, bool keep_if_empty) {
    FilteredBatch result;
    auto h = records::parse_batch_header(batch);
    if (h.is_control()) return result;
    std::vector<records::Record> decoded;
    try {
        decoded = records::decode_records(batch.first(h.total_size()));
    } catch (const wire::DecodeError&) {
        return result;
    }
    result.records_read = static_cast<std::int32_t>(decoded.size());
    const auto horizon = delete_horizon(h);
    std::vector<records::Record> kept;
    kept.reserve(decoded.size());
    bool has_tombstones = false;
    for (auto& r : decoded) {
        auto offset = h.base_offset + r.offset_delta;
        bool keep = false;
        if (offset > filter.map->latest_offset()) {
            keep = true;
        } else if (r.key) {
            bool latest = offset >= filter.map->get(*r.key);
            bool retain_delete = !horizon || filter.now_ms < *horizon;
            keep = latest && (r.value.has_value() || retain_delete);
        } else {
            ++result.unkeyed_dropped;
        }
        if (!keep) continue;
        if (!r.value) has_tombstones = true;
        kept.push_back(std::move(r));
    }
    result.records_kept = static_cast<std::int32_t>(kept.size());

    bool set_horizon = has_tombstones && !horizon;
    if (kept.size() == decoded.size() && !set_horizon) return result;
    if (kept.empty()) {
        // Kafka's RETAIN_EMPTY: the header keeps the batch's last offset (and
        // producer sequence) in the log.
        if (keep_if_empty) {
            result.outcome = FilteredBatch::Outcome::emptied;
            result.bytes = empty_batch_like(h);
        } else {
            result.outcome = FilteredBatch::Outcome::removed;
        }
        return result;
    }

    // Record timestamps are base + delta; a new base (the delete horizon)
    // shifts every delta so that no record's timestamp changes.
    const auto new_base = set_horizon ? filter.now_ms + filter.delete_retention_ms : h.base_timestamp;
    std::int64_t max_timestamp = -1;
    for (auto& r : kept) {
        auto ts = h.base_timestamp + r.timestamp_delta;
        max_timestamp = std::max(max_timestamp, ts);
        r.timestamp_delta = ts - new_base;
    }
    if (h.timestamp_type() == records::TimestampType::log_append_time) max_timestamp = h.max_timestamp;

    records::BatchBuilderOptions options;
    options.base_offset = h.base_offset;
    options.compression = h.compression();
    options.timestamp_type = h.timestamp_type();
    options.base_timestamp = new_base;
    options.producer_id = h.producer_id;
    options.producer_epoch = h.producer_epoch;
    options.base_sequence = h.base_sequence;
    options.partition_leader_epoch = h.partition_leader_epoch;
    options.transactional = h.is_transactional();
    auto out = records::build_batch(options, kept);
    std::span<std::uint8_t> b(out);
    // The last offset delta stays that of the original batch, so the producer's
    // last sequence and the log's offsets survive the cleaning.
    put_be(b, kLastOffsetDeltaOffset, static_cast<std::uint32_t>(h.last_offset_delta), 4);
    put_be(b, kMaxTimestampOffset, static_cast<std::uint64_t>(max_timestamp), 8);
    if (set_horizon || horizon) {
        b[records::kAttributesOffset + 1] |= static_cast<std::uint8_t>(kDeleteHorizonBit);
    }
    update_crc(b);
    result.outcome = FilteredBatch::Outcome::rewritten;
    result.bytes = std::move(out);
    return result;
}

}  // namespace weir::storage
