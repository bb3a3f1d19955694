"""Today's Python clients against weir: kafka-python 3 and confluent-kafka.

Runs under the virtualenv scripts/install-deps.sh makes (pinned versions).

usage: modern_clients.py CLIENT BOOTSTRAP MODE ARGS...
  CLIENT: kafka-python or confluent
  versions                     -> {"client_version": ..., "broker_version": ..., "sent": {API: [versions]}}
                                  (kafka-python: what it inferred and the request versions it sent
                                  for a produce, a group consume and a commit)
  roundtrip TOPIC COUNT CODEC  -> COUNT records with headers and CreateTimes to partition 0,
                                  read back and compared; {"produced": N, "offsets": [first, last]}
  group TOPIC GROUP COUNT STRATEGY
                               -> two members in threads; once their assignments cover every
                                  partition once, they read COUNT records between them and commit;
                                  {"assigned": [[...], [...]]}, then {"consumed": [P, OFFSET, KEY]} lines
  admin PREFIX                 -> {"ok": STEP} per admin call checked
  txn TOPIC GROUP              -> committed, aborted, and committed-with-offsets transactions
Exit status 0 when every check held; the first failed check's message on stderr otherwise.
"""
import json
import logging
import re
import sys
import threading
import time

BASE_TS = 1_700_000_000_000


def out(**kv):
    print(json.dumps(kv), flush=True)


def fail(msg):
    sys.exit("modern_clients: " + msg)


def check(step, ok, detail=""):
    if not ok:
        fail("%s: %s" % (step, detail))
    out(ok=step)


def key(i):
    return b"key-%d" % i


def value(i):
    return b"value-%d-" % i + bytes((i + j) % 256 for j in range(i % 97))


def headers(i):
    return [("seq", b"%d" % i), ("empty", b"")]


class Deadline:
    def __init__(self, seconds):
        self.end = time.monotonic() + seconds

    def left(self):
        return self.end - time.monotonic()

    def __bool__(self):
        return self.left() > 0


# ---------------------------------------------------------------------------- kafka-python

class KafkaPython:
    name = "kafka-python"

    def __init__(self, bootstrap):
        import kafka
        self.kafka = kafka
        self.bootstrap = bootstrap
        self.common = dict(bootstrap_servers=bootstrap, request_timeout_ms=10000, client_id="weir-compat-kafka-python3")

    def version(self):
        return self.kafka.__version__

    def producer(self, **kw):
        return self.kafka.KafkaProducer(max_block_ms=10000, **self.common, **kw)

    def produce(self, topic, count, codec, partition=0, **kw):
        p = self.producer(compression_type=None if codec == "none" else codec, linger_ms=5, **kw)
        futures = [p.send(topic, partition=partition if partition is not None else i % self.partitions(topic),
                          key=key(i), value=value(i), headers=headers(i), timestamp_ms=BASE_TS + i)
                   for i in range(count)]
        p.flush(timeout=15)
        offsets = [(f.get(timeout=10).partition, f.get(timeout=10).offset) for f in futures]
        p.close(timeout=5)
        return offsets

    def partitions(self, topic):
        c = self.kafka.KafkaConsumer(**self.common)
        try:
            return len(c.partitions_for_topic(topic) or [])
        finally:
            c.close()

    def read(self, topic, partition, count, isolation="read_uncommitted"):
        TopicPartition = self.kafka.TopicPartition
        c = self.kafka.KafkaConsumer(group_id=None, enable_auto_commit=False, auto_offset_reset="earliest",
                                     fetch_max_wait_ms=100, isolation_level=isolation, **self.common)
        tp = TopicPartition(topic, partition)
        c.assign([tp])
        c.seek_to_beginning(tp)
        got = []
        d = Deadline(20)
        while d and len(got) < count:
            for records in c.poll(timeout_ms=200).values():
                got += [(r.offset, r.key, r.value, [(k, v) for k, v in r.headers], r.timestamp) for r in records]
        # Nothing past what was asked for (aborted records stay hidden).
        for records in c.poll(timeout_ms=500).values():
            got += [(r.offset, r.key, r.value, [(k, v) for k, v in r.headers], r.timestamp) for r in records]
        c.close()
        return got

    def member(self, group, strategy, listener):
        from kafka.coordinator.assignors.range import RangePartitionAssignor
        from kafka.coordinator.assignors.roundrobin import RoundRobinPartitionAssignor
        from kafka.coordinator.assignors.sticky.sticky_assignor import StickyPartitionAssignor
        assignor = {"range": RangePartitionAssignor, "roundrobin": RoundRobinPartitionAssignor,
                    "sticky": StickyPartitionAssignor}[strategy]
        c = self.kafka.KafkaConsumer(group_id=group, enable_auto_commit=False, auto_offset_reset="earliest",
                                     fetch_max_wait_ms=100, partition_assignment_strategy=[assignor], **self.common)
        kafka = self.kafka

        class Listener(kafka.ConsumerRebalanceListener):
            def on_partitions_revoked(self, revoked):
                listener.revoked([tp.partition for tp in revoked])

            def on_partitions_assigned(self, assigned):
                listener.assigned([tp.partition for tp in assigned])

        return KafkaPythonMember(c, Listener(), listener)


