// DescribeLogDirs: every dir with its partitions' sizes and its file system's
// space, the partitions asked for only; a dir whose disk failed answers
// KAFKA_STORAGE_ERROR, and so do its partitions, which Metadata lists as
// offline replicas without a leader here.
#include <gtest/gtest.h>

#include <map>

#include "broker/handlers/test/handler_fixture.h"
#include "broker/partitions/replica_manager.h"
#include "messages/describe_log_dirs.h"
#include "messages/metadata.h"

namespace weir::handlers {
namespace {

struct LogDirsTest : test::HandlerTest {
    LogDirsTest() { log_dirs_ = {dir_.path() / "one", dir_.path() / "two"}; }

    msg::DescribeLogDirsResponse describe(std::int16_t version,
                                          std::optional<std::vector<std::pair<std::string, std::vector<int>>>> topics) {
        msg::DescribeLogDirsRequest request;
        request.topics = std::nullopt;
        if (topics) {
            request.topics.emplace();
            for (const auto& [name, partitions] : *topics) {
                auto& t = request.topics->emplace_back();
                t.topic = name;
                t.partitions.assign(partitions.begin(), partitions.end());
            }
        }
        return call(std::move(request), version);
    }
    // Partition name ("t-0") -> size, per dir.
    static std::map<std::string, std::map<std::string, std::int64_t>> sizes(const msg::DescribeLogDirsResponse& r) {
        std::map<std::string, std::map<std::string, std::int64_t>> out;
        for (const auto& d : r.results) {
            auto& dir = out[d.log_dir];
            for (const auto& t : d.topics)
                for (const auto& p : t.partitions)
                    dir[t.name + "-" + std::to_string(p.partition_index)] = p.partition_size;
        }
        return out;
    }
};

TEST_F(LogDirsTest, EveryDirWithItsPartitionsAndSpace) {
    create_topic("t", 4);
    for (int p = 0; p < 4; ++p) produce("t", p, 3);
    for (std::int16_t v = 0; v <= 4; ++v) {
        auto r = describe(v, std::nullopt);
        ASSERT_EQ(r.results.size(), 2u) << "v" << v;
        auto by_dir = sizes(r);
        EXPECT_EQ(by_dir[log_dirs_[0].string()].size() + by_dir[log_dirs_[1].string()].size(), 4u);
        for (const auto& d : r.results) {
            EXPECT_EQ(d.error_code, 0);
            EXPECT_EQ(d.topics.size(), 1u);
            for (const auto& p : d.topics.at(0).partitions) {
                EXPECT_GT(p.partition_size, 0);
                EXPECT_EQ(p.offset_lag, 0);
                EXPECT_FALSE(p.is_future_key);
            }
            if (v >= 4) {
                EXPECT_GT(d.total_bytes, 0);
                EXPECT_GE(d.usable_bytes, 0);
                EXPECT_LE(d.usable_bytes, d.total_bytes);
            } else {
                EXPECT_EQ(d.total_bytes, -1);  // not on the wire before v4
            }
        }
    }
}

TEST_F(LogDirsTest, OnlyThePartitionsAskedFor) {
    create_topic("t", 2);
    create_topic("u", 2);
    auto r = describe(4, std::vector<std::pair<std::string, std::vector<int>>>{{"t", {1}}, {"nope", {0}}});
    std::size_t listed = 0;
    for (const auto& d : r.results)
        for (const auto& t : d.topics) {
            // As Kafka: no entry for a topic none of whose partitions was asked for.
            EXPECT_FALSE(t.partitions.empty()) << t.name;
            for (const auto& p : t.partitions) {
                EXPECT_EQ(t.name, "t");
                EXPECT_EQ(p.partition_index, 1);
                ++listed;
            }
        }
    EXPECT_EQ(listed, 1u);
}

TEST_F(LogDirsTest, ADirWhoseDiskFailedAnswersStorageError) {
    create_topic("t", 2);
    for (int p = 0; p < 2; ++p) produce("t", p, 3);
    const auto failed = core_->logs().dir_of({"t", 1});
    const TopicPartition gone =
        failed == core_->logs().dir_of({"t", 0}) ? TopicPartition{"t", 0} : TopicPartition{"t", 1};
    ASSERT_NE(core_->logs().dir_of({"t", 0}), core_->logs().dir_of({"t", 1}));
    std::filesystem::remove_all(failed);
    core_->logs().get(gone)->flush();
    core_->logs().checkpoint();
    core_->logs().wait_for_syncs();  // the checkpoint write fails in the background

    auto r = describe(4, std::nullopt);
    for (const auto& d : r.results) {
        const bool is_failed = d.log_dir == failed.string();
        EXPECT_EQ(d.error_code, is_failed ? to_int(ErrorCode::kafka_storage_error) : 0) << d.log_dir;
        EXPECT_EQ(d.topics.empty(), is_failed);
    }

    partitions::ProduceLimits limits;
    limits.produce_version = 9;
    auto batch = test::make_batch(1, 1000);
    EXPECT_EQ(partitions_->produce(gone, batch, limits).error, ErrorCode::kafka_storage_error);
    EXPECT_EQ(partitions_->produce({"t", 1 - gone.partition}, batch, limits).error, ErrorCode::none);

    msg::MetadataRequest request;
    request.topics.emplace().emplace_back().name = "t";
    auto m = call(std::move(request), 12);
    ASSERT_EQ(m.topics.size(), 1u);
    for (const auto& p : m.topics[0].partitions) {
        if (p.partition_index == gone.partition) {
            EXPECT_EQ(p.error_code, to_int(ErrorCode::leader_not_available));
            EXPECT_EQ(p.leader_id, -1);
            EXPECT_EQ(p.offline_replicas, std::vector<std::int32_t>{kBrokerId});
        } else {
            EXPECT_EQ(p.error_code, 0);
            EXPECT_EQ(p.leader_id, kBrokerId);
            EXPECT_TRUE(p.offline_replicas.empty());
        }
    }
}

}  // namespace
}  // namespace weir::handlers
