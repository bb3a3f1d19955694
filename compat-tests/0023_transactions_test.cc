// Transactions with librdkafka: a transactional producer committing and
// aborting interleaved transactions, read_committed and read_uncommitted
// consumers checking what each sees, an open transaction holding
// read_committed back at the last stable offset, a zombie fenced by a new
// producer with the same transactional.id, a transaction outliving its
// timeout aborted by the coordinator, transaction.timeout.ms above the
// broker's maximum refused, and consume-transform-produce with
// sendOffsetsToTransaction staying exactly-once across a restart of the
// processing client and of the broker.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <filesystem>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "harness/admin.h"
#include "harness/broker_process.h"
#include "harness/kafka_client.h"
#include "harness/subprocess.h"
#include "harness/wait.h"

namespace weir::compat {
namespace {

using namespace std::chrono_literals;

constexpr int kPartitions = 2;

BrokerOptions txn_broker() {
    BrokerOptions o;
    o.overrides = {{"transaction.state.log.num.partitions", "4"},
                   {"offsets.topic.num.partitions", "4"},
                   {"group.initial.rebalance.delay.ms", "0"},
                   {"transaction.max.timeout.ms", "60000"},
                   // The timed-out transaction test waits for this sweep.
                   {"transaction.abort.timed.out.transaction.cleanup.interval.ms", "500"}};
    return o;
}

// A transactional producer whose every call is bounded; failures keep librdkafka's error.
class TxnProducer {
public:
    TxnProducer(const std::string& bootstrap, const std::string& transactional_id, ConfigMap extra = {}) {
        extra["transactional.id"] = transactional_id;
        producer_ = std::make_unique<Producer>(bootstrap, extra);
    }
    RdKafka::Error* init() { return handle().init_transactions(30000); }
    void begin() { expect_ok(handle().begin_transaction(), "begin_transaction"); }
    void send(const std::string& topic, int partition, const std::string& value) {
        producer_->send({topic, partition, std::nullopt, value, {}, 0});
    }
    RdKafka::Error* commit() { return handle().commit_transaction(30000); }
    RdKafka::Error* abort() { return handle().abort_transaction(30000); }
    RdKafka::Producer& handle() { return producer_->handle(); }
    Producer& producer() { return *producer_; }

