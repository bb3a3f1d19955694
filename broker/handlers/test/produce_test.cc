// Produce to a compacted topic: records without a key are refused as Kafka's
// LogValidator refuses them.
#include "broker/handlers/test/handler_fixture.h"

namespace weir::handlers::test {
namespace {

wire::Bytes batch_with_keys(const std::vector<std::optional<std::string>>& keys) {
    records::BatchBuilderOptions options;
    options.base_timestamp = 1000;
    std::vector<records::Record> recs;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        records::Record r;
        r.offset_delta = static_cast<std::int32_t>(i);
        if (keys[i]) r.key = wire::Bytes(keys[i]->begin(), keys[i]->end());
        r.value = wire::Bytes{'v'};
        recs.push_back(std::move(r));
    }
    return records::build_batch(options, recs);
}

class ProduceHandlerTest : public HandlerTest {
protected:
    void SetUp() override {
        create_topic("compacted", 1, {{"cleanup.policy", "compact"}});
        create_topic("plain");
        ASSERT_TRUE(log("compacted", 0)->config().cleanup_compact);
    }
};

TEST_F(ProduceHandlerTest, CompactedTopicRefusesRecordsWithoutKey) {
    auto r = call(produce_request("compacted", batch_with_keys({"a", std::nullopt, "b", std::nullopt})), 9);
    const auto& p = r.responses.at(0).partition_responses.at(0);
    EXPECT_EQ(p.error_code, to_int(ErrorCode::invalid_record));
    EXPECT_EQ(p.base_offset, -1);
    ASSERT_EQ(p.record_errors.size(), 2u);
    EXPECT_EQ(p.record_errors[0].batch_index, 1);
    EXPECT_EQ(p.record_errors[1].batch_index, 3);
    const std::string why = "Compacted topic cannot accept message without key in topic partition compacted-0.";
    EXPECT_EQ(p.record_errors[0].batch_index_error_message, why);
    EXPECT_EQ(p.error_message,
              "One or more records have been rejected due to 2 record errors in total, and only showing the first "
              "three errors at most: [RecordError(batchIndex=1, message='" +
                  why + "'), RecordError(batchIndex=3, message='" + why + "')]");
    EXPECT_EQ(log("compacted", 0)->log_end_offset(), 0);
}

TEST_F(ProduceHandlerTest, KeyedRecordsAndPlainTopicsAreAccepted) {
    auto keyed = call(produce_request("compacted", batch_with_keys({"a", "b"})), 9);
    EXPECT_EQ(keyed.responses.at(0).partition_responses.at(0).error_code, 0);
    EXPECT_EQ(log("compacted", 0)->log_end_offset(), 2);
    auto plain = call(produce_request("plain", batch_with_keys({std::nullopt})), 9);
    EXPECT_EQ(plain.responses.at(0).partition_responses.at(0).error_code, 0);
    EXPECT_EQ(log("plain", 0)->log_end_offset(), 1);
}

}  // namespace
}  // namespace weir::handlers::test
