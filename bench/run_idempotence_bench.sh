#!/usr/bin/env bash
# What idempotence and transactions cost. Each repetition runs, in alternating
# order (ABBA), these producers (acks=all, librdkafka's defaults otherwise),
# each writing COUNT 100-byte messages to a fresh 4-partition topic:
#   plain       enable.idempotence=false
#   plain-mif5  plain, capped at five requests in flight as librdkafka caps an
#               idempotent producer: the control that leaves only the broker's
#               idempotence work as the difference to the next one
#   idempotent  enable.idempotence=true
#   txn-100     transactional, a commit every 100 messages (COUNT/10 messages)
#   txn-1000    transactional, a commit every 1,000 messages (COUNT/10 messages)
# against Weir (one broker) and, in the same run, against librdkafka's mock
# cluster (in memory, restarted per run) as the reference. Prints medians of
# throughput and broker CPU per GB, and the ratios to `plain` of each server.
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
bench_build weir broker_bench mock_cluster
WEIR=$BUILD/bin/weir
MOCK=$BUILD/bin/mock_cluster
PORT=$(free_port)
WEIR_PID=""; MOCK_PID=""; MOCK_BOOT=""
trap cleanup EXIT

# transaction.state.log.replication.factor is capped at the live brokers anyway.
"$WEIR" serve --override "listeners=PLAINTEXT://127.0.0.1:$PORT" --override "log.dirs=$WORK/data" \
  --override "weir.admin.listener=" >"$WORK/weir.log" 2>&1 &
WEIR_PID=$!
wait_port "$PORT"

MODES=(plain plain-mif5 idempotent txn-100 txn-1000)

produce() {  # server mode rep: into a fresh topic, so that runs do not fill the disk or the mock's memory
  local server=$1 mode=$2 rep=$3 pid boot count=$COUNT args=()
  case $mode in
    plain) args=(--idempotence false) ;;
    plain-mif5) args=(--idempotence false --set max.in.flight=5) ;;
    idempotent) args=(--idempotence true) ;;
    txn-*) args=(--idempotence true --transaction-size "${mode#txn-}" --transactional-id "bench-$rep")
      count=$((COUNT / 10)) ;;
  esac
  if [[ $server == weir ]]; then
    "$WEIR" topics --bootstrap-server "127.0.0.1:$PORT" --delete --topic produced >/dev/null 2>&1 || true
    "$WEIR" topics --bootstrap-server "127.0.0.1:$PORT" --create --topic produced --partitions 4 >/dev/null
    pid=$WEIR_PID boot=127.0.0.1:$PORT
  else
    start_mock
    pid=$MOCK_PID boot=$MOCK_BOOT
  fi
  timeout 900 "$BUILD/bin/broker_bench" produce --bootstrap "$boot" --topic produced --partitions 4 \
    --count "$count" --size 100 --acks all "${args[@]}" --server-pid "$pid" --name "produce_$mode" |
    record "server=$server" "mode=$mode" "rep=$rep"
  if [[ $server == mock ]]; then stop_pid "$MOCK_PID"; MOCK_PID=""; fi
}

for ((rep = 1; rep <= REPS; rep++)); do
  order=("${MODES[@]}")
  if ((rep % 2 == 0)); then order=(); for ((i = ${#MODES[@]} - 1; i >= 0; i--)); do order+=("${MODES[i]}"); done; fi
  for mode in "${order[@]}"; do
    produce weir "$mode" "$rep"
    produce mock "$mode" "$rep"
  done
done
python3 - "$RESULTS" <<'PY'
import re, statistics, sys
rate, cpu = {}, {}
for line in open(sys.argv[1]):
    f = dict(re.findall(r"(\w+)=(\S+)", line))
    if "mode" not in f:
        continue
    key = (f["server"], f["mode"])
    rate.setdefault(key, []).append(float(f["msgs_per_s"]))
    cpu.setdefault(key, []).append(float(f["server_cpu_s"]) / (int(f["payload_bytes"]) / 1e9))
med = lambda d, k: statistics.median(d[k]) if k in d else float("nan")
modes = ["plain", "plain-mif5", "idempotent", "txn-100", "txn-1000"]
print(f"{'mode':<12} {'weir msgs/s':>12} {'ratio':>6} {'CPU s/GB':>9} {'ratio':>6}"
      f" {'mock msgs/s':>12} {'ratio':>6} {'CPU s/GB':>9} {'ratio':>6}")
for m in modes:
    row = f"{m:<12}"
    for s in ("weir", "mock"):
        r, c = med(rate, (s, m)), med(cpu, (s, m))
        row += f" {r:>12,.0f} {r / med(rate, (s, 'plain')):>6.2f} {c:>9.2f} {c / med(cpu, (s, 'plain')):>6.2f}"
    print(row)
i, p5 = ("weir", "idempotent"), ("weir", "plain-mif5")
print(f"weir idempotent / plain-mif5: msgs/s {med(rate, i) / med(rate, p5):.3f}, CPU per GB {med(cpu, i) / med(cpu, p5):.3f}")
PY