class KafkaPythonMember:
    def __init__(self, consumer, listener, state):
        self.c = consumer
        self.listener = listener
        self.state = state

    def subscribe(self, topic):
        # kafka-python 3.0.12 can lose a join it has in flight: a leader that
        # assigned before it knew the topic's partitions rejoins when it learns
        # them, and once it has assigned again its consumer-level need_rejoin()
        # is False; if the poll's timer runs out before the SyncGroup answer is
        # processed, the next poll finds no rejoin needed and never completes the
        # join (join_group_async in coordinator/base.py), so the member holds
        # nothing until its session expires. Knowing the partitions before the
        # first join avoids that rejoin.
        self.c.partitions_for_topic(topic)
        self.c.subscribe([topic], listener=self.listener)

    def poll(self):
        # The same bug bites a join that a poll's timer leaves in flight, so a
        # member holding nothing (joining, or rejoining after an eager
        # revocation) polls long enough for the join to finish within one poll.
        with self.state.lock:
            joining = not self.state.held
        timeout_ms = 10000 if joining else 500
        return [(r.partition, r.offset, r.key) for records in self.c.poll(timeout_ms=timeout_ms).values()
                for r in records]

    def commit(self, topic, offsets):
        from kafka import OffsetAndMetadata, TopicPartition
        if offsets:
            self.c.commit({TopicPartition(topic, p): OffsetAndMetadata(o, "", -1) for p, o in offsets.items()})

    def close(self):
        self.c.close()


# ---------------------------------------------------------------------------- confluent-kafka

class Confluent:
    name = "confluent"

    def __init__(self, bootstrap):
        import confluent_kafka
        import confluent_kafka.admin  # noqa: F401 - a submodule the package does not import
        self.ck = confluent_kafka
        self.bootstrap = bootstrap
        self.common = {"bootstrap.servers": bootstrap, "client.id": "weir-compat-confluent"}

    def version(self):
        return "%s (librdkafka %s)" % (self.ck.__version__, self.ck.libversion()[0])

    def producer(self, **kw):
        return self.ck.Producer({**self.common, **kw})

    def produce(self, topic, count, codec, partition=0, **kw):
        p = self.producer(**{"compression.type": codec, "linger.ms": 5, **kw})
        reports = {}

        def on_delivery(err, msg):
            if err is not None:
                fail("delivery failed: %s" % err)
            reports[int(msg.key().decode().split("-")[1])] = (msg.partition(), msg.offset())

        nparts = None if partition is not None else self.partitions(topic)
        for i in range(count):
            p.produce(topic, value(i), key(i), partition=partition if partition is not None else i % nparts,
                      headers=headers(i), timestamp=BASE_TS + i, on_delivery=on_delivery)
            p.poll(0)
        if p.flush(15) != 0:
            fail("flush left messages undelivered")
        return [reports[i] for i in range(count)]

    def partitions(self, topic):
        md = self.ck.admin.AdminClient(self.common).list_topics(topic, timeout=10)
        return len(md.topics[topic].partitions)

    def read(self, topic, partition, count, isolation="read_uncommitted"):
        TopicPartition = self.ck.TopicPartition
        c = self.ck.Consumer({**self.common, "group.id": "weir-compat-reader", "enable.auto.commit": False,
                              "isolation.level": isolation, "fetch.wait.max.ms": 100})
        c.assign([TopicPartition(topic, partition, self.ck.OFFSET_BEGINNING)])
        got = []
        d = Deadline(20)
        while d and len(got) < count:
            for m in c.consume(num_messages=100, timeout=0.2):
                if m.error() is None:
                    got.append((m.offset(), m.key(), m.value(), m.headers() or [], m.timestamp()[1]))
        for m in c.consume(num_messages=100, timeout=0.5):
            if m.error() is None:
                got.append((m.offset(), m.key(), m.value(), m.headers() or [], m.timestamp()[1]))
        c.close()
        return got

    def member(self, group, strategy, listener):
        c = self.ck.Consumer({**self.common, "group.id": group, "enable.auto.commit": False,
                              "auto.offset.reset": "earliest", "fetch.wait.max.ms": 100,
                              "partition.assignment.strategy": strategy})
        return ConfluentMember(self.ck, c, listener)


