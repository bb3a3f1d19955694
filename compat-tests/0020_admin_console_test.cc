// The web console at GET / in headless Chromium (Debian's chromium): after a
// producer and a consumer group have been at work, the page the browser
// renders (its scripts having read the JSON API) shows the topic's partitions
// and the group with its committed offsets. A screenshot is kept as an
// artifact in the build tree (compat-tests/artifacts/console.png).
#include <gtest/gtest.h>

#include <filesystem>

#include "harness/admin.h"
#include "harness/broker_process.h"
#include "harness/http_client.h"
#include "harness/kafka_client.h"
#include "harness/subprocess.h"

namespace weir::compat {
namespace {

using namespace std::chrono_literals;

// Chromium's headless mode, with its scripts given 5 s of virtual time (they
// fetch the API and render); a bounded run either way.
ProcessResult chromium(const std::vector<std::string>& extra, const std::string& url) {
    std::vector<std::string> argv{WEIR_CHROMIUM,
                                  "--headless",
                                  "--no-sandbox",
                                  "--disable-gpu",
                                  "--disable-dev-shm-usage",
                                  "--virtual-time-budget=5000"};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.push_back(url);
    return run_process(argv, 90s, {.env = {{"HOME", std::filesystem::temp_directory_path().string()}}});
}

TEST(AdminConsole, ShowsTopicsAndGroupsInTheRenderedPage) {
    if (std::string(WEIR_CHROMIUM).empty()) GTEST_FAIL() << "chromium not found (scripts/install-deps.sh installs it)";
    BrokerProcess broker;
    broker.start();
    const std::string topic = "console-topic";
    Admin admin(broker.bootstrap());
    ASSERT_EQ(admin.create_topic(topic, 2).err, RD_KAFKA_RESP_ERR_NO_ERROR);
    std::vector<OutMessage> messages;
    for (int i = 0; i < 10; ++i) messages.push_back({topic, i % 2, std::nullopt, "v" + std::to_string(i), {}, 0});
    for (const auto& d : produce_all(broker.bootstrap(), messages)) ASSERT_EQ(d.err, RdKafka::ERR_NO_ERROR);
    {
        auto conf = make_conf(
            broker.bootstrap(),
            {{"group.id", "console-group"}, {"enable.auto.commit", "false"}, {"auto.offset.reset", "earliest"}});
        std::string err;
        std::unique_ptr<RdKafka::KafkaConsumer> consumer(RdKafka::KafkaConsumer::create(conf.get(), err));
        ASSERT_TRUE(consumer) << err;
        ASSERT_EQ(consumer->subscribe({topic}), RdKafka::ERR_NO_ERROR);
        int got = 0;
        const auto deadline = std::chrono::steady_clock::now() + 20s;
        while (got < 10 && std::chrono::steady_clock::now() < deadline) {
            std::unique_ptr<RdKafka::Message> m(consumer->consume(100));
            if (m->err() == RdKafka::ERR_NO_ERROR) ++got;
        }
        ASSERT_EQ(got, 10);
        ASSERT_EQ(consumer->commitSync(), RdKafka::ERR_NO_ERROR);
        consumer->close();
    }

    const auto url = "http://127.0.0.1:" + std::to_string(broker.admin_port()) + "/";
    auto page = http_get(broker.admin_port(), "/");
    EXPECT_EQ(page.status, 200);
    EXPECT_EQ(page.headers["content-type"], "text/html; charset=utf-8");
    EXPECT_EQ(page.body.find("http://"), std::string::npos) << "the page must not load anything from elsewhere";

    auto dom = chromium({"--dump-dom"}, url);
    ASSERT_EQ(dom.exit_code, 0) << dom.describe();
    // What the scripts rendered, not what the page's source says.
    EXPECT_NE(dom.out.find("<span class=\"topic\">" + topic + "</span>"), std::string::npos) << dom.out;
    EXPECT_NE(dom.out.find("<h3 class=\"group\">console-group"), std::string::npos) << dom.out;
    EXPECT_NE(dom.out.find("(single-node), broker 0"), std::string::npos) << dom.out;
    EXPECT_NE(dom.out.find("fault injection is off"), std::string::npos) << dom.out;

    const auto artifacts = std::filesystem::path(WEIR_COMPAT_BINARY_DIR) / "artifacts";
    std::filesystem::create_directories(artifacts);
    const auto png = artifacts / "console.png";
    std::filesystem::remove(png);
    auto shot = chromium({"--screenshot=" + png.string(), "--window-size=1280,1000"}, url);
    EXPECT_EQ(shot.exit_code, 0) << shot.describe();
    ASSERT_TRUE(std::filesystem::exists(png));
    EXPECT_GT(std::filesystem::file_size(png), 1000u);
}

}  // namespace
}  // namespace weir::compat
