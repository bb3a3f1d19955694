#include "protocol/errors.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace weir {
namespace {

TEST(Errors, CodesMatchKafka) {
    EXPECT_EQ(to_int(ErrorCode::unknown_server_error), -1);
    EXPECT_EQ(to_int(ErrorCode::none), 0);
    EXPECT_EQ(to_int(ErrorCode::offset_out_of_range), 1);
    EXPECT_EQ(to_int(ErrorCode::not_leader_or_follower), 6);
    EXPECT_EQ(to_int(ErrorCode::not_coordinator), 16);
    EXPECT_EQ(to_int(ErrorCode::rebalance_in_progress), 27);
    EXPECT_EQ(to_int(ErrorCode::unsupported_version), 35);
    EXPECT_EQ(to_int(ErrorCode::member_id_required), 79);
    EXPECT_EQ(to_int(ErrorCode::unknown_topic_id), 100);
    EXPECT_EQ(to_int(ErrorCode::transaction_abortable), 120);
    EXPECT_EQ(to_int(ErrorCode::share_session_limit_reached), 133);
    EXPECT_EQ(to_int(ErrorCode::controller_id_not_registered), 136);
}

TEST(Errors, NamesAreKafkasExactNames) {
    EXPECT_EQ(error_name(ErrorCode::unknown_server_error), "UNKNOWN_SERVER_ERROR");
    EXPECT_EQ(error_name(ErrorCode::none), "NONE");
    EXPECT_EQ(error_name(ErrorCode::offset_out_of_range), "OFFSET_OUT_OF_RANGE");
    EXPECT_EQ(error_name(ErrorCode::invalid_topic_exception), "INVALID_TOPIC_EXCEPTION");
    EXPECT_EQ(error_name(ErrorCode::fetch_session_topic_id_error), "FETCH_SESSION_TOPIC_ID_ERROR");
}

TEST(Errors, RetriableMatchesKafka) {
    EXPECT_TRUE(is_retriable(ErrorCode::unknown_topic_or_partition));
    EXPECT_TRUE(is_retriable(ErrorCode::not_leader_or_follower));
    EXPECT_TRUE(is_retriable(ErrorCode::coordinator_load_in_progress));
    EXPECT_TRUE(is_retriable(ErrorCode::not_coordinator));
    EXPECT_TRUE(is_retriable(ErrorCode::corrupt_message));
    EXPECT_TRUE(is_retriable(ErrorCode::kafka_storage_error));
    EXPECT_FALSE(is_retriable(ErrorCode::none));
    EXPECT_FALSE(is_retriable(ErrorCode::unknown_server_error));
    EXPECT_FALSE(is_retriable(ErrorCode::offset_out_of_range));
    EXPECT_FALSE(is_retriable(ErrorCode::rebalance_in_progress));
    EXPECT_FALSE(is_retriable(ErrorCode::broker_not_available));
    EXPECT_FALSE(is_retriable(ErrorCode::producer_fenced));
}

TEST(Errors, EveryCodeRoundTripsThroughItsName) {
    std::set<std::string> seen;
    for (int code = kMinErrorCode; code <= kMaxErrorCode; ++code) {
        const auto e = error_from_code(static_cast<std::int16_t>(code));
        ASSERT_EQ(to_int(e), code);
        const auto name = error_name(e);
        ASSERT_FALSE(name.empty()) << code;
        EXPECT_TRUE(seen.insert(std::string(name)).second) << "duplicate name " << name;
        const auto back = error_from_name(name);
        ASSERT_TRUE(back.has_value()) << name;
        EXPECT_EQ(*back, e);
        EXPECT_EQ(error_message(e).empty(), e == ErrorCode::none) << name;
    }
}

TEST(Errors, UnknownCodesActLikeUnknownServerError) {
    EXPECT_FALSE(is_known_error_code(137));
    EXPECT_FALSE(is_known_error_code(-2));
    EXPECT_EQ(error_from_code(999), ErrorCode::unknown_server_error);
    EXPECT_EQ(error_from_code(-2), ErrorCode::unknown_server_error);
    EXPECT_EQ(error_name(static_cast<ErrorCode>(999)), "UNKNOWN_SERVER_ERROR");
    EXPECT_FALSE(error_from_name("offset_out_of_range").has_value());
    EXPECT_FALSE(error_from_name("").has_value());
}

}  // namespace
}  // namespace weir
