#pragma once
// For tests of the layers above partitions (handlers, the coordinator) and of
// partitions themselves: a ReplicaManager over log dirs, wired to its storage
// as broker/server/broker.cc does, so those tests never touch storage.
#include <boost/asio/any_io_executor.hpp>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <vector>

#include "broker/partitions/replica_manager.h"
#include "broker/storage/log_manager.h"

namespace weir::partitions::test {

// The broker the tests' replicas live on.
inline constexpr std::int32_t kLocal = 1;

class LocalReplicas {
public:
    LocalReplicas(boost::asio::any_io_executor executor, std::vector<std::filesystem::path> log_dirs,
                  ReplicaManager::ConfigLookup config_for_topic, std::int32_t broker_id) {
        storage::LogManagerOptions options;
        options.log_dirs = std::move(log_dirs);
        options.config_for_topic = config_for_topic;
        options.background_sync = true;
        logs_ = std::make_unique<storage::LogManager>(std::move(options));
        replicas_ =
            std::make_unique<ReplicaManager>(std::move(executor), *logs_, std::move(config_for_topic), broker_id);
    }
    // A clean stop: producer state snapshotted, flushed, checkpointed, marked clean.
    ~LocalReplicas() {
        replicas_->write_producer_snapshots();
        replicas_->checkpoint_high_watermarks();
        replicas_.reset();
        logs_->shutdown();
    }
    LocalReplicas(const LocalReplicas&) = delete;
    LocalReplicas& operator=(const LocalReplicas&) = delete;

    [[nodiscard]] ReplicaManager& replicas() { return *replicas_; }
    [[nodiscard]] const storage::LogManager& logs() const { return *logs_; }
    // Retention as the broker's periodic task runs it; the number of segments deleted.
    std::size_t enforce_retention() { return logs_->enforce_retention(); }
    // What the periodic pass would have collected by now: syncs and checkpoint writes done and applied.
    void wait_for_syncs() { logs_->wait_for_syncs(); }

private:
    std::unique_ptr<storage::LogManager> logs_;
    std::unique_ptr<ReplicaManager> replicas_;
};

// The state the embedded metadata store gives a partition on one broker.
inline LeaderAndIsr single_node_leader(std::int32_t broker_id, std::int32_t epoch = 0) {
    return {broker_id, epoch, {broker_id}, {broker_id}};
}

}  // namespace weir::partitions::test
