#include <gtest/gtest.h>

#include "broker/dispatch/dispatcher.h"

namespace weir::dispatch {
namespace {

TEST(ChangesMetadataTest, AdminAndAutoCreatingApisAreBarriers) {
    for (auto key :
         {msg::ApiKey::Metadata, msg::ApiKey::FindCoordinator, msg::ApiKey::CreateTopics, msg::ApiKey::DeleteTopics,
          msg::ApiKey::CreatePartitions, msg::ApiKey::AlterConfigs, msg::ApiKey::IncrementalAlterConfigs})
        EXPECT_TRUE(changes_metadata(static_cast<std::int16_t>(key))) << msg::api_name(key);
}

TEST(ChangesMetadataTest, DataAndGroupApisAreNot) {
    for (auto key :
         {msg::ApiKey::Produce, msg::ApiKey::Fetch, msg::ApiKey::ListOffsets, msg::ApiKey::OffsetCommit,
          msg::ApiKey::JoinGroup, msg::ApiKey::DescribeConfigs, msg::ApiKey::DeleteRecords, msg::ApiKey::ApiVersions})
        EXPECT_FALSE(changes_metadata(static_cast<std::int16_t>(key))) << msg::api_name(key);
    EXPECT_FALSE(changes_metadata(-1));
}

}  // namespace
}  // namespace weir::dispatch
