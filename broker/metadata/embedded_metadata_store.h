#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "broker/metadata/change_listeners.h"
#include "broker/metadata/metadata_store.h"

namespace weir::metadata {

// Single-node metadata kept in "<dir>/weir-metadata.json" (dir: the first log
// dir), rewritten atomically on every change. This broker is the only live
// broker and the controller; every replica list is [itself], epoch 0.
class EmbeddedMetadataStore final : public MetadataStore {
public:
    static constexpr std::string_view kFileName = "weir-metadata.json";

    struct Options {
        std::filesystem::path dir;
        BrokerInfo local_broker;  // id, advertised endpoints, rack
    };

    // Loads the state (creating dir and a fresh cluster id on first start).
    // Throws MetadataStoreError if the file is corrupt or was written by a
    // broker with another id.
    explicit EmbeddedMetadataStore(Options options);

    std::shared_ptr<const MetadataSnapshot> snapshot() const override;
    std::int32_t local_broker_id() const override { return local_.id; }

    // Each completes without suspending: the change is durable and notified
    // when the co_await returns, before anything else runs on the thread.
    Task<CreateTopicResult> create_topic(NewTopic topic, bool validate_only) override;
    Task<std::vector<CreateTopicResult>> create_topics(std::vector<NewTopic> topics, bool validate_only) override;
    Task<Status> delete_topic(std::string name) override;
    Task<std::vector<Status>> delete_topics(std::vector<std::string> names) override;
    Task<Status> create_partitions(std::string name, std::int32_t new_total,
                                   std::vector<std::vector<std::int32_t>> assignments, bool validate_only) override;
    Task<Status> alter_topic_configs(std::string name, config::ConfigMap configs, bool validate_only) override;
    Task<Status> alter_broker_configs(std::optional<std::int32_t> broker_id, config::ConfigMap configs) override;
    Task<ProducerIdBlockResult> allocate_producer_id_block() override;

    ListenerId add_listener(ChangeListener listener) override;
    void remove_listener(ListenerId id) override;

    const std::filesystem::path& file_path() const noexcept { return file_; }

private:
    using Snapshot = std::shared_ptr<const MetadataSnapshot>;

    // The mutations, done at once.
    std::vector<CreateTopicResult> create_topics_now(const std::vector<NewTopic>& topics, bool validate_only);
    std::vector<Status> delete_topics_now(const std::vector<std::string>& names);
    Status create_partitions_now(std::string_view name, std::int32_t new_total,
                                 const std::vector<std::vector<std::int32_t>>& assignments, bool validate_only);
    Status alter_topic_configs_now(std::string_view name, const config::ConfigMap& configs, bool validate_only);
    Status alter_broker_configs_now(std::optional<std::int32_t> broker_id, const config::ConfigMap& configs);
    ProducerIdBlockResult allocate_producer_id_block_now();

    // Writes `next` to disk, then publishes it and notifies the changes that
    // led to it. Returns the failure status if the write failed (state
    // unchanged). Changes that free space (topics deleted) may use the
    // reserve on a full disk.
    Status commit(std::shared_ptr<MetadataSnapshot> next, const std::vector<MetadataChange>& changes,
                  bool frees_space = false);
    void persist(const MetadataSnapshot& s) const;
    // Keeps "<file>.reserve", room held back on the metadata's disk so that
    // a topic can be deleted (and space freed) when the disk is full: a
    // rewrite of the metadata needs room for a whole new copy. Best effort.
    void keep_reserve() const;

    const BrokerInfo local_;
    const std::filesystem::path file_;
    const std::filesystem::path reserve_;
    mutable std::size_t written_bytes_ = 0;  // of the last metadata written; guarded by write_mutex_

    // Serialises mutations, their file writes and their notifications.
    // Recursive because a mutation a listener starts runs inside the
    // notification (co_spawn runs a coroutine at once, up to its first
    // suspension, and this store's mutations never suspend).
    std::recursive_mutex write_mutex_;
    mutable std::mutex snapshot_mutex_;
    Snapshot snapshot_;

    ChangeListeners listeners_;
    // Kept in the file beside the snapshot (it is no cluster metadata a
    // listener follows); guarded by write_mutex_.
    std::optional<ProducerIdBlock> latest_producer_id_block_;
};

}  // namespace weir::metadata
