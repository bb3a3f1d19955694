#!/usr/bin/env bash
# Single-node broker benchmark: Weir against librdkafka's mock cluster, in the
# same run. Builds what it needs (Release), then for each repetition starts a
# fresh Weir (temp log dir, 127.0.0.1, auto-create on, num.partitions=4) and a
# fresh mock (1 broker, auto-created topics have 4 partitions), runs every
# client phase against both, one after the other, and stops both. Then times
# start-up (empty, and ~1 GiB of logs after SIGTERM and after SIGKILL).
# Prints a markdown table of medians; raw RESULT lines are kept next to it.
#
#   bench/run_broker_bench.sh [--reps 3] [--quick]
#
# --quick: small counts (a smoke test of the script, figures meaningless).
# Env: BUILD_DIR (default build-bench), BENCH_TMP (default /tmp);
# WEIR_BEFORE=<another weir binary> runs every client phase against it too, in
# the same repetitions (a before and after); SKIP_STARTUP=1 leaves out the
# start-up measures.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build-bench}
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
bench_options 3 "$@"

N100=1000000; N1K=300000; LAT_S=20; BIG_MSGS=1000000; STARTUP_RUNS=5
if [[ $QUICK == 1 ]]; then N100=20000; N1K=5000; LAT_S=3; BIG_MSGS=20000; STARTUP_RUNS=2; fi
PARTITIONS=4

# --- build ---------------------------------------------------------------
bench_build weir broker_bench mock_cluster
WEIR=$BUILD/bin/weir
BENCH=$BUILD/bin/broker_bench
MOCK=$BUILD/bin/mock_cluster

WORK=$(mktemp -d "${BENCH_TMP:-/tmp}/weir-broker-bench.XXXXXX")
RESULTS=$BUILD/broker_bench_results.txt
TABLE=$BUILD/broker_bench_table.md
: >"$RESULTS"
WEIR_PID=""; MOCK_PID=""; BEFORE_PID=""
SERVERS=(weir mock)
[[ -n ${WEIR_BEFORE:-} ]] && SERVERS=(weir-before weir mock)

trap 'stop_pid "$BEFORE_PID"; cleanup' EXIT

weir_args() {  # data dir, port
  echo serve --override "listeners=PLAINTEXT://127.0.0.1:$2" --override "log.dirs=$1" \
    --override weir.admin.listener=http://127.0.0.1:0 \
    --override num.partitions=$PARTITIONS --override auto.create.topics.enable=true
}

start_weir() {  # data dir
  WEIR_PORT=$(free_port)
  # shellcheck disable=SC2046
  "$WEIR" $(weir_args "$1" "$WEIR_PORT") >>"$WORK/weir.log" 2>&1 &
  WEIR_PID=$!
  wait_port "$WEIR_PORT"
  WEIR_BOOT=127.0.0.1:$WEIR_PORT
}

start_before() {  # data dir: $WEIR_BEFORE, as start_weir
  local port
  port=$(free_port)
  # shellcheck disable=SC2046
  "$WEIR_BEFORE" $(weir_args "$1" "$port") >>"$WORK/weir-before.log" 2>&1 &
  BEFORE_PID=$!
  wait_port "$port"
  BEFORE_BOOT=127.0.0.1:$port
}

server_pid_boot() {  # server: sets pid and boot
  case $1 in
    weir) pid=$WEIR_PID boot=$WEIR_BOOT ;;
    weir-before) pid=$BEFORE_PID boot=$BEFORE_BOOT ;;
    *) pid=$MOCK_PID boot=$MOCK_BOOT ;;
  esac
}

bench() {  # server label, rep, subcommand args...
  local server=$1 rep=$2; shift 2
  local pid boot
  server_pid_boot "$server"
  timeout 900 "$BENCH" "$@" --bootstrap "$boot" --server-pid "$pid" | record server="$server" rep="$rep"
}

server_totals() {  # rep: peak RSS of each server over the whole run
  local server pid boot
  for server in "${SERVERS[@]}"; do
    server_pid_boot "$server"
    echo "RESULT phase=server_total hwm_kb=$(awk '/VmHWM/{print $2}' /proc/$pid/status)" \
      "rss_kb=$(awk '/VmRSS/{print $2}' /proc/$pid/status)" \
      "cpu_s=$(awk -v t="$(getconf CLK_TCK)" '{sub(/.*\) /,""); split($0,f," "); print (f[12]+f[13])/t}' /proc/$pid/stat)" \
      "server=$server rep=$1" | tee -a "$RESULTS"
  done
}

echo "RESULT phase=env nproc=$(nproc) loadavg_start=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' '/')" \
  "cpu=\"$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1 | tr ' ' '_')\" date=$(date -u +%FT%TZ)" | tee -a "$RESULTS"

