#include "broker/admin/router.h"

#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/json/parse.hpp>
#include <stdexcept>

namespace weir::admin {
namespace {

using Task = boost::asio::awaitable<HttpResponse>;

HttpResponse route(const Router& router, std::string method, std::string target) {
    boost::asio::io_context io;
    HttpRequest request{std::move(method), std::move(target), {}};
    auto result = boost::asio::co_spawn(io, router.route(request), boost::asio::use_future);
    io.run();
    return result.get();
}

std::string error_message(const HttpResponse& r) {
    return std::string(boost::json::parse(r.body).at("error").at("message").as_string());
}

Router test_router() {
    Router r;
    r.add("GET", "/v1/topics",
          [](const HttpRequest&, const PathParams&) -> Task { co_return text_response(200, "list"); });
    r.add("GET", "/v1/topics/{name}",
          [](const HttpRequest&, const PathParams& p) -> Task { co_return text_response(200, "topic:" + p.at(0)); });
    r.add("POST", "/v1/faults", [](const HttpRequest& req, const PathParams&) -> Task {
        co_return text_response(201, "posted:" + req.body);
    });
    r.add("GET", "/boom", [](const HttpRequest&, const PathParams&) -> Task {
        throw std::runtime_error("boom");
        co_return text_response(200, "unreachable");
    });
    return r;
}

TEST(SplitPathTest, SegmentsArePercentDecodedAndTheQueryDropped) {
    EXPECT_EQ(split_path("/v1/topics"), (std::vector<std::string>{"v1", "topics"}));
    EXPECT_EQ(split_path("/v1/groups/a%2Fb%20c?x=1#f"), (std::vector<std::string>{"v1", "groups", "a/b c"}));
    EXPECT_EQ(split_path("/"), (std::vector<std::string>{""}));
    EXPECT_EQ(split_path("/a/"), (std::vector<std::string>{"a", ""}));
    EXPECT_FALSE(split_path("v1/topics").has_value());
    EXPECT_FALSE(split_path("http://host/v1").has_value());
    EXPECT_FALSE(split_path("").has_value());
    EXPECT_FALSE(split_path("/a%2").has_value());
    EXPECT_FALSE(split_path("/a%zz").has_value());
}

TEST(RouterTest, RoutesByMethodAndPathWithParameters) {
    auto router = test_router();
    auto list = route(router, "GET", "/v1/topics");
    EXPECT_EQ(list.status, 200u);
    EXPECT_EQ(list.body, "list");
    auto one = route(router, "GET", "/v1/topics/my.topic-1");
    EXPECT_EQ(one.status, 200u);
    EXPECT_EQ(one.body, "topic:my.topic-1");
    EXPECT_EQ(route(router, "GET", "/v1/topics/a%2Fb?verbose").body, "topic:a/b");
}

TEST(RouterTest, UnknownPathsAre404AsJson) {
    auto router = test_router();
    for (const char* target : {"/", "/v1", "/v1/topics/a/b", "/v1/topics/", "/V1/topics", "/healthz"}) {
        auto r = route(router, "GET", target);
        EXPECT_EQ(r.status, 404u) << target;
        EXPECT_EQ(r.content_type, "application/json") << target;
        EXPECT_EQ(error_message(r), "no such endpoint") << target;
    }
}

TEST(RouterTest, KnownPathWithAnotherMethodIs405WithAllow) {
    auto router = test_router();
    auto r = route(router, "DELETE", "/v1/topics/t");
    EXPECT_EQ(r.status, 405u);
    ASSERT_EQ(r.headers.size(), 1u);
    EXPECT_EQ(r.headers[0].first, "Allow");
    EXPECT_EQ(r.headers[0].second, "GET");
    EXPECT_EQ(route(router, "GET", "/v1/faults").status, 405u);
}

TEST(RouterTest, MalformedTargetIs400AndAThrowingEndpoint500) {
    auto router = test_router();
    EXPECT_EQ(route(router, "GET", "/v1/topics/%G0").status, 400u);
    EXPECT_EQ(route(router, "GET", "*").status, 400u);
    auto boom = route(router, "GET", "/boom");
    EXPECT_EQ(boom.status, 500u);
    EXPECT_EQ(error_message(boom), "internal error");
}

TEST(RouterTest, EndpointSeesTheBody) {
    boost::asio::io_context io;
    auto router = test_router();
    HttpRequest request{"POST", "/v1/faults", "{\"a\":1}"};
    auto result = boost::asio::co_spawn(io, router.route(request), boost::asio::use_future);
    io.run();
    auto r = result.get();
    EXPECT_EQ(r.status, 201u);
    EXPECT_EQ(r.body, "posted:{\"a\":1}");
}

}  // namespace
}  // namespace weir::admin
