#!/usr/bin/env bash
# What Prometheus scraping costs producers: one broker hosting N partitions
# (default 10,000, the worst case /metrics is sized for) plus the 4-partition
# topic the producer writes to; per repetition one produce run with /metrics
# scraped every second and one without, in alternating order, same broker, same
# run; each run writes COUNT 100-byte messages (acks=all) into a topic created
# for it. Prints the medians and their ratio (the target: under 2% apart).
#   BUILD_DIR=build bench/run_scrape_bench.sh [--reps 5] [--quick]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD_DIR:-$ROOT/build-bench}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/weir-scrape.XXXXXX")
RESULTS=$WORK/results.txt
# shellcheck source=bench/lib.sh
source "$ROOT/bench/lib.sh"
bench_options 5 "$@"
PARTITIONS=10000; COUNT=15000000
if [[ $QUICK == 1 ]]; then PARTITIONS=500; COUNT=1000000; fi
bench_build weir broker_bench
WEIR=$BUILD/bin/weir
PORT=$(free_port)
ADMIN=$(free_port)
WEIR_PID=
SCRAPER_PID=
trap 'kill "$SCRAPER_PID" 2>/dev/null || true; stop_pid "$WEIR_PID" TERM; rm -rf "$WORK"' EXIT

"$WEIR" serve --override "listeners=PLAINTEXT://127.0.0.1:$PORT" --override "log.dirs=$WORK/data" \
  --override "weir.admin.listener=http://127.0.0.1:$ADMIN" >"$WORK/weir.log" 2>&1 &
WEIR_PID=$!
wait_port "$PORT"
"$WEIR" topics --bootstrap-server "127.0.0.1:$PORT" --create --topic scraped --partitions "$PARTITIONS" >/dev/null
body=$(curl -sf "http://127.0.0.1:$ADMIN/metrics" | wc -c)
echo "RESULT metrics_body_bytes $body" | record "partitions=$PARTITIONS"

scrape_every_second() {
  while :; do
    curl -sf -o /dev/null -w 'SCRAPE %{time_total}\n' "http://127.0.0.1:$ADMIN/metrics" >>"$WORK/scrapes.txt" || true
    sleep 1
  done
}

produce() {  # label, rep: into a fresh topic, so that runs do not fill the disk
  "$WEIR" topics --bootstrap-server "127.0.0.1:$PORT" --delete --topic produced >/dev/null 2>&1 || true
  "$WEIR" topics --bootstrap-server "127.0.0.1:$PORT" --create --topic produced --partitions 4 >/dev/null
  timeout 900 "$BUILD/bin/broker_bench" produce --bootstrap "127.0.0.1:$PORT" --topic produced --partitions 4 \
    --count "$COUNT" --size 100 --acks all --server-pid "$WEIR_PID" --name "$1" | record "rep=$2"
}

for ((rep = 1; rep <= REPS; rep++)); do
  for mode in $([[ $((rep % 2)) == 1 ]] && echo "none scrape" || echo "scrape none"); do
    if [[ $mode == scrape ]]; then
      scrape_every_second &
      SCRAPER_PID=$!
      produce produce_scraped "$rep"
      kill "$SCRAPER_PID"; wait "$SCRAPER_PID" 2>/dev/null || true; SCRAPER_PID=
    else
      produce produce_plain "$rep"
    fi
  done
done
echo "RESULT scrapes $(wc -l <"$WORK/scrapes.txt") median_scrape_s $(awk '{print $2}' "$WORK/scrapes.txt" | sort -n |
  awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}')" | record
python3 - "$RESULTS" <<'PY'
import re, statistics, sys
rates, cpu = {}, {}
for line in open(sys.argv[1]):
    m = re.search(r"RESULT server_cpu_s=([\d.]+).*phase=(produce_\w+).*?msgs_per_s=([\d.e+]+)", line)
    if m:
        cpu.setdefault(m.group(2), []).append(float(m.group(1)))
        rates.setdefault(m.group(2), []).append(float(m.group(3)))
med = lambda d, k: statistics.median(d.get(k, [0]))
plain, scraped = med(rates, "produce_plain"), med(rates, "produce_scraped")
print(f"median msgs/s: none {plain:,.0f}  scraped every second {scraped:,.0f}  ratio {scraped / plain:.3f}")
plain, scraped = med(cpu, "produce_plain"), med(cpu, "produce_scraped")
print(f"median broker CPU s per run: none {plain:.2f}  scraped every second {scraped:.2f}  ratio {scraped / plain:.3f}")
PY
