#!/usr/bin/env bash
# Re-creates the golden request captures in protocol/test/fixtures/golden/.
# Developer tool, not run by CI. Needs: librdkafka-dev 2.0.2, kcat, python3,
# node + npm (kafkajs 2.2.4 is installed into $WORK/kjs, outside the repo),
# and optionally tshark (as root) for .pcap files and decoded dumps in $WORK.
#
# Usage: tools/capture/capture.sh [OUT_DIR]      (default: protocol/test/fixtures/golden)
#        WORK=/tmp/weir-capture KJS_DIR=/tmp/kjs  may be overridden from the environment.
#
# Each client runs against a fresh one-broker librdkafka mock cluster, through
# record_proxy.py, which keeps the first request of each (api, version) pair.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
OUT="${1:-$REPO/protocol/test/fixtures/golden}"
WORK="${WORK:-/tmp/weir-capture}"
KJS_DIR="${KJS_DIR:-/tmp/kjs}"
KAFKAJS_VERSION=2.2.4
STEP_TIMEOUT=40

mkdir -p "$OUT" "$WORK"
rm -f "$OUT"/*.bin

log() { echo "capture: $*" >&2; }

# --- tools ---------------------------------------------------------------
read -r -a RDKAFKA_FLAGS <<<"$(pkg-config --cflags --libs rdkafka)"
cc -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror "$HERE/mock_broker.c" \
   "${RDKAFKA_FLAGS[@]}" -o "$WORK/mock_broker"
log "librdkafka $(pkg-config --modversion rdkafka), $(kcat -V 2>&1 | grep -o 'kcat - .*' | head -1 || true)"

if [ ! -d "$KJS_DIR/node_modules/kafkajs" ]; then
  mkdir -p "$KJS_DIR"
  (cd "$KJS_DIR" && { [ -f package.json ] || npm init -y >/dev/null; } \
     && npm install --no-audit --no-fund "kafkajs@$KAFKAJS_VERSION" >/dev/null)
fi
log "kafkajs $(node -e "console.log(require('$KJS_DIR/node_modules/kafkajs/package.json').version)")"

HAVE_TSHARK=0
if command -v tshark >/dev/null && [ "$(id -u)" = 0 ]; then HAVE_TSHARK=1; fi

# --- one capture session: mock + proxy (+ tshark) around a driver function --
# session CLIENT DRIVER
session() {
  local client="$1" driver="$2"
  local dir="$WORK/$client"
  rm -rf "$dir" && mkdir -p "$dir"
  mkfifo "$dir/ctl"
  # Mock and proxy exit when fd 9, the only writer of ctl, is closed; the
  # children must not inherit it.
  exec 9<>"$dir/ctl"

  "$WORK/mock_broker" 120 <"$dir/ctl" >"$dir/mock.out" 2>"$dir/mock.err" 9>&- &
  local mock_pid=$!
  for _ in $(seq 100); do [ -s "$dir/mock.out" ] && break; sleep 0.1; done
  local upstream; upstream="$(head -1 "$dir/mock.out")"

  python3 "$HERE/record_proxy.py" --upstream "$upstream" --out "$OUT" --client "$client" \
      --timeout 120 <"$dir/ctl" >"$dir/proxy.out" 2>"$dir/proxy.err" 9>&- &
  local proxy_pid=$!
  for _ in $(seq 100); do [ -s "$dir/proxy.out" ] && break; sleep 0.1; done
  local proxy; proxy="$(awk '{print $2}' "$dir/proxy.out")"
  log "$client: mock $upstream, proxy $proxy"

  local ts_pid=""
  if [ "$HAVE_TSHARK" = 1 ]; then
    tshark -i lo -f "tcp port ${proxy#*:}" -w "$dir/$client.pcap" 2>"$dir/tshark.err" 9>&- &
    ts_pid=$!
    for _ in $(seq 100); do grep -q "Capturing on" "$dir/tshark.err" 2>/dev/null && break; sleep 0.1; done
  fi

  "$driver" "$proxy" "$dir" 9>&-

  sleep 1
  if [ -n "$ts_pid" ]; then
    kill -INT "$ts_pid"; wait "$ts_pid" || true
    # Requests only (to the proxy port), Kafka layer only.
    tshark -r "$dir/$client.pcap" -d "tcp.port==${proxy#*:},kafka" -O kafka -Y "kafka && tcp.dstport==${proxy#*:}" \
      2>/dev/null | grep -v '^\(Frame\|Ethernet\|Internet\|Transmission\) ' >"$dir/$client-requests.txt" || true
  fi
  exec 9>&-
  wait "$mock_pid" "$proxy_pid" || true
}

# Values are long and repetitive so that gzip shrinks the batch: librdkafka
# sends a batch uncompressed when compression would make it larger.
VALUE_PAD=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx   # 49 x
export GOLDEN_VALUE_PAD="$VALUE_PAD"

drive_librdkafka() {
  local proxy="$1" dir="$2"
  printf 'k1:golden-value-1-%s\nk2:golden-value-2-%s\nk3:golden-value-3-%s\n' "$VALUE_PAD" "$VALUE_PAD" "$VALUE_PAD" | timeout "$STEP_TIMEOUT" kcat -P -b "$proxy" -t golden -K: -H h1=x -z gzip \
      -X linger.ms=100 -X client.id=golden-kcat-producer
  timeout "$STEP_TIMEOUT" kcat -C -b "$proxy" -t golden -p 0 -o beginning -e -q \
      -X client.id=golden-kcat-consumer >"$dir/consumed.txt"
  timeout "$STEP_TIMEOUT" kcat -b "$proxy" -G golden-group -e -q -X auto.offset.reset=earliest \
      -X auto.commit.interval.ms=200 -X client.id=golden-kcat-group golden >>"$dir/consumed.txt"
}

drive_kafkajs() {
  local proxy="$1" dir="$2"
  KAFKAJS_NO_PARTITIONER_WARNING=1 NODE_PATH="$KJS_DIR/node_modules" \
    timeout 60 node "$HERE/kafkajs_client.js" "$proxy" >"$dir/consumed.txt"
}

session librdkafka drive_librdkafka
session kafkajs drive_kafkajs

log "wrote $(find "$OUT" -maxdepth 1 -name '*.bin' | wc -l) fixtures to $OUT; logs, pcaps and tshark dumps in $WORK"
ls -l "$OUT"/*.bin >&2
