#include "coordinator/txn/txn_manager.h"

#include <algorithm>

namespace weir::coordinator::txn {

namespace {

bool is_prepare(TxnState s) { return s == TxnState::prepare_commit || s == TxnState::prepare_abort; }

Step answer(ErrorCode error) {
    Step s;
    s.error = error;
    return s;
}

}  // namespace

ErrorCode map_append_error(ErrorCode error) {
    switch (error) {
        case ErrorCode::unknown_topic_or_partition:
        case ErrorCode::not_enough_replicas:
        case ErrorCode::not_enough_replicas_after_append:
        case ErrorCode::request_timed_out:  // the client retries
            return ErrorCode::coordinator_not_available;
        case ErrorCode::not_leader_or_follower:
        case ErrorCode::kafka_storage_error:
            return ErrorCode::not_coordinator;
        case ErrorCode::message_too_large:
        case ErrorCode::record_list_too_large:
            return ErrorCode::unknown_server_error;
        default:
            return error;
    }
}

TxnManager::TxnManager(TxnConfig config, Partitioner partitioner)
    : config_(config), partitioner_(std::move(partitioner)) {}

// ---- ownership ----

std::vector<MarkerJob> TxnManager::load(TimeMs now, std::int32_t partition, std::int32_t coordinator_epoch,
                                        const std::map<std::string, TxnTransit>& latest) {
    Partition& p = partitions_[partition];
    p = Partition{};
    p.coordinator_epoch = coordinator_epoch;
    std::vector<MarkerJob> jobs;
    for (const auto& [id, t] : latest) {
        TxnMetadata txn;
        txn.transactional_id = id;
        txn.producer_id = t.producer_id;
        txn.previous_producer_id = t.previous_producer_id;
        txn.producer_epoch = t.producer_epoch;
        // Kafka's readTxnRecordValue: the last epoch is not stored.
        txn.last_producer_epoch = kNoProducerEpoch;
        txn.timeout_ms = t.timeout_ms;
        txn.state = t.state;
        if (t.state != TxnState::empty) txn.partitions = t.partitions;
        txn.start_timestamp = t.start_timestamp;
        txn.last_update_timestamp = t.last_update_timestamp;
        auto& stored = p.txns.insert_or_assign(id, std::move(txn)).first->second;
        if (is_prepare(stored.state)) {
            TxnWrite origin;
            origin.partition = partition;
            origin.coordinator_epoch = coordinator_epoch;
            auto outcome = prepare_markers(now, origin, stored, stored.state == TxnState::prepare_commit);
            jobs.push_back(std::move(*outcome.markers));
        }
    }
    return jobs;
}

void TxnManager::unload(std::int32_t partition) { partitions_.erase(partition); }

TxnManager::Lookup TxnManager::lookup(const std::string& transactional_id) {
    Lookup out;
    auto it = partitions_.find(partitioner_(transactional_id));
    if (it == partitions_.end()) {
        out.error = ErrorCode::not_coordinator;
        return out;
    }
    out.partition = &it->second;
    if (auto t = it->second.txns.find(transactional_id); t != it->second.txns.end()) out.txn = &t->second;
    return out;
}

const TxnMetadata* TxnManager::find(const std::string& transactional_id) const {
    return const_cast<TxnManager*>(this)->lookup(transactional_id).txn;
}

std::size_t TxnManager::size() const {
    std::size_t n = 0;
    for (const auto& [_, p] : partitions_) n += p.txns.size();
    return n;
}

bool TxnManager::valid_timeout(std::int32_t timeout_ms) const {
    return timeout_ms > 0 && timeout_ms <= config_.max_timeout_ms;
}

// ---- transitions ----

TxnTransit TxnManager::transit_of(const TxnMetadata& txn) const {
    TxnTransit t;
    t.producer_id = txn.producer_id;
    // Kafka's TxnTransitMetadata.prevProducerId: the id in use when it was prepared.
    t.previous_producer_id = txn.producer_id;
    t.producer_epoch = txn.producer_epoch;
    t.last_producer_epoch = txn.last_producer_epoch;
    t.timeout_ms = txn.timeout_ms;
    t.state = txn.state;
    t.partitions = txn.partitions;
    t.start_timestamp = txn.start_timestamp;
    t.last_update_timestamp = txn.last_update_timestamp;
    return t;
}

TxnWrite TxnManager::prepare(TxnMetadata& txn, const Partition& partition, WriteKind kind, TxnTransit transit) {
    txn.pending = transit.state;
    TxnWrite w;
    w.kind = kind;
    w.transactional_id = txn.transactional_id;
    w.partition = partitioner_(txn.transactional_id);
    w.coordinator_epoch = partition.coordinator_epoch;
    w.transit = std::move(transit);
    return w;
}

void TxnManager::apply(TxnMetadata& txn, const TxnTransit& t) {
    // Kafka's completeTransitionTo, by target state.
    switch (t.state) {
        case TxnState::empty:
            txn.timeout_ms = t.timeout_ms;
            txn.producer_epoch = t.producer_epoch;
            txn.last_producer_epoch = t.last_producer_epoch;
            txn.producer_id = t.producer_id;
            txn.previous_producer_id = t.previous_producer_id;
            txn.partitions.clear();
            txn.start_timestamp = -1;
            break;
        case TxnState::ongoing:
            txn.start_timestamp = t.start_timestamp;
            txn.partitions.insert(t.partitions.begin(), t.partitions.end());
            break;
        case TxnState::complete_commit:
        case TxnState::complete_abort:
            txn.start_timestamp = t.start_timestamp;
            txn.partitions.clear();
            break;
        default:
            break;
    }
    txn.state = t.state;
    txn.last_update_timestamp = t.last_update_timestamp;
    txn.pending.reset();
}

Step TxnManager::init_producer_id(TimeMs now, const std::string& transactional_id, std::int32_t timeout_ms,
                                  std::optional<ProducerIdAndEpoch> expected,
                                  std::optional<std::int64_t> new_producer_id) {
    if (transactional_id.empty()) return answer(ErrorCode::invalid_request);
    if (!valid_timeout(timeout_ms)) return answer(ErrorCode::invalid_transaction_timeout);
    auto found = lookup(transactional_id);
    if (found.error != ErrorCode::none) return answer(found.error);
    // Producer ids are never negative: kNoProducerId means none at hand.
    std::int64_t fresh_id = new_producer_id.value_or(kNoProducerId);
    if (!found.txn) {
        if (fresh_id == kNoProducerId) {
            Step s;
            s.need_producer_id = true;
            return s;
        }
        TxnMetadata created;
        created.transactional_id = transactional_id;
        created.producer_id = fresh_id;
        created.timeout_ms = timeout_ms;
        created.state = TxnState::empty;
        created.last_update_timestamp = now;
        found.txn = &found.partition->txns.emplace(transactional_id, std::move(created)).first->second;
        fresh_id = kNoProducerId;  // used
    }
    TxnMetadata& txn = *found.txn;

    // KIP-360: a producer naming its id and epoch is fenced unless the id is
    // new, its own, or the previous one with an exhausted epoch (a retry of a
    // rotation it never heard of).
    auto valid_producer = [&](const ProducerIdAndEpoch& e) {
        return txn.producer_epoch == kNoProducerEpoch || e.producer_id == txn.producer_id ||
               (e.producer_id == txn.previous_producer_id && epoch_exhausted(e.epoch));
    };
    if (txn.pending) return answer(ErrorCode::concurrent_transactions);
    if (expected && !valid_producer(*expected)) return answer(ErrorCode::producer_fenced);

    switch (txn.state) {
        case TxnState::prepare_abort:
        case TxnState::prepare_commit:
            return answer(ErrorCode::concurrent_transactions);
        case TxnState::ongoing:
            // Abort it first; the producer retries (and gets its epoch then).
            return fence_and_abort(now, txn, *found.partition);
        case TxnState::empty:
        case TxnState::complete_commit:
        case TxnState::complete_abort:
            break;
        default:
            return answer(ErrorCode::unknown_server_error);
    }

    TxnTransit t = transit_of(txn);
    t.state = TxnState::empty;
    t.timeout_ms = timeout_ms;
    t.partitions.clear();
    t.start_timestamp = -1;
    t.last_update_timestamp = now;
    if (epoch_exhausted(txn.producer_epoch) && (!expected || expected->epoch == txn.producer_epoch)) {
        if (fresh_id == kNoProducerId) {
            Step s;
            s.need_producer_id = true;
            return s;
        }
        t.producer_id = fresh_id;
        t.producer_epoch = 0;
        t.last_producer_epoch = expected ? txn.producer_epoch : kNoProducerEpoch;
    } else {
        const auto bumped = static_cast<std::int16_t>(txn.producer_epoch + 1);
        if (!expected) {
            t.producer_epoch = bumped;
            t.last_producer_epoch = kNoProducerEpoch;
        } else if (txn.producer_epoch == kNoProducerEpoch || expected->epoch == txn.producer_epoch) {
            t.producer_epoch = bumped;
            t.last_producer_epoch = txn.producer_epoch;
        } else if (expected->epoch == txn.last_producer_epoch) {
            // A retry of a bump that succeeded: the same epoch again.
            t.producer_epoch = txn.producer_epoch;
            t.last_producer_epoch = txn.last_producer_epoch;
        } else {
            return answer(ErrorCode::producer_fenced);
        }
    }
    Step s;
    s.write = prepare(txn, *found.partition, WriteKind::init_producer_id, std::move(t));
    return s;
}

Step TxnManager::fence_and_abort(TimeMs now, TxnMetadata& txn, const Partition& partition) {
    // Kafka's prepareFenceProducerEpoch, then endTransaction(ABORT) from the
    // coordinator: the bumped epoch takes effect at once and fences the
    // producer; it is never answered (the producer gets it by retrying).
    if (!txn.failed_epoch_fence && txn.producer_epoch < INT16_MAX)
        txn.producer_epoch = static_cast<std::int16_t>(txn.producer_epoch + 1);
    txn.last_producer_epoch = kNoProducerEpoch;
    TxnTransit t = transit_of(txn);
    t.state = TxnState::prepare_abort;
    t.last_update_timestamp = now;
    Step s;
    s.write = prepare(txn, partition, WriteKind::epoch_fence, std::move(t));
    return s;
}

Step TxnManager::add_partitions(TimeMs now, const std::string& transactional_id, std::int64_t producer_id,
                                std::int16_t producer_epoch, const PartitionSet& partitions) {
    if (transactional_id.empty()) return answer(ErrorCode::invalid_request);
    auto found = lookup(transactional_id);
    if (found.error != ErrorCode::none) return answer(found.error);
    if (!found.txn) return answer(ErrorCode::invalid_producer_id_mapping);
    TxnMetadata& txn = *found.txn;
    if (txn.producer_id != producer_id) return answer(ErrorCode::invalid_producer_id_mapping);
    if (txn.producer_epoch != producer_epoch) return answer(ErrorCode::producer_fenced);
    if (txn.pending || is_prepare(txn.state)) return answer(ErrorCode::concurrent_transactions);
    if (txn.state == TxnState::ongoing &&
        std::includes(txn.partitions.begin(), txn.partitions.end(), partitions.begin(), partitions.end()))
        return answer(ErrorCode::none);
    if (!valid_transition(txn.state, TxnState::ongoing)) return answer(ErrorCode::invalid_txn_state);
    TxnTransit t = transit_of(txn);
    if (txn.state != TxnState::ongoing) t.start_timestamp = now;
    t.state = TxnState::ongoing;
    t.partitions.insert(partitions.begin(), partitions.end());
    t.last_update_timestamp = now;
    Step s;
    s.write = prepare(txn, *found.partition, WriteKind::add_partitions, std::move(t));
    return s;
}

std::map<TopicPartition, ErrorCode> TxnManager::verify_partitions(const std::string& transactional_id,
                                                                  std::int64_t producer_id, std::int16_t producer_epoch,
                                                                  const PartitionSet& partitions) const {
    std::map<TopicPartition, ErrorCode> out;
    auto all = [&](ErrorCode e) {
        for (const auto& tp : partitions) out[tp] = e;
        return out;
    };
    if (transactional_id.empty()) return all(ErrorCode::invalid_request);
    auto found = const_cast<TxnManager*>(this)->lookup(transactional_id);
    if (found.error != ErrorCode::none) return all(found.error);
    if (!found.txn || found.txn->producer_id != producer_id) return all(ErrorCode::invalid_producer_id_mapping);
    if (found.txn->producer_epoch != producer_epoch) return all(ErrorCode::producer_fenced);
    if (is_prepare(found.txn->state)) return all(ErrorCode::concurrent_transactions);
    for (const auto& tp : partitions)
        out[tp] = found.txn->partitions.contains(tp) ? ErrorCode::none : ErrorCode::transaction_abortable;
    return out;
}

Step TxnManager::end_txn(TimeMs now, const std::string& transactional_id, std::int64_t producer_id,
                         std::int16_t producer_epoch, bool commit) {
    if (transactional_id.empty()) return answer(ErrorCode::invalid_request);
    auto found = lookup(transactional_id);
    if (found.error != ErrorCode::none) return answer(found.error);
    if (!found.txn) return answer(ErrorCode::invalid_producer_id_mapping);
    TxnMetadata& txn = *found.txn;
    if (txn.producer_id != producer_id) return answer(ErrorCode::invalid_producer_id_mapping);
    // A client's epoch must be the current one (transactions before version 2).
    if (producer_epoch != txn.producer_epoch) return answer(ErrorCode::producer_fenced);
    if (txn.pending) return answer(ErrorCode::concurrent_transactions);
    auto same = [&](bool matches) {
        if (!matches) return answer(ErrorCode::invalid_txn_state);
        Step s;
        s.producer_id = txn.producer_id;
        s.producer_epoch = txn.producer_epoch;
        return s;
    };
    switch (txn.state) {
        case TxnState::ongoing: {
            TxnTransit t = transit_of(txn);
            t.state = commit ? TxnState::prepare_commit : TxnState::prepare_abort;
            t.last_update_timestamp = now;
            Step s;
            s.write = prepare(txn, *found.partition, WriteKind::end_txn, std::move(t));
            return s;
        }
        // A retry of an EndTxn that completed.
        case TxnState::complete_commit:
            return same(commit);
        case TxnState::complete_abort:
            return same(!commit);
        // A retry of one still completing.
        case TxnState::prepare_commit:
            return commit ? answer(ErrorCode::concurrent_transactions) : answer(ErrorCode::invalid_txn_state);
        case TxnState::prepare_abort:
            return !commit ? answer(ErrorCode::concurrent_transactions) : answer(ErrorCode::invalid_txn_state);
        case TxnState::empty:
            return answer(ErrorCode::invalid_txn_state);
        default:
            return answer(ErrorCode::unknown_server_error);
    }
}

// ---- the log ----

WriteOutcome TxnManager::write_done(TimeMs now, const TxnWrite& write, ErrorCode append_error) {
    WriteOutcome out;
    out.error = map_append_error(append_error);
    auto found = lookup(write.transactional_id);
    const bool ours = found.txn && found.partition->coordinator_epoch == write.coordinator_epoch;
    if (out.error == ErrorCode::none) {
        if (found.error != ErrorCode::none) {
            out.error = found.error;
        } else if (!ours) {
            // The partition moved away and back meanwhile: what it replayed rules.
            out.error = ErrorCode::not_coordinator;
        }
    }
    if (out.error != ErrorCode::none) {
        if (ours) {
            TxnMetadata& txn = *found.txn;
            if (write.kind == WriteKind::complete && out.error == ErrorCode::coordinator_not_available) {
                out.retry = true;  // keeps its pending state
            } else {
                txn.pending.reset();
            }
            if (write.kind == WriteKind::epoch_fence) txn.failed_epoch_fence = true;
        }
        return out;
    }

    TxnMetadata& txn = *found.txn;
    if (write.kind == WriteKind::expire) {
        found.partition->txns.erase(write.transactional_id);
        return out;
    }
    apply(txn, write.transit);
    switch (write.kind) {
        case WriteKind::init_producer_id:
            out.producer_id = txn.producer_id;
            out.producer_epoch = txn.producer_epoch;
            break;
        case WriteKind::epoch_fence: {
            auto markers = prepare_markers(now, write, txn, false);
            // The fenced producer's InitProducerId retries once the abort completed.
            markers.error = markers.error == ErrorCode::none ? ErrorCode::concurrent_transactions : markers.error;
            markers.producer_id = kNoProducerId;
            markers.producer_epoch = kNoProducerEpoch;
            return markers;
        }
        case WriteKind::end_txn:
            return prepare_markers(now, write, txn, write.transit.state == TxnState::prepare_commit);
        default:
            break;
    }
    return out;
}

WriteOutcome TxnManager::prepare_markers(TimeMs now, const TxnWrite& write, TxnMetadata& txn, bool commit) {
    WriteOutcome out;
    // Kafka's sendTxnMarkersCallback, then prepareComplete.
    if (txn.pending) {
        out.error = ErrorCode::concurrent_transactions;
        return out;
    }
    if (txn.state != (commit ? TxnState::prepare_commit : TxnState::prepare_abort)) {
        out.error = ErrorCode::invalid_txn_state;
        return out;
    }
    txn.failed_epoch_fence = false;
    TxnTransit complete = transit_of(txn);
    complete.state = commit ? TxnState::complete_commit : TxnState::complete_abort;
    complete.partitions.clear();
    complete.last_update_timestamp = now;
    txn.pending = complete.state;
    MarkerJob job;
    job.transactional_id = txn.transactional_id;
    job.partition = write.partition;
    job.coordinator_epoch = write.coordinator_epoch;
    job.producer_id = txn.producer_id;
    job.producer_epoch = txn.producer_epoch;
    job.commit = commit;
    job.partitions = txn.partitions;
    job.complete = std::move(complete);
    out.producer_id = txn.producer_id;
    out.producer_epoch = txn.producer_epoch;
    out.markers = std::move(job);
    return out;
}

void TxnManager::marker_done(const MarkerJob& job, const TopicPartition& tp) {
    auto found = lookup(job.transactional_id);
    if (!found.txn || found.partition->coordinator_epoch != job.coordinator_epoch) return;
    found.txn->partitions.erase(tp);
}

bool TxnManager::job_current(const MarkerJob& job) const {
    auto found = const_cast<TxnManager*>(this)->lookup(job.transactional_id);
    return found.txn && found.partition->coordinator_epoch == job.coordinator_epoch &&
           found.txn->pending == job.complete.state && found.txn->producer_id == job.producer_id;
}

std::optional<TxnWrite> TxnManager::markers_done(const MarkerJob& job) {
    if (!job_current(job)) return std::nullopt;
    TxnWrite w;
    w.kind = WriteKind::complete;
    w.transactional_id = job.transactional_id;
    w.partition = job.partition;
    w.coordinator_epoch = job.coordinator_epoch;
    w.transit = job.complete;
    return w;
}

// ---- housekeeping ----

std::vector<TxnWrite> TxnManager::abort_timed_out(TimeMs now) {
    std::vector<TxnWrite> out;
    for (auto& [_, partition] : partitions_) {
        for (auto& [id, txn] : partition.txns) {
            if (txn.pending || txn.state != TxnState::ongoing) continue;
            if (txn.start_timestamp + txn.timeout_ms >= now) continue;
            auto step = fence_and_abort(now, txn, partition);
            out.push_back(std::move(*step.write));
        }
    }
    return out;
}

std::vector<TxnWrite> TxnManager::expire(TimeMs now) {
    std::vector<TxnWrite> out;
    for (auto& [_, partition] : partitions_) {
        for (auto& [id, txn] : partition.txns) {
            if (txn.pending || !expiration_allowed(txn.state)) continue;
            if (txn.last_update_timestamp > now - config_.id_expiration_ms) continue;
            TxnTransit t = transit_of(txn);
            t.state = TxnState::dead;
            t.partitions.clear();
            out.push_back(prepare(txn, partition, WriteKind::expire, std::move(t)));
        }
    }
    return out;
}

// ---- admin ----

DescribedTxn TxnManager::describe(const std::string& transactional_id) const {
    DescribedTxn out;
    if (transactional_id.empty()) {
        out.error = ErrorCode::invalid_request;
        return out;
    }
    auto found = const_cast<TxnManager*>(this)->lookup(transactional_id);
    if (found.error != ErrorCode::none) {
        out.error = found.error;
        return out;
    }
    if (!found.txn || found.txn->state == TxnState::dead) {
        out.error = ErrorCode::transactional_id_not_found;
        return out;
    }
    const TxnMetadata& txn = *found.txn;
    out.state = std::string(state_name(txn.state));
    out.producer_id = txn.producer_id;
    out.producer_epoch = txn.producer_epoch;
    out.timeout_ms = txn.timeout_ms;
    out.start_timestamp = txn.start_timestamp;
    out.partitions = txn.partitions;
    return out;
}

ListResult TxnManager::list(TimeMs now, const ListFilters& filters) const {
    ListResult out;
    std::vector<TxnState> states;
    for (const auto& name : filters.states) {
        if (auto s = state_from_name(name)) {
            states.push_back(*s);
        } else {
            out.unknown_states.push_back(name);
        }
    }
    for (const auto& [_, partition] : partitions_) {
        for (const auto& [id, txn] : partition.txns) {
            // Dead is transient: the id is being removed.
            if (txn.state == TxnState::dead) continue;
            if (!filters.producer_ids.empty() && std::find(filters.producer_ids.begin(), filters.producer_ids.end(),
                                                           txn.producer_id) == filters.producer_ids.end())
                continue;
            if (!filters.states.empty() && std::find(states.begin(), states.end(), txn.state) == states.end()) continue;
            if (filters.min_duration_ms >= 0 && now - txn.start_timestamp <= filters.min_duration_ms) continue;
            out.transactions.push_back(ListedTxn{id, txn.producer_id, std::string(state_name(txn.state))});
        }
    }
    return out;
}

}  // namespace weir::coordinator::txn
