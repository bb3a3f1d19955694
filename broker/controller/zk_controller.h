#pragma once
// The cluster controller over ZooKeeper (Kafka's KafkaController, the parts a
// Weir cluster needs). Every broker runs one; the one that creates the
// ephemeral /controller node (and bumps /controller_epoch in the same
// multi-op) acts until its session ends. Acting means: electing leaders of new
// partitions, moving leadership off brokers that are gone (ISR members only,
// unless unclean election is enabled), dropping gone brokers from ISRs,
// deleting topics marked under /admin/delete_topics and giving topics written
// without an id one. Every write is conditioned on the controller epoch's
// znode version (a deposed controller's writes fail) and on the partition
// state's version. Brokers learn the results through their own watches.
#include <boost/asio/steady_timer.hpp>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "broker/common/task_gate.h"
#include "broker/config/broker_config.h"
#include "broker/metadata/cluster_service.h"
#include "broker/metadata/zookeeper/zk_metadata_store.h"

namespace weir::controller {

class ZkController final : public metadata::ClusterService {
public:
    ZkController(metadata::ZkMetadataStore& store, const config::BrokerConfig& config);
    ~ZkController() override;

    void start() override;
    void stop() override;
    boost::asio::awaitable<void> stopped() override;

private:
    struct Epoch {
        std::int32_t epoch = 0;
        std::int32_t znode_version = 0;  // of /controller_epoch
    };

    // What a pass must look at. Kafka's controller handles each event for
    // the partitions it concerns; reading every topic and partition state
    // for each new topic made the cost of a creation grow with the cluster.
    struct Work {
        bool everything = false;       // every topic: election, brokers changed, the periodic check
        bool new_topics = false;       // topics not seen before (/brokers/topics changed)
        std::set<std::string> topics;  // these topics' partitions
        void merge(const Work& other);
    };

    void poke(const Work& work);
    boost::asio::awaitable<void> loop();
    void schedule_periodic();
    void schedule_rebalance();

    // ZooKeeper thread. act: elect or check that this broker still controls,
    // then reconcile. again: look again shortly; more: the pass stopped
    // after kPartitionsPerPass partitions, the rest is in `redo`.
    enum class Pass { done, again, more, deposed };
    // A pass holds the ZooKeeper thread, and with it every watch event this
    // broker would apply, its own new leaderships included: with thousands of
    // partitions a whole pass took seconds. Each pass stops after this many
    // partitions (at a topic's end), and the events queued meanwhile go first.
    static constexpr std::size_t kPartitionsPerPass = 128;
    // `redo`: what must be looked at again (writes that lost a race).
    Pass act(zk::ZkSession& s, bool rebalance, Work work, Work& redo);
    // Preferred replicas back to leadership where the imbalance calls for it.
    Pass rebalance_leaders(zk::ZkSession& s, const Epoch& epoch);
    std::optional<Epoch> try_elect(zk::ZkSession& s);
    Pass reconcile(zk::ZkSession& s, const Epoch& epoch, const Work& work, Work& redo);
    bool unclean_election(const std::string& topic) const;

    metadata::ZkMetadataStore& store_;
    const config::BrokerConfig& config_;
    std::optional<Epoch> epoch_;  // ZooKeeper thread: set while this broker is the controller
    std::optional<metadata::MetadataStore::ListenerId> listener_;
    bool running_ = false;
    bool dirty_ = false;
    Work pending_;  // I/O thread
    // Topics a pass has seen under /brokers/topics (ZooKeeper thread).
    std::set<std::string> known_topics_;
    bool stopped_ = false;
    boost::asio::steady_timer periodic_;
    // auto.leader.rebalance.enable, leader.imbalance.check.interval.seconds,
    // leader.imbalance.per.broker.percentage.
    bool auto_rebalance_ = true;
    std::chrono::seconds imbalance_interval_{300};
    double imbalance_percentage_ = 10;
    bool rebalance_due_ = false;
    boost::asio::steady_timer rebalance_timer_;
    // Last: the loop and callbacks from the ZooKeeper thread notice the controller is gone.
    common::TaskGate gate_;
};

// The controller when the broker runs in ZooKeeper mode; nullptr otherwise.
std::unique_ptr<metadata::ClusterService> make_cluster_controller(metadata::MetadataStore& store,
                                                                  const config::BrokerConfig& config);

}  // namespace weir::controller
