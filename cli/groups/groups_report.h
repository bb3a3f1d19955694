#pragma once

// The broker-free part of `weir groups`: which rows describe shows, where
// reset-offsets moves a partition, and the kafka-consumer-groups.sh layout.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cli/groups/groups_args.h"
#include "cli/groups/kafka_admin.h"

namespace weir::cli {

struct DescribeRow {
    std::optional<TopicPartition> tp;  // none: a member without partitions
    std::optional<std::int64_t> current_offset;
    std::optional<std::int64_t> log_end_offset;
    std::string consumer_id;  // empty: no member owns the partition
    std::string host;
    std::string client_id;

    std::optional<std::int64_t> lag() const;
};

// One row per assigned partition (with its owner), per committed-but-unassigned partition,
// and per member without partitions; sorted by topic and partition. committed: offset < 0 means none.
// topics, when not empty, limits the rows to those topics.
std::vector<DescribeRow> describe_rows(const std::optional<GroupDescription>& group,
                                       const std::map<TopicPartition, std::int64_t>& committed,
                                       const std::map<TopicPartition, std::int64_t>& log_end,
                                       const std::vector<std::string>& topics = {});

// Every partition describe needs a log-end offset for.
std::vector<TopicPartition> partitions_of(const std::vector<DescribeRow>& rows);

std::string format_describe_table(const std::string& group, const std::vector<DescribeRow>& rows);
std::string format_state_table(const GroupDescription& group);
std::string format_reset_table(const std::string& group, const std::map<TopicPartition, std::int64_t>& plan);

// Columns padded to their widest cell, one space apart (the last column is not padded).
std::string format_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);

// Kafka's refusal when reset-offsets meets a group with members; nullopt if the group is inactive.
std::optional<std::string> reset_refusal(const GroupDescription& group);

struct ResetTarget {
    std::int64_t offset = -1;
    std::optional<std::string> warning;  // set when the wanted offset was clamped into the log
    std::optional<std::string> error;    // set when there is no target (offset is then -1)
};

// current: the committed offset, if any; time_offset: the offsets-for-time answer (-1: no such record).
ResetTarget reset_target(const ResetSpec& spec, const TopicPartition& tp, const Watermarks& log,
                         std::optional<std::int64_t> current, std::optional<std::int64_t> time_offset);

}  // namespace weir::cli
