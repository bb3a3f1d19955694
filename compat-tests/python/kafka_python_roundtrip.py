#!/usr/bin/python3
"""kafka-python (Debian's python3-kafka 2.0.2) producer + assign-mode consumer.

usage: kafka_python_roundtrip.py BOOTSTRAP TOPIC COUNT API_VERSION
API_VERSION is "auto" (kafka-python probes the broker) or e.g. "0.10.0".
Prints one JSON object per line: {"api_version": ...}, then a "produced" line
per message, then a "consumed" line per message. Exit 0 on success.
"""
import json
import sys
import time

from kafka import KafkaConsumer, KafkaProducer, TopicPartition

BASE_TS = 1_690_000_000_000


def main():
    bootstrap, topic, count, api = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    api_version = None if api == "auto" else tuple(int(x) for x in api.split("."))
    common = dict(bootstrap_servers=bootstrap, api_version=api_version, request_timeout_ms=10000,
                  api_version_auto_timeout_ms=5000, client_id="weir-compat-python")

    producer = KafkaProducer(acks="all", linger_ms=5, max_block_ms=10000, retries=0, **common)
    resolved = producer.config["api_version"]
    print(json.dumps({"api_version": ".".join(str(x) for x in resolved)}), flush=True)
    with_headers = resolved >= (0, 11)
    with_ts = resolved >= (0, 10)
    futures = []
    for i in range(count):
        futures.append(producer.send(
            topic, partition=0, key=b"key-%d" % i, value=b"py-value-%d" % i,
            headers=[("h", b"hv-%d" % i), ("empty", b"")] if with_headers else None,
            timestamp_ms=BASE_TS + i if with_ts else None))
    producer.flush(timeout=15)
    for f in futures:
        md = f.get(timeout=10)
        print(json.dumps({"produced": True, "partition": md.partition, "offset": md.offset}), flush=True)
    producer.close(timeout=5)

    consumer = KafkaConsumer(group_id=None, enable_auto_commit=False, auto_offset_reset="earliest",
                             fetch_max_wait_ms=100, **common)
    tp = TopicPartition(topic, 0)
    consumer.assign([tp])
    consumer.seek_to_beginning(tp)
    received = 0
    deadline = time.monotonic() + 20
    while received < count and time.monotonic() < deadline:
        for records in consumer.poll(timeout_ms=200).values():
            for r in records:
                received += 1
                print(json.dumps({
                    "consumed": True, "partition": r.partition, "offset": r.offset,
                    "key": r.key.decode() if r.key is not None else None,
                    "value": r.value.decode() if r.value is not None else None,
                    "headers": [[k, v.decode() if v is not None else None] for k, v in (r.headers or [])],
                    "timestamp": r.timestamp, "timestamp_type": r.timestamp_type,
                }), flush=True)
    try:
        end = consumer.end_offsets([tp])[tp]  # ListOffsets v1: needs api_version >= 0.10.1
    except Exception:  # noqa: BLE001 - older api_version settings cannot ask
        end = None
    print(json.dumps({"end_offset": end}), flush=True)
    consumer.close()
    if received != count:
        sys.exit("received %d of %d messages" % (received, count))


if __name__ == "__main__":
    main()
