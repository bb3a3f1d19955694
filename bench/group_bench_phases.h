#pragma once
// The subcommands of group_bench and the admin helpers they share. Each
// subcommand prints RESULT lines and returns the exit code, throwing
// std::runtime_error on failure.
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "bench/broker_bench_common.h"

namespace weir::bench {

int run_join(const Args& a);
int run_commit(const Args& a);
int run_memory(const Args& a);
int run_fill(const Args& a);
int run_replay(const Args& a);
int run_mock(const Args& a);

using Settings = std::vector<std::pair<std::string, std::string>>;

// bootstrap.servers from --bootstrap, quiet logging, then --set k=v,k=v.
Settings client_settings(const Args& a, const std::string& bootstrap);

// Creates `topic` (CreateTopics; an existing topic is fine) and waits until
// its partitions have leaders.
void create_topic(rd_kafka_t* rk, const std::string& topic, int partitions, std::chrono::milliseconds timeout);

// topic[0..partitions) with offsets offset_of(p).
PartitionList partition_list(
    const std::string& topic, int partitions,
    const std::function<std::int64_t(int)>& offset_of = [](int) { return -1; });

// OffsetCommit with generation -1 (AlterConsumerGroupOffsets), one request
// per group, up to `window` in flight. make(i) gives the i-th request.
// Throws on any request, group or partition error.
using GroupCommit = std::pair<std::string, PartitionList>;
void commit_groups(rd_kafka_t* admin, std::size_t count, const std::function<GroupCommit(std::size_t)>& make,
                   int window, std::chrono::milliseconds timeout);

// OffsetFetch (ListConsumerGroupOffsets) of `groups`, up to `window` in
// flight. For each group: "" when every partition's committed offset is
// expected(group index, partition), else why not (error name or mismatch).
std::vector<std::string> check_groups(rd_kafka_t* admin, const std::vector<std::string>& groups,
                                      const std::string& topic, int partitions,
                                      const std::function<std::int64_t(std::size_t, int)>& expected, int window,
                                      std::chrono::milliseconds timeout);

// Offset that `fill` commits for group index g, partition p in `round`.
std::int64_t fill_offset(int round, std::size_t g, int p);

// __consumer_offsets partition of a group, as Kafka computes it.
int offsets_partition_for(const std::string& group, int offsets_partitions);

double median(std::vector<double> v);

}  // namespace weir::bench
