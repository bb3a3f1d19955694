#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace weir::cli {

// A bad `weir groups` command line (exit code 2).
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

enum class GroupsAction { Help, List, Describe, ResetOffsets, Delete };

// Where reset-offsets moves each selected partition.
struct ResetSpec {
    enum class Kind { Earliest, Latest, Offset, Datetime, ShiftBy };
    Kind kind = Kind::Earliest;
    std::int64_t value = 0;  // the offset, the timestamp (ms since epoch) or the shift
};

// `--topic T` (every partition) or `--topic T:0,2` (those partitions).
struct TopicSelection {
    std::string topic;
    std::vector<std::int32_t> partitions;  // empty: all of them
};

struct GroupsOptions {
    GroupsAction action = GroupsAction::Help;
    std::string bootstrap = "127.0.0.1:9092";
    std::chrono::milliseconds timeout{10'000};
    std::vector<std::pair<std::string, std::string>> client_properties;  // -X key=value, in order
    bool verbose = false;                                                // let librdkafka log to stderr
    bool show_state = false;                                             // list --state
    std::string group;
    std::vector<TopicSelection> topics;  // reset-offsets scope, or a describe filter
    bool all_topics = false;
    std::optional<ResetSpec> reset;
    bool execute = false;
};

// Parses the arguments after `weir groups`; throws UsageError.
GroupsOptions parse_groups_args(const std::vector<std::string>& args);

// "2026-12-01T10:00:00Z", "2026-12-01T10:00:00.250+02:00", or ms since the epoch.
// Without a zone the local time zone applies, as in kafka-consumer-groups.sh. Throws UsageError.
std::int64_t parse_timestamp_ms(std::string_view text);

std::string groups_usage_text();

}  // namespace weir::cli
