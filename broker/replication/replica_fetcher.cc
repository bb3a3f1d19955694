#include "broker/replication/replica_fetcher.h"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "broker/common/logging.h"
#include "messages/fetch.h"
#include "messages/offset_for_leader_epoch.h"

namespace weir::replication {

namespace asio = boost::asio;

namespace {

// Fetch v12: the first flexible version, by topic name; OffsetForLeaderEpoch
// v4 likewise.
constexpr std::int16_t kFetchVersion = 12;
constexpr std::int16_t kOffsetForLeaderEpochVersion = 4;
// While partitions wait for the leader to learn their epoch.
constexpr std::chrono::milliseconds kEpochRetry{100};

}  // namespace

FetcherOptions FetcherOptions::from(const config::BrokerConfig& config) {
    FetcherOptions o;
    o.local_broker_id = config.broker_id;
    o.listener = config.inter_broker_listener_name;
    o.max_wait_ms = config.replica_fetch_wait_max_ms;
    o.min_bytes = config.replica_fetch_min_bytes;
    o.partition_max_bytes = config.replica_fetch_max_bytes;
    o.backoff = std::chrono::milliseconds(config.replica_fetch_backoff_ms);
    o.socket_timeout = std::chrono::milliseconds(config.replica_socket_timeout_ms);
    return o;
}

// ---- ReplicaFetcher ---------------------------------------------------------

ReplicaFetcher::ReplicaFetcher(asio::any_io_executor executor, FetcherOptions options, std::int32_t leader,
                               metadata::MetadataStore& metadata, partitions::ReplicaManager& replicas)
    : executor_(executor),
      options_(std::move(options)),
      leader_(leader),
      metadata_(metadata),
      replicas_(replicas),
      client_(executor, "weir-replica-fetcher-" + std::to_string(options_.local_broker_id)),
      wake_(executor) {}

void ReplicaFetcher::add(const TopicPartition& tp) {
    partitions_[tp] = State{false, 0, next_generation_++};
    session_.drop(tp);
    wake_.cancel();
}

void ReplicaFetcher::remove(const TopicPartition& tp) {
    partitions_.erase(tp);
    session_.drop(tp);
}

void ReplicaFetcher::fetch_from_end(const TopicPartition& tp, State& state, const partitions::Partition& p) {
    state.truncated = true;
    state.fetch_offset = p.log_end_offset();
    session_.want(tp, {state.fetch_offset, p.log_start_offset(), p.leader_epoch(), options_.partition_max_bytes});
}

void ReplicaFetcher::truncate_first(const TopicPartition& tp, State& state) {
    state.truncated = false;
    session_.drop(tp);
}

void ReplicaFetcher::start(common::TaskGate& gate) {
    if (running_) return;
    running_ = true;
    gate.spawn([self = shared_from_this()] { return self->run(); });
}

void ReplicaFetcher::stop() {
    stopped_ = true;
    partitions_.clear();
    wake_.cancel();
    client_.close();
}

void ReplicaFetcher::report(const std::string& problem) {
    // Once per kind of trouble, not once per retry.
    if (problem == last_problem_) return;
    last_problem_ = problem;
    logging::warn("replica fetcher for leader {}: {}", leader_, problem);
}

asio::awaitable<void> ReplicaFetcher::pause(std::chrono::milliseconds d) {
    wake_.expires_after(d);
    boost::system::error_code ec;
    co_await wake_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

std::shared_ptr<partitions::Partition> ReplicaFetcher::following(const TopicPartition& tp) {
    auto p = replicas_.get(tp);
    // A partition whose log dir failed is fetched no more (Kafka's
    // ReplicaManager.handleLogDirFailure removes it from the fetchers).
    if (!p || p->stopped() || p->offline() || p->is_leader() || p->leader() != leader_) {
        remove(tp);
        return nullptr;
    }
    return p;
}

asio::awaitable<void> ReplicaFetcher::run() {
    auto self = shared_from_this();
    while (!stopped_) {
        if (partitions_.empty()) {
            auto idle = pause(std::chrono::hours(1));
            co_await std::move(idle);
            continue;
        }
        bool failed = false;
        try {
            if (!client_.usable()) {
                auto call = connect();
                co_await std::move(call);
            }
            auto truncation = truncate_pending();
            const bool waiting = co_await std::move(truncation);
            auto fetch = fetch_once();
            co_await std::move(fetch);
            if (waiting) {
                auto wait = pause(kEpochRetry);
                co_await std::move(wait);
            }
            last_problem_.clear();
        } catch (const std::exception& e) {
            if (stopped_) break;
            report(e.what());
            failed = true;
        }
        if (failed) {
            client_.close();
            session_.reset();
            auto wait = pause(options_.backoff);
            co_await std::move(wait);
        }
    }
    running_ = false;
}

asio::awaitable<void> ReplicaFetcher::connect() {
    auto snapshot = metadata_.snapshot();
    const auto* broker = snapshot->broker(leader_);
    if (!broker) throw std::runtime_error("broker " + std::to_string(leader_) + " is not registered");
    const auto* endpoint = broker->endpoint(options_.listener);
    if (!endpoint)
        throw std::runtime_error("broker " + std::to_string(leader_) + " has no listener " + options_.listener);
    auto call = client_.connect(endpoint->host, endpoint->port, options_.socket_timeout);
    co_await std::move(call);
}

asio::awaitable<bool> ReplicaFetcher::truncate_pending() {
    msg::OffsetForLeaderEpochRequest request;
    request.replica_id = options_.local_broker_id;
    std::map<TopicPartition, std::uint64_t> asked;
    for (auto it = partitions_.begin(); it != partitions_.end();) {
        if (it->second.truncated) {
            ++it;
            continue;
        }
        const TopicPartition tp = it->first;
        ++it;
        auto p = following(tp);
        if (!p) continue;
        auto& state = partitions_.at(tp);
        auto latest = p->latest_epoch();
        if (!latest) {
            // No epoch in the local log: nothing it holds can have diverged
            // from a leader that wrote it.
            fetch_from_end(tp, state, *p);
            continue;
        }
        if (request.topics.empty() || request.topics.back().topic != tp.topic)
            request.topics.emplace_back().topic = tp.topic;
        auto& part = request.topics.back().partitions.emplace_back();
        part.partition = tp.partition;
        part.current_leader_epoch = p->leader_epoch();
        part.leader_epoch = *latest;
        asked[tp] = state.generation;
    }
    if (asked.empty()) co_return false;

    auto call =
        client_.send<msg::OffsetForLeaderEpochResponse>(request, kOffsetForLeaderEpochVersion, options_.socket_timeout);
    auto response = co_await std::move(call);
    bool waiting = false;
    for (const auto& topic : response.topics) {
        for (const auto& r : topic.partitions) {
            TopicPartition tp{topic.topic, r.partition};
            auto state = partitions_.find(tp);
            auto generation = asked.find(tp);
            if (state == partitions_.end() || generation == asked.end() ||
                state->second.generation != generation->second)
                continue;
            auto p = following(tp);
            if (!p) continue;
            if (r.error_code != 0) {
                // Typically the leader has not applied the new epoch yet.
                waiting = true;
                continue;
            }
            std::int64_t target = p->log_end_offset();
            if (r.end_offset >= 0 && r.leader_epoch >= 0) {
                // Kafka's KIP-279: up to where the leader's epoch ends, and not
                // past where the same epoch ends here.
                auto local = p->last_offset_for_leader_epoch(partitions::kNoLeaderEpoch, r.leader_epoch, false);
                target = std::min(target, r.end_offset);
                if (local.end_offset >= 0 && local.leader_epoch == r.leader_epoch)
                    target = std::min(target, local.end_offset);
            } else {
                // The leader holds no epoch this old: keep only what is known committed.
                target = std::min(target, p->high_watermark());
            }
            if (target < p->log_end_offset()) {
                logging::info("{}: truncating from {} to {} to follow broker {} (leader epoch {})", tp.to_string(),
                              p->log_end_offset(), target, leader_, p->leader_epoch());
                p->truncate_to(target);
            }
            fetch_from_end(tp, state->second, *p);
        }
    }
    co_return waiting;
}

asio::awaitable<void> ReplicaFetcher::fetch_once() {
    msg::FetchRequest request;
    request.replica_id = options_.local_broker_id;
    request.max_wait_ms = options_.max_wait_ms;
    request.min_bytes = options_.min_bytes;
    request.max_bytes = options_.response_max_bytes;
    if (session_.empty()) co_return;
    session_.fill(request);
    // A partition added again while the request is out waits for its own answers.
    const auto sent_generation = next_generation_;

    auto call = client_.send<msg::FetchResponse>(
        request, kFetchVersion, options_.socket_timeout + std::chrono::milliseconds(options_.max_wait_ms));
    auto response = co_await std::move(call);
    const auto top_error = static_cast<ErrorCode>(response.error_code);
    session_.answered(top_error, response.session_id);
    if (top_error == ErrorCode::fetch_session_id_not_found || top_error == ErrorCode::invalid_fetch_session_epoch ||
        top_error == ErrorCode::fetch_session_topic_id_error)
        co_return;  // evicted or out of step: the next fetch is full and opens a new session
    if (top_error != ErrorCode::none)
        throw std::runtime_error("fetch failed with error " + std::to_string(response.error_code));
    // An incremental answer carries only partitions with something new, and
    // may carry one this request did not name (new records at an offset the
    // session already holds).
    for (const auto& topic : response.responses) {
        for (const auto& r : topic.partitions) {
            TopicPartition tp{topic.topic, r.partition_index};
            auto state = partitions_.find(tp);
            // The leader read at the offset its session holds: it must be this log's end still.
            if (state == partitions_.end() || !state->second.truncated || state->second.generation >= sent_generation ||
                session_.held_offset(tp) != state->second.fetch_offset)
                continue;
            auto p = following(tp);
            if (!p) continue;
            const auto error = static_cast<ErrorCode>(r.error_code);
            if (error == ErrorCode::none) {
                if (r.records && !r.records->empty()) {
                    auto appended = p->append_as_follower(r.records->bytes());
                    if (appended.error != ErrorCode::none) {
                        report(tp.to_string() + ": append failed (" + std::string(error_name(appended.error)) +
                               "): " + appended.error_message);
                        truncate_first(tp, state->second);  // find the divergence again
                        continue;
                    }
                }
                if (r.log_start_offset >= 0) p->follow_log_start_offset(r.log_start_offset);
                p->follow_high_watermark(r.high_watermark);
                fetch_from_end(tp, state->second, *p);
            } else if (error == ErrorCode::offset_out_of_range) {
                // Retention moved the leader's start past us, or this log is
                // ahead of the leader's: find the position again.
                if (r.log_start_offset > state->second.fetch_offset) p->follow_log_start_offset(r.log_start_offset);
                truncate_first(tp, state->second);
            }
            // NOT_LEADER_OR_FOLLOWER, FENCED/UNKNOWN_LEADER_EPOCH,
            // UNKNOWN_TOPIC_OR_PARTITION: the metadata will move this partition.
        }
    }
}

// ---- ReplicaFetcherManager --------------------------------------------------

ReplicaFetcherManager::ReplicaFetcherManager(asio::any_io_executor executor, FetcherOptions options,
                                             metadata::MetadataStore& metadata, partitions::ReplicaManager& replicas)
    : executor_(std::move(executor)),
      options_(std::move(options)),
      metadata_(metadata),
      replicas_(replicas),
      gate_(executor_, "replica fetcher") {}

ReplicaFetcherManager::~ReplicaFetcherManager() { stop(); }

void ReplicaFetcherManager::update(const TopicPartition& tp) {
    if (stopped_) return;
    auto p = replicas_.get(tp);
    if (!p || p->stopped() || p->offline() || p->is_leader() || p->leader() < 0) {
        remove(tp);
        return;
    }
    auto it = following_.find(tp);
    if (it != following_.end() && it->second.leader == p->leader() && it->second.leader_epoch == p->leader_epoch())
        return;
    if (it != following_.end() && it->second.leader != p->leader()) remove(tp);
    auto& fetcher = by_leader_[p->leader()];
    if (!fetcher) {
        fetcher = std::make_shared<ReplicaFetcher>(executor_, options_, p->leader(), metadata_, replicas_);
        fetcher->start(gate_);
    }
    fetcher->add(tp);
    following_[tp] = {p->leader(), p->leader_epoch()};
}

void ReplicaFetcherManager::remove(const TopicPartition& tp) {
    auto it = following_.find(tp);
    if (it == following_.end()) return;
    auto fetcher = by_leader_.find(it->second.leader);
    following_.erase(it);
    if (fetcher == by_leader_.end()) return;
    fetcher->second->remove(tp);
    if (fetcher->second->empty()) {
        fetcher->second->stop();
        by_leader_.erase(fetcher);
    }
}

void ReplicaFetcherManager::stop() {
    stopped_ = true;
    for (auto& [leader, fetcher] : by_leader_) fetcher->stop();
    by_leader_.clear();
    following_.clear();
}

asio::awaitable<void> ReplicaFetcherManager::stopped() {
    gate_.close();
    co_await gate_.wait();
}

}  // namespace weir::replication