class ConfluentMember:
    def __init__(self, ck, consumer, listener):
        self.ck = ck
        self.c = consumer
        self.listener = listener

    def subscribe(self, topic):
        # The client assigns (or, cooperatively, adds) the partitions itself after the callbacks.
        self.c.subscribe([topic],
                         on_assign=lambda c, parts: self.listener.assigned([tp.partition for tp in parts]),
                         on_revoke=lambda c, parts: self.listener.revoked([tp.partition for tp in parts]),
                         on_lost=lambda c, parts: self.listener.revoked([tp.partition for tp in parts]))

    def poll(self):
        got = []
        for m in self.c.consume(num_messages=100, timeout=0.1):
            if m.error() is None:
                got.append((m.partition(), m.offset(), m.key()))
            elif m.error().code() != self.ck.KafkaError._PARTITION_EOF:
                fail("consumer error: %s" % m.error())
        return got

    def commit(self, topic, offsets):
        if offsets:
            self.c.commit(offsets=[self.ck.TopicPartition(topic, p, o) for p, o in offsets.items()],
                          asynchronous=False)

    def close(self):
        self.c.close()


# ---------------------------------------------------------------------------- modes

class MemberState:
    """Partitions a member holds, from its rebalance callbacks, and the records it
    read from them. A revoked partition's records are dropped, uncommitted, unless
    the same rebalance gives it back (kafka-python 3 then keeps its position):
    its next owner reads them again from the last commit. Records are keyed by
    offset, so one read twice by the same member counts once."""

    def __init__(self, name="member"):
        self.name = name
        self.lock = threading.Lock()
        self.held = set()
        self.records = {}  # partition -> {offset: key}
        self.revoked_records = {}

    def assigned(self, parts):
        print("%.3f %s assigned %s" % (time.monotonic(), self.name, sorted(parts)), file=sys.stderr, flush=True)
        with self.lock:
            self.held |= set(parts)
            for p in parts:
                if p in self.revoked_records:
                    self.records[p] = self.revoked_records[p]
            self.revoked_records = {}

    def revoked(self, parts):
        print("%.3f %s revoked %s" % (time.monotonic(), self.name, sorted(parts)), file=sys.stderr, flush=True)
        with self.lock:
            for p in parts:
                self.held.discard(p)
                if p in self.records:
                    self.revoked_records[p] = self.records.pop(p)


