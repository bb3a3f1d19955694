// kafkajs (pure JavaScript: its own protocol code, group membership and
// assignor) against a weir broker. Usage: node scenario.js BOOTSTRAP TOPIC
// Prints one JSON object per step on stdout; compat-tests/0014_kafkajs_test.cc
// checks them. Exits non-zero on the first failure.
'use strict';
const { Kafka, CompressionTypes, logLevel } = require('kafkajs');

const [bootstrap, topic] = process.argv.slice(2);
const PARTITIONS = 3;
const COUNT = 3000;
const GROUP = `${topic}-group`;
const kafka = new Kafka({
  clientId: 'weir-compat-kafkajs',
  brokers: [bootstrap],
  logLevel: logLevel.ERROR,
  retry: { retries: 3 },
});

const emit = (o) => process.stdout.write(JSON.stringify(o) + '\n');
const withTimeout = (p, ms, what) =>
  Promise.race([p, new Promise((_, reject) => setTimeout(() => reject(new Error(`${what} timed out`)), ms))]);

// Starts `members` group members; `collect` gets every message. Resolves once
// the group is Stable with all of them, so the caller may produce.
async function startGroup(admin, members, collect) {
  const consumers = [];
  for (let m = 0; m < members; ++m) {
    const consumer = kafka.consumer({ groupId: GROUP, sessionTimeout: 10000, rebalanceTimeout: 10000,
                                      heartbeatInterval: 500, maxWaitTimeInMs: 200 });
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    const member = m;
    await consumer.run({
      eachMessage: async ({ partition, message }) => collect({
        member, partition, offset: Number(message.offset), key: message.key.toString(),
        value: message.value.toString(), h: message.headers.h.toString() }),
    });
    consumers.push(consumer);
  }
  const deadline = Date.now() + 30000;
  for (;;) {
    const g = (await admin.describeGroups([GROUP])).groups[0];
    const owners = g.members.filter((m) => m.memberAssignment.length > 0).length;
    if (g.state === 'Stable' && g.members.length === members && owners === Math.min(members, PARTITIONS)) break;
    if (Date.now() > deadline) throw new Error(`group not stable with ${members} members: ${g.state}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return consumers;
}

async function until(pred, ms, what) {
  const deadline = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`${what} timed out`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function main() {
  const admin = kafka.admin();
  await admin.connect();
  const created = await admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS }], waitForLeaders: true });
  emit({ step: 'create', created });
  const meta = await admin.fetchTopicMetadata({ topics: [topic] });
  emit({ step: 'metadata', partitions: meta.topics[0].partitions.length });

  // Two members split the partitions (kafkajs's own round-robin assignor), then
  // every message arrives once, in order per partition.
  const seen = new Map();
  let total = 0;
  const collect = (m) => {
    if (!seen.has(m.partition)) seen.set(m.partition, []);
    seen.get(m.partition).push(m);
    ++total;
  };
  const members = await startGroup(admin, 2, collect);

  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  for (let batch = 0; batch < COUNT / 100; ++batch) {
    const messages = [];
    for (let i = batch * 100; i < (batch + 1) * 100; ++i) {
      messages.push({ partition: i % PARTITIONS, key: `key-${i}`, value: `value-${i}`, headers: { h: `h-${i}` } });
    }
    await producer.send({ topic, acks: -1, compression: batch % 2 ? CompressionTypes.GZIP : CompressionTypes.None,
                          messages });
  }
  await producer.disconnect();
  const offsets = await admin.fetchTopicOffsets(topic);
  emit({ step: 'produced', offsets: offsets.map((o) => ({ partition: o.partition, low: Number(o.low),
                                                          high: Number(o.high) })) });

  await until(() => total >= COUNT, 30000, `consuming ${COUNT} messages`);
  for (const c of members) await c.disconnect();  // commits, then LeaveGroup
  const perPartition = {};
  const owners = {};
  let ordered = true;
  let intact = true;
  for (const [p, list] of seen) {
    perPartition[p] = list.length;
    owners[p] = [...new Set(list.map((m) => m.member))];
    list.forEach((m, idx) => {
      if (m.offset !== idx) ordered = false;
      const i = Number(m.key.slice(4));
      if (m.value !== `value-${i}` || m.h !== `h-${i}` || i % PARTITIONS !== p) intact = false;
    });
  }
  emit({ step: 'consumed', perPartition, owners, ordered, intact });

  const committed = await admin.fetchOffsets({ groupId: GROUP, topics: [topic] });
  emit({ step: 'committed', offsets: committed[0].partitions.map((p) => ({ partition: p.partition,
                                                                          offset: Number(p.offset) })) });
  const described = await admin.describeGroups([GROUP]);
  emit({ step: 'described', state: described.groups[0].state, protocolType: described.groups[0].protocolType,
         members: described.groups[0].members.length });

  // A restarted group member resumes after the committed offsets: nothing is re-read.
  const lateProducer = kafka.producer();
  await lateProducer.connect();
  await lateProducer.send({ topic, messages: [{ partition: 0, key: 'key-late', value: 'late', headers: { h: 'x' } }] });
  await lateProducer.disconnect();
  const late = [];
  const restarted = await startGroup(admin, 1, (m) => late.push(m.value));
  await until(() => late.length >= 1, 30000, 'the late message');
  await new Promise((r) => setTimeout(r, 500));  // anything re-read would show up by now
  for (const c of restarted) await c.disconnect();
  emit({ step: 'resumed', got: late });

  const listed = await admin.listGroups();
  emit({ step: 'listed', groups: listed.groups.map((g) => g.groupId) });
  await admin.deleteGroups([GROUP]);
  await admin.deleteTopics({ topics: [topic] });
  const remaining = await admin.listTopics();
  emit({ step: 'deleted', topicGone: !remaining.includes(topic) });
  await admin.disconnect();
}

withTimeout(main(), 90000, 'scenario').then(
  () => process.exit(0),
  (e) => { process.stderr.write(`kafkajs scenario failed: ${e.stack || e}\n`); process.exit(1); });
