#!/usr/bin/env bash
# Cluster benchmark: three Weir brokers and Debian's ZooKeeper on this machine
# (127.0.0.1), one run, the reference measured beside each figure:
#   * produce throughput and end-to-end latency with acks=all at replication
#     factor 3 (min.insync.replicas=2) against replication factor 1, same
#     cluster, topics created with `weir topics`, and the brokers' CPU time
#     for each run. Before each run the page cache is written back and
#     dropped (where /proc/sys/vm/drop_caches is writable): RF 3 writes three
#     times the bytes into it, and a run that starts behind gigabytes of
#     earlier runs measures writeback throttling and, on a virtual machine
#     whose free memory is returned to the host, the cost of fresh pages
#     (see BENCHMARKS.md), not the replication;
#   * failover: SIGKILL of a partition's leader to the first acknowledged
#     acks=all produce (kcat, one message per attempt), at the given
#     zookeeper.session.timeout.ms;
#   * follower catch-up: a follower is stopped, ~1 GiB is produced, the
#     follower restarts; bytes replicated per second until it is back in the
#     ISR, against the disk's sequential write rate (dd, O_DIRECT).
#
#   * where RF 3's CPU goes: one partition led by broker 1, 1 KiB acks=all,
#     RF 1 against RF 3 (replicas on brokers 2 and 3): each broker's user
#     and system CPU and the producer's, per message;
#
#   * idle partitions: what partitions that carry nothing cost a cluster
#     whose one topic is busy: the brokers' CPU at rest and during an
#     acks=all latency run (200 msg/s x 1 KiB), and the time to create them
#     (IDLE_TOPICS topics of 4 partitions, RF 3), against the same runs
#     before they exist.
#
#   bench/run_cluster_bench.sh [--reps 3] [--quick]
#
# Env: BUILD_DIR (default build-bench; any build of weir and broker_bench),
# BENCH_TMP (default /tmp), SESSION_MS (default 1500: ZooKeeper's minimum is
# 2 ticks, and the server here ticks every 500 ms), PHASES (default
# "produce failover catchup idle"; "split" is asked for by name), IDLE_TOPICS
# (default 500), WARM_MB (default 2560: memory written through the page
# cache before each run, see settle_page_cache; 0 turns it off).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build-bench}
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
bench_options 3 "$@"

N100=2000000; N1K=600000; LAT_S=15; CATCHUP_MSGS=1000000; FAILOVERS=5
if [[ $QUICK == 1 ]]; then N100=20000; N1K=5000; LAT_S=3; CATCHUP_MSGS=20000; FAILOVERS=1; fi
SESSION_MS=${SESSION_MS:-1500}
PHASES=${PHASES:-produce failover catchup idle}
IDLE_TOPICS=${IDLE_TOPICS:-500}; IDLE_S=20
if [[ $QUICK == 1 ]]; then IDLE_TOPICS=20; IDLE_S=3; fi
phase() { [[ " $PHASES " == *" $1 "* ]]; }

bench_build weir broker_bench
WEIR=$BUILD/bin/weir
BENCH=$BUILD/bin/broker_bench
command -v kcat >/dev/null || { echo "kcat is needed (scripts/install-deps.sh)" >&2; exit 1; }

WORK=$(mktemp -d "${BENCH_TMP:-/tmp}/weir-cluster-bench.XXXXXX")
RESULTS=$BUILD/cluster_bench_results.txt
: >"$RESULTS"
# shellcheck disable=SC2034  # lib.sh's cleanup reads them
WEIR_PID=""; MOCK_PID=""
ZK_PID=""
declare -A PID PORT

stop_cluster() {
  local id
  for id in "${!PID[@]}"; do stop_pid "${PID[$id]}"; done
  PID=()
  stop_pid "$ZK_PID"; ZK_PID=""
}
trap 'stop_cluster; rm -rf "$WORK"' EXIT

start_broker() {  # id
  local id=$1
  [[ -n ${PORT[$id]:-} ]] || PORT[$id]=$(free_port)
  "$WEIR" serve --override "broker.id=$id" --override "listeners=PLAINTEXT://127.0.0.1:${PORT[$id]}" \
    --override "log.dirs=$WORK/broker-$id" --override "zookeeper.connect=127.0.0.1:$ZK_PORT/bench" \
    --override weir.admin.listener=http://127.0.0.1:0 \
    --override "zookeeper.session.timeout.ms=$SESSION_MS" --override num.partitions=4 \
    --override default.replication.factor=3 --override min.insync.replicas=2 \
    >>"$WORK/broker-$id.log" 2>&1 &
  PID[$id]=$!
  wait_port "${PORT[$id]}"
}

