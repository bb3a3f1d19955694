#!/usr/bin/env bash
# Weir against Apache Kafka, the broker it replaces, in one run: Kafka 3.9.2 in
# ZooKeeper mode (the last release with it; Weir's cluster mode mirrors it) and
# Kafka 4.4.0 in KRaft mode (one combined broker and controller), both from
# Maven Central (tools/reference-kafka/install), run as kafka-server-start.sh
# runs them (1 GiB heap, G1) with their documented defaults; Weir with its own.
# The only settings given to all three: 127.0.0.1 listeners, a fresh data dir,
# num.partitions=4 (the auto-created topics' shape), replication factor 1 for
# the internal topics of the single-node runs.
#
# Each repetition starts fresh brokers and runs every phase against each in
# turn (Weir, 3.9, 4.4), so that a change in the machine's load hits all:
#   - librdkafka load (bench/broker_bench, librdkafka 2.0.2): produce 100 B and
#     1 KiB at acks=1 and acks=all, consume, end-to-end latency at 1,000 msg/s;
#   - Kafka's own perf tools (4.4.0's kafka-producer-perf-test and
#     kafka-consumer-perf-test classes, the Java client's defaults);
#   - a group join of 10 consumers (bench/group_bench join);
#   - broker CPU (utime + stime of the broker's process) and peak RSS.
# Then: start-up to the first Metadata answer and idle RSS 5 s later; 10,000
# partitions as 10 topics of 1,000 (create, restart); three brokers at RF 3,
# acks=all (Weir and 3.9 each over its own ZooKeeper chroot, 4.4 as one
# broker-and-controller node and two brokers).
#
#   bench/run_kafka_bench.sh [--reps 3] [--quick]
#
# --quick: small counts (a smoke test of the script, figures meaningless).
# Env: BUILD_DIR (default build-bench; BENCH_PREBUILT=1 takes its bin/ as is),
# BENCH_TMP (default /tmp); BENCH_PARTS, some of "clients startup scale
# cluster" (default all), with BENCH_APPEND=1 adding to the last run's results.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build-bench}
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
bench_options 3 "$@"

N100=1000000; N1K=300000; LAT_S=20; STARTUP_RUNS=5; SCALE_TOPICS=10; CLUSTER_N=300000
if [[ $QUICK == 1 ]]; then N100=20000; N1K=5000; LAT_S=3; STARTUP_RUNS=2; SCALE_TOPICS=1; CLUSTER_N=5000; fi
PARTITIONS=4
SERVERS=(weir kafka3 kafka4)

bench_build weir broker_bench group_bench
WEIR=$BUILD/bin/weir
BENCH=$BUILD/bin/broker_bench
GROUP_BENCH=$BUILD/bin/group_bench
KAFKA3=$("$ROOT/tools/reference-kafka/install" 3.9.2)
KAFKA4=$("$ROOT/tools/reference-kafka/install" 4.4.0)
client_python

WORK=$(mktemp -d "${BENCH_TMP:-/tmp}/weir-kafka-bench.XXXXXX")
RESULTS=$BUILD/kafka_bench_results.txt
TABLE=$BUILD/kafka_bench_table.md
[[ ${BENCH_APPEND:-0} == 1 ]] || : >"$RESULTS"
PARTS=" ${BENCH_PARTS:-clients startup scale cluster} "
part() { [[ $PARTS == *" $1 "* ]]; }
declare -A PID BOOT
PIDS_EXTRA=()
WEIR_PID=""; MOCK_PID=""; ZK_PID=""

