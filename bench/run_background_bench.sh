#!/usr/bin/env bash
# End-to-end latency while a single broker does its background disk work:
# 1,000 msg/s of 1 KiB (broker_bench latency, linger.ms=0, 4 partitions) on a
# quiet broker, and on a busy one where every log rolls each second
# (log.roll.ms=1000) and a compacted topic is rewritten at 2,000 records/s for
# the cleaner (bench/background_churn.py; log.cleaner.backoff.ms=1000 so it
# looks every second). Weir against Apache Kafka 3.9.2 (ZooKeeper mode,
# tools/reference-kafka/install) with the same settings, in the same run;
# WEIR_BEFORE=<another weir binary> adds an earlier build. Each run starts on
# an empty log dir after a sync; the order of the brokers turns each round.
#   BUILD_DIR=build bench/run_background_bench.sh [--reps 3] [--quick]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
BUILD=${BUILD_DIR:-$ROOT/build-bench}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/weir-background.XXXXXX")
RESULTS=$WORK/results.txt
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
bench_options 3 "$@"
SECONDS_RUN=20
[[ $QUICK == 1 ]] && SECONDS_RUN=4
bench_build weir broker_bench
WEIR=$BUILD/bin/weir
BENCH=$BUILD/bin/broker_bench
client_python
KAFKA_LIBS=$("$ROOT/tools/reference-kafka/install")
WEIR_PID=""; MOCK_PID=""; KAFKA_PID=""; ZK_PID=""; CHURN_PID=""
trap 'stop_pid "$CHURN_PID"; stop_pid "$WEIR_PID"; stop_pid "$KAFKA_PID"; stop_pid "$ZK_PID"; rm -rf "$WORK"' EXIT

# The settings of each load, as server.properties lines (both brokers take Kafka's keys).
settings() {  # load
  echo "num.partitions=4"
  if [[ $1 == busy ]]; then
    echo "log.roll.ms=1000"
    echo "log.cleaner.backoff.ms=1000"
  fi
}

measure() {  # broker label, load, rep, bootstrap, log dir
  if [[ $2 == busy ]]; then
    "$PYTHON" "$ROOT/bench/background_churn.py" --bootstrap "$4" --seconds $((SECONDS_RUN + 4)) --log-dir "$5" \
      >"$WORK/churn.out" 2>"$WORK/churn.err" &
    CHURN_PID=$!
    sleep 2  # the churn is under way before the clock starts
  fi
  timeout 300 "$BENCH" latency --bootstrap "$4" --topic "lat-$2-r$3" --rate 1000 --size 1024 \
    --seconds "$SECONDS_RUN" --partitions 4 --set linger.ms=0 | record "broker=$1" "load=$2" "rep=$3"
  if [[ -n $CHURN_PID ]]; then
    wait "$CHURN_PID" || { cat "$WORK/churn.err" >&2; exit 1; }
    CHURN_PID=""
    record "broker=$1" "load=$2" "rep=$3" <"$WORK/churn.out"
  fi
}

run_weir() {  # label binary load rep
  local port args=()
  port=$(free_port)
  rm -rf "$WORK/weir"
  settle
  while IFS= read -r line; do args+=(--override "$line"); done < <(settings "$3")
  "$2" serve --override "listeners=PLAINTEXT://127.0.0.1:$port" --override "log.dirs=$WORK/weir" \
    --override weir.admin.listener= "${args[@]}" >"$WORK/weir.log" 2>&1 &
  WEIR_PID=$!
  wait_port "$port"
  measure "$1" "$3" "$4" "127.0.0.1:$port" "$WORK/weir"
  stop_pid "$WEIR_PID"; WEIR_PID=""
}

run_kafka() {  # load rep
  rm -rf "$WORK/kafka"
  settle
  mapfile -t extra < <(settings "$1")
  start_reference_kafka "kafka-$1-$2" "${extra[@]}"
  measure kafka-3.9.2 "$1" "$2" "127.0.0.1:$KAFKA_PORT" "$WORK/kafka"
  stop_pid "$KAFKA_PID"; KAFKA_PID=""
}

start_zookeeper
for ((rep = 1; rep <= REPS; rep++)); do
  order=(weir kafka)
  [[ -n ${WEIR_BEFORE:-} ]] && order=(weir-before weir kafka)
  ((rep % 2 == 0)) && order=($(printf '%s\n' "${order[@]}" | tac))
  for load in quiet busy; do
    for b in "${order[@]}"; do
      case $b in
        weir-before) run_weir weir-before "$WEIR_BEFORE" "$load" "$rep" ;;
        weir) run_weir weir "$WEIR" "$load" "$rep" ;;
        kafka) run_kafka "$load" "$rep" ;;
      esac
    done
  done
done

echo "== medians of $REPS runs, ${SECONDS_RUN} s each, $(nproc) cores, $(date -u +%F) =="
python3 - "$RESULTS" <<'PY'
import sys
sys.path.insert(0, "bench")
from bench_results import load, median, pick
rows = load(sys.argv[1])
order = ("weir-before", "weir", "kafka-3.9.2")
print("| broker | load | p50 (ms) | p99 (ms) | p99.9 (ms) | max (ms) | churn on disk / written |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
for broker in [b for b in order if any(r["broker"] == b for r in rows)]:
    for load_ in ("quiet", "busy"):
        got = pick(rows, broker=broker, load=load_, phase="latency")
        if not got:
            continue
        cols = [median(r[k] for r in got) for k in ("p50_ms", "p99_ms", "p999_ms", "max_ms")]
        churn = pick(rows, broker=broker, load=load_, phase="churn")
        kept = f"{median(float(r['on_disk_bytes']) / float(r['written_bytes']) for r in churn):.2f}" if churn else "-"
        print(f"| {broker} | {load_} | {cols[0]:.2f} | {cols[1]:.2f} | {cols[2]:.2f} | {cols[3]:.1f} | {kept} |")
PY
