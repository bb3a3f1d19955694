#include "broker/controller/zk_controller.h"

#include <fmt/ranges.h>

#include <boost/asio/post.hpp>
#include <charconv>
#include <chrono>

#include "broker/common/logging.h"
#include "broker/config/config_def.h"
#include "broker/config/config_keys.h"
#include "broker/config/topic_config.h"
#include "broker/controller/partition_leadership.h"

namespace weir::controller {
namespace paths = zk::paths;
using zk::Op;
using zk::Result;
using zk::ZkSession;

namespace {

// A safety net for a conditional write that lost a race: the controller
// looks at every partition again this often.
constexpr std::chrono::seconds kPeriodicCheck{30};

// Who is registered now, read from ZooKeeper rather than the broker's
// snapshot, which may trail it.
std::set<std::int32_t> registered_brokers(ZkSession& s) {
    std::set<std::int32_t> live;
    if (auto ids = s.children(std::string(paths::kBrokerIds)))
        for (const auto& id : *ids)
            if (auto n = zk::parse_id(id)) live.insert(*n);
    return live;
}

std::int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

}  // namespace

ZkController::ZkController(metadata::ZkMetadataStore& store, const config::BrokerConfig& config)
    : store_(store),
      config_(config),
      periodic_(store.executor()),
      rebalance_timer_(store.executor()),
      gate_(store.executor(), "controller") {
    auto_rebalance_ = config::as_bool(config.static_value("auto.leader.rebalance.enable"));
    imbalance_interval_ = std::chrono::seconds(
        std::max<std::int64_t>(config::as_int(config.static_value("leader.imbalance.check.interval.seconds")), 1));
    imbalance_percentage_ =
        static_cast<double>(config::as_int(config.static_value("leader.imbalance.per.broker.percentage")));
}

ZkController::~ZkController() {
    stop();
    gate_.close();
    // A pass may be running on the ZooKeeper thread: let it finish before
    // this object goes.
    store_.zookeeper().run_sync([](ZkSession&) { return 0; });
}

void ZkController::Work::merge(const Work& other) {
    everything = everything || other.everything;
    new_topics = new_topics || other.new_topics;
    topics.insert(other.topics.begin(), other.topics.end());
}

void ZkController::start() {
    using Kind = metadata::MetadataChange::Kind;
    listener_ = store_.add_listener([this](const metadata::MetadataChange& c) {
        // Its own writes come back as partition_state_changed: not a reason to look again.
        if (c.kind == Kind::brokers_changed) poke({.everything = true});
        if (c.kind == Kind::topic_created || c.kind == Kind::partitions_added) poke({.topics = {c.topic}});
    });
    // Only the controller follows /admin/delete_topics.
    auto poke_later = gate_.on_executor([this](const Work& work) { poke(work); });
    store_.zookeeper().subscribe([poke_later](ZkSession&, const zk::WatchEvent& e) {
        // Topics marked for deletion, and topics or partitions written by
        // other tools (without an id, or grown): the store's watches fire these.
        const std::string topics_prefix = std::string(paths::kTopics) + "/";
        Work work;
        if (e.path == paths::kTopics) {
            work.new_topics = true;
        } else if (e.path.starts_with(topics_prefix) && e.path.find('/', topics_prefix.size()) == std::string::npos) {
            work.topics.insert(e.path.substr(topics_prefix.size()));
        } else if (e.path != paths::kDeleteTopics) {
            return;
        }
        poke_later(work);
    });
    schedule_periodic();
    if (auto_rebalance_) schedule_rebalance();
    poke({.everything = true});
}

void ZkController::schedule_rebalance() {
    rebalance_timer_.expires_after(imbalance_interval_);
    rebalance_timer_.async_wait([this](boost::system::error_code ec) {
        if (ec || stopped_) return;
        rebalance_due_ = true;
        poke(Work{});
        schedule_rebalance();
    });
}

void ZkController::stop() {
    if (stopped_) return;
    stopped_ = true;
    periodic_.cancel();
    rebalance_timer_.cancel();
    if (listener_) store_.remove_listener(*listener_);
    listener_.reset();
}

boost::asio::awaitable<void> ZkController::stopped() {
    gate_.close();
    co_await gate_.wait();
}

void ZkController::schedule_periodic() {
    periodic_.expires_after(kPeriodicCheck);
    periodic_.async_wait([this](boost::system::error_code ec) {
        if (ec || stopped_) return;
        poke({.everything = true});
        schedule_periodic();
    });
}

void ZkController::poke(const Work& work) {
    pending_.merge(work);
    dirty_ = true;
    if (running_ || stopped_) return;
    running_ = true;
    gate_.spawn(loop());
}

boost::asio::awaitable<void> ZkController::loop() {
    auto gate = gate_.pass();
    while (gate.open() && dirty_ && !stopped_) {
        dirty_ = false;
        auto work = std::exchange(pending_, Work{});
        // Written on the ZooKeeper thread, read here after the pass.
        auto redo = std::make_shared<Work>();
        bool again = false;
        bool more = false;
        const bool rebalance = std::exchange(rebalance_due_, false);
        try {
            auto pass = store_.zookeeper().run(
                [this, rebalance, work, redo](ZkSession& s) { return act(s, rebalance, work, *redo); });
            const auto result = co_await std::move(pass);
            again = result == Pass::again;
            more = result == Pass::more;
        } catch (const std::exception& e) {
            if (!gate.open()) co_return;
            logging::warn("controller: {}", e.what());
            again = true;  // ZooKeeper is away: the same work again
            redo->merge(work);
        }
        if (!gate.open()) co_return;
        if (again) {
            boost::asio::steady_timer pause(store_.executor(), std::chrono::milliseconds(500));
            co_await pause.async_wait(boost::asio::use_awaitable);
            if (!gate.open()) co_return;
        }
        // more: straight on, behind the watch events queued meanwhile. A
        // pass that did not finish did not reach the rebalance either.
        if (again || more) {
            pending_.merge(*redo);
            dirty_ = true;
            rebalance_due_ = rebalance_due_ || rebalance;
        }
    }
    running_ = false;
}

// ---- ZooKeeper thread -------------------------------------------------------

ZkController::Pass ZkController::act(ZkSession& s, bool rebalance, Work work, Work& redo) {
    auto node = s.get(std::string(paths::kController), true);
    if (node) {
        if (node->ephemeral_owner != s.session_id() || !epoch_) {
            if (epoch_) logging::info("controller: broker {} resigns, another broker is controller", config_.broker_id);
            epoch_.reset();
            return Pass::done;
        }
    } else {
        epoch_ = try_elect(s);
        if (!epoch_) return Pass::done;
        logging::info("controller: broker {} is the controller, epoch {}", config_.broker_id, epoch_->epoch);
        // What happened while another broker controlled is unknown here
        // (and a pass cut short after the election must not forget it).
        work.everything = true;
        redo.everything = true;
    }
    auto pass = reconcile(s, *epoch_, work, redo);
    if (pass == Pass::done && rebalance) pass = rebalance_leaders(s, *epoch_);
    if (pass == Pass::deposed) {
        logging::info("controller: broker {} was deposed (controller epoch moved on)", config_.broker_id);
        epoch_.reset();
    }
    return pass;
}

std::optional<ZkController::Epoch> ZkController::try_elect(ZkSession& s) {
    const std::string epoch_path(paths::kControllerEpoch);
    auto current = s.get(epoch_path);
    if (!current) {
        s.create(epoch_path, "0");
        current = s.get(epoch_path);
        if (!current) return std::nullopt;
    }
    auto epoch = zk::parse_id(current->data).value_or(0);
    auto r = s.multi({Op::create(std::string(paths::kController), zk::encode_controller(config_.broker_id, now_ms()),
                                 zk::CreateMode::ephemeral),
                      Op::set(epoch_path, std::to_string(epoch + 1), current->version)});
    if (r.result != Result::ok) return std::nullopt;
    return Epoch{epoch + 1, current->version + 1};
}

bool ZkController::unclean_election(const std::string& topic) const {
    auto snapshot = store_.snapshot();
    auto t = snapshot->topic(topic);
    auto resolved = config::resolve_topic_config(config_, t ? t->configs : config::ConfigMap{},
                                                 snapshot->dynamic_broker_configs(config_.broker_id));
    return resolved.unclean_leader_election_enable;
}

ZkController::Pass ZkController::reconcile(ZkSession& s, const Epoch& epoch, const Work& work, Work& redo) {
    const std::string epoch_path(paths::kControllerEpoch);
    bool raced = false;
    auto deposed = [&](const zk::MultiResult& r) { return r.result == Result::bad_version && r.failed_op == 0; };

    if (auto marked = s.children(std::string(paths::kDeleteTopics), true)) {
        for (const auto& topic : *marked) {
            auto check = s.multi({Op::check(epoch_path, epoch.znode_version)});
            if (deposed(check)) return Pass::deposed;
            s.remove_recursive(paths::topic(topic));
            s.remove(paths::topic_config(topic));
            s.remove(paths::delete_topic(topic));
            known_topics_.erase(topic);
            logging::info("controller: deleted topic {}", topic);
        }
    }

    const auto live = registered_brokers(s);

    std::set<std::string> topics = work.topics;
    std::optional<std::set<std::string>> listed;
    if (work.everything || work.new_topics) {
        listed.emplace();
        if (auto all = s.children(std::string(paths::kTopics))) listed->insert(all->begin(), all->end());
        for (const auto& topic : *listed)
            if (work.everything || !known_topics_.contains(topic)) topics.insert(topic);
    }
    const auto order = leaderless_first(topics, *store_.snapshot(), live);
    std::size_t examined = 0;
    for (auto at = order.begin(); at != order.end(); ++at) {
        const auto& topic = *at;
        if (examined >= kPartitionsPerPass) {
            // Named one by one: a new controller's "everything" is covered.
            redo.everything = false;
            redo.topics.insert(at, order.end());
            if (listed) known_topics_ = std::move(*listed);
            return raced ? Pass::again : Pass::more;
        }
        auto node = s.get(paths::topic(topic));
        if (!node) continue;
        zk::TopicAssignment assignment;
        try {
            assignment = zk::decode_topic_assignment(node->data);
        } catch (const zk::ZkDataError& e) {
            logging::warn("controller: unreadable assignment of topic {}: {}", topic, e.what());
            continue;
        }
        if (!assignment.topic_id) {
            assignment.topic_id = Uuid::random();
            auto r = s.multi({Op::check(epoch_path, epoch.znode_version),
                              Op::set(paths::topic(topic), zk::encode_topic_assignment(assignment), node->version)});
            if (deposed(r)) return Pass::deposed;
        }
        const bool unclean = unclean_election(topic);
        examined += assignment.partitions.size();
        for (const auto& [p, replicas] : assignment.partitions) {
            const std::string state_path = paths::partition_state(topic, p);
            auto state_node = s.get(state_path);
            PartitionView view;
            view.replicas = replicas;
            view.live = live;
            view.unclean_election = unclean;
            view.controller_epoch = epoch.epoch;
            if (state_node && !state_node->data.empty()) {
                try {
                    view.current = zk::decode_partition_state(state_node->data);
                } catch (const zk::ZkDataError& e) {
                    logging::warn("controller: unreadable state of {}-{}: {}", topic, p, e.what());
                    continue;
                }
            }
            auto next = next_partition_state(view);
            if (!next) continue;
            zk::MultiResult r;
            if (state_node) {
                r = s.multi({Op::check(epoch_path, epoch.znode_version),
                             Op::set(state_path, zk::encode_partition_state(*next), state_node->version)});
            } else {
                s.ensure_path(paths::topic_partitions(topic) + "/" + std::to_string(p));
                r = s.multi({Op::check(epoch_path, epoch.znode_version),
                             Op::create(state_path, zk::encode_partition_state(*next))});
            }
            if (deposed(r)) return Pass::deposed;
            if (r.result != Result::ok) {
                raced = true;  // with a leader's ISR update; look again
                redo.topics.insert(topic);
                continue;
            }
            logging::info("controller: {}-{} leader {} epoch {} isr [{}]", topic, p, next->leader, next->leader_epoch,
                          fmt::join(next->isr, ","));
        }
    }
    // Only now: a pass cut short by ZooKeeper runs again with the same work
    // and must still see these topics as new.
    if (listed) known_topics_ = std::move(*listed);
    return raced ? Pass::again : Pass::done;
}

ZkController::Pass ZkController::rebalance_leaders(ZkSession& s, const Epoch& epoch) {
    const std::string epoch_path(paths::kControllerEpoch);
    auto candidates = preferred_leader_elections(*store_.snapshot(), imbalance_percentage_);
    if (candidates.empty()) return Pass::done;
    const auto live = registered_brokers(s);
    for (const auto& tp : candidates) {
        auto assignment_node = s.get(paths::topic(tp.topic));
        auto state_node = s.get(paths::partition_state(tp.topic, tp.partition));
        if (!assignment_node || !state_node) continue;
        PartitionView view;
        try {
            auto assignment = zk::decode_topic_assignment(assignment_node->data);
            auto it = assignment.partitions.find(tp.partition);
            if (it == assignment.partitions.end()) continue;
            view.replicas = it->second;
            view.current = zk::decode_partition_state(state_node->data);
        } catch (const zk::ZkDataError&) {
            continue;
        }
        view.live = live;
        view.controller_epoch = epoch.epoch;
        auto next = preferred_leader_state(view);
        if (!next) continue;
        auto r = s.multi({Op::check(epoch_path, epoch.znode_version),
                          Op::set(paths::partition_state(tp.topic, tp.partition), zk::encode_partition_state(*next),
                                  state_node->version)});
        if (r.result == Result::bad_version && r.failed_op == 0) return Pass::deposed;
        if (r.result == Result::ok)
            logging::info("controller: {} back to its preferred leader {} (epoch {})", tp.to_string(), next->leader,
                          next->leader_epoch);
    }
    return Pass::done;
}

std::unique_ptr<metadata::ClusterService> make_cluster_controller(metadata::MetadataStore& store,
                                                                  const config::BrokerConfig& config) {
    auto* zk_store = dynamic_cast<metadata::ZkMetadataStore*>(&store);
    if (!zk_store) return nullptr;
    return std::make_unique<ZkController>(*zk_store, config);
}

}  // namespace weir::controller
