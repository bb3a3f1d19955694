#include "harness/kafka_client.h"

#include <unistd.h>

#include <algorithm>
#include <stdexcept>
#include <thread>

namespace weir::compat {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

int ms(std::chrono::milliseconds d) { return static_cast<int>(std::max<long long>(0, d.count())); }

std::chrono::milliseconds left_until(Clock::time_point deadline) {
    return std::max(0ms, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()));
}

std::optional<std::string> bytes_or_null(const void* p, std::size_t n) {
    if (p == nullptr) return std::nullopt;
    return std::string(static_cast<const char*>(p), n);
}

ConsumedMessage to_consumed(RdKafka::Message& m) {
    ConsumedMessage c;
    c.topic = m.topic_name();
    c.partition = m.partition();
    c.offset = m.offset();
    c.key = bytes_or_null(m.key_pointer(), m.key_len());
    c.value = bytes_or_null(m.payload(), m.len());
    if (RdKafka::Headers* h = m.headers()) {
        for (const auto& hdr : h->get_all()) {
            c.headers.push_back({hdr.key(), bytes_or_null(hdr.value(), hdr.value_size())});
        }
    }
    const auto ts = m.timestamp();
    c.timestamp = ts.timestamp;
    c.timestamp_type = ts.type;
    return c;
}

void set_or_throw(RdKafka::Conf& conf, const std::string& key, const std::string& value) {
    std::string err;
    if (conf.set(key, value, err) != RdKafka::Conf::CONF_OK) {
        throw std::runtime_error("librdkafka config " + key + "=" + value + ": " + err);
    }
}

std::string unique_group_id() {
    static std::atomic<int> counter{0};
    return "weir-compat-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

}  // namespace

std::string err_name(RdKafka::ErrorCode err) { return RdKafka::err2str(err) + " (" + std::to_string(err) + ")"; }

std::unique_ptr<RdKafka::Conf> make_conf(const std::string& bootstrap, const ConfigMap& extra) {
    std::unique_ptr<RdKafka::Conf> conf(RdKafka::Conf::create(RdKafka::Conf::CONF_GLOBAL));
    const ConfigMap defaults{
        {"bootstrap.servers", bootstrap}, {"client.id", "weir-compat"},        {"socket.timeout.ms", "10000"},
        {"reconnect.backoff.ms", "20"},   {"reconnect.backoff.max.ms", "500"}, {"log.connection.close", "false"},
    };
    for (const auto& [k, v] : defaults) {
        if (!extra.contains(k)) set_or_throw(*conf, k, v);
    }
    for (const auto& [k, v] : extra) set_or_throw(*conf, k, v);
    return conf;
}

// --- Producer ---

void Producer::DrCb::dr_cb(RdKafka::Message& message) {
    const auto index = reinterpret_cast<std::uintptr_t>(message.msg_opaque());
    std::lock_guard lock(self->mu_);
    if (index >= self->deliveries_.size()) return;
    Delivery& d = self->deliveries_[index];
    if (d.done) return;
    d.done = true;
    d.err = message.err();
    d.partition = message.partition();
    d.offset = message.offset();
    d.timestamp = message.timestamp().timestamp;
    ++self->done_;
    if (d.err == RdKafka::ERR_NO_ERROR) ++self->ok_;
}

Producer::Producer(const std::string& bootstrap, const ConfigMap& extra) {
    ConfigMap merged{{"message.timeout.ms", "20000"}, {"linger.ms", "5"}, {"retry.backoff.ms", "50"}};
    for (const auto& [k, v] : extra) merged[k] = v;
    auto conf = make_conf(bootstrap, merged);
    dr_cb_.self = this;
    std::string err;
    if (conf->set("dr_cb", &dr_cb_, err) != RdKafka::Conf::CONF_OK) throw std::runtime_error(err);
    producer_.reset(RdKafka::Producer::create(conf.get(), err));
    if (!producer_) throw std::runtime_error("Producer::create: " + err);
}

Producer::~Producer() {
    // Do not wait for anything still queued: the test is over.
    producer_->purge(RdKafka::Producer::PURGE_QUEUE | RdKafka::Producer::PURGE_INFLIGHT);
    producer_->poll(0);
}

