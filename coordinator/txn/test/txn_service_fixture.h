#pragma once
// A BrokerCore over a temp log dir with a TxnService on top, a fake clock and
// a fake marker sender that records WriteTxnMarkers requests and answers them
// as the test says. send() runs one request through the service as the
// dispatcher would: encoded and decoded at the version on the way in and out.
#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "broker/common/temp_dir.h"
#include "broker/handlers/handlers.h"
#include "broker/metadata/test/run_task.h"
#include "broker/partitions/replica_manager.h"
#include "broker/server/broker_core.h"
#include "coordinator/txn/records.h"
#include "coordinator/txn/txn_service.h"
#include "protocol/wire/writer.h"

namespace weir::coordinator::txn::test {

// Answers every partition of a request with what `answer` says (none by
// default); while `hold` is set, requests wait until it is cleared.
class FakeMarkerSender final : public MarkerSender {
public:
    struct Sent {
        std::int32_t broker_id = -1;
        msg::WriteTxnMarkersRequest request;
    };
    struct State {
        std::vector<Sent> sent;
        // nullopt: no answer (connection failure).
        std::function<std::optional<ErrorCode>(std::int32_t broker_id, const TopicPartition&)> answer;
        bool hold = false;
        bool stopped = false;
    };

    explicit FakeMarkerSender(boost::asio::any_io_executor executor, std::shared_ptr<State> state)
        : executor_(std::move(executor)), state_(std::move(state)) {}

    boost::asio::awaitable<std::optional<msg::WriteTxnMarkersResponse>> send(
        std::int32_t broker_id, msg::WriteTxnMarkersRequest request) override {
        auto state = state_;
        state->sent.push_back({broker_id, request});
        while (state->hold && !state->stopped) {
            boost::asio::steady_timer t(executor_, std::chrono::milliseconds(5));
            boost::system::error_code ec;
            co_await t.async_wait(boost::asio::redirect_error(boost::asio::use_awaitable, ec));
        }
        if (state->stopped) co_return std::nullopt;
        msg::WriteTxnMarkersResponse response;
        for (const auto& marker : request.markers) {
            auto& m = response.markers.emplace_back();
            m.producer_id = marker.producer_id;
            for (const auto& topic : marker.topics) {
                auto& t = m.topics.emplace_back();
                t.name = topic.name;
                for (auto p : topic.partition_indexes) {
                    std::optional<ErrorCode> e = ErrorCode::none;
                    if (state->answer) e = state->answer(broker_id, TopicPartition{topic.name, p});
                    if (!e) co_return std::nullopt;
                    auto& r = t.partitions.emplace_back();
                    r.partition_index = p;
                    r.error_code = to_int(*e);
                }
            }
        }
        co_return response;
    }
    void stop() override { state_->stopped = true; }

private:
    boost::asio::any_io_executor executor_;
    std::shared_ptr<State> state_;
};

class TxnServiceTest : public ::testing::Test {
protected:
    static constexpr std::int32_t kBrokerId = 3;
    using S = TxnService;

    TxnServiceTest() {
        config_.broker_id = kBrokerId;
        config_.log_dirs = {dir_.path()};
        config_.listeners = {{"PLAINTEXT", config::SecurityProtocol::plaintext, "127.0.0.1", 9092}};
        config_.advertised_listeners = {{"PLAINTEXT", config::SecurityProtocol::plaintext, "broker.example", 19092}};
        config_.transaction_state_log_num_partitions = 4;
        config_.offsets_topic_num_partitions = 6;
        config_.transactional_id_expiration_ms = 100000;
    }
    ~TxnServiceTest() override { shutdown(); }

    void boot() {
        core_ = std::make_unique<server::BrokerCore>(config_, io_.get_executor());
        store_ = &core_->metadata();
        partitions_ = &core_->partitions();
        context_ = &core_->context();
        markers_ = std::make_shared<FakeMarkerSender::State>();
        TxnService::Options options;
        options.clock = [this] { return clock_; };
        options.sender = std::make_unique<FakeMarkerSender>(io_.get_executor(), markers_);
        options.marker_retry_backoff = std::chrono::milliseconds(1);
        service_ = std::make_unique<TxnService>(*context_, std::move(options));
        context_->transaction_service = service_.get();
        context_->transaction_locator = &service_->locator();
        service_->start();
    }

    void shutdown() {
        if (service_) service_->stop();
        drain();
        run_for(20);
        service_.reset();
        io_.restart();
        io_.poll();
        context_ = nullptr;
        partitions_ = nullptr;
        store_ = nullptr;
        core_.reset();
    }

    void drain() {
        io_.restart();
        io_.poll();
    }
    void run_for(int ms) {
        io_.restart();
        io_.run_for(std::chrono::milliseconds(ms));
    }
    template <typename Pred>
    bool run_until(Pred done) {
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        io_.restart();
        while (!done() && std::chrono::steady_clock::now() < deadline) io_.run_one_for(std::chrono::milliseconds(10));
        return done();
    }

