// broker_bench: the single-node broker benchmark (produce and consume
// throughput, end-to-end latency, start-up time) against any Kafka bootstrap,
// with librdkafka. run_broker_bench.sh drives it against Weir and the mock.
//
//   broker_bench produce --bootstrap H:P --topic T --count N --size B --acks 1|all [--idempotence true|false]
//                        [--transaction-size N [--transactional-id ID]] [--server-pid PID]
//   broker_bench consume --bootstrap H:P --topic T [--min-bytes N] [--server-pid PID]
//   broker_bench latency --bootstrap H:P --topic T [--rate 1000 --size 1024 --seconds 20 --warmup 2] [--server-pid PID]
//   broker_bench startup --address H:P|stdout [--runs 5 --stop term|kill --idle-ms MS --prepare CMD --log F] -- server
//   argv...
//
// Common: --partitions N (4), --name PHASE (label of the RESULT line),
// --set k=v,k=v (extra producer settings, diagnostics only).
// Every subcommand prints one "RESULT k=v ..." line (startup: one per run too).
#include <fmt/core.h>

#include <cstdio>
#include <exception>
#include <string>

#include "bench/broker_bench_phases.h"

int main(int argc, char** argv) {
    using namespace weir::bench;
    if (argc < 2) {
        std::fputs("usage: broker_bench produce|consume|latency|startup --key value ... (see broker_bench.cc)\n",
                   stderr);
        return 2;
    }
    const std::string command = argv[1];
    try {
        Args a = parse_args(argc, argv, 2);
        if (command == "produce") return run_produce(a);
        if (command == "consume") return run_consume(a);
        if (command == "latency") return run_latency(a);
        if (command == "startup") return run_startup(a);
        fmt::print(stderr, "broker_bench: unknown command {}\n", command);
        return 2;
    } catch (const std::exception& e) {
        fmt::print(stderr, "broker_bench {}: {}\n", command, e.what());
        return 1;
    }
}
