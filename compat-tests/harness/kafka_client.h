#pragma once
// Thin librdkafka C++ wrappers for the compat tests: every call is bounded and
// results come back as plain values that are easy to compare.
#include <librdkafka/rdkafkacpp.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace weir::compat {

using ConfigMap = std::map<std::string, std::string>;

struct Header {
    std::string key;
    std::optional<std::string> value;  // nullopt = null header value
    bool operator==(const Header&) const = default;
};

struct OutMessage {
    std::string topic;
    std::int32_t partition = RdKafka::Topic::PARTITION_UA;
    std::optional<std::string> key;    // nullopt = null key
    std::optional<std::string> value;  // nullopt = null value (tombstone)
    std::vector<Header> headers;
    std::int64_t timestamp = 0;  // CreateTime in ms; 0 = now
};

struct Delivery {
    bool done = false;
    RdKafka::ErrorCode err = RdKafka::ERR_NO_ERROR;
    std::int32_t partition = -1;
    std::int64_t offset = -1;
    std::int64_t timestamp = -1;
};

struct ConsumedMessage {
    std::string topic;
    std::int32_t partition = -1;
    std::int64_t offset = -1;
    std::optional<std::string> key;
    std::optional<std::string> value;
    std::vector<Header> headers;
    std::int64_t timestamp = -1;
    RdKafka::MessageTimestamp::MessageTimestampType timestamp_type =
        RdKafka::MessageTimestamp::MSG_TIMESTAMP_NOT_AVAILABLE;
};

// Builds a global conf with bootstrap.servers, the harness's tight defaults and
// `extra` on top. Throws std::runtime_error on an invalid key or value.
std::unique_ptr<RdKafka::Conf> make_conf(const std::string& bootstrap, const ConfigMap& extra);

std::string err_name(RdKafka::ErrorCode err);

class Producer {
public:
    explicit Producer(const std::string& bootstrap, const ConfigMap& extra = {});
    ~Producer();
    Producer(const Producer&) = delete;
    Producer& operator=(const Producer&) = delete;

    // Enqueues one message; returns its index into deliveries(). Waits (polling,
    // bounded by `timeout`) while the local queue is full; throws on any other
    // local error.
    std::size_t send(const OutMessage& m, std::chrono::milliseconds timeout = std::chrono::seconds(10));
    // Like send() but returns the local error instead of throwing.
    RdKafka::ErrorCode try_send(const OutMessage& m, std::size_t* index = nullptr);
    // Serves delivery reports until all are done or the timeout passes. True if all done.
    bool flush(std::chrono::milliseconds timeout);
    void poll(std::chrono::milliseconds timeout);

    std::vector<Delivery> deliveries() const;
    std::size_t done_count() const { return done_.load(); }
    std::size_t ok_count() const { return ok_.load(); }
    RdKafka::Producer& handle() { return *producer_; }

private:
    struct DrCb : RdKafka::DeliveryReportCb {
        Producer* self = nullptr;
        void dr_cb(RdKafka::Message& message) override;
    };

    DrCb dr_cb_;
    mutable std::mutex mu_;
    std::vector<Delivery> deliveries_;
    std::atomic<std::size_t> done_{0};
    std::atomic<std::size_t> ok_{0};
    std::unique_ptr<RdKafka::Producer> producer_;
};

// Produces all messages with a fresh producer and waits for every delivery report.
std::vector<Delivery> produce_all(const std::string& bootstrap, const std::vector<OutMessage>& messages,
                                  const ConfigMap& extra = {},
                                  std::chrono::milliseconds timeout = std::chrono::seconds(30));

struct PartitionOffset {
    std::string topic;
    std::int32_t partition = 0;
    std::int64_t offset = RdKafka::Topic::OFFSET_BEGINNING;
};

// KafkaConsumer used with assign() only: a group.id is required by the C++ API
// but no group protocol is used (no subscribe, no commits).
class Consumer {
public:
    // `event_cb` (optional, must outlive the consumer) receives stats/log/error events.
    explicit Consumer(const std::string& bootstrap, const ConfigMap& extra = {}, RdKafka::EventCb* event_cb = nullptr);
    ~Consumer();
    Consumer(const Consumer&) = delete;
    Consumer& operator=(const Consumer&) = delete;

    void assign(const std::vector<PartitionOffset>& partitions);
    RdKafka::ErrorCode seek(const PartitionOffset& to, std::chrono::milliseconds timeout);
    // Polls until `count` messages arrived or `timeout` passed. Errors other than
    // timeouts/partition EOF are kept in errors().
    std::vector<ConsumedMessage> consume(std::size_t count, std::chrono::milliseconds timeout);
    std::optional<ConsumedMessage> consume_one(std::chrono::milliseconds timeout);
    // Offsets for timestamps (ListOffsets): one offset per requested partition, -1 if none.
    std::vector<std::int64_t> offsets_for_times(const std::vector<PartitionOffset>& timestamps,
                                                std::chrono::milliseconds timeout, RdKafka::ErrorCode* err = nullptr);
    // Low/high watermarks via ListOffsets; nullopt on error.
    std::optional<std::pair<std::int64_t, std::int64_t>> watermarks(const std::string& topic, std::int32_t partition,
                                                                    std::chrono::milliseconds timeout);

    const std::vector<std::string>& errors() const { return errors_; }
    RdKafka::KafkaConsumer& handle() { return *consumer_; }

private:
    std::unique_ptr<RdKafka::KafkaConsumer> consumer_;
    std::vector<std::string> errors_;
};

// Assigns the given partitions and consumes `count` messages (bounded).
std::vector<ConsumedMessage> consume_all(const std::string& bootstrap, const std::vector<PartitionOffset>& partitions,
                                         std::size_t count, std::chrono::milliseconds timeout,
                                         const ConfigMap& extra = {}, std::vector<std::string>* errors = nullptr);

struct PartitionInfo {
    std::int32_t id = -1;
    std::int32_t leader = -1;
    RdKafka::ErrorCode err = RdKafka::ERR_NO_ERROR;
};
struct TopicInfo {
    RdKafka::ErrorCode err = RdKafka::ERR_NO_ERROR;
    std::vector<PartitionInfo> partitions;
};
struct ClusterInfo {
    RdKafka::ErrorCode err = RdKafka::ERR_NO_ERROR;             // of the request itself
    std::vector<std::pair<std::int32_t, std::string>> brokers;  // id, host:port
    std::map<std::string, TopicInfo> topics;
};

// A Metadata request for all topics (never auto-creates anything).
ClusterInfo cluster_metadata(RdKafka::Handle& handle, std::chrono::milliseconds timeout);
// A Metadata request for one topic; `handle`'s allow.auto.create.topics decides auto-creation.
TopicInfo topic_metadata(RdKafka::Handle& handle, const std::string& topic, std::chrono::milliseconds timeout);

// Deterministic test payload: `size` bytes derived from `seed` (all byte values occur).
std::string payload(std::uint64_t seed, std::size_t size);

}  // namespace weir::compat
