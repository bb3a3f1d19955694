#pragma once
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "broker/common/temp_dir.h"

namespace weir::compat {

struct BrokerOptions {
    // Passed as `--override key=value` after the generated server.properties
    // (listeners, weir.admin.listener, log.dirs, broker.id, num.partitions,
    // auto.create.topics.enable).
    std::map<std::string, std::string> overrides;
    std::chrono::milliseconds ready_timeout{10'000};
    std::chrono::milliseconds stop_timeout{10'000};
    // RLIMIT_NOFILE of the broker process, if set.
    std::optional<std::uint64_t> max_open_files;
};

// One `weir serve` child process on its own free 127.0.0.1 ports (Kafka and
// admin HTTP, so brokers of concurrent tests never share one) and temp dir
// (server.properties, data/, broker.log). The dir is removed on destruction
// unless the current test failed, in which case its path and the log tail are
// printed. Port and data survive restart().
class BrokerProcess {
public:
    explicit BrokerProcess(BrokerOptions options = {});
    ~BrokerProcess();
    BrokerProcess(const BrokerProcess&) = delete;
    BrokerProcess& operator=(const BrokerProcess&) = delete;

    // Forks weir and waits (bounded) until the port accepts connections and a
    // librdkafka Metadata request succeeds. Throws on failure or early exit.
    void start();
    // SIGTERM, bounded wait, then SIGKILL. Returns the exit status (-signal if
    // killed by one); exit 0 is a clean shutdown.
    int stop();
    // SIGKILL and reap.
    void kill();
    // stop() (asserting nothing) then start() with the same port and data.
    int restart();

    bool running();
    // Waits (bounded) for the broker to exit by itself; its exit status (as
    // stop()'s), or nullopt if it is still running.
    std::optional<int> wait_exit(std::chrono::milliseconds timeout);
    pid_t pid() const { return pid_; }
    std::uint16_t port() const { return port_; }
    // The admin HTTP listener's port (weir.admin.listener), unless overridden.
    std::uint16_t admin_port() const { return admin_port_; }
    std::string bootstrap() const;
    std::filesystem::path data_dir() const { return dir_.path() / "data"; }
    std::filesystem::path log_path() const { return dir_.path() / "broker.log"; }
    std::string log_tail(std::size_t lines = 60) const;

private:
    void spawn();
    void wait_ready();
    std::optional<int> reap(std::chrono::milliseconds timeout);

    BrokerOptions options_;
    TempDir dir_;
    std::uint16_t port_ = 0;
    std::uint16_t admin_port_ = 0;
    pid_t pid_ = -1;
    int starts_ = 0;
};

// Path of the weir binary under test (compile definition, overridable with
// the WEIR_COMPAT_BINARY environment variable).
std::string weir_binary();
// One Metadata round trip through librdkafka, as a real client would do
// first: true once it lists a broker.
bool metadata_ok(const std::string& bootstrap, std::chrono::milliseconds timeout);
// A port that was free a moment ago (bind 127.0.0.1:0, read, close).
std::uint16_t pick_free_port();
// True when a TCP connection to 127.0.0.1:port succeeds.
bool port_accepts(std::uint16_t port);

}  // namespace weir::compat
