#pragma once
// Apache Kafka's own broker as a child process, for tests that compare Weir's
// answers with Kafka's (compat-tests/differential): one broker of the given
// version, installed from Maven Central by tools/reference-kafka/install
// (cached), on a free 127.0.0.1 port with its data in a temp dir; killed with
// the test.
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <string>

#include "broker/common/temp_dir.h"

namespace weir::compat {

struct ReferenceKafkaOptions {
    std::string version = "3.9.2";
    // host:port/chroot: ZooKeeper mode (Kafka 3.x). Empty: KRaft, one node that
    // is its own controller (the only mode of Kafka 4.x).
    std::string zookeeper_connect;
    std::map<std::string, std::string> properties;  // server.properties lines beyond the harness's own
    std::chrono::milliseconds ready_timeout{120'000};
};

class ReferenceKafka {
public:
    // Installs (or finds in the cache) Kafka's jars, starts the broker and
    // waits (bounded) until a Metadata request lists it. Throws on failure.
    explicit ReferenceKafka(ReferenceKafkaOptions options);
    ~ReferenceKafka();
    ReferenceKafka(const ReferenceKafka&) = delete;
    ReferenceKafka& operator=(const ReferenceKafka&) = delete;

    [[nodiscard]] std::uint16_t port() const { return port_; }
    [[nodiscard]] std::string bootstrap() const { return "127.0.0.1:" + std::to_string(port_); }
    [[nodiscard]] std::string log_tail(std::size_t lines = 60) const;

private:
    void stop();

    TempDir dir_;
    std::uint16_t port_ = 0;
    pid_t pid_ = -1;
};

// The directory of the jars of Kafka `version`: tools/reference-kafka/install's
// answer (it downloads once, then answers from the cache). Throws with the
// installer's output when it fails.
std::string reference_kafka_libs(const std::string& version = "3.9.2");

}  // namespace weir::compat
