#!/usr/bin/env bash
# What producer-state snapshots save at start-up after a crash: ~1 GiB written
# once by an idempotent producer (COUNT x 1000 bytes, acks=all, 4 partitions),
# the broker SIGKILLed, then per repetition two timed restarts, in alternating
# order: "snapshots" (the killed data dir as is) and "no-snapshots" (every
# <offset>.snapshot deleted, so the producer state is rebuilt from the whole
# log). Each restart starts from a fresh copy of the killed dir, so each one is
# a recovery after SIGKILL. 128 MiB segments (--quick: 12.8 MiB, with a tenth
# of the data), so that logs roll (about twice per partition; a snapshot is
# written at each roll) and only the short active segments need a CRC scan.
# Measured from the exec of `weir serve`: until the port accepts (5 ms polls),
# until ListOffsets (kcat -Q) answers for all partitions, and the broker's own
# "started in" figure (its Broker::start, without exec and config parsing);
# the end offsets must sum to COUNT. The logs are in the page cache (warm):
# nothing is dropped from it. Prints the medians per mode and the ratios
# no-snapshots/snapshots. Needs kcat and ~2.5 GiB in TMPDIR.
#   BUILD_DIR=build bench/run_recovery_bench.sh [--reps 5] [--quick]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build-bench}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/weir-recovery.XXXXXX")
RESULTS=$WORK/results.txt
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
bench_options 5 "$@"
COUNT=1073741 SEGMENT_BYTES=134217728
if [[ $QUICK == 1 ]]; then COUNT=107374 SEGMENT_BYTES=13421772; fi
PARTITIONS=4
bench_build weir broker_bench
WEIR=$BUILD/bin/weir
PORT=$(free_port)
BOOT=127.0.0.1:$PORT
WEIR_PID=
# 2>/dev/null: bash's "Killed" notice of each SIGKILLed broker is expected.
trap 'stop_pid "$WEIR_PID" KILL 2>/dev/null; rm -rf "$WORK"' EXIT
command -v kcat >/dev/null || { echo "kcat is needed (ListOffsets)" >&2; exit 1; }

start_weir() {  # log file: in the background, sets WEIR_PID
  "$WEIR" serve --override "listeners=PLAINTEXT://$BOOT" --override "log.dirs=$WORK/data" \
    --override "weir.admin.listener=" --override "log.segment.bytes=$SEGMENT_BYTES" >"$1" 2>&1 &
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
  --count $COUNT --size 1000 --acks all --idempotence true --server-pid "$WEIR_PID" --name fill | record
stop_pid "$WEIR_PID" KILL 2>/dev/null; WEIR_PID=
# Segment bytes only: du would count the preallocated (sparse) indexes too.
echo "RESULT phase=log_size log_bytes=$(find "$WORK/data" -name '*.log' -printf '%s\n' | awk '{ s += $1 } END { print s }')" \
  "segments=$(find "$WORK/data" -name '*.log' | wc -l) snapshot_files=$(count_snapshots)" | tee -a "$RESULTS"
[[ $(count_snapshots) -gt 0 ]] || echo "warning: no producer snapshots were written (no roll?)" >&2
mv "$WORK/data" "$WORK/killed"

restart() {  # mode, rep: one timed recovery of a fresh copy of the killed dir
  local mode=$1 rep=$2 log=$WORK/weir-$2-$1.log t0 now port_us ready_us sum snapshots
  rm -rf "$WORK/data"
  cp -a "$WORK/killed" "$WORK/data"
  if [[ $mode == no-snapshots ]]; then find "$WORK/data" -name '*.snapshot' -delete; fi
  snapshots=$(count_snapshots)
  sync  # the copy's writeback must not overlap the timed start
  t0=${EPOCHREALTIME/./}
  start_weir "$log"
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
    "snapshot_files=$snapshots end_offsets=$sum" | record "rep=$rep"
}

for ((rep = 1; rep <= REPS; rep++)); do
  for mode in $([[ $((rep % 2)) == 1 ]] && echo "snapshots no-snapshots" || echo "no-snapshots snapshots"); do
    restart "$mode" "$rep"
  done
done
python3 - "$ROOT/bench" "$RESULTS" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
import bench_results as b
rows = b.pick(b.load(sys.argv[2]), phase="recovery")
for field in ("ready_ms", "port_ms", "broker_started_ms"):
    with_s, without = (b.median(r[field] for r in rows if r["mode"] == m and r[field])
                       for m in ("snapshots", "no-snapshots"))
    print(f"median {field}: snapshots {with_s:.1f}  no-snapshots {without:.1f}  ratio {without / with_s:.2f}")
PY
