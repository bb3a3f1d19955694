// Lifecycle, the Kafka APIs and the marker jobs of the transaction coordinator.
#include "coordinator/txn/txn_service.h"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>

#include "broker/common/logging.h"
#include "coordinator/group/partitioner.h"
#include "coordinator/group/records.h"
#include "coordinator/txn/records.h"

namespace weir::coordinator::txn {

namespace asio = boost::asio;

namespace {

// Kafka's request.timeout.ms default: how long an append to the log or a
// marker request may take.
constexpr std::chrono::milliseconds kRequestTimeout{30000};
// Kafka's reconnect.backoff.max.ms default.
constexpr std::chrono::milliseconds kMaxMarkerBackoff{1000};

Task<void> sleep_for(asio::any_io_executor executor, std::chrono::milliseconds delay) {
    asio::steady_timer timer(executor, delay);
    boost::system::error_code ec;
    co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

// __transaction_state as Kafka creates it (TransactionStateManager.transactionTopicConfigs).
runtime::CoordinatorRuntime::Options runtime_options(const handlers::BrokerContext& broker, TxnService::Clock clock) {
    const auto& c = broker.config;
    runtime::CoordinatorRuntime::Options o;
    o.topic.name = std::string(kTransactionTopic);
    o.topic.partitions = std::max(c.transaction_state_log_num_partitions, 1);
    o.topic.replication_factor = [&c](int brokers) { return c.transaction_topic_replication_factor(brokers); };
    o.topic.configs = {{"cleanup.policy", "compact"},
                       {"compression.type", "uncompressed"},
                       {"segment.bytes", std::to_string(c.transaction_state_log_segment_bytes)},
                       {"unclean.leader.election.enable", "false"}};
    o.partitioner = [](std::string_view transactional_id, std::int32_t partitions) {
        return store::partition_for(transactional_id, partitions);
    };
    o.load_buffer_bytes = static_cast<std::size_t>(std::max(c.transaction_state_log_load_buffer_size, 1));
    o.write_timeout = kRequestTimeout;
    o.compaction_policy = [&broker] { return runtime::compaction_policy_for(broker.topic_config(kTransactionTopic)); };
    o.clock = std::move(clock);
    o.stopping = [&broker] { return broker.stopping(); };
    return o;
}

TxnConfig txn_config(const config::BrokerConfig& c) {
    TxnConfig t;
    t.max_timeout_ms = c.transaction_max_timeout_ms;
    t.id_expiration_ms = c.transactional_id_expiration_ms;
    return t;
}

std::unique_ptr<MarkerSender> default_sender(const handlers::BrokerContext& broker) {
    BrokerMarkerSender::Options o;
    o.listener = broker.config.inter_broker_listener_name;
    o.local_broker_id = broker.config.broker_id;
    o.timeout = kRequestTimeout;
    return std::make_unique<BrokerMarkerSender>(broker.executor, broker.metadata, std::move(o));
}

// Clients before these versions know INVALID_PRODUCER_EPOCH, not PRODUCER_FENCED (KafkaApis).
ErrorCode for_version(ErrorCode error, std::int16_t version, std::int16_t first_fenced_version) {
    return error == ErrorCode::producer_fenced && version < first_fenced_version ? ErrorCode::invalid_producer_epoch
                                                                                 : error;
}

using TopicResult = msg::AddPartitionsToTxnResponse::AddPartitionsToTxnTopicResult;

std::vector<TopicResult> topic_results(const std::map<TopicPartition, ErrorCode>& errors) {
    std::vector<TopicResult> out;
    for (const auto& [tp, error] : errors) {
        if (out.empty() || out.back().name != tp.topic) out.emplace_back().name = tp.topic;
        auto& p = out.back().results_by_partition.emplace_back();
        p.partition_index = tp.partition;
        p.partition_error_code = to_int(error);
    }
    return out;
}

}  // namespace

TxnService::TxnService(handlers::BrokerContext& broker, Options options)
    : broker_(broker),
      clock_(options.clock ? std::move(options.clock) : Clock(runtime::wall_clock_ms)),
      sender_(options.sender ? std::move(options.sender) : default_sender(broker)),
      marker_retry_backoff_(options.marker_retry_backoff),
      core_(txn_config(broker.config), [partitions = std::max(broker.config.transaction_state_log_num_partitions, 1)](
                                           std::string_view id) { return store::partition_for(id, partitions); }),
      runtime_(broker.metadata, broker.partitions, broker.executor, runtime_options(broker, clock_), *this),
      gate_(broker.executor, "transaction coordinator") {
    const auto& c = broker.config;
    runtime_.add_periodic_task(
        std::chrono::milliseconds(std::max(c.transaction_abort_timed_out_transaction_cleanup_interval_ms, 1)),
        [this]() -> Task<void> { co_await abort_timed_out_now(); });
    runtime_.add_periodic_task(
        std::chrono::milliseconds(std::max(c.transaction_remove_expired_transaction_cleanup_interval_ms, 1)),
        [this, pass = gate_.pass()]() -> Task<void> {
            co_await expire_now();
            if (pass.open()) runtime_.compact_now(false);
        });
}

TxnService::~TxnService() { gate_.close(); }

void TxnService::start() {
    stopped_ = false;
    runtime_.start();
}

void TxnService::stop() {
    stopped_ = true;
    if (runtime_.active()) runtime_.stop();
    sender_->stop();
}

Task<void> TxnService::stopped() {
    gate_.close();
    co_await gate_.wait();
    co_await runtime_.stopped();
}

Task<handlers::CoordinatorLocation> TxnService::locate(std::string transactional_id, std::string listener) {
    auto located = co_await runtime_.locate(std::move(transactional_id), std::move(listener));
    handlers::CoordinatorLocation out;
    out.error = located.error;
    out.message = std::move(located.message);
    out.node_id = located.node_id;
    out.host = std::move(located.host);
    out.port = located.port;
    co_return out;
}

ErrorCode TxnService::refine(ErrorCode error, std::string_view transactional_id) const {
    if (error == ErrorCode::none || error == ErrorCode::invalid_request) return error;
    // Kafka's isActive: a coordinator shutting down serves nothing.
    if (stopped_) return ErrorCode::coordinator_not_available;
    if (error != ErrorCode::not_coordinator) return error;
    return runtime_.status(partition_for(transactional_id)).value_or(error);
}

// ---- InitProducerId ----

Task<msg::InitProducerIdResponse> TxnService::init_producer_id(const Ctx& ctx, msg::InitProducerIdRequest request) {
    const auto version = ctx.version();
    msg::InitProducerIdResponse response;
    response.producer_id = kNoProducerId;
    response.producer_epoch = kNoProducerEpoch;
    auto fail = [&](ErrorCode error) {
        response.error_code = to_int(for_version(error, version, 4));
        return response;
    };
    const std::string id = request.transactional_id.value_or("");
    std::optional<ProducerIdAndEpoch> expected;
    if (request.producer_id != kNoProducerId)
        expected = ProducerIdAndEpoch{request.producer_id, request.producer_epoch};

    if (stopped_ && !id.empty()) co_return fail(ErrorCode::coordinator_not_available);
    std::optional<std::int64_t> new_producer_id;
    Step step;
    // A new producer id is asked for only when needed; the state may move
    // while it is fetched, so the step is decided again with it.
    for (int attempt = 0; attempt < 3; ++attempt) {
        step = core_.init_producer_id(now(), id, request.transaction_timeout_ms, expected, new_producer_id);
        if (!step.need_producer_id) break;
        auto generate = broker_.producer_ids.generate();
        auto generated = co_await std::move(generate);
        if (!generated.ok()) co_return fail(generated.error);
        new_producer_id = generated.producer_id;
    }
    if (step.need_producer_id) co_return fail(ErrorCode::concurrent_transactions);
    if (!step.write) co_return fail(refine(step.error, id));
    auto commit_call = commit(std::move(*step.write));
    auto outcome = co_await std::move(commit_call);
    if (outcome.error != ErrorCode::none) co_return fail(outcome.error);
    response.producer_id = outcome.producer_id;
    response.producer_epoch = outcome.producer_epoch;
    co_return response;
}

// ---- AddPartitionsToTxn, AddOffsetsToTxn ----

Task<TxnService::Answer> TxnService::add_partitions(std::string transactional_id, std::int64_t producer_id,
                                                    std::int16_t producer_epoch, PartitionSet partitions) {
    Answer answer;
    if (stopped_ && !transactional_id.empty()) {
        answer.error = ErrorCode::coordinator_not_available;
        co_return answer;
    }
    auto step = core_.add_partitions(now(), transactional_id, producer_id, producer_epoch, partitions);
    if (!step.write) {
        answer.error = refine(step.error, transactional_id);
        co_return answer;
    }
    auto commit_call = commit(std::move(*step.write));
    auto outcome = co_await std::move(commit_call);
    answer.error = outcome.error;
    co_return answer;
}

Task<msg::AddPartitionsToTxnResponse> TxnService::add_partitions_to_txn(const Ctx& ctx,
                                                                        msg::AddPartitionsToTxnRequest request) {
    const auto version = ctx.version();
    // v0-3 carry one transaction; v4+ (broker to broker) a batch of them.
    std::vector<msg::AddPartitionsToTxnRequest::AddPartitionsToTxnTransaction> transactions;
    if (version < 4) {
        auto& t = transactions.emplace_back();
        t.transactional_id = std::move(request.v3_and_below_transactional_id);
        t.producer_id = request.v3_and_below_producer_id;
        t.producer_epoch = request.v3_and_below_producer_epoch;
        t.topics = std::move(request.v3_and_below_topics);
    } else {
        transactions = std::move(request.transactions);
    }

    msg::AddPartitionsToTxnResponse response;
    auto snapshot = broker_.metadata.snapshot();
    for (auto& t : transactions) {
        PartitionSet partitions;
        for (const auto& topic : t.topics)
            for (auto p : topic.partitions) partitions.insert(TopicPartition{topic.name, p});
        std::map<TopicPartition, ErrorCode> errors;
        // KafkaApis: a partition the broker does not know fails the whole
        // transaction's request; the others are not attempted.
        bool unknown = false;
        for (const auto& tp : partitions) {
            auto topic = snapshot->topic(tp.topic);
            if (!topic || tp.partition < 0 || tp.partition >= static_cast<std::int32_t>(topic->partitions.size()))
                unknown = true;
        }
        if (unknown) {
            for (const auto& tp : partitions) {
                auto topic = snapshot->topic(tp.topic);
                const bool known =
                    topic && tp.partition >= 0 && tp.partition < static_cast<std::int32_t>(topic->partitions.size());
                errors[tp] = known ? ErrorCode::operation_not_attempted : ErrorCode::unknown_topic_or_partition;
            }
        } else if (version >= 4 && t.verify_only) {
            errors = core_.verify_partitions(t.transactional_id, t.producer_id, t.producer_epoch, partitions);
            for (auto& [_, e] : errors) e = refine(e, t.transactional_id);
        } else {
            auto call = add_partitions(t.transactional_id, t.producer_id, t.producer_epoch, partitions);
            auto answer = co_await std::move(call);
            for (const auto& tp : partitions) errors[tp] = for_version(answer.error, version, 2);
        }
        if (version < 4) {
            response.results_by_topic_v3_and_below = topic_results(errors);
        } else {
            auto& result = response.results_by_transaction.emplace_back();
            result.transactional_id = t.transactional_id;
            result.topic_results = topic_results(errors);
        }
    }
    co_return response;
}

Task<msg::AddOffsetsToTxnResponse> TxnService::add_offsets_to_txn(const Ctx& ctx, msg::AddOffsetsToTxnRequest request) {
    // The group's __consumer_offsets partition joins the transaction, so that
    // its TxnOffsetCommit gets a marker too.
    const auto offsets_partition =
        store::partition_for(request.group_id, std::max(broker_.config.offsets_topic_num_partitions, 1));
    auto call = add_partitions(request.transactional_id, request.producer_id, request.producer_epoch,
                               PartitionSet{TopicPartition{std::string(store::kOffsetsTopic), offsets_partition}});
    auto answer = co_await std::move(call);
    msg::AddOffsetsToTxnResponse response;
    response.error_code = to_int(for_version(answer.error, ctx.version(), 2));
    co_return response;
}

// ---- EndTxn ----

Task<msg::EndTxnResponse> TxnService::end_txn(const Ctx& ctx, msg::EndTxnRequest request) {
    const auto version = ctx.version();
    msg::EndTxnResponse response;
    Step step;
    if (stopped_ && !request.transactional_id.empty()) {
        step.error = ErrorCode::coordinator_not_available;
    } else {
        step = core_.end_txn(now(), request.transactional_id, request.producer_id, request.producer_epoch,
                             request.committed);
    }
    Answer answer;
    if (!step.write) {
        answer.error = refine(step.error, request.transactional_id);
        answer.producer_id = step.producer_id;
        answer.producer_epoch = step.producer_epoch;
    } else {
        auto commit_call = commit(std::move(*step.write));
        auto outcome = co_await std::move(commit_call);
        answer.error = outcome.error;
        answer.producer_id = outcome.producer_id;
        answer.producer_epoch = outcome.producer_epoch;
    }
    response.error_code = to_int(for_version(answer.error, version, 2));
    response.producer_id = answer.error == ErrorCode::none ? answer.producer_id : kNoProducerId;
    response.producer_epoch = answer.error == ErrorCode::none ? answer.producer_epoch : kNoProducerEpoch;
    co_return response;
}

// ---- DescribeTransactions, ListTransactions ----

Task<msg::DescribeTransactionsResponse> TxnService::describe_transactions(const Ctx&,
                                                                          msg::DescribeTransactionsRequest request) {
    msg::DescribeTransactionsResponse response;
    for (const auto& id : request.transactional_ids) {
        auto& out = response.transaction_states.emplace_back();
        out.transactional_id = id;
        if (stopped_ || !runtime_.active()) {
            out.error_code = to_int(ErrorCode::coordinator_not_available);
            continue;
        }
        auto described = core_.describe(id);
        out.error_code = to_int(refine(described.error, id));
        if (described.error != ErrorCode::none) continue;
        out.transaction_state = described.state;
        out.transaction_timeout_ms = described.timeout_ms;
        out.transaction_start_time_ms = described.start_timestamp;
        out.producer_id = described.producer_id;
        out.producer_epoch = described.producer_epoch;
        for (const auto& tp : described.partitions) {
            if (out.topics.empty() || out.topics.back().topic != tp.topic) out.topics.emplace_back().topic = tp.topic;
            out.topics.back().partitions.push_back(tp.partition);
        }
    }
    co_return response;
}

Task<msg::ListTransactionsResponse> TxnService::list_transactions(const Ctx&, msg::ListTransactionsRequest request) {
    msg::ListTransactionsResponse response;
    if (stopped_ || !runtime_.active()) {
        response.error_code = to_int(ErrorCode::coordinator_not_available);
        co_return response;
    }
    if (runtime_.loading()) {
        response.error_code = to_int(ErrorCode::coordinator_load_in_progress);
        co_return response;
    }
    ListFilters filters;
    filters.states = std::move(request.state_filters);
    filters.producer_ids = std::move(request.producer_id_filters);
    filters.min_duration_ms = request.duration_filter;
    auto listed = core_.list(now(), filters);
    response.unknown_state_filters = std::move(listed.unknown_states);
    for (auto& t : listed.transactions) {
        auto& out = response.transaction_states.emplace_back();
        out.transactional_id = std::move(t.transactional_id);
        out.producer_id = t.producer_id;
        out.transaction_state = std::move(t.state);
    }
    co_return response;
}

// ---- writes ----

Task<ErrorCode> TxnService::append(const TxnWrite& write) {
    std::vector<runtime::KeyValue> records;
    auto& r = records.emplace_back();
    r.key = txn_log_key(write.transactional_id);
    if (write.kind != WriteKind::expire) r.value = txn_log_value(write.transit);
    auto call = runtime_.write(write.partition, std::move(records));
    co_return co_await std::move(call);
}

Task<WriteOutcome> TxnService::commit(TxnWrite write) {
    auto call = append(write);
    auto error = co_await std::move(call);
    auto outcome = core_.write_done(now(), write, error);
    if (outcome.markers) start_markers(*outcome.markers);
    co_return outcome;
}

Task<void> TxnService::abort_timed_out_now() {
    for (auto& write : core_.abort_timed_out(now())) {
        logging::info("aborting transaction of {} (producer id {}): past its timeout of {} ms", write.transactional_id,
                      write.transit.producer_id, write.transit.timeout_ms);
        gate_.spawn([this, write = std::move(write)]() -> Task<void> { co_await commit(write); });
    }
    co_return;
}

Task<void> TxnService::expire_now() {
    auto pass = gate_.pass();
    for (auto& write : core_.expire(now())) {
        auto call = commit(std::move(write));
        co_await std::move(call);
        if (!pass.open()) co_return;
    }
}

// ---- markers ----

bool TxnService::job_alive(const MarkerJob& job) const { return !stopped_ && core_.job_current(job); }

void TxnService::start_markers(MarkerJob job) {
    ++markers_in_flight_;
    gate_.spawn(run_markers(std::move(job)));
}

Task<void> TxnService::run_markers(MarkerJob job) {
    // As Kafka's TransactionMarkerChannelManager: retried until written,
    // dropped for deleted topics, abandoned when the coordinator loses the
    // transaction or a broker says its producer or coordinator epoch is stale.
    auto pass = gate_.pass();
    auto gone = [&] { return !pass.open(); };
    auto executor = broker_.executor;
    PartitionSet remaining = job.partitions;
    bool abandoned = false;
    // Rounds that write nothing back off exponentially (as Kafka's network
    // client does between reconnects), so an unreachable or unwilling leader
    // is not hammered.
    auto delay = marker_retry_backoff_;
    while (!remaining.empty() && !abandoned) {
        const auto before = remaining.size();
        if (!job_alive(job)) {
            abandoned = true;
            break;
        }
        auto snapshot = broker_.metadata.snapshot();
        std::map<std::int32_t, std::vector<TopicPartition>> by_leader;
        for (auto it = remaining.begin(); it != remaining.end();) {
            auto topic = snapshot->topic(it->topic);
            if (!topic || it->partition < 0 || it->partition >= static_cast<std::int32_t>(topic->partitions.size())) {
                core_.marker_done(job, *it);
                it = remaining.erase(it);
                continue;
            }
            if (auto leader = topic->partitions[static_cast<std::size_t>(it->partition)].leader; leader >= 0)
                by_leader[leader].push_back(*it);
            ++it;
        }
        for (auto& [leader, tps] : by_leader) {
            msg::WriteTxnMarkersRequest request;
            auto& marker = request.markers.emplace_back();
            marker.producer_id = job.producer_id;
            marker.producer_epoch = job.producer_epoch;
            marker.transaction_result = job.commit;
            marker.coordinator_epoch = job.coordinator_epoch;
            for (const auto& tp : tps) {
                if (marker.topics.empty() || marker.topics.back().name != tp.topic)
                    marker.topics.emplace_back().name = tp.topic;
                marker.topics.back().partition_indexes.push_back(tp.partition);
            }
            auto send = sender_->send(leader, std::move(request));
            auto response = co_await std::move(send);
            if (gone()) co_return;
            if (!job_alive(job)) {
                abandoned = true;
                break;
            }
            if (!response) continue;  // no answer: all of them again
            for (const auto& result : response->markers) {
                if (result.producer_id != job.producer_id) continue;
                for (const auto& topic : result.topics) {
                    for (const auto& p : topic.partitions) {
                        TopicPartition tp{topic.name, p.partition_index};
                        if (!remaining.contains(tp)) continue;
                        switch (static_cast<ErrorCode>(p.error_code)) {
                            case ErrorCode::none:
                            // The partition cannot take markers: Kafka stops waiting for it.
                            case ErrorCode::unsupported_for_message_format:
                            case ErrorCode::unsupported_version:
                                core_.marker_done(job, tp);
                                remaining.erase(tp);
                                break;
                            case ErrorCode::unknown_topic_or_partition:
                            case ErrorCode::not_leader_or_follower:
                            case ErrorCode::not_enough_replicas:
                            case ErrorCode::not_enough_replicas_after_append:
                            case ErrorCode::request_timed_out:
                            case ErrorCode::kafka_storage_error:
                                break;  // retried
                            default:
                                // INVALID_PRODUCER_EPOCH / TRANSACTION_COORDINATOR_FENCED: a newer
                                // producer or coordinator owns it now; anything else Kafka treats as fatal.
                                logging::warn("transaction markers of {} for {}: {}; no more markers sent",
                                              job.transactional_id, tp.to_string(),
                                              error_message(static_cast<ErrorCode>(p.error_code)));
                                abandoned = true;
                                break;
                        }
                    }
                }
            }
            if (abandoned) break;
        }
        if (!remaining.empty() && !abandoned) {
            delay = remaining.size() < before ? marker_retry_backoff_ : std::min(delay * 2, kMaxMarkerBackoff);
            co_await sleep_for(executor, delay);
            if (gone()) co_return;
        }
    }
    if (!abandoned) {
        // Kafka retries the completion while the log answers COORDINATOR_NOT_AVAILABLE.
        while (auto write = core_.markers_done(job)) {
            if (stopped_) break;
            auto call = commit(std::move(*write));
            auto outcome = co_await std::move(call);
            if (gone()) co_return;
            if (!outcome.retry) break;
            co_await sleep_for(executor, marker_retry_backoff_);
            if (gone()) co_return;
        }
    }
    --markers_in_flight_;
}

// ---- the runtime's shard ----

void TxnService::replay(std::int32_t partition, const runtime::StoredRecord& record) {
    auto id = parse_txn_log_key(record.key);
    if (!id) return;
    auto& latest = replaying_[partition];
    if (record.value) {
        latest[*id] = parse_txn_log_value(*record.value);
    } else {
        latest[*id] = std::nullopt;
    }
}

void TxnService::loaded(std::int32_t partition) {
    std::map<std::string, TxnTransit> live;
    if (auto it = replaying_.find(partition); it != replaying_.end()) {
        for (auto& [id, value] : it->second)
            if (value) live.emplace(id, std::move(*value));
        replaying_.erase(it);
    }
    // The coordinator epoch markers carry: the leader epoch of the partition.
    std::int32_t epoch = 0;
    if (auto topic = broker_.metadata.snapshot()->topic(kTransactionTopic);
        topic && partition < static_cast<std::int32_t>(topic->partitions.size()))
        epoch = topic->partitions[static_cast<std::size_t>(partition)].leader_epoch;
    auto jobs = core_.load(now(), partition, epoch, live);
    logging::info("loaded {} transactional ids of {}-{} at coordinator epoch {} ({} to complete)", live.size(),
                  kTransactionTopic, partition, epoch, jobs.size());
    for (auto& job : jobs) start_markers(std::move(job));
}

void TxnService::unloaded(std::int32_t partition) {
    replaying_.erase(partition);
    core_.unload(partition);
}

}  // namespace weir::coordinator::txn
