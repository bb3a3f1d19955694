#include "broker/metadata/zookeeper/zk_client.h"

#include <gtest/gtest.h>

#include "broker/metadata/zookeeper/test/zookeeper_server.h"

namespace weir::zk {
namespace {

TEST(ZkChroot, Splits) {
    EXPECT_EQ(split_chroot("h:1,h:2"), (std::pair<std::string, std::string>{"h:1,h:2", ""}));
    EXPECT_EQ(split_chroot("h:1/kafka/"), (std::pair<std::string, std::string>{"h:1", "/kafka"}));
    EXPECT_EQ(split_chroot("h:1/"), (std::pair<std::string, std::string>{"h:1", ""}));
}

class ZkClientTest : public ::testing::Test {
protected:
    static void SetUpTestSuite() { server_ = std::make_unique<testing::ZooKeeperServer>(); }
    static void TearDownTestSuite() { server_.reset(); }
    static std::unique_ptr<testing::ZooKeeperServer> server_;
};
std::unique_ptr<testing::ZooKeeperServer> ZkClientTest::server_;

TEST_F(ZkClientTest, CreatesChrootAndOperates) {
    ZkClient client(
        {server_->fresh_chroot_connect(), std::chrono::milliseconds(6000), std::chrono::milliseconds(10000)});
    client.run_sync([](ZkSession& s) {
        EXPECT_EQ(s.create("/a", "1"), Result::ok);
        EXPECT_EQ(s.create("/a", "2"), Result::node_exists);
        auto n = s.get("/a");
        EXPECT_TRUE(n);
        if (!n) return 0;
        EXPECT_EQ(n->data, "1");
        EXPECT_EQ(s.set("/a", "3", n->version + 5), Result::bad_version);
        EXPECT_EQ(s.set("/a", "3", n->version), Result::ok);
        EXPECT_EQ(s.get("/a")->data, "3");
        s.ensure_path("/x/y/z");
        EXPECT_EQ(*s.children("/x"), std::vector<std::string>{"y"});
        // A multi-op is all or nothing.
        auto r = s.multi({Op::create("/m1", ""), Op::check("/a", 999)});
        EXPECT_EQ(r.result, Result::bad_version);
        EXPECT_EQ(r.failed_op, 1U);
        EXPECT_FALSE(s.exists("/m1"));
        EXPECT_EQ(s.multi({Op::create("/m1", ""), Op::check("/a", s.get("/a")->version)}).result, Result::ok);
        EXPECT_TRUE(s.exists("/m1"));
        s.remove_recursive("/x");
        EXPECT_FALSE(s.exists("/x"));
        std::string created;
        EXPECT_EQ(s.create("/seq_", "", CreateMode::persistent_sequential, &created), Result::ok);
        // The parent's child version, ten digits.
        EXPECT_EQ(created.size(), std::string("/seq_0000000000").size());
        EXPECT_TRUE(created.starts_with("/seq_00000000")) << created;
        return 0;
    });
}

TEST_F(ZkClientTest, WatchesAndEphemerals) {
    const auto connect = server_->fresh_chroot_connect();
    ZkClient a({connect, std::chrono::milliseconds(6000), std::chrono::milliseconds(10000)});
    std::mutex m;
    std::condition_variable cv;
    std::vector<std::string> seen;
    a.subscribe([&](ZkSession&, const WatchEvent& e) {
        if (e.type == WatchEvent::Type::session) return;
        std::lock_guard lock(m);
        seen.push_back(e.path);
        cv.notify_all();
    });
    a.run_sync([](ZkSession& s) {
        s.ensure_path("/ids");
        EXPECT_EQ(*s.children("/ids", true), std::vector<std::string>{});
        return 0;
    });
    {
        ZkClient b({connect, std::chrono::milliseconds(6000), std::chrono::milliseconds(10000)});
        b.run_sync([](ZkSession& s) { return s.create("/ids/1", "", CreateMode::ephemeral); });
        std::unique_lock lock(m);
        ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(10), [&] { return !seen.empty(); }));
        EXPECT_EQ(seen.front(), "/ids");
    }
    // Closing b's session removed its ephemeral node.
    EXPECT_EQ(*a.run_sync([](ZkSession& s) { return s.children("/ids"); }), std::vector<std::string>{});
}

TEST(ZkClientNoServer, ConnectTimesOut) {
    auto t0 = std::chrono::steady_clock::now();
    EXPECT_THROW(ZkClient({"127.0.0.1:1", std::chrono::milliseconds(6000), std::chrono::milliseconds(300)}), ZkError);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5));
}

}  // namespace
}  // namespace weir::zk
