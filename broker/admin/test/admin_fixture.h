#pragma once
// A BrokerCore over a temp dir (the handler tests' fixture) with an
// AdminContext over it, and a way to run the admin coroutines on its loop.
#include <boost/asio/co_spawn.hpp>
#include <boost/json/parse.hpp>
#include <optional>

#include "broker/admin/admin_context.h"
#include "broker/admin/admin_routes.h"
#include "broker/handlers/test/handler_fixture.h"

namespace weir::admin::test {

class AdminTest : public handlers::test::HandlerTest {
protected:
    AdminContext& admin() {
        start();
        if (!admin_) admin_.emplace(AdminContext{*context_, core_->logs(), metrics_});
        return *admin_;
    }

    template <typename T>
    T run(boost::asio::awaitable<T> task) {
        std::optional<T> result;
        boost::asio::co_spawn(
            io_, [&]() -> boost::asio::awaitable<void> { result = co_await std::move(task); },
            [](std::exception_ptr e) {
                if (e) std::rethrow_exception(e);
            });
        io_.restart();
        io_.run();
        EXPECT_TRUE(result.has_value());
        return std::move(*result);
    }

    // One request through the admin routes, as the listener would pass it.
    HttpResponse get(const std::string& target, const std::string& method = "GET", std::string body = {}) {
        if (!router_) router_.emplace(make_router(admin()));
        HttpRequest request{method, target, std::move(body)};
        return run(router_->route(request));
    }

    static boost::json::value json_of(const HttpResponse& r) { return boost::json::parse(r.body); }

    metrics::MetricsRegistry metrics_;
    std::optional<AdminContext> admin_;
    std::optional<Router> router_;
};

}  // namespace weir::admin::test