def group(client, topic, group_id, count, strategy):
    nparts = client.partitions(topic)
    states = [MemberState("member 0"), MemberState("member 1")]
    members = [client.member(group_id, strategy, s) for s in states]
    stop = threading.Event()
    errors = []
    stable = []  # the assignment once it covered every partition once

    # Offsets each member is to commit, set by the main thread once it has
    # read enough; a member commits them itself (a consumer is used by one
    # thread) and keeps polling, so a rebalance under way can finish (a
    # refused commit is tried again after it).
    plans = [None, None]
    committed = [threading.Event(), threading.Event()]
    commit_errors = [None, None]

    def run(i, m, s):
        try:
            m.subscribe(topic)
            while not stop.is_set():
                if plans[i] is not None and not committed[i].is_set():
                    try:
                        m.commit(topic, plans[i])
                        committed[i].set()
                    except Exception as e:  # noqa: BLE001 - each client has its own error types
                        commit_errors[i] = repr(e)
                for p, off, k in m.poll():
                    with s.lock:
                        if p in s.held:
                            s.records.setdefault(p, {})[off] = k
        except BaseException as e:  # noqa: BLE001 - reported by the main thread
            errors.append(repr(e))

    threads = [threading.Thread(target=run, args=(i, m, s)) for i, (m, s) in enumerate(zip(members, states))]
    for t in threads:
        t.start()
    d = Deadline(40)
    snapshot = None  # each member's records, taken while the members held every partition once
    while d and not errors and snapshot is None:
        for s in states:
            s.lock.acquire()
        try:
            held = [set(s.held) for s in states]
            together = all(held) and not (held[0] & held[1]) and len(held[0] | held[1]) == nparts
            if together and not stable:
                stable.append([sorted(h) for h in held])
            read = sum(len(r) for s in states for r in s.records.values())
            if together and read >= count:
                snapshot = [{p: dict(recs) for p, recs in s.records.items()} for s in states]
        finally:
            for s in states:
                s.lock.release()
        time.sleep(0.05)
    if snapshot is not None:
        for i, records in enumerate(snapshot):
            plans[i] = {p: max(recs) + 1 for p, recs in records.items() if recs}
        d = Deadline(20)
        while d and not errors and not all(c.is_set() for c in committed):
            time.sleep(0.05)
    stop.set()
    for t in threads:
        t.join(10)
    if errors:
        fail("member failed: %s" % errors[0])
    if not stable:
        fail("the two members never held every partition between them")
    out(assigned=stable[0])
    if snapshot is None:
        fail("read %d of %d records" % (read, count))
    if not all(c.is_set() for c in committed):
        fail("commit failed: %s" % commit_errors)
    seen = {}
    for records in snapshot:
        for p, recs in records.items():
            for off, k in recs.items():
                if (p, off) in seen:
                    fail("%d/%d read by both members" % (p, off))
                seen[(p, off)] = k.decode()
    for m in members:
        m.close()
    for (p, off), k in sorted(seen.items()):
        out(consumed=[p, off, k])
    if len(seen) != count:
        fail("read %d of %d records" % (len(seen), count))


def roundtrip(client, topic, count, codec):
    offsets = client.produce(topic, count, codec)
    check("offsets", offsets == [(0, i) for i in range(count)], str(offsets[:5]))
    got = client.read(topic, 0, count)
    check("read-count", len(got) == count, "%d of %d" % (len(got), count))
    for i, (off, k, v, hs, ts) in enumerate(got):
        want_hs = [(hk, hv) for hk, hv in headers(i)]
        if (off, k, v, list(map(tuple, hs)), ts) != (i, key(i), value(i), want_hs, BASE_TS + i):
            fail("record %d differs: %r" % (i, (off, k, v[:20], hs, ts)))
    out(produced=count, offsets=[offsets[0][1], offsets[-1][1]])


def versions(client, bootstrap):
    """kafka-python 3 chooses each request's version from the ApiVersions answer;
    its parser logs each request it sends, with the version."""
    sent = {}

    class Catch(logging.Handler):
        def emit(self, record):
            m = re.search(r"Sending request \d+ (\w+)Request\(version=(\d+)", record.getMessage())
            if m:
                sent.setdefault(m.group(1), set()).add(int(m.group(2)))

    log = logging.getLogger("kafka.protocol.parser")
    log.setLevel(logging.DEBUG)
    log.addHandler(Catch())
    topic = "versions"
    client.produce(topic, 10, "lz4")
    got = client.read(topic, 0, 10)
    check("read", len(got) == 10, str(len(got)))
    c = client.kafka.KafkaConsumer(topic, group_id="versions", enable_auto_commit=False,
                                   auto_offset_reset="earliest", **client.common)
    d = Deadline(20)
    n = 0
    while d and n < 10:
        n += sum(len(r) for r in c.poll(timeout_ms=200).values())
    c.commit()
    broker_version = c.config["api_version"]
    c.close()
    a = client.kafka.KafkaAdminClient(**client.common)
    advertised = {k.name: list(v) for k, v in a.api_versions().items()}
    a.close()
    out(client_version=client.version(), broker_version=".".join(map(str, broker_version)),
        sent={k: sorted(v) for k, v in sorted(sent.items())}, advertised=advertised)


