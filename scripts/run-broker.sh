#!/usr/bin/env bash
# Builds Weir and starts a single-node broker on 127.0.0.1:9092 (data in ./weir-data).
# Extra arguments go to `weir serve`, e.g. --override num.partitions=4.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"${WEIR_JOBS:-2}" --target weir
exec build/bin/weir serve "$@"
