#include "broker/metadata/zookeeper/zk_metadata_store.h"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <charconv>
#include <thread>

#include "broker/common/logging.h"
#include "broker/metadata/producer_id_block.h"
#include "broker/metadata/replica_assignment.h"
#include "broker/metadata/snapshot_diff.h"
#include "broker/metadata/topic_name.h"
#include "broker/metadata/topic_validation.h"

namespace weir::metadata {
namespace paths = zk::paths;
using zk::Result;
using zk::ZkSession;

namespace {

std::int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// Sets a node's data, creating it (and its parents) when missing.
void write_node(ZkSession& s, const std::string& path, const std::string& data) {
    if (s.set(path, data) == Result::no_node) {
        auto parent = path.substr(0, path.rfind('/'));
        s.ensure_path(parent);
        if (s.create(path, data) == Result::node_exists) s.set(path, data);
    }
}

// A config change notice, as Kafka's AdminZkClient writes one, for tools that
// follow /config/changes.
void notify_config_change(ZkSession& s, const std::string& entity_path) {
    s.create(std::string(paths::kConfigChanges) + "/config_change_", zk::encode_config_change(entity_path),
             zk::CreateMode::persistent_sequential);
}

bool has_leaders(const TopicInfo& t) {
    for (const auto& p : t.partitions)
        if (p.leader < 0) return false;
    return true;
}

}  // namespace

ZkMetadataStore::ZkMetadataStore(Options options)
    : local_(std::move(options.local_broker)),
      executor_(std::move(options.executor)),
      propagation_timeout_(options.propagation_timeout),
      gate_(executor_, "metadata store") {
    try {
        zk_ = std::make_unique<zk::ZkClient>(options.zookeeper);
        client_ = zk_.get();
        zk_->subscribe([this](ZkSession& s, const zk::WatchEvent& e) { on_event(s, e); });
        zk_->run_sync([this](ZkSession& s) {
            start_session(s);
            built_ = build();
            return 0;
        });
    } catch (const MetadataStoreError&) {
        throw;
    } catch (const std::exception& e) {
        throw MetadataStoreError(std::string("ZooKeeper (zookeeper.connect=") + options.zookeeper.connect +
                                 "): " + e.what());
    }
    snapshot_ = built_;
}

ZkMetadataStore::~ZkMetadataStore() {
    gate_.close();
    // Closing the session removes this broker's registration at once.
    zk_.reset();
}

std::shared_ptr<const MetadataSnapshot> ZkMetadataStore::snapshot() const {
    std::lock_guard lock(snapshot_mutex_);
    return snapshot_;
}

// ---- ZooKeeper thread -------------------------------------------------------

void ZkMetadataStore::start_session(ZkSession& s) {
    for (const auto& p : paths::persistent_paths()) s.ensure_path(p);
    if (auto node = s.get(std::string(paths::kClusterId))) {
        cache_.cluster_id = zk::decode_cluster_id(node->data);
    } else {
        s.ensure_path("/cluster");
        const std::string id = Uuid::random().to_string();
        if (s.create(std::string(paths::kClusterId), zk::encode_cluster_id(id)) == Result::node_exists) {
            cache_.cluster_id = zk::decode_cluster_id(s.get(std::string(paths::kClusterId))->data);
        } else {
            cache_.cluster_id = id;
        }
    }
    if (registered_) register_broker(s);
    load_all(s);
}

void ZkMetadataStore::register_broker(ZkSession& s) {
    const std::string path = paths::broker(local_.id);
    const std::string data = zk::encode_broker(local_, now_ms());
    // After a crash the previous session's node stays until that session
    // expires; Kafka gives up at once, Weir waits the session out.
    const auto deadline =
        std::chrono::steady_clock::now() + zk_->options().session_timeout + std::chrono::milliseconds(2000);
    bool told = false;
    while (true) {
        if (s.create(path, data, zk::CreateMode::ephemeral) == Result::ok) return;
        auto node = s.get(path);
        if (node && node->ephemeral_owner == s.session_id()) return;
        if (std::chrono::steady_clock::now() > deadline) {
            throw MetadataStoreError("Error while creating ephemeral at " + path + ", node already exists and owner '" +
                                     std::to_string(node ? node->ephemeral_owner : 0) +
                                     "' does not match current session '" + std::to_string(s.session_id()) + "'");
        }
        if (!told) {
            logging::info("{} is held by an earlier session; waiting for it to expire", path);
            told = true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
}

void ZkMetadataStore::load_all(ZkSession& s) {
    cache_.topics.clear();
    cache_.broker_configs.clear();
    cache_.default_broker_configs.clear();
    load_controller(s);
    load_brokers(s);
    load_topic_list(s);
    load_broker_config_list(s);
}

void ZkMetadataStore::load_broker_config_list(ZkSession& s) {
    auto ids = s.children(std::string(paths::kConfigBrokers), true);
    if (!ids) return;
    for (const auto& id : *ids) {
        if (id == "<default>") {
            load_broker_config(s, std::nullopt);
        } else if (auto n = zk::parse_id(id)) {
            load_broker_config(s, *n);
        }
    }
}

void ZkMetadataStore::load_controller(ZkSession& s) {
    cache_.controller = -1;
    if (auto node = s.get(std::string(paths::kController), true)) {
        try {
            cache_.controller = zk::decode_controller(node->data);
        } catch (const zk::ZkDataError& e) {
            logging::warn("unreadable {}: {}", paths::kController, e.what());
        }
    }
}

void ZkMetadataStore::load_brokers(ZkSession& s) {
    cache_.brokers.clear();
    auto ids = s.children(std::string(paths::kBrokerIds), true);
    if (!ids) return;
    for (const auto& name : *ids) {
        auto id = zk::parse_id(name);
        if (!id) continue;
        auto node = s.get(paths::broker(*id));
        if (!node) continue;
        try {
            cache_.brokers[*id] = zk::decode_broker(*id, node->data);
        } catch (const zk::ZkDataError& e) {
            logging::warn("unreadable registration of broker {}: {}", *id, e.what());
        }
    }
}

void ZkMetadataStore::load_topic_list(ZkSession& s) {
    auto names = s.children(std::string(paths::kTopics), true);
    std::set<std::string> present(names ? names->begin() : std::vector<std::string>::const_iterator{},
                                  names ? names->end() : std::vector<std::string>::const_iterator{});
    std::erase_if(cache_.topics, [&](const auto& entry) { return !present.contains(entry.first); });
    for (const auto& name : present)
        if (!cache_.topics.contains(name)) load_topic(s, name);
}

void ZkMetadataStore::load_topic(ZkSession& s, const std::string& name) {
    auto node = s.get(paths::topic(name), true);
    if (!node) {
        cache_.topics.erase(name);
        return;
    }
    zk::TopicAssignment assignment;
    try {
        assignment = zk::decode_topic_assignment(node->data);
    } catch (const zk::ZkDataError& e) {
        logging::warn("unreadable assignment of topic {}: {}", name, e.what());
        return;
    }
    const bool is_new = !cache_.topics.contains(name);
    TopicCache& t = cache_.topics[name];
    t.assignment = std::move(assignment);
    std::erase_if(t.states, [&](const auto& entry) { return !t.assignment.partitions.contains(entry.first); });
    if (is_new) load_topic_config(s, name);
    for (const auto& [p, replicas] : t.assignment.partitions)
        if (!t.states.contains(p)) load_state(s, name, p);
}

void ZkMetadataStore::load_state(ZkSession& s, const std::string& topic, std::int32_t partition) {
    auto it = cache_.topics.find(topic);
    if (it == cache_.topics.end()) return;
    auto node = s.get(paths::partition_state(topic, partition), true);
    if (!node || node->data.empty()) {
        it->second.states.erase(partition);
        return;
    }
    try {
        it->second.states[partition] = zk::decode_partition_state(node->data);
    } catch (const zk::ZkDataError& e) {
        logging::warn("unreadable state of {}-{}: {}", topic, partition, e.what());
    }
}

void ZkMetadataStore::load_topic_config(ZkSession& s, const std::string& topic) {
    auto it = cache_.topics.find(topic);
    auto node = s.get(paths::topic_config(topic), true);
    if (it == cache_.topics.end()) return;
    try {
        it->second.configs = node ? zk::decode_config(node->data) : config::ConfigMap{};
    } catch (const zk::ZkDataError& e) {
        logging::warn("unreadable config of topic {}: {}", topic, e.what());
    }
}

void ZkMetadataStore::load_broker_config(ZkSession& s, std::optional<std::int32_t> id) {
    auto node = s.get(paths::broker_config(id), true);
    config::ConfigMap configs;
    try {
        if (node) configs = zk::decode_config(node->data);
    } catch (const zk::ZkDataError& e) {
        logging::warn("unreadable {}: {}", paths::broker_config(id), e.what());
    }
    if (!id) {
        cache_.default_broker_configs = std::move(configs);
    } else if (configs.empty()) {
        cache_.broker_configs.erase(*id);
    } else {
        cache_.broker_configs[*id] = std::move(configs);
    }
}

void ZkMetadataStore::on_event(ZkSession& s, const zk::WatchEvent& event) {
    // An event queued before the constructor's first read of everything (a
    // session event, say) has nothing to add to it.
    if (!built_) return;
    try {
        handle_event(s, event);
    } catch (const zk::ZkError& e) {
        // Lost connection: the client reconnects by itself and the watches
        // stay; an expired session arrives as its own event.
        logging::warn("ZooKeeper read after an event on {} failed: {}", event.path, e.what());
        if (!e.session_expired()) return;
        handle_event(s, {zk::WatchEvent::Type::session, "", zk::WatchEvent::State::expired});
    }
    // Events come in bursts (a topic's partitions, every leadership a broker
    // held): one snapshot after the events already queued, not one per event,
    // since each build walks every partition of the cluster.
    if (publish_queued_ || !gate_.open()) return;
    publish_queued_ = true;
    // Not through zk_: while the destructor joins the ZooKeeper thread, zk_
    // is already empty and the client it held still runs queued events.
    client_->post([this, pass = gate_.pass()](ZkSession&) {
        if (!pass.open()) return;
        publish_queued_ = false;
        publish();
    });
}

void ZkMetadataStore::handle_event(ZkSession& s, const zk::WatchEvent& event) {
    using Type = zk::WatchEvent::Type;
    if (event.type == Type::session) {
        if (event.state != zk::WatchEvent::State::expired || !gate_.open()) return;
        logging::warn("ZooKeeper session expired; starting a new one");
        for (int attempt = 1; gate_.open(); ++attempt) {
            try {
                zk_->reconnect(s);
                start_session(s);
                logging::info("ZooKeeper session re-established; broker {} registered again", local_.id);
                return;
            } catch (const std::exception& e) {
                logging::warn("ZooKeeper session attempt {} failed: {}", attempt, e.what());
                std::this_thread::sleep_for(std::chrono::seconds(1));
            }
        }
        return;
    }
    const std::string& path = event.path;
    auto under = [&](std::string_view prefix) {
        return path.size() > prefix.size() + 1 && path.starts_with(prefix) && path[prefix.size()] == '/';
    };
    if (path == paths::kController) {
        load_controller(s);
    } else if (path == paths::kBrokerIds) {
        load_brokers(s);
    } else if (path == paths::kTopics) {
        load_topic_list(s);
    } else if (under(paths::kTopics)) {
        // <topic> or <topic>/partitions/<p>/state
        std::string_view rest = std::string_view(path).substr(paths::kTopics.size() + 1);
        auto slash = rest.find('/');
        std::string topic(rest.substr(0, slash));
        if (slash == std::string_view::npos) {
            load_topic(s, topic);
            return;
        }
        rest = rest.substr(slash);
        constexpr std::string_view kPartitions = "/partitions/";
        constexpr std::string_view kState = "/state";
        if (rest.starts_with(kPartitions) && rest.ends_with(kState)) {
            auto p = zk::parse_id(rest.substr(kPartitions.size(), rest.size() - kPartitions.size() - kState.size()));
            if (p) load_state(s, topic, *p);
        }
    } else if (under(paths::kConfigTopics)) {
        load_topic_config(s, path.substr(paths::kConfigTopics.size() + 1));
    } else if (path == paths::kConfigBrokers) {
        load_broker_config_list(s);
    } else if (under(paths::kConfigBrokers)) {
        auto id = path.substr(paths::kConfigBrokers.size() + 1);
        if (id == "<default>") {
            load_broker_config(s, std::nullopt);
        } else if (auto n = zk::parse_id(id)) {
            load_broker_config(s, *n);
        }
    }
}

std::shared_ptr<MetadataSnapshot> ZkMetadataStore::build() const {
    auto snap = std::make_shared<MetadataSnapshot>();
    snap->cluster_id = cache_.cluster_id;
    snap->controller_id = cache_.controller;
    for (const auto& [id, b] : cache_.brokers) snap->brokers.push_back(b);
    for (const auto& [name, t] : cache_.topics) {
        // Topics written without an id (by older tools) wait for the
        // controller to give them one.
        if (!t.assignment.topic_id) continue;
        auto info = std::make_shared<TopicInfo>();
        info->name = name;
        info->id = *t.assignment.topic_id;
        info->internal = is_internal_topic(name);
        info->configs = t.configs;
        // A Kafka broker learns the partitions of a new topic, or those
        // CreatePartitions adds, from one UpdateMetadata naming them all with
        // their leaders. The controller writes their states one by one, so
        // they are shown once all have one; until then what was shown stays
        // (nothing for a new topic): a client never caches a topic without
        // leaders or with only some of its partitions.
        std::int32_t assigned = 0;
        while (t.assignment.partitions.contains(assigned)) ++assigned;
        std::int32_t stated = 0;
        while (stated < assigned && t.states.contains(stated)) ++stated;
        std::int32_t shown = stated;
        if (stated < assigned) {
            const auto before = built_ ? built_->topic(name) : nullptr;
            shown = before && before->id == info->id
                        ? std::min(stated, static_cast<std::int32_t>(before->partitions.size()))
                        : 0;
        }
        for (std::int32_t p = 0; p < shown; ++p) {
            const auto& st = t.states.at(p);
            PartitionInfo part;
            part.partition = p;
            part.replicas = t.assignment.partitions.at(p);
            part.leader = st.leader;
            part.leader_epoch = st.leader_epoch;
            part.isr = st.isr;
            for (auto r : part.replicas)
                if (!cache_.brokers.contains(r)) part.offline_replicas.push_back(r);
            info->partitions.push_back(std::move(part));
        }
        if (info->partitions.empty()) continue;
        TopicPtr ptr = info;
        snap->topics_by_name.emplace(name, ptr);
        snap->topics_by_id.emplace(ptr->id, ptr);
    }
    snap->broker_configs = cache_.broker_configs;
    snap->default_broker_configs = cache_.default_broker_configs;
    return snap;
}

void ZkMetadataStore::publish() {
    auto next = build();
    auto changes = diff_snapshots(*built_, *next);
    if (changes.empty() && next->cluster_id == built_->cluster_id) return;
    next->version = ++version_;
    built_ = next;
    gate_.post(
        [this, next, changes = std::move(changes)]() mutable { apply_published(std::move(next), std::move(changes)); });
}

// ---- I/O thread -------------------------------------------------------------

void ZkMetadataStore::apply_published(std::shared_ptr<const MetadataSnapshot> next,
                                      std::vector<MetadataChange> changes) {
    {
        std::lock_guard lock(snapshot_mutex_);
        snapshot_ = next;
    }
    listeners_.notify(changes);
    for (Waiter* w : waiters_)
        if (w->ready(*next)) w->timer.cancel();
}

Task<bool> ZkMetadataStore::wait_until(const std::function<bool(const MetadataSnapshot&)>& ready,
                                       std::chrono::milliseconds timeout) {
    if (ready(*snapshot())) co_return true;
    Waiter w{ready, boost::asio::steady_timer(executor_, timeout)};
    waiters_.push_back(&w);
    boost::system::error_code ec;
    co_await w.timer.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ec));
    waiters_.remove(&w);
    co_return w.ready(*snapshot());
}

template <typename F>
Task<Status> ZkMetadataStore::zk_call(F& operation) {
    std::string failure;
    try {
        auto call = zk_->run(operation);
        co_return co_await std::move(call);
    } catch (const std::exception& e) {
        failure = e.what();
    }
    co_return Status::failure(ErrorCode::unknown_server_error, "ZooKeeper: " + failure);
}

Task<CreateTopicResult> ZkMetadataStore::create_topic(NewTopic topic, bool validate_only) {
    auto fail = [](const Status& s) {
        CreateTopicResult r;
        r.error = s.error;
        r.message = s.message;
        return r;
    };
    const auto current = snapshot();
    config::ConfigMap configs;
    if (auto s = validate_new_topic(*current, topic, &configs); !s.ok()) co_return fail(s);
    if (validate_only) co_return CreateTopicResult{};

    zk::TopicAssignment assignment;
    if (topic.assignments.empty()) {
        auto placed = place_new_topic(topic.num_partitions, topic.replication_factor, current->brokers);
        for (std::size_t p = 0; p < placed.size(); ++p)
            assignment.partitions[static_cast<std::int32_t>(p)] = std::move(placed[p]);
    } else {
        assignment.partitions = topic.assignments;
    }
    const Uuid id = Uuid::random();
    assignment.topic_id = id;
    const std::string name = topic.name;
    auto operation = [name, assignment, configs](ZkSession& s) -> Status {
        if (s.exists(paths::delete_topic(name)))
            return Status::failure(ErrorCode::topic_already_exists, "Topic '" + name + "' is marked for deletion.");
        if (s.exists(paths::topic(name)))
            return Status::failure(ErrorCode::topic_already_exists, "Topic '" + name + "' already exists.");
        // The config first, as Kafka's AdminZkClient writes it: a broker that
        // sees the topic sees its config.
        write_node(s, paths::topic_config(name), zk::encode_config(configs));
        if (s.create(paths::topic(name), zk::encode_topic_assignment(assignment)) == Result::node_exists)
            return Status::failure(ErrorCode::topic_already_exists, "Topic '" + name + "' already exists.");
        return {};
    };
    Status written = co_await zk_call(operation);
    if (!written.ok()) co_return fail(written);

    const auto partitions = assignment.partitions.size();
    const std::function<bool(const MetadataSnapshot&)> visible = [&](const MetadataSnapshot& s) {
        auto t = s.topic(name);
        return t && t->id == id && t->partitions.size() >= partitions && has_leaders(*t);
    };
    co_await wait_until(visible, propagation_timeout_);
    CreateTopicResult r;
    r.topic_id = id;
    if (auto t = snapshot()->topic(name); t && t->id == id) {
        r.topic = t;
    } else {
        // Not seen yet: described as written, without leaders.
        auto info = std::make_shared<TopicInfo>();
        info->name = name;
        info->id = id;
        info->internal = is_internal_topic(name);
        info->configs = configs;
        for (const auto& [p, replicas] : assignment.partitions) {
            PartitionInfo part;
            part.partition = p;
            part.replicas = replicas;
            info->partitions.push_back(std::move(part));
        }
        r.topic = info;
    }
    co_return r;
}

Task<bool> ZkMetadataStore::catch_up_on_topic(std::string name, std::chrono::milliseconds timeout) {
    const std::function<bool(const MetadataSnapshot&)> shown = [&](const MetadataSnapshot& s) {
        return s.topic(name) != nullptr;
    };
    if (shown(*snapshot())) co_return true;
    // Kafka's controller sends every broker the new topic at once; here each
    // broker reads it through its own watches, some milliseconds apart.
    bool written = false;
    auto operation = [&name, &written](ZkSession& s) -> Status {
        written = s.exists(paths::topic(name)) && !s.exists(paths::delete_topic(name));
        return {};
    };
    if (!(co_await zk_call(operation)).ok() || !written) co_return false;
    co_return co_await wait_until(shown, timeout);
}

Task<Status> ZkMetadataStore::delete_topic(std::string name) {
    if (auto s = validate_topic_deletion(*co_await snapshot_showing(name), name); !s.ok()) co_return s;
    auto operation = [name](ZkSession& s) -> Status {
        s.create(paths::delete_topic(name), "");
        return {};
    };
    Status marked = co_await zk_call(operation);
    if (!marked.ok()) co_return marked;
    const std::function<bool(const MetadataSnapshot&)> gone_everywhere = [&](const MetadataSnapshot& s) {
        return !s.topic(name);
    };
    bool gone = co_await wait_until(gone_everywhere, propagation_timeout_);
    if (!gone) co_return Status::failure(ErrorCode::request_timed_out, "Topic '" + name + "' is marked for deletion.");
    co_return Status{};
}

Task<Status> ZkMetadataStore::create_partitions(std::string name, std::int32_t new_total,
                                                std::vector<std::vector<std::int32_t>> assignments,
                                                bool validate_only) {
    const auto current = co_await snapshot_showing(name);
    if (auto s = validate_new_partitions(*current, name, new_total, assignments); !s.ok()) co_return s;
    if (validate_only) co_return Status{};
    TopicPtr t = current->topic(name);
    const auto existing = static_cast<std::int32_t>(t->partitions.size());
    auto placement = assignments.empty() ? assign_added_partitions(*t, new_total, current->brokers) : assignments;
    auto operation = [name, existing, placement](ZkSession& s) -> Status {
        auto node = s.get(paths::topic(name));
        if (!node) return Status::failure(ErrorCode::unknown_topic_or_partition, "Topic '" + name + "' not found.");
        auto a = zk::decode_topic_assignment(node->data);
        if (static_cast<std::int32_t>(a.partitions.size()) != existing)
            return Status::failure(ErrorCode::invalid_partitions,
                                   "Topic '" + name + "' changed its partition count meanwhile.");
        for (std::size_t i = 0; i < placement.size(); ++i)
            a.partitions[existing + static_cast<std::int32_t>(i)] = placement[i];
        if (s.set(paths::topic(name), zk::encode_topic_assignment(a), node->version) != Result::ok)
            return Status::failure(ErrorCode::invalid_partitions,
                                   "Topic '" + name + "' changed its partition count meanwhile.");
        return {};
    };
    Status written = co_await zk_call(operation);
    if (!written.ok()) co_return written;
    const std::function<bool(const MetadataSnapshot&)> visible = [&](const MetadataSnapshot& s) {
        auto now = s.topic(name);
        return now && static_cast<std::int32_t>(now->partitions.size()) >= new_total && has_leaders(*now);
    };
    co_await wait_until(visible, propagation_timeout_);
    co_return Status{};
}

Task<Status> ZkMetadataStore::alter_topic_configs(std::string name, config::ConfigMap configs, bool validate_only) {
    config::ConfigMap normalized;
    if (auto s = validate_topic_config_change(*co_await snapshot_showing(name), name, configs, &normalized); !s.ok())
        co_return s;
    if (validate_only) co_return Status{};
    auto operation = [name, normalized](ZkSession& s) -> Status {
        write_node(s, paths::topic_config(name), zk::encode_config(normalized));
        notify_config_change(s, "topics/" + name);
        return {};
    };
    Status written = co_await zk_call(operation);
    if (!written.ok()) co_return written;
    const std::function<bool(const MetadataSnapshot&)> visible = [&](const MetadataSnapshot& s) {
        auto t = s.topic(name);
        return !t || t->configs == normalized;
    };
    co_await wait_until(visible, propagation_timeout_);
    co_return Status{};
}

Task<Status> ZkMetadataStore::alter_broker_configs(std::optional<std::int32_t> broker_id, config::ConfigMap configs) {
    auto operation = [broker_id, configs](ZkSession& s) -> Status {
        write_node(s, paths::broker_config(broker_id), zk::encode_config(configs));
        notify_config_change(s, "brokers/" + (broker_id ? std::to_string(*broker_id) : std::string("<default>")));
        return {};
    };
    Status written = co_await zk_call(operation);
    if (!written.ok()) co_return written;
    const std::function<bool(const MetadataSnapshot&)> visible = [&](const MetadataSnapshot& s) {
        if (!broker_id) return s.default_broker_configs == configs;
        auto it = s.broker_configs.find(*broker_id);
        return configs.empty() ? it == s.broker_configs.end() : it != s.broker_configs.end() && it->second == configs;
    };
    co_await wait_until(visible, propagation_timeout_);
    co_return Status{};
}

Task<Status> ZkMetadataStore::alter_partition_isr(TopicPartition tp, std::int32_t leader_epoch,
                                                  std::vector<std::int32_t> isr) {
    const std::int32_t me = local_.id;
    auto operation = [tp, leader_epoch, isr, me](ZkSession& s) -> Status {
        const std::string path = paths::partition_state(tp.topic, tp.partition);
        // Conditioned on the state's version: a controller's election in
        // between makes the write fail, and the leader learns its new epoch.
        for (int attempt = 0; attempt < 3; ++attempt) {
            auto node = s.get(path);
            if (!node) return Status::failure(ErrorCode::unknown_topic_or_partition, "no state for " + tp.to_string());
            auto state = zk::decode_partition_state(node->data);
            if (state.leader != me || state.leader_epoch != leader_epoch)
                return Status::failure(ErrorCode::fenced_leader_epoch, tp.to_string() + " is led by " +
                                                                           std::to_string(state.leader) + " in epoch " +
                                                                           std::to_string(state.leader_epoch));
            state.isr = isr;
            // Brokers learn the new ISR through their watches on the state;
            // Weir's controller needs no /isr_change_notification.
            if (s.set(path, zk::encode_partition_state(state), node->version) == Result::ok) return {};
        }
        return Status::failure(ErrorCode::fenced_leader_epoch, "state of " + tp.to_string() + " keeps changing");
    };
    Status written = co_await zk_call(operation);
    if (!written.ok()) co_return written;
    const std::function<bool(const MetadataSnapshot&)> visible = [&](const MetadataSnapshot& s) {
        auto t = s.topic(tp.topic);
        if (!t || tp.partition >= static_cast<std::int32_t>(t->partitions.size())) return true;
        const auto& p = t->partitions[static_cast<std::size_t>(tp.partition)];
        return p.leader_epoch != leader_epoch || p.isr == isr;
    };
    co_await wait_until(visible, propagation_timeout_);
    co_return Status{};
}

Task<Status> ZkMetadataStore::move_leader(TopicPartition tp, std::optional<std::int32_t> to) {
    const auto live = snapshot()->broker_ids();
    const auto is_live = [live](std::int32_t id) { return std::find(live.begin(), live.end(), id) != live.end(); };
    // Shared: a failed call may leave the operation queued behind this coroutine.
    auto new_epoch = std::make_shared<std::int32_t>(-1);
    auto operation = [tp, to, is_live, new_epoch](ZkSession& s) -> Status {
        const std::string path = paths::partition_state(tp.topic, tp.partition);
        auto node = s.get(path);
        if (!node) return Status::failure(ErrorCode::unknown_topic_or_partition, "no state for " + tp.to_string());
        auto state = zk::decode_partition_state(node->data);
        std::optional<std::int32_t> next;
        if (to) {
            if (*to == state.leader)
                return Status::failure(ErrorCode::invalid_request,
                                       "broker " + std::to_string(*to) + " already leads " + tp.to_string());
            if (std::find(state.isr.begin(), state.isr.end(), *to) == state.isr.end() || !is_live(*to))
                return Status::failure(
                    ErrorCode::invalid_request,
                    "broker " + std::to_string(*to) + " is not a live in-sync replica of " + tp.to_string());
            next = to;
        } else {
            // The ISR member after the leader, in ISR order, wrapping round.
            auto at = std::find(state.isr.begin(), state.isr.end(), state.leader);
            const std::size_t n = state.isr.size();
            const std::size_t start = at == state.isr.end() ? 0 : static_cast<std::size_t>(at - state.isr.begin()) + 1;
            for (std::size_t i = 0; i < n && !next; ++i) {
                const auto candidate = state.isr[(start + i) % n];
                if (candidate != state.leader && is_live(candidate)) next = candidate;
            }
            if (!next)
                return Status::failure(ErrorCode::invalid_request,
                                       tp.to_string() + " has no other live in-sync replica to lead it");
        }
        state.leader = *next;
        ++state.leader_epoch;
        // Conditioned on the version read: an election or ISR change in
        // between wins, and the caller may ask again.
        if (s.set(path, zk::encode_partition_state(state), node->version) != Result::ok)
            return Status::failure(ErrorCode::invalid_request, "state of " + tp.to_string() + " changed meanwhile");
        *new_epoch = state.leader_epoch;
        return {};
    };
    Status written = co_await zk_call(operation);
    if (!written.ok()) co_return written;
    const auto epoch = *new_epoch;
    const std::function<bool(const MetadataSnapshot&)> visible = [&](const MetadataSnapshot& s) {
        auto t = s.topic(tp.topic);
        if (!t || tp.partition >= static_cast<std::int32_t>(t->partitions.size())) return true;
        return t->partitions[static_cast<std::size_t>(tp.partition)].leader_epoch >= epoch;
    };
    co_await wait_until(visible, propagation_timeout_);
    co_return Status{};
}

Task<void> ZkMetadataStore::deregister() {
    std::int32_t id = local_.id;
    auto operation = [this, id](ZkSession& s) -> Status {
        registered_ = false;
        s.remove(paths::broker(id));
        return {};
    };
    co_await zk_call(operation);
}

Task<ProducerIdBlockResult> ZkMetadataStore::allocate_producer_id_block() {
    const std::int32_t me = local_.id;
    // Kafka's ZkProducerIdManager: read the latest block, write the next one
    // conditioned on the znode's version, so two brokers never get the same.
    auto operation = [me](ZkSession& s) -> ProducerIdBlockResult {
        const std::string path(paths::kProducerIdBlock);
        for (int attempt = 0; attempt < 10; ++attempt) {
            auto node = s.get(path);
            std::optional<ProducerIdBlock> latest;
            if (node && !node->data.empty()) latest = decode_producer_id_block(node->data);
            auto next = next_producer_id_block(latest, me);
            if (!next) {
                ProducerIdBlockResult exhausted;
                exhausted.error = ErrorCode::unknown_server_error;
                exhausted.message = "Have exhausted all producerIds.";
                return exhausted;
            }
            const auto data = encode_producer_id_block(*next);
            auto written = node ? s.set(path, data, node->version) : s.create(path, data);
            if (written == zk::Result::ok) {
                ProducerIdBlockResult result;
                result.block = *next;
                return result;
            }
        }
        ProducerIdBlockResult contended;
        contended.error = ErrorCode::unknown_server_error;
        contended.message = "producer id block keeps changing in ZooKeeper";
        return contended;
    };
    std::string failure;
    try {
        auto call = zk_->run(operation);
        co_return co_await std::move(call);
    } catch (const std::exception& e) {
        failure = e.what();
    }
    ProducerIdBlockResult failed;
    failed.error = ErrorCode::unknown_server_error;
    failed.message = "ZooKeeper: " + failure;
    co_return failed;
}

MetadataStore::ListenerId ZkMetadataStore::add_listener(ChangeListener listener) {
    return listeners_.add(std::move(listener));
}

void ZkMetadataStore::remove_listener(ListenerId id) { listeners_.remove(id); }

}  // namespace weir::metadata