def kafka_python_admin(client, prefix):
    from kafka.admin import ConfigResource, ConfigResourceType, NewPartitions, NewTopic
    import kafka.errors as Errors
    a = client.kafka.KafkaAdminClient(**client.common)
    topic, group_id = prefix + "-topic", prefix + "-group"
    cluster = a.describe_cluster()
    check("describe-cluster", len(cluster["brokers"]) == 1 and cluster["controller_id"] == 0, str(cluster))
    a.create_topics([NewTopic(topic, 3, 1, topic_configs={"retention.ms": "3600000"})])
    check("create-topic", topic in a.list_topics())
    try:
        a.create_topics([NewTopic(topic, 1, 1)])
        fail("create-topic-exists: no error")
    except Errors.TopicAlreadyExistsError:
        out(ok="create-topic-exists")
    a.create_topics([NewTopic(prefix + "-dry", 2, 1)], validate_only=True)
    check("create-topic-validate-only", prefix + "-dry" not in a.list_topics())
    described = a.describe_topics([topic])
    check("describe-topics", len(described) == 1 and len(described[0]["partitions"]) == 3 and
          all(p["leader_id"] == 0 for p in described[0]["partitions"]), str(described))
    a.create_partitions({topic: NewPartitions(5)})
    check("create-partitions", len(a.describe_topics([topic])[0]["partitions"]) == 5)
    try:
        a.create_partitions({topic: NewPartitions(4)})
        fail("create-partitions-fewer: no error")
    except Errors.InvalidPartitionsError:
        out(ok="create-partitions-fewer")
    res = ConfigResource(ConfigResourceType.TOPIC, topic)
    configs = a.describe_configs([res])["topic"][topic]
    check("describe-configs", configs.get("retention.ms", {}).get("value") == "3600000", str(configs))
    a.alter_configs([ConfigResource(ConfigResourceType.TOPIC, topic, configs={"max.message.bytes": "200000"})],
                    incremental=True)
    configs = a.describe_configs([res], config_filter="modified")["topic"][topic]
    check("incremental-alter-configs", configs.get("max.message.bytes", {}).get("value") == "200000" and
          configs.get("retention.ms", {}).get("value") == "3600000", str(configs))
    broker = a.describe_configs([ConfigResource(ConfigResourceType.BROKER, "0")], config_filter="all")
    broker = broker["broker"]["0"]
    check("describe-broker-configs", broker["broker.id"]["value"] == "0" and broker["num.partitions"]["value"].isdigit(),
          str(broker)[:300])

    client.produce(topic, 10, "none")
    from kafka import TopicPartition
    a.delete_records({TopicPartition(topic, 0): 4})
    c = client.kafka.KafkaConsumer(**client.common)
    low = c.beginning_offsets([TopicPartition(topic, 0)])[TopicPartition(topic, 0)]
    c.close()
    check("delete-records", low == 4, str(low))

    # A group that commits, as its members leave it.
    members = [client.member(group_id, "range", MemberState())]
    members[0].subscribe(topic)
    d = Deadline(20)
    while d and not members[0].c.assignment():
        members[0].poll()
    members[0].commit(topic, {0: 7, 1: 0})
    groups = a.list_groups()
    check("list-groups", any(g["group_id"] == group_id for g in groups), str(groups))
    desc = a.describe_groups([group_id]).get(group_id, {})
    check("describe-groups", desc.get("group_state") == "Stable" and len(desc.get("members", [])) == 1 and
          desc["members"][0]["member_assignment"]["assigned_partitions"][0]["partitions"] == [0, 1, 2, 3, 4],
          str(desc)[:500])
    members[0].close()
    offsets = a.list_group_offsets({group_id: None})[group_id]
    got = {tp.partition: o.offset for tp, o in offsets.items()}
    check("list-group-offsets", got.get(0) == 7 and got.get(1) == 0, str(offsets))
    a.delete_group_offsets(group_id, [TopicPartition(topic, 0)])
    got = {tp.partition: o.offset for tp, o in a.list_group_offsets({group_id: None})[group_id].items()}
    check("delete-group-offsets", 0 not in got or got[0] == -1, str(got))
    a.delete_groups([group_id])
    check("delete-groups", not any(g["group_id"] == group_id for g in a.list_groups()))
    a.delete_topics([topic])
    d = Deadline(10)
    while d and topic in a.list_topics():
        time.sleep(0.1)
    check("delete-topic", topic not in a.list_topics())
    try:
        a.delete_topics([topic])
        fail("delete-topic-again: no error")
    except Errors.UnknownTopicOrPartitionError:
        out(ok="delete-topic-again")
    a.close()


