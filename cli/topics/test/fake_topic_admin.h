#pragma once

// An in-memory cluster answering as a Kafka broker does, for the `weir topics` tests, and a
// runner that captures the tool's streams.
#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli/topics/topic_admin.h"
#include "cli/topics/topics_cli.h"

namespace weir::cli::topics::test {

class FakeCluster {
public:
    struct Topic {
        std::vector<PartitionInfo> partitions;
        std::map<std::string, std::string> overrides;
    };

    std::vector<std::int32_t> brokers{1};
    std::map<std::string, Topic> topics;
    // The built-in defaults every topic reports besides its overrides.
    std::map<std::string, std::string> defaults{
        {"cleanup.policy", "delete"}, {"min.insync.replicas", "1"}, {"retention.ms", "604800000"}};
    // Every call, for the tests to check what was asked: "create t", "partitions t 4", "delete t", ...
    std::vector<std::string> calls;
    std::optional<AdminError> fail_next;  // thrown by the next call
    std::optional<NewTopic> last_created;
    std::vector<NewPartitions> last_increases;

    // A topic whose partition p is led by brokers[p % brokers.size()], replicated on the first `rf` brokers.
    void add_topic(const std::string& name, int partitions, int rf = 1,
                   std::map<std::string, std::string> overrides = {}) {
        Topic t;
        for (int p = 0; p < partitions; ++p) t.partitions.push_back(partition(p, rf));
        t.overrides = std::move(overrides);
        topics[name] = std::move(t);
    }

    PartitionInfo partition(int p, int rf) const {
        PartitionInfo info;
        info.partition = p;
        info.leader = brokers[static_cast<std::size_t>(p) % brokers.size()];
        for (int r = 0; r < rf && r < static_cast<int>(brokers.size()); ++r)
            info.replicas.push_back(brokers[static_cast<std::size_t>(r)]);
        info.isr = info.replicas;
        return info;
    }

    void maybe_fail() {
        if (!fail_next) return;
        const AdminError e = *fail_next;
        fail_next.reset();
        throw e;
    }
};

class FakeTopicAdmin final : public TopicAdmin {
public:
    explicit FakeTopicAdmin(FakeCluster& cluster) : c_(cluster) {}

    std::vector<std::string> list_topics() override {
        c_.calls.push_back("list");
        c_.maybe_fail();
        std::vector<std::string> out;
        for (const auto& [name, t] : c_.topics) out.push_back(name);
        std::reverse(out.begin(), out.end());  // brokers answer in no particular order
        return out;
    }

    std::vector<TopicDescription> describe_topics(const std::vector<std::string>& topics) override {
        c_.calls.push_back("describe");
        c_.maybe_fail();
        std::vector<TopicDescription> out;
        for (const auto& name : topics) {
            auto it = c_.topics.find(name);
            if (it == c_.topics.end()) throw AdminError(3, "This server does not host this topic-partition.");
            out.push_back({name, "", it->second.partitions});
        }
        return out;
    }

    std::map<std::string, std::vector<ConfigEntry>> describe_configs(const std::vector<std::string>& topics) override {
        c_.calls.push_back("configs");
        c_.maybe_fail();
        std::map<std::string, std::vector<ConfigEntry>> out;
        for (const auto& name : topics) {
            const auto& t = c_.topics.at(name);
            auto& entries = out[name];
            for (const auto& [key, value] : c_.defaults)
                if (!t.overrides.contains(key))
                    entries.push_back({key, value, true, "DEFAULT_CONFIG", false, {{key, value, "DEFAULT_CONFIG"}}});
            for (const auto& [key, value] : t.overrides) {
                std::vector<ConfigSynonym> synonyms{{key, value, "DYNAMIC_TOPIC_CONFIG"}};
                if (auto d = c_.defaults.find(key); d != c_.defaults.end())
                    synonyms.push_back({"log." + key, d->second, "DEFAULT_CONFIG"});
                entries.push_back({key, value, false, "DYNAMIC_TOPIC_CONFIG", false, synonyms});
            }
        }
        return out;
    }

