#include "broker/metadata/embedded_metadata_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <system_error>

#include "broker/common/logging.h"
#include "broker/metadata/atomic_file.h"
#include "broker/metadata/producer_id_block.h"
#include "broker/metadata/replica_assignment.h"
#include "broker/metadata/state_json.h"
#include "broker/metadata/topic_name.h"
#include "broker/metadata/topic_validation.h"

namespace weir::metadata {
namespace {

PartitionInfo make_partition(std::int32_t id, std::vector<std::int32_t> replicas, const MetadataSnapshot& s) {
    PartitionInfo p;
    p.partition = id;
    p.replicas = std::move(replicas);
    // Live replicas form the ISR; the first live one leads.
    for (std::int32_t r : p.replicas)
        if (s.broker(r) != nullptr) p.isr.push_back(r);
    for (std::int32_t r : p.replicas)
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
    : local_(std::move(options.local_broker)),
      file_(options.dir / kFileName),
      reserve_(options.dir / (std::string(kFileName) + ".reserve")) {
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
            written_bytes_ = text->size();
            keep_reserve();
            PersistedState state = decode_state(*text);
            if (state.broker_id != local_.id) {
                throw MetadataStoreError(
                    "Configured broker.id " + std::to_string(local_.id) + " doesn't match stored broker.id " +
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
            latest_producer_id_block_ = state.latest_producer_id_block;
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
    state.latest_producer_id_block = latest_producer_id_block_;
    const auto encoded = encode_state(state);
    write_file_atomically(file_, encoded);
    written_bytes_ = encoded.size();
    keep_reserve();
}

void EmbeddedMetadataStore::keep_reserve() const {
    const auto want = static_cast<off_t>(std::max<std::size_t>(1 << 20, 2 * written_bytes_));
    std::error_code ec;
    if (std::filesystem::exists(reserve_, ec) &&
        std::filesystem::file_size(reserve_, ec) >= static_cast<std::uintmax_t>(want))
        return;
    const int fd = ::open(reserve_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return;
    // Blocks, not a hole: only allocated space can be given back.
    if (::posix_fallocate(fd, 0, want) != 0) {
        if (::ftruncate(fd, 0) != 0) {
            // An empty reserve is no reserve; the next write tries again.
        }
    }
    ::close(fd);
}

Status EmbeddedMetadataStore::commit(std::shared_ptr<MetadataSnapshot> next, const std::vector<MetadataChange>& changes,
                                     bool frees_space) {
    try {
        try {
            persist(*next);
        } catch (const std::system_error& e) {
            std::error_code ec;
            if (!frees_space || e.code() != std::errc::no_space_on_device || !std::filesystem::remove(reserve_, ec))
                throw;
            logging::warn("metadata disk full: writing with the space held in {} so that the deletion frees space",
                          reserve_.string());
            persist(*next);
        }
    } catch (const std::exception& e) {
        return Status::failure(ErrorCode::unknown_server_error, std::string("Failed to write metadata: ") + e.what());
    }
    {
        std::lock_guard lock(snapshot_mutex_);
        snapshot_ = std::move(next);
    }
    listeners_.notify(changes);
    return {};
}

Task<CreateTopicResult> EmbeddedMetadataStore::create_topic(NewTopic topic, bool validate_only) {
    co_return create_topics_now({std::move(topic)}, validate_only).front();
}

Task<std::vector<CreateTopicResult>> EmbeddedMetadataStore::create_topics(std::vector<NewTopic> topics,
                                                                          bool validate_only) {
    co_return create_topics_now(topics, validate_only);
}

Task<Status> EmbeddedMetadataStore::delete_topic(std::string name) {
    co_return delete_topics_now({std::move(name)}).front();
}

Task<std::vector<Status>> EmbeddedMetadataStore::delete_topics(std::vector<std::string> names) {
    co_return delete_topics_now(names);
}

Task<Status> EmbeddedMetadataStore::create_partitions(std::string name, std::int32_t new_total,
                                                      std::vector<std::vector<std::int32_t>> assignments,
                                                      bool validate_only) {
    co_return create_partitions_now(name, new_total, assignments, validate_only);
}

Task<Status> EmbeddedMetadataStore::alter_topic_configs(std::string name, config::ConfigMap configs,
                                                        bool validate_only) {
    co_return alter_topic_configs_now(name, configs, validate_only);
}

Task<Status> EmbeddedMetadataStore::alter_broker_configs(std::optional<std::int32_t> broker_id,
                                                         config::ConfigMap configs) {
    co_return alter_broker_configs_now(broker_id, configs);
}

std::vector<CreateTopicResult> EmbeddedMetadataStore::create_topics_now(const std::vector<NewTopic>& topics,
                                                                        bool validate_only) {
    std::lock_guard write(write_mutex_);
    auto next = next_version(*snapshot());
    std::vector<CreateTopicResult> out;
    std::vector<MetadataChange> changes;
    for (const auto& topic : topics) {
        auto& result = out.emplace_back();
        // Checked against `next`: a name given twice exists the second time.
        config::ConfigMap configs;
        if (auto s = validate_new_topic(*next, topic, &configs); !s.ok()) {
            result.error = s.error;
            result.message = s.message;
            continue;
        }
        if (validate_only) continue;

        std::vector<std::vector<std::int32_t>> assignment;
        if (topic.assignments.empty()) {
            assignment = assign_replicas(topic.num_partitions, topic.replication_factor, next->broker_ids());
        } else {
            // validate_new_topic made sure the partitions are 0..n-1.
            for (const auto& [partition, replicas] : topic.assignments) assignment.push_back(replicas);
        }
        auto info = std::make_shared<TopicInfo>();
        info->name = topic.name;
        do {
            info->id = Uuid::random();
        } while (next->topic_by_id(info->id));
        info->internal = is_internal_topic(topic.name);
        info->configs = std::move(configs);
        for (std::size_t p = 0; p < assignment.size(); ++p)
            info->partitions.push_back(make_partition(static_cast<std::int32_t>(p), std::move(assignment[p]), *next));
        TopicPtr created = info;
        next->topics_by_name.emplace(created->name, created);
        next->topics_by_id.emplace(created->id, created);
        changes.push_back({MetadataChange::Kind::topic_created, created->name, created->id, nullptr, created});
        result.topic_id = created->id;
        result.topic = created;
    }
    if (changes.empty()) return out;
    if (auto s = commit(std::move(next), changes); !s.ok()) {
        for (auto& result : out) {
            if (!result.ok()) continue;
            result.error = s.error;
            result.message = s.message;
            result.topic_id = Uuid{};
            result.topic = nullptr;
        }
    }
    return out;
}

std::vector<Status> EmbeddedMetadataStore::delete_topics_now(const std::vector<std::string>& names) {
    std::lock_guard write(write_mutex_);
    const Snapshot current = snapshot();
    auto next = next_version(*current);
    std::vector<Status> out;
    std::vector<MetadataChange> changes;
    for (const auto& name : names) {
        // Checked against `next`: a name given twice is unknown the second time.
        auto& status = out.emplace_back(validate_topic_deletion(*next, name));
        if (!status.ok()) continue;
        TopicPtr t = next->topic(name);
        next->topics_by_name.erase(t->name);
        next->topics_by_id.erase(t->id);
        changes.push_back({MetadataChange::Kind::topic_deleted, t->name, t->id, t, nullptr});
    }
    if (changes.empty()) return out;
    if (auto s = commit(std::move(next), changes, true); !s.ok())
        for (auto& status : out)
            if (status.ok()) status = s;
    return out;
}

Status EmbeddedMetadataStore::create_partitions_now(std::string_view name, std::int32_t new_total,
                                                    const std::vector<std::vector<std::int32_t>>& assignments,
                                                    bool validate_only) {
    std::lock_guard write(write_mutex_);
    const Snapshot current = snapshot();
    if (auto s = validate_new_partitions(*current, name, new_total, assignments); !s.ok()) return s;
    if (validate_only) return {};

    TopicPtr t = current->topic(name);
    const auto existing = static_cast<std::int32_t>(t->partitions.size());
    auto placement = assignments.empty() ? assign_added_partitions(*t, new_total, current->brokers) : assignments;
    auto grown = std::make_shared<TopicInfo>(*t);
    for (std::size_t i = 0; i < placement.size(); ++i) {
        grown->partitions.push_back(
            make_partition(existing + static_cast<std::int32_t>(i), std::move(placement[i]), *current));
    }
    TopicPtr after = grown;
    auto next = next_version(*current);
    next->topics_by_name.insert_or_assign(after->name, after);
    next->topics_by_id.insert_or_assign(after->id, after);
    return commit(std::move(next), {{MetadataChange::Kind::partitions_added, after->name, after->id, t, after}});
}

Status EmbeddedMetadataStore::alter_topic_configs_now(std::string_view name, const config::ConfigMap& configs,
                                                      bool validate_only) {
    std::lock_guard write(write_mutex_);
    const Snapshot current = snapshot();
    config::ConfigMap normalized;
    if (auto s = validate_topic_config_change(*current, name, configs, &normalized); !s.ok()) return s;
    if (validate_only) return {};

    TopicPtr t = current->topic(name);
    auto altered = std::make_shared<TopicInfo>(*t);
    altered->configs = std::move(normalized);
    TopicPtr after = altered;
    auto next = next_version(*current);
    next->topics_by_name.insert_or_assign(after->name, after);
    next->topics_by_id.insert_or_assign(after->id, after);
    return commit(std::move(next), {{MetadataChange::Kind::topic_configs_changed, after->name, after->id, t, after}});
}

Status EmbeddedMetadataStore::alter_broker_configs_now(std::optional<std::int32_t> broker_id,
                                                       const config::ConfigMap& configs) {
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
    change.kind = MetadataChange::Kind::broker_configs_changed;
    change.broker_id = broker_id;
    return commit(std::move(next), {change});
}

Task<ProducerIdBlockResult> EmbeddedMetadataStore::allocate_producer_id_block() {
    co_return allocate_producer_id_block_now();
}

ProducerIdBlockResult EmbeddedMetadataStore::allocate_producer_id_block_now() {
    std::lock_guard write(write_mutex_);
    ProducerIdBlockResult result;
    const auto previous = latest_producer_id_block_;
    const auto next = next_producer_id_block(previous, local_.id);
    if (!next) {
        result.error = ErrorCode::unknown_server_error;
        result.message = "Have exhausted all producerIds.";
        return result;
    }
    latest_producer_id_block_ = next;
    try {
        persist(*snapshot());
    } catch (const std::exception& e) {
        latest_producer_id_block_ = previous;
        result.error = ErrorCode::unknown_server_error;
        result.message = std::string("Failed to write metadata: ") + e.what();
        return result;
    }
    result.block = *latest_producer_id_block_;
    return result;
}

MetadataStore::ListenerId EmbeddedMetadataStore::add_listener(ChangeListener listener) {
    return listeners_.add(std::move(listener));
}

void EmbeddedMetadataStore::remove_listener(ListenerId id) { listeners_.remove(id); }

}  // namespace weir::metadata
