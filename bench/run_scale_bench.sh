#!/usr/bin/env bash
# Recovery at scale: one topic of N partitions (default 10,000) with a few
# messages in each, then per repetition: a clean restart (the reference), a
# restart after SIGKILL, and the time SIGTERM takes; RSS, open files and
# mappings of the running broker. Twice: with the default budget of open
# segment files (weir.log.max.open.files) and with every file kept open (0, as
# Kafka does), side by side. Figures go to BENCHMARKS.md.
#   BUILD_DIR=build bench/run_scale_bench.sh [--reps N] [--quick]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build-bench}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/weir-scale.XXXXXX")
RESULTS=$WORK/results.txt
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
bench_options 3 "$@"
PARTITIONS=$([[ $QUICK == 1 ]] && echo 1000 || echo 10000)
bench_build weir
WEIR=$BUILD/bin/weir
PORT=$(free_port)
WEIR_PID=
trap 'stop_pid "$WEIR_PID" KILL; rm -rf "$WORK"' EXIT

start() {  # sets STARTED_MS to the broker's own start-up time once it logs it
  "$WEIR" serve --override "listeners=PLAINTEXT://127.0.0.1:$PORT" --override "log.dirs=$WORK/data" \
    --override weir.admin.listener= "${MODE_OVERRIDES[@]}" >"$WORK/weir.log" 2>&1 &
  WEIR_PID=$!
  local i
  for ((i = 0; i < 1200; i++)); do
    if grep -q "started in" "$WORK/weir.log"; then
      STARTED_MS=$(sed -n 's/.*started in \([0-9.]*\) ms.*/\1/p' "$WORK/weir.log")
      return
    fi
    sleep 0.1
  done
  echo "weir did not start within 120 s" >&2
  exit 1
}
seconds_since() { echo "$(date +%s.%N) - $1" | bc; }

for MODE in bounded all-open; do
  MODE_OVERRIDES=()
  [[ $MODE == all-open ]] && MODE_OVERRIDES=(--override weir.log.max.open.files=0)
  rm -rf "$WORK/data"
  start
  t0=$(date +%s.%N)
  "$WEIR" topics --bootstrap-server "127.0.0.1:$PORT" --create --topic scale --partitions "$PARTITIONS" >/dev/null 2>&1 || true
  for ((i = 0; i < 1200; i++)); do
    [[ $(find "$WORK/data" -maxdepth 1 -name 'scale-*' | wc -l) -ge $PARTITIONS ]] && break
    sleep 0.1
  done
  echo "RESULT create_s $(seconds_since "$t0")" | record "partitions=$PARTITIONS" "mode=$MODE"
  seq 1 $((PARTITIONS * 2)) | sed 's/.*/k&:v&/' | kcat -P -b "127.0.0.1:$PORT" -t scale -K: 2>/dev/null
  sleep 1
  echo "RESULT rss_kb $(awk '/VmRSS/ {print $2}' "/proc/$WEIR_PID/status")" | record "mode=$MODE"
  echo "RESULT open_files $(find "/proc/$WEIR_PID/fd" -mindepth 1 | wc -l)" | record "mode=$MODE"
  echo "RESULT mappings $(wc -l <"/proc/$WEIR_PID/maps")" | record "mode=$MODE"
  for ((rep = 1; rep <= REPS; rep++)); do
    t0=$(date +%s.%N)
    stop_pid "$WEIR_PID" TERM
    echo "RESULT sigterm_exit_s $(seconds_since "$t0")" | record "rep=$rep" "mode=$MODE"
    start
    echo "RESULT clean_restart_ms $STARTED_MS" | record "rep=$rep" "mode=$MODE"
    sleep 1
    stop_pid "$WEIR_PID" KILL
    start
    echo "RESULT sigkill_restart_ms $STARTED_MS" | record "rep=$rep" "mode=$MODE"
  done
  stop_pid "$WEIR_PID" TERM
  WEIR_PID=
done
echo "results: $RESULTS"
cat "$RESULTS"
