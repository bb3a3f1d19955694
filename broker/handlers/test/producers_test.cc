// InitProducerId for idempotent producers: fresh ids with epoch 0 from
// durable blocks, never repeated across restarts; Kafka's errors for
// malformed requests and transactional ids. DescribeProducers.
#include <gtest/gtest.h>

#include <set>

#include "broker/handlers/test/handler_fixture.h"
#include "broker/metadata/metadata_types.h"
#include "broker/partitions/replica_manager.h"
#include "messages/api_versions.h"

namespace weir::handlers {
namespace {

struct ProducerIdsTest : test::HandlerTest {
    msg::InitProducerIdResponse init(std::int16_t version, std::int64_t producer_id = -1, std::int16_t epoch = -1) {
        msg::InitProducerIdRequest request;
        request.transactional_id = std::nullopt;
        request.transaction_timeout_ms = 60000;
        request.producer_id = producer_id;
        request.producer_epoch = epoch;
        return call(std::move(request), version);
    }
};

TEST_F(ProducerIdsTest, EveryVersionGetsAFreshIdWithEpochZero) {
    std::set<std::int64_t> seen;
    for (std::int16_t v = 0; v <= 5; ++v) {
        auto r = init(v);
        EXPECT_EQ(r.error_code, 0) << "v" << v;
        EXPECT_EQ(r.producer_epoch, 0);
        EXPECT_GE(r.producer_id, 0);
        EXPECT_TRUE(seen.insert(r.producer_id).second) << "id " << r.producer_id << " given twice";
    }
}

TEST_F(ProducerIdsTest, AKnownIdAndEpochGetANewIdAsKafkaGivesWithoutATransactionalId) {
    auto first = init(4);
    auto again = init(4, first.producer_id, first.producer_epoch);
    EXPECT_EQ(again.error_code, 0);
    EXPECT_NE(again.producer_id, first.producer_id);
    EXPECT_EQ(again.producer_epoch, 0);
}

TEST_F(ProducerIdsTest, IdsAreNeverGivenTwiceAcrossRestarts) {
    auto before = init(4).producer_id;
    restart();
    auto after = init(4).producer_id;
    // A restart starts a new block: the old block's rest is never used.
    EXPECT_GE(after, before + metadata::kProducerIdBlockSize - (before % metadata::kProducerIdBlockSize));
}

TEST_F(ProducerIdsTest, AnIdWithoutAnEpochIsInvalid) {
    EXPECT_EQ(init(3, 5, -1).error_code, to_int(ErrorCode::invalid_request));
    auto r = init(3, -1, 2);
    EXPECT_EQ(r.error_code, to_int(ErrorCode::invalid_request));
    EXPECT_EQ(r.producer_id, -1);
    EXPECT_EQ(r.producer_epoch, -1);
}

TEST_F(ProducerIdsTest, TransactionalIdsNeedTheTransactionCoordinator) {
    msg::InitProducerIdRequest request;
    request.transactional_id = "";
    EXPECT_EQ(call(request, 1).error_code, to_int(ErrorCode::invalid_request));
    request.transactional_id = "txn";
    EXPECT_EQ(call(request, 1).error_code, to_int(ErrorCode::coordinator_not_available));
}

TEST_F(ProducerIdsTest, ApiVersionsAdvertisesInitProducerId) {
    msg::ApiVersionsRequest request;
    request.client_software_name = "weir-test";
    request.client_software_version = "1.0";
    auto r = call(std::move(request), 3);
    ASSERT_EQ(r.error_code, 0);
    bool found = false;
    for (const auto& api : r.api_keys)
        if (api.api_key == 22) {
            found = true;
            EXPECT_EQ(api.min_version, 0);
            EXPECT_EQ(api.max_version, 5);
        }
    EXPECT_TRUE(found);
}

TEST_F(ProducerIdsTest, DescribeProducersShowsEachPartitionsProducers) {
    create_topic("p", 2);
    records::BatchBuilderOptions options;
    options.base_timestamp = 5000;
    options.producer_id = 77;
    options.producer_epoch = 3;
    options.base_sequence = 10;
    std::vector<records::Record> recs(4);
    for (int i = 0; i < 4; ++i) recs[static_cast<std::size_t>(i)].offset_delta = i;
    auto batch = records::build_batch(options, recs);
    partitions::ProduceLimits limits;
    limits.produce_version = 9;
    ASSERT_EQ(partitions_->produce({"p", 1}, batch, limits).error, ErrorCode::none);

    msg::DescribeProducersRequest request;
    auto& topic = request.topics.emplace_back();
    topic.name = "p";
    topic.partition_indexes = {0, 1, 5};
    auto r = call(request, 0);
    ASSERT_EQ(r.topics.size(), 1u);
    const auto& parts = r.topics[0].partitions;
    ASSERT_EQ(parts.size(), 3u);
    EXPECT_EQ(parts[0].error_code, 0);
    EXPECT_TRUE(parts[0].active_producers.empty());
    ASSERT_EQ(parts[1].active_producers.size(), 1u);
    const auto& p = parts[1].active_producers[0];
    EXPECT_EQ(p.producer_id, 77);
    EXPECT_EQ(p.producer_epoch, 3);
    EXPECT_EQ(p.last_sequence, 13);
    EXPECT_EQ(p.last_timestamp, 5000);
    EXPECT_EQ(p.coordinator_epoch, -1);
    EXPECT_EQ(p.current_txn_start_offset, -1);
    EXPECT_EQ(parts[2].error_code, to_int(ErrorCode::unknown_topic_or_partition));
}

}  // namespace
}  // namespace weir::handlers
