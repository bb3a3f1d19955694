#pragma once

// kafka-topics.sh's command line as Kafka 3.7's TopicCommand reads it: jopt-simple's parsing
// (--name value, --name=value, -name value; "--" ends the options; other words are ignored),
// then TopicCommand's checks, in its order and with its messages.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace weir::cli::topics {

enum class TopicsAction { List, Describe, Create, Alter, Delete };

struct TopicsOptions {
    TopicsAction action = TopicsAction::List;
    std::string bootstrap;
    std::optional<std::string> command_config;  // --command-config FILE
    std::optional<std::string> topic;           // a name for --create, an include regex otherwise
    std::optional<std::string> topic_id;
    std::optional<std::int32_t> partitions;
    std::optional<std::int32_t> replication_factor;
    // Raw, because Kafka reads them only when the command runs: their errors are command errors.
    std::optional<std::string> replica_assignment;
    std::vector<std::string> configs;
    bool under_replicated = false;
    bool unavailable = false;
    bool under_min_isr = false;
    bool at_min_isr = false;
    bool with_overrides = false;
    bool if_exists = false;
    bool if_not_exists = false;
    bool exclude_internal = false;
};

// Parses what follows `weir topics`. Throws UsageError for what Kafka refuses before it starts
// (including --help and no arguments, which Kafka answers with the usage and exit code 1) and
// CommandError for a value Kafka only converts while executing ("Cannot parse argument ...").
TopicsOptions parse_topics_args(const std::vector<std::string>& args);

// --replica-assignment "0:1,1:2": the replicas of each partition in order. Throws CommandError.
std::vector<std::vector<std::int32_t>> parse_replica_assignment(std::string_view text);

// The --config values as key/value pairs, split as Kafka splits them (at '=' with the blanks
// around it); a key given twice keeps its last value. Throws CommandError.
std::vector<std::pair<std::string, std::string>> parse_topic_configs(const std::vector<std::string>& values);

std::string topics_usage_text();

}  // namespace weir::cli::topics
