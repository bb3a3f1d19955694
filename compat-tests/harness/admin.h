#pragma once
// Admin operations through librdkafka's C admin API (the C++ API has none).
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafkacpp.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "harness/kafka_client.h"

namespace weir::compat {

struct AdminResult {
    rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR;
    std::string message;
    std::string describe() const;  // "BROKER_ERROR_NAME: message"
};

struct ConfigEntry {
    std::string value;  // "" when null
    bool is_null = false;
    bool is_default = false;
    bool read_only = false;
    bool sensitive = false;
    rd_kafka_ConfigSource_t source = RD_KAFKA_CONFIG_SOURCE_UNKNOWN_CONFIG;
};

struct DescribeConfigsResult {
    AdminResult result;
    std::map<std::string, ConfigEntry> entries;
};

class Admin {
public:
    explicit Admin(const std::string& bootstrap, const ConfigMap& extra = {});

    AdminResult create_topic(const std::string& name, int partitions, int replication_factor = 1,
                             const std::map<std::string, std::string>& configs = {}, bool validate_only = false);
    AdminResult delete_topic(const std::string& name);
    AdminResult create_partitions(const std::string& name, int total_count, bool validate_only = false);
    DescribeConfigsResult describe_topic_configs(const std::string& name);
    DescribeConfigsResult describe_broker_configs(int broker_id);
    // Legacy AlterConfigs: `configs` becomes the resource's whole set.
    AdminResult alter_configs(rd_kafka_ResourceType_t type, const std::string& name,
                              const std::map<std::string, std::string>& configs, bool validate_only = false);

    RdKafka::Producer& handle() { return *handle_; }
    std::chrono::milliseconds timeout{10'000};

private:
    std::unique_ptr<RdKafka::Producer> handle_;
};

}  // namespace weir::compat