def confluent_admin(client, prefix):
    ck = client.ck
    from confluent_kafka import ConsumerGroupTopicPartitions
    from confluent_kafka.admin import (AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource, NewPartitions,
                                       NewTopic, OffsetSpec, ResourceType)
    a = AdminClient(client.common)
    topic, group_id = prefix + "-topic", prefix + "-group"

    def result(futures, step):
        for f in futures.values():
            f.result(timeout=15)
        out(ok=step)

    def error_of(futures):
        try:
            for f in futures.values():
                f.result(timeout=15)
        except ck.KafkaException as e:
            return e.args[0].code()
        return None

    cluster = a.describe_cluster().result(timeout=10)
    check("describe-cluster", len(cluster.nodes) == 1 and cluster.controller.id == 0, str(cluster))
    result(a.create_topics([NewTopic(topic, 3, 1, config={"retention.ms": "3600000"})]), "create-topic")
    check("create-topic-exists", error_of(a.create_topics([NewTopic(topic, 1, 1)])) ==
          ck.KafkaError.TOPIC_ALREADY_EXISTS)
    result(a.create_topics([NewTopic(prefix + "-dry", 2, 1)], validate_only=True), "create-topic-validate-only")
    check("validate-only-creates-nothing", prefix + "-dry" not in a.list_topics(timeout=10).topics)
    desc = a.describe_topics(ck.TopicCollection([topic])).get(topic).result(timeout=10)
    check("describe-topics", len(desc.partitions) == 3 and all(p.leader.id == 0 for p in desc.partitions),
          str(desc))
    result(a.create_partitions([NewPartitions(topic, 5)]), "create-partitions")
    check("create-partitions-fewer", error_of(a.create_partitions([NewPartitions(topic, 4)])) ==
          ck.KafkaError.INVALID_PARTITIONS)
    res = ConfigResource(ResourceType.TOPIC, topic)
    configs = list(a.describe_configs([res]).values())[0].result(timeout=10)
    check("describe-configs", configs["retention.ms"].value == "3600000" and
          configs["segment.bytes"].is_default, str(configs.get("retention.ms")))
    inc = ConfigResource(ResourceType.TOPIC, topic, incremental_configs=[
        ConfigEntry("max.message.bytes", "200000", incremental_operation=AlterConfigOpType.SET)])
    result(a.incremental_alter_configs([inc]), "incremental-alter-configs")
    configs = list(a.describe_configs([res]).values())[0].result(timeout=10)
    check("incremental-kept-others", configs["max.message.bytes"].value == "200000" and
          configs["retention.ms"].value == "3600000")
    broker = list(a.describe_configs([ConfigResource(ResourceType.BROKER, "0")]).values())[0].result(timeout=10)
    check("describe-broker-configs", broker["broker.id"].value == "0" and broker["num.partitions"].value.isdigit())

    client.produce(topic, 10, "none")
    tp0 = ck.TopicPartition(topic, 0, 4)
    deleted = a.delete_records([tp0])
    low = list(deleted.values())[0].result(timeout=10)
    check("delete-records", low.low_watermark == 4, str(vars(low)))
    listed = a.list_offsets({ck.TopicPartition(topic, 0): OffsetSpec.earliest(),
                             ck.TopicPartition(topic, 1): OffsetSpec.latest()})
    offs = {tp.partition: f.result(timeout=10).offset for tp, f in listed.items()}
    check("list-offsets", offs == {0: 4, 1: 0}, str(offs))

    alter = a.alter_consumer_group_offsets([ConsumerGroupTopicPartitions(group_id, [
        ck.TopicPartition(topic, 0, 7), ck.TopicPartition(topic, 1, 0)])])
    result(alter, "alter-group-offsets")
    fetched = a.list_consumer_group_offsets([ConsumerGroupTopicPartitions(group_id, [
        ck.TopicPartition(topic, 0), ck.TopicPartition(topic, 1)])])
    got = {tp.partition: tp.offset for tp in list(fetched.values())[0].result(timeout=10).topic_partitions}
    check("list-group-offsets", got == {0: 7, 1: 0}, str(got))
    groups = a.list_consumer_groups().result(timeout=10)
    check("list-groups", any(g.group_id == group_id for g in groups.valid), str(groups.valid))
    desc = list(a.describe_consumer_groups([group_id]).values())[0].result(timeout=10)
    check("describe-groups", str(desc.state) == "ConsumerGroupState.EMPTY" and not desc.members, str(desc))
    result(a.delete_consumer_groups([group_id]), "delete-groups")
    groups = a.list_consumer_groups().result(timeout=10)
    check("deleted-group-gone", not any(g.group_id == group_id for g in groups.valid))
    result(a.delete_topics([topic]), "delete-topic")
    check("delete-topic-again", error_of(a.delete_topics([topic])) == ck.KafkaError.UNKNOWN_TOPIC_OR_PART)


