#pragma once
// Kafka's ZooKeeper layout (ZkData.scala): the paths and the JSON payloads,
// so that zkCli inspection and an operator's habits carry over. Decoders
// throw ZkDataError on a payload they cannot read.
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "broker/config/config_types.h"
#include "broker/metadata/metadata_types.h"
#include "protocol/uuid.h"

namespace weir::zk {

class ZkDataError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

namespace paths {
inline constexpr std::string_view kController = "/controller";
inline constexpr std::string_view kControllerEpoch = "/controller_epoch";
inline constexpr std::string_view kBrokerIds = "/brokers/ids";
inline constexpr std::string_view kTopics = "/brokers/topics";
inline constexpr std::string_view kConfigTopics = "/config/topics";
inline constexpr std::string_view kConfigBrokers = "/config/brokers";
inline constexpr std::string_view kConfigChanges = "/config/changes";
inline constexpr std::string_view kDeleteTopics = "/admin/delete_topics";
inline constexpr std::string_view kClusterId = "/cluster/id";
inline constexpr std::string_view kProducerIdBlock = "/latest_producer_id_block";
inline constexpr std::string_view kIsrChangeNotification = "/isr_change_notification";

// Created at start-up, as Kafka's ZkData.PersistentZkPaths.
std::vector<std::string> persistent_paths();

std::string broker(std::int32_t id);
std::string topic(std::string_view name);
std::string topic_partitions(std::string_view name);
std::string partition_state(std::string_view name, std::int32_t partition);
std::string topic_config(std::string_view name);
// "<default>" for the cluster-wide defaults.
std::string broker_config(std::optional<std::int32_t> id);
std::string delete_topic(std::string_view name);
}  // namespace paths

// A broker id, partition or epoch as a znode's name or data holds it.
std::optional<std::int32_t> parse_id(std::string_view text);

// /brokers/ids/<id>, version 5 (host/port: the first PLAINTEXT endpoint).
std::string encode_broker(const metadata::BrokerInfo& broker, std::int64_t timestamp_ms);
metadata::BrokerInfo decode_broker(std::int32_t id, std::string_view json);

// /controller
std::string encode_controller(std::int32_t broker_id, std::int64_t timestamp_ms);
std::int32_t decode_controller(std::string_view json);

// /brokers/topics/<topic>, version 2.
struct TopicAssignment {
    std::map<std::int32_t, std::vector<std::int32_t>> partitions;
    std::optional<Uuid> topic_id;
};
std::string encode_topic_assignment(const TopicAssignment& a);
TopicAssignment decode_topic_assignment(std::string_view json);

// .../partitions/<p>/state, version 1.
struct LeaderAndIsr {
    std::int32_t leader = -1;
    std::int32_t leader_epoch = 0;
    std::vector<std::int32_t> isr;
    std::int32_t controller_epoch = 0;
    bool operator==(const LeaderAndIsr&) const = default;
};
std::string encode_partition_state(const LeaderAndIsr& s);
LeaderAndIsr decode_partition_state(std::string_view json);

// /config/topics/<topic> and /config/brokers/<id>: {"version":1,"config":{...}}.
std::string encode_config(const config::ConfigMap& configs);
config::ConfigMap decode_config(std::string_view json);

// /config/changes/config_change_<seq>, version 2.
std::string encode_config_change(std::string_view entity_path);

// /cluster/id: {"version":"1","id":"..."}.
std::string encode_cluster_id(std::string_view id);
std::string decode_cluster_id(std::string_view json);

}  // namespace weir::zk
