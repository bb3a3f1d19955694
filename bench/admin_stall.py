#!/usr/bin/env python3
"""How long a broker keeps every other connection waiting while it creates
and deletes many topics in one request (bench/run_admin_stall_bench.sh).

A probe connection sends ApiVersions v0 back to back and records each round
trip, while an AdminClient (confluent-kafka) creates TOPICS topics of
PARTITIONS partitions in one CreateTopics request, writes a record to each
partition, then deletes them all in one DeleteTopics request. Printed per
phase: the admin call's time, and the probe's median, p99 and longest round
trip while the call ran."""
import argparse
import socket
import statistics
import struct
import threading
import time

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic


class Probe(threading.Thread):
    """ApiVersions v0 round trips on a connection of its own, timestamped."""

    def __init__(self, host, port):
        super().__init__(daemon=True)
        self.sock = socket.create_connection((host, port), timeout=60)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.samples = []  # (end time, seconds)
        self.stopping = threading.Event()

    def read_exactly(self, n):
        out = b""
        while len(out) < n:
            chunk = self.sock.recv(n - len(out))
            if not chunk:
                raise ConnectionError("broker closed the probe connection")
            out += chunk
        return out

    def run(self):
        correlation = 0
        client = b"stall-probe"
        while not self.stopping.is_set():
            correlation += 1
            body = struct.pack(">hhih", 18, 0, correlation, len(client)) + client
            start = time.monotonic()
            self.sock.sendall(struct.pack(">i", len(body)) + body)
            size = struct.unpack(">i", self.read_exactly(4))[0]
            self.read_exactly(size)
            end = time.monotonic()
            self.samples.append((end, end - start))
            time.sleep(0.002)

    def during(self, start, end):
        """Round trips that overlapped [start, end]."""
        return sorted(s for t, s in self.samples if t >= start and t - s <= end)


def wait_all(futures):
    for f in futures.values():
        f.result(timeout=120)


def phase(probe, label, action):
    start = time.monotonic()
    action()
    end = time.monotonic()
    time.sleep(0.3)  # let the probe's last round trip of the window come back
    rtts = probe.during(start, end)
    if not rtts:
        rtts = [0.0]
    p99 = rtts[min(len(rtts) - 1, int(len(rtts) * 0.99))]
    print(f"RESULT phase={label} call_ms={1000 * (end - start):.0f} probe_median_ms={1000 * statistics.median(rtts):.2f} "
          f"probe_p99_ms={1000 * p99:.1f} probe_max_ms={1000 * rtts[-1]:.1f} probes={len(rtts)}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bootstrap", required=True)
    ap.add_argument("--topics", type=int, default=100)
    ap.add_argument("--partitions", type=int, default=3)
    ap.add_argument("--prefix", default="stall")
    args = ap.parse_args()
    host, port = args.bootstrap.rsplit(":", 1)
    admin = AdminClient({"bootstrap.servers": args.bootstrap})
    names = [f"{args.prefix}-{i}" for i in range(args.topics)]
    probe = Probe(host, int(port))
    probe.start()
    time.sleep(0.5)

    def create():
        wait_all(admin.create_topics([NewTopic(n, args.partitions, 1) for n in names], operation_timeout=60))

    def delete():
        wait_all(admin.delete_topics(names, operation_timeout=60))

    phase(probe, "create", create)
    producer = Producer({"bootstrap.servers": args.bootstrap, "linger.ms": 5})
    for n in names:
        for p in range(args.partitions):
            producer.produce(n, b"x" * 100, partition=p)
    if producer.flush(60) != 0:
        raise SystemExit("records not delivered within 60 s")
    time.sleep(1)
    phase(probe, "delete", delete)
    probe.stopping.set()
    probe.join(timeout=10)


if __name__ == "__main__":
    main()
