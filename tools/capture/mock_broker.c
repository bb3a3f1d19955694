/* A one-broker librdkafka mock cluster for capturing client requests.
 *
 * Usage: mock_broker [timeout_seconds]   (default 60)
 * Prints the bootstrap address ("127.0.0.1:PORT") on the first stdout line,
 * then serves until stdin reaches EOF or the timeout expires.
 * Build: cc mock_broker.c $(pkg-config --cflags --libs rdkafka) -o mock_broker
 */
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *kTopic = "golden";
/* The 2.0.2 mock advertises Metadata 0..2 only, although its handler reads
 * and writes every field up to v8. Advertising 0..8 lets each client use its
 * own highest version (librdkafka 2.0.2: v4, kafkajs 2.2.4: v6), as it would
 * against a real broker. */
static const int16_t kMetadataApiKey = 3;
static const int16_t kMetadataMaxVersion = 8;

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Returns once stdin is closed or `timeout_s` seconds have passed. */
static void wait_for_eof_or_timeout(double timeout_s) {
    const double deadline = now_seconds() + timeout_s;
    int stdin_open = 1;
    for (;;) {
        const double left = deadline - now_seconds();
        if (left <= 0) return;
        const int slice_ms = left > 0.5 ? 500 : (int)(left * 1000) + 1;
        if (!stdin_open) {
            poll(NULL, 0, slice_ms);
            continue;
        }
        struct pollfd pfd = {.fd = STDIN_FILENO, .events = POLLIN};
        const int n = poll(&pfd, 1, slice_ms);
        if (n < 0 && errno != EINTR) return;
        if (n > 0) {
            char buf[256];
            const ssize_t got = read(STDIN_FILENO, buf, sizeof buf);
            if (got == 0) return; /* EOF: the capture script is done */
            if (got < 0 && errno != EINTR && errno != EAGAIN) stdin_open = 0;
        }
    }
}

int main(int argc, char **argv) {
    const double timeout_s = argc > 1 ? atof(argv[1]) : 60.0;
    char errstr[512];

    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    /* The handle only hosts the mock cluster; keep it quiet. */
    if (rd_kafka_conf_set(conf, "log_level", "3", errstr, sizeof errstr) != RD_KAFKA_CONF_OK) {
        fprintf(stderr, "conf: %s\n", errstr);
        return 1;
    }
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
    if (!rk) {
        fprintf(stderr, "rd_kafka_new: %s\n", errstr);
        return 1;
    }

    rd_kafka_mock_cluster_t *mcluster = rd_kafka_mock_cluster_new(rk, 1);
    if (!mcluster) {
        fprintf(stderr, "rd_kafka_mock_cluster_new failed\n");
        rd_kafka_destroy(rk);
        return 1;
    }
    const rd_kafka_resp_err_t err = rd_kafka_mock_topic_create(mcluster, kTopic, 1, 1);
    if (err) {
        fprintf(stderr, "topic create: %s\n", rd_kafka_err2str(err));
        rd_kafka_mock_cluster_destroy(mcluster);
        rd_kafka_destroy(rk);
        return 1;
    }

    rd_kafka_mock_set_apiversion(mcluster, kMetadataApiKey, 0, kMetadataMaxVersion);

    printf("%s\n", rd_kafka_mock_cluster_bootstraps(mcluster));
    fflush(stdout);

    wait_for_eof_or_timeout(timeout_s);

    rd_kafka_mock_cluster_destroy(mcluster);
    rd_kafka_destroy(rk);
    return 0;
}
