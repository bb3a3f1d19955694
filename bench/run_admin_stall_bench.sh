#!/usr/bin/env bash
# How long creating and deleting many topics in one request stalls every other
# connection of a single broker (bench/admin_stall.py: 100 topics of 3
# partitions, one record per partition, probed by ApiVersions round trips on
# another connection), Weir against Apache Kafka 3.9.2 (ZooKeeper mode, Debian's
# ZooKeeper; tools/reference-kafka/install) in the same run. Figures go to
# BENCHMARKS.md. WEIR_BEFORE=<another weir binary> measures it too, in the same
# run (an earlier commit's build, for a before and after).
#   BUILD_DIR=build bench/run_admin_stall_bench.sh [--reps 3] [--quick]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
BUILD=${BUILD_DIR:-$ROOT/build-bench}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/weir-admin-stall.XXXXXX")
RESULTS=$WORK/results.txt
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
bench_options 3 "$@"
TOPICS=100
[[ $QUICK == 1 ]] && TOPICS=20
bench_build weir
WEIR=$BUILD/bin/weir
client_python
KAFKA_LIBS=$("$ROOT/tools/reference-kafka/install")
WEIR_PID=""; MOCK_PID=""; KAFKA_PID=""; ZK_PID=""
trap 'stop_pid "$WEIR_PID"; stop_pid "$KAFKA_PID"; stop_pid "$ZK_PID"; rm -rf "$WORK"' EXIT

# Each run starts its broker after settle (bench/lib.sh), and the order of the
# brokers turns each round.

run_weir() {  # label binary rep
  PORT=$(free_port)
  rm -rf "$WORK/weir"
  settle
  "$2" serve --override "listeners=PLAINTEXT://127.0.0.1:$PORT" --override "log.dirs=$WORK/weir" \
    --override weir.admin.listener= >"$WORK/weir.log" 2>&1 &
  WEIR_PID=$!
  wait_port "$PORT"
  "$PYTHON" "$ROOT/bench/admin_stall.py" --bootstrap "127.0.0.1:$PORT" --topics "$TOPICS" |
    record "broker=$1" "rep=$3"
  stop_pid "$WEIR_PID"; WEIR_PID=""
}

start_zookeeper
run_kafka() {  # rep
  rm -rf "$WORK/kafka"
  settle
  start_reference_kafka "kafka-$1"
  PORT=$KAFKA_PORT
  "$PYTHON" "$ROOT/bench/admin_stall.py" --bootstrap "127.0.0.1:$PORT" --topics "$TOPICS" |
    record "broker=kafka-3.9.2" "rep=$1"
  stop_pid "$KAFKA_PID"; KAFKA_PID=""
}

for ((rep = 1; rep <= REPS; rep++)); do
  order=(weir kafka)
  [[ -n ${WEIR_BEFORE:-} ]] && order=(weir-before weir kafka)
  ((rep % 2 == 0)) && order=($(printf '%s\n' "${order[@]}" | tac))
  for b in "${order[@]}"; do
    case $b in
      weir-before) run_weir weir-before "$WEIR_BEFORE" "$rep" ;;
      weir) run_weir weir "$WEIR" "$rep" ;;
      kafka) run_kafka "$rep" ;;
    esac
  done
done

echo "== medians of $REPS runs, $TOPICS topics x 3 partitions, $(nproc) cores, $(date -u +%F) =="
python3 - "$RESULTS" <<'PY'
import sys
sys.path.insert(0, "bench")
from bench_results import load, median, pick
rows = load(sys.argv[1])
print("| broker | request | call (ms) | probe median (ms) | probe p99 (ms) | probe max (ms) |")
print("| --- | --- | ---: | ---: | ---: | ---: |")
for broker in sorted(dict.fromkeys(r["broker"] for r in rows), key=lambda b: ("weir-before", "weir").index(b) if b in ("weir-before", "weir") else 2):
    for phase in ("create", "delete"):
        got = pick(rows, broker=broker, phase=phase)
        cols = [median(r[k] for r in got) for k in ("call_ms", "probe_median_ms", "probe_p99_ms", "probe_max_ms")]
        print(f"| {broker} | {phase} | {cols[0]:.0f} | {cols[1]:.2f} | {cols[2]:.1f} | {cols[3]:.1f} |")
PY
