#!/usr/bin/env python3
"""Work for a broker's log cleaner (bench/run_background_bench.sh): creates a
compacted topic and rewrites KEYS keys in it at RATE records per second for
SECONDS, so that every segment it rolls holds mostly superseded records.
Prints one RESULT line: records written, and the bytes the topic's segment
files hold at the end when --log-dir names the broker's log dir (less
than written once the cleaner has compacted it)."""
import argparse
import os
import time

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic


def dir_bytes(log_dir, topic):
    total = 0
    for name in os.listdir(log_dir):
        if name.startswith(topic + "-") and name[len(topic) + 1:].isdigit():
            for root, _, files in os.walk(os.path.join(log_dir, name)):
                total += sum(os.path.getsize(os.path.join(root, f)) for f in files if f.endswith(".log"))
    return total


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bootstrap", required=True)
    p.add_argument("--topic", default="churn")
    p.add_argument("--keys", type=int, default=1000)
    p.add_argument("--size", type=int, default=1024)
    p.add_argument("--rate", type=int, default=2000)
    p.add_argument("--seconds", type=float, default=20)
    p.add_argument("--log-dir")
    a = p.parse_args()

    admin = AdminClient({"bootstrap.servers": a.bootstrap})
    topic = NewTopic(a.topic, num_partitions=1, replication_factor=1, config={"cleanup.policy": "compact"})
    admin.create_topics([topic], request_timeout=30)[a.topic].result(timeout=60)

    producer = Producer({"bootstrap.servers": a.bootstrap})
    value = b"v" * a.size
    sent = 0
    start = time.monotonic()
    while (now := time.monotonic()) - start < a.seconds:
        due = int((now - start) * a.rate)
        while sent < due:
            try:
                producer.produce(a.topic, key=str(sent % a.keys).encode(), value=value)
            except BufferError:
                producer.poll(0.01)
                continue
            sent += 1
        producer.poll(0.005)
    if producer.flush(60) != 0:
        raise SystemExit("churn: records left undelivered after 60 s")
    on_disk = dir_bytes(a.log_dir, a.topic) if a.log_dir else -1
    print(f"RESULT phase=churn sent={sent} written_bytes={sent * a.size} on_disk_bytes={on_disk}", flush=True)


if __name__ == "__main__":
    main()
