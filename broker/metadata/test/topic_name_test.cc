#include "broker/metadata/topic_name.h"

#include <gtest/gtest.h>

namespace weir::metadata {
namespace {

TEST(TopicNameTest, Valid) {
    EXPECT_FALSE(validate_topic_name("orders"));
    EXPECT_FALSE(validate_topic_name("a.b_c-D9"));
    EXPECT_FALSE(validate_topic_name("..."));
    EXPECT_FALSE(validate_topic_name("__consumer_offsets"));
    EXPECT_FALSE(validate_topic_name(std::string(249, 'x')));
}

TEST(TopicNameTest, Invalid) {
    EXPECT_EQ(validate_topic_name(""), "Topic name is illegal, it can't be empty");
    EXPECT_EQ(validate_topic_name("."), "Topic name cannot be \".\" or \"..\"");
    EXPECT_EQ(validate_topic_name(".."), "Topic name cannot be \".\" or \"..\"");
    EXPECT_TRUE(validate_topic_name(std::string(250, 'x')));
    EXPECT_TRUE(validate_topic_name("a b"));
    EXPECT_TRUE(validate_topic_name("a/b"));
    EXPECT_TRUE(validate_topic_name("caf\xC3\xA9"));
    EXPECT_EQ(
        validate_topic_name("a:b"),
        "Topic name \"a:b\" is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'");
}

TEST(TopicNameTest, InternalAndCollisions) {
    EXPECT_TRUE(is_internal_topic("__consumer_offsets"));
    EXPECT_TRUE(is_internal_topic("__transaction_state"));
    EXPECT_FALSE(is_internal_topic("__consumer_offsets2"));
    EXPECT_TRUE(topic_names_collide("a.b", "a_b"));
    EXPECT_TRUE(topic_names_collide("a.b", "a.b"));
    EXPECT_FALSE(topic_names_collide("a.b", "a-b"));
    EXPECT_FALSE(topic_names_collide("a.b", "a.bc"));
}

}  // namespace
}  // namespace weir::metadata
