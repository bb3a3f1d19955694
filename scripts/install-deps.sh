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
  libssl-dev libsasl2-dev rapidjson-dev libcurl4-openssl-dev dpkg-dev
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
# Debian's source packages, unpacked once each into a cache outside the
# repository: bookworm's 2.0.2 (the installed client) and unstable's 2.14.2 (the
# current suite). Unstable is added as a deb-src entry only: apt takes source
# packages from it and never a binary package. Unstable's Debian patches are not
# applied: they swap the vendored cJSON, nanopb and OpenTelemetry sources for
# system packages bookworm does not have; the suite is built as upstream ships it.
deb_src_entry() { # suite file: a deb-src entry for that suite, ours unless the machine has one
  local suite=$1 file=/etc/apt/sources.list.d/$2
  [ -f "$file" ] && return 0
  awk -v s="$suite" 'BEGIN { RS = "" }
    /(^|\n)Types:[^\n]*deb-src/ && $0 ~ ("(^|\n)Suites:[^\n]*[ \t]" s "([ \t]|\n|$)") { found = 1 }
    END { exit !found }' /etc/apt/sources.list.d/*.sources 2>/dev/null && return 0
  grep -qsE "^deb-src[[:space:]].*[[:space:]]$suite([[:space:]]|$)" /etc/apt/sources.list /etc/apt/sources.list.d/*.list &&
    return 0
  $SUDO tee "$file" >/dev/null <<SRC
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $suite
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
}
librdkafka_source() { # version debian-version suite [dpkg-source option]
  local version=$1 debver=$2 suite=$3 option=${4:-}
  local cache=${WEIR_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/weir}
  local dest=$cache/librdkafka-$version
  [ -f "$dest/tests/test.c" ] && return 0
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
  command -v dpkg-source >/dev/null || $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends dpkg-dev
  if [ "$suite" = bookworm ]; then
    deb_src_entry bookworm weir-deb-src.sources
  else
    deb_src_entry "$suite" "weir-deb-src-$suite.sources"
  fi
  apt-cache showsrc librdkafka 2>/dev/null | grep -x "Version: $debver" >/dev/null ||
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  local work
  work=$(mktemp -d)
  (cd "$work" && apt-get source -qq --download-only "librdkafka=$debver" >/dev/null 2>&1 &&
    dpkg-source $option -x "librdkafka_$debver.dsc" src >/dev/null 2>&1) ||
    { echo "could not obtain Debian's librdkafka $debver source package" >&2; rm -rf "$work"; return 1; }
  mkdir -p "$cache"
  rm -rf "$dest"
  mv "$work/src" "$dest"
  rm -rf "$work"
  echo "librdkafka $version source (with its tests) in $dest"
}
librdkafka_source 2.0.2 2.0.2-1 bookworm
librdkafka_source 2.14.2 2.14.2-1 sid --skip-patches

# Today's releases of three clients, beside Debian 12's Sarama 1.22 and
# kafka-python 2.0.2 (compat-tests 0026 and 0027), in a cache outside the
# repository: IBM Sarama's modules as compat-tests/sarama-modern/go.sum pins
# them, and kafka-python 3 and confluent-kafka (whose wheel carries its own
# librdkafka) in a virtualenv made from Debian's python3.
clients_cache=${WEIR_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/weir}
# Its go.mod needs Go 1.26, the toolchain compat-tests/go/go-toolchain pins.
if modern_go=$("$(dirname "$0")/../compat-tests/go/go-toolchain"); then
  (cd "$(dirname "$0")/../compat-tests/sarama-modern" &&
    GOMODCACHE=$clients_cache/gomod GOFLAGS=-modcacherw GOTOOLCHAIN=local "$modern_go" mod download) ||
    echo "could not download compat-tests/sarama-modern's Go modules" >&2
fi
clients_venv=$clients_cache/venv-clients
# kafka-python's codecs each need a module of their own (its extras).
clients_pins=(kafka-python==3.0.12 confluent-kafka==2.16.1
  crc32c==2.9.post0 lz4==4.4.5 python-snappy==0.7.3 cramjam==2.14.0 zstandard==0.25.0)
if [ "$(cat "$clients_venv/.pins" 2>/dev/null)" != "${clients_pins[*]}" ]; then
  dpkg-query -W -f='${Status}' python3-venv 2>/dev/null | grep -q "ok installed" ||
    ${SUDO:-} env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv
  rm -rf "$clients_venv"
  /usr/bin/python3 -m venv "$clients_venv"
  "$clients_venv/bin/pip" install -q --disable-pip-version-check "${clients_pins[@]}"
  echo "${clients_pins[*]}" >"$clients_venv/.pins"
fi

# Apache Kafka's broker (kafka_2.13 3.9.2 and its dependencies from Maven Central,
# pinned in tools/reference-kafka/pom.xml, cached): the differential suite
# (compat-tests/differential) and the benchmarks run it beside Weir.
"$(dirname "$0")/../tools/reference-kafka/install" >/dev/null