    // Runs `call(ctx, request)` as the dispatcher would.
    template <typename Request, typename Response, typename Call>
    void start_call(Request request, std::int16_t version, std::optional<Response>& out, Call call) {
        wire::Bytes in;
        wire::Writer w(in);
        request.encode(w, version);
        wire::Reader r(in);
        auto decoded = Request::decode(r, version);
        auto state = std::make_shared<std::pair<handlers::ConnectionInfo, protocol::RequestHeader>>();
        state->first = handlers::ConnectionInfo{1, "127.0.0.1:50000", "PLAINTEXT"};
        state->second.api_key = Request::api_key;
        state->second.api_version = version;
        state->second.client_id = "tester";
        boost::asio::co_spawn(
            io_,
            [state, decoded = std::move(decoded), version, &out, call]() mutable -> boost::asio::awaitable<void> {
                handlers::RequestContext ctx{state->second, state->first, std::chrono::steady_clock::now()};
                auto response = co_await call(ctx, std::move(decoded));
                wire::Bytes bytes;
                wire::Writer writer(bytes);
                response.encode(writer, version);
                wire::Reader reader(bytes);
                out = Response::decode(reader, version);
                EXPECT_EQ(reader.remaining(), 0u);
            },
            [](std::exception_ptr e) {
                if (e) std::rethrow_exception(e);
            });
    }

    // Through the broker's handler (the dispatcher's path).
    template <typename Request, typename Response = decltype(handlers::handle(
                                    std::declval<handlers::BrokerContext&>(),
                                    std::declval<const handlers::RequestContext&>(), std::declval<Request>()))>
    auto send(Request request, std::int16_t version) {
        using R = typename Response::value_type;
        std::optional<R> out;
        start_call(std::move(request), version, out, [this](const handlers::RequestContext& ctx, Request r) {
            return handlers::handle(*context_, ctx, std::move(r));
        });
        EXPECT_TRUE(run_until([&] { return out.has_value(); })) << "no answer";
        return out.value_or(R{});
    }

    // ---- requests ----
    msg::FindCoordinatorResponse find(const std::string& id) {
        msg::FindCoordinatorRequest r;
        r.key = id;
        r.key_type = 1;
        return send(r, 3);
    }
    msg::InitProducerIdResponse init(const std::string& id, std::int16_t version = 4, std::int32_t timeout = 60000,
                                     std::int64_t producer_id = -1, std::int16_t epoch = -1) {
        msg::InitProducerIdRequest r;
        r.transactional_id = id;
        r.transaction_timeout_ms = timeout;
        r.producer_id = producer_id;
        r.producer_epoch = epoch;
        return send(r, version);
    }
    msg::AddPartitionsToTxnResponse add(const std::string& id, std::int64_t pid, std::int16_t epoch,
                                        const std::string& topic, std::vector<std::int32_t> partitions,
                                        std::int16_t version = 3) {
        msg::AddPartitionsToTxnRequest r;
        r.v3_and_below_transactional_id = id;
        r.v3_and_below_producer_id = pid;
        r.v3_and_below_producer_epoch = epoch;
        auto& t = r.v3_and_below_topics.emplace_back();
        t.name = topic;
        t.partitions = std::move(partitions);
        return send(r, version);
    }
    msg::AddOffsetsToTxnResponse add_offsets(const std::string& id, std::int64_t pid, std::int16_t epoch,
                                             const std::string& group, std::int16_t version = 3) {
        msg::AddOffsetsToTxnRequest r;
        r.transactional_id = id;
        r.producer_id = pid;
        r.producer_epoch = epoch;
        r.group_id = group;
        return send(r, version);
    }
    msg::EndTxnResponse end(const std::string& id, std::int64_t pid, std::int16_t epoch, bool commit,
                            std::int16_t version = 3) {
        msg::EndTxnRequest r;
        r.transactional_id = id;
        r.producer_id = pid;
        r.producer_epoch = epoch;
        r.committed = commit;
        return send(r, version);
    }
    msg::DescribeTransactionsResponse::TransactionState describe(const std::string& id) {
        msg::DescribeTransactionsRequest r;
        r.transactional_ids = {id};
        auto out = send(r, 0);
        EXPECT_EQ(out.transaction_states.size(), 1u);
        return out.transaction_states.empty() ? msg::DescribeTransactionsResponse::TransactionState{}
                                              : out.transaction_states[0];
    }

    void create_topic(const std::string& name, int partitions) {
        metadata::NewTopic t;
        t.name = name;
        t.num_partitions = partitions;
        t.replication_factor = 1;
        ASSERT_TRUE(metadata::test::run(store_->create_topic(t, false)).ok());
    }

    std::int32_t leader_epoch(std::int32_t txn_partition) {
        auto topic = store_->topic(kTransactionTopic);
        return topic ? topic->partitions.at(static_cast<std::size_t>(txn_partition)).leader_epoch : -1;
    }

    // The transaction log of `id`, as TxnTransits (tombstones as nullopt).
    std::vector<std::optional<TxnTransit>> log_of(const std::string& id) {
        std::vector<std::optional<TxnTransit>> out;
        auto log = partitions_->get({std::string(kTransactionTopic), service_->partition_for(id)});
        if (!log) return out;
        auto read = log->read(0);
        runtime::for_each_record(read.records.bytes(), 0, [&](const runtime::StoredRecord& r) {
            if (parse_txn_log_key(r.key) != id) return;
            if (r.value) {
                out.emplace_back(parse_txn_log_value(*r.value));
            } else {
                out.emplace_back(std::nullopt);
            }
        });
        return out;
    }

    bool markers_done() {
        return run_until([&] { return service_->markers_in_flight() == 0; });
    }

    config::BrokerConfig config_;
    TempDir dir_{"weir-txn"};
    boost::asio::io_context io_{1};
    TimeMs clock_ = 1'700'000'000'000;
    std::unique_ptr<server::BrokerCore> core_;
    metadata::MetadataStore* store_ = nullptr;
    partitions::ReplicaManager* partitions_ = nullptr;
    handlers::BrokerContext* context_ = nullptr;
    std::shared_ptr<FakeMarkerSender::State> markers_;
    std::unique_ptr<TxnService> service_;
};

}  // namespace weir::coordinator::txn::test
