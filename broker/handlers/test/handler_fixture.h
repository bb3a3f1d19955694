#pragma once
// Handler test fixture: a temp log dir, the embedded metadata store, the
// partition layer over its logs and a BrokerContext, wired like broker/server/broker.cc.
// call() runs one handler as the dispatcher would: the request is encoded
// and decoded at the version first (so absent fields take their defaults),
// the answer is encoded and decoded at the version after (so it must be
// encodable there, and fields the version lacks read back as defaults).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "broker/config/topic_config.h"
#include "broker/handlers/handlers.h"
#include "broker/metadata/embedded_metadata_store.h"
#include "broker/metadata/open_store.h"
#include "broker/metadata/test/run_task.h"
#include "broker/partitions/replica_manager.h"
#include "broker/partitions/test/local_replicas.h"
#include "protocol/records/record_batch.h"

namespace weir::handlers::test {

class TempDir {
public:
    TempDir() {
        std::string tmpl = "/tmp/weir-handlers-XXXXXX";
        if (::mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
        path_ = tmpl;
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    [[nodiscard]] const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

inline partitions::LogConfig to_log_config(const config::TopicConfig& t) {
    partitions::LogConfig c;
    c.segment_bytes = t.segment_bytes;
    c.segment_ms = t.segment_ms;
    c.index_interval_bytes = t.index_interval_bytes;
    c.segment_index_bytes = t.segment_index_bytes;
    c.retention_ms = t.retention_ms;
    c.retention_bytes = t.retention_bytes;
    c.cleanup_delete = t.cleanup_policy.remove;
    c.cleanup_compact = t.cleanup_policy.compact;
    return c;
}

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

class HandlerTest : public ::testing::Test {
protected:
    static constexpr std::int32_t kBrokerId = 7;

    HandlerTest() { config_.broker_id = kBrokerId; }

    // Tests adjust config_ first, then call start() (or let call() do it).
    void start() {
        if (context_) return;
        config_.log_dirs = {dir_.path()};
        config_.listeners = {{"PLAINTEXT", config::SecurityProtocol::plaintext, "127.0.0.1", 9092},
                             {"INTERNAL", config::SecurityProtocol::plaintext, "127.0.0.1", 9093}};
        config_.advertised_listeners = {{"PLAINTEXT", config::SecurityProtocol::plaintext, "broker.example", 19092},
                                        {"INTERNAL", config::SecurityProtocol::plaintext, "internal.example", 19093}};
        config_.rack = "rack-a";
        store_ = std::make_unique<metadata::EmbeddedMetadataStore>(
            metadata::EmbeddedMetadataStore::Options{dir_.path() / "meta", metadata::local_broker_info(config_)});
        auto lookup = [this](const std::string& topic) {
            auto snapshot = store_->snapshot();
            auto info = snapshot->topic(topic);
            return to_log_config(config::resolve_topic_config(config_, info ? info->configs : config::ConfigMap{},
                                                              snapshot->dynamic_broker_configs(config_.broker_id)));
        };
        local_ = std::make_unique<partitions::test::LocalReplicas>(io_.get_executor(), config_.log_dirs, lookup,
                                                                   config_.broker_id);
        partitions_ = &local_->replicas();
        context_ = std::make_unique<BrokerContext>(BrokerContext{config_, *store_, *partitions_, io_.get_executor()});
        store_->add_listener([this](const metadata::MetadataChange& change) { on_change(change); });
        for (const auto& topic : store_->topics()) assign(*topic);
    }

    // Closes everything and opens it again from disk, as a broker restart does.
    void restart() {
        context_.reset();
        partitions_ = nullptr;
        local_.reset();
        store_.reset();
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

        net::ConnectionInfo connection{1, "127.0.0.1:50000", std::move(listener)};
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
    std::int64_t produce(const std::string& topic, std::int32_t partition, int count, std::int64_t base_timestamp = 1000) {
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
    TempDir dir_;
    boost::asio::io_context io_{1};
    std::unique_ptr<metadata::EmbeddedMetadataStore> store_;
    std::unique_ptr<partitions::test::LocalReplicas> local_;
    partitions::ReplicaManager* partitions_ = nullptr;
    std::unique_ptr<BrokerContext> context_;

private:
    // The partitions the metadata assigns this broker, as broker.cc's sync_partitions.
    void assign(const metadata::TopicInfo& topic) {
        for (const auto& p : topic.partitions)
            partitions_->apply({topic.name, p.partition}, {p.leader, p.leader_epoch, p.replicas, p.isr});
    }

    void on_change(const metadata::MetadataChange& change) {
        using Kind = metadata::MetadataChange::Kind;
        switch (change.kind) {
            case Kind::topic_created:
            case Kind::partitions_added:
            case Kind::partition_state_changed:
                if (change.after) assign(*change.after);
                break;
            case Kind::topic_deleted: partitions_->remove_topic(change.topic); break;
            case Kind::topic_configs_changed: partitions_->topic_config_changed(change.topic); break;
            case Kind::brokers_changed: break;
            case Kind::broker_configs_changed:
                for (const auto& topic : store_->topics()) partitions_->topic_config_changed(topic->name);
                break;
        }
    }
};

}  // namespace weir::handlers::test
