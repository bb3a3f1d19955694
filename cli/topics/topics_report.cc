#include "cli/topics/topics_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

namespace weir::cli::topics {

namespace {

// TopicCommand reads min.insync.replicas only for the min-ISR reports; 1 is Kafka's default.
std::size_t min_isr(const std::vector<ConfigEntry>& configs) {
    for (const auto& c : configs) {
        if (c.name != "min.insync.replicas" || !c.value) continue;
        std::size_t value = 0;
        const char* end = c.value->data() + c.value->size();
        auto [ptr, ec] = std::from_chars(c.value->data(), end, value);
        if (ec == std::errc{} && ptr == end) return value;
    }
    return 1;
}

bool has_leader(const PartitionInfo& p) { return p.leader >= 0; }

}  // namespace

std::string format_topic_line(const TopicDescription& topic, const std::vector<ConfigEntry>& configs) {
    std::vector<const ConfigEntry*> overridden;
    for (const auto& c : configs)
        if (!c.is_default) overridden.push_back(&c);
    std::sort(overridden.begin(), overridden.end(), [](const auto* a, const auto* b) { return a->name < b->name; });
    std::string config_text;
    for (const auto* c : overridden) {
        if (!config_text.empty()) config_text += ',';
        config_text += c->name + '=' + c->value.value_or("null");
    }
    const std::size_t replication_factor = topic.partitions.empty() ? 0 : topic.partitions.front().replicas.size();
    std::string out = "Topic: " + topic.name;
    if (!topic.topic_id.empty()) out += "\tTopicId: " + topic.topic_id;
    out += fmt::format("\tPartitionCount: {}\tReplicationFactor: {}\tConfigs: {}\n", topic.partitions.size(),
                       replication_factor, config_text);
    return out;
}

std::string format_partition_line(const std::string& topic, const PartitionInfo& partition) {
    return fmt::format("\tTopic: {}\tPartition: {}\tLeader: {}\tReplicas: {}\tIsr: {}\n", topic, partition.partition,
                       has_leader(partition) ? std::to_string(partition.leader) : "none",
                       fmt::join(partition.replicas, ","), fmt::join(partition.isr, ","));
}

std::string describe_report(const std::vector<TopicDescription>& topics,
                            const std::map<std::string, std::vector<ConfigEntry>>& configs,
                            const std::vector<std::int32_t>& live_brokers, const DescribeFilter& filter) {
    // A report option shows only the partitions it asks for; --topics-with-overrides only topic lines.
    const bool describe_configs =
        !filter.under_replicated && !filter.unavailable && !filter.under_min_isr && !filter.at_min_isr;
    const bool describe_partitions = !filter.with_overrides;
    const std::vector<ConfigEntry> none;
    std::string out;
    for (const auto& topic : topics) {
        auto it = configs.find(topic.name);
        const auto& topic_configs = it != configs.end() ? it->second : none;
        if (describe_configs) {
            const bool overridden =
                std::any_of(topic_configs.begin(), topic_configs.end(), [](const auto& c) { return !c.is_default; });
            if (!filter.with_overrides || overridden) out += format_topic_line(topic, topic_configs);
        }
        if (!describe_partitions) continue;
        const std::size_t minimum_isr = min_isr(topic_configs);
        for (const auto& p : topic.partitions) {
            const bool under_replicated = p.replicas.size() > p.isr.size();
            const bool unavailable =
                !has_leader(p) || std::find(live_brokers.begin(), live_brokers.end(), p.leader) == live_brokers.end();
            const bool under_min_isr = !has_leader(p) || p.isr.size() < minimum_isr;
            const bool at_min_isr = p.isr.size() == minimum_isr;
            if (describe_configs || (filter.under_replicated && under_replicated) ||
                (filter.unavailable && unavailable) || (filter.under_min_isr && under_min_isr) ||
                (filter.at_min_isr && at_min_isr))
                out += format_partition_line(topic.name, p);
        }
    }
    return out;
}

std::string format_topic_list(const std::vector<std::string>& topics) {
    return fmt::format("{}\n", fmt::join(topics, "\n"));
}

}  // namespace weir::cli::topics
