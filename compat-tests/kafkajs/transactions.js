// kafkajs's transactional producer (its own InitProducerId, AddPartitionsToTxn,
// AddOffsetsToTxn, TxnOffsetCommit and EndTxn) against a weir broker.
// Usage: node transactions.js BOOTSTRAP TOPIC
// Commits and aborts interleaved transactions, one with sendOffsets for a
// group; reads the topic back with a read_committed and a read_uncommitted
// consumer; prints one JSON object; compat-tests/0023 checks it.
'use strict';
const { Kafka, logLevel } = require('kafkajs');

const [bootstrap, topic] = process.argv.slice(2);
const kafka = new Kafka({ clientId: 'weir-compat-txn', brokers: [bootstrap], logLevel: logLevel.ERROR });

const withTimeout = (p, ms, what) =>
  Promise.race([p, new Promise((_, reject) => setTimeout(() => reject(new Error(`${what} timed out`)), ms))]);

// Every value of `topic` a consumer at the given isolation reads within a few seconds.
async function readAll(readUncommitted) {
  const consumer = kafka.consumer({ groupId: `${topic}-read-${readUncommitted}`, readUncommitted, maxWaitTimeInMs: 200 });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  const values = [];
  await consumer.run({ eachMessage: async ({ message }) => { values.push(message.value.toString()); } });
  await new Promise((resolve) => setTimeout(resolve, 5000));
  await consumer.disconnect();
  return values.sort();
}

async function main() {
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });

  const producer = kafka.producer({ transactionalId: `${topic}-txn`, idempotent: true, maxInFlightRequests: 1,
                                    allowAutoTopicCreation: false });
  await producer.connect();
  for (let t = 0; t < 4; ++t) {
    const txn = await producer.transaction();
    await txn.send({ topic, messages: [{ value: `t${t}-a` }, { value: `t${t}-b` }] });
    if (t === 2) {
      await txn.sendOffsets({ consumerGroupId: `${topic}-eos`, topics: [{ topic, partitions: [{ partition: 0, offset: '42' }] }] });
    }
    if (t % 2 === 0) await txn.commit(); else await txn.abort();
  }
  await producer.disconnect();

  const committed = await admin.fetchOffsets({ groupId: `${topic}-eos`, topics: [topic] });
  const readCommitted = await withTimeout(readAll(false), 30000, 'read_committed');
  const readUncommitted = await withTimeout(readAll(true), 30000, 'read_uncommitted');
  await admin.disconnect();
  process.stdout.write(JSON.stringify({
    readCommitted, readUncommitted,
    groupOffset: Number(committed[0].partitions[0].offset),
  }) + '\n');
}

main().catch((e) => {
  process.stderr.write(`${e.stack || e}\n`);
  process.exit(1);
});