stop_all() {
  local s
  for s in "${!PID[@]}"; do stop_pid "${PID[$s]}"; done
  PID=()
  # Last started first: KRaft brokers stop through their controller, node 1.
  local i
  for ((i = ${#PIDS_EXTRA[@]} - 1; i >= 0; i--)); do stop_pid "${PIDS_EXTRA[i]}"; done
  PIDS_EXTRA=()
}
trap 'stop_all; stop_pid "$ZK_PID"; rm -rf "$WORK"' EXIT

kafka_log_config
start_zookeeper

# --- servers ---------------------------------------------------------------
weir_argv() {  # data dir, port, extra overrides...: sets ARGV
  ARGV=("$WEIR" serve --override "listeners=PLAINTEXT://127.0.0.1:$2" --override "log.dirs=$1"
    --override weir.admin.listener= --override num.partitions=$PARTITIONS)
  local o
  for o in "${@:3}"; do ARGV+=(--override "$o"); done
}

SINGLE=(num.partitions=$PARTITIONS offsets.topic.replication.factor=1 transaction.state.log.replication.factor=1
  transaction.state.log.min.isr=1)
KRAFT_SINGLE=(share.coordinator.state.topic.replication.factor=1 share.coordinator.state.topic.min.isr=1)

server_argv() {  # server, data dir, port: the command line of a fresh single-node broker (sets ARGV)
  case $1 in
    weir) weir_argv "$2" "$3" ;;
    kafka3)
      kafka_zk_properties "$2.properties" "$3" "$2" "127.0.0.1:$ZK_PORT/$(basename "$2")" 0 "${SINGLE[@]}"
      kafka_argv "$KAFKA3" "$2.properties" ;;
    kafka4)
      kafka_kraft_properties "$2.properties" "$3" "$(free_port)" "$2" 1 "${SINGLE[@]}" "${KRAFT_SINGLE[@]}"
      kafka_kraft_format "$KAFKA4" "$2.properties" 1
      kafka_argv "$KAFKA4" "$2.properties" ;;
  esac
}

start_server() {  # server, data dir: a fresh single-node broker, ready; sets PID and BOOT
  local port
  port=$(free_port)
  rm -rf "$2" "$2.properties"
  server_argv "$1" "$2" "$port"
  "${ARGV[@]}" >>"$WORK/$1.log" 2>&1 &
  PID[$1]=$!
  BOOT[$1]=127.0.0.1:$port
  wait_brokers "${BOOT[$1]}" 1
}

wait_brokers() {  # bootstrap, count: bounded 120 s until Metadata lists that many brokers
  timeout 130 "$PYTHON" "$ROOT/bench/kafka_admin.py" brokers --bootstrap "$1" --count "$2" --timeout 120 >/dev/null
}

cpu_s() { awk -v t="$(getconf CLK_TCK)" '{sub(/.*\) /,""); split($0,f," "); print (f[12]+f[13])/t}' "/proc/$1/stat"; }

bench() {  # server, rep, broker_bench subcommand args...
  local server=$1 rep=$2; shift 2
  timeout 900 "$BENCH" "$@" --bootstrap "${BOOT[$server]}" --server-pid "${PID[$server]}" |
    record server="$server" rep="$rep" client=librdkafka
}

java_tool() {  # class, args...: one of Kafka's tools as kafka-run-class.sh runs it (256 MiB heap)
  timeout 900 java -Xmx256M -XX:+UseG1GC -Djava.awt.headless=true \
    "-Dlog4j.configuration=file:$WORK/log4j-tools.properties" \
    "-Dlog4j2.configurationFile=$WORK/log4j2-tools.properties" -cp "$KAFKA4/*" "$@"
}

java_produce() {  # server, rep, size, count, acks
  local server=$1 rep=$2 size=$3 count=$4 acks=$5 c0 c1 out
  c0=$(cpu_s "${PID[$server]}")
  out=$(java_tool org.apache.kafka.tools.ProducerPerformance --topic "jp$size-a$acks-r$rep" --num-records "$count" \
    --record-size "$size" --throughput -1 --producer-props "bootstrap.servers=${BOOT[$server]}" "acks=$acks" | tail -1)
  c1=$(cpu_s "${PID[$server]}")
  # "N records sent, R records/sec (M MB/sec), A ms avg latency, X ms max latency, P ms 50th, P ms 95th,
  # P ms 99th, P ms 99.9th."
  echo "$out" | awk -v size="$size" -v acks="$acks" -v cpu="$(echo "$c1 - $c0" | bc)" '{
    gsub(/[(),]/, "");
    printf "RESULT phase=produce size=%s acks=%s msgs=%s msgs_per_s=%s mb_per_s=%.2f payload_bytes=%d server_cpu_s=%s p99_ms=%s\n",
      size, acks, $1, $4, $4 * size / 1e6, $1 * size, cpu, $(NF-5)
  }' | record server="$server" rep="$rep" client=java
}

