#pragma once
// Followers' side of replication (Kafka's ReplicaFetcherThread and
// ReplicaFetcherManager). One fetcher per leader broker fetches, over one
// connection, every partition this broker follows from that leader: first it
// truncates each partition where the leader's log diverges (OffsetForLeaderEpoch
// with the latest epoch the local log holds), then it fetches from the log
// end as replica `broker.id` in a fetch session (only partitions whose
// request changed travel, and only those with news come back), appends the
// leader's batches as they are and takes the leader's high watermark and log
// start. The leader's long poll
// answers as soon as it appends, so a follower trails by one round trip.
// Runs on the broker's I/O thread.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "broker/client/broker_client.h"
#include "broker/common/task_gate.h"
#include "broker/config/broker_config.h"
#include "broker/metadata/metadata_store.h"
#include "broker/partitions/replica_manager.h"
#include "broker/replication/follower_fetch_session.h"
#include "protocol/topic_partition.h"

namespace weir::replication {

struct FetcherOptions {
    std::int32_t local_broker_id = 0;
    std::string listener = "PLAINTEXT";                  // inter.broker.listener.name
    std::int32_t max_wait_ms = 500;                      // replica.fetch.wait.max.ms
    std::int32_t min_bytes = 1;                          // replica.fetch.min.bytes
    std::int32_t response_max_bytes = 10 * 1024 * 1024;  // replica.fetch.response.max.bytes
    std::int32_t partition_max_bytes = 1024 * 1024;      // replica.fetch.max.bytes
    std::chrono::milliseconds backoff{1000};             // replica.fetch.backoff.ms
    std::chrono::milliseconds socket_timeout{30000};     // replica.socket.timeout.ms

    static FetcherOptions from(const config::BrokerConfig& config);
};

class ReplicaFetcher : public std::enable_shared_from_this<ReplicaFetcher> {
public:
    ReplicaFetcher(boost::asio::any_io_executor executor, FetcherOptions options, std::int32_t leader,
                   metadata::MetadataStore& metadata, partitions::ReplicaManager& replicas);

    // Starts (again) with truncation: a new partition or a new leader epoch.
    void add(const TopicPartition& tp);
    void remove(const TopicPartition& tp);
    [[nodiscard]] bool empty() const { return partitions_.empty(); }
    // Runs the fetch loop as a task of `gate` until stop().
    void start(common::TaskGate& gate);
    void stop();

private:
    struct State {
        bool truncated = false;
        std::int64_t fetch_offset = 0;
        std::uint64_t generation = 0;  // add() again: answers to older requests are dropped
    };

    boost::asio::awaitable<void> run();
    boost::asio::awaitable<void> connect();
    // True when some partition could not be truncated yet.
    boost::asio::awaitable<bool> truncate_pending();
    boost::asio::awaitable<void> fetch_once();
    // Still a follower of this leader, else dropped.
    std::shared_ptr<partitions::Partition> following(const TopicPartition& tp);
    // Truncated: fetched from the local log end on.
    void fetch_from_end(const TopicPartition& tp, State& state, const partitions::Partition& p);
    // Not fetched until truncated (again).
    void truncate_first(const TopicPartition& tp, State& state);
    boost::asio::awaitable<void> pause(std::chrono::milliseconds d);
    void report(const std::string& problem);

    boost::asio::any_io_executor executor_;
    FetcherOptions options_;
    std::int32_t leader_;
    metadata::MetadataStore& metadata_;
    partitions::ReplicaManager& replicas_;
    client::BrokerClient client_;
    FollowerFetchSession session_;
    std::map<TopicPartition, State> partitions_;
    std::uint64_t next_generation_ = 1;
    boost::asio::steady_timer wake_;
    bool running_ = false;
    bool stopped_ = false;
    std::string last_problem_;
};

// The fetchers of this broker, one per leader it follows.
class ReplicaFetcherManager {
public:
    ReplicaFetcherManager(boost::asio::any_io_executor executor, FetcherOptions options,
                          metadata::MetadataStore& metadata, partitions::ReplicaManager& replicas);
    ~ReplicaFetcherManager();
    ReplicaFetcherManager(const ReplicaFetcherManager&) = delete;
    ReplicaFetcherManager& operator=(const ReplicaFetcherManager&) = delete;

    // Follows the partition's current state: fetch from its leader while this
    // broker follows it, else not at all.
    void update(const TopicPartition& tp);
    void remove(const TopicPartition& tp);
    void stop();
    // After stop(): resolves once every fetcher's loop has ended.
    boost::asio::awaitable<void> stopped();

private:
    struct Following {
        std::int32_t leader = -1;
        std::int32_t leader_epoch = -1;
    };

    boost::asio::any_io_executor executor_;
    FetcherOptions options_;
    metadata::MetadataStore& metadata_;
    partitions::ReplicaManager& replicas_;
    std::map<std::int32_t, std::shared_ptr<ReplicaFetcher>> by_leader_;
    std::map<TopicPartition, Following> following_;
    bool stopped_ = false;
    // Owns the fetchers' loops, including those of fetchers already dropped.
    common::TaskGate gate_;
};

}  // namespace weir::replication
