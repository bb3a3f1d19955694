#pragma once

// TopicAdmin over librdkafka's C Admin API and metadata requests.
#include <map>
#include <string>
#include <vector>

#include "broker/config/config_types.h"
#include "cli/rdkafka/handles.h"
#include "cli/topics/topic_admin.h"

namespace weir::cli::topics {

// Every call is bounded by AdminConfig::timeout; every failure throws AdminError.
class KafkaTopicAdmin final : public TopicAdmin {
public:
    explicit KafkaTopicAdmin(AdminConfig config);  // throws AdminError on a property librdkafka refuses
    ~KafkaTopicAdmin() override;
    KafkaTopicAdmin(const KafkaTopicAdmin&) = delete;
    KafkaTopicAdmin& operator=(const KafkaTopicAdmin&) = delete;

    std::vector<std::string> list_topics() override;
    std::vector<TopicDescription> describe_topics(const std::vector<std::string>& topics) override;
    std::map<std::string, std::vector<ConfigEntry>> describe_configs(const std::vector<std::string>& topics) override;
    std::vector<std::int32_t> live_brokers() override;
    void create_topic(const NewTopic& topic) override;
    void create_partitions(const std::vector<NewPartitions>& increases) override;
    void delete_topics(const std::vector<std::string>& topics) override;
    void alter_topic_configs(const std::string& topic,
                             const std::vector<std::pair<std::string, std::string>>& configs) override;

private:
    rd_kafka_t* client() const;  // throws once the handle was given up after a stuck call
    rdkafka::Metadata metadata(const char* what);
    template <typename Start>
    rdkafka::Event run_admin(rd_kafka_admin_op_t op, const char* what, bool operation, Start&& start);

    AdminConfig config_;
    rdkafka::Client rk_;
};

// The keys among `properties` librdkafka does not know, such as the Java-only keys a
// --command-config file written for kafka-topics.sh may hold.
std::vector<std::string> unknown_client_properties(const config::ConfigMap& properties);

}  // namespace weir::cli::topics
