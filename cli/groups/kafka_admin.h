#pragma once

// A small, blocking, bounded-time view of librdkafka's Admin API: just what
// `weir groups` needs, as value types.
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "protocol/topic_partition.h"

struct rd_kafka_s;

namespace weir::cli {

class AdminError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct GroupListing {
    std::string group_id;
    std::string state;  // Kafka's names: Stable, Empty, ... or Unknown
    bool simple = false;
};

struct ListGroupsResult {
    std::vector<GroupListing> groups;
    std::vector<std::string> errors;  // brokers that could not answer
};

struct MemberInfo {
    std::string consumer_id;
    std::string client_id;
    std::string host;
    std::vector<TopicPartition> assignment;
};

struct GroupDescription {
    std::string group_id;
    std::string state;
    std::string assignor;
    std::string coordinator;  // "host:port (id)" or empty
    std::vector<MemberInfo> members;
};

struct Watermarks {
    std::int64_t low = -1;
    std::int64_t high = -1;
};

// Result of one partition in a multi-partition call; error empty when fine.
struct PartitionError {
    TopicPartition tp;
    std::string error;
};

struct AdminConfig {
    std::string bootstrap;
    std::chrono::milliseconds timeout{10'000};
    std::vector<std::pair<std::string, std::string>> properties;
    bool verbose = false;
};

// What the `weir groups` actions need from a cluster (tests substitute parts of it).
class GroupAdmin {
public:
    virtual ~GroupAdmin() = default;

    virtual ListGroupsResult list_groups() = 0;
    // nullopt when the broker does not implement DescribeGroups.
    virtual std::optional<GroupDescription> describe_group(const std::string& group) = 0;
    // Committed offsets (offset < 0: none). partitions empty: every partition the group has an offset for.
    virtual std::map<TopicPartition, std::int64_t> committed_offsets(const std::string& group,
                                                                     const std::vector<TopicPartition>& partitions) = 0;
    // Per-partition failures (empty: all committed). Throws if the request as a whole failed.
    virtual std::vector<PartitionError> alter_offsets(const std::string& group,
                                                      const std::map<TopicPartition, std::int64_t>& offsets) = 0;
    virtual void delete_group(const std::string& group) = 0;

    virtual std::map<std::string, std::vector<std::int32_t>> topic_partitions() = 0;  // every topic, sorted partitions
    virtual Watermarks watermarks(const TopicPartition& tp) = 0;
    // First offset whose timestamp >= timestamp_ms; -1 where there is none.
    virtual std::map<TopicPartition, std::int64_t> offsets_for_time(const std::vector<TopicPartition>& partitions,
                                                                    std::int64_t timestamp_ms) = 0;
};

// GroupAdmin over librdkafka. Every call is bounded by AdminConfig::timeout; all failures throw AdminError.
class KafkaAdmin final : public GroupAdmin {
public:
    explicit KafkaAdmin(AdminConfig config);  // throws AdminError on a bad property
    ~KafkaAdmin() override;
    KafkaAdmin(const KafkaAdmin&) = delete;
    KafkaAdmin& operator=(const KafkaAdmin&) = delete;

    ListGroupsResult list_groups() override;
    std::optional<GroupDescription> describe_group(const std::string& group) override;
    std::map<TopicPartition, std::int64_t> committed_offsets(const std::string& group,
                                                             const std::vector<TopicPartition>& partitions) override;
    std::vector<PartitionError> alter_offsets(const std::string& group,
                                              const std::map<TopicPartition, std::int64_t>& offsets) override;
    void delete_group(const std::string& group) override;
    std::map<std::string, std::vector<std::int32_t>> topic_partitions() override;
    Watermarks watermarks(const TopicPartition& tp) override;
    std::map<TopicPartition, std::int64_t> offsets_for_time(const std::vector<TopicPartition>& partitions,
                                                            std::int64_t timestamp_ms) override;

private:
    struct HandleDeleter {
        void operator()(rd_kafka_s* rk) const;
    };
    using Handle = std::unique_ptr<rd_kafka_s, HandleDeleter>;

    Handle make_handle() const;
    rd_kafka_s* client() const;  // throws once the handle was given up after a stuck call

    AdminConfig config_;
    Handle rk_;
};

}  // namespace weir::cli
