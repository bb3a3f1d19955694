#include "broker/partitions/partition_manager.h"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "broker/common/logging.h"
#include "protocol/records/conversion.h"
#include "protocol/records/record_batch.h"

namespace weir::partitions {

namespace asio = boost::asio;

PartitionManager::PartitionManager(asio::any_io_executor executor, storage::LogManager& logs,
                                   ConfigLookup config_for_topic)
    : executor_(std::move(executor)), logs_(logs), config_for_topic_(std::move(config_for_topic)) {}

std::shared_ptr<storage::PartitionLog> PartitionManager::ensure(const TopicPartition& tp) {
    if (auto log = logs_.get(tp)) return log;
    return logs_.get_or_create(tp, config_for_topic_(tp.topic));
}

std::shared_ptr<storage::PartitionLog> PartitionManager::find(const TopicPartition& tp) const { return logs_.get(tp); }

void PartitionManager::remove_topic(const std::string& topic) {
    for (const auto& tp : logs_.partitions())
        if (tp.topic == topic) logs_.remove(tp);
}

void PartitionManager::topic_config_changed(const std::string& topic) {
    logs_.set_topic_config(topic, config_for_topic_(topic));
}

namespace {

ProduceResult fail(ErrorCode code, std::string message) {
    ProduceResult r;
    r.error = code;
    r.error_message = std::move(message);
    return r;
}

}  // namespace

ProduceResult PartitionManager::produce(const TopicPartition& tp, wire::ByteSpan records, const ProduceLimits& limits) {
    auto log = find(tp);
    if (!log) return fail(ErrorCode::unknown_topic_or_partition, {});
    if (records.empty()) return fail(ErrorCode::invalid_record, "produce request has no record batches");

    wire::Bytes batches;
    try {
        auto magic = records::records_magic(records);
        if (magic < 2) {
            // Produce v0-v2 carry magic 0/1 message sets (Sarama's default
            // 0.8.2 protocol); Weir stores v2 batches only.
            if (limits.produce_version >= 3)
                return fail(ErrorCode::invalid_record, "produce v3 and above must use record batches (magic 2)");
            batches = records::up_convert(records);
            if (batches.empty()) return fail(ErrorCode::invalid_record, "produce request has no records");
        } else if (magic == 2) {
            if (limits.produce_version < 3)
                return fail(ErrorCode::invalid_record, "produce v0-v2 must use message sets of magic 0 or 1");
            batches.assign(records.begin(), records.end());
        } else {
            return fail(ErrorCode::invalid_record, "unknown record magic " + std::to_string(magic));
        }
        // Kafka's LogValidator checks every record of a produced batch; so do we
        // (decompressing if needed) so that no consumer ever receives a batch
        // it cannot parse, and so that the max timestamp the time index and
        // ListOffsets rely on is the records' own.
        for (const auto& header : records::validate_produced_batches(batches, log->config().message_timestamp_type)) {
            if (header.total_size() > static_cast<std::size_t>(limits.max_message_bytes))
                return fail(ErrorCode::message_too_large,
                            "batch of " + std::to_string(header.total_size()) + " bytes exceeds max.message.bytes " +
                                std::to_string(limits.max_message_bytes));
            if (header.compression() == records::Compression::zstd && limits.produce_version < 7)
                return fail(ErrorCode::unsupported_compression_type, "zstd needs produce v7 or above");
            if (static_cast<int>(header.compression()) > 4)
                return fail(ErrorCode::unsupported_compression_type, "unknown compression codec");
            if (header.is_control()) return fail(ErrorCode::invalid_record, "clients may not produce control batches");
        }
    } catch (const records::InvalidRecordError& e) {
        return fail(ErrorCode::invalid_record, e.what());
    } catch (const wire::DecodeError& e) {
        return fail(ErrorCode::corrupt_message, e.what());
    }

    try {
        auto appended = log->append(batches);
        ProduceResult r;
        r.base_offset = appended.base_offset;
        r.log_append_time = appended.log_append_time;
        r.log_start_offset = appended.log_start_offset;
        return r;
    } catch (const storage::StorageError& e) {
        logging::error("append to {}-{} failed: {}", tp.topic, tp.partition, e.what());
        return fail(ErrorCode::kafka_storage_error, e.what());
    } catch (const wire::DecodeError& e) {
        return fail(ErrorCode::corrupt_message, e.what());
    }
}

asio::awaitable<void> PartitionManager::wait_for_append(std::vector<std::shared_ptr<storage::PartitionLog>> logs,
                                                        std::chrono::steady_clock::time_point deadline) {
    asio::steady_timer timer(executor_, deadline);
    std::vector<std::pair<storage::PartitionLog*, std::uint64_t>> registrations;
    registrations.reserve(logs.size());
    for (const auto& log : logs) registrations.emplace_back(log.get(), log->add_append_listener([&timer] { timer.cancel(); }));
    parked_.insert(&timer);
    boost::system::error_code ec;
    co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    parked_.erase(&timer);
    for (auto [log, id] : registrations) log->remove_append_listener(id);
}

void PartitionManager::wake_all() {
    for (auto* timer : parked_) timer->cancel();
}

}  // namespace weir::partitions
