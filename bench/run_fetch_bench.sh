#!/usr/bin/env bash
# Fetch answers sent from the segment files (weir.fetch.zero.copy=true, the
# default) against copied into memory (false, the reference), same build,
# same data, same run, alternating: a librdkafka consumer (defaults) reads
# 1 GB (1,000,000 messages of 1 KiB in 4 partitions) from a broker started
# for each run on a clean log. Reports consume throughput, broker CPU per GB
# and the broker's peak RSS. Figures go to BENCHMARKS.md.
#   BUILD_DIR=build bench/run_fetch_bench.sh [--reps 5] [--quick]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build-bench}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/weir-fetch.XXXXXX")
RESULTS=$WORK/results.txt
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
bench_options 5 "$@"
COUNT=1000000
if [[ $QUICK == 1 ]]; then COUNT=20000; fi
bench_build weir broker_bench
WEIR=$BUILD/bin/weir
PORT=$(free_port)
WEIR_PID=
trap 'stop_pid "$WEIR_PID" TERM; rm -rf "$WORK"' EXIT

start_weir() {  # zero copy: true|false
  "$WEIR" serve --override "listeners=PLAINTEXT://127.0.0.1:$PORT" --override "log.dirs=$WORK/data" \
    --override weir.admin.listener= --override "weir.fetch.zero.copy=$1" >>"$WORK/weir.log" 2>&1 &
  WEIR_PID=$!
  wait_port "$PORT"
}

start_weir true
"$WEIR" topics --bootstrap-server "127.0.0.1:$PORT" --create --topic fetched --partitions 4 >/dev/null
timeout 600 "$BUILD/bin/broker_bench" produce --bootstrap "127.0.0.1:$PORT" --topic fetched --partitions 4 \
  --count "$COUNT" --size 1024 --acks 1 >/dev/null
stop_pid "$WEIR_PID" TERM; WEIR_PID=
echo "RESULT phase=env nproc=$(nproc) log_bytes=$(du -sb "$WORK/data" | cut -f1) date=$(date -u +%FT%TZ)" | record

for ((rep = 1; rep <= REPS; rep++)); do
  for zero_copy in $([[ $((rep % 2)) == 1 ]] && echo "false true" || echo "true false"); do
    start_weir "$zero_copy"
    # A first pass warms the page cache for both modes alike.
    [[ $rep == 1 ]] && timeout 600 "$BUILD/bin/broker_bench" consume --bootstrap "127.0.0.1:$PORT" --topic fetched \
      --partitions 4 >/dev/null
    timeout 600 "$BUILD/bin/broker_bench" consume --bootstrap "127.0.0.1:$PORT" --topic fetched --partitions 4 \
      --server-pid "$WEIR_PID" | record "zero_copy=$zero_copy" "rep=$rep"
    echo "RESULT phase=broker hwm_kb=$(awk '/VmHWM/ {print $2}' "/proc/$WEIR_PID/status")" |
      record "zero_copy=$zero_copy" "rep=$rep"
    stop_pid "$WEIR_PID" TERM; WEIR_PID=
  done
done
python3 - "$RESULTS" <<'PY'
import re, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    kv = dict(re.findall(r"(\w+)=(\S+)", line))
    if "zero_copy" not in kv:
        continue
    r = runs.setdefault(kv["zero_copy"], {"msgs_per_s": [], "cpu_per_gb": [], "hwm_mb": []})
    if kv.get("phase") == "consume":
        r["msgs_per_s"].append(float(kv["msgs_per_s"]))
        r["cpu_per_gb"].append(float(kv["server_cpu_s"]) / (float(kv["payload_bytes"]) / 1e9))
    elif kv.get("phase") == "broker":
        r["hwm_mb"].append(float(kv["hwm_kb"]) / 1024)
med = {mode: {k: statistics.median(v) for k, v in r.items()} for mode, r in runs.items()}
print("| median of %d | copied (false) | sendfile (true) | ratio |" % len(runs["true"]["msgs_per_s"]))
print("|---|---|---|---|")
for key, label in (("msgs_per_s", "consume msgs/s"), ("cpu_per_gb", "broker CPU s per GB"), ("hwm_mb", "broker peak RSS MB")):
    a, b = med["false"][key], med["true"][key]
    print("| %s | %.3f | %.3f | %.2f |" % (label, a, b, b / a))
PY
