#pragma once
// Handler test fixture: a temp log dir and a BrokerCore over it (the embedded
// metadata store, the logs and partitions, a BrokerContext), as the broker builds it.
// call() runs one handler as the dispatcher would: the request is encoded
// and decoded at the version first (so absent fields take their defaults),
// the answer is encoded and decoded at the version after (so it must be
// encodable there, and fields the version lacks read back as defaults).
#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "broker/common/temp_dir.h"
#include "broker/handlers/handlers.h"
#include "broker/metadata/test/run_task.h"
#include "broker/server/broker_core.h"
#include "protocol/records/record_batch.h"

namespace weir::handlers::test {

// A v2 batch of `count` records with timestamps base_timestamp + i.
inline wire::Bytes make_batch(int count, std::int64_t base_timestamp = 1000, std::size_t value_size = 16) {
    records::BatchBuilderOptions options;
    options.base_timestamp = base_timestamp;
    std::vector<records::Record> recs;
    for (int i = 0; i < count; ++i) {
        records::Record r;
        r.offset_delta = i;
        r.timestamp_delta = i;
        r.value = wire::Bytes(value_size, static_cast<std::uint8_t>('a' + i % 26));
        recs.push_back(std::move(r));
    }
    return records::build_batch(options, recs);
}

// Produce (acks=1) of `records` to one partition.
// The wall clock in milliseconds, as a broker stamps times.
inline std::int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

inline msg::ProduceRequest produce_request(const std::string& topic, wire::Bytes records, std::int32_t partition = 0) {
    msg::ProduceRequest r;
    r.acks = 1;
    r.timeout_ms = 1000;
    auto& t = r.topic_data.emplace_back();
    t.name = topic;
    auto& p = t.partition_data.emplace_back();
    p.index = partition;
    p.records = wire::RecordsData(std::move(records));
    return r;
}

class HandlerTest : public ::testing::Test {
protected:
    static constexpr std::int32_t kBrokerId = 7;

    HandlerTest() { config_.broker_id = kBrokerId; }

    // Tests adjust config_ first, then call start() (or let call() do it).
    void start() {
        if (context_) return;
        if (log_dirs_.empty())
            config_.log_dirs = {dir_.path()};
        else
            config_.log_dirs = log_dirs_;
        config_.listeners = {{"PLAINTEXT", config::SecurityProtocol::plaintext, "127.0.0.1", 9092},
                             {"INTERNAL", config::SecurityProtocol::plaintext, "127.0.0.1", 9093}};
        config_.advertised_listeners = {{"PLAINTEXT", config::SecurityProtocol::plaintext, "broker.example", 19092},
                                        {"INTERNAL", config::SecurityProtocol::plaintext, "internal.example", 19093}};
        config_.rack = "rack-a";
        core_ = std::make_unique<server::BrokerCore>(config_, io_.get_executor());
        store_ = &core_->metadata();
        partitions_ = &core_->partitions();
        context_ = &core_->context();
    }

    // Closes everything and opens it again from disk, as a broker restart does.
    void restart() {
        context_ = nullptr;
        partitions_ = nullptr;
        store_ = nullptr;
        core_.reset();
        start();
    }

    template <typename Request>
    auto call(Request request, std::int16_t version, std::string listener = "PLAINTEXT") {
        using Response = typename decltype(handle(std::declval<BrokerContext&>(), std::declval<const RequestContext&>(),
                                                  std::declval<Request>()))::value_type;
        start();
        wire::Bytes request_bytes;
        wire::Writer request_writer(request_bytes);
        request.encode(request_writer, version);
        wire::Reader request_reader(request_bytes);
        auto decoded = Request::decode(request_reader, version);

        handlers::ConnectionInfo connection{1, "127.0.0.1:50000", std::move(listener)};
        protocol::RequestHeader header;
        header.api_key = Request::api_key;
        header.api_version = version;
        header.correlation_id = 1;
        header.client_id = "handler-test";
        RequestContext ctx{header, connection, std::chrono::steady_clock::now()};

        std::optional<Response> response;
        boost::asio::co_spawn(
            io_,
            [&]() -> boost::asio::awaitable<void> { response = co_await handle(*context_, ctx, std::move(decoded)); },
            [](std::exception_ptr e) {
                if (e) std::rethrow_exception(e);
            });
        io_.restart();
        io_.run();
        EXPECT_TRUE(response.has_value());

        wire::Bytes response_bytes;
        wire::Writer response_writer(response_bytes);
        response->encode(response_writer, version);
        wire::Reader response_reader(response_bytes);
        auto answer = Response::decode(response_reader, version);
        EXPECT_EQ(response_reader.remaining(), 0u);
        return answer;
    }

    // Creates a topic straight through the store (no handler involved).
    void create_topic(const std::string& name, int partitions = 1, config::ConfigMap configs = {}) {
        start();
        metadata::NewTopic t;
        t.name = name;
        t.num_partitions = partitions;
        t.replication_factor = 1;
        t.configs = std::move(configs);
        auto result = metadata::test::run(store_->create_topic(t, false));
        ASSERT_TRUE(result.ok()) << result.message;
    }

    // Appends a batch of `count` records to a partition; returns its base offset.
    std::int64_t produce(const std::string& topic, std::int32_t partition, int count,
                         std::int64_t base_timestamp = 1000) {
        partitions::ProduceLimits limits;
        limits.produce_version = 9;
        auto batch = make_batch(count, base_timestamp);
        auto result = partitions_->produce({topic, partition}, batch, limits);
        EXPECT_EQ(result.error, ErrorCode::none) << result.error_message;
        return result.base_offset;
    }

    std::shared_ptr<partitions::Partition> log(const std::string& topic, std::int32_t partition) {
        return partitions_->get({topic, partition});
    }

    config::BrokerConfig config_;
    TempDir dir_{"weir-handlers"};
    // Log dirs other than dir_ itself, set before start().
    std::vector<std::filesystem::path> log_dirs_;
    boost::asio::io_context io_{1};
    std::unique_ptr<server::BrokerCore> core_;
    metadata::MetadataStore* store_ = nullptr;
    partitions::ReplicaManager* partitions_ = nullptr;
    BrokerContext* context_ = nullptr;
};

}  // namespace weir::handlers::test
