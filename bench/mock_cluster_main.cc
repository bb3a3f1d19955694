// The reference server of broker_bench: librdkafka's built-in mock cluster
// (in memory, not durable), one broker, in its own process so that its CPU
// and memory can be measured like Weir's. Prints "bootstrap=host:port" once
// it listens and runs until SIGTERM or SIGINT.
#include <signal.h>

#include <cstdio>

#include "cli/rdkafka/handles.h"

int main() {
    // Block the stop signals before librdkafka starts threads, so that they
    // inherit the mask and sigwait below receives them.
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGTERM);
    sigaddset(&stop, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop, nullptr);

    char err[512];
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "log_level", "3", err, sizeof err);
    weir::rdkafka::Client rk(rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err));
    if (!rk) {
        std::fprintf(stderr, "mock_cluster: rd_kafka_new: %s\n", err);
        return 1;
    }
    weir::rdkafka::MockCluster cluster(rd_kafka_mock_cluster_new(rk.get(), 1));
    if (!cluster) {
        std::fputs("mock_cluster: rd_kafka_mock_cluster_new failed\n", stderr);
        return 1;
    }
    std::printf("bootstrap=%s\n", rd_kafka_mock_cluster_bootstraps(cluster.get()));
    std::fflush(stdout);

    int sig = 0;
    sigwait(&stop, &sig);
    std::fprintf(stderr, "mock_cluster: signal %d, stopping\n", sig);
    return 0;
}
