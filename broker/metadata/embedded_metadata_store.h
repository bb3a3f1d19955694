#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

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
  int32_t local_broker_id() const override { return local_.id; }

  CreateTopicResult create_topic(const NewTopic& topic, bool validate_only) override;
  Status delete_topic(std::string_view name) override;
  Status create_partitions(std::string_view name, int32_t new_total,
                           const std::vector<std::vector<int32_t>>& assignments, bool validate_only) override;
  Status alter_topic_configs(std::string_view name, const config::ConfigMap& configs, bool validate_only) override;
  Status alter_broker_configs(std::optional<int32_t> broker_id, const config::ConfigMap& configs) override;

  ListenerId add_listener(ChangeListener listener) override;
  void remove_listener(ListenerId id) override;

  const std::filesystem::path& file_path() const noexcept { return file_; }

 private:
  using Snapshot = std::shared_ptr<const MetadataSnapshot>;

  // Writes `next` to disk, then publishes it and notifies. Returns the
  // failure status if the write failed (state unchanged).
  Status commit(std::shared_ptr<MetadataSnapshot> next, const MetadataChange& change);
  void persist(const MetadataSnapshot& s) const;

  const BrokerInfo local_;
  const std::filesystem::path file_;

  // Serialises mutations, their file writes and their notifications.
  // Recursive so a listener may mutate the store.
  std::recursive_mutex write_mutex_;
  mutable std::mutex snapshot_mutex_;
  Snapshot snapshot_;

  std::mutex listeners_mutex_;
  std::vector<std::pair<ListenerId, std::shared_ptr<ChangeListener>>> listeners_;
  ListenerId next_listener_id_ = 1;
};

}  // namespace weir::metadata
