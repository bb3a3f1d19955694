// Produce through Kafka's LogValidator: records without a key refused on a
// compacted topic, CreateTime timestamps outside a topic's bounds refused,
// batches stored in the topic's compression.type.
#include <chrono>

#include "broker/handlers/test/handler_fixture.h"
#include "messages/fetch.h"

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

// Records at these CreateTimes (ms), one batch.
wire::Bytes batch_at(const std::vector<std::int64_t>& timestamps) {
    records::BatchBuilderOptions options;
    options.base_timestamp = timestamps.front();
    std::vector<records::Record> recs;
    for (std::size_t i = 0; i < timestamps.size(); ++i) {
        records::Record r;
        r.offset_delta = static_cast<std::int32_t>(i);
        r.timestamp_delta = timestamps[i] - timestamps.front();
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

TEST_F(ProduceHandlerTest, CreateTimesOutsideTheTopicsBoundsAreRefused) {
    constexpr std::int64_t kHour = 3'600'000;
    create_topic("bounded", 1, {{"message.timestamp.before.max.ms", "3600000"}});
    const std::int64_t now = now_ms();
    auto r = call(produce_request("bounded", batch_at({now, now - 2 * kHour, now + 10 * kHour, now - 3 * kHour})), 9);
    const auto& p = r.responses.at(0).partition_responses.at(0);
    EXPECT_EQ(p.error_code, to_int(ErrorCode::invalid_timestamp));
    ASSERT_EQ(p.record_errors.size(), 2u);  // no bound ahead: now + 10 h is accepted
    EXPECT_EQ(p.record_errors[0].batch_index, 1);
    EXPECT_EQ(p.record_errors[1].batch_index, 3);
    EXPECT_TRUE(p.record_errors[0].batch_index_error_message->starts_with(
        "Timestamp " + std::to_string(now - 2 * kHour) + " of message with offset 1 is out of range."))
        << *p.record_errors[0].batch_index_error_message;
    EXPECT_TRUE(p.error_message.has_value());
    EXPECT_EQ(log("bounded", 0)->log_end_offset(), 0);

    auto fine = call(produce_request("bounded", batch_at({now, now + 10 * kHour})), 9);
    EXPECT_EQ(fine.responses.at(0).partition_responses.at(0).error_code, 0);
}

// The deprecated difference.max.ms bounds both sides while neither new key is set.
TEST_F(ProduceHandlerTest, TimestampDifferenceBoundsBothSides) {
    create_topic("difference", 1, {{"message.timestamp.difference.max.ms", "60000"}});
    const std::int64_t now = now_ms();
    for (std::int64_t ts : {now - 3'600'000, now + 3'600'000}) {
        auto r = call(produce_request("difference", batch_at({ts})), 9);
        EXPECT_EQ(r.responses.at(0).partition_responses.at(0).error_code, to_int(ErrorCode::invalid_timestamp));
    }
    // Without bounds (Kafka's default) any CreateTime goes, however old.
    auto old = call(produce_request("plain", batch_at({1000})), 9);
    EXPECT_EQ(old.responses.at(0).partition_responses.at(0).error_code, 0);
}

class CompressionTypeTest : public ProduceHandlerTest {
protected:
    // What a consumer fetches from the start of partition 0: each batch's codec and keys.
    std::vector<std::pair<records::Compression, std::vector<std::string>>> stored(const std::string& topic) {
        msg::FetchRequest f;
        f.replica_id = -1;
        f.max_bytes = 1 << 20;
        f.session_epoch = -1;
        auto& t = f.topics.emplace_back();
        t.topic = topic;
        auto& p = t.partitions.emplace_back();
        p.partition_max_bytes = 1 << 20;
        const auto r = call(f, 12);
        std::vector<std::pair<records::Compression, std::vector<std::string>>> out;
        const auto& data = r.responses.at(0).partitions.at(0).records;
        if (!data) return out;
        records::for_each_batch(data->bytes(), false, [&](const records::BatchHeader& h, wire::ByteSpan batch) {
            auto& [codec, keys] = out.emplace_back(h.compression(), std::vector<std::string>{});
            for (const auto& rec : records::decode_records(batch)) keys.emplace_back(rec.key->begin(), rec.key->end());
        });
        return out;
    }
    static wire::Bytes keyed_batch(records::Compression codec) {
        records::BatchBuilderOptions options;
        options.base_timestamp = 1000;
        options.compression = codec;
        options.producer_id = 5;
        options.producer_epoch = 0;
        options.base_sequence = 0;
        std::vector<records::Record> recs(2);
        recs[0].key = wire::Bytes{'a'};
        recs[1].offset_delta = 1;
        recs[1].key = wire::Bytes{'b'};
        return records::build_batch(options, recs);
    }
};

TEST_F(CompressionTypeTest, ABatchIsStoredInTheTopicsCodec) {
    using records::Compression;
    create_topic("gz", 1, {{"compression.type", "gzip"}});
    create_topic("stored-plain", 1, {{"compression.type", "uncompressed"}});
    create_topic("asis", 1);  // producer, Kafka's default
    for (const auto* topic : {"gz", "stored-plain", "asis"}) {
        auto r = call(produce_request(topic, keyed_batch(Compression::lz4)), 9);
        ASSERT_EQ(r.responses.at(0).partition_responses.at(0).error_code, 0) << topic;
    }
    const std::vector<std::string> keys{"a", "b"};
    EXPECT_EQ(stored("gz"), (std::vector{std::pair{Compression::gzip, keys}}));
    EXPECT_EQ(stored("stored-plain"), (std::vector{std::pair{Compression::none, keys}}));
    EXPECT_EQ(stored("asis"), (std::vector{std::pair{Compression::lz4, keys}}));
    // The producer's fields survive the rebuild: its retry is a duplicate.
    auto retry = call(produce_request("gz", keyed_batch(Compression::lz4)), 9);
    EXPECT_EQ(retry.responses.at(0).partition_responses.at(0).base_offset, 0);
    EXPECT_EQ(stored("gz").size(), 1u);
}

}  // namespace
}  // namespace weir::handlers::test
