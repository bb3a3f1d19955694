#include "broker/metadata/embedded_metadata_store.h"

#include <algorithm>
#include <set>
#include <system_error>

#include "broker/config/topic_config.h"
#include "broker/metadata/atomic_file.h"
#include "broker/metadata/replica_assignment.h"
#include "broker/metadata/state_json.h"
#include "broker/metadata/topic_name.h"

namespace weir::metadata {
namespace {

std::string join_ids(const std::vector<int32_t>& ids) {
  std::string out;
  for (int32_t id : ids) {
    if (!out.empty()) out += ", ";
    out += std::to_string(id);
  }
  return out;
}

std::vector<int32_t> live_broker_ids(const MetadataSnapshot& s) {
  std::vector<int32_t> ids;
  for (const auto& b : s.brokers) ids.push_back(b.id);
  return ids;
}

// Problems with one replica list: empty, duplicates, unknown brokers.
std::optional<std::string> check_replica_list(const std::vector<int32_t>& replicas, int32_t partition,
                                              const MetadataSnapshot& s) {
  if (replicas.empty()) return "Partition " + std::to_string(partition) + " has an empty replica assignment.";
  std::set<int32_t> unique(replicas.begin(), replicas.end());
  if (unique.size() != replicas.size()) {
    return "Duplicate brokers not allowed in replica assignment: " + join_ids(replicas) + " for partition id " +
           std::to_string(partition) + ".";
  }
  std::vector<int32_t> unknown;
  for (int32_t r : replicas)
    if (s.broker(r) == nullptr) unknown.push_back(r);
  if (!unknown.empty()) return "Unknown broker(s) in replica assignment: " + join_ids(unknown) + ".";
  return std::nullopt;
}

PartitionInfo make_partition(int32_t id, std::vector<int32_t> replicas, const MetadataSnapshot& s) {
  PartitionInfo p;
  p.partition = id;
  p.replicas = std::move(replicas);
  // Live replicas form the ISR; the first live one leads.
  for (int32_t r : p.replicas)
    if (s.broker(r) != nullptr) p.isr.push_back(r);
  for (int32_t r : p.replicas)
    if (s.broker(r) == nullptr) p.offline_replicas.push_back(r);
  p.leader = p.isr.empty() ? -1 : p.isr.front();
  p.leader_epoch = 0;
  return p;
}

std::shared_ptr<MetadataSnapshot> next_version(const MetadataSnapshot& current) {
  auto next = std::make_shared<MetadataSnapshot>(current);
  ++next->version;
  return next;
}

}  // namespace

EmbeddedMetadataStore::EmbeddedMetadataStore(Options options)
    : local_(std::move(options.local_broker)), file_(options.dir / kFileName) {
  auto initial = std::make_shared<MetadataSnapshot>();
  initial->controller_id = local_.id;
  initial->brokers = {local_};
  try {
    std::filesystem::create_directories(options.dir);
    // A temporary file is a write that never completed; the real file is intact.
    std::error_code ignored;
    std::filesystem::path tmp = temporary_path_for(file_);
    if (std::filesystem::is_regular_file(tmp, ignored)) std::filesystem::remove(tmp, ignored);

    if (auto text = read_file_if_exists(file_)) {
      PersistedState state = decode_state(*text);
      if (state.broker_id != local_.id) {
        throw MetadataStoreError("Configured broker.id " + std::to_string(local_.id) + " doesn't match stored broker.id " +
                                 std::to_string(state.broker_id) + " in " + file_.string() +
                                 ". If you moved your data, make sure your configured broker.id matches. If you intend to "
                                 "create a new broker, you should remove all data in your data directories (log.dirs).");
      }
      initial->cluster_id = state.cluster_id;
      for (TopicInfo& t : state.topics) {
        auto ptr = std::make_shared<const TopicInfo>(std::move(t));
        initial->topics_by_id.emplace(ptr->id, ptr);
        initial->topics_by_name.emplace(ptr->name, ptr);
      }
      initial->broker_configs = std::move(state.broker_configs);
      initial->default_broker_configs = std::move(state.default_broker_configs);
    } else {
      initial->cluster_id = Uuid::random().to_string();
      persist(*initial);
    }
  } catch (const std::system_error& e) {  // includes filesystem_error
    throw MetadataStoreError("cannot open metadata in " + options.dir.string() + ": " + e.what());
  }
  snapshot_ = std::move(initial);
}

std::shared_ptr<const MetadataSnapshot> EmbeddedMetadataStore::snapshot() const {
  std::lock_guard lock(snapshot_mutex_);
  return snapshot_;
}

void EmbeddedMetadataStore::persist(const MetadataSnapshot& s) const {
  PersistedState state;
  state.cluster_id = s.cluster_id;
  state.broker_id = local_.id;
  for (const auto& [name, t] : s.topics_by_name) state.topics.push_back(*t);
  state.broker_configs = s.broker_configs;
  state.default_broker_configs = s.default_broker_configs;
  write_file_atomically(file_, encode_state(state));
}

Status EmbeddedMetadataStore::commit(std::shared_ptr<MetadataSnapshot> next, const MetadataChange& change) {
  try {
    persist(*next);
  } catch (const std::exception& e) {
    return Status::failure(ErrorCode::UnknownServerError, std::string("Failed to write metadata: ") + e.what());
  }
  {
    std::lock_guard lock(snapshot_mutex_);
    snapshot_ = std::move(next);
  }
  std::vector<std::shared_ptr<ChangeListener>> listeners;
  {
    std::lock_guard lock(listeners_mutex_);
    for (const auto& [id, l] : listeners_) listeners.push_back(l);
  }
  for (const auto& l : listeners) (*l)(change);
  return {};
}

CreateTopicResult EmbeddedMetadataStore::create_topic(const NewTopic& topic, bool validate_only) {
  std::lock_guard write(write_mutex_);
  const Snapshot current = snapshot();
  auto fail = [](ErrorCode code, std::string msg) {
    CreateTopicResult r;
    r.error = code;
    r.message = std::move(msg);
    return r;
  };

  if (auto err = validate_topic_name(topic.name)) return fail(ErrorCode::InvalidTopic, *err);
  if (current->topic(topic.name)) return fail(ErrorCode::TopicAlreadyExists, "Topic '" + topic.name + "' already exists.");
  std::vector<std::string> colliding;
  for (const auto& [name, t] : current->topics_by_name)
    if (topic_names_collide(name, topic.name)) colliding.push_back(name);
  if (!colliding.empty()) {
    std::string list;
    for (const auto& c : colliding) list += (list.empty() ? "" : ", ") + c;
    return fail(ErrorCode::InvalidTopic, "Topic '" + topic.name + "' collides with existing topics: " + list);
  }

  std::vector<std::vector<int32_t>> assignment;
  if (!topic.assignments.empty()) {
    if (topic.num_partitions != -1 || topic.replication_factor != -1) {
      return fail(ErrorCode::InvalidRequest,
                  "Both numPartitions or replicationFactor and replicasAssignments were set. Both cannot be used at the same time.");
    }
    int32_t expected = 0;
    for (const auto& [partition, replicas] : topic.assignments) {
      if (partition != expected++) {
        return fail(ErrorCode::InvalidReplicaAssignment, "Partitions should be a consecutive 0-based integer sequence");
      }
      if (auto err = check_replica_list(replicas, partition, *current)) return fail(ErrorCode::InvalidReplicaAssignment, *err);
      if (replicas.size() != topic.assignments.begin()->second.size()) {
        return fail(ErrorCode::InvalidReplicaAssignment, "All partitions should have the same number of replicas");
      }
      assignment.push_back(replicas);
    }
  } else {
    if (topic.num_partitions < 1) return fail(ErrorCode::InvalidPartitions, "Number of partitions must be larger than 0.");
    if (topic.replication_factor < 1) {
      return fail(ErrorCode::InvalidReplicationFactor, "Replication factor must be larger than 0.");
    }
    const auto live = live_broker_ids(*current);
    if (topic.replication_factor > static_cast<int32_t>(live.size())) {
      return fail(ErrorCode::InvalidReplicationFactor, "Replication factor: " + std::to_string(topic.replication_factor) +
                                                           " larger than available brokers: " + std::to_string(live.size()) + ".");
    }
    assignment = assign_replicas(topic.num_partitions, topic.replication_factor, live);
  }

  config::ConfigMap configs;
  if (auto err = config::validate_topic_configs(topic.configs, &configs)) return fail(ErrorCode::InvalidConfig, *err);
  if (validate_only) return {};

  auto info = std::make_shared<TopicInfo>();
  info->name = topic.name;
  do {
    info->id = Uuid::random();
  } while (current->topic_by_id(info->id));
  info->internal = is_internal_topic(topic.name);
  info->configs = std::move(configs);
  for (size_t p = 0; p < assignment.size(); ++p) {
    info->partitions.push_back(make_partition(static_cast<int32_t>(p), std::move(assignment[p]), *current));
  }
  TopicPtr created = info;

  auto next = next_version(*current);
  next->topics_by_name.emplace(created->name, created);
  next->topics_by_id.emplace(created->id, created);
  Status s = commit(std::move(next), {MetadataChange::Kind::TopicCreated, created->name, created->id, nullptr, created});
  if (!s.ok()) return fail(s.error, s.message);
  CreateTopicResult r;
  r.topic_id = created->id;
  r.topic = created;
  return r;
}

Status EmbeddedMetadataStore::delete_topic(std::string_view name) {
  std::lock_guard write(write_mutex_);
  const Snapshot current = snapshot();
  TopicPtr t = current->topic(name);
  if (!t) return Status::failure(ErrorCode::UnknownTopicOrPartition, "This server does not host this topic-partition.");
  if (t->internal) {
    return Status::failure(ErrorCode::InvalidRequest,
                           "Topic " + t->name + " is a kafka internal topic and is not allowed to be marked for deletion.");
  }
  auto next = next_version(*current);
  next->topics_by_name.erase(t->name);
  next->topics_by_id.erase(t->id);
  return commit(std::move(next), {MetadataChange::Kind::TopicDeleted, t->name, t->id, t, nullptr});
}

Status EmbeddedMetadataStore::create_partitions(std::string_view name, int32_t new_total,
                                                const std::vector<std::vector<int32_t>>& assignments, bool validate_only) {
  std::lock_guard write(write_mutex_);
  const Snapshot current = snapshot();
  TopicPtr t = current->topic(name);
  if (!t) return Status::failure(ErrorCode::UnknownTopicOrPartition, "The topic '" + std::string(name) + "' does not exist.");
  const auto existing = static_cast<int32_t>(t->partitions.size());
  if (new_total < existing) {
    return Status::failure(ErrorCode::InvalidPartitions, "Topic currently has " + std::to_string(existing) +
                                                             " partitions, which is higher than the requested " +
                                                             std::to_string(new_total) + ".");
  }
  if (new_total == existing) {
    return Status::failure(ErrorCode::InvalidPartitions, "Topic already has " + std::to_string(existing) + " partitions.");
  }
  const int32_t to_add = new_total - existing;
  const auto replication = static_cast<int32_t>(t->partitions.empty() ? 1 : t->partitions.front().replicas.size());

  std::vector<std::vector<int32_t>> placement;
  if (!assignments.empty()) {
    if (static_cast<int32_t>(assignments.size()) != to_add) {
      return Status::failure(ErrorCode::InvalidReplicaAssignment,
                             "Increasing the number of partitions by " + std::to_string(to_add) + " but " +
                                 std::to_string(assignments.size()) + " assignments provided.");
    }
    for (size_t i = 0; i < assignments.size(); ++i) {
      const int32_t partition = existing + static_cast<int32_t>(i);
      if (auto err = check_replica_list(assignments[i], partition, *current)) {
        return Status::failure(ErrorCode::InvalidReplicaAssignment, *err);
      }
      if (static_cast<int32_t>(assignments[i].size()) != replication) {
        return Status::failure(ErrorCode::InvalidReplicaAssignment,
                               "Inconsistent replication factor between partitions, partition 0 has " +
                                   std::to_string(replication) + " while partition " + std::to_string(partition) + " has " +
                                   std::to_string(assignments[i].size()) + ".");
      }
    }
    placement = assignments;
  } else {
    auto live = live_broker_ids(*current);
    std::sort(live.begin(), live.end());
    if (replication > static_cast<int32_t>(live.size())) {
      return Status::failure(ErrorCode::InvalidReplicationFactor, "Replication factor: " + std::to_string(replication) +
                                                                      " larger than available brokers: " +
                                                                      std::to_string(live.size()) + ".");
    }
    // Continue Kafka's placement from where partition 0's leader sits.
    int32_t start = 0;
    if (!t->partitions.empty() && !t->partitions.front().replicas.empty()) {
      const int32_t first = t->partitions.front().replicas.front();
      auto it = std::find_if(live.begin(), live.end(), [&](int32_t id) { return id >= first; });
      start = it == live.end() ? 0 : static_cast<int32_t>(it - live.begin());
    }
    placement = assign_replicas(to_add, replication, live, start, existing);
  }
  if (validate_only) return {};

  auto grown = std::make_shared<TopicInfo>(*t);
  for (int32_t i = 0; i < to_add; ++i) {
    grown->partitions.push_back(make_partition(existing + i, std::move(placement[static_cast<size_t>(i)]), *current));
  }
  TopicPtr after = grown;
  auto next = next_version(*current);
  next->topics_by_name.insert_or_assign(after->name, after);
  next->topics_by_id.insert_or_assign(after->id, after);
  return commit(std::move(next), {MetadataChange::Kind::PartitionsAdded, after->name, after->id, t, after});
}

Status EmbeddedMetadataStore::alter_topic_configs(std::string_view name, const config::ConfigMap& configs,
                                                  bool validate_only) {
  std::lock_guard write(write_mutex_);
  const Snapshot current = snapshot();
  TopicPtr t = current->topic(name);
  if (!t) return Status::failure(ErrorCode::UnknownTopicOrPartition, "The topic '" + std::string(name) + "' does not exist.");
  config::ConfigMap normalized;
  if (auto err = config::validate_topic_configs(configs, &normalized)) return Status::failure(ErrorCode::InvalidConfig, *err);
  if (validate_only) return {};

  auto altered = std::make_shared<TopicInfo>(*t);
  altered->configs = std::move(normalized);
  TopicPtr after = altered;
  auto next = next_version(*current);
  next->topics_by_name.insert_or_assign(after->name, after);
  next->topics_by_id.insert_or_assign(after->id, after);
  return commit(std::move(next), {MetadataChange::Kind::TopicConfigsChanged, after->name, after->id, t, after});
}

Status EmbeddedMetadataStore::alter_broker_configs(std::optional<int32_t> broker_id, const config::ConfigMap& configs) {
  std::lock_guard write(write_mutex_);
  auto next = next_version(*snapshot());
  if (!broker_id) {
    next->default_broker_configs = configs;
  } else if (configs.empty()) {
    next->broker_configs.erase(*broker_id);
  } else {
    next->broker_configs.insert_or_assign(*broker_id, configs);
  }
  MetadataChange change;
  change.kind = MetadataChange::Kind::BrokerConfigsChanged;
  change.broker_id = broker_id;
  return commit(std::move(next), change);
}

MetadataStore::ListenerId EmbeddedMetadataStore::add_listener(ChangeListener listener) {
  std::lock_guard lock(listeners_mutex_);
  const ListenerId id = next_listener_id_++;
  listeners_.emplace_back(id, std::make_shared<ChangeListener>(std::move(listener)));
  return id;
}

void EmbeddedMetadataStore::remove_listener(ListenerId id) {
  std::lock_guard lock(listeners_mutex_);
  std::erase_if(listeners_, [&](const auto& entry) { return entry.first == id; });
}

}  // namespace weir::metadata
