#!/usr/bin/env bash
# A local Weir cluster without Docker: Debian's ZooKeeper on 127.0.0.1:2181 and
# N brokers (default 3) on 127.0.0.1:9092.., data under one folder (default
# ./weir-cluster), everything stopped on Ctrl-C. Builds Weir first.
#
#   scripts/run-cluster.sh [--brokers N] [--dir DIR] [--override key=value]...
#
# Overrides go to every broker (e.g. --override min.insync.replicas=2).
set -euo pipefail
cd "$(dirname "$0")/.."
BROKERS=3
DIR=weir-cluster
OVERRIDES=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --brokers) BROKERS=$2; shift 2 ;;
    --dir) DIR=$2; shift 2 ;;
    --override) OVERRIDES+=(--override "$2"); shift 2 ;;
    *) echo "usage: $0 [--brokers N] [--dir DIR] [--override key=value]..." >&2; exit 2 ;;
  esac
done

scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"${WEIR_JOBS:-2}" --target weir

mkdir -p "$DIR/zookeeper"
DIR=$(cd "$DIR" && pwd)
PIDS=()
stop_all() {
  trap - INT TERM EXIT
  echo "stopping the cluster"
  # Brokers first (they hand leadership over through ZooKeeper), then ZooKeeper.
  local pid brokers=("${PIDS[@]:1}")
  for pid in "${brokers[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${brokers[@]}" "${PIDS[0]}"; do
    [[ $pid == "${PIDS[0]}" ]] && kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
}
trap stop_all EXIT
trap 'stop_all; exit 130' INT TERM

cat >"$DIR/zookeeper/zoo.cfg" <<CFG
tickTime=500
dataDir=$DIR/zookeeper/data
clientPort=2181
clientPortAddress=127.0.0.1
admin.enableServer=false
4lw.commands.whitelist=ruok,srvr
CFG
java -Xmx256m -cp /usr/share/java/zookeeper.jar org.apache.zookeeper.server.ZooKeeperServerMain \
  "$DIR/zookeeper/zoo.cfg" >"$DIR/zookeeper/zookeeper.log" 2>&1 &
PIDS+=($!)
ruok() {
  exec 3<>/dev/tcp/127.0.0.1/2181 || return 1
  echo ruok >&3
  local reply=""
  read -r -t 2 reply <&3 || true
  exec 3<&-
  [[ $reply == imok ]]
}
for i in $(seq 300); do ruok 2>/dev/null && break; sleep 0.1; [[ $i == 300 ]] && { echo "ZooKeeper did not start" >&2; exit 1; }; done
echo "ZooKeeper on 127.0.0.1:2181 (chroot /weir)"

BOOTSTRAP=""
for ((id = 1; id <= BROKERS; id++)); do
  port=$((9091 + id))
  build/bin/weir serve \
    --override "broker.id=$id" \
    --override "listeners=PLAINTEXT://127.0.0.1:$port" \
    --override "weir.admin.listener=http://127.0.0.1:$((9643 + id))" \
    --override "log.dirs=$DIR/broker-$id" \
    --override "zookeeper.connect=127.0.0.1:2181/weir" \
    --override "default.replication.factor=$((BROKERS < 3 ? BROKERS : 3))" \
    --override "offsets.topic.replication.factor=$((BROKERS < 3 ? BROKERS : 3))" \
    "${OVERRIDES[@]}" >"$DIR/broker-$id.log" 2>&1 &
  PIDS+=($!)
  BOOTSTRAP+="${BOOTSTRAP:+,}127.0.0.1:$port"
done
echo "$BROKERS brokers starting; logs in $DIR/broker-N.log"
echo "bootstrap.servers=$BOOTSTRAP   (Ctrl-C stops everything)"
echo "admin HTTP: http://127.0.0.1:9644 .. http://127.0.0.1:$((9643 + BROKERS)) (/metrics, /v1/...)"
wait -n "${PIDS[@]}" || true
echo "a process of the cluster exited; see the logs in $DIR" >&2
