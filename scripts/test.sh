#!/usr/bin/env bash
# Builds Weir and runs every test: unit tests and compat tests with real clients.
# In CI (or with WEIR_TEST_FULL=1) the one build is instrumented with ASan +
# UBSan, so the compat tests' real clients also drive a sanitized broker, and
# the libFuzzer targets run for a bounded time. Both modes end with the real
# clients' own suites (client_suites below). Exits non-zero if anything fails.
#   scripts/test.sh          what CI runs (CI mode when CI or WEIR_TEST_FULL is set)
#   scripts/test.sh --full   CI mode plus the rest of the client matrix (see
#                            client_suites below)
set -euo pipefail
cd "$(dirname "$0")/.."
matrix=
case ${1:-} in
  --full) matrix=full ;;
  "") ;;
  *) echo "usage: scripts/test.sh [--full]" >&2; exit 2 ;;
esac
scripts/install-deps.sh

full=${WEIR_TEST_FULL:-${CI:-}}
[ -n "$matrix" ] && full=1

# The real clients' own suites and scenarios against a built broker. librdkafka's
# suites keep the two cores about a third busy each and take longest, so both
# run at once and the Java client and franz-go run beside them; their output
# follows.
#   - librdkafka 2.0.2's suite (Debian 12's client) against one broker and three;
#   - librdkafka 2.14.2's suite (today's client) against one broker;
#   - the Java client (kafka-clients, Kafka Streams, Kafka's tools): the newest 4.x
#     against three brokers and 3.9 against one;
#   - franz-go's own tests against one broker.
# --full adds the rest of the matrix: librdkafka 2.14's suite against three,
# each Java version and franz-go against one and three, and the Java tests
# against Apache Kafka's broker to check what they expect.
client_suites() { # weir-binary out-dir
  local bin=$1 out=$2 st=0 suite suite_new sizes_new=1 classes_new=pass
  mkdir -p "$out"
  compat-tests/librdkafka-suite/run-suite --weir "$bin" --out "$out/librdkafka-suite" \
    --brokers 1,3 --classes pass,cluster --parallel "${WEIR_SUITE_PARALLEL:-5}" --retries 1 \
    >"$out/librdkafka-suite.log" 2>&1 &
  suite=$!
  # Its cluster numbers need three brokers.
  [ -n "$matrix" ] && sizes_new=1,3 classes_new=pass,cluster
  compat-tests/librdkafka-suite/run-suite --suite 2.14.2 --weir "$bin" --out "$out/librdkafka-suite-2.14" \
    --brokers "$sizes_new" --classes "$classes_new" --parallel "${WEIR_SUITE_PARALLEL:-5}" --retries 1 \
    >"$out/librdkafka-suite-2.14.log" 2>&1 &
  suite_new=$!
  echo "=== the Java client: kafka-clients, Kafka Streams and Kafka's own tools ==="
  if [ -n "$matrix" ]; then
    compat-tests/java/run --weir "$bin" --out "$out/java-compat" --clients 4.4.0,3.9.2 --brokers 1,3 || st=1
  else
    compat-tests/java/run --weir "$bin" --out "$out/java-compat" --clients 4.4.0 --brokers 3 || st=1
    compat-tests/java/run --weir "$bin" --out "$out/java-compat" --clients 3.9.2 --brokers 1 || st=1
  fi
  echo "=== franz-go's own integration tests ==="
  local sizes=1
  [ -n "$matrix" ] && sizes=1,3
  compat-tests/go/run-franz-go --weir "$bin" --out "$out/franz-go" --brokers "$sizes" --retries 1 || st=1
  echo "=== librdkafka 2.0.2's own integration suite against one broker and against three over ZooKeeper ==="
  wait "$suite" || st=1
  cat "$out/librdkafka-suite.log"
  echo "=== librdkafka 2.14.2's own integration suite against ${sizes_new/,/ and } broker(s) ==="
  wait "$suite_new" || st=1
  cat "$out/librdkafka-suite-2.14.log"
  if [ -n "$matrix" ]; then
    echo "=== the same Java tests against Apache Kafka 3.9.2: what they expect is what Kafka does ==="
    compat-tests/java/run --kafka 3.9.2 --out "$out/java-compat-kafka" --clients 4.4.0 --brokers 1,3 || st=1
  fi
  return $st
}
jobs=${WEIR_JOBS:-2}
status=0

