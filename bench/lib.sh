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

kafka_log_config() {  # $WORK/log4j{,2}.properties (brokers, WARN to stdout) and log4j{,2}-tools (ERROR to stderr)
  printf '%s\n' 'log4j.rootLogger=WARN, stdout' 'log4j.appender.stdout=org.apache.log4j.ConsoleAppender' \
    'log4j.appender.stdout.layout=org.apache.log4j.PatternLayout' >"$WORK/log4j.properties"
  sed -e 's/WARN/ERROR/' -e '$a log4j.appender.stdout.Target=System.err' "$WORK/log4j.properties" \
    >"$WORK/log4j-tools.properties"
  # Kafka 4 logs through log4j 2.
  printf '%s\n' 'rootLogger.level=WARN' 'rootLogger.appenderRef.out.ref=OUT' 'appender.out.type=Console' \
    'appender.out.name=OUT' 'appender.out.layout.type=PatternLayout' 'appender.out.layout.pattern=[%d] %p %m (%c)%n' \
    >"$WORK/log4j2.properties"
  sed -e 's/WARN/ERROR/' -e '$a appender.out.target=SYSTEM_ERR' "$WORK/log4j2.properties" >"$WORK/log4j2-tools.properties"
}

kafka_zk_properties() {  # file, port, data dir, zookeeper.connect, broker.id, extra key=value...
  {
    echo "broker.id=$5"
    echo "listeners=PLAINTEXT://127.0.0.1:$2"
    echo "log.dirs=$3"
    echo "zookeeper.connect=$4"
    printf '%s\n' "${@:6}"
  } >"$1"
}

kafka_kraft_properties() {  # file, port, controller port, data dir, node id, extra key=value...: node 1 is broker
  # and the quorum's one controller, the others brokers
  local roles=broker listeners="PLAINTEXT://127.0.0.1:$2"
  if [[ $5 == 1 ]]; then roles=broker,controller listeners+=",CONTROLLER://127.0.0.1:$3"; fi
  {
    echo "process.roles=$roles"
    echo "node.id=$5"
    echo "controller.quorum.bootstrap.servers=127.0.0.1:$3"
    echo "listeners=$listeners"
    echo "advertised.listeners=PLAINTEXT://127.0.0.1:$2"
    echo "controller.listener.names=CONTROLLER"
    echo "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT"
    echo "log.dirs=$4"
    printf '%s\n' "${@:6}"
  } >"$1"
}

kafka_kraft_format() {  # libs, properties, node id, cluster id (default: a fresh one): kafka-storage format,
  # node 1 as the quorum's standalone controller
  local id=${4:-} mode=--standalone
  [[ -n $id ]] || id=$(python3 -c 'import base64, uuid; print(base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("="))')
  [[ $3 == 1 ]] || mode=--no-initial-controllers
  timeout 120 java -cp "$1/*" "-Dlog4j2.configurationFile=$WORK/log4j2-tools.properties" kafka.tools.StorageTool \
    format -t "$id" -c "$2" "$mode" >/dev/null
}

kafka_argv() {  # libs, properties: sets ARGV to the broker as kafka-server-start.sh runs it
  # kafka-server-start.sh's heap, kafka-run-class.sh's collector options.
  ARGV=("$(command -v java)" -Xmx1G -Xms1G -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35
    -XX:+ExplicitGCInvokesConcurrent -XX:MaxInlineLevel=15 -Djava.awt.headless=true
    "-Dlog4j.configuration=file:$WORK/log4j.properties" "-Dlog4j2.configurationFile=$WORK/log4j2.properties"
    -cp "$1/*" kafka.Kafka "$2")
}

start_reference_kafka() {  # chroot, then extra server.properties lines: Apache Kafka ($KAFKA_LIBS) in ZooKeeper mode on
  # $ZK_PORT, data in $WORK/kafka (emptied), log4j at WARN; sets KAFKA_PID and KAFKA_PORT
  KAFKA_PORT=$(free_port)
  rm -rf "$WORK/kafka"
  kafka_log_config
  kafka_zk_properties "$WORK/kafka.properties" "$KAFKA_PORT" "$WORK/kafka" "127.0.0.1:$ZK_PORT/$1" 0 \
    offsets.topic.replication.factor=1 transaction.state.log.replication.factor=1 transaction.state.log.min.isr=1 \
    "${@:2}"
  kafka_argv "$KAFKA_LIBS" "$WORK/kafka.properties"
  "${ARGV[@]}" >"$WORK/kafka.log" 2>&1 &
  KAFKA_PID=$!
  wait_port "$KAFKA_PORT"
  sleep 5  # the controller elects itself and the broker registers
}