bootstrap() { local id out=""; for id in 1 2 3; do out+="${out:+,}127.0.0.1:${PORT[$id]}"; done; echo "$out"; }

# This virtual machine hands freed memory back to its host (free page
# reporting: /sys/module/page_reporting/parameters/reported_kib grows) and
# the host faults it in again on first use: 1.8 GB written into a page cache
# made of such memory cost 2.9 s of system time, against 0.25 s right after
# the same memory had been used (BENCHMARKS.md). RF 3 writes three times
# RF 1's bytes, so whichever run found less recycled memory measured the host.
# A broker that has run a while recycles its page cache; every run here
# starts that way: WARM_MB pass through the page cache, then it is dropped.
WARM_MB=${WARM_MB:-2560}
recycle_memory() {
  if ((WARM_MB > 0)); then
    dd if=/dev/zero of="$WORK/warm" bs=1M count="$WARM_MB" status=none 2>/dev/null || true
    rm -f "$WORK/warm"
  fi
}
settle_page_cache() {
  recycle_memory
  timeout 300 sync || true
  if [[ -w /proc/sys/vm/drop_caches ]]; then echo 3 >/proc/sys/vm/drop_caches; echo dropped; else echo kept; fi
}

# CPU time (user + system, ms) of every broker, "1:ms 2:ms 3:ms": where the
# cluster's work goes (the leaders' and the followers' share), whatever the
# two cores allow the run to reach.
CLK_TCK=$(getconf CLK_TCK)
broker_usr_sys() {  # "id:usr_ms:sys_ms ..."
  local id out=""
  for id in 1 2 3; do
    out+="${out:+ }$id:$(awk -v hz="$CLK_TCK" '{print int($14 * 1000 / hz) ":" int($15 * 1000 / hz)}' "/proc/${PID[$id]}/stat")"
  done
  echo "$out"
}
broker_cpu() { broker_usr_sys | awk '{ for (i = 1; i <= NF; i++) { split($i, f, ":"); printf "%s%s:%d", (i > 1 ? " " : ""), f[1], f[2] + f[3] } print "" }'; }
cpu_delta() {  # before after count: RESULT fields
  local before=$1 after=$2 count=$3
  awk -v b="$before" -v a="$after" -v n="$count" 'BEGIN {
    split(b, bs, " "); split(a, as, " "); total = 0; out = ""
    for (i = 1; i <= 3; i++) { split(bs[i], x, ":"); split(as[i], y, ":"); d = y[2] - x[2]; total += d; out = out " broker" x[1] "_cpu_ms=" d }
    printf "cpu_ms=%d cpu_us_per_msg=%.3f%s\n", total, total * 1000 / n, out }'
}

topics() { "$WEIR" topics --bootstrap-server "$(bootstrap)" "$@"; }

# Kafka's --describe line: "Topic: t  Partition: 0  Leader: 2  Replicas: ...  Isr: 2,3,1"
leader_of() { topics --describe --topic "$1" | awk '/Partition: 0\t|Partition: 0 /{for (i=1;i<=NF;i++) if ($i=="Leader:") print $(i+1)}'; }
isr_size() { topics --describe --topic "$1" | awk '/Partition: 0\t|Partition: 0 /{for (i=1;i<=NF;i++) if ($i=="Isr:") print split($(i+1), a, ",")}'; }

echo "RESULT phase=env nproc=$(nproc) loadavg_start=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' '/') session_ms=$SESSION_MS warm_mb=$WARM_MB" \
  "date=$(date -u +%FT%TZ)" | tee -a "$RESULTS"
start_zookeeper
for id in 1 2 3; do start_broker "$id"; done
for ((i = 0; i < 300; i++)); do topics --list >/dev/null 2>&1 && break; sleep 0.1; done