    static void expect_ok(RdKafka::Error* error, const char* what) {
        EXPECT_EQ(error, nullptr) << what << ": " << (error ? error->str() : "");
        delete error;
    }

private:
    std::unique_ptr<Producer> producer_;
};

void create_topic(const BrokerProcess& broker, const std::string& topic) {
    Admin admin(broker.bootstrap());
    auto r = admin.create_topic(topic, kPartitions);
    ASSERT_EQ(r.err, RD_KAFKA_RESP_ERR_NO_ERROR) << r.describe();
}

// A subscribed group member that commits nothing itself (the producer does, in its transactions).
class GroupMember {
public:
    GroupMember(const std::string& bootstrap, const std::string& group, const std::string& topic) {
        auto conf = make_conf(bootstrap, {{"group.id", group},
                                          {"enable.auto.commit", "false"},
                                          {"auto.offset.reset", "earliest"},
                                          {"isolation.level", "read_committed"}});
        std::string err;
        consumer_.reset(RdKafka::KafkaConsumer::create(conf.get(), err));
        if (!consumer_) throw std::runtime_error("consumer: " + err);
        consumer_->subscribe({topic});
    }
    ~GroupMember() { consumer_->close(); }
    GroupMember(const GroupMember&) = delete;
    GroupMember& operator=(const GroupMember&) = delete;
    RdKafka::KafkaConsumer* operator->() { return consumer_.get(); }

private:
    std::unique_ptr<RdKafka::KafkaConsumer> consumer_;
};

std::vector<std::string> values(const std::vector<ConsumedMessage>& got) {
    std::vector<std::string> out;
    for (const auto& m : got) out.push_back(m.value.value_or("<null>"));
    return out;
}

// Everything a consumer at `isolation` reads from the start of `topic` within `timeout`,
// stopping once `expected` messages arrived (it keeps polling briefly for extras).
std::vector<ConsumedMessage> read_all(const std::string& bootstrap, const std::string& topic, const char* isolation,
                                      std::size_t expected) {
    Consumer c(bootstrap, {{"isolation.level", isolation}});
    std::vector<PartitionOffset> assignment;
    for (int p = 0; p < kPartitions; ++p) assignment.push_back({topic, p, RdKafka::Topic::OFFSET_BEGINNING});
    c.assign(assignment);
    auto got = c.consume(expected, 20s);
    // Nothing more may arrive: an extra message would be a record that should be hidden.
    auto extra = c.consume(1, 1500ms);
    got.insert(got.end(), extra.begin(), extra.end());
    return got;
}

TEST(Transactions, CommittedAndAbortedInterleaved) {
    BrokerProcess broker(txn_broker());
    broker.start();
    const std::string topic = "interleaved";
    create_topic(broker, topic);
    TxnProducer p(broker.bootstrap(), "interleaved-txn");
    TxnProducer::expect_ok(p.init(), "init_transactions");
    std::set<std::string> committed;
    std::set<std::string> all;
    for (int t = 0; t < 8; ++t) {
        p.begin();
        for (int i = 0; i < 10; ++i) {
            auto v = "t" + std::to_string(t) + "-" + std::to_string(i);
            p.send(topic, i % kPartitions, v);
            all.insert(v);
            if (t % 2 == 0) committed.insert(v);
        }
        // An abort purges what is still queued: flush so that aborted records are in the log too.
        ASSERT_TRUE(p.producer().flush(10s));
        if (t % 2 == 0)
            TxnProducer::expect_ok(p.commit(), "commit_transaction");
        else
            TxnProducer::expect_ok(p.abort(), "abort_transaction");
    }
    auto rc = values(read_all(broker.bootstrap(), topic, "read_committed", committed.size()));
    EXPECT_EQ(std::set<std::string>(rc.begin(), rc.end()), committed);
    EXPECT_EQ(rc.size(), committed.size()) << "a committed record was read twice";
    auto ru = values(read_all(broker.bootstrap(), topic, "read_uncommitted", all.size()));
    EXPECT_EQ(std::set<std::string>(ru.begin(), ru.end()), all);
    EXPECT_EQ(ru.size(), all.size()) << "control records must never reach the application";

    // Per partition, read_committed keeps the order the producer sent in.
    std::map<int, std::vector<std::string>> by_partition;
    for (const auto& m : read_all(broker.bootstrap(), topic, "read_committed", committed.size()))
        by_partition[m.partition].push_back(*m.value);
    for (const auto& [partition, vs] : by_partition) {
        auto sorted = vs;
        std::sort(sorted.begin(), sorted.end(), [](const std::string& a, const std::string& b) {
            auto txn = [](const std::string& s) { return std::stoi(s.substr(1, s.find('-') - 1)); };
            auto idx = [](const std::string& s) { return std::stoi(s.substr(s.find('-') + 1)); };
            return std::pair(txn(a), idx(a)) < std::pair(txn(b), idx(b));
        });
        EXPECT_EQ(vs, sorted) << "partition " << partition;
    }
}

TEST(Transactions, AnOpenTransactionHoldsReadCommittedBack) {
    BrokerProcess broker(txn_broker());
    broker.start();
    const std::string topic = "open";
    create_topic(broker, topic);
    // Plain records before and after the transaction's first record.
    ASSERT_EQ(produce_all(broker.bootstrap(), {{topic, 0, std::nullopt, "before", {}, 0}}).at(0).err,
              RdKafka::ERR_NO_ERROR);
    TxnProducer p(broker.bootstrap(), "open-txn");
    TxnProducer::expect_ok(p.init(), "init_transactions");
    p.begin();
    p.send(topic, 0, "inside");
    ASSERT_TRUE(p.producer().flush(10s));
    ASSERT_EQ(produce_all(broker.bootstrap(), {{topic, 0, std::nullopt, "after", {}, 0}}).at(0).err,
              RdKafka::ERR_NO_ERROR);

    // read_committed stops at the open transaction's first offset: "after" waits too.
    EXPECT_EQ(values(read_all(broker.bootstrap(), topic, "read_committed", 1)), std::vector<std::string>{"before"});
    EXPECT_EQ(values(read_all(broker.bootstrap(), topic, "read_uncommitted", 3)),
              (std::vector<std::string>{"before", "inside", "after"}));
    TxnProducer::expect_ok(p.commit(), "commit_transaction");
    EXPECT_EQ(values(read_all(broker.bootstrap(), topic, "read_committed", 3)),
              (std::vector<std::string>{"before", "inside", "after"}));
}

TEST(Transactions, ANewProducerFencesTheZombie) {
    BrokerProcess broker(txn_broker());
    broker.start();
    const std::string topic = "zombie";
    create_topic(broker, topic);
    TxnProducer zombie(broker.bootstrap(), "same-id");
    TxnProducer::expect_ok(zombie.init(), "init_transactions (zombie)");
    zombie.begin();
    zombie.send(topic, 0, "zombie-1");
    ASSERT_TRUE(zombie.producer().flush(10s));

    TxnProducer fresh(broker.bootstrap(), "same-id");
    TxnProducer::expect_ok(fresh.init(), "init_transactions (new instance)");
    fresh.begin();
    fresh.send(topic, 1, "fresh-1");
    TxnProducer::expect_ok(fresh.commit(), "commit_transaction (new instance)");

    // The zombie learns it was fenced: its commit fails fatally.
    zombie.send(topic, 0, "zombie-2");
    RdKafka::Error* error = zombie.commit();
    ASSERT_NE(error, nullptr) << "the fenced producer committed";
    EXPECT_TRUE(error->is_fatal()) << error->str();
    EXPECT_EQ(error->code(), RdKafka::ERR__FENCED) << error->str();
    delete error;

    EXPECT_EQ(values(read_all(broker.bootstrap(), topic, "read_committed", 1)), std::vector<std::string>{"fresh-1"});
}

TEST(Transactions, ATimedOutTransactionIsAborted) {
    BrokerProcess broker(txn_broker());
    broker.start();
    const std::string topic = "timeout";
    create_topic(broker, topic);
    TxnProducer p(broker.bootstrap(), "slow-txn",
                  {{"transaction.timeout.ms", "3000"}, {"socket.timeout.ms", "3000"}, {"message.timeout.ms", "3000"}});
    TxnProducer::expect_ok(p.init(), "init_transactions");
    p.begin();
    p.send(topic, 0, "too-late");
    ASSERT_TRUE(p.producer().flush(10s));
    // The coordinator aborts it: read_committed moves past it without showing it.
    ASSERT_EQ(produce_all(broker.bootstrap(), {{topic, 0, std::nullopt, "plain", {}, 0}}).at(0).err,
              RdKafka::ERR_NO_ERROR);
    EXPECT_TRUE(wait_until(
        [&] {
            return values(read_all(broker.bootstrap(), topic, "read_committed", 1)) ==
                   std::vector<std::string>{"plain"};
        },
        20s));
    RdKafka::Error* error = p.commit();
    EXPECT_NE(error, nullptr) << "a transaction the coordinator aborted committed";
    delete error;
    EXPECT_EQ(values(read_all(broker.bootstrap(), topic, "read_committed", 1)), std::vector<std::string>{"plain"});
}

TEST(Transactions, ATimeoutAboveTheBrokersMaximumIsRefused) {
    BrokerProcess broker(txn_broker());
    broker.start();
    TxnProducer p(broker.bootstrap(), "greedy", {{"transaction.timeout.ms", "120000"}});
    RdKafka::Error* error = p.init();
    ASSERT_NE(error, nullptr);
    EXPECT_EQ(error->code(), RdKafka::ERR_INVALID_TRANSACTION_TIMEOUT) << error->str();
    delete error;
}

// One pass of a consume-transform-produce loop: reads `in` as group `group`,
// writes "out-<value>" per record in transactions of `batch`, commits the
// input offsets in the same transaction. Walks away from the transaction that
// would pass `crash_after` records without ending it (a crash: the next
// instance's init_transactions must abort it) and returns how many it committed.
std::size_t process(const std::string& bootstrap, const std::string& in, const std::string& out,
                    const std::string& group, std::size_t batch, std::size_t crash_after) {
    GroupMember consumer(bootstrap, group, in);
    TxnProducer producer(bootstrap, "eos-processor");
    TxnProducer::expect_ok(producer.init(), "init_transactions");
    std::size_t committed = 0;
    auto deadline = std::chrono::steady_clock::now() + 40s;
    while (std::chrono::steady_clock::now() < deadline) {
        std::vector<std::unique_ptr<RdKafka::Message>> got;
        auto until = std::chrono::steady_clock::now() + 3s;
        while (got.size() < batch && std::chrono::steady_clock::now() < until) {
            std::unique_ptr<RdKafka::Message> m(consumer->consume(100));
            if (m->err() == RdKafka::ERR_NO_ERROR) got.push_back(std::move(m));
        }
        if (got.empty()) break;  // drained
        producer.begin();
        std::map<int, std::int64_t> next;
        for (const auto& m : got) {
            producer.send(out, m->partition(), "out-" + std::string(static_cast<const char*>(m->payload()), m->len()));
            next[m->partition()] = m->offset() + 1;
        }
        std::vector<RdKafka::TopicPartition*> offsets;
        for (const auto& [partition, offset] : next)
            offsets.push_back(RdKafka::TopicPartition::create(in, partition, offset));
        std::unique_ptr<RdKafka::ConsumerGroupMetadata> metadata(consumer->groupMetadata());
        TxnProducer::expect_ok(producer.handle().send_offsets_to_transaction(offsets, metadata.get(), 30000),
                               "send_offsets_to_transaction");
        RdKafka::TopicPartition::destroy(offsets);
        if (committed + got.size() > crash_after) {
            EXPECT_TRUE(producer.producer().flush(10s));  // its records are in the log, uncommitted
            return committed;
        }
        TxnProducer::expect_ok(producer.commit(), "commit_transaction");
        committed += got.size();
    }
    return committed;
}

TEST(Transactions, ConsumeTransformProduceIsExactlyOnceAcrossRestarts) {
    BrokerProcess broker(txn_broker());
    broker.start();
    const std::string in = "eos-in";
    const std::string out = "eos-out";
    create_topic(broker, in);
    create_topic(broker, out);
    std::vector<OutMessage> input;
    for (int i = 0; i < 100; ++i) input.push_back({in, i % kPartitions, std::nullopt, std::to_string(i), {}, 0});
    for (const auto& d : produce_all(broker.bootstrap(), input)) ASSERT_EQ(d.err, RdKafka::ERR_NO_ERROR);

    const auto first = process(broker.bootstrap(), in, out, "eos-group", 10, 45);
    EXPECT_GE(first, 30u);
    EXPECT_LT(first, 100u);
    // The broker restarts between the two processing runs: transaction state, markers and offsets all replay.
    ASSERT_EQ(broker.restart(), 0);
    const auto second = process(broker.bootstrap(), in, out, "eos-group", 10, 1000);
    EXPECT_EQ(first + second, 100u);

    auto outputs = values(read_all(broker.bootstrap(), out, "read_committed", 100));
    std::multiset<std::string> seen(outputs.begin(), outputs.end());
    for (int i = 0; i < 100; ++i) EXPECT_EQ(seen.count("out-" + std::to_string(i)), 1u) << "out-" << i;
    EXPECT_EQ(outputs.size(), 100u);
}

// `weir transactions` as kafka-transactions.sh: an open transaction listed,
// described and found by its start offset, then aborted by hand (what an
// operator does with a hanging transaction).
TEST(Transactions, TheToolListsDescribesAndAbortsAnOpenTransaction) {
    BrokerProcess broker(txn_broker());
    broker.start();
    const std::string topic = "hanging";
    create_topic(broker, topic);
    ASSERT_EQ(produce_all(broker.bootstrap(), {{topic, 0, std::nullopt, "plain-0", {}, 0}}).at(0).err,
              RdKafka::ERR_NO_ERROR);
    TxnProducer p(broker.bootstrap(), "hanging-txn");
    TxnProducer::expect_ok(p.init(), "init_transactions");
    p.begin();
    p.send(topic, 0, "stuck");
    ASSERT_TRUE(p.producer().flush(10s));
    auto tool = [&](std::vector<std::string> args) {
        args.insert(args.begin(), {weir_binary(), "transactions", "--bootstrap-server", broker.bootstrap()});
        return run_process(args, 60s);
    };
    auto listed = tool({"list"});
    ASSERT_EQ(listed.exit_code, 0) << listed.describe();
    EXPECT_NE(listed.out.find("TransactionalId"), std::string::npos) << listed.out;
    EXPECT_NE(listed.out.find("hanging-txn"), std::string::npos) << listed.out;
    EXPECT_NE(listed.out.find("Ongoing"), std::string::npos) << listed.out;
    auto described = tool({"describe", "--transactional-id", "hanging-txn"});
    ASSERT_EQ(described.exit_code, 0) << described.describe();
    EXPECT_NE(described.out.find("Ongoing"), std::string::npos) << described.out;
    EXPECT_NE(described.out.find(topic + "-0"), std::string::npos) << described.out;
    auto producers = tool({"describe-producers", "--topic", topic, "--partition", "0"});
    ASSERT_EQ(producers.exit_code, 0) << producers.describe();
    // The transaction's first record is at offset 1, after the plain one.
    std::istringstream rows(producers.out);
    std::string header, row;
    std::getline(rows, header);
    bool open_at_1 = false;
    while (std::getline(rows, row)) open_at_1 |= row.size() >= 2 && row.substr(row.size() - 2) == " 1";
    EXPECT_TRUE(open_at_1) << producers.out;
    auto wrong = tool({"abort", "--topic", topic, "--partition", "0", "--start-offset", "0"});
    EXPECT_EQ(wrong.exit_code, 1) << wrong.describe();
    auto aborted = tool({"abort", "--topic", topic, "--partition", "0", "--start-offset", "1"});
    ASSERT_EQ(aborted.exit_code, 0) << aborted.describe();
    ASSERT_EQ(produce_all(broker.bootstrap(), {{topic, 0, std::nullopt, "plain-1", {}, 0}}).at(0).err,
              RdKafka::ERR_NO_ERROR);
    EXPECT_EQ(values(read_all(broker.bootstrap(), topic, "read_committed", 2)),
              (std::vector<std::string>{"plain-0", "plain-1"}));
}

TEST(Transactions, KafkajsCommitsAbortsAndSendsOffsets) {
    ASSERT_STRNE(WEIR_NODE, "") << "node not found";
    const auto dir = std::filesystem::path(WEIR_COMPAT_SOURCE_DIR) / "kafkajs";
    ASSERT_TRUE(std::filesystem::exists(dir / "node_modules" / "kafkajs")) << "run scripts/install-deps.sh";
    BrokerProcess broker(txn_broker());
    broker.start();
    const auto r = run_process({WEIR_NODE, (dir / "transactions.js").string(), broker.bootstrap(), "kjs-txn"}, 120s);
    ASSERT_EQ(r.exit_code, 0) << r.describe();
    auto v = boost::json::parse(r.out).as_object();
    EXPECT_EQ(boost::json::serialize(v.at("readCommitted")), R"(["t0-a","t0-b","t2-a","t2-b"])");
    EXPECT_EQ(boost::json::serialize(v.at("readUncommitted")),
              R"(["t0-a","t0-b","t1-a","t1-b","t2-a","t2-b","t3-a","t3-b"])");
    EXPECT_EQ(v.at("groupOffset").as_int64(), 42) << "sendOffsets in a committed transaction";
}

}  // namespace
}  // namespace weir::compat
