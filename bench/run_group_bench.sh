#!/usr/bin/env bash
# Consumer-group benchmark: Weir's group coordinator against librdkafka's mock
# cluster, in the same run. Builds what it needs (Release), starts a fresh
# Weir (temp log dir, 127.0.0.1, group.initial.rebalance.delay.ms=0) and a
# fresh mock (1 broker, `group_bench mock`: librdkafka's mock cluster as
# bench/mock_cluster runs it, with the topics created up front since the mock
# answers no CreateTopics), and runs against both, one after the other:
#   join   10 consumers, 10-partition topic, fresh group: time to a stable group
#   commit synchronous OffsetCommit of 1 and of 100 partitions, one consumer (3 x 5 s)
#   memory server RSS growth per 10,000 committed group-partitions (fresh servers)
# then, Weir only (the mock keeps nothing across restarts):
#   replay 1,000,000 offsets committed (1,000 groups x 1,000 partitions, each
#          key once), SIGTERM, time from spawn until OffsetFetch answers with
#          the committed offsets; the same for 1,000 rounds of one group's
#          1,000 partitions (1,000 live keys, 1,000,000 records).
# Prints a markdown table of medians; raw RESULT lines are kept next to it.
#
#   bench/run_group_bench.sh [--reps 5] [--quick]
#
# --quick: small counts (a smoke test of the script, figures meaningless).
# Env: BUILD_DIR (default build-gbench), BENCH_TMP (default /tmp).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build-gbench}
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
bench_options 5 "$@"

COMMIT_S=5; COMMIT_REPS=3; MEM_ROUNDS=3; FILL_GROUPS=1000; FILL_ROUNDS=1000; FILL_PARTS=1000; REPLAY_RUNS=3
if [[ $QUICK == 1 ]]; then
  REPS=2; COMMIT_S=2; COMMIT_REPS=1; MEM_ROUNDS=1; FILL_GROUPS=20; FILL_ROUNDS=20; FILL_PARTS=100; REPLAY_RUNS=1
fi

# --- build ---------------------------------------------------------------
bench_build -j1 weir group_bench
WEIR=$BUILD/bin/weir
BENCH=$BUILD/bin/group_bench

WORK=$(mktemp -d "${BENCH_TMP:-/tmp}/weir-group-bench.XXXXXX")
RESULTS=$BUILD/group_bench_results.txt
TABLE=$BUILD/group_bench_table.md
: >"$RESULTS"
WEIR_PID=""; MOCK_PID=""

trap cleanup EXIT

weir_args() {  # data dir, port
  echo serve --override "listeners=PLAINTEXT://127.0.0.1:$2" --override "log.dirs=$1" \
    --override weir.admin.listener=http://127.0.0.1:0 \
    --override group.initial.rebalance.delay.ms=0
}

start_weir() {  # data dir
  WEIR_PORT=$(free_port)
  # shellcheck disable=SC2046
  "$WEIR" $(weir_args "$1" "$WEIR_PORT") >>"$WORK/weir.log" 2>&1 &
  WEIR_PID=$!
  wait_port "$WEIR_PORT"
  WEIR_BOOT=127.0.0.1:$WEIR_PORT
}

start_mock() {
  : >"$WORK/mock.out"
  "$BENCH" mock --topics join:10,commit1:1,commit100:100,mem:1000 >"$WORK/mock.out" 2>>"$WORK/mock.log" &
  MOCK_PID=$!
  local i
  for ((i = 0; i < 600; i++)); do grep -q '^bootstrap=' "$WORK/mock.out" && break; sleep 0.05; done
  MOCK_BOOT=$(sed -n 's/^bootstrap=//p' "$WORK/mock.out")
  [[ -n $MOCK_BOOT ]] || { echo "mock did not start" >&2; return 1; }
}

bench() {  # server label, subcommand args...
  local server=$1; shift
  local pid boot
  if [[ $server == weir ]]; then pid=$WEIR_PID boot=$WEIR_BOOT; else pid=$MOCK_PID boot=$MOCK_BOOT; fi
  # shellcheck disable=SC2086
  timeout 600 "$BENCH" "$@" --bootstrap "$boot" --server-pid "$pid" | record server="$server" ${LABELS:-}
}

server_totals() {  # label
  local server pid
  for server in weir mock; do
    if [[ $server == weir ]]; then pid=$WEIR_PID; else pid=$MOCK_PID; fi
    echo "RESULT phase=server_total part=$1 hwm_kb=$(awk '/VmHWM/{print $2}' /proc/$pid/status)" \
      "rss_kb=$(awk '/VmRSS/{print $2}' /proc/$pid/status)" \
      "cpu_s=$(awk -v t="$(getconf CLK_TCK)" '{sub(/.*\) /,""); split($0,f," "); print (f[12]+f[13])/t}' /proc/$pid/stat)" \
      "server=$server" | tee -a "$RESULTS"
  done
}

offsets_log_bytes() {  # data dir
  du -sbc "$1"/__consumer_offsets-* 2>/dev/null | tail -1 | cut -f1
}

