#pragma once
// The subcommands of broker_bench; each prints one RESULT line and returns
// the exit code, throwing std::runtime_error on failure.
#include "bench/broker_bench_common.h"

namespace weir::bench {

int run_produce(const Args& a);
int run_consume(const Args& a);
int run_latency(const Args& a);
int run_startup(const Args& a);

}  // namespace weir::bench
