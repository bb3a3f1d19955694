"""What real clients see of a broker, for the differential suite to compare
between Apache Kafka and Weir: confluent-kafka (the librdkafka its wheel
carries) and kafka-python 3, from the virtualenv scripts/install-deps.sh makes.

usage: client_scenarios.py BOOTSTRAP [--replication-factor N] [--only PREFIX]

Prints one JSON line per scenario, {"scenario": NAME, "seen": VALUE}: only
what must be the same on any Kafka-compatible broker (records, offsets,
partitions, error names, group states), never ids, hosts, ports or times a
broker makes. A step that fails is seen as {"error": NAME}. Every wait is
bounded; the whole run takes well under a minute against a ready broker.
"""
import argparse
import json
import sys
import time

from confluent_kafka import (Consumer, KafkaError, KafkaException, Producer, TopicPartition,
                             ConsumerGroupTopicPartitions)
from confluent_kafka.admin import (AdminClient, ConfigResource, NewPartitions, NewTopic, OffsetSpec,
                                   ResourceType)

BASE_TS = 1_700_000_000_000
CODECS = ("none", "gzip", "snappy", "lz4", "zstd")


class Deadline:
    def __init__(self, seconds):
        self.end = time.monotonic() + seconds

    def __bool__(self):
        return time.monotonic() < self.end


def error_name(e):
    if isinstance(e, KafkaException) and e.args and isinstance(e.args[0], KafkaError):
        return e.args[0].name()
    if isinstance(e, KafkaError):
        return e.name()
    return type(e).__name__


def attempt(f):
    """f()'s value, or {"error": NAME} when it raises."""
    try:
        return f()
    except Exception as e:  # noqa: BLE001 - any failure is part of what the client sees
        return {"error": error_name(e)}


