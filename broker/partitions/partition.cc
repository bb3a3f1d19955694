#include "broker/partitions/partition.h"

#include <algorithm>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "broker/common/logging.h"
#include "broker/storage/leader_epoch_checkpoint.h"
#include "broker/storage/partition_log.h"
#include "broker/storage/producer_snapshot_file.h"
#include "protocol/records/control_record.h"
#include "protocol/records/record_batch.h"

namespace weir::partitions {

namespace asio = boost::asio;

namespace {

// An append to the log, with storage's failures answered as Kafka answers
// them: KAFKA_STORAGE_ERROR for I/O, CORRUPT_MESSAGE for batches it cannot
// take.
template <typename Write>
AppendResult write_to_log(storage::PartitionLog& storage, StorageErrorLog& log, Write write) {
    const auto& tp = storage.topic_partition();
    AppendResult result;
    try {
        auto appended = storage::with_storage_errors(write);
        result.base_offset = appended.base_offset;
        result.last_offset = appended.last_offset;
        result.log_append_time = appended.log_append_time;
        result.log_start_offset = appended.log_start_offset;
    } catch (const storage::StorageError& e) {
        storage.io_failed(e);
        // A full disk fails every retry of every producer: a line a minute
        // per partition, with how many were left out.
        const auto now = std::chrono::steady_clock::now();
        if (now - log.last >= std::chrono::minutes(1)) {
            if (log.suppressed > 0)
                logging::error("append to {} failed: {} ({} more failures in the last minute)", tp.to_string(),
                               e.what(), log.suppressed);
            else
                logging::error("append to {} failed: {}", tp.to_string(), e.what());
            log.last = now;
            log.suppressed = 0;
        } else {
            ++log.suppressed;
        }
        result.error = ErrorCode::kafka_storage_error;
        result.error_message = e.what();
    } catch (const wire::DecodeError& e) {
        result.error = ErrorCode::corrupt_message;
        result.error_message = e.what();
    }
    return result;
}

}  // namespace

Partition::Subscription::Subscription(std::weak_ptr<Partition> partition, ChangeListeners::Id id)
    : partition_(std::move(partition)), id_(id) {}

Partition::Subscription::Subscription(Subscription&& other) noexcept
    : partition_(std::move(other.partition_)), id_(std::exchange(other.id_, 0)) {}

Partition::Subscription& Partition::Subscription::operator=(Subscription&& other) noexcept {
    if (this != &other) {
        reset();
        partition_ = std::move(other.partition_);
        id_ = std::exchange(other.id_, 0);
    }
    return *this;
}

Partition::Subscription::~Subscription() { reset(); }

void Partition::Subscription::reset() {
    if (auto partition = partition_.lock(); partition && id_ != 0) partition->change_listeners_.remove(id_);
    partition_.reset();
    id_ = 0;
}

Partition::Partition(TopicPartition tp, std::int32_t local_broker_id, std::shared_ptr<storage::PartitionLog> log,
                     asio::any_io_executor executor)
    : tp_(std::move(tp)),
      local_broker_id_(local_broker_id),
      log_(std::move(log)),
      executor_(std::move(executor)),
      high_watermark_(log_->log_start_offset()),
      producer_state_(tp_) {
    epoch_starts_ = storage::read_leader_epoch_checkpoint(log_->dir());
    // Epochs past the log end were lost with their data (an unclean stop).
    const auto before = epoch_starts_.size();
    while (!epoch_starts_.empty() && epoch_starts_.back().second > log_->log_end_offset()) epoch_starts_.pop_back();
    if (epoch_starts_.size() != before) save_epochs();
    // Kafka's LogLoader: a clean shutdown writes a producer snapshot at the
    // log end, so a cleanly closed log without any was written before
    // producer state existed (no idempotent producer wrote to it): nothing to
    // replay, which keeps the first start after an upgrade fast.
    if (!log_->opened_clean() || !storage::list_producer_snapshots(log_->dir()).empty()) load_producer_state();
    // The log outlives this partition (the LogManager owns it too).
    log_->set_roll_hook([this](std::int64_t base) { take_producer_snapshot(base, storage::Durability::deferred); });
}

void Partition::save_epochs() {
    if (log_->offline()) return;
    try {
        storage::write_leader_epoch_checkpoint(log_->dir(), epoch_starts_);
    } catch (const storage::StorageError& e) {
        log_->io_failed(e);
        logging::error("writing the leader epoch checkpoint of {} failed: {}", tp_.to_string(), e.what());
    } catch (const std::exception& e) {
        logging::error("writing the leader epoch checkpoint of {} failed: {}", tp_.to_string(), e.what());
    }
}

Partition::~Partition() { log_->set_roll_hook({}); }

const LogConfig& Partition::config() const { return log_->config(); }
const std::filesystem::path& Partition::dir() const { return log_->dir(); }

std::int64_t Partition::log_start_offset() const { return log_->log_start_offset(); }
std::int64_t Partition::log_end_offset() const { return log_->log_end_offset(); }
std::vector<std::int64_t> Partition::segment_base_offsets() const { return log_->segment_base_offsets(); }

void Partition::set_state(const LeaderAndIsr& state) {
    // The state held, presented again (another partition of the topic
    // changed), answers no proposal: one still pending stays pending, or the
    // next fetch would write it to the metadata a second time.
    const bool same = state.leader == leader_ && state.leader_epoch == leader_epoch_ && state.replicas == replicas_ &&
                      state.isr == isr_;
    leader_ = state.leader;
    leader_epoch_ = state.leader_epoch;
    replicas_ = state.replicas;
    isr_ = state.isr;
    if (!same) proposed_isr_.reset();
    auto gone = [&](const auto& entry) {
        return std::find(replicas_.begin(), replicas_.end(), entry.first) == replicas_.end();
    };
    std::erase_if(follower_positions_, gone);
    std::erase_if(follower_caught_up_, gone);
    std::erase_if(follower_last_fetch_, gone);
}

void Partition::start_epoch(std::int32_t epoch) {
    log_->set_leader_epoch(epoch);
    if (!epoch_starts_.empty() && epoch_starts_.back().first == epoch) return;  // leading again in the same epoch
    const auto start = epoch_starts_.empty() ? log_->log_start_offset() : log_->log_end_offset();
    // Kafka's LeaderEpochFileCache.assign: entries not before the new one go.
    while (!epoch_starts_.empty() && (epoch_starts_.back().first >= epoch || epoch_starts_.back().second >= start))
        epoch_starts_.pop_back();
    epoch_starts_.emplace_back(epoch, start);
    save_epochs();
}

ErrorCode Partition::make_leader(const LeaderAndIsr& state) {
    if (stopped_) return stop_reason_;
    if (state.leader_epoch < leader_epoch_) return ErrorCode::stale_controller_epoch;
    const bool new_epoch = state.leader_epoch > leader_epoch_ || !is_leader_;
    set_state(state);
    is_leader_ = true;
    if (new_epoch) {
        start_epoch(state.leader_epoch);
        // Followers prove their position again in the new epoch; the ones in
        // the ISR get max_lag from now to do so.
        follower_positions_.clear();
        follower_caught_up_.clear();
        follower_last_fetch_.clear();
        leader_since_ = std::chrono::steady_clock::now();
    }
    // A shrunk ISR may let the high watermark move.
    maybe_advance_high_watermark();
    if (new_epoch) change_listeners_.notify();  // parked fetches check their epoch again
    return ErrorCode::none;
}

ErrorCode Partition::make_follower(const LeaderAndIsr& state) {
    if (stopped_) return stop_reason_;
    if (state.leader_epoch < leader_epoch_) return ErrorCode::stale_controller_epoch;
    const bool changed = is_leader_ || state.leader_epoch > leader_epoch_;
    set_state(state);
    is_leader_ = false;
    follower_positions_.clear();
    high_watermark_waiters_.fail_all(ErrorCode::not_leader_or_follower);
    if (changed) change_listeners_.notify();
    return ErrorCode::none;
}

void Partition::stop(ErrorCode reason) {
    if (stopped_) return;
    stopped_ = true;
    stop_reason_ = reason;
    is_leader_ = false;
    abort_waiters(reason);
}

void Partition::abort_waiters(ErrorCode error) {
    high_watermark_waiters_.fail_all(error);
    change_listeners_.notify();
}

ErrorCode Partition::check_leader_epoch(std::int32_t current_leader_epoch) const {
    if (current_leader_epoch == kNoLeaderEpoch) return ErrorCode::none;
    if (current_leader_epoch < leader_epoch_) return ErrorCode::fenced_leader_epoch;
    if (current_leader_epoch > leader_epoch_) return ErrorCode::unknown_leader_epoch;
    return ErrorCode::none;
}

bool Partition::offline() const { return log_->offline(); }

ErrorCode Partition::check_leader(std::int32_t current_leader_epoch, bool require_leader) const {
    if (stopped_) return stop_reason_;
    // Kafka's HostedPartition.Offline: the log dir's disk failed.
    if (log_->offline()) return ErrorCode::kafka_storage_error;
    if (auto error = check_leader_epoch(current_leader_epoch); error != ErrorCode::none) return error;
    if (require_leader && !is_leader_) return ErrorCode::not_leader_or_follower;
    return ErrorCode::none;
}

bool Partition::maybe_advance_high_watermark() {
    if (!is_leader_) return false;
    auto candidate = log_->log_end_offset();
    for (auto replica : isr_) {
        if (replica == local_broker_id_) continue;
        auto it = follower_positions_.find(replica);
        // A follower that has not fetched in this epoch holds the high watermark where it is.
        candidate = std::min(candidate, it == follower_positions_.end() ? high_watermark_ : it->second);
    }
    if (candidate <= high_watermark_) return false;
    high_watermark_ = candidate;
    producer_state_.on_high_watermark(high_watermark_);
    high_watermark_waiters_.complete_up_to(high_watermark_);
    return true;
}

bool Partition::update_follower_position(std::int32_t replica, std::int64_t log_end_offset,
                                         std::chrono::steady_clock::time_point now) {
    if (stopped_ || !is_leader_ || replica == local_broker_id_) return false;
    if (std::find(replicas_.begin(), replicas_.end(), replica) == replicas_.end()) return false;
    const auto leader_end = log_->log_end_offset();
    follower_positions_[replica] = std::min(log_end_offset, leader_end);
    // Kafka's Replica.updateFetchState: caught up now if it has everything,
    // or as of its previous fetch if it has all the leader had then (under
    // steady production a follower is never level with the log end).
    auto& last = follower_last_fetch_[replica];
    auto& caught_up = follower_caught_up_[replica];
    if (log_end_offset >= leader_end) {
        caught_up = std::max(caught_up, now);
    } else if (last.first > 0 && log_end_offset >= last.first) {
        caught_up = std::max(caught_up, last.second);
    }
    last = {leader_end, now};
    if (maybe_advance_high_watermark()) change_listeners_.notify();
    return true;
}

std::optional<std::vector<std::int32_t>> Partition::isr_change(std::chrono::steady_clock::time_point now,
                                                               std::chrono::milliseconds max_lag,
                                                               std::optional<std::int32_t> fetching) {
    if (stopped_ || !is_leader_) return std::nullopt;
    // One proposal at a time; one the metadata never answered is retried.
    if (proposed_isr_ && now - proposed_at_ < max_lag) return std::nullopt;
    auto keeps_up = [&](std::int32_t replica) {
        auto caught_up = follower_caught_up_.find(replica);
        auto last = caught_up == follower_caught_up_.end() ? leader_since_ : std::max(caught_up->second, leader_since_);
        return now - last <= max_lag;
    };
    // The periodic check can only drop members: while every one keeps up it
    // has nothing to build (it runs each second over every partition led).
    auto stays = [&](std::int32_t replica) {
        return std::find(replicas_.begin(), replicas_.end(), replica) != replicas_.end() &&
               (replica == local_broker_id_ || keeps_up(replica));
    };
    if (!fetching && std::find(isr_.begin(), isr_.end(), local_broker_id_) != isr_.end() &&
        std::all_of(isr_.begin(), isr_.end(), stays))
        return std::nullopt;
    const auto epoch_start = epoch_starts_.empty() ? log_->log_start_offset() : epoch_starts_.back().second;
    std::vector<std::int32_t> next;
    for (auto replica : replicas_) {
        const bool in_isr = std::find(isr_.begin(), isr_.end(), replica) != isr_.end();
        if (replica == local_broker_id_) {
            next.push_back(replica);
            continue;
        }
        if (in_isr) {
            if (keeps_up(replica)) next.push_back(replica);
            continue;
        }
        auto position = follower_positions_.find(replica);
        if (replica == fetching && position != follower_positions_.end() && position->second >= high_watermark_ &&
            position->second >= epoch_start)
            next.push_back(replica);
    }
    std::vector<std::int32_t> current = isr_;
    std::vector<std::int32_t> proposed = next;
    std::sort(current.begin(), current.end());
    std::sort(proposed.begin(), proposed.end());
    if (current == proposed) return std::nullopt;
    proposed_isr_ = next;
    proposed_at_ = now;
    return next;
}

AppendResult Partition::append_as_follower(std::span<const std::uint8_t> batches) {
    AppendResult result;
    if (stopped_) {
        result.error = stop_reason_;
        return result;
    }
    if (log_->offline()) {
        result.error = ErrorCode::kafka_storage_error;
        return result;
    }
    if (is_leader_) {
        result.error = ErrorCode::not_leader_or_follower;
        return result;
    }
    result = write_to_log(*log_, storage_error_log_, [&] { return log_->append_replicated(batches); });
    if (result.error != ErrorCode::none) return result;
    // The leader's epochs become this replica's history (Kafka's follower
    // assigns its leader epoch cache from the batches it appends).
    // Their producers' state too, so that this replica dedups as the leader
    // did once it leads.
    bool learned = false;
    auto views = producer_batches(batches);
    for (const auto& view : views) {
        const auto& h = view.header;
        if (h.partition_leader_epoch >= 0 &&
            (epoch_starts_.empty() || h.partition_leader_epoch > epoch_starts_.back().first)) {
            epoch_starts_.emplace_back(h.partition_leader_epoch, h.base_offset);
            learned = true;
        }
    }
    if (learned) save_epochs();
    record_completed_txns(producer_state_.apply(views));
    change_listeners_.notify();
    return result;
}

void Partition::follow_high_watermark(std::int64_t leader_high_watermark) {
    if (stopped_ || is_leader_) return;
    const auto next = std::min(leader_high_watermark, log_->log_end_offset());
    if (next == high_watermark_) return;
    high_watermark_ = next;
    producer_state_.on_high_watermark(high_watermark_);
    change_listeners_.notify();
}

void Partition::restore_high_watermark(std::int64_t checkpointed) {
    if (stopped_) return;
    const auto next = std::clamp(checkpointed, log_->log_start_offset(), log_->log_end_offset());
    if (next <= high_watermark_) return;
    high_watermark_ = next;
    producer_state_.on_high_watermark(high_watermark_);
    change_listeners_.notify();
}

void Partition::follow_log_start_offset(std::int64_t leader_log_start_offset) {
    if (stopped_ || is_leader_ || leader_log_start_offset <= log_->log_start_offset()) return;
    try {
        if (leader_log_start_offset > log_->log_end_offset()) {
            log_->truncate_fully_and_start_at(leader_log_start_offset);
            // Nothing of the old log is left to describe (Kafka's
            // ProducerStateManager.truncateFullyAndStartAt).
            for (auto offset : storage::list_producer_snapshots(log_->dir()))
                storage::delete_producer_snapshot(log_->dir(), offset);
            producer_state_.clear();
            snapshot_offset_ = -1;
        } else {
            log_->delete_records_before(leader_log_start_offset);
            producer_state_.on_high_watermark(log_->log_start_offset());
        }
    } catch (const storage::StorageError& e) {
        log_->io_failed(e);
        logging::error("moving the log start of {} to {} failed: {}", tp_.to_string(), leader_log_start_offset,
                       e.what());
    }
}

void Partition::truncate_to(std::int64_t offset) {
    if (stopped_ || log_->offline() || offset >= log_->log_end_offset()) return;
    try {
        log_->truncate_to(offset);
    } catch (const storage::StorageError& e) {
        // Its dir may be offline now: the fetcher drops the partition.
        log_->io_failed(e);
        logging::error("truncating {} to {} failed: {}", tp_.to_string(), offset, e.what());
        return;
    }
    const auto before = epoch_starts_.size();
    while (!epoch_starts_.empty() && epoch_starts_.back().second >= offset) epoch_starts_.pop_back();
    if (epoch_starts_.size() != before) save_epochs();
    load_producer_state();
    high_watermark_ = std::min(high_watermark_, log_->log_end_offset());
    change_listeners_.notify();
}

std::optional<std::int32_t> Partition::latest_epoch() const {
    if (epoch_starts_.empty()) return std::nullopt;
    return epoch_starts_.back().first;
}

std::int64_t Partition::last_stable_offset() const {
    auto first = producer_state_.first_unstable_offset();
    if (!first) return high_watermark_;
    // UnifiedLog.maybeIncrementFirstUnstableOffset: never below the log start.
    return std::min(std::max(*first, log_->log_start_offset()), high_watermark_);
}

std::vector<ProducerBatchView> Partition::producer_batches(std::span<const std::uint8_t> batches) {
    std::vector<ProducerBatchView> views;
    records::for_each_batch(batches, false, [&](const records::BatchHeader& h, std::span<const std::uint8_t> batch) {
        views.push_back({h, end_txn_marker_of(h, batch)});
    });
    return views;
}

void Partition::record_completed_txns(const std::vector<CompletedTxn>& completed) {
    for (const auto& txn : completed) {
        if (!txn.aborted) continue;
        try {
            log_->append_aborted_txn({txn.producer_id, txn.first_offset, txn.last_offset, txn.last_stable_offset});
        } catch (const storage::StorageError& e) {
            log_->io_failed(e);
            // The marker is in the log: recovery after a restart rebuilds the entry.
            logging::error("{}: recording the aborted transaction of producer {} at {} failed: {}", tp_.to_string(),
                           txn.producer_id, txn.last_offset, e.what());
        }
    }
}

bool Partition::isr_below_min() const { return static_cast<std::int32_t>(isr_.size()) < config().min_insync_replicas; }

ErrorCode Partition::after_replication(ErrorCode error) const {
    return error == ErrorCode::none && isr_below_min() ? ErrorCode::not_enough_replicas_after_append : error;
}

namespace {
// Kafka's ReplicaManager answers a failed append with the partition's log
// start offset, except for the errors it knows without the log's state: an
// unknown or moved partition, a batch too large or corrupt, a failed disk.
bool failure_reports_log_start(ErrorCode error) {
    switch (error) {
        case ErrorCode::unknown_topic_or_partition:
        case ErrorCode::not_leader_or_follower:
        case ErrorCode::message_too_large:
        case ErrorCode::record_list_too_large:
        case ErrorCode::corrupt_message:
        case ErrorCode::kafka_storage_error:
            return false;
        default:
            return true;
    }
}
}  // namespace

ProduceResult Partition::append_records_as_leader(wire::ByteSpan records, const ProduceLimits& limits) {
    ProduceResult result = append_as_leader(records, limits);
    if (result.error != ErrorCode::none && failure_reports_log_start(result.error))
        result.log_start_offset = log_->log_start_offset();
    return result;
}

ProduceResult Partition::append_as_leader(wire::ByteSpan records, const ProduceLimits& limits) {
    ProduceResult result;
    if (limits.acks_all && is_leader_ && isr_below_min()) {
        result.error = ErrorCode::not_enough_replicas;
        result.error_message = "The size of the current ISR " + std::to_string(isr_.size()) +
                               " is insufficient to satisfy the min.isr requirement of " +
                               std::to_string(config().min_insync_replicas) + " for partition " + tp_.to_string();
        return result;
    }
    auto validated = validate_produced_records(tp_, records, limits, config(), log_->now());
    if (validated.error != ErrorCode::none) {
        result.error = validated.error;
        result.error_message = std::move(validated.error_message);
        result.record_errors = std::move(validated.record_errors);
        return result;
    }
    auto appended = append(validated.batches, validated.headers, AppendOrigin::client);
    result.error = appended.error;
    result.error_message = std::move(appended.error_message);
    result.base_offset = appended.base_offset;
    result.last_offset = appended.last_offset;
    result.log_append_time = appended.log_append_time;
    result.log_start_offset = appended.log_start_offset;
    return result;
}

AppendResult Partition::append_txn_marker(std::int64_t producer_id, std::int16_t producer_epoch,
                                          std::int32_t coordinator_epoch, bool commit) {
    if (is_leader_ && isr_below_min()) return {.error = ErrorCode::not_enough_replicas};
    const auto now =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    records::EndTxnMarker marker{commit ? records::ControlRecordType::commit : records::ControlRecordType::abort,
                                 coordinator_epoch};
    auto batch = records::build_end_txn_marker_batch(producer_id, producer_epoch, marker, now);
    return append(batch, AppendOrigin::coordinator);
}

AppendResult Partition::append(std::span<std::uint8_t> batches, AppendOrigin origin) {
    std::vector<records::BatchHeader> headers;
    try {
        headers = records::parse_batch_headers(batches);
    } catch (const wire::DecodeError& e) {
        return {.error = ErrorCode::corrupt_message, .error_message = e.what()};
    }
    return append(batches, headers, origin);
}

AppendResult Partition::append(std::span<std::uint8_t> batches, std::span<const records::BatchHeader> headers,
                               AppendOrigin origin) {
    AppendResult result;
    if (auto error = check_leader(kNoLeaderEpoch, true); error != ErrorCode::none) {
        result.error = error;
        return result;
    }
    // The offsets the log will give, for the producer checks.
    std::vector<ProducerBatchView> views;
    views.reserve(headers.size());
    auto next = log_->log_end_offset();
    std::size_t pos = 0;
    for (const auto& header : headers) {
        auto& view = views.emplace_back(ProducerBatchView{header, std::nullopt});
        if (header.is_control()) view.marker = end_txn_marker_of(header, batches.subspan(pos, header.total_size()));
        view.header.base_offset = next;
        next = view.header.last_offset() + 1;
        pos += header.total_size();
    }
    auto producers = producer_state_.prepare(views, origin);
    if (producers.error != ErrorCode::none) {
        result.error = producers.error;
        result.error_message = std::move(producers.error_message);
        return result;
    }
    if (const auto& duplicate = producers.duplicate) {
        // Kafka's UnifiedLog.append answers a duplicate with the first
        // append's offsets and its batch's timestamp as the append time.
        result.base_offset = duplicate->first_offset;
        result.last_offset = duplicate->last_offset;
        result.log_append_time = duplicate->timestamp;
        result.log_start_offset = log_->log_start_offset();
        return result;
    }
    result = write_to_log(*log_, storage_error_log_, [&] { return log_->append(batches, headers); });
    if (result.error != ErrorCode::none) return result;
    if (result.log_append_time >= 0) {
        // LogAppendTime batches carry the append time, not the producer's.
        for (auto& [producer_id, entry] : producers.updated) {
            for (auto& batch : entry.batches) batch.timestamp = result.log_append_time;
            entry.last_timestamp = result.log_append_time;
        }
    }
    record_completed_txns(producer_state_.commit(std::move(producers)));
    maybe_advance_high_watermark();
    change_listeners_.notify();
    return result;
}

asio::awaitable<ErrorCode> Partition::wait_for_high_watermark(std::int64_t offset,
                                                              std::chrono::steady_clock::time_point deadline) {
    auto self = shared_from_this();
    if (auto error = check_leader(kNoLeaderEpoch, true); error != ErrorCode::none) co_return error;
    if (high_watermark_ >= offset) co_return after_replication(ErrorCode::none);

    asio::steady_timer timer(executor_, deadline);
    ErrorCode result = ErrorCode::request_timed_out;
    auto id = high_watermark_waiters_.add(offset, [&result, &timer](ErrorCode error) {
        result = error;
        timer.cancel();
    });
    // Also runs if the frame is destroyed unresumed (shutdown), so the
    // completion never refers to a dead timer.
    struct Unregister {
        Partition& partition;
        HighWatermarkWaiters::Id id;
        ~Unregister() { partition.high_watermark_waiters_.remove(id); }
    } unregister{*self, id};
    boost::system::error_code ec;
    co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    co_return after_replication(result);
}

std::int64_t Partition::fetchable_end(FetchIsolation isolation) const {
    switch (isolation) {
        case FetchIsolation::log_end:
            return log_->log_end_offset();
        case FetchIsolation::high_watermark:
            return high_watermark();
        case FetchIsolation::txn_committed:
            return last_stable_offset();
    }
    return high_watermark();
}

ReadResult Partition::read(std::int64_t offset, const ReadOptions& options) const {
    ReadResult result;
    result.error = check_leader(options.current_leader_epoch, options.fetch_only_from_leader);
    if (result.error != ErrorCode::none) return result;
    result.high_watermark = high_watermark();
    result.last_stable_offset = last_stable_offset();
    result.log_start_offset = log_->log_start_offset();
    result.log_end_offset = log_->log_end_offset();
    try {
        storage::ReadOptions bounds;
        bounds.max_bytes = options.max_bytes;
        bounds.max_offset = fetchable_end(options.isolation);
        bounds.min_one_batch = options.min_one_batch;
        bounds.zero_copy = options.zero_copy;
        auto data = log_->read(offset, bounds);
        result.error = data.error;
        if (data.region)
            result.records = wire::RecordsData(std::move(*data.region));
        else
            result.records = wire::RecordsData(std::move(data.records));
        if (options.isolation == FetchIsolation::txn_committed && result.error == ErrorCode::none) {
            // LocalLog.addAbortedTransactions, bounded by the end of what
            // is returned (an empty read overlaps nothing).
            auto& aborted = result.aborted_transactions.emplace();
            const std::int64_t upper_bound = data.next_offset;
            if (upper_bound > offset)
                for (const auto& txn : log_->collect_aborted_txns(offset, upper_bound))
                    aborted.push_back({txn.producer_id, txn.first_offset});
        }
    } catch (const storage::StorageError& e) {
        log_->io_failed(e);
        logging::error("read of {} at {} failed: {}", tp_.to_string(), offset, e.what());
        result.error = ErrorCode::kafka_storage_error;
    }
    return result;
}

Partition::Subscription Partition::subscribe(std::function<void()> on_change) {
    return Subscription(weak_from_this(), change_listeners_.add(std::move(on_change)));
}

DeleteRecordsResult Partition::delete_records_before(std::int64_t offset) {
    if (auto error = check_leader(kNoLeaderEpoch, true); error != ErrorCode::none) return {error};
    const auto target = offset == kDeleteUpToHighWatermark ? high_watermark_ : offset;
    if (target < 0 || target > high_watermark_) return {ErrorCode::offset_out_of_range};
    try {
        if (auto error = log_->delete_records_before(target); error != ErrorCode::none) return {error};
        producer_state_.on_high_watermark(log_->log_start_offset());
    } catch (const storage::StorageError& e) {
        log_->io_failed(e);
        logging::error("deleting records of {} below {} failed: {}", tp_.to_string(), target, e.what());
        return {ErrorCode::kafka_storage_error};
    }
    return {ErrorCode::none, log_->log_start_offset()};
}

}  // namespace weir::partitions
