#include "cli/topics/topic_filter.h"

#include <gtest/gtest.h>

#include "cli/topics/topics_errors.h"

namespace weir::cli::topics {
namespace {

using Names = std::vector<std::string>;

const Names kAll = {"__consumer_offsets", "orders", "orders.eu", "orders_eu", "ordersx", "payments"};

Names select(const std::string& include, bool exclude_internal = false) {
    return select_topics(kAll, include, exclude_internal);
}

TEST(TopicFilter, PlainNameMatchesTheWholeName) {
    EXPECT_EQ(select("orders"), Names{"orders"});
    EXPECT_EQ(select("order"), Names{});
}

TEST(TopicFilter, JavaRegularExpressions) {
    // '.' is a wildcard unless escaped, as kafka-topics.sh's help warns.
    EXPECT_EQ(select("orders.eu"), (Names{"orders.eu", "orders_eu"}));
    EXPECT_EQ(select("orders\\.eu"), Names{"orders.eu"});
    EXPECT_EQ(select("orders.*"), (Names{"orders", "orders.eu", "orders_eu", "ordersx"}));
    EXPECT_EQ(select("(orders|payments)"), (Names{"orders", "payments"}));
    EXPECT_EQ(select("orders|orders.eu"), (Names{"orders", "orders.eu", "orders_eu"}));  // whole-name match
    EXPECT_EQ(select("__.*"), Names{"__consumer_offsets"});
    EXPECT_EQ(select("[a-z]+"), (Names{"orders", "ordersx", "payments"}));
}

TEST(TopicFilter, KafkasCleanUp) {
    // Commas mean "or"; spaces and quotes around the expression are dropped.
    EXPECT_EQ(select("orders, payments"), (Names{"orders", "payments"}));
    EXPECT_EQ(select("\"orders\""), Names{"orders"});
    EXPECT_EQ(select("  'payments'  "), Names{"payments"});
    EXPECT_EQ(TopicFilter(" \"a, b\" ").regex(), "a|b");
}

TEST(TopicFilter, QuotingAndCaseInsensitivity) {
    EXPECT_EQ(select("\\Qorders.eu\\E"), Names{"orders.eu"});
    EXPECT_EQ(select("\\Qorders.\\E.*"), (Names{"orders.eu"}));
    EXPECT_EQ(select("(?i)ORDERS"), Names{"orders"});
    bool icase = false;
    EXPECT_EQ(ecmascript_from_java("\\Qa.b(c)\\E|d", icase), "a\\.b\\(c\\)|d");
    EXPECT_FALSE(icase);
}

TEST(TopicFilter, ExcludeInternal) {
    EXPECT_EQ(select(".*", true), (Names{"orders", "orders.eu", "orders_eu", "ordersx", "payments"}));
    EXPECT_EQ(select_topics(kAll, std::nullopt, true).size(), kAll.size() - 1);
    EXPECT_EQ(select_topics(kAll, std::nullopt, false), kAll);
    EXPECT_TRUE(is_internal_topic("__transaction_state"));
    EXPECT_FALSE(is_internal_topic("__other"));
}

TEST(TopicFilter, InvalidRegexIsACommandError) {
    try {
        TopicFilter f("orders(");
        ADD_FAILURE() << "accepted";
    } catch (const CommandError& e) {
        EXPECT_STREQ(e.what(), "orders( is an invalid regex.");
    }
}

}  // namespace
}  // namespace weir::cli::topics
