#!/usr/bin/env bash
# Prints Wireshark's decoding of captured request frames (developer tool).
# Usage: tools/capture/decode_fixture.sh FILE.bin...
# Each .bin (4-byte size + request) is wrapped in a dummy TCP packet to port
# 9092 with text2pcap, then dissected by tshark's Kafka dissector.
set -euo pipefail
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for f in "$@"; do
  echo "=== $(basename "$f") ($(stat -c %s "$f") bytes)"
  od -Ax -tx1 -v "$f" | text2pcap -q -T 40000,9092 - "$tmp/one.pcap"
  tshark -r "$tmp/one.pcap" -d tcp.port==9092,kafka -O kafka 2>/dev/null \
    | grep -v '^\(Frame\|Ethernet\|Internet\|Transmission\) '
done