    std::vector<std::int32_t> live_brokers() override {
        c_.maybe_fail();
        return c_.brokers;
    }

    void create_topic(const NewTopic& topic) override {
        c_.calls.push_back("create " + topic.name);
        c_.maybe_fail();
        c_.last_created = topic;
        if (c_.topics.contains(topic.name))
            throw AdminError(kTopicAlreadyExists, "Topic '" + topic.name + "' already exists.");
        FakeCluster::Topic t;
        if (!topic.assignment.empty()) {
            for (std::size_t p = 0; p < topic.assignment.size(); ++p)
                t.partitions.push_back({static_cast<std::int32_t>(p), topic.assignment[p].front(), topic.assignment[p],
                                        topic.assignment[p]});
        } else {
            const int count = topic.partitions < 0 ? 1 : topic.partitions;
            for (int p = 0; p < count; ++p)
                t.partitions.push_back(c_.partition(p, topic.replication_factor < 0 ? 1 : topic.replication_factor));
        }
        t.overrides.insert(topic.configs.begin(), topic.configs.end());
        c_.topics[topic.name] = std::move(t);
    }

    void alter_topic_configs(const std::string& topic,
                             const std::vector<std::pair<std::string, std::string>>& configs) override {
        c_.calls.push_back("alter configs " + topic);
        c_.maybe_fail();
        auto it = c_.topics.find(topic);
        if (it == c_.topics.end()) throw AdminError(3, "This server does not host this topic-partition.");
        it->second.overrides = {configs.begin(), configs.end()};
    }

    void create_partitions(const std::vector<NewPartitions>& increases) override {
        for (const auto& inc : increases)
            c_.calls.push_back("partitions " + inc.topic + " " + std::to_string(inc.total));
        c_.maybe_fail();
        c_.last_increases = increases;
        for (const auto& inc : increases) {
            auto it = c_.topics.find(inc.topic);
            if (it == c_.topics.end()) throw AdminError(3, "The topic '" + inc.topic + "' does not exist.");
            auto& parts = it->second.partitions;
            const auto current = static_cast<std::int32_t>(parts.size());
            if (inc.total < current)
                throw AdminError(37, "Topic currently has " + std::to_string(current) +
                                         " partitions, which is higher than the requested " +
                                         std::to_string(inc.total) + ".");
            if (inc.total == current)
                throw AdminError(37, "Topic already has " + std::to_string(current) + " partitions.");
            for (auto p = current; p < inc.total; ++p) parts.push_back(c_.partition(p, 1));
        }
    }

    void delete_topics(const std::vector<std::string>& topics) override {
        for (const auto& t : topics) c_.calls.push_back("delete " + t);
        c_.maybe_fail();
        for (const auto& t : topics)
            if (c_.topics.erase(t) == 0) throw AdminError(3, "This server does not host this topic-partition.");
    }

private:
    FakeCluster& c_;
};

// A factory for run_topics that serves `cluster` and keeps the config it was given in `seen`.
inline TopicAdminFactory fake_admin(FakeCluster& cluster, AdminConfig* seen = nullptr) {
    return [&cluster, seen](const AdminConfig& config) -> std::unique_ptr<TopicAdmin> {
        if (seen != nullptr) *seen = config;
        return std::make_unique<FakeTopicAdmin>(cluster);
    };
}

struct CliResult {
    int code = -1;
    std::string out;
    std::string err;
};

inline CliResult run_cli(const std::vector<std::string>& args, const TopicAdminFactory& factory = {}) {
    std::ostringstream out;
    std::ostringstream err;
    CliResult r;
    r.code = run_topics(args, out, err, factory);
    r.out = out.str();
    r.err = err.str();
    return r;
}

}  // namespace weir::cli::topics::test
