#pragma once
// Consumer-group members as separate processes, so a test can kill one
// (SIGKILL: no LeaveGroup, the broker must notice the expired session) or
// stop it cleanly (SIGTERM: close() sends LeaveGroup unless it is static).
//
// The test binary re-executes itself with WEIR_GROUP_CHILD set: a static
// initializer in this header then runs a librdkafka KafkaConsumer that
// subscribes, prints what happens on stdout and never returns to gtest.
//   ASSIGNED <p,p,...>        the assignment after each rebalance callback
//   MSG <partition> <offset> <value>
//   COMMITTED <partition> <offset>   a successful synchronous commit
//   CLOSED                    after a clean close()
// SIGUSR1 makes the child stop polling (a stuck application), as if it
// exceeded max.poll.interval.ms.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <librdkafka/rdkafkacpp.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "harness/admin.h"
#include "harness/broker_process.h"
#include "harness/kafka_client.h"
#include "harness/wait.h"

extern char** environ;

namespace weir::compat::group {

// ------------------------------------------------------------------ child side

inline std::atomic<bool> child_stop{false};
inline std::atomic<bool> child_stall{false};

inline std::string env_or(const char* name, const char* fallback) {
    const char* v = std::getenv(name);
    return v ? v : fallback;
}

inline std::string partitions_text(const std::set<int>& ids) {
    std::string out;
    for (int id : ids) out += (out.empty() ? "" : ",") + std::to_string(id);
    return out;
}

// Keeps its own copy of the assignment: asking librdkafka 2.0.2 for it
// (assignment()) from the revoke that close() runs can race the group's
// termination and wait forever for a reply.
class ChildRebalance : public RdKafka::RebalanceCb {
public:
    void rebalance_cb(RdKafka::KafkaConsumer* c, RdKafka::ErrorCode err,
                      std::vector<RdKafka::TopicPartition*>& parts) override {
        const bool cooperative = c->rebalance_protocol() == "COOPERATIVE";
        if (err == RdKafka::ERR__ASSIGN_PARTITIONS) {
            if (cooperative) {
                delete c->incremental_assign(parts);
            } else {
                c->assign(parts);
                owned_.clear();
            }
            for (auto* p : parts) owned_.insert(p->partition());
        } else if (cooperative && !c->assignment_lost()) {
            delete c->incremental_unassign(parts);
            for (auto* p : parts) owned_.erase(p->partition());
        } else {
            c->unassign();
            owned_.clear();
        }
        std::printf("ASSIGNED %s\n", partitions_text(owned_).c_str());
        std::fflush(stdout);
    }

private:
    std::set<int> owned_;
};

inline int run_child() {
    ::signal(SIGTERM, [](int) { child_stop = true; });
    ::signal(SIGUSR1, [](int) { child_stall = true; });
    std::string err;
    std::unique_ptr<RdKafka::Conf> conf(RdKafka::Conf::create(RdKafka::Conf::CONF_GLOBAL));
    ChildRebalance rebalance;
    auto set = [&](const std::string& k, const std::string& v) {
        if (conf->set(k, v, err) != RdKafka::Conf::CONF_OK) {
            std::printf("CONFIG-ERROR %s=%s: %s\n", k.c_str(), v.c_str(), err.c_str());
            std::exit(3);
        }
    };
    set("bootstrap.servers", env_or("WEIR_GROUP_BOOTSTRAP", ""));
    set("group.id", env_or("WEIR_GROUP_ID", ""));
    set("client.id", "weir-group-child");
    set("enable.auto.commit", "false");
    set("auto.offset.reset", "earliest");
    set("session.timeout.ms", "3000");
    set("heartbeat.interval.ms", "300");
    set("max.poll.interval.ms", "10000");
    set("fetch.wait.max.ms", "100");
    set("reconnect.backoff.ms", "20");
    set("reconnect.backoff.max.ms", "500");
    set("retry.backoff.ms", "50");
    set("log.connection.close", "false");
    // Extra settings: "key=value;key=value".
    std::stringstream extra(env_or("WEIR_GROUP_CONF", ""));
    for (std::string kv; std::getline(extra, kv, ';');) {
        auto eq = kv.find('=');
        if (eq != std::string::npos) set(kv.substr(0, eq), kv.substr(eq + 1));
    }
    if (conf->set("rebalance_cb", &rebalance, err) != RdKafka::Conf::CONF_OK) return 3;
    std::unique_ptr<RdKafka::KafkaConsumer> consumer(RdKafka::KafkaConsumer::create(conf.get(), err));
    if (!consumer) {
        std::printf("CREATE-ERROR %s\n", err.c_str());
        return 3;
    }
    const std::string topic = env_or("WEIR_GROUP_TOPIC", "");
    consumer->subscribe({topic});
    const bool commit = env_or("WEIR_GROUP_COMMIT", "1") == "1";
    while (!child_stop) {
        if (child_stall) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            continue;
        }
        std::unique_ptr<RdKafka::Message> m(consumer->consume(100));
        if (m->err() != RdKafka::ERR_NO_ERROR) continue;
        std::string value(static_cast<const char*>(m->payload()), m->len());
        std::printf("MSG %d %lld %s\n", m->partition(), static_cast<long long>(m->offset()), value.c_str());
        std::fflush(stdout);
        if (commit) {
            std::unique_ptr<RdKafka::TopicPartition> tp(
                RdKafka::TopicPartition::create(topic, m->partition(), m->offset() + 1));
            std::vector<RdKafka::TopicPartition*> offsets{tp.get()};
            if (consumer->commitSync(offsets) == RdKafka::ERR_NO_ERROR && tp->err() == RdKafka::ERR_NO_ERROR) {
                std::printf("COMMITTED %d %lld\n", m->partition(), static_cast<long long>(m->offset() + 1));
                std::fflush(stdout);
            }
        }
    }
    consumer->close();
    std::printf("CLOSED\n");
    std::fflush(stdout);
    return 0;
}

