// Kafka's ProducerIdBlockZNode payload and the order of blocks.
#include "broker/metadata/producer_id_block.h"

#include <gtest/gtest.h>

#include <limits>

namespace weir::metadata {
namespace {

TEST(ProducerIdBlock, EncodedAsKafkaWritesTheZnode) {
    EXPECT_EQ(encode_producer_id_block({2, 3000, kProducerIdBlockSize}),
              R"({"version":1,"broker":2,"block_start":"3000","block_end":"3999"})");
    EXPECT_EQ(decode_producer_id_block(R"({"version":1,"broker":2,"block_start":"3000","block_end":"3999"})"),
              (ProducerIdBlock{2, 3000, kProducerIdBlockSize}));
}

TEST(ProducerIdBlock, MalformedPayloadsAreRefused) {
    for (const char* bad :
         {"", "[]", R"({"broker":1,"block_start":1,"block_end":"5"})",
          R"({"broker":1,"block_start":"9","block_end":"5"})", R"({"broker":1,"block_start":"-1","block_end":"5"})",
          R"({"broker":1,"block_start":"x","block_end":"5"})", R"({"block_start":"0","block_end":"5"})"})
        EXPECT_THROW(decode_producer_id_block(bad), MetadataStoreError) << bad;
}

TEST(ProducerIdBlock, BlocksFollowEachOtherFromZero) {
    auto first = next_producer_id_block(std::nullopt, 4);
    ASSERT_TRUE(first);
    EXPECT_EQ(*first, (ProducerIdBlock{4, 0, kProducerIdBlockSize}));
    EXPECT_EQ(next_producer_id_block(ProducerIdBlock{1, 0, 1000}, 4)->first, 1000);
    const auto max = std::numeric_limits<std::int64_t>::max();
    EXPECT_FALSE(next_producer_id_block(ProducerIdBlock{1, max - 1500, 1000}, 4));
}

}  // namespace
}  // namespace weir::metadata