java_consume() {  # server, rep, size, count
  local server=$1 rep=$2 size=$3 count=$4 c0 c1 out
  c0=$(cpu_s "${PID[$server]}")
  out=$(java_tool org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "${BOOT[$server]}" \
    --topic "jp$size-a1-r$rep" --num-records "$count" --group "perf-r$rep-$size" --timeout 60000 --hide-header | tail -1)
  c1=$(cpu_s "${PID[$server]}")
  # start, end, MB, MB/s, msgs, msgs/s, rebalance ms, fetch ms, fetch MB/s, fetch msgs/s: the fetch
  # figures leave out the group's join (group.initial.rebalance.delay.ms, 3 s by default on both).
  echo "$out" | awk -F', *' -v size="$size" -v cpu="$(echo "$c1 - $c0" | bc)" '{
    printf "RESULT phase=consume topic_size=%s msgs=%s msgs_per_s=%s mb_per_s=%.2f payload_bytes=%d server_cpu_s=%s rebalance_ms=%s\n",
      size, $5, $10, $10 * size / 1e6, $5 * size, cpu, $7
  }' | record server="$server" rep="$rep" client=java
}

server_totals() {  # rep: peak RSS and CPU of each broker over the repetition
  local server
  for server in "${SERVERS[@]}"; do
    echo "RESULT phase=server_total hwm_kb=$(awk '/VmHWM/{print $2}' "/proc/${PID[$server]}/status")" \
      "cpu_s=$(cpu_s "${PID[$server]}") server=$server rep=$1" | tee -a "$RESULTS"
  done
}

echo "RESULT phase=env nproc=$(nproc) loadavg_start=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' '/')" \
  "cpu=\"$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1 | tr ' ' '_')\" date=$(date -u +%FT%TZ)" \
  "java=$(java -version 2>&1 | head -1 | tr -d '"' | tr ' ' '_')" | tee -a "$RESULTS"

