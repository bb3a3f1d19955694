#!/usr/bin/env bash
# A normal client's latency and the broker's memory with 1,000 hostile
# connections (half declaring 100 MB frames, half pipelining fetches they
# never read; bench/hostile_clients.py) against none, same broker, same run,
# alternating. The broker runs with queued.max.request.bytes (default here
# 256 MiB) as the memory bound the issue asks for, first with fetch answers
# copied into memory (weir.fetch.zero.copy=false, the reference), then with
# them sent from the segment files (the default). Figures go to BENCHMARKS.md.
#   BUILD_DIR=build bench/run_hostile_bench.sh [--reps 3] [--quick]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build-bench}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/weir-hostile.XXXXXX")
RESULTS=$WORK/results.txt
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
bench_options 3 "$@"
CONNECTIONS=1000; SECONDS_PER_RUN=20; BOUND=$((256 << 20))
if [[ $QUICK == 1 ]]; then CONNECTIONS=100; SECONDS_PER_RUN=3; fi
bench_build weir broker_bench
WEIR=$BUILD/bin/weir
PORT=$(free_port)
WEIR_PID=
HOSTILE_PID=
trap 'kill "$HOSTILE_PID" 2>/dev/null || true; stop_pid "$WEIR_PID" TERM; rm -rf "$WORK"' EXIT
ulimit -n 20000

run_broker() {  # weir.fetch.zero.copy: false (answers copied into memory) or true (sent from the files)
  local zero_copy=$1 rep mode i
  rm -rf "$WORK/data"
  "$WEIR" serve --override "listeners=PLAINTEXT://127.0.0.1:$PORT" --override "log.dirs=$WORK/data" \
    --override weir.admin.listener= --override "queued.max.request.bytes=$BOUND" \
    --override "weir.fetch.zero.copy=$zero_copy" >"$WORK/weir.log" 2>&1 &
  WEIR_PID=$!
  wait_port "$PORT"
  "$WEIR" topics --bootstrap-server "127.0.0.1:$PORT" --create --topic fetched --partitions 1 >/dev/null
  # 20 MB for the never-reading fetchers to ask for.
  "$BUILD/bin/broker_bench" produce --bootstrap "127.0.0.1:$PORT" --topic fetched --partitions 1 --count 20000 \
    --size 1000 --acks 1 >/dev/null
  echo "RESULT rss_kb_idle $(awk '/VmRSS/ {print $2}' "/proc/$WEIR_PID/status")" | record "zero_copy=$zero_copy"
  for ((rep = 1; rep <= REPS; rep++)); do
    for mode in $([[ $((rep % 2)) == 1 ]] && echo "none hostile" || echo "hostile none"); do
      if [[ $mode == hostile ]]; then
        python3 "$ROOT/bench/hostile_clients.py" --port "$PORT" --topic fetched --connections "$CONNECTIONS" \
          >"$WORK/hostile.out" 2>&1 &
        HOSTILE_PID=$!
        for ((i = 0; i < 300; i++)); do grep -q '^open' "$WORK/hostile.out" && break; sleep 0.1; done
        sleep 2
        echo "RESULT rss_kb_hostile $(awk '/VmRSS/ {print $2}' "/proc/$WEIR_PID/status")" | record "rep=$rep" "zero_copy=$zero_copy"
        latency latency_hostile "$rep" "$zero_copy"
        echo "RESULT rss_kb_hostile_after $(awk '/VmRSS/ {print $2}' "/proc/$WEIR_PID/status") hwm_kb $(awk '/VmHWM/ {print $2}' "/proc/$WEIR_PID/status")" | record "rep=$rep" "zero_copy=$zero_copy"
        kill "$HOSTILE_PID"; wait "$HOSTILE_PID" 2>/dev/null || true; HOSTILE_PID=
        cat "$WORK/hostile.out"
      else
        latency latency_plain "$rep" "$zero_copy"
      fi
    done
  done
  stop_pid "$WEIR_PID" TERM; WEIR_PID=
}

latency() {  # label, rep, zero copy: on a topic of its own (a topic's earlier messages would count as late)
  "$WEIR" topics --bootstrap-server "127.0.0.1:$PORT" --create --topic "latency-$1-$2" --partitions 1 >/dev/null
  timeout 300 "$BUILD/bin/broker_bench" latency --bootstrap "127.0.0.1:$PORT" --topic "latency-$1-$2" --partitions 1 \
    --rate 1000 --size 1024 --seconds "$SECONDS_PER_RUN" --warmup 2 --server-pid "$WEIR_PID" --name "$1" |
    record "rep=$2" "zero_copy=$3"
}

run_broker false
run_broker true
python3 - "$RESULTS" <<'PY'
import re, statistics, sys
lat, hwm = {}, {}
for line in open(sys.argv[1]):
    mode = re.search(r"zero_copy=(\w+)", line).group(1)
    m = re.search(r"phase=(latency_\w+).*?p50_ms=([\d.e+-]+) p99_ms=([\d.e+-]+) p999_ms=([\d.e+-]+)", line)
    if m:
        lat.setdefault((mode, m.group(1)), []).append(tuple(float(x) for x in m.groups()[1:]))
    m = re.search(r"hwm_kb (\d+)", line)
    if m:
        hwm.setdefault(mode, []).append(int(m.group(1)))
for (mode, k), v in sorted(lat.items()):
    print("zero_copy=%s %s median p50 %.2f ms  p99 %.2f ms  p99.9 %.2f ms" % ((mode, k) + tuple(statistics.median(x[i] for x in v) for i in range(3))))
for mode, v in sorted(hwm.items()):
    print("zero_copy=%s broker peak RSS (VmHWM, last repetition) %.0f MB" % (mode, v[-1] / 1024))
PY