echo "RESULT phase=env nproc=$(nproc) loadavg_start=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' '/')" \
  "cpu=\"$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1 | tr ' ' '_')\" date=$(date -u +%FT%TZ)" | tee -a "$RESULTS"

# --- join and commit: one Weir, one mock ---------------------------------------
echo "== join and commit (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
mkdir -p "$WORK/data"
start_weir "$WORK/data"
start_mock
for server in weir mock; do
  bench $server join --topic join --partitions 10 --members 10 --reps "$REPS"
done
# Diagnostic: a member that already finished the first generation hears of
# the next one at its next heartbeat (librdkafka default 3 s).
for server in weir mock; do
  LABELS=variant=hb100 bench $server join --topic join --partitions 10 --members 10 --reps "$REPS" \
    --set heartbeat.interval.ms=100
done
# Short slices, Weir and mock alternating, so that a change in the machine's
# load hits both.
for ((rep = 1; rep <= COMMIT_REPS; rep++)); do
  for parts in 1 100; do
    for server in weir mock; do
      LABELS=rep=$rep bench $server commit --topic "commit$parts" --partitions $parts --seconds $COMMIT_S
    done
  done
done
server_totals join_commit
stop_pid "$WEIR_PID"; WEIR_PID=""
stop_pid "$MOCK_PID"; MOCK_PID=""

# --- memory: fresh servers ------------------------------------------------------
echo "== memory (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
rm -rf "$WORK/data"; mkdir -p "$WORK/data"
start_weir "$WORK/data"
start_mock
for server in weir mock; do
  bench $server memory --topic mem --partitions 1000 --groups 10 --rounds $MEM_ROUNDS
done
server_totals memory
stop_pid "$WEIR_PID"; WEIR_PID=""
stop_pid "$MOCK_PID"; MOCK_PID=""

# --- replay: Weir only -------------------------------------------------------
# shape label, groups, rounds, window (one group's rounds must stay in order)
replay_case() {
  local label=$1 groups=$2 rounds=$3 window=$4 dir="$WORK/replay-$1"
  echo "== replay $label (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
  rm -rf "$dir"; mkdir -p "$dir"
  start_weir "$dir"
  timeout 900 "$BENCH" fill --bootstrap "$WEIR_BOOT" --server-pid "$WEIR_PID" --topic fill --partitions $FILL_PARTS \
    --groups "$groups" --rounds "$rounds" --window "$window" --group-prefix "fill-" | record server=weir case="$label"
  stop_pid "$WEIR_PID"; WEIR_PID=""
  echo "RESULT phase=offsets_log bytes=$(offsets_log_bytes "$dir") files=$(find "$dir" -path '*__consumer_offsets-*' -type f | wc -l)" \
    "server=weir case=$label" | tee -a "$RESULTS"
  local port
  port=$(free_port)
  # shellcheck disable=SC2046
  timeout 900 "$BENCH" replay --address 127.0.0.1:"$port" --runs $REPLAY_RUNS --topic fill --partitions $FILL_PARTS \
    --groups "$groups" --rounds "$rounds" --group-prefix "fill-" --log "$WORK/replay.log" \
    -- "$WEIR" $(weir_args "$dir" "$port") | record server=weir case="$label"
  # Weir's own account of each start: start-up, slowest partition load, offsets loaded.
  awk -v label="$label" '
    function flush() { if (run >= 0) printf "RESULT phase=replay_log run=%d started_ms=%s max_load_ms=%s offsets=%d server=weir case=%s\n", run, started, maxload, offsets, label }
    / started in / { flush(); run++; started = $0; sub(/.* started in /, "", started); sub(/ ms.*/, "", started); maxload = 0; offsets = 0 }
    / INFO replayed [0-9]+ records of __consumer_offsets-/ {
      ms = $0; sub(/.* in /, "", ms); sub(/ ms.*/, "", ms); if (ms + 0 > maxload + 0) maxload = ms }
    / INFO loaded .* offsets\) from __consumer_offsets/ {
      n = $0; sub(/.*groups \(/, "", n); sub(/ offsets.*/, "", n); offsets += n }
    BEGIN { run = -1 } END { flush() }' "$WORK/replay.log" | tee -a "$RESULTS"
  cat "$WORK/replay.log" >>"$WORK/weir.log"; rm -f "$WORK/replay.log"
  echo "RESULT phase=offsets_log_after bytes=$(offsets_log_bytes "$dir") server=weir case=$label" | tee -a "$RESULTS"
  rm -rf "$dir"
}
replay_case distinct "$FILL_GROUPS" 1 4
replay_case repeated 1 "$FILL_ROUNDS" 1

echo "RESULT phase=env loadavg_end=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' '/')" | tee -a "$RESULTS"
grep -ciE 'error|warn' "$WORK/weir.log" | sed 's/^/weir.log error|warn lines: /' >&2 || true
cp "$WORK/weir.log" "$BUILD/group_bench_weir.log"

# --- table -----------------------------------------------------------------
python3 "$ROOT/bench/group_bench_table.py" "$RESULTS" | tee "$TABLE"
echo "raw results: $RESULTS, table: $TABLE, weir log: $BUILD/group_bench_weir.log" >&2
