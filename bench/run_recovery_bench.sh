#!/usr/bin/env bash
# Recovery after SIGKILL, two comparisons (--compare):
#  snapshots (default): what producer-state snapshots save. ~1 GiB written
#   once by an idempotent producer (COUNT x 1000 bytes, acks=all, 4
#   partitions); modes "snapshots" (the killed data dir as is) and
#   "no-snapshots" (every <offset>.snapshot deleted, so the producer state is
#   rebuilt from the whole log). 128 MiB segments (--quick: 12.8 MiB, with a
#   tenth of the data), so that logs roll (about twice per partition; a
#   snapshot is written at each roll) and only the short active segments need
#   a CRC scan.
#  threads: what num.recovery.threads.per.data.dir buys. The same ~1 GiB
#   spread over 1,000 partitions (--quick: 100) with Kafka's default 1 GiB
#   segments, so every byte sits in an active segment and is read back and
#   checked; modes "threads-1" (Kafka's default), "threads-2", "threads-4".
# The broker is SIGKILLed after the fill, then per repetition one timed
# restart per mode, the order rotating from one repetition to the next, each
# from a fresh copy of the killed dir, so each one is a recovery after
# SIGKILL. --cold empties the page cache before each restart (needs a
# writable /proc/sys/vm/drop_caches), so that the logs are read from disk.
# Measured from the exec of `weir serve`: until the port accepts (5 ms
# polls), until ListOffsets (kcat -Q) answers for all partitions, and the
# broker's own "started in" figure (its Broker::start, without exec and config
# parsing), of which the loading of the logs ("loaded N logs ... in"); the end
# offsets must sum to COUNT. Without --cold the logs are in the page cache
# (warm). Prints the medians per mode and their ratios to the first mode.
# Needs kcat and ~2.5 GiB in TMPDIR.
#   BUILD_DIR=build bench/run_recovery_bench.sh [--compare snapshots|threads] [--cold] [--reps 5] [--quick]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build-bench}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/weir-recovery.XXXXXX")
RESULTS=$WORK/results.txt
WEIR_PID=
# 2>/dev/null: bash's "Killed" notice of each SIGKILLed broker is expected.
trap 'stop_pid "$WEIR_PID" KILL 2>/dev/null; rm -rf "$WORK"' EXIT
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
COMPARE=snapshots COLD=0
ARGS=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --compare) COMPARE=${2:-}; shift $(($# > 1 ? 2 : 1)) ;;
    --cold) COLD=1; shift ;;
    *) ARGS+=("$1"); shift ;;
  esac
done
bench_options 5 "${ARGS[@]}"
if [[ $COLD == 1 ]] && ! (echo 3 >/proc/sys/vm/drop_caches) 2>/dev/null; then
  echo "--cold needs a writable /proc/sys/vm/drop_caches" >&2
  exit 1
fi
COUNT=1073741
case $COMPARE in
  snapshots) MODES=(snapshots no-snapshots) PARTITIONS=4 SEGMENT_BYTES=134217728 IDEMPOTENCE=true ;;
  threads) MODES=(threads-1 threads-2 threads-4) PARTITIONS=1000 SEGMENT_BYTES=1073741824 IDEMPOTENCE=false ;;
  *) echo "--compare snapshots or threads" >&2; exit 2 ;;
esac
if [[ $QUICK == 1 ]]; then
  COUNT=107374
  if [[ $COMPARE == snapshots ]]; then SEGMENT_BYTES=13421772; else PARTITIONS=100; fi
fi
bench_build weir broker_bench
WEIR=$BUILD/bin/weir
PORT=$(free_port)
BOOT=127.0.0.1:$PORT
command -v kcat >/dev/null || { echo "kcat is needed (ListOffsets)" >&2; exit 1; }

start_weir() {  # log file, extra overrides...: in the background, sets WEIR_PID
  local log=$1 extra=() o
  shift
  for o in "$@"; do extra+=(--override "$o"); done
  "$WEIR" serve --override "listeners=PLAINTEXT://$BOOT" --override "log.dirs=$WORK/data" \
    --override "weir.admin.listener=" --override "log.segment.bytes=$SEGMENT_BYTES" "${extra[@]}" >"$log" 2>&1 &
  WEIR_PID=$!
}

end_offsets() {  # prints the sum of the end offsets; fails unless every partition answers
  local args=() p
  for ((p = 0; p < PARTITIONS; p++)); do args+=(-t "T:$p:-1"); done
  timeout 30 kcat -b "$BOOT" -m 10 -Q "${args[@]}" 2>/dev/null |
    awk -v n="$PARTITIONS" '$1 == "T" && $3 == "offset" { s += $4; k++ } END { if (k != n) exit 1; print s }'
}