# --- client phases ---------------------------------------------------------
for ((rep = 1; rep <= REPS; rep++)); do
  part clients || break
  echo "== repetition $rep/$REPS (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
  settle
  for server in "${SERVERS[@]}"; do start_server "$server" "$WORK/$server-r$rep"; done
  for shape in "100 $N100" "1024 $N1K"; do
    read -r size count <<<"$shape"
    for acks in 1 all; do
      for server in "${SERVERS[@]}"; do
        bench "$server" $rep produce --topic "p$size-a$acks-r$rep" --count "$count" --size "$size" --acks $acks \
          --partitions $PARTITIONS
      done
      for server in "${SERVERS[@]}"; do java_produce "$server" $rep "$size" "$count" $acks; done
    done
    for server in "${SERVERS[@]}"; do
      bench "$server" $rep consume --topic "p$size-a1-r$rep" --partitions $PARTITIONS --min-bytes $((size * count))
    done
    for server in "${SERVERS[@]}"; do java_consume "$server" $rep "$size" "$count"; done
  done
  for server in "${SERVERS[@]}"; do
    bench "$server" $rep latency --topic "lat-r$rep" --rate 1000 --size 1024 --seconds $LAT_S --partitions $PARTITIONS
  done
  for server in "${SERVERS[@]}"; do
    timeout 300 "$GROUP_BENCH" join --bootstrap "${BOOT[$server]}" --server-pid "${PID[$server]}" --topic join \
      --partitions 10 --members 10 --reps 1 | record server="$server" rep=$rep
  done
  server_totals $rep
  stop_all
  rm -rf "$WORK"/*-r"$rep"
done

# --- start-up and idle memory ----------------------------------------------
if part startup; then
  for server in "${SERVERS[@]}"; do
    port=$(free_port)
    data=$WORK/startup-$server
    # Kafka 4's storage is formatted once before each start (kafka-storage format), untimed.
    server_argv "$server" "$data" "$port"
    prepare="rm -rf '$data'"
    if [[ $server == kafka4 ]]; then
      prepare="rm -rf '$data' && java -cp '$KAFKA4/*' -Dlog4j2.configurationFile='$WORK/log4j2.properties'"
      prepare+=" kafka.tools.StorageTool format -t \$($PYTHON -c 'import base64,uuid; print(base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip(\"=\"))')"
      prepare+=" -c '$data.properties' --standalone >/dev/null"
    fi
    timeout 900 "$BENCH" startup --address "127.0.0.1:$port" --runs $STARTUP_RUNS --idle-ms 5000 --timeout-ms 120000 \
      --log "$WORK/$server-startup.log" --prepare "$prepare" -- "${ARGV[@]}" | record server="$server" case=empty
  done
fi

# --- 10,000 partitions: create, then restart --------------------------------
if part scale; then
  for ((rep = 1; rep <= REPS; rep++)); do
    for server in "${SERVERS[@]}"; do
      settle
      data=$WORK/scale-$server-r$rep
      start_server "$server" "$data"
      timeout 1300 "$PYTHON" "$ROOT/bench/kafka_admin.py" create --bootstrap "${BOOT[$server]}" --topic scale \
        --topics $SCALE_TOPICS --partitions 1000 --timeout 1200 | record server="$server" rep=$rep
      t0=$(date +%s.%N)
      stop_pid "${PID[$server]}"
      echo "RESULT phase=scale_stop s=$(echo "$(date +%s.%N) - $t0" | bc)" | record server="$server" rep=$rep
      # The same command line and data: a restart.
      port=${BOOT[$server]##*:}
      case $server in
        weir) weir_argv "$data" "$port" ;;
        kafka3) kafka_argv "$KAFKA3" "$data.properties" ;;
        kafka4) kafka_argv "$KAFKA4" "$data.properties" ;;
      esac
      t0=$(date +%s.%N)
      "${ARGV[@]}" >>"$WORK/$server.log" 2>&1 &
      PID[$server]=$!
      timeout 1300 "$PYTHON" "$ROOT/bench/kafka_admin.py" ready --bootstrap "${BOOT[$server]}" --topic scale \
        --topics $SCALE_TOPICS --partitions 1000 --timeout 1200 --since "$t0" | record server="$server" rep=$rep
      echo "RESULT phase=scale_rss rss_kb=$(awk '/VmRSS/{print $2}' "/proc/${PID[$server]}/status")" |
        record server="$server" rep=$rep
      stop_all
      rm -rf "$data" "$data.properties"
    done
  done
fi

# --- three brokers, RF 3, acks=all -----------------------------------------
if part cluster; then
  CLUSTER=(default.replication.factor=3 num.partitions=$PARTITIONS)
  for ((rep = 1; rep <= REPS; rep++)); do
    for server in "${SERVERS[@]}"; do
      settle
      boots=()
      controller_port=$(free_port)
      cluster_id=$(python3 -c 'import base64, uuid; print(base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("="))')
      for id in 1 2 3; do
        port=$(free_port)
        data=$WORK/cluster-$server-r$rep-$id
        case $server in
          weir)
            weir_argv "$data" "$port" broker.id=$id "zookeeper.connect=127.0.0.1:$ZK_PORT/cluster-weir-r$rep" \
              "${CLUSTER[@]}" ;;
          kafka3)
            kafka_zk_properties "$data.properties" "$port" "$data" "127.0.0.1:$ZK_PORT/cluster-kafka-r$rep" $id \
              "${CLUSTER[@]}"
            kafka_argv "$KAFKA3" "$data.properties" ;;
          kafka4)
            kafka_kraft_properties "$data.properties" "$port" "$controller_port" "$data" $id "${CLUSTER[@]}"
            kafka_kraft_format "$KAFKA4" "$data.properties" $id "$cluster_id"
            kafka_argv "$KAFKA4" "$data.properties" ;;
        esac
        "${ARGV[@]}" >>"$WORK/$server-cluster.log" 2>&1 &
        PIDS_EXTRA+=($!)
        boots+=("127.0.0.1:$port")
      done
      boot=$(IFS=,; echo "${boots[*]}")
      wait_brokers "$boot" 3
      cpu0=0; for p in "${PIDS_EXTRA[@]}"; do cpu0=$(echo "$cpu0 + $(cpu_s "$p")" | bc); done
      for size in 100 1024; do
        count=$([[ $size == 100 ]] && echo $((CLUSTER_N * 3)) || echo $CLUSTER_N)
        c0=0; for p in "${PIDS_EXTRA[@]}"; do c0=$(echo "$c0 + $(cpu_s "$p")" | bc); done
        timeout 900 "$BENCH" produce --bootstrap "$boot" --topic "c$size-r$rep" --count "$count" --size $size --acks all \
          --partitions $PARTITIONS --name cluster_produce | record server="$server" rep=$rep client=librdkafka
        c1=0; for p in "${PIDS_EXTRA[@]}"; do c1=$(echo "$c1 + $(cpu_s "$p")" | bc); done
        echo "RESULT phase=cluster_cpu size=$size cpu_s=$(echo "$c1 - $c0" | bc)" | record server="$server" rep=$rep
      done
      stop_all
      rm -rf "$WORK"/cluster-*
    done
  done
fi

echo "RESULT phase=env loadavg_end=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' '/')" | tee -a "$RESULTS"
python3 "$ROOT/bench/kafka_bench_table.py" "$RESULTS" | tee "$TABLE"
echo "raw results: $RESULTS, table: $TABLE" >&2
