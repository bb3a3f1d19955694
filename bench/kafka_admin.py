"""Admin steps of bench/run_kafka_bench.sh that any Kafka-compatible broker
answers, through confluent-kafka (librdkafka), timed here:

  kafka_admin.py brokers --bootstrap B --count N --timeout S
      wait until Metadata lists N brokers
  kafka_admin.py create --bootstrap B --topic T --topics K --partitions N --timeout S
      create topics T-0 .. T-(K-1) of N partitions each (RF 1), one CreateTopics request after
      the other (KRaft's controller refuses more than 10,000 records in one), and time until
      Metadata shows every partition with a leader
  kafka_admin.py ready --bootstrap B --topic T --topics K --partitions N --timeout S --since EPOCH
      time from EPOCH (a broker's spawn) until Metadata shows every partition of them with a leader

Prints RESULT lines; exits 1 when the deadline passes first."""
import argparse
import sys
import time

from confluent_kafka import KafkaException
from confluent_kafka.admin import AdminClient, NewTopic


def metadata(admin, topic=None):
    try:
        return admin.list_topics(topic=topic, timeout=2)
    except KafkaException:
        return None


def all_led(md, topics, partitions):
    for topic in topics:
        t = md.topics.get(topic) if md else None
        if t is None or t.error is not None or len(t.partitions) != partitions:
            return False
        if not all(p.leader >= 0 and p.error is None for p in t.partitions.values()):
            return False
    return True


def wait_for(deadline, check):
    while time.time() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("step", choices=["brokers", "create", "ready"])
    ap.add_argument("--bootstrap", required=True)
    ap.add_argument("--topic")
    ap.add_argument("--topics", type=int, default=1)
    ap.add_argument("--partitions", type=int, default=1)
    ap.add_argument("--count", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--since", type=float)
    a = ap.parse_args()
    topics = [f"{a.topic}-{i}" for i in range(a.topics)]
    start = time.time()
    deadline = start + a.timeout
    # Naming a topic in Metadata could make an auto-creating broker create it:
    # "ready" asks for all topics.
    admin = AdminClient({"bootstrap.servers": a.bootstrap, "socket.connection.setup.timeout.ms": 1000,
                         "reconnect.backoff.max.ms": 100})
    if a.step == "brokers":
        ok = wait_for(deadline, lambda: (md := metadata(admin)) is not None and len(md.brokers) >= a.count)
        print(f"RESULT phase=brokers_ready ms={(time.time() - start) * 1000:.1f}")
    elif a.step == "create":
        for topic in topics:
            admin.create_topics([NewTopic(topic, a.partitions, 1)], request_timeout=a.timeout,
                                operation_timeout=a.timeout)[topic].result(timeout=max(1, deadline - time.time()))
        answered = time.time()
        ok = wait_for(deadline, lambda: all_led(metadata(admin), topics, a.partitions))
        print(f"RESULT phase=scale_create partitions={a.topics * a.partitions} answered_ms={(answered - start) * 1000:.1f} "
              f"ms={(time.time() - start) * 1000:.1f}")
    else:
        ok = wait_for(deadline, lambda: all_led(metadata(admin), topics, a.partitions))
        print(f"RESULT phase=scale_restart partitions={a.topics * a.partitions} ms={(time.time() - a.since) * 1000:.1f}")
    if not ok:
        print(f"{a.step}: not done within {a.timeout} s", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