struct ChildEntry {
    ChildEntry() {
        if (std::getenv("WEIR_GROUP_CHILD") != nullptr) std::exit(run_child());
    }
};
inline const ChildEntry child_entry;

// ------------------------------------------------------------------ parent side

struct Consumed {
    int partition = -1;
    std::int64_t offset = -1;
    std::string value;
};

class ConsumerProcess {
public:
    ConsumerProcess(const std::string& bootstrap, const std::string& group_id, const std::string& topic,
                    const std::map<std::string, std::string>& conf = {}, bool commit = true) {
        std::string extra;
        for (const auto& [k, v] : conf) extra += k + "=" + v + ";";
        std::vector<std::string> env_strings;
        for (char** e = environ; *e; ++e) env_strings.emplace_back(*e);
        env_strings.push_back("WEIR_GROUP_CHILD=1");
        env_strings.push_back("WEIR_GROUP_BOOTSTRAP=" + bootstrap);
        env_strings.push_back("WEIR_GROUP_ID=" + group_id);
        env_strings.push_back("WEIR_GROUP_TOPIC=" + topic);
        env_strings.push_back("WEIR_GROUP_CONF=" + extra);
        env_strings.push_back(std::string("WEIR_GROUP_COMMIT=") + (commit ? "1" : "0"));
        std::vector<char*> envp;
        for (auto& s : env_strings) envp.push_back(s.data());
        envp.push_back(nullptr);
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe2 failed");
        std::string self = "/proc/self/exe";
        char* argv[] = {self.data(), nullptr};
        pid_ = ::fork();
        if (pid_ < 0) throw std::runtime_error("fork failed");
        if (pid_ == 0) {
            ::dup2(fds[1], STDOUT_FILENO);
            ::dup2(fds[1], STDERR_FILENO);
            ::execve(argv[0], argv, envp.data());
            ::_exit(127);
        }
        ::close(fds[1]);
        fd_ = fds[0];
        reader_ = std::thread([this] { read_loop(); });
    }

    ~ConsumerProcess() {
        kill();
        if (reader_.joinable()) reader_.join();
        if (fd_ >= 0) ::close(fd_);
    }
    ConsumerProcess(const ConsumerProcess&) = delete;
    ConsumerProcess& operator=(const ConsumerProcess&) = delete;

    // SIGTERM: close() (LeaveGroup) and exit; bounded.
    bool terminate(std::chrono::milliseconds timeout = std::chrono::seconds(15)) {
        if (pid_ <= 0) return true;
        ::kill(pid_, SIGTERM);
        bool exited = wait_exit(timeout);
        if (!exited) kill();
        return exited;
    }
    // SIGUSR1: the child stops polling but its librdkafka threads carry on.
    void stall() {
        if (pid_ > 0) ::kill(pid_, SIGUSR1);
    }
    // SIGKILL: gone without a word to the broker.
    void kill() {
        if (pid_ <= 0) return;
        ::kill(pid_, SIGKILL);
        wait_exit(std::chrono::seconds(10));
    }

