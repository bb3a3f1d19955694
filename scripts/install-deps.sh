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
  libssl-dev libsasl2-dev rapidjson-dev dpkg-dev
  libzookeeper-mt-dev zookeeper
  clang libclang-rt-14-dev clang-format
  python3-kafka golang-go golang-github-shopify-sarama-dev
  openjdk-17-jdk-headless maven
  chromium
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

# librdkafka's own integration suite (compat-tests/librdkafka-suite) comes from
# Debian's source package of the installed librdkafka, unpacked once into a
# cache outside the repository.
librdkafka_source() {
  local version=2.0.2 debver=2.0.2-1
  local cache=${WEIR_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/weir}
  local dest=$cache/librdkafka-$version
  [ -f "$dest/tests/test.c" ] && return 0
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  command -v dpkg-source >/dev/null || $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends dpkg-dev
  if ! grep -rqs '^Types:.*deb-src' /etc/apt/sources.list.d/ && ! grep -qs '^deb-src' /etc/apt/sources.list; then
    $SUDO tee /etc/apt/sources.list.d/weir-deb-src.sources >/dev/null <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  fi
  local work
  work=$(mktemp -d)
  (cd "$work" && apt-get source -qq --download-only "librdkafka=$debver" >/dev/null 2>&1 &&
    dpkg-source -x "librdkafka_$debver.dsc" src >/dev/null 2>&1) ||
    { echo "could not obtain Debian's librdkafka $debver source package" >&2; rm -rf "$work"; return 1; }
  mkdir -p "$cache"
  rm -rf "$dest"
  mv "$work/src" "$dest"
  rm -rf "$work"
  echo "librdkafka $version source (with its tests) in $dest"
}
librdkafka_source
