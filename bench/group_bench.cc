// group_bench: the consumer-group benchmark (join time, OffsetCommit
// throughput, memory per committed offset, replay of __consumer_offsets at
// start-up) against any Kafka bootstrap, with librdkafka.
// run_group_bench.sh drives it against Weir and librdkafka's mock cluster.
//
//   group_bench join    --bootstrap H:P [--topic join --partitions 10 --members 10 --reps 5 --hold-ms 1000]
//   group_bench commit  --bootstrap H:P --partitions K [--seconds 10 --warmup 1]
//   group_bench memory  --bootstrap H:P --server-pid PID [--partitions 1000 --groups 10 --rounds 3 --warm-groups 200]
//   group_bench fill    --bootstrap H:P [--partitions 1000 --groups 1000 --rounds 1 --group-prefix fill- --window 4]
//   group_bench replay  --address H:P [--runs 3 --log F --offsets-partitions 50 --verify-all 1] (fill's shape) --
//   server argv... group_bench mock    --topics name:partitions,...   (librdkafka's mock cluster with those topics;
//   until SIGTERM)
//
// Common: --server-pid PID (server CPU and memory around the phase),
// --set k=v,k=v (extra client settings, diagnostics only).
// Every subcommand prints "RESULT k=v ..." lines.
#include <fmt/core.h>

#include <cstdio>
#include <exception>
#include <string>

#include "bench/group_bench_phases.h"

int main(int argc, char** argv) {
    using namespace weir::bench;
    if (argc < 2) {
        std::fputs("usage: group_bench join|commit|memory|fill|replay|mock --key value ... (see group_bench.cc)\n",
                   stderr);
        return 2;
    }
    const std::string command = argv[1];
    try {
        Args a = parse_args(argc, argv, 2);
        if (command == "join") return run_join(a);
        if (command == "commit") return run_commit(a);
        if (command == "memory") return run_memory(a);
        if (command == "fill") return run_fill(a);
        if (command == "replay") return run_replay(a);
        if (command == "mock") return run_mock(a);
        fmt::print(stderr, "group_bench: unknown command {}\n", command);
        return 2;
    } catch (const std::exception& e) {
        fmt::print(stderr, "group_bench {}: {}\n", command, e.what());
        return 1;
    }
}
