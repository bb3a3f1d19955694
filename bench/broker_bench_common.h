#pragma once
// Shared pieces of broker_bench: argument parsing, /proc sampling of the
// server process, timing, percentiles and librdkafka handle RAII.
#include <sys/types.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/rdkafka/handles.h"

namespace weir::bench {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start);
std::int64_t now_ns();

// --key value options after the subcommand; "--" ends them (rest in positional).
struct Args {
    std::map<std::string, std::string> values;
    std::vector<std::string> positional;

    std::string str(const std::string& key, const std::string& fallback = {}) const;
    std::int64_t num(const std::string& key, std::int64_t fallback) const;
    bool has(const std::string& key) const { return values.contains(key); }
};
Args parse_args(int argc, char** argv, int first);

// CPU seconds (utime+stime) and memory of a process, from /proc/<pid>.
struct ProcSample {
    double cpu_seconds = 0;
    std::int64_t vm_rss_kb = 0;
    std::int64_t vm_hwm_kb = 0;
};
std::optional<ProcSample> sample_process(pid_t pid);

// An owned file descriptor.
class Fd {
public:
    explicit Fd(int fd = -1) : fd_(fd) {}
    Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
    Fd& operator=(Fd&& o) noexcept {
        reset(std::exchange(o.fd_, -1));
        return *this;
    }
    ~Fd() { reset(); }
    void reset(int fd = -1) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = fd;
    }
    int get() const { return fd_; }

private:
    int fd_;
};

// A started child process; stdout_pipe is set when its stdout is captured.
struct Child {
    pid_t pid = -1;
    Fd stdout_pipe;
};

// Forks and execs argv (argv[0] is a path). stderr goes to `log` (appended)
// when given; stdout to a pipe (capture_stdout) or to stderr, so that our own
// stdout carries RESULT lines only.
Child spawn(const std::vector<std::string>& argv, bool capture_stdout, const std::string& log);

// Sends `sig` to a child and reaps it; SIGKILL and throw after `grace`.
// Returns the seconds it took to exit.
double stop_child(pid_t pid, int sig, std::chrono::seconds grace = std::chrono::seconds(30));

// Percentile (0..100) of an already sorted vector, nearest-rank.
double percentile(const std::vector<double>& sorted, double p);

// One "RESULT k=v k=v" line on stdout, for run_broker_bench.sh.
class Result {
public:
    Result& add(const std::string& key, const std::string& value);
    Result& add(const std::string& key, double value);
    Result& add(const std::string& key, std::int64_t value);
    void print() const;

private:
    std::string line_;
};

using KafkaHandle = rdkafka::Client;
using rdkafka::PartitionList;

// Builds a client from key=value settings; throws std::runtime_error on any
// rejected setting. `setup` may install callbacks on the conf first.
KafkaHandle make_client(rd_kafka_type_t type, const std::vector<std::pair<std::string, std::string>>& settings,
                        void (*setup)(rd_kafka_conf_t*, void*) = nullptr, void* opaque = nullptr);

// Waits (bounded) until `topic` has `partitions` partitions with leaders;
// the request also makes auto-creating brokers create it. Returns the count.
int wait_for_topic(rd_kafka_t* rk, const std::string& topic, int partitions, std::chrono::milliseconds timeout);

// Samples the server (if --server-pid given) around a phase.
class ServerMeter {
public:
    explicit ServerMeter(pid_t pid) : pid_(pid) {}
    void start();
    void stop(Result& out) const;  // adds server_cpu_s, server_hwm_kb, server_rss_kb

private:
    pid_t pid_;
    std::optional<ProcSample> before_;
};

}  // namespace weir::bench
