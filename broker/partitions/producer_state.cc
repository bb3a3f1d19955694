#include "broker/partitions/producer_state.h"

#include <algorithm>
#include <limits>

#include "broker/common/logging.h"

namespace weir::partitions {

namespace {

constexpr std::int32_t kMaxSequence = std::numeric_limits<std::int32_t>::max();

// ProducerAppendInfo.inSequence.
bool in_sequence(std::int32_t last, std::int32_t next) {
    return std::int64_t{next} == std::int64_t{last} + 1 || (next == 0 && last == kMaxSequence);
}

// ProducerStateEntry.findDuplicateBatch: same epoch, same sequence range.
std::optional<ProducerBatch> find_duplicate(const ProducerEntry& entry, const records::BatchHeader& batch) {
    if (batch.producer_epoch != entry.epoch) return std::nullopt;
    const auto last = last_sequence(batch);
    for (const auto& b : entry.batches)
        if (b.first_sequence == batch.base_sequence && b.last_sequence == last) return b;
    return std::nullopt;
}

}  // namespace

std::int32_t increment_sequence(std::int32_t sequence, std::int32_t increment) {
    if (sequence > kMaxSequence - increment) return increment - (kMaxSequence - sequence) - 1;
    return sequence + increment;
}

std::int32_t decrement_sequence(std::int32_t sequence, std::int32_t decrement) {
    if (sequence < decrement) return kMaxSequence - (decrement - sequence) + 1;
    return sequence - decrement;
}

std::int32_t last_sequence(const records::BatchHeader& batch) {
    if (batch.base_sequence == kNoSequence) return kNoSequence;
    return increment_sequence(batch.base_sequence, batch.last_offset_delta);
}

void ProducerEntry::set_epoch(std::int16_t next) {
    if (epoch == next) return;
    batches.clear();
    epoch = next;
}

void ProducerEntry::add_batch(std::int16_t batch_epoch, const ProducerBatch& batch) {
    set_epoch(batch_epoch);
    if (batches.size() == kProducerBatchesRetained) batches.pop_front();
    batches.push_back(batch);
    last_timestamp = batch.timestamp;
}

std::optional<records::EndTxnMarker> end_txn_marker_of(const records::BatchHeader& header,
                                                       std::span<const std::uint8_t> batch) {
    if (!header.is_control()) return std::nullopt;
    try {
        return records::parse_end_txn_marker(batch);
    } catch (const wire::DecodeError& e) {
        logging::warn("control batch at offset {} of producer {} has no readable marker: {}", header.base_offset,
                      header.producer_id, e.what());
        return std::nullopt;
    }
}

ProducerAppend ProducerStateManager::prepare(std::span<const records::BatchHeader> batches, AppendOrigin origin) const {
    std::vector<ProducerBatchView> views;
    views.reserve(batches.size());
    for (const auto& h : batches) views.push_back({h, std::nullopt});
    return prepare(views, origin);
}

ProducerAppend ProducerStateManager::prepare(std::span<const ProducerBatchView> batches, AppendOrigin origin) const {
    ProducerAppend out;
    const ProducerEntry unknown;
    for (const auto& view : batches) {
        const auto& batch = view.header;
        if (batch.producer_id <= kNoProducerId) continue;
        const ProducerEntry* found = find(batch.producer_id);
        const ProducerEntry& current = found ? *found : unknown;
        if (origin == AppendOrigin::client && found) {
            if (auto duplicate = find_duplicate(current, batch)) {
                out = ProducerAppend{};
                out.duplicate = duplicate;
                return out;
            }
        }
        // An empty control batch: the cleaner removed the transaction it ended.
        if (batch.is_control() && !view.marker) continue;

        // Kafka's ProducerAppendInfo: the entry as this append leaves it
        // starts as the current one without its batches.
        auto [it, first_of_producer] = out.updated.try_emplace(batch.producer_id);
        ProducerEntry& updated = it->second;
        if (first_of_producer) {
            updated.epoch = current.epoch;
            updated.last_timestamp = current.last_timestamp;
            updated.coordinator_epoch = current.coordinator_epoch;
            updated.current_txn_first_offset = current.current_txn_first_offset;
        }
        const auto where = [&] {
            return "producer " + std::to_string(batch.producer_id) + " at offset " + std::to_string(batch.base_offset) +
                   " in partition " + tp_.to_string();
        };
        auto fail = [&](ErrorCode error, std::string message) {
            out = ProducerAppend{};
            out.error = error;
            out.error_message = std::move(message);
            return out;
        };
        // checkProducerEpoch. Since Kafka 2.7 an older epoch is
        // INVALID_PRODUCER_EPOCH (not PRODUCER_FENCED) for data and markers
        // alike, so that a producer can abort and retry.
        if (batch.producer_epoch < updated.epoch) {
            auto message = "Epoch of " + where() + " is " + std::to_string(batch.producer_epoch) +
                           ", which is smaller than the last seen epoch " + std::to_string(updated.epoch);
            if (origin != AppendOrigin::replication) return fail(ErrorCode::invalid_producer_epoch, std::move(message));
            logging::warn("{}", message);
        }
        if (view.marker) {
            // appendEndTxnMarker: checkCoordinatorEpoch, then the transaction
            // (if the producer had one open here) ends.
            const auto& marker = *view.marker;
            if (updated.coordinator_epoch > marker.coordinator_epoch) {
                auto message = "Invalid coordinator epoch for producerId " + std::to_string(batch.producer_id) +
                               " at offset " + std::to_string(batch.base_offset) + " in partition " + tp_.to_string() +
                               ": " + std::to_string(marker.coordinator_epoch) + " (zombie), " +
                               std::to_string(updated.coordinator_epoch) + " (current)";
                if (origin != AppendOrigin::replication)
                    return fail(ErrorCode::transaction_coordinator_fenced, std::move(message));
                logging::info("{}", message);
            }
            // A marker without data here changes neither the LSO nor the index.
            if (updated.current_txn_first_offset >= 0)
                out.completed.push_back({batch.producer_id, updated.current_txn_first_offset, batch.base_offset,
                                         marker.type == records::ControlRecordType::abort});
            updated.set_epoch(batch.producer_epoch);
            updated.coordinator_epoch = marker.coordinator_epoch;
            updated.last_timestamp = batch.max_timestamp;
            updated.current_txn_first_offset = -1;
            continue;
        }
        // checkSequence: a new epoch starts at 0; within an epoch each batch
        // follows the last. A producer this partition does not know (new,
        // or expired, or its data deleted) may start anywhere.
        if (origin == AppendOrigin::client) {
            if (batch.producer_epoch != updated.epoch) {
                if (batch.base_sequence != 0 && updated.epoch != kNoProducerEpoch)
                    return fail(ErrorCode::out_of_order_sequence_number,
                                "Invalid sequence number for new epoch of " + where() + ": " +
                                    std::to_string(batch.producer_epoch) + " (request epoch), " +
                                    std::to_string(batch.base_sequence) + " (seq. number), " +
                                    std::to_string(updated.epoch) + " (current producer epoch)");
            } else {
                std::int32_t current_last = kNoSequence;
                if (!updated.batches.empty())
                    current_last = updated.last_sequence();
                else if (batch.producer_epoch == current.epoch)
                    current_last = current.last_sequence();
                if (current.epoch != kNoProducerEpoch && !in_sequence(current_last, batch.base_sequence))
                    return fail(ErrorCode::out_of_order_sequence_number,
                                "Out of order sequence number for " + where() + ": " +
                                    std::to_string(batch.base_sequence) + " (incoming seq. number), " +
                                    std::to_string(current_last) + " (current end sequence number)");
            }
        }
        updated.add_batch(batch.producer_epoch, {batch.base_sequence, last_sequence(batch), batch.base_offset,
                                                 batch.last_offset(), batch.max_timestamp});
        // appendDataBatch: the first transactional batch opens a transaction;
        // a plain batch while one is open is refused.
        if (updated.current_txn_first_offset >= 0 && !batch.is_transactional()) {
            auto message = "Expected transactional write from " + where();
            if (origin != AppendOrigin::replication) return fail(ErrorCode::invalid_txn_state, std::move(message));
            logging::warn("{}", message);
        } else if (updated.current_txn_first_offset < 0 && batch.is_transactional()) {
            updated.current_txn_first_offset = batch.base_offset;
            out.started.emplace_back(batch.producer_id, batch.base_offset);
        }
    }
    return out;
}

std::vector<CompletedTxn> ProducerStateManager::commit(ProducerAppend append) {
    for (auto& [producer_id, next] : append.updated) {
        // ProducerStateEntry.update: the epoch (a new one drops the old
        // batches), then this append's batches after those kept.
        auto& entry = producers_[producer_id];
        entry.set_epoch(next.epoch);
        entry.coordinator_epoch = next.coordinator_epoch;
        entry.last_timestamp = next.last_timestamp;
        entry.current_txn_first_offset = next.current_txn_first_offset;
        for (const auto& batch : next.batches) {
            if (entry.batches.size() == kProducerBatchesRetained) entry.batches.pop_front();
            entry.batches.push_back(batch);
        }
    }
    for (const auto& [producer_id, first_offset] : append.started) ongoing_txns_[first_offset] = producer_id;
    // UnifiedLog.append: each transaction's last stable offset as of its
    // marker, then the transaction waits for the high watermark.
    for (auto& txn : append.completed) {
        txn.last_stable_offset = last_stable_offset_of(txn);
        ongoing_txns_.erase(txn.first_offset);
        unreplicated_txns_[txn.first_offset] = {txn.producer_id, txn.last_offset};
    }
    return std::move(append.completed);
}

std::vector<CompletedTxn> ProducerStateManager::apply(std::span<const ProducerBatchView> batches) {
    return commit(prepare(batches, AppendOrigin::replication));
}

std::vector<CompletedTxn> ProducerStateManager::apply(std::span<const records::BatchHeader> batches) {
    return commit(prepare(batches, AppendOrigin::replication));
}

std::int64_t ProducerStateManager::last_stable_offset_of(const CompletedTxn& txn) const {
    for (const auto& [first_offset, producer_id] : ongoing_txns_)
        if (producer_id != txn.producer_id) return first_offset;
    return txn.last_offset + 1;
}

std::optional<std::int64_t> ProducerStateManager::first_unstable_offset() const {
    std::optional<std::int64_t> first;
    if (!ongoing_txns_.empty()) first = ongoing_txns_.begin()->first;
    if (!unreplicated_txns_.empty() && (!first || unreplicated_txns_.begin()->first < *first))
        first = unreplicated_txns_.begin()->first;
    return first;
}

std::optional<std::int64_t> ProducerStateManager::first_undecided_offset() const {
    if (ongoing_txns_.empty()) return std::nullopt;
    return ongoing_txns_.begin()->first;
}

void ProducerStateManager::on_high_watermark(std::int64_t offset) {
    std::erase_if(unreplicated_txns_, [&](const auto& txn) { return txn.second.second < offset; });
}

void ProducerStateManager::clear() {
    producers_.clear();
    ongoing_txns_.clear();
    unreplicated_txns_.clear();
}

const ProducerEntry* ProducerStateManager::find(std::int64_t producer_id) const {
    auto it = producers_.find(producer_id);
    return it == producers_.end() ? nullptr : &it->second;
}

void ProducerStateManager::remove_expired(std::int64_t now_ms, std::int64_t expiration_ms) {
    std::erase_if(producers_, [&](const auto& entry) {
        const auto& e = entry.second;
        return e.current_txn_first_offset < 0 && now_ms - e.last_timestamp >= expiration_ms;
    });
}

std::vector<storage::ProducerSnapshotEntry> ProducerStateManager::to_snapshot() const {
    std::vector<storage::ProducerSnapshotEntry> out;
    out.reserve(producers_.size());
    for (const auto& [producer_id, entry] : producers_) {
        storage::ProducerSnapshotEntry e;
        e.producer_id = producer_id;
        e.epoch = entry.epoch;
        e.timestamp = entry.last_timestamp;
        e.coordinator_epoch = entry.coordinator_epoch;
        e.current_txn_first_offset = entry.current_txn_first_offset;
        if (!entry.batches.empty()) {
            const auto& last = entry.batches.back();
            e.last_sequence = last.last_sequence;
            e.last_offset = last.last_offset;
            e.offset_delta = static_cast<std::int32_t>(last.last_offset - last.first_offset);
        }
        out.push_back(e);
    }
    return out;
}

void ProducerStateManager::load_snapshot(const std::vector<storage::ProducerSnapshotEntry>& entries) {
    clear();
    for (const auto& e : entries) {
        ProducerEntry entry;
        entry.epoch = e.epoch;
        entry.last_timestamp = e.timestamp;
        entry.coordinator_epoch = e.coordinator_epoch;
        entry.current_txn_first_offset = e.current_txn_first_offset;
        if (e.last_offset >= 0) {
            entry.batches.push_back({decrement_sequence(e.last_sequence, e.offset_delta), e.last_sequence,
                                     e.last_offset - e.offset_delta, e.last_offset, e.timestamp});
        }
        // Kafka's loadFromSnapshot: open transactions survive the restart.
        if (e.current_txn_first_offset >= 0) ongoing_txns_[e.current_txn_first_offset] = e.producer_id;
        producers_[e.producer_id] = std::move(entry);
    }
}

}  // namespace weir::partitions
