#include <limits>

#include "broker/handlers/test/handler_fixture.h"

namespace weir::handlers::test {
namespace {

using DescribeClusterReq = msg::DescribeClusterRequest;

class DescribeClusterHandlerTest : public HandlerTest {};

TEST_F(DescribeClusterHandlerTest, DescribesBrokersOnTheRequestListener) {
    auto r = call(DescribeClusterReq{}, 0);
    EXPECT_EQ(r.error_code, 0);
    EXPECT_EQ(r.error_message, std::nullopt);
    EXPECT_EQ(r.cluster_id, store_->cluster_id());
    EXPECT_EQ(r.controller_id, kBrokerId);
    EXPECT_EQ(r.cluster_authorized_operations, std::numeric_limits<std::int32_t>::min());
    ASSERT_EQ(r.brokers.size(), 1u);
    EXPECT_EQ(r.brokers[0].broker_id, kBrokerId);
    EXPECT_EQ(r.brokers[0].host, "broker.example");
    EXPECT_EQ(r.brokers[0].port, 19092);
    EXPECT_EQ(r.brokers[0].rack, "rack-a");

    auto internal = call(DescribeClusterReq{}, 1, "INTERNAL");
    ASSERT_EQ(internal.brokers.size(), 1u);
    EXPECT_EQ(internal.brokers[0].host, "internal.example");
    EXPECT_EQ(internal.endpoint_type, 1);
}

TEST_F(DescribeClusterHandlerTest, AuthorizedOperationsOnRequest) {
    DescribeClusterReq r;
    r.include_cluster_authorized_operations = true;
    EXPECT_EQ(call(r, 0).cluster_authorized_operations, 8096);
    EXPECT_EQ(call(r, 1).cluster_authorized_operations, 8096);
}

TEST_F(DescribeClusterHandlerTest, EndpointTypes) {
    DescribeClusterReq controller;
    controller.endpoint_type = 2;
    auto mismatched = call(controller, 1);
    EXPECT_EQ(mismatched.error_code, to_int(ErrorCode::mismatched_endpoint_type));
    EXPECT_TRUE(mismatched.brokers.empty());
    EXPECT_EQ(mismatched.cluster_id, "");
    EXPECT_EQ(mismatched.controller_id, -1);
    DescribeClusterReq unknown;
    unknown.endpoint_type = 5;
    auto unsupported = call(unknown, 1);
    EXPECT_EQ(unsupported.error_code, to_int(ErrorCode::unsupported_endpoint_type));
    EXPECT_EQ(unsupported.error_message, "Unsupported endpoint type 5");
    // v0 cannot carry the field: it is a broker request.
    EXPECT_EQ(call(controller, 0).error_code, 0);
}

}  // namespace
}  // namespace weir::handlers::test
