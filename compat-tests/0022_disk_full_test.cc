// A full disk, as a user meets it: a broker whose log.dirs is a small tmpfs
// filled to the brim. Producers get KAFKA_STORAGE_ERROR and no acknowledged
// message is lost; no segment keeps a partial batch (weir dump-log --verify);
// DeleteTopics still works and frees the space; the broker keeps serving and
// a SIGTERM on the full disk exits 0. Needs permission to mount a tmpfs
// (root, or CAP_SYS_ADMIN); skipped with a message otherwise.
#include <gtest/gtest.h>
#include <sys/mount.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>

#include "broker/common/temp_dir.h"
#include "harness/admin.h"
#include "harness/broker_process.h"
#include "harness/kafka_client.h"
#include "harness/subprocess.h"

namespace weir::compat {
namespace {

using namespace std::chrono_literals;

// A tmpfs of `megabytes` mounted on a fresh directory while it lives.
class SmallFileSystem {
public:
    explicit SmallFileSystem(int megabytes) : dir_("weir-full") {
        const std::string options = "size=" + std::to_string(megabytes) + "m";
        if (::mount("tmpfs", dir_.path().c_str(), "tmpfs", 0, options.c_str()) == 0)
            mounted_ = true;
        else
            error_ = std::strerror(errno);
    }
    ~SmallFileSystem() {
        if (mounted_) ::umount2(dir_.path().c_str(), MNT_DETACH);
    }
    SmallFileSystem(const SmallFileSystem&) = delete;
    SmallFileSystem& operator=(const SmallFileSystem&) = delete;

    [[nodiscard]] bool mounted() const { return mounted_; }
    [[nodiscard]] const std::string& error() const { return error_; }
    [[nodiscard]] std::filesystem::path path() const { return dir_.path(); }

    // Writes a filler file until the file system refuses; returns its bytes.
    std::size_t fill() {
        std::ofstream out(path() / "filler", std::ios::binary);
        const std::string block(4096, 'f');
        std::size_t written = 0;
        for (int i = 0; i < 1'000'000 && out; ++i) {  // bounded: 4 GB at most
            out.write(block.data(), static_cast<std::streamsize>(block.size()));
            out.flush();
            if (out) written += block.size();
        }
        return written;
    }
    void unfill() { std::filesystem::remove(path() / "filler"); }

private:
    TempDir dir_;
    bool mounted_ = false;
    std::string error_;
};

TEST(DiskFull, StorageErrorsNoLossDeletionFreesSpaceAndACleanExit) {
    SmallFileSystem fs(16);
    if (!fs.mounted()) GTEST_SKIP() << "cannot mount a tmpfs here (" << fs.error() << "): needs root or CAP_SYS_ADMIN";
    const auto data = fs.path() / "data";
    BrokerProcess broker({.overrides = {{"log.dirs", data.string()}, {"log.segment.bytes", "4194304"}}});
    broker.start();
    Admin admin(broker.bootstrap());
    ASSERT_EQ(admin.create_topic("big", 1).err, RD_KAFKA_RESP_ERR_NO_ERROR);
    ASSERT_EQ(admin.create_topic("small", 1).err, RD_KAFKA_RESP_ERR_NO_ERROR);

    // 24 MB into 16 MB: the first ones are stored, the rest refused.
    std::vector<OutMessage> messages;
    for (int i = 0; i < 400; ++i)
        messages.push_back({"big", 0, std::nullopt, std::to_string(i) + std::string(60000, 'x')});
    auto deliveries = produce_all(broker.bootstrap(), messages, {{"acks", "all"}, {"message.timeout.ms", "5000"}}, 60s);
    std::set<std::string> acknowledged;
    std::size_t storage_errors = 0;
    for (std::size_t i = 0; i < deliveries.size(); ++i) {
        if (deliveries[i].err == RdKafka::ERR_NO_ERROR) acknowledged.insert(std::to_string(i));
        if (deliveries[i].err == RdKafka::ERR_KAFKA_STORAGE_ERROR || deliveries[i].err == RdKafka::ERR__MSG_TIMED_OUT)
            ++storage_errors;
    }
    EXPECT_GT(acknowledged.size(), 50u);
    EXPECT_GT(storage_errors, 0u) << "the disk never filled up";
    fs.fill();  // to the last byte
    EXPECT_TRUE(broker.running());

    // The acknowledged ones are all there, once.
    auto consumed = consume_all(broker.bootstrap(), {{"big", 0}}, acknowledged.size() + 10, 20s);
    std::set<std::string> seen;
    for (const auto& m : consumed) seen.insert(m.value->substr(0, m.value->find('x')));
    EXPECT_EQ(consumed.size(), acknowledged.size());
    EXPECT_EQ(seen, acknowledged);

    // A failed append leaves no partial batch behind.
    auto verified = run_process({weir_binary(), "dump-log", "--verify", (data / "big-0").string()}, 60s);
    EXPECT_EQ(verified.exit_code, 0) << verified.describe();

    // Producing on the full disk is refused cleanly, not half-done.
    auto refused = produce_all(broker.bootstrap(), {{"small", 0, std::nullopt, "too much", {}, 0}},
                               {{"message.timeout.ms", "3000"}}, 20s);
    ASSERT_EQ(refused.size(), 1u);
    EXPECT_NE(refused[0].err, RdKafka::ERR_NO_ERROR);

    // The Kafka API can free space on the full disk.
    auto deleted = admin.delete_topic("big");
    EXPECT_EQ(deleted.err, RD_KAFKA_RESP_ERR_NO_ERROR) << deleted.describe();
    auto after = produce_all(broker.bootstrap(), {{"small", 0, std::nullopt, "fits now", {}, 0}},
                             {{"message.timeout.ms", "10000"}}, 20s);
    EXPECT_EQ(after[0].err, RdKafka::ERR_NO_ERROR) << err_name(after[0].err);

    // A SIGTERM on a full disk loses nothing and exits 0.
    fs.fill();
    EXPECT_EQ(broker.stop(), 0);
    fs.unfill();
    broker.start();
    auto small = consume_all(broker.bootstrap(), {{"small", 0}}, 1, 20s);
    ASSERT_EQ(small.size(), 1u);
    EXPECT_EQ(small[0].value, "fits now");
}

}  // namespace
}  // namespace weir::compat
