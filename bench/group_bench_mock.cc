// group_bench mock: librdkafka's mock cluster (one broker, in memory), as
// bench/mock_cluster runs it, plus topics created up front: the mock answers
// no CreateTopics and auto-creates 4 partitions, and the group phases need
// 10, 100 and 1,000. Prints "bootstrap=host:port", runs until SIGTERM/SIGINT.
#include <signal.h>

#include <cstdio>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "bench/group_bench_phases.h"

namespace weir::bench {

int run_mock(const Args& a) {
    // Block the stop signals before librdkafka starts threads, so that they
    // inherit the mask and sigwait below receives them.
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop, nullptr);

    KafkaHandle rk = make_client(RD_KAFKA_PRODUCER, {{"log_level", "3"}});
    rdkafka::MockCluster cluster(rd_kafka_mock_cluster_new(rk.get(), 1));
    if (!cluster) throw std::runtime_error("rd_kafka_mock_cluster_new failed");
    std::stringstream topics(a.str("topics"));
    for (std::string spec; std::getline(topics, spec, ',');) {
        auto colon = spec.find(':');
        if (colon == std::string::npos) throw std::runtime_error("--topics wants name:partitions,..., got " + spec);
        const std::string name = spec.substr(0, colon);
        if (auto e = rd_kafka_mock_topic_create(cluster.get(), name.c_str(), std::stoi(spec.substr(colon + 1)), 1))
            throw std::runtime_error("creating " + name + ": " + rd_kafka_err2name(e));
    }
    std::printf("bootstrap=%s\n", rd_kafka_mock_cluster_bootstraps(cluster.get()));
    std::fflush(stdout);
    int sig = 0;
    sigwait(&stop, &sig);
    return 0;
}

}  // namespace weir::bench
