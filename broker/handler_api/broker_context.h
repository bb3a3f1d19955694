#pragma once
// The broker's parts a handler may use. Owned by the Broker; handlers never
// learn which metadata backend (embedded or ZooKeeper) is behind the interface.
#include <boost/asio/any_io_executor.hpp>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "broker/config/broker_config.h"
#include "broker/config/topic_config.h"
#include "broker/handler_api/fetch_sessions.h"
#include "broker/metadata/metadata_store.h"
#include "broker/metadata/producer_id_manager.h"
#include "protocol/wire/reader.h"

namespace weir::partitions {
class Partition;
class ReplicaManager;
}  // namespace weir::partitions

namespace weir::handlers {

class CoordinatorLocator;
class GroupService;
class TransactionService;

struct BrokerContext {
    const config::BrokerConfig& config;
    metadata::MetadataStore& metadata;
    partitions::ReplicaManager& partitions;
    boost::asio::any_io_executor executor;
    bool stopping_flag = false;
    // Set once at start-up, before any request is served.
    GroupService* group_service = nullptr;
    // The transaction coordinator, if the broker runs one; with it,
    // FindCoordinator's key type 1.
    TransactionService* transaction_service = nullptr;
    CoordinatorLocator* transaction_locator = nullptr;
    FetchSessionCache fetch_sessions{};
    // InitProducerId's ids, in blocks from the metadata store.
    metadata::ProducerIdManager producer_ids{metadata};

    [[nodiscard]] GroupService& groups() const { return *group_service; }

    [[nodiscard]] bool stopping() const { return stopping_flag; }
    // Broker defaults (server.properties and dynamic broker configs) overlaid
    // with the topic's overrides (defaults if unknown).
    [[nodiscard]] config::TopicConfig topic_config(std::string_view topic) const;
    [[nodiscard]] std::optional<std::string> topic_name_for_id(const Uuid& id) const;

    // Kafka's ReplicaManager.getPartitionOrError: the partition if this broker
    // hosts it; else NOT_LEADER_OR_FOLLOWER if `snapshot` knows it (its
    // replicas are elsewhere: the client's metadata is stale), else
    // UNKNOWN_TOPIC_OR_PARTITION.
    struct LocalPartition {
        std::shared_ptr<partitions::Partition> partition;
        ErrorCode error = ErrorCode::none;
    };
    [[nodiscard]] LocalPartition local_partition(const metadata::MetadataSnapshot& snapshot,
                                                 const TopicPartition& tp) const;
};

}  // namespace weir::handlers