# Unit tests once; compat tests (real clients against real brokers, with their
# own timing) get one more attempt each, as librdkafka's suite gets --retries 1.
run_ctest() { # build-dir
  local st=0
  ctest --test-dir "$1" --timeout 600 -j"$jobs" --output-on-failure -LE compat || st=1
  ctest --test-dir "$1" --timeout 600 -j"$jobs" --output-on-failure -L compat --repeat until-pass:2 || st=1
  return $st
}

echo "=== one dialect (.clang-format) ==="
scripts/check-format.sh || status=1

echo "=== layers (ARCHITECTURE.md, who may call whom) ==="
scripts/check-layers.sh || status=1

if [ -n "$full" ]; then
  echo "=== fuzzers (bounded) ==="
  CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWEIR_FUZZ=ON \
    -DWEIR_BENCH=OFF -DWEIR_WERROR=OFF >/dev/null
  cmake --build build-fuzz -j"$jobs" --target fuzz_targets
  # One core each, all at once.
  fuzz() {
    local name corpus work rc=0
    name=$(basename "$1")
    corpus=protocol/fuzz/corpus/${name#fuzz_}
    work=$(mktemp -d)
    "$1" -max_total_time="${WEIR_FUZZ_SECONDS:-30}" -rss_limit_mb=2048 -timeout=10 "$work" "$corpus" \
      >"build-fuzz/$name.log" 2>&1 || rc=$?
    rm -rf "$work"
    return $rc
  }
  pids=()
  for f in build-fuzz/bin/fuzz_*; do
    fuzz "$f" &
    pids+=("$!:$(basename "$f")")
  done
  for p in "${pids[@]}"; do
    name=${p#*:}
    if wait "${p%%:*}"; then
      tail -1 "build-fuzz/$name.log"
    else
      echo "fuzzer $name failed:"; tail -40 "build-fuzz/$name.log"; status=1
    fi
  done

  echo "=== ASan + UBSan build of everything; every test ==="
  # Debug (-O0) compiles fastest; the optimizer-only warnings are left to the
  # plain build above (without CI=1).
  cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=Debug -DWEIR_WERROR=ON -DWEIR_SANITIZE=ON -DWEIR_BENCH=OFF >/dev/null
  cmake --build build-asan -j"$jobs"
  export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  run_ctest build-asan || status=1
  if [ -n "$matrix" ]; then
    # run_ctest compared Weir with Kafka 3.9 (ZooKeeper mode, one broker); Kafka 4.x is
    # KRaft only; three brokers compare what the clients see.
    echo "=== the differential suite against Apache Kafka 4.4.0 (KRaft mode) ==="
    WEIR_DIFFERENTIAL_REFERENCE=4.4.0 ctest --test-dir build-asan --timeout 600 --output-on-failure \
      -R '^compat\.differential$' --repeat until-pass:2 || status=1
    echo "=== the differential suite against three brokers of Apache Kafka 3.9.2 ==="
    WEIR_DIFFERENTIAL_BROKERS=3 ctest --test-dir build-asan --timeout 600 --output-on-failure \
      -R '^compat\.differential$' --repeat until-pass:2 || status=1
  fi

  client_suites build-asan/bin/weir build-asan || status=1
  exit $status
fi

echo "=== build and run every test ==="
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DWEIR_WERROR=ON >/dev/null
# Now that CMake has placed every source in a library, each must be its layer's.
scripts/check-layers.sh build || status=1
cmake --build build -j"$jobs"
run_ctest build || status=1

client_suites build/bin/weir build || status=1
exit $status