# --- throughput and latency, RF 3 against RF 1 ---------------------------------
phase produce && for ((rep = 1; rep <= REPS; rep++)); do
  echo "== repetition $rep/$REPS (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
  for shape in "100 $N100" "1024 $N1K"; do
    read -r size count <<<"$shape"
    for rf in 1 3; do
      t="p$size-rf$rf-r$rep"
      # RF 1 cannot meet min.insync.replicas=2: its topics take 1, as Kafka would need.
      topics --create --topic "$t" --partitions 4 --replication-factor $rf --config "min.insync.replicas=$((rf < 2 ? 1 : 2))" >/dev/null
      page_cache=$(settle_page_cache)
      cpu_before=$(broker_cpu)
      timeout 600 "$BENCH" produce --bootstrap "$(bootstrap)" --topic "$t" --count "$count" --size "$size" --acks all \
        --partitions 4 | record rep=$rep rf=$rf
      echo "RESULT phase=broker_cpu size=$size rep=$rep rf=$rf page_cache=$page_cache $(cpu_delta "$cpu_before" "$(broker_cpu)" "$count")" \
        | tee -a "$RESULTS"
    done
  done
  for rf in 1 3; do
    t="lat-rf$rf-r$rep"
    topics --create --topic "$t" --partitions 4 --replication-factor $rf --config "min.insync.replicas=$((rf < 2 ? 1 : 2))" >/dev/null
    settle_page_cache >/dev/null
    timeout 600 "$BENCH" latency --bootstrap "$(bootstrap)" --topic "$t" --rate 1000 --size 1024 --seconds $LAT_S \
      --partitions 4 --set acks=all | record rep=$rep rf=$rf
  done
done

# --- where RF 3's CPU goes -----------------------------------------------------
# One partition, so each broker has one role: broker 1 leads, 2 and 3 follow.
# `times` run in the subshell that ran the producer: its line 2 is the producer's CPU.
times_ms() { awk 'NR == 2 { gsub(/s/, ""); split($1, u, "m"); split($2, s, "m"); print int((u[1] * 60 + u[2] + s[1] * 60 + s[2]) * 1000) }' "$1"; }
phase split && for ((rep = 1; rep <= REPS; rep++)); do
  for rf in 1 3; do
    t="split-rf$rf-r$rep"
    assignment=1; [[ $rf == 3 ]] && assignment=1:2:3
    topics --create --topic "$t" --replica-assignment "$assignment" --config "min.insync.replicas=$((rf < 2 ? 1 : 2))" >/dev/null
    settle_page_cache >/dev/null
    before=$(broker_usr_sys)
    (timeout 600 "$BENCH" produce --bootstrap "$(bootstrap)" --topic "$t" --count "$N1K" --size 1024 --acks all \
      --partitions 1 --name split_produce; times >"$WORK/times") | record rep=$rep rf=$rf
    client_ms=$(times_ms "$WORK/times")
    awk -v b="$before" -v a="$(broker_usr_sys)" -v n="$N1K" -v c="$client_ms" -v rf=$rf -v rep=$rep 'BEGIN {
      split(b, bs, " "); split(a, as, " "); out = ""
      for (i = 1; i <= 3; i++) {
        split(bs[i], x, ":"); split(as[i], y, ":")
        out = out sprintf(" broker%d_usr_us_per_msg=%.3f broker%d_sys_us_per_msg=%.3f", i, (y[2] - x[2]) * 1000 / n, i, (y[3] - x[3]) * 1000 / n)
      }
      printf "RESULT phase=split_cpu rf=%d rep=%d client_us_per_msg=%.3f%s\n", rf, rep, c * 1000 / n, out }' | tee -a "$RESULTS"
  done
done

# --- failover ------------------------------------------------------------------
phase failover && for ((run = 1; run <= FAILOVERS; run++)); do
  t="failover-$run"
  topics --create --topic "$t" --partitions 1 --replication-factor 3 >/dev/null
  echo warm | kcat -b "$(bootstrap)" -t "$t" -p 0 -P -X request.required.acks=-1 -X message.timeout.ms=10000 2>/dev/null
  for ((i = 0; i < 100; i++)); do [[ $(isr_size "$t") == 3 ]] && break; sleep 0.1; done
  leader=$(leader_of "$t")
  others=""
  for id in 1 2 3; do [[ $id == "$leader" ]] || others+="${others:+,}127.0.0.1:${PORT[$id]}"; done
  t0=$(date +%s%N)
  kill -KILL "${PID[$leader]}"; wait "${PID[$leader]}" 2>/dev/null || true
  attempts=0
  until echo "after-kill" | kcat -b "$others" -t "$t" -p 0 -P -X request.required.acks=-1 \
      -X message.timeout.ms=500 -X topic.metadata.refresh.interval.ms=100 2>/dev/null; do
    attempts=$((attempts + 1))
    (( attempts < 400 )) || { echo "no produce succeeded within 400 attempts" >&2; break; }
  done
  t1=$(date +%s%N)
  echo "RESULT phase=failover run=$run leader=$leader ms=$(( (t1 - t0) / 1000000 )) attempts=$attempts session_ms=$SESSION_MS" \
    | tee -a "$RESULTS"
  start_broker "$leader"
  for ((i = 0; i < 300; i++)); do [[ $(isr_size "$t") == 3 ]] && break; sleep 0.1; done
