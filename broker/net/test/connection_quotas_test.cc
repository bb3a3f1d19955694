// max.connections, max.connections.per.ip and its overrides.
#include "broker/net/connection_quotas.h"

#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <stdexcept>
#include <vector>

namespace weir::net {
namespace {

namespace asio = boost::asio;
using asio::ip::make_address;

TEST(ConnectionQuotas, PerAddressLimitAndOverrides) {
    asio::io_context io;
    ConnectionQuotaConfig config;
    config.max_connections_per_ip = 2;
    config.per_ip_overrides = parse_per_ip_overrides("127.0.0.2:0, 127.0.0.3:3");
    auto quotas = std::make_shared<ConnectionQuotas>(io.get_executor(), config);
    auto a = make_address("127.0.0.1");
    std::vector<ConnectionSlot> slots;
    for (int i = 0; i < 2; ++i) {
        auto s = quotas->admit(a);
        ASSERT_TRUE(s);
        slots.push_back(std::move(*s));
    }
    EXPECT_FALSE(quotas->admit(a));
    EXPECT_FALSE(quotas->admit(make_address("127.0.0.2")));  // override 0: none at all
    for (int i = 0; i < 3; ++i) {
        auto s = quotas->admit(make_address("127.0.0.3"));
        ASSERT_TRUE(s) << i;
        slots.push_back(std::move(*s));
    }
    EXPECT_FALSE(quotas->admit(make_address("127.0.0.3")));
    EXPECT_EQ(quotas->open(), 5);
    slots.front().release();
    EXPECT_EQ(quotas->open(), 4);
    EXPECT_TRUE(quotas->admit(a));  // the temporary slot is released at once
    EXPECT_EQ(quotas->open(), 4);
}

TEST(ConnectionQuotas, AcceptingWaitsForASlotBelowMaxConnections) {
    asio::io_context io;
    ConnectionQuotaConfig config;
    config.max_connections = 1;
    auto quotas = std::make_shared<ConnectionQuotas>(io.get_executor(), config);
    auto slot = quotas->admit(make_address("::1"));
    ASSERT_TRUE(slot);
    bool got = false;
    auto waiter = [&]() -> asio::awaitable<void> {
        co_await quotas->wait_for_slot();
        got = true;
    };
    asio::co_spawn(io, waiter(), asio::detached);
    io.run_for(std::chrono::milliseconds(20));
    EXPECT_FALSE(got);
    slot->release();
    io.restart();
    io.run_for(std::chrono::milliseconds(20));
    EXPECT_TRUE(got);
}

TEST(ConnectionQuotas, SlotsOutlivingTheQuotasAreHarmless) {
    asio::io_context io;
    std::optional<ConnectionSlot> slot;
    {
        auto quotas = std::make_shared<ConnectionQuotas>(io.get_executor(), ConnectionQuotaConfig{});
        slot = quotas->admit(make_address("127.0.0.1"));
    }
    slot->release();
}

TEST(ConnectionQuotas, OverridesParseAsKafkaWritesThem) {
    auto parsed = parse_per_ip_overrides("localhost:5,10.0.0.1:7,[::1]:9");
    EXPECT_EQ(parsed.at(make_address("10.0.0.1")), 7);
    EXPECT_EQ(parsed.at(make_address("::1")), 9);
    EXPECT_EQ(parsed.at(make_address("127.0.0.1")), 5);
    EXPECT_TRUE(parse_per_ip_overrides("").empty());
    EXPECT_THROW(parse_per_ip_overrides("10.0.0.1"), std::invalid_argument);
    EXPECT_THROW(parse_per_ip_overrides("10.0.0.1:x"), std::invalid_argument);
    EXPECT_THROW(parse_per_ip_overrides("10.0.0.1:-1"), std::invalid_argument);
}

}  // namespace
}  // namespace weir::net
