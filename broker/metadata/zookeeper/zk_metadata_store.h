#pragma once
// Cluster metadata kept in ZooKeeper, in Kafka's layout (zk_data.h). The
// broker registers itself (/brokers/ids/<id>, ephemeral), reads everything
// with watches and keeps a cache on the ZooKeeper thread; every change it
// learns of becomes a new snapshot, published on the I/O thread with the
// listeners told what differs. Mutations write the znodes Kafka's admin path
// writes (/brokers/topics/<t>, /config/..., /admin/delete_topics/<t>) and
// complete once this broker's snapshot shows their effect, which for topics
// means the controller has elected their leaders.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "broker/common/task_gate.h"
#include "broker/metadata/change_listeners.h"
#include "broker/metadata/metadata_store.h"
#include "broker/metadata/zookeeper/zk_client.h"
#include "broker/metadata/zookeeper/zk_data.h"

namespace weir::metadata {

class ZkMetadataStore final : public MetadataStore {
public:
    struct Options {
        zk::ZkClient::Options zookeeper;
        BrokerInfo local_broker;
        boost::asio::any_io_executor executor;  // where listeners run
        // How long a mutation waits to see its effect (leaders elected, a
        // topic gone) before answering.
        std::chrono::milliseconds propagation_timeout{30000};
    };

    // Connects, creates Kafka's persistent paths and the cluster id if
    // missing, registers this broker and reads the cluster. Throws
    // MetadataStoreError when ZooKeeper cannot be reached or this broker id is
    // registered by a live session.
    explicit ZkMetadataStore(Options options);
    ~ZkMetadataStore() override;

    std::shared_ptr<const MetadataSnapshot> snapshot() const override;
    std::int32_t local_broker_id() const override { return local_.id; }

    Task<CreateTopicResult> create_topic(NewTopic topic, bool validate_only) override;
    Task<Status> delete_topic(std::string name) override;
    Task<Status> create_partitions(std::string name, std::int32_t new_total,
                                   std::vector<std::vector<std::int32_t>> assignments, bool validate_only) override;
    Task<Status> alter_topic_configs(std::string name, config::ConfigMap configs, bool validate_only) override;
    Task<Status> alter_broker_configs(std::optional<std::int32_t> broker_id, config::ConfigMap configs) override;
    Task<Status> move_leader(TopicPartition tp, std::optional<std::int32_t> to) override;
    Task<Status> alter_partition_isr(TopicPartition tp, std::int32_t leader_epoch,
                                     std::vector<std::int32_t> isr) override;
    Task<ProducerIdBlockResult> allocate_producer_id_block() override;
    Task<bool> catch_up_on_topic(std::string name, std::chrono::milliseconds timeout) override;

    ListenerId add_listener(ChangeListener listener) override;
    void remove_listener(ListenerId id) override;

    // The session, for the controller.
    zk::ZkClient& zookeeper() { return *zk_; }
    const boost::asio::any_io_executor& executor() const { return executor_; }

    // Deregisters this broker (its /brokers/ids node) ahead of a shutdown,
    // so the controller moves leadership away (controlled shutdown).
    Task<void> deregister();

    // Resolves once `ready` holds for the published snapshot, or at the
    // timeout; true if it holds.
    // `ready` must outlive the wait.
    Task<bool> wait_until(const std::function<bool(const MetadataSnapshot&)>& ready, std::chrono::milliseconds timeout);

private:
    struct TopicCache {
        zk::TopicAssignment assignment;
        std::map<std::int32_t, zk::LeaderAndIsr> states;
        config::ConfigMap configs;
    };
    // What this broker knows of ZooKeeper. ZooKeeper thread only.
    struct Cache {
        std::string cluster_id;
        std::int32_t controller = -1;
        std::map<std::int32_t, BrokerInfo> brokers;
        std::map<std::string, TopicCache, std::less<>> topics;
        std::map<std::int32_t, config::ConfigMap> broker_configs;
        config::ConfigMap default_broker_configs;
    };

    // ZooKeeper thread.
    void start_session(zk::ZkSession& s);
    void register_broker(zk::ZkSession& s);
    void load_all(zk::ZkSession& s);
    void load_controller(zk::ZkSession& s);
    void load_brokers(zk::ZkSession& s);
    void load_topic_list(zk::ZkSession& s);
    void load_topic(zk::ZkSession& s, const std::string& name);
    void load_state(zk::ZkSession& s, const std::string& topic, std::int32_t partition);
    void load_topic_config(zk::ZkSession& s, const std::string& topic);
    void load_broker_config_list(zk::ZkSession& s);
    void load_broker_config(zk::ZkSession& s, std::optional<std::int32_t> id);
    void on_event(zk::ZkSession& s, const zk::WatchEvent& event);
    void handle_event(zk::ZkSession& s, const zk::WatchEvent& event);
    std::shared_ptr<MetadataSnapshot> build() const;
    void publish();

    // I/O thread.
    void apply_published(std::shared_ptr<const MetadataSnapshot> next, std::vector<MetadataChange> changes);

    // Runs `operation` (ZkSession& -> Status) on the ZooKeeper thread; a
    // ZooKeeper failure answers UNKNOWN_SERVER_ERROR.
    template <typename F>
    Task<Status> zk_call(F& operation);

    const BrokerInfo local_;
    const boost::asio::any_io_executor executor_;
    const std::chrono::milliseconds propagation_timeout_;
    std::unique_ptr<zk::ZkClient> zk_;

    Cache cache_;                                    // ZooKeeper thread
    std::shared_ptr<const MetadataSnapshot> built_;  // ZooKeeper thread: the last snapshot published
    std::uint64_t version_ = 0;                      // ZooKeeper thread
    bool publish_queued_ = false;                    // ZooKeeper thread
    zk::ZkClient* client_ = nullptr;                 // zk_'s, for the ZooKeeper thread's own posts
    bool registered_ = true;                         // ZooKeeper thread: false after deregister()

    mutable std::mutex snapshot_mutex_;
    std::shared_ptr<const MetadataSnapshot> snapshot_;

    ChangeListeners listeners_;

    struct Waiter {
        std::function<bool(const MetadataSnapshot&)> ready;
        boost::asio::steady_timer timer;
    };
    std::list<Waiter*> waiters_;  // I/O thread
    // Callbacks posted to the I/O thread and the ZooKeeper thread's loops
    // notice the store is gone (the destructor closes it before it joins
    // the ZooKeeper thread).
    common::TaskGate gate_;
};

}  // namespace weir::metadata