def txn(client, topic, group_id):
    """Three transactions on partition 0: committed, aborted, and committed with
    GROUP's offset 3 sent to it."""
    if client.name == "confluent":
        p = client.producer(**{"transactional.id": "weir-compat-" + topic})
        p.init_transactions(15)

        def send(prefix):
            p.begin_transaction()
            for i in range(5):
                p.produce(topic, value(i), b"%s-%d" % (prefix, i), partition=0)
            # Sent before the transaction ends, so an abort leaves records and a marker.
            if p.flush(15) != 0:
                fail("flush left messages unsent")

        send(b"c1")
        p.commit_transaction(15)
        send(b"a")
        p.abort_transaction(15)
        send(b"c2")
        md = client.ck.Consumer({**client.common, "group.id": group_id}).consumer_group_metadata()
        p.send_offsets_to_transaction([client.ck.TopicPartition(topic, 0, 3)], md, 15)
        p.commit_transaction(15)
    else:
        from kafka import OffsetAndMetadata, TopicPartition
        p = client.producer(transactional_id="weir-compat-" + topic)
        p.init_transactions()

        def send(prefix):
            p.begin_transaction()
            for i in range(5):
                p.send(topic, partition=0, key=b"%s-%d" % (prefix, i), value=value(i))
            p.flush(timeout=15)

        send(b"c1")
        p.commit_transaction()
        send(b"a")
        p.abort_transaction()
        send(b"c2")
        p.send_offsets_to_transaction({TopicPartition(topic, 0): OffsetAndMetadata(3, "", -1)}, group_id)
        p.commit_transaction()
        p.close(timeout=5)
    out(transactions="c1 committed, a aborted, c2 committed with offsets")
    committed = client.read(topic, 0, 10, "read_committed")
    keys = [(off, k.decode()) for off, k, *_ in committed]
    want = [(i, "c1-%d" % i) for i in range(5)] + [(12 + i, "c2-%d" % i) for i in range(5)]
    check("read-committed", keys == want, str(keys))
    everything = client.read(topic, 0, 15)
    check("read-uncommitted", len(everything) == 15 and [k.decode() for _, k, *_ in everything][5:10] ==
          ["a-%d" % i for i in range(5)], str([(o, k) for o, k, *_ in everything]))


def main():
    client_name, bootstrap, mode, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    client = {"kafka-python": KafkaPython, "confluent": Confluent}[client_name](bootstrap)
    out(client=client.name, version=client.version())
    if mode == "versions":
        versions(client, bootstrap)
    elif mode == "roundtrip":
        roundtrip(client, args[0], int(args[1]), args[2])
    elif mode == "group":
        group(client, args[0], args[1], int(args[2]), args[3])
    elif mode == "admin":
        (confluent_admin if client.name == "confluent" else kafka_python_admin)(client, args[0])
    elif mode == "txn":
        txn(client, args[0], args[1])
    else:
        fail("unknown mode " + mode)


if __name__ == "__main__":
    main()
