#include "cli/topics/topic_commands.h"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>

#include "cli/topics/topic_filter.h"
#include "cli/topics/topics_errors.h"
#include "cli/topics/topics_report.h"

namespace weir::cli::topics {

namespace {

constexpr std::int32_t kMaxReplicationFactor = 32'767;  // the protocol's int16

// TopicService.getTopics: every topic, sorted, then --topic and --exclude-internal.
std::vector<std::string> matching_topics(TopicAdmin& admin, const TopicsOptions& o) {
    auto all = admin.list_topics();
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    return select_topics(all, o.topic, o.exclude_internal);
}

// TopicCommand.ensureTopicExists: a --topic that selects nothing is an error unless --if-exists.
void ensure_exists(const std::vector<std::string>& found, const TopicsOptions& o) {
    if (o.topic && !o.topic->empty() && !o.if_exists && found.empty())
        throw CommandError(fmt::format("Topic '{}' does not exist as expected", *o.topic));
}

std::vector<std::vector<std::int32_t>> replica_assignment(const TopicsOptions& o) {
    if (!o.replica_assignment || o.replica_assignment->empty()) return {};
    return parse_replica_assignment(*o.replica_assignment);
}

void list(TopicAdmin& admin, const TopicsOptions& o, std::ostream& out) {
    out << format_topic_list(matching_topics(admin, o));
}

void describe(TopicAdmin& admin, const TopicsOptions& o, std::ostream& out) {
    if (o.topic_id)
        throw CommandError("--topic-id is not supported: this client (librdkafka 2.0.2) cannot read topic ids");
    const auto topics = matching_topics(admin, o);
    ensure_exists(topics, o);
    if (topics.empty()) return;
    const auto descriptions = admin.describe_topics(topics);
    const auto configs = admin.describe_configs(topics);
    const auto live = admin.live_brokers();
    out << describe_report(descriptions, configs, live,
                           {o.under_replicated, o.unavailable, o.under_min_isr, o.at_min_isr, o.with_overrides});
}

void create(TopicAdmin& admin, const TopicsOptions& o, std::ostream& out) {
    NewTopic topic;
    topic.name = *o.topic;
    topic.assignment = replica_assignment(o);
    topic.configs = parse_topic_configs(o.configs);
    if (topic.name.find_first_of("._") != std::string::npos)
        out << "WARNING: Due to limitations in metric names, topics with a period ('.') or underscore ('_') could "
               "collide. To avoid issues it is best to use either, but not both.\n";
    if (o.replication_factor && (*o.replication_factor > kMaxReplicationFactor || *o.replication_factor < 1))
        throw CommandError(
            fmt::format("The replication factor must be between 1 and {} inclusive", kMaxReplicationFactor));
    if (o.partitions && *o.partitions < 1) throw CommandError("The partitions must be greater than 0");
    topic.partitions = o.partitions.value_or(-1);
    topic.replication_factor = o.replication_factor.value_or(-1);
    try {
        admin.create_topic(topic);
    } catch (const AdminError& e) {
        if (e.code() == kTopicAlreadyExists && o.if_not_exists) return;
        throw;
    }
    out << "Created topic " << topic.name << ".\n";
}

void alter(TopicAdmin& admin, const TopicsOptions& o) {
    const auto assignment = replica_assignment(o);
    (void)parse_topic_configs(o.configs);  // Kafka reads them here too, so a malformed one fails the same way
    const auto topics = matching_topics(admin, o);
    ensure_exists(topics, o);
    if (topics.empty()) return;
    std::vector<TopicDescription> existing;
    if (!assignment.empty()) existing = admin.describe_topics(topics);
    std::vector<NewPartitions> increases;
    for (std::size_t i = 0; i < topics.size(); ++i) {
        NewPartitions inc{topics[i], *o.partitions, {}};
        // The assignment lists every partition; only those past the current count are new.
        if (!assignment.empty()) {
            const std::size_t start = std::min(existing[i].partitions.size(), assignment.size());
            inc.assignment.assign(assignment.begin() + static_cast<std::ptrdiff_t>(start), assignment.end());
        }
        increases.push_back(std::move(inc));
    }
    admin.create_partitions(increases);
}

void remove(TopicAdmin& admin, const TopicsOptions& o) {
    const auto topics = matching_topics(admin, o);
    ensure_exists(topics, o);
    admin.delete_topics(topics);
}

}  // namespace

void run_topic_command(TopicAdmin& admin, const TopicsOptions& options, std::ostream& out) {
    switch (options.action) {
        case TopicsAction::List:
            return list(admin, options, out);
        case TopicsAction::Describe:
            return describe(admin, options, out);
        case TopicsAction::Create:
            return create(admin, options, out);
        case TopicsAction::Alter:
            return alter(admin, options);
        case TopicsAction::Delete:
            return remove(admin, options);
    }
}

}  // namespace weir::cli::topics
