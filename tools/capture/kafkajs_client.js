// Drives kafkajs against a broker for the golden captures (not run by CI).
// Usage: NODE_PATH=/tmp/kjs/node_modules node kafkajs_client.js 127.0.0.1:PORT
// Produces 3 keyed messages with a header (gzip, acks=-1) to "golden", then
// consumes them in group "golden-kafkajs-group", commits and leaves.
'use strict';

const { Kafka, CompressionTypes, logLevel } = require('kafkajs');

const broker = process.argv[2];
const topic = 'golden';
const deadlineMs = 40000;
// Same messages as the kcat producer: values of 64 bytes that gzip well.
const pad = process.env.GOLDEN_VALUE_PAD || 'x'.repeat(49);
const value = (i) => `golden-value-${i}-${pad}`;

async function main() {
  const kafka = new Kafka({
    clientId: 'golden-kafkajs',
    brokers: [broker],
    logLevel: logLevel.WARN,
    retry: { retries: 3 },
  });

  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  await producer.send({
    topic,
    acks: -1,
    compression: CompressionTypes.GZIP,
    messages: [
      { key: 'k1', value: value(1), headers: { h1: 'x' } },
      { key: 'k2', value: value(2), headers: { h1: 'x' } },
      { key: 'k3', value: value(3), headers: { h1: 'x' } },
    ],
  });
  await producer.disconnect();

  const consumer = kafka.consumer({
    groupId: 'golden-kafkajs-group',
    sessionTimeout: 10000,
    rebalanceTimeout: 10000,
    heartbeatInterval: 500,
    maxWaitTimeInMs: 500,
  });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });

  let seen = 0;
  const done = new Promise((resolve) => {
    consumer.run({
      autoCommit: true,
      eachMessage: async ({ message }) => {
        seen += 1;
        console.log(`consumed ${message.key} = ${message.value}`);
        if (seen >= 3) resolve();
      },
    });
  });
  await done;
  // Give one heartbeat interval so a Heartbeat request is on the wire too.
  await new Promise((r) => setTimeout(r, 1500));
  await consumer.disconnect();
}

const timer = setTimeout(() => {
  console.error('kafkajs_client: timed out');
  process.exit(2);
}, deadlineMs);

main()
  .then(() => {
    clearTimeout(timer);
    process.exit(0);
  })
  .catch((e) => {
    console.error(e);
    process.exit(1);
  });
