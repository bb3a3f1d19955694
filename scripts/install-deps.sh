#!/usr/bin/env bash
# Installs the Debian 12 packages Weir builds, tests and benchmarks with.
# Idempotent: skips apt entirely when everything is already present.
set -euo pipefail

PACKAGES=(
  cmake ninja-build g++ pkg-config python3
  libboost1.81-dev libboost-json1.81-dev libboost-program-options1.81-dev
  zlib1g-dev libsnappy-dev liblz4-dev libzstd-dev libisal-dev
  libgtest-dev libgmock-dev libbenchmark-dev libfmt-dev
  librdkafka-dev kcat
  libzookeeper-mt-dev zookeeper
  clang libclang-rt-14-dev
  python3-kafka golang-go golang-github-shopify-sarama-dev
)

missing=()
# The machine image ships Node.js with its own npm; Debian's nodejs is the fallback.
command -v npm >/dev/null || missing+=(nodejs npm)
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# kafkajs for compat-tests (from the npm registry, pinned by its package-lock.json).
kjs=$(dirname "$0")/../compat-tests/kafkajs
if [ ! "$kjs/node_modules/.package-lock.json" -nt "$kjs/package-lock.json" ]; then
  (cd "$kjs" && npm ci --no-audit --no-fund --loglevel=error)
fi