count_snapshots() { find "$WORK/data" -name '*.snapshot' | wc -l; }

ms() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }  # microseconds

# --- fill once, then SIGKILL ------------------------------------------------
start_weir "$WORK/fill.log"
wait_port "$PORT"
timeout 60 "$WEIR" topics --bootstrap-server "$BOOT" --create --topic T --partitions $PARTITIONS >/dev/null
timeout 1800 "$BUILD/bin/broker_bench" produce --bootstrap "$BOOT" --topic T --partitions $PARTITIONS \
  --count $COUNT --size 1000 --acks all --idempotence $IDEMPOTENCE --server-pid "$WEIR_PID" --name fill | record
stop_pid "$WEIR_PID" KILL 2>/dev/null; WEIR_PID=
# Segment bytes only: du would count the preallocated (sparse) indexes too.
echo "RESULT phase=log_size log_bytes=$(find "$WORK/data" -name '*.log' -printf '%s\n' | awk '{ s += $1 } END { print s }')" \
  "segments=$(find "$WORK/data" -name '*.log' | wc -l) snapshot_files=$(count_snapshots)" | tee -a "$RESULTS"
[[ $COMPARE != snapshots || $(count_snapshots) -gt 0 ]] || echo "warning: no producer snapshots were written (no roll?)" >&2
mv "$WORK/data" "$WORK/killed"

restart() {  # mode, rep: one timed recovery of a fresh copy of the killed dir
  local mode=$1 rep=$2 log=$WORK/weir-$2-$1.log t0 now port_us ready_us sum snapshots
  rm -rf "$WORK/data"
  cp -a "$WORK/killed" "$WORK/data"
  if [[ $mode == no-snapshots ]]; then find "$WORK/data" -name '*.snapshot' -delete; fi
  snapshots=$(count_snapshots)
  local overrides=()
  if [[ $mode == threads-* ]]; then overrides=("num.recovery.threads.per.data.dir=${mode#threads-}"); fi
  sync  # the copy's writeback must not overlap the timed start
  if [[ $COLD == 1 ]]; then echo 3 >/proc/sys/vm/drop_caches; fi
  t0=${EPOCHREALTIME/./}
  start_weir "$log" "${overrides[@]}"
  # The bound is 300 s; a broker that exits is reported at once.
  until (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; do
    now=${EPOCHREALTIME/./}
    kill -0 "$WEIR_PID" 2>/dev/null || { echo "weir exited while recovering, see $log" >&2; return 1; }
    ((now - t0 < 300000000)) || { echo "weir did not listen after 300 s, see $log" >&2; return 1; }
    sleep 0.005
  done
  port_us=$((${EPOCHREALTIME/./} - t0))
  until sum=$(end_offsets); do
    now=${EPOCHREALTIME/./}
    ((now - t0 < 300000000)) || { echo "no ListOffsets answer after 300 s, see $log" >&2; return 1; }
    sleep 0.01
  done
  ready_us=$((${EPOCHREALTIME/./} - t0))
  [[ $sum == "$COUNT" ]] || { echo "end offsets sum to $sum after recovery, expected $COUNT" >&2; return 1; }
  stop_pid "$WEIR_PID" KILL 2>/dev/null; WEIR_PID=
  echo "RESULT phase=recovery mode=$mode port_ms=$(ms "$port_us") ready_ms=$(ms "$ready_us")" \
    "broker_started_ms=$(sed -n 's/.* started in \([0-9.]*\) ms.*/\1/p' "$log" | head -1)" \
    "logs_loaded_ms=$(sed -n 's/.* loaded [0-9]* logs from .* in \([0-9]*\) ms.*/\1/p' "$log" | head -1)" \
    "snapshot_files=$snapshots end_offsets=$sum" | record "rep=$rep"
}

for ((rep = 1; rep <= REPS; rep++)); do
  for ((m = 0; m < ${#MODES[@]}; m++)); do
    restart "${MODES[(m + rep - 1) % ${#MODES[@]}]}" "$rep"
  done
done
python3 - "$ROOT/bench" "$RESULTS" "${MODES[@]}" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import bench_results as b
rows = b.pick(b.load(sys.argv[2]), phase="recovery")
modes = sys.argv[3:]
for field in ("ready_ms", "port_ms", "broker_started_ms", "logs_loaded_ms"):
    medians = [b.median(r[field] for r in rows if r["mode"] == m and r[field]) for m in modes]
    ratio = (lambda v: f"{v / medians[0]:.2f}") if medians[0] else (lambda v: "-")
    print(f"median {field}: " + "  ".join(f"{m} {v:.1f} ({ratio(v)})" for m, v in zip(modes, medians)))
PY