# --- client phases, REPS times; Weir and mock alternate phase by phase --------
for ((rep = 1; rep <= REPS; rep++)); do
  echo "== repetition $rep/$REPS (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
  rm -rf "$WORK/data" "$WORK/data-before"; mkdir -p "$WORK/data" "$WORK/data-before"
  start_weir "$WORK/data"
  [[ -n ${WEIR_BEFORE:-} ]] && start_before "$WORK/data-before"
  start_mock
  for shape in "100 $N100" "1024 $N1K"; do
    read -r size count <<<"$shape"
    for acks in 1 all; do
      for server in "${SERVERS[@]}"; do
        bench $server $rep produce --topic "p$size-a$acks-r$rep" --count "$count" --size "$size" --acks $acks \
          --partitions $PARTITIONS
      done
    done
    for server in "${SERVERS[@]}"; do
      # The mock keeps the last 5 MB of each partition: it is read repeatedly
      # until as many bytes as were produced have been consumed.
      bench $server $rep consume --topic "p$size-a1-r$rep" --partitions $PARTITIONS --min-bytes $((size * count))
    done
  done
  for server in "${SERVERS[@]}"; do
    bench $server $rep latency --topic "lat-r$rep" --rate 1000 --size 1024 --seconds $LAT_S --partitions $PARTITIONS
  done
  # Diagnostic, not a target: the same without the producer's 5 ms linger.
  for server in "${SERVERS[@]}"; do
    bench $server $rep latency --topic "lat0-r$rep" --rate 1000 --size 1024 --seconds $LAT_S --partitions $PARTITIONS \
      --set linger.ms=0 --name latency_linger0
  done
  server_totals $rep
  echo "RESULT phase=load rep=$rep loadavg=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' '/')" | tee -a "$RESULTS"
  stop_pid "$WEIR_PID"; WEIR_PID=""
  stop_pid "$BEFORE_PID"; BEFORE_PID=""
  stop_pid "$MOCK_PID"; MOCK_PID=""
done

if [[ ${SKIP_STARTUP:-0} != 1 ]]; then

# --- start-up and idle memory ----------------------------------------------
PORT=$(free_port)
# shellcheck disable=SC2046
timeout 600 "$BENCH" startup --address 127.0.0.1:"$PORT" --runs $STARTUP_RUNS --idle-ms 1000 --log "$WORK/weir.log" \
  --prepare "rm -rf '$WORK/empty'" -- "$WEIR" $(weir_args "$WORK/empty" "$PORT") | record server=weir case=empty
timeout 600 "$BENCH" startup --address stdout --runs $STARTUP_RUNS --idle-ms 1000 --log "$WORK/mock.log" \
  -- "$MOCK" | record server=mock case=empty

# ~1 GiB of logs: produce, then SIGKILL the broker (page cache not flushed by Weir).
rm -rf "$WORK/big"
start_weir "$WORK/big"
timeout 900 "$BENCH" produce --bootstrap "$WEIR_BOOT" --topic big --count $BIG_MSGS --size 1024 --acks 1 \
  --partitions $PARTITIONS --name fill | record server=weir
stop_pid "$WEIR_PID" KILL; WEIR_PID=""
echo "RESULT phase=log_size bytes=$(du -sb "$WORK/big" | cut -f1) server=weir" | tee -a "$RESULTS"

# After SIGKILL: each run starts from a fresh copy of the killed directory.
# shellcheck disable=SC2046
timeout 1800 "$BENCH" startup --address 127.0.0.1:"$PORT" --runs $STARTUP_RUNS --stop kill --log "$WORK/weir.log" \
  --prepare "rm -rf '$WORK/run' && cp -a '$WORK/big' '$WORK/run'" \
  -- "$WEIR" $(weir_args "$WORK/run" "$PORT") | record server=weir case=sigkill
# After SIGTERM: one recovering start stopped cleanly, then the timed runs.
rm -rf "$WORK/run"; cp -a "$WORK/big" "$WORK/run"
# shellcheck disable=SC2046
timeout 600 "$BENCH" startup --address 127.0.0.1:"$PORT" --runs 1 --stop term --log "$WORK/weir.log" \
  -- "$WEIR" $(weir_args "$WORK/run" "$PORT") >/dev/null
# shellcheck disable=SC2046
timeout 600 "$BENCH" startup --address 127.0.0.1:"$PORT" --runs $STARTUP_RUNS --stop term --log "$WORK/weir.log" \
  -- "$WEIR" $(weir_args "$WORK/run" "$PORT") | record server=weir case=sigterm

fi

echo "RESULT phase=env loadavg_end=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' '/')" | tee -a "$RESULTS"

# --- table -----------------------------------------------------------------
python3 "$ROOT/bench/broker_bench_table.py" "$RESULTS" | tee "$TABLE"
echo "raw results: $RESULTS, table: $TABLE" >&2