    // The partitions of the latest ASSIGNED line (nullopt before any).
    std::optional<std::set<int>> assignment() const {
        std::lock_guard lock(mu_);
        return assignment_;
    }
    int rebalances() const {
        std::lock_guard lock(mu_);
        return rebalances_;
    }
    std::vector<Consumed> messages() const {
        std::lock_guard lock(mu_);
        return messages_;
    }
    std::map<int, std::int64_t> committed() const {
        std::lock_guard lock(mu_);
        return committed_;
    }
    bool closed() const {
        std::lock_guard lock(mu_);
        return closed_;
    }
    std::string output() const {
        std::lock_guard lock(mu_);
        std::string all;
        for (const auto& l : lines_) all += l + "\n";
        return all;
    }

private:
    bool wait_exit(std::chrono::milliseconds timeout) {
        auto deadline = std::chrono::steady_clock::now() + timeout;
        while (std::chrono::steady_clock::now() < deadline) {
            int status = 0;
            auto r = ::waitpid(pid_, &status, WNOHANG);
            if (r == pid_ || r < 0) {
                pid_ = -1;
                return true;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        return false;
    }

    void read_loop() {
        std::string pending;
        char buf[4096];
        for (;;) {
            auto n = ::read(fd_, buf, sizeof buf);
            if (n <= 0) break;
            pending.append(buf, static_cast<std::size_t>(n));
            for (auto nl = pending.find('\n'); nl != std::string::npos; nl = pending.find('\n')) {
                parse(pending.substr(0, nl));
                pending.erase(0, nl + 1);
            }
        }
    }

    void parse(const std::string& line) {
        std::lock_guard lock(mu_);
        // The newest lines say why a child is stuck: keep those.
        if (lines_.size() == 5000) lines_.pop_front();
        lines_.push_back(line);
        std::istringstream in(line);
        std::string word;
        in >> word;
        if (word == "ASSIGNED") {
            std::string list;
            in >> list;
            std::set<int> parts;
            std::stringstream ps(list);
            for (std::string p; std::getline(ps, p, ',');)
                if (!p.empty()) parts.insert(std::stoi(p));
            assignment_ = parts;
            ++rebalances_;
        } else if (word == "MSG") {
            Consumed c;
            in >> c.partition >> c.offset >> c.value;
            messages_.push_back(std::move(c));
        } else if (word == "COMMITTED") {
            int p = 0;
            std::int64_t o = 0;
            in >> p >> o;
            committed_[p] = std::max(committed_[p], o);
        } else if (word == "CLOSED") {
            closed_ = true;
        }
    }

    pid_t pid_ = -1;
    int fd_ = -1;
    std::thread reader_;
    mutable std::mutex mu_;
    std::optional<std::set<int>> assignment_;
    int rebalances_ = 0;
    std::vector<Consumed> messages_;
    std::map<int, std::int64_t> committed_;
    bool closed_ = false;
    std::deque<std::string> lines_;
};

// True when the members' current assignments are disjoint, cover 0..partitions-1
// and each member holds `expected_sizes` (sorted) partitions.
inline bool balanced(const std::vector<const ConsumerProcess*>& members, int partitions,
                     std::vector<std::size_t> expected_sizes) {
    std::set<int> seen;
    std::vector<std::size_t> sizes;
    for (const auto* m : members) {
        auto a = m->assignment();
        if (!a) return false;
        for (int p : *a)
            if (!seen.insert(p).second) return false;
        sizes.push_back(a->size());
    }
    std::sort(sizes.begin(), sizes.end());
    std::sort(expected_sizes.begin(), expected_sizes.end());
    return static_cast<int>(seen.size()) == partitions && sizes == expected_sizes;
}

inline std::string describe(const std::vector<const ConsumerProcess*>& members) {
    std::string out;
    for (std::size_t i = 0; i < members.size(); ++i) {
        auto a = members[i]->assignment();
        out += "member " + std::to_string(i) + ": ";
        if (!a)
            out += "(no assignment yet)";
        else
            for (int p : *a) out += std::to_string(p) + " ";
        out += "\n";
    }
    return out;
}

// ------------------------------------------------------------------ test helpers

inline constexpr int kPartitions = 4;

// Fast groups: no initial delay, short sessions allowed, few offsets partitions.
inline BrokerOptions group_broker() {
    BrokerOptions o;
    o.overrides = {{"group.initial.rebalance.delay.ms", "0"},
                   {"group.min.session.timeout.ms", "500"},
                   {"offsets.topic.num.partitions", "4"}};
    return o;
}

inline void create_topic(const BrokerProcess& broker, const std::string& topic) {
    Admin admin(broker.bootstrap());
    auto r = admin.create_topic(topic, kPartitions);
    ASSERT_EQ(r.err, RD_KAFKA_RESP_ERR_NO_ERROR) << r.describe();
}

// `count` messages spread over the partitions, values "<tag>-<i>".
inline void produce(const BrokerProcess& broker, const std::string& topic, int count, const std::string& tag) {
    std::vector<OutMessage> out;
    for (int i = 0; i < count; ++i)
        out.push_back({topic, i % kPartitions, std::nullopt, tag + "-" + std::to_string(i), {}, 0});
    for (const auto& d : produce_all(broker.bootstrap(), out, {{"acks", "all"}}))
        ASSERT_EQ(d.err, RdKafka::ERR_NO_ERROR) << err_name(d.err);
}

inline std::set<std::string> values(const std::vector<const ConsumerProcess*>& members) {
    std::set<std::string> out;
    for (const auto* m : members)
        for (const auto& c : m->messages()) out.insert(c.value);
    return out;
}

inline std::set<std::string> expected_values(const std::string& tag, int count) {
    std::set<std::string> out;
    for (int i = 0; i < count; ++i) out.insert(tag + "-" + std::to_string(i));
    return out;
}

}  // namespace weir::compat::group