RdKafka::ErrorCode Producer::try_send(const OutMessage& m, std::size_t* index_out) {
    std::size_t index = 0;
    {
        std::lock_guard lock(mu_);
        index = deliveries_.size();
        deliveries_.emplace_back();
    }
    RdKafka::Headers* headers = nullptr;
    if (!m.headers.empty()) {
        headers = RdKafka::Headers::create();
        for (const auto& h : m.headers) {
            headers->add(h.key, h.value ? h.value->data() : nullptr, h.value ? h.value->size() : 0);
        }
    }
    const auto rc = producer_->produce(
        m.topic, m.partition, RdKafka::Producer::RK_MSG_COPY, m.value ? const_cast<char*>(m.value->data()) : nullptr,
        m.value ? m.value->size() : 0, m.key ? m.key->data() : nullptr, m.key ? m.key->size() : 0, m.timestamp, headers,
        reinterpret_cast<void*>(static_cast<std::uintptr_t>(index)));
    if (rc != RdKafka::ERR_NO_ERROR) {
        delete headers;  // ownership only passes on success
        std::lock_guard lock(mu_);
        deliveries_.pop_back();  // nothing else appends concurrently in the tests' use
        return rc;
    }
    if (index_out) *index_out = index;
    return rc;
}

std::size_t Producer::send(const OutMessage& m, std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    while (true) {
        std::size_t index = 0;
        const auto rc = try_send(m, &index);
        if (rc == RdKafka::ERR_NO_ERROR) return index;
        if (rc != RdKafka::ERR__QUEUE_FULL || Clock::now() >= deadline) {
            throw std::runtime_error("produce to " + m.topic + ": " + err_name(rc));
        }
        producer_->poll(10);
    }
}

bool Producer::flush(std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    producer_->flush(ms(timeout));
    // flush() returns when librdkafka's queue is empty; make sure every report was served.
    while (done_count() < deliveries().size() && Clock::now() < deadline) producer_->poll(10);
    return done_count() == deliveries().size();
}

void Producer::poll(std::chrono::milliseconds timeout) { producer_->poll(ms(timeout)); }

std::vector<Delivery> Producer::deliveries() const {
    std::lock_guard lock(mu_);
    return deliveries_;
}

std::vector<Delivery> produce_all(const std::string& bootstrap, const std::vector<OutMessage>& messages,
                                  const ConfigMap& extra, std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    Producer p(bootstrap, extra);
    for (const auto& m : messages) p.send(m, left_until(deadline));
    p.flush(left_until(deadline));
    return p.deliveries();
}

// --- Consumer ---

Consumer::Consumer(const std::string& bootstrap, const ConfigMap& extra, RdKafka::EventCb* event_cb) {
    ConfigMap merged{
        {"group.id", unique_group_id()},   {"enable.auto.commit", "false"},   {"enable.auto.offset.store", "false"},
        {"enable.partition.eof", "false"}, {"auto.offset.reset", "earliest"}, {"fetch.wait.max.ms", "100"},
    };
    for (const auto& [k, v] : extra) merged[k] = v;
    auto conf = make_conf(bootstrap, merged);
    std::string err;
    if (event_cb && conf->set("event_cb", event_cb, err) != RdKafka::Conf::CONF_OK) throw std::runtime_error(err);
    consumer_.reset(RdKafka::KafkaConsumer::create(conf.get(), err));
    if (!consumer_) throw std::runtime_error("KafkaConsumer::create: " + err);
}

Consumer::~Consumer() { consumer_->close(); }

void Consumer::assign(const std::vector<PartitionOffset>& partitions) {
    std::vector<RdKafka::TopicPartition*> tps;
    for (const auto& p : partitions) tps.push_back(RdKafka::TopicPartition::create(p.topic, p.partition, p.offset));
    const auto rc = consumer_->assign(tps);
    RdKafka::TopicPartition::destroy(tps);
    if (rc != RdKafka::ERR_NO_ERROR) throw std::runtime_error("assign: " + err_name(rc));
}

RdKafka::ErrorCode Consumer::seek(const PartitionOffset& to, std::chrono::milliseconds timeout) {
    std::unique_ptr<RdKafka::TopicPartition> tp(RdKafka::TopicPartition::create(to.topic, to.partition, to.offset));
    return consumer_->seek(*tp, ms(timeout));
}

std::optional<ConsumedMessage> Consumer::consume_one(std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    do {
        std::unique_ptr<RdKafka::Message> m(consumer_->consume(ms(std::min(left_until(deadline), 100ms))));
        if (!m) continue;
        switch (m->err()) {
            case RdKafka::ERR_NO_ERROR:
                return to_consumed(*m);
            case RdKafka::ERR__TIMED_OUT:
            case RdKafka::ERR__PARTITION_EOF:
                break;
            default:
                errors_.push_back(err_name(m->err()) + ": " + m->errstr());
        }
    } while (Clock::now() < deadline);
    return std::nullopt;
}

