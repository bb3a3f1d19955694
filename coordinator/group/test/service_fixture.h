#pragma once
// A BrokerCore over a temp log dir (as the weir binary builds it) with a
// CoordinatorService on top.
// send() runs one request through the service (find_coordinator() through its
// handler) as the dispatcher would: encoded and decoded at the version on the
// way in and out.
#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "broker/common/temp_dir.h"
#include "broker/config/topic_config.h"
#include "broker/handlers/handlers.h"
#include "broker/metadata/open_store.h"
#include "broker/metadata/test/run_task.h"
#include "broker/partitions/replica_manager.h"
#include "broker/server/broker_core.h"
#include "coordinator/group/coordinator_service.h"
#include "protocol/wire/writer.h"

namespace weir::coordinator::test {

class ServiceTest : public ::testing::Test {
protected:
    static constexpr std::int32_t kBrokerId = 3;

    ServiceTest() {
        config_.broker_id = kBrokerId;
        config_.log_dirs = {dir_.path()};
        config_.listeners = {{"PLAINTEXT", config::SecurityProtocol::plaintext, "127.0.0.1", 9092},
                             {"INTERNAL", config::SecurityProtocol::plaintext, "127.0.0.1", 9093}};
        config_.advertised_listeners = {{"PLAINTEXT", config::SecurityProtocol::plaintext, "broker.example", 19092},
                                        {"INTERNAL", config::SecurityProtocol::plaintext, "internal.example", 19093}};
        config_.group_initial_rebalance_delay_ms = 0;
        config_.group_min_session_timeout_ms = 100;
        config_.offsets_topic_num_partitions = 4;
    }
    ~ServiceTest() override { shutdown(); }

    // Opens storage and metadata (again, after shutdown(): a broker restart).
    void boot(CoordinatorService::Options options = {}) {
        core_ = std::make_unique<server::BrokerCore>(config_, io_.get_executor());
        store_ = &core_->metadata();
        partitions_ = &core_->partitions();
        context_ = &core_->context();
        service_ = std::make_unique<CoordinatorService>(*context_, std::move(options));
        context_->group_service = service_.get();
        service_->start();
    }

    void shutdown() {
        if (service_) service_->stop();
        drain();
        service_.reset();
        io_.restart();
        io_.poll();
        context_ = nullptr;
        partitions_ = nullptr;
        store_ = nullptr;
        core_.reset();
    }

    // Runs ready handlers without waiting for timers.
    void drain() {
        io_.restart();
        io_.poll();
    }
    // Runs the loop for `ms` of real time.
    void run_for(int ms) {
        io_.restart();
        io_.run_for(std::chrono::milliseconds(ms));
    }
    // Runs until `done` or 5 s pass.
    template <typename Pred>
    bool run_until(Pred done) {
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        io_.restart();
        while (!done() && std::chrono::steady_clock::now() < deadline) io_.run_one_for(std::chrono::milliseconds(10));
        return done();
    }

    // Starts one request; the result appears in `out` once answered.
    template <typename Request, typename Response>
    void start_request(
        Request request, std::int16_t version, std::optional<Response>& out,
        boost::asio::awaitable<Response> (CoordinatorService::*method)(const handlers::GroupService::Ctx&, Request),
        std::string listener = "PLAINTEXT", std::string client_id = "tester") {
        start_call(
            std::move(request), version, out,
            [this, method](const handlers::GroupService::Ctx& ctx, Request r) {
                return (service_.get()->*method)(ctx, std::move(r));
            },
            std::move(listener), std::move(client_id));
    }

    // FindCoordinator through its handler, which asks the service's locator.
    msg::FindCoordinatorResponse find_coordinator(msg::FindCoordinatorRequest request, std::int16_t version,
                                                  std::string listener = "PLAINTEXT") {
        std::optional<msg::FindCoordinatorResponse> out;
        start_call(
            std::move(request), version, out,
            [this](const handlers::GroupService::Ctx& ctx, msg::FindCoordinatorRequest r) {
                return handlers::handle(*context_, ctx, std::move(r));
            },
            std::move(listener), "tester");
        EXPECT_TRUE(run_until([&] { return out.has_value(); })) << "no answer";
        return out.value_or(msg::FindCoordinatorResponse{});
    }

    // Runs `call(ctx, request)` as the dispatcher would: encoded and decoded
    // at the version on the way in and out.
    template <typename Request, typename Response, typename Call>
    void start_call(Request request, std::int16_t version, std::optional<Response>& out, Call call,
                    std::string listener, std::string client_id) {
        wire::Bytes in;
        wire::Writer w(in);
        request.encode(w, version);
        wire::Reader r(in);
        auto decoded = Request::decode(r, version);
        auto state = std::make_shared<std::pair<handlers::ConnectionInfo, protocol::RequestHeader>>();
        state->first = handlers::ConnectionInfo{1, "127.0.0.1:50000", std::move(listener)};
        state->second.api_key = Request::api_key;
        state->second.api_version = version;
        state->second.client_id = std::move(client_id);
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

    template <typename Request, typename Response>
    Response send(Request request, std::int16_t version,
                  boost::asio::awaitable<Response> (CoordinatorService::*method)(const handlers::GroupService::Ctx&,
                                                                                 Request),
                  std::string listener = "PLAINTEXT") {
        std::optional<Response> out;
        start_request(std::move(request), version, out, method, std::move(listener));
        EXPECT_TRUE(run_until([&] { return out.has_value(); })) << "no answer";
        return out.value_or(Response{});
    }

    void create_topic(const std::string& name, int partitions) {
        metadata::NewTopic t;
        t.name = name;
        t.num_partitions = partitions;
        t.replication_factor = 1;
        ASSERT_TRUE(metadata::test::run(store_->create_topic(t, false)).ok());
    }

    std::shared_ptr<partitions::Partition> offsets_log(std::int32_t partition) {
        return partitions_->get({"__consumer_offsets", partition});
    }

    config::BrokerConfig config_;
    TempDir dir_{"weir-coordinator"};
    boost::asio::io_context io_{1};
    std::unique_ptr<server::BrokerCore> core_;
    metadata::MetadataStore* store_ = nullptr;
    partitions::ReplicaManager* partitions_ = nullptr;
    handlers::BrokerContext* context_ = nullptr;
    std::unique_ptr<CoordinatorService> service_;
};

}  // namespace weir::coordinator::test
