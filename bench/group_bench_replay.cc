// group_bench replay: start a broker on a log dir that `fill` wrote, time
// until OffsetFetch returns the committed offsets (not
// COORDINATOR_LOAD_IN_PROGRESS) for one group on every __consumer_offsets
// partition, stop it with SIGTERM, repeat.
#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/core.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <map>
#include <stdexcept>
#include <thread>

#include "bench/group_bench_phases.h"

namespace weir::bench {
namespace {

bool accepts(const std::string& host, int port) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    if (::inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) {
        ::close(fd);
        throw std::runtime_error("bad IPv4 address " + host);
    }
    bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    ::close(fd);
    return ok;
}

// RESULT values are split on spaces.
std::string token(std::string s) {
    for (char& c : s)
        if (c == ' ') c = '_';
    return s;
}

bool exited(pid_t pid) {
    int status = 0;
    return ::waitpid(pid, &status, WNOHANG) == pid;
}

}  // namespace

int run_replay(const Args& a) {
    if (a.positional.empty()) throw std::runtime_error("replay: give the server command after --");
    const std::string address = a.str("address");
    const auto colon = address.rfind(':');
    if (colon == std::string::npos) throw std::runtime_error("--address wants host:port");
    const std::string host = address.substr(0, colon);
    const int port = std::stoi(address.substr(colon + 1));
    const int runs = static_cast<int>(a.num("runs", 3));
    const int partitions = static_cast<int>(a.num("partitions", 1000));
    const std::string topic = a.str("topic", "fill");
    const auto groups = static_cast<std::size_t>(a.num("groups", 1000));
    const int rounds = static_cast<int>(a.num("rounds", 1));
    const std::string prefix = a.str("group-prefix", "fill-");
    const int offsets_partitions = static_cast<int>(a.num("offsets-partitions", 50));
    const bool verify_all = a.num("verify-all", 1) != 0;
    const auto timeout = std::chrono::milliseconds(a.num("timeout-ms", 300000));

    // One probe group per __consumer_offsets partition that holds any.
    std::map<int, std::size_t> probe_of_partition;
    for (std::size_t g = 0; g < groups; ++g)
        probe_of_partition.try_emplace(offsets_partition_for(fmt::format("{}{}", prefix, g), offsets_partitions), g);
    std::vector<std::string> probes;
    std::vector<std::size_t> probe_index;
    for (auto [partition, g] : probe_of_partition) {
        probes.push_back(fmt::format("{}{}", prefix, g));
        probe_index.push_back(g);
    }
    auto expected_probe = [&](std::size_t i, int p) { return fill_offset(rounds - 1, probe_index[i], p); };

    Settings settings = client_settings(a, address);
    settings.emplace_back("reconnect.backoff.ms", "10");
    settings.emplace_back("reconnect.backoff.max.ms", "100");
    // librdkafka retries COORDINATOR_LOAD_IN_PROGRESS itself: keep its back-off
    // small against the figure.
    settings.emplace_back("retry.backoff.ms", "5");

    std::vector<double> listen_ms, first_ms, all_ms;
    for (int run = 0; run < runs; ++run) {
        const auto t0 = Clock::now();
        const pid_t pid = spawn(a.positional, false, a.str("log")).pid;
        const auto deadline = t0 + timeout;
        while (!accepts(host, port)) {
            if (exited(pid)) throw std::runtime_error("server exited before listening");
            if (Clock::now() > deadline) {
                stop_child(pid, SIGKILL);
                throw std::runtime_error("server did not listen in time");
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        const double listen = seconds_since(t0) * 1000;
        KafkaHandle admin = make_client(RD_KAFKA_PRODUCER, settings);
        std::vector<std::string> pending = probes;
        std::vector<std::size_t> pending_index(probes.size());
        for (std::size_t i = 0; i < pending_index.size(); ++i) pending_index[i] = i;
        double first = -1;
        std::map<std::string, int> not_ready;  // answers other than the offsets, by reason
        std::int64_t attempts = 0;
        while (!pending.empty()) {
            if (Clock::now() > deadline) {
                stop_child(pid, SIGKILL);
                throw std::runtime_error(
                    fmt::format("{} probe groups still not loaded, e.g. {}", pending.size(), pending.front()));
            }
            ++attempts;
            auto verdict = check_groups(
                admin.get(), pending, topic, partitions,
                [&](std::size_t i, int p) { return expected_probe(pending_index[i], p); }, 64,
                std::chrono::seconds(10));
            std::vector<std::string> still;
            std::vector<std::size_t> still_index;
            for (std::size_t i = 0; i < pending.size(); ++i) {
                if (verdict[i].empty()) {
                    if (first < 0) first = seconds_since(t0) * 1000;
                    continue;
                }
                ++not_ready[token(verdict[i])];
                still.push_back(pending[i]);
                still_index.push_back(pending_index[i]);
            }
            pending = std::move(still);
            pending_index = std::move(still_index);
            if (!pending.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
        const double all = seconds_since(t0) * 1000;
        auto sample = sample_process(pid);
        Result r;
        r.add("phase", "replay_run").add("run", static_cast<std::int64_t>(run));
        r.add("listen_ms", listen).add("first_group_ms", first).add("all_probes_ms", all);
        r.add("probes", static_cast<std::int64_t>(probes.size())).add("probe_rounds", attempts);
        std::string reasons;
        for (const auto& [why, n] : not_ready) reasons += fmt::format("{}{}x{}", reasons.empty() ? "" : ",", n, why);
        r.add("not_ready", reasons.empty() ? std::string("none") : reasons);
        if (sample) r.add("rss_kb", sample->vm_rss_kb).add("hwm_kb", sample->vm_hwm_kb);
        if (verify_all && run == 0) {
            // Every group, not only the probes; not timed.
            std::vector<std::string> names;
            for (std::size_t g = 0; g < groups; ++g) names.push_back(fmt::format("{}{}", prefix, g));
            auto verdict = check_groups(
                admin.get(), names, topic, partitions,
                [&](std::size_t g, int p) { return fill_offset(rounds - 1, g, p); }, 16, std::chrono::seconds(60));
            std::int64_t bad = 0;
            std::string example;
            for (const auto& v : verdict)
                if (!v.empty() && bad++ == 0) example = v;
            r.add("verified_groups", static_cast<std::int64_t>(groups) - bad).add("bad_groups", bad);
            if (bad) r.add("bad_example", token(example));
        }
        admin.reset();
        r.add("stop_s", stop_child(pid, SIGTERM, std::chrono::seconds(60)));
        r.print();
        listen_ms.push_back(listen);
        first_ms.push_back(first);
        all_ms.push_back(all);
    }
    Result r;
    r.add("phase", "replay").add("runs", static_cast<std::int64_t>(runs));
    r.add("offsets", static_cast<std::int64_t>(groups) * partitions * rounds)
        .add("groups", static_cast<std::int64_t>(groups))
        .add("rounds", static_cast<std::int64_t>(rounds))
        .add("median_listen_ms", median(listen_ms))
        .add("median_first_group_ms", median(first_ms))
        .add("median_ms", median(all_ms))
        .print();
    return 0;
}

}  // namespace weir::bench