done

# --- follower catch-up ---------------------------------------------------------
# Before the idle phase: a follower restarting beside 2,000 partitions would
# measure its start-up, not the replication.
if phase catchup; then
  t=catchup
  topics --create --topic "$t" --partitions 1 --replication-factor 3 >/dev/null
  leader=$(leader_of "$t")
  follower=1; [[ $follower == "$leader" ]] && follower=2
  stop_pid "${PID[$follower]}" KILL; unset "PID[$follower]"
  for ((i = 0; i < 300; i++)); do [[ $(isr_size "$t") == 2 ]] && break; sleep 0.1; done
  timeout 600 "$BENCH" produce --bootstrap "$(bootstrap)" --topic "$t" --count $CATCHUP_MSGS --size 1024 --acks 1 \
    --partitions 1 --name catchup_fill | record
  bytes=$(du -sb "$WORK/broker-$leader/$t-0" | cut -f1)
  # The returning follower writes 1 GB into fresh page cache; the leader's
  # copy stays cached (no drop), as after a short restart.
  recycle_memory
  t0=$(date +%s%N)
  start_broker "$follower"
  for ((i = 0; i < 6000; i++)); do [[ $(isr_size "$t") == 3 ]] && break; sleep 0.1; done
  t1=$(date +%s%N)
  ms=$(( (t1 - t0) / 1000000 ))
  dd if=/dev/zero of="$WORK/dd" bs=1M count=1024 oflag=direct 2>"$WORK/dd.txt"
  dd_mbs=$(awk '/copied/ {for (i=1;i<=NF;i++) if ($i ~ /^s,$/) t=$(i-1); print 1024*1048576/t/1e6}' "$WORK/dd.txt")
  rm -f "$WORK/dd"
  echo "RESULT phase=catchup bytes=$bytes ms=$ms mb_per_s=$(awk -v b="$bytes" -v m="$ms" 'BEGIN{printf "%.1f", b/1e6/(m/1000)}') disk_mb_per_s=$dd_mbs" \
    | tee -a "$RESULTS"
fi

# --- idle partitions -----------------------------------------------------------
idle_runs() {  # idle partitions
  local n=$1 before rep
  for ((rep = 1; rep <= REPS; rep++)); do
    before=$(broker_cpu)
    sleep $IDLE_S
    echo "RESULT phase=idle_cpu idle_partitions=$n rep=$rep seconds=$IDLE_S $(cpu_delta "$before" "$(broker_cpu)" 1)" \
      | tee -a "$RESULTS"
    # A topic per run: the latency run measures every message it finds in its topic.
    topics --create --topic "idle-busy-$n-$rep" --partitions 4 --replication-factor 3 >/dev/null
    before=$(broker_cpu)
    timeout 600 "$BENCH" latency --bootstrap "$(bootstrap)" --topic "idle-busy-$n-$rep" --rate 200 --size 1024 --seconds $LAT_S \
      --partitions 4 --set acks=all | record idle_partitions=$n rep=$rep
    echo "RESULT phase=idle_busy_cpu idle_partitions=$n rep=$rep $(cpu_delta "$before" "$(broker_cpu)" $((200 * LAT_S)))" \
      | tee -a "$RESULTS"
  done
}
if phase idle; then
  idle_runs 0
  t0=$(date +%s%N)
  for ((i = 0; i < IDLE_TOPICS; i++)); do
    topics --create --topic "idle-$i" --partitions 4 --replication-factor 3 >/dev/null
  done
  t1=$(date +%s%N)
  echo "RESULT phase=idle_create topics=$IDLE_TOPICS partitions=$((IDLE_TOPICS * 4)) ms=$(( (t1 - t0) / 1000000 ))" \
    | tee -a "$RESULTS"
  idle_runs $((IDLE_TOPICS * 4))
  # Over a minute later: followers that fetched nothing new there are still in every ISR.
  short=$(topics --describe | awk '/Topic: idle-/ {for (i = 1; i < NF; i++) if ($i == "Isr:" && split($(i + 1), a, ",") < 3) n++} END {print n + 0}')
  echo "RESULT phase=idle_isr partitions=$((IDLE_TOPICS * 4)) isr_below_3=$short" | tee -a "$RESULTS"
fi

echo "RESULT phase=env loadavg_end=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' '/')" | tee -a "$RESULTS"
echo "raw results: $RESULTS"
