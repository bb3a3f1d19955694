#pragma once
// The partitions this broker hosts: their logs, the produce path (validate,
// up-convert legacy message sets, append), the read path, and parking of
// long-poll fetches until an append or their deadline (Kafka's
// ReplicaManager role). Runs on the broker's single I/O thread.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <set>
#include <string>

#include "broker/storage/log_manager.h"
#include "protocol/errors.h"
#include "protocol/wire/records_data.h"

namespace weir::partitions {

using storage::TopicPartition;

struct ProduceLimits {
    std::int32_t max_message_bytes = 1048588;  // per batch (max.message.bytes)
    std::int16_t produce_version = 0;
};

struct ProduceResult {
    ErrorCode error = ErrorCode::none;
    std::int64_t base_offset = -1;
    std::int64_t log_append_time = -1;
    std::int64_t log_start_offset = -1;
    std::string error_message;
};

class PartitionManager {
public:
    using ConfigLookup = std::function<storage::LogConfig(const std::string& topic)>;

    PartitionManager(boost::asio::any_io_executor executor, storage::LogManager& logs, ConfigLookup config_for_topic);

    // Creates the log if this broker hosts the partition and it is missing.
    std::shared_ptr<storage::PartitionLog> ensure(const TopicPartition& tp);
    [[nodiscard]] std::shared_ptr<storage::PartitionLog> find(const TopicPartition& tp) const;
    void remove_topic(const std::string& topic);
    void topic_config_changed(const std::string& topic);

    // Validates the records of one partition of a Produce request (magic,
    // CRC, sizes, compression allowed at this version), up-converts v0/v1
    // message sets to a v2 batch, and appends.
    ProduceResult produce(const TopicPartition& tp, wire::ByteSpan records, const ProduceLimits& limits);

    // Resolves at `deadline` or as soon as any of `logs` is appended to.
    boost::asio::awaitable<void> wait_for_append(std::vector<std::shared_ptr<storage::PartitionLog>> logs,
                                                 std::chrono::steady_clock::time_point deadline);
    // Wakes every parked fetch (shutdown).
    void wake_all();

    storage::LogManager& logs() { return logs_; }

private:
    boost::asio::any_io_executor executor_;
    storage::LogManager& logs_;
    ConfigLookup config_for_topic_;
    std::set<boost::asio::steady_timer*> parked_;
};

}  // namespace weir::partitions
