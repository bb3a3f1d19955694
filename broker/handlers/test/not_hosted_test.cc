// A partition the metadata knows but this broker does not host (its replicas
// are elsewhere, as a client with stale metadata finds after a reassignment)
// answers NOT_LEADER_OR_FOLLOWER, so the client refreshes its metadata and
// goes to the leader; only a partition nobody knows is
// UNKNOWN_TOPIC_OR_PARTITION. Kafka's ReplicaManager.getPartitionOrError.
#include "broker/handlers/test/handler_fixture.h"

namespace weir::handlers::test {
namespace {

class NotHostedTest : public HandlerTest {
protected:
    static constexpr auto kNotLeader = to_int(ErrorCode::not_leader_or_follower);
    static constexpr auto kUnknown = to_int(ErrorCode::unknown_topic_or_partition);

    void SetUp() override {
        create_topic("moved", 2);
        // The metadata still shows partition 1, but its replica here is gone.
        ASSERT_TRUE(partitions_->remove({"moved", 1}));
        ASSERT_NE(log("moved", 0), nullptr);
    }

    std::int16_t produce_error(const std::string& topic, std::int32_t partition) {
        const auto answer =
            call(produce_request(topic, make_batch(1), partition), 9).responses.at(0).partition_responses.at(0);
        EXPECT_EQ(answer.base_offset, answer.error_code == 0 ? 0 : -1);
        return answer.error_code;
    }

    std::int16_t fetch_error(const std::string& topic, std::int32_t partition) {
        msg::FetchRequest r;
        r.replica_id = -1;
        r.max_wait_ms = 0;
        r.min_bytes = 0;
        auto& t = r.topics.emplace_back();
        t.topic = topic;
        auto& p = t.partitions.emplace_back();
        p.partition = partition;
        p.partition_max_bytes = 1 << 20;
        return call(r, 12).responses.at(0).partitions.at(0).error_code;
    }

    std::int16_t list_offsets_error(const std::string& topic, std::int32_t partition, std::int16_t version) {
        msg::ListOffsetsRequest r;
        r.replica_id = -1;
        auto& t = r.topics.emplace_back();
        t.name = topic;
        auto& p = t.partitions.emplace_back();
        p.partition_index = partition;
        p.timestamp = -2;
        p.max_num_offsets = 1;
        return call(r, version).topics.at(0).partitions.at(0).error_code;
    }

    std::int16_t epoch_error(const std::string& topic, std::int32_t partition) {
        msg::OffsetForLeaderEpochRequest r;
        auto& t = r.topics.emplace_back();
        t.topic = topic;
        auto& p = t.partitions.emplace_back();
        p.partition = partition;
        p.current_leader_epoch = -1;
        p.leader_epoch = 0;
        return call(r, 3).topics.at(0).partitions.at(0).error_code;
    }

    std::int16_t describe_producers_error(const std::string& topic, std::int32_t partition) {
        msg::DescribeProducersRequest r;
        auto& t = r.topics.emplace_back();
        t.name = topic;
        t.partition_indexes = {partition};
        return call(r, 0).topics.at(0).partitions.at(0).error_code;
    }

    std::int16_t delete_records_error(const std::string& topic, std::int32_t partition) {
        msg::DeleteRecordsRequest r;
        r.timeout_ms = 1000;
        auto& t = r.topics.emplace_back();
        t.name = topic;
        auto& p = t.partitions.emplace_back();
        p.partition_index = partition;
        p.offset = 0;
        return call(r, 1).topics.at(0).partitions.at(0).error_code;
    }
};

TEST_F(NotHostedTest, AKnownPartitionHostedElsewhereIsNotLed) {
    EXPECT_EQ(produce_error("moved", 1), kNotLeader);
    EXPECT_EQ(fetch_error("moved", 1), kNotLeader);
    EXPECT_EQ(list_offsets_error("moved", 1, 0), kNotLeader);
    EXPECT_EQ(list_offsets_error("moved", 1, 4), kNotLeader);
    EXPECT_EQ(epoch_error("moved", 1), kNotLeader);
    EXPECT_EQ(delete_records_error("moved", 1), kNotLeader);
    EXPECT_EQ(describe_producers_error("moved", 1), kNotLeader);
}

TEST_F(NotHostedTest, APartitionNobodyKnowsIsUnknown) {
    for (const auto& [topic, partition] :
         {std::pair<std::string, std::int32_t>{"moved", 2}, {"moved", -1}, {"nope", 0}}) {
        SCOPED_TRACE(topic + "-" + std::to_string(partition));
        EXPECT_EQ(produce_error(topic, partition), kUnknown);
        EXPECT_EQ(fetch_error(topic, partition), kUnknown);
        EXPECT_EQ(list_offsets_error(topic, partition, 0), kUnknown);
        EXPECT_EQ(list_offsets_error(topic, partition, 4), kUnknown);
        EXPECT_EQ(epoch_error(topic, partition), kUnknown);
        EXPECT_EQ(delete_records_error(topic, partition), kUnknown);
        EXPECT_EQ(describe_producers_error(topic, partition), kUnknown);
    }
}

TEST_F(NotHostedTest, TheHostedPartitionAnswers) {
    EXPECT_EQ(produce_error("moved", 0), 0);
    EXPECT_EQ(fetch_error("moved", 0), 0);
    EXPECT_EQ(list_offsets_error("moved", 0, 4), 0);
    EXPECT_EQ(epoch_error("moved", 0), 0);
    EXPECT_EQ(delete_records_error("moved", 0), 0);
    EXPECT_EQ(describe_producers_error("moved", 0), 0);
}

}  // namespace
}  // namespace weir::handlers::test
