#!/usr/bin/env bash
# What idempotence costs: per repetition one run of a plain producer and one of
# an idempotent producer (enable.idempotence=true; both acks=all, librdkafka's
# other defaults), in alternating order, against the same broker in the same
# run; each run writes COUNT 100-byte messages to a fresh 4-partition topic.
# Prints the medians and ratios of throughput and broker CPU per GB (the
# target: within 5%).
#   BUILD_DIR=build bench/run_idempotence_bench.sh [--reps 5] [--quick]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build-bench}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/weir-idempotence.XXXXXX")
RESULTS=$WORK/results.txt
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
bench_options 5 "$@"
COUNT=5000000
if [[ $QUICK == 1 ]]; then COUNT=500000; fi
bench_build weir broker_bench
WEIR=$BUILD/bin/weir
PORT=$(free_port)
WEIR_PID=
trap 'stop_pid "$WEIR_PID" TERM; rm -rf "$WORK"' EXIT

"$WEIR" serve --override "listeners=PLAINTEXT://127.0.0.1:$PORT" --override "log.dirs=$WORK/data" \
  --override "weir.admin.listener=" >"$WORK/weir.log" 2>&1 &
WEIR_PID=$!
wait_port "$PORT"

produce() {  # idempotence true|false, rep: into a fresh topic, so that runs do not fill the disk
  "$WEIR" topics --bootstrap-server "127.0.0.1:$PORT" --delete --topic produced >/dev/null 2>&1 || true
  "$WEIR" topics --bootstrap-server "127.0.0.1:$PORT" --create --topic produced --partitions 4 >/dev/null
  timeout 900 "$BUILD/bin/broker_bench" produce --bootstrap "127.0.0.1:$PORT" --topic produced --partitions 4 \
    --count "$COUNT" --size 100 --acks all --idempotence "$1" --server-pid "$WEIR_PID" \
    --name "produce_idempotence_$1" | record "rep=$2"
}

for ((rep = 1; rep <= REPS; rep++)); do
  for mode in $([[ $((rep % 2)) == 1 ]] && echo "false true" || echo "true false"); do
    produce "$mode" "$rep"
  done
done
python3 - "$RESULTS" <<'PY'
import re, statistics, sys
rates, cpu_per_gb = {}, {}
for line in open(sys.argv[1]):
    m = re.search(r"RESULT server_cpu_s=([\d.]+).*phase=produce_idempotence_(\w+).*?msgs_per_s=([\d.e+]+)"
                  r".*?payload_bytes=(\d+)", line)
    if m:
        cpu_per_gb.setdefault(m.group(2), []).append(float(m.group(1)) / (int(m.group(4)) / 1e9))
        rates.setdefault(m.group(2), []).append(float(m.group(3)))
med = lambda d, k: statistics.median(d.get(k, [0]))
plain, idem = med(rates, "false"), med(rates, "true")
print(f"median msgs/s: plain {plain:,.0f}  idempotent {idem:,.0f}  ratio {idem / plain:.3f}")
plain, idem = med(cpu_per_gb, "false"), med(cpu_per_gb, "true")
print(f"median broker CPU s per GB: plain {plain:.2f}  idempotent {idem:.2f}  ratio {idem / plain:.3f}")
PY
