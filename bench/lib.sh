# shellcheck shell=bash
# Shared plumbing of the bench/run_*_bench.sh scripts (sourced): Release
# build, process control with bounded waits, free ports. Callers set ROOT,
# BUILD and WORK, and keep their server pids in WEIR_PID / MOCK_PID.

# shellcheck disable=SC2034  # REPS and QUICK are read by the caller
bench_options() {  # default repetitions, then the script's arguments: sets REPS and QUICK
  REPS=$1; QUICK=0; shift
  while [[ $# -gt 0 ]]; do
    case $1 in
      --reps) REPS=$2; shift 2 ;;
      --quick) QUICK=1; shift ;;
      *) echo "usage: $0 [--reps N] [--quick]" >&2; exit 2 ;;
    esac
  done
}

bench_build() {  # targets... (BENCH_PREBUILT=1: BUILD_DIR/bin holds them already, e.g. a saved build of another commit)
  [[ ${BENCH_PREBUILT:-0} == 1 ]] && return 0
  if [[ ! -f $BUILD/build.ninja ]]; then
    cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DWEIR_BENCH=ON >/dev/null
  fi
  nice -n 10 ninja -C "$BUILD" "$@" >/dev/null
}

record() {  # labels... < RESULT lines: labelled, printed and appended to $RESULTS
  local labels="$*" line
  while IFS= read -r line; do
    [[ $line == RESULT* ]] && echo "$line $labels" | tee -a "$RESULTS"
  done
}

stop_pid() {  # pid signal: bounded wait, then SIGKILL
  local pid=$1 sig=${2:-TERM} i
  [[ -z $pid ]] && return 0
  kill -"$sig" "$pid" 2>/dev/null || return 0
  for ((i = 0; i < 300; i++)); do kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }; sleep 0.1; done
  echo "pid $pid ignored SIG$sig for 30 s, killing" >&2
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

cleanup() {
  stop_pid "$WEIR_PID"; WEIR_PID=""
  stop_pid "$MOCK_PID"; MOCK_PID=""
  rm -rf "$WORK"
}

start_mock() {  # librdkafka's mock cluster ($MOCK): sets MOCK_PID and MOCK_BOOT
  : >"$WORK/mock.out"
  "$MOCK" >"$WORK/mock.out" 2>>"$WORK/mock.log" &
  MOCK_PID=$!
  local i
  for ((i = 0; i < 600; i++)); do grep -q '^bootstrap=' "$WORK/mock.out" && break; sleep 0.05; done
  MOCK_BOOT=$(sed -n 's/^bootstrap=//p' "$WORK/mock.out")
  [[ -n $MOCK_BOOT ]] || { echo "mock did not start" >&2; return 1; }
}

# Before each run: an empty log dir after the disk has written back what the
# run before left (the disk's state drifts over a run: later runs were slower,
# whoever ran them).
settle() { timeout 120 sync || true; sleep 2; }

client_python() {  # sets PYTHON: the clients' venv that scripts/install-deps.sh makes
  PYTHON=${WEIR_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/weir}/venv-clients/bin/python
  [[ -x $PYTHON ]] || { echo "no $PYTHON: run scripts/install-deps.sh" >&2; exit 1; }
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

wait_port() {  # port: bounded 30 s
  local i
  for ((i = 0; i < 600; i++)); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.05
  done
  echo "nothing listens on port $1 after 30 s" >&2; return 1
}

ruok() {  # port
  exec 3<>"/dev/tcp/127.0.0.1/$1" || return 1
  echo ruok >&3
  local reply=""
  read -r -t 2 reply <&3 || true
  exec 3<&-
  [[ $reply == imok ]]
}

start_zookeeper() {  # Debian's ZooKeeper under $WORK/zk: sets ZK_PID and ZK_PORT
  ZK_PORT=$(free_port)
  mkdir -p "$WORK/zk"
  cat >"$WORK/zk/zoo.cfg" <<CFG
tickTime=500
dataDir=$WORK/zk/data
clientPort=$ZK_PORT
clientPortAddress=127.0.0.1
admin.enableServer=false
4lw.commands.whitelist=ruok
CFG
  java -Xmx256m -XX:+UseSerialGC -cp /usr/share/java/zookeeper.jar org.apache.zookeeper.server.ZooKeeperServerMain \
    "$WORK/zk/zoo.cfg" >"$WORK/zk/zk.log" 2>&1 &
  ZK_PID=$!
  local i
  for ((i = 0; i < 600; i++)); do ruok "$ZK_PORT" 2>/dev/null && return 0; sleep 0.1; done
  echo "ZooKeeper did not answer within 60 s" >&2; exit 1
}

start_reference_kafka() {  # chroot, then extra server.properties lines: Apache Kafka ($KAFKA_LIBS) in ZooKeeper mode on
  # $ZK_PORT, data in $WORK/kafka (emptied), log4j at WARN; sets KAFKA_PID and KAFKA_PORT
  KAFKA_PORT=$(free_port)
  rm -rf "$WORK/kafka"
  printf 'log4j.rootLogger=WARN, stdout\nlog4j.appender.stdout=org.apache.log4j.ConsoleAppender\nlog4j.appender.stdout.layout=org.apache.log4j.PatternLayout\n' \
    >"$WORK/log4j.properties"
  {
    echo "broker.id=0"
    echo "listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT"
    echo "log.dirs=$WORK/kafka"
    echo "zookeeper.connect=127.0.0.1:$ZK_PORT/$1"
    echo "offsets.topic.replication.factor=1"
    echo "transaction.state.log.replication.factor=1"
    echo "transaction.state.log.min.isr=1"
    printf '%s\n' "${@:2}"
  } >"$WORK/kafka.properties"
  # kafka-server-start.sh's heap and kafka-run-class.sh's collector.
  java -Xmx1G -Xms1G -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true \
    "-Dlog4j.configuration=file:$WORK/log4j.properties" -cp "$KAFKA_LIBS/*" kafka.Kafka "$WORK/kafka.properties" \
    >"$WORK/kafka.log" 2>&1 &
  KAFKA_PID=$!
  wait_port "$KAFKA_PORT"
  sleep 5  # the controller elects itself and the broker registers
}