class Scenarios:
    def __init__(self, bootstrap, replication_factor):
        self.bootstrap = bootstrap
        self.rf = replication_factor
        self.admin = AdminClient({"bootstrap.servers": bootstrap})

    def conf(self, **extra):
        c = {"bootstrap.servers": self.bootstrap}
        c.update(extra)
        return c

    def create(self, name, partitions, configs=None):
        f = self.admin.create_topics([NewTopic(name, partitions, self.rf, config=configs or {})], operation_timeout=30)
        f[name].result(timeout=60)
        # Metadata may lag the creation on a broker that answers before its
        # leaders are elected: wait until every partition has one.
        deadline = Deadline(30)
        while deadline:
            t = self.admin.list_topics(timeout=10).topics.get(name)
            if t and not t.error and len(t.partitions) == partitions and \
                    all(p.leader >= 0 for p in t.partitions.values()):
                return
            time.sleep(0.1)

    def read_all(self, topic, partitions, count, isolation="read_uncommitted"):
        """Every record of `topic` from the start, as the consumer hands them out, per partition in order."""
        c = Consumer(self.conf(**{"group.id": "unused", "enable.auto.commit": False,
                                  "isolation.level": isolation, "enable.partition.eof": True}))
        c.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
        seen, eof = [], set()
        deadline = Deadline(30)
        while deadline and (len(seen) < count or len(eof) < partitions):
            m = c.poll(0.2)
            if m is None:
                continue
            if m.error():
                if m.error().code() == KafkaError._PARTITION_EOF:
                    eof.add(m.partition())
                    continue
                seen.append({"error": m.error().name()})
                continue
            eof.discard(m.partition())
            ts_type, ts = m.timestamp()
            seen.append({"partition": m.partition(), "offset": m.offset(), "key": (m.key() or b"").decode(),
                         "value": (m.value() or b"").decode(), "headers": [[k, (v or b"").decode()]
                                                                            for k, v in (m.headers() or [])],
                         "timestamp_type": ts_type, "timestamp": ts if ts_type == 1 else None})
        marks = {str(p): list(c.get_watermark_offsets(TopicPartition(topic, p), timeout=10)) for p in range(partitions)}
        c.close()
        seen.sort(key=lambda r: (r.get("partition", -1), r.get("offset", -1)))
        return {"records": seen, "watermarks": marks}

    # --- scenarios -----------------------------------------------------------

    def roundtrip(self, codec):
        topic = "client-roundtrip-" + codec
        self.create(topic, 3)
        p = Producer(self.conf(**{"compression.type": codec, "linger.ms": 20, "partitioner": "murmur2_random"}))
        reports = []
        for i in range(30):
            p.produce(topic, key=b"k%d" % (i % 5), value=b"value-%d" % i, timestamp=BASE_TS + i,
                      headers=[("seq", b"%d" % i)],
                      on_delivery=lambda err, m: reports.append(
                          {"error": err.name()} if err else {"partition": m.partition(), "offset": m.offset()}))
        p.flush(30)
        reports.sort(key=lambda r: (r.get("partition", -1), r.get("offset", -1)))
        return {"delivered": reports, "read": self.read_all(topic, 3, 30)}

    def kafka_python_roundtrip(self, codec):
        import kafka
        topic = "client-kafka-python-" + codec
        self.create(topic, 1)
        prod = kafka.KafkaProducer(bootstrap_servers=self.bootstrap, compression_type=None if codec == "none" else codec,
                                   linger_ms=20)
        futures = [prod.send(topic, key=b"k%d" % i, value=b"value-%d" % i, timestamp_ms=BASE_TS + i,
                             headers=[("seq", b"%d" % i)]) for i in range(20)]
        prod.flush(30)
        delivered = [attempt(lambda f=f: f.get(timeout=30).offset) for f in futures]
        prod.close(10)
        cons = kafka.KafkaConsumer(bootstrap_servers=self.bootstrap, enable_auto_commit=False,
                                   consumer_timeout_ms=5000)
        tp = kafka.TopicPartition(topic, 0)
        cons.assign([tp])
        cons.seek_to_beginning(tp)
        read = []
        deadline = Deadline(30)
        while deadline and len(read) < 20:
            for records in cons.poll(timeout_ms=500).values():
                read += [[r.offset, r.key.decode(), r.value.decode(), r.timestamp, r.timestamp_type,
                          [[k, v.decode()] for k, v in r.headers]] for r in records]
        end = cons.end_offsets([tp])[tp]
        cons.close()
        return {"delivered": delivered, "read": read, "end": end}

    def group(self, assignor):
        topic = "client-group-" + assignor
        group = "client-group-" + assignor
        self.create(topic, 6)
        p = Producer(self.conf())
        for i in range(60):
            p.produce(topic, value=b"v%d" % i, partition=i % 6)
        p.flush(30)
        members = [Consumer(self.conf(**{"group.id": group, "partition.assignment.strategy": assignor,
                                         "enable.auto.commit": False, "auto.offset.reset": "earliest",
                                         "session.timeout.ms": 10000, "heartbeat.interval.ms": 500}))
                   for _ in range(3)]
        assigned = [set() for _ in members]

        def on_assign(i):
            def cb(c, parts):
                assigned[i].update(tp.partition for tp in parts)
            return cb

        def on_revoke(i):
            def cb(c, parts):
                assigned[i].difference_update(tp.partition for tp in parts)
            return cb

        for i, c in enumerate(members):
            c.subscribe([topic], on_assign=on_assign(i), on_revoke=on_revoke(i))
        consumed = set()
        deadline = Deadline(60)
        # Until the three own the six partitions between them, each once, and
        # every member has read its partitions to the end: then what each
        # commits is the end, whatever the rebalances on the way redelivered.
        while deadline:
            for c in members:
                m = c.poll(0.05)
                if m is not None and not m.error():
                    consumed.add((m.partition(), m.offset()))
            owned = sorted(p for a in assigned for p in a)
            if owned == list(range(6)) and all(assigned) and len(consumed) == 60 and all(
                    tp.offset == 10 for i, c in enumerate(members)
                    for tp in c.position([TopicPartition(topic, p) for p in assigned[i]])):
                break
        for c in members:
            attempt(lambda c=c: c.commit(asynchronous=False))
        described = self.admin.describe_consumer_groups([group])[group].result(timeout=30)
        seen = {"sizes": sorted(len(a) for a in assigned), "owned": sorted(p for a in assigned for p in a),
                "consumed": len(consumed), "state": str(described.state), "assignor": described.partition_assignor,
                "members": len(described.members), "simple": described.is_simple_consumer_group}
        offsets = self.admin.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group)])[group].result(timeout=30)
        seen["committed"] = sorted([tp.partition, tp.offset] for tp in offsets.topic_partitions)
        for c in members:
            c.close()
        after = self.admin.describe_consumer_groups([group])[group].result(timeout=30)
        seen["state after close"] = str(after.state)
        seen["members after close"] = len(after.members)
        return seen

    def transactions(self):
        topic = "client-txn"
        self.create(topic, 1)
        p = Producer(self.conf(**{"transactional.id": "client-txn", "linger.ms": 5}))
        p.init_transactions(30)
        for batch, commit in (((0, 3), True), ((3, 5), False), ((5, 6), True)):
            p.begin_transaction()
            for i in range(*batch):
                p.produce(topic, value=b"t%d" % i)
            if batch == (5, 6):
                # The consumer group's offset goes with the last transaction.
                md = Consumer(self.conf(**{"group.id": "client-txn-group"}))
                p.send_offsets_to_transaction([TopicPartition(topic, 0, 42)], md.consumer_group_metadata(), 30)
                md.close()
            # Sent before the end, or an abort would drop them unsent.
            p.flush(30)
            if commit:
                p.commit_transaction(30)
            else:
                p.abort_transaction(30)
        p.flush(10)
        # The markers that make the offset visible follow EndTxn's answer on Kafka's side.
        deadline = Deadline(15)
        while True:
            committed = self.admin.list_consumer_group_offsets(
                [ConsumerGroupTopicPartitions("client-txn-group")])["client-txn-group"].result(timeout=30)
            if any(tp.offset >= 0 for tp in committed.topic_partitions) or not deadline:
                break
            time.sleep(0.1)
        strip = lambda r: {"records": [[x.get("offset"), x.get("value")] for x in r["records"]],  # noqa: E731
                           "watermarks": r["watermarks"]}
        return {"read_committed": strip(self.read_all(topic, 1, 4, "read_committed")),
                "read_uncommitted": strip(self.read_all(topic, 1, 5)),
                "group offsets": sorted([tp.partition, tp.offset] for tp in committed.topic_partitions)}

    def admin_calls(self):
        a = self.admin
        seen = {}

        def created(topic, partitions, configs=None):
            return attempt(lambda: a.create_topics([NewTopic(topic, partitions, self.rf, config=configs or {})],
                                                   operation_timeout=30)[topic].result(timeout=60) or "ok")

        seen["create"] = created("client-admin", 2, {"retention.ms": "1234", "cleanup.policy": "compact"})
        seen["create again"] = created("client-admin", 2)
        seen["create with 0 partitions"] = created("client-admin-zero", 0)
        seen["create with an unknown config"] = created("client-admin-bad", 1, {"no.such.config": "1"})
        seen["create with a bad value"] = created("client-admin-bad", 1, {"retention.ms": "soon"})
        self.create("client-admin-wait", 1)  # the leaders of client-admin are elected by now too
        res = ConfigResource(ResourceType.TOPIC, "client-admin")
        configs = a.describe_configs([res])[res].result(timeout=30)
        seen["configs"] = {k: [configs[k].value, configs[k].is_default, str(configs[k].source)]
                           for k in ("retention.ms", "cleanup.policy", "segment.bytes", "max.message.bytes")}
        seen["unknown topic configs"] = attempt(lambda: len(a.describe_configs(
            [ConfigResource(ResourceType.TOPIC, "no-such-topic")])[ConfigResource(ResourceType.TOPIC,
                                                                                  "no-such-topic")].result(timeout=30)))
        grow = lambda n: attempt(  # noqa: E731
            lambda: a.create_partitions([NewPartitions("client-admin", n)], operation_timeout=30)["client-admin"]
            .result(timeout=30) or "ok")
        seen["partitions to 3"] = grow(3)
        seen["partitions to 2"] = grow(2)
        p = Producer(self.conf())
        for topic in ("client-admin", "client-admin-wait"):
            for i in range(10):
                p.produce(topic, key=b"k%d" % i, value=b"v%d" % i, partition=0, timestamp=BASE_TS + i * 10)
        p.flush(30)

        def delete_before(topic, offset):
            tp = TopicPartition(topic, 0, offset)
            r = attempt(lambda: a.delete_records([tp])[tp].result(timeout=30))
            return r if isinstance(r, dict) else r.low_watermark

        seen["delete records of a compacted topic"] = delete_before("client-admin", 4)
        seen["delete records"] = delete_before("client-admin-wait", 4)
        seen["delete records past the end"] = delete_before("client-admin-wait", 99)

        def listed(spec):
            tp = TopicPartition("client-admin-wait", 0)
            r = attempt(lambda: a.list_offsets({tp: spec})[tp].result(timeout=30))
            return r if isinstance(r, dict) else [r.offset, r.timestamp]

        seen["offsets earliest"] = listed(OffsetSpec.earliest())
        seen["offsets latest"] = listed(OffsetSpec.latest())
        seen["offsets max timestamp"] = listed(OffsetSpec.max_timestamp())
        seen["offsets for a timestamp"] = listed(OffsetSpec.for_timestamp(BASE_TS + 55))
        cluster = a.describe_cluster().result(timeout=30)
        seen["cluster"] = {"nodes": len(cluster.nodes), "controller": cluster.controller is not None}
        seen["delete"] = attempt(lambda: a.delete_topics(["client-admin-wait"], operation_timeout=30)[
            "client-admin-wait"].result(timeout=30) or "ok")
        seen["delete unknown"] = attempt(lambda: a.delete_topics(["no-such-topic"], operation_timeout=30)[
            "no-such-topic"].result(timeout=30) or "ok")
        return seen

    def all(self):
        for codec in CODECS:
            yield "client: confluent-kafka produce and consume, " + codec, lambda c=codec: self.roundtrip(c)
        for codec in ("none", "gzip", "lz4", "zstd", "snappy"):
            yield "client: kafka-python produce and consume, " + codec, \
                lambda c=codec: self.kafka_python_roundtrip(c)
        for assignor in ("range", "roundrobin", "cooperative-sticky"):
            yield "client: a group of three, " + assignor, lambda a=assignor: self.group(a)
        yield "client: transactions", self.transactions
        yield "client: admin calls", self.admin_calls


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bootstrap")
    ap.add_argument("--replication-factor", type=int, default=1)
    ap.add_argument("--only", default="", help="run the scenarios whose name starts with this")
    a = ap.parse_args()
    scenarios = Scenarios(a.bootstrap, a.replication_factor)
    for name, run in scenarios.all():
        if not name.startswith(a.only):
            continue
        print(json.dumps({"scenario": name, "seen": attempt(run)}), flush=True)


if __name__ == "__main__":
    main()
