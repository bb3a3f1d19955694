#pragma once
// The transaction coordinator the broker serves: Kafka's transaction APIs over
// the pure TxnManager, with durable state in __transaction_state.
//
// Runs on the broker's single I/O thread, over the coordinator runtime
// (coordinator/runtime/), which owns the __transaction_state partitions this
// broker leads, replays them into this shard (their transactional ids answer
// COORDINATOR_LOAD_IN_PROGRESS meanwhile) and completes writes at the high
// watermark. Markers go out through a MarkerSender; two periodic tasks abort
// timed-out transactions and expire idle transactional ids.
#include <functional>
#include <map>
#include <memory>
#include <optional>

#include "broker/common/task_gate.h"
#include "broker/handler_api/broker_context.h"
#include "broker/handler_api/coordinator_locator.h"
#include "broker/handler_api/transaction_service.h"
#include "coordinator/runtime/coordinator_runtime.h"
#include "coordinator/txn/marker_sender.h"
#include "coordinator/txn/txn_manager.h"

namespace weir::coordinator::txn {

template <typename T>
using Task = boost::asio::awaitable<T>;

class TxnService final : public handlers::TransactionService,
                         public handlers::CoordinatorLocator,
                         private runtime::Shard {
public:
    using Clock = std::function<TimeMs()>;
    struct Options {
        Clock clock;                           // default: wall clock (ms)
        std::unique_ptr<MarkerSender> sender;  // default: BrokerMarkerSender on the inter-broker listener
        std::chrono::milliseconds marker_retry_backoff{100};  // Kafka's retry.backoff.ms
    };

    explicit TxnService(handlers::BrokerContext& broker) : TxnService(broker, Options{}) {}
    TxnService(handlers::BrokerContext& broker, Options options);

    ~TxnService() override;
    TxnService(const TxnService&) = delete;
    TxnService& operator=(const TxnService&) = delete;

    void start() override;
    void stop() override;
    Task<void> stopped() override;
    [[nodiscard]] bool loading() const override { return runtime_.loading(); }

    handlers::CoordinatorLocator& locator() override { return *this; }
    Task<handlers::CoordinatorLocation> locate(std::string transactional_id, std::string listener) override;

    Task<msg::InitProducerIdResponse> init_producer_id(const Ctx&, msg::InitProducerIdRequest) override;
    Task<msg::AddPartitionsToTxnResponse> add_partitions_to_txn(const Ctx&, msg::AddPartitionsToTxnRequest) override;
    Task<msg::AddOffsetsToTxnResponse> add_offsets_to_txn(const Ctx&, msg::AddOffsetsToTxnRequest) override;
    Task<msg::EndTxnResponse> end_txn(const Ctx&, msg::EndTxnRequest) override;
    Task<msg::DescribeTransactionsResponse> describe_transactions(const Ctx&,
                                                                  msg::DescribeTransactionsRequest) override;
    Task<msg::ListTransactionsResponse> list_transactions(const Ctx&, msg::ListTransactionsRequest) override;

    // ---- observability and tests ----
    [[nodiscard]] const TxnManager& manager() const { return core_; }
    [[nodiscard]] std::int32_t partition_for(std::string_view transactional_id) const {
        return runtime_.partition_for(transactional_id);
    }
    // Marker jobs still running (sending or writing their completion).
    [[nodiscard]] std::size_t markers_in_flight() const { return markers_in_flight_; }
    // What the two periodic tasks do.
    Task<void> abort_timed_out_now();
    Task<void> expire_now();

private:
    struct Answer {
        ErrorCode error = ErrorCode::none;
        std::int64_t producer_id = kNoProducerId;
        std::int16_t producer_epoch = kNoProducerEpoch;
    };

    [[nodiscard]] TimeMs now() const { return clock_(); }
    // NOT_COORDINATOR from the core, told apart by the runtime (loading, stopped).
    [[nodiscard]] ErrorCode refine(ErrorCode error, std::string_view transactional_id) const;
    Task<Answer> add_partitions(std::string transactional_id, std::int64_t producer_id, std::int16_t producer_epoch,
                                PartitionSet partitions);
    // Appends `write`, applies it and starts the markers it leads to.
    Task<WriteOutcome> commit(TxnWrite write);
    Task<ErrorCode> append(const TxnWrite& write);
    void start_markers(MarkerJob job);
    Task<void> run_markers(MarkerJob job);
    // False once the job is no longer this coordinator's to finish.
    [[nodiscard]] bool job_alive(const MarkerJob& job) const;
    Task<void> pause(std::chrono::milliseconds delay);

    // ---- the runtime's shard ----
    void replay(std::int32_t partition, const runtime::StoredRecord& record) override;
    void loaded(std::int32_t partition) override;
    void unloaded(std::int32_t partition) override;

    handlers::BrokerContext& broker_;
    Clock clock_;
    std::unique_ptr<MarkerSender> sender_;
    std::chrono::milliseconds marker_retry_backoff_;
    TxnManager core_;
    runtime::CoordinatorRuntime runtime_;
    // Partitions being replayed: the latest value of every key (nullopt: tombstone).
    std::map<std::int32_t, std::map<std::string, std::optional<TxnTransit>>> replaying_;
    std::size_t markers_in_flight_ = 0;
    bool stopped_ = false;
    // Last: coroutines and posted callbacks notice the service is gone.
    common::TaskGate gate_;
};

}  // namespace weir::coordinator::txn
