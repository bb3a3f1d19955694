#pragma once

// What `weir topics` needs from a cluster, as value types (tests substitute a fake).
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace weir::cli::topics {

// Kafka's error codes that change what kafka-topics.sh does.
inline constexpr int kUnknownTopicOrPartition = 3;
inline constexpr int kTopicAlreadyExists = 36;

// A failed call. code: the Kafka error code, librdkafka's (negative) local code, or 0.
class AdminError : public std::runtime_error {
public:
    AdminError(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
    int code() const { return code_; }

private:
    int code_;
};

struct PartitionInfo {
    std::int32_t partition = 0;
    std::int32_t leader = -1;  // -1: none
    std::vector<std::int32_t> replicas;
    std::vector<std::int32_t> isr;
};

struct TopicDescription {
    std::string name;
    std::string topic_id;                   // empty when the client cannot tell (Kafka then prints no TopicId)
    std::vector<PartitionInfo> partitions;  // sorted by partition
};

struct ConfigSynonym {
    std::string name;
    std::optional<std::string> value;
    std::string source;  // Kafka's ConfigSource name: DYNAMIC_TOPIC_CONFIG, DEFAULT_CONFIG, ...
};

struct ConfigEntry {
    std::string name;
    std::optional<std::string> value;  // none: null (a sensitive or unset value)
    bool is_default = false;           // its source is the built-in default
    std::string source;                // Kafka's ConfigSource name, when the cluster says
    bool sensitive = false;
    std::vector<ConfigSynonym> synonyms;  // the value's sources, most specific first
};

struct NewTopic {
    std::string name;
    std::int32_t partitions = -1;                       // -1: the broker's default
    std::int32_t replication_factor = -1;               // -1: the broker's default
    std::vector<std::vector<std::int32_t>> assignment;  // replicas per partition; replaces both counts
    std::vector<std::pair<std::string, std::string>> configs;
};

struct NewPartitions {
    std::string topic;
    std::int32_t total = 0;                             // the new partition count
    std::vector<std::vector<std::int32_t>> assignment;  // replicas of each added partition, or empty
};

struct AdminConfig {
    std::string bootstrap;
    std::chrono::milliseconds timeout{30'000};
    std::vector<std::pair<std::string, std::string>> properties;  // librdkafka client properties
};

class TopicAdmin {
public:
    virtual ~TopicAdmin() = default;

    // Every topic, internal ones included, in any order.
    virtual std::vector<std::string> list_topics() = 0;
    // In the order asked; throws AdminError when one of them is not there.
    virtual std::vector<TopicDescription> describe_topics(const std::vector<std::string>& topics) = 0;
    // Every config entry of each topic, defaults included.
    virtual std::map<std::string, std::vector<ConfigEntry>> describe_configs(
        const std::vector<std::string>& topics) = 0;
    virtual std::vector<std::int32_t> live_brokers() = 0;

    virtual void create_topic(const NewTopic& topic) = 0;
    // All or nothing from the caller's view: throws the first topic's error.
    virtual void create_partitions(const std::vector<NewPartitions>& increases) = 0;
    virtual void delete_topics(const std::vector<std::string>& topics) = 0;
    // Replaces the topic's dynamic configs with `configs` (AlterConfigs: what
    // is not named returns to its default).
    virtual void alter_topic_configs(const std::string& topic,
                                     const std::vector<std::pair<std::string, std::string>>& configs) = 0;
};

}  // namespace weir::cli::topics
