#pragma once

// kafka-topics.sh's output for --list and --describe.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cli/topics/topic_admin.h"

namespace weir::cli::topics {

// --describe's report options.
struct DescribeFilter {
    bool under_replicated = false;
    bool unavailable = false;
    bool under_min_isr = false;
    bool at_min_isr = false;
    bool with_overrides = false;
};

// "Topic: T[\tTopicId: I]\tPartitionCount: N\tReplicationFactor: R\tConfigs: k=v,...\n" with the
// configs not at their built-in default (a broker-wide setting counts, as in Kafka), sorted by
// name: Kafka's own order is Java HashMap iteration, which no script can rely on.
std::string format_topic_line(const TopicDescription& topic, const std::vector<ConfigEntry>& configs);

// "\tTopic: T\tPartition: P\tLeader: L|none\tReplicas: 1,2\tIsr: 1,2\n".
std::string format_partition_line(const std::string& topic, const PartitionInfo& partition);

// --describe's output for `topics`, in that order; configs by topic name.
std::string describe_report(const std::vector<TopicDescription>& topics,
                            const std::map<std::string, std::vector<ConfigEntry>>& configs,
                            const std::vector<std::int32_t>& live_brokers, const DescribeFilter& filter);

// One name per line; with none, Kafka still prints one empty line.
std::string format_topic_list(const std::vector<std::string>& topics);

}  // namespace weir::cli::topics