std::vector<ConsumedMessage> Consumer::consume(std::size_t count, std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    std::vector<ConsumedMessage> out;
    while (out.size() < count && Clock::now() < deadline) {
        if (auto m = consume_one(std::min(left_until(deadline), 100ms))) out.push_back(std::move(*m));
    }
    return out;
}

std::vector<std::int64_t> Consumer::offsets_for_times(const std::vector<PartitionOffset>& timestamps,
                                                      std::chrono::milliseconds timeout, RdKafka::ErrorCode* err) {
    std::vector<RdKafka::TopicPartition*> tps;
    for (const auto& p : timestamps) tps.push_back(RdKafka::TopicPartition::create(p.topic, p.partition, p.offset));
    const auto rc = consumer_->offsetsForTimes(tps, ms(timeout));
    if (err) *err = rc;
    std::vector<std::int64_t> out;
    for (auto* tp : tps) out.push_back(tp->err() == RdKafka::ERR_NO_ERROR ? tp->offset() : -1);
    RdKafka::TopicPartition::destroy(tps);
    return out;
}

std::optional<std::pair<std::int64_t, std::int64_t>> Consumer::watermarks(const std::string& topic,
                                                                          std::int32_t partition,
                                                                          std::chrono::milliseconds timeout) {
    std::int64_t low = -1, high = -1;
    if (consumer_->query_watermark_offsets(topic, partition, &low, &high, ms(timeout)) != RdKafka::ERR_NO_ERROR) {
        return std::nullopt;
    }
    return std::make_pair(low, high);
}

std::vector<ConsumedMessage> consume_all(const std::string& bootstrap, const std::vector<PartitionOffset>& partitions,
                                         std::size_t count, std::chrono::milliseconds timeout, const ConfigMap& extra,
                                         std::vector<std::string>* errors) {
    Consumer c(bootstrap, extra);
    c.assign(partitions);
    auto out = c.consume(count, timeout);
    if (errors) *errors = c.errors();
    return out;
}

// --- Metadata ---

namespace {
TopicInfo to_topic_info(const RdKafka::TopicMetadata& t) {
    TopicInfo info;
    info.err = t.err();
    for (const auto* p : *t.partitions()) info.partitions.push_back({p->id(), p->leader(), p->err()});
    return info;
}
}  // namespace

ClusterInfo cluster_metadata(RdKafka::Handle& handle, std::chrono::milliseconds timeout) {
    ClusterInfo out;
    RdKafka::Metadata* md = nullptr;
    out.err = handle.metadata(true, nullptr, &md, ms(timeout));
    std::unique_ptr<RdKafka::Metadata> owned(md);
    if (out.err != RdKafka::ERR_NO_ERROR || !md) return out;
    for (const auto* b : *md->brokers()) out.brokers.emplace_back(b->id(), b->host() + ":" + std::to_string(b->port()));
    for (const auto* t : *md->topics()) out.topics[t->topic()] = to_topic_info(*t);
    return out;
}

TopicInfo topic_metadata(RdKafka::Handle& handle, const std::string& topic, std::chrono::milliseconds timeout) {
    std::string err;
    std::unique_ptr<RdKafka::Topic> t(RdKafka::Topic::create(&handle, topic, nullptr, err));
    if (!t) throw std::runtime_error("Topic::create: " + err);
    RdKafka::Metadata* md = nullptr;
    TopicInfo out;
    out.err = handle.metadata(false, t.get(), &md, ms(timeout));
    std::unique_ptr<RdKafka::Metadata> owned(md);
    if (out.err != RdKafka::ERR_NO_ERROR || !md) return out;
    for (const auto* tm : *md->topics()) {
        if (tm->topic() == topic) return to_topic_info(*tm);
    }
    out.err = RdKafka::ERR__UNKNOWN_TOPIC;
    return out;
}

std::string payload(std::uint64_t seed, std::size_t size) {
    std::string out(size, '\0');
    std::uint64_t x = seed * 0x9E3779B97F4A7C15ULL + 1;
    for (std::size_t i = 0; i < size; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out[i] = static_cast<char>(x & 0xff);
    }
    return out;
}

}  // namespace weir::compat
