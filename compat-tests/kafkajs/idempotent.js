// kafkajs's idempotent producer (its own InitProducerId and sequence numbers)
// against a weir broker. Usage: node idempotent.js BOOTSTRAP TOPIC
// Produces COUNT messages over two partitions in batches of 100, then reads
// every partition back; prints one JSON object; compat-tests/0018 checks it.
'use strict';
const { Kafka, logLevel } = require('kafkajs');

const [bootstrap, topic] = process.argv.slice(2);
const PARTITIONS = 2;
const COUNT = 2000;
const kafka = new Kafka({ clientId: 'weir-compat-idempotent', brokers: [bootstrap], logLevel: logLevel.ERROR });

const withTimeout = (p, ms, what) =>
  Promise.race([p, new Promise((_, reject) => setTimeout(() => reject(new Error(`${what} timed out`)), ms))]);

async function main() {
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: PARTITIONS }], waitForLeaders: true });

  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
  await producer.connect();
  for (let batch = 0; batch < COUNT / 100; ++batch) {
    const messages = [];
    for (let i = batch * 100; i < (batch + 1) * 100; ++i) messages.push({ partition: i % PARTITIONS, value: `${i}` });
    await producer.send({ topic, messages });
  }
  await producer.disconnect();

  const offsets = await admin.fetchTopicOffsets(topic);
  const got = {};
  const consumer = kafka.consumer({ groupId: `${topic}-check`, maxWaitTimeInMs: 200 });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  let seen = 0;
  const done = new Promise((resolve) => {
    consumer.run({
      eachMessage: async ({ partition, message }) => {
        (got[partition] = got[partition] || []).push(Number(message.value.toString()));
        if (++seen === COUNT) resolve();
      },
    });
  });
  await withTimeout(done, 30000, 'consuming');
  await consumer.disconnect();
  await admin.disconnect();
  process.stdout.write(JSON.stringify({ offsets: offsets.map((o) => ({ partition: o.partition, high: Number(o.high) })),
                                        got }) + '\n');
}

main().catch((e) => {
  process.stderr.write(`${e.stack || e}\n`);
  process.exit(1);
});
