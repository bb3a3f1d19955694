// Faults injected over weir's admin API, as kafkajs meets them. Usage:
// node faults.js BOOTSTRAP ADMIN_PORT TOPIC. For each action one produce of
// one message to partition 0 while the fault is armed; prints one JSON object
// with each outcome and the partition's end offset; compat-tests/0019 checks it.
'use strict';
const http = require('http');
const { Kafka, logLevel } = require('kafkajs');

const [bootstrap, adminPort, topic] = process.argv.slice(2);
const kafka = new Kafka({
  clientId: 'weir-compat-faults',
  brokers: [bootstrap],
  logLevel: logLevel.NOTHING,
  requestTimeout: 2000,
  retry: { initialRetryTime: 200, retries: 8 },
});

function admin(method, path, body) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port: Number(adminPort), method, path, timeout: 10000 }, (res) => {
      let data = '';
      res.on('data', (c) => { data += c; });
      res.on('end', () => (res.statusCode < 300 ? resolve(data) : reject(new Error(`${method} ${path}: ${res.statusCode} ${data}`))));
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.on('error', reject);
    if (body) req.write(JSON.stringify(body));
    req.end();
  });
}

async function main() {
  const kafkaAdmin = kafka.admin();
  await kafkaAdmin.connect();
  await kafkaAdmin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  await producer.send({ topic, messages: [{ partition: 0, value: 'warm-up' }] });

  const cases = [
    ['retriable', { api: 'Produce', topic, partition: 0, action: 'error', error: 'NOT_LEADER_OR_FOLLOWER', count: 2 }],
    ['fatal', { api: 'Produce', action: 'error', error: 'TOPIC_AUTHORIZATION_FAILED', count: 1 }],
    ['delay', { api: 'Produce', action: 'delay', delay_ms: 300, count: 1 }],
    ['disconnect', { api: 'Produce', action: 'disconnect', count: 1 }],
    ['drop', { api: 'Produce', action: 'drop', count: 1 }],
    ['broker_down', { action: 'broker_down', duration_ms: 1500 }],
  ];
  const outcomes = {};
  for (const [name, fault] of cases) {
    await admin('POST', '/v1/faults', fault);
    const started = Date.now();
    try {
      await producer.send({ topic, messages: [{ partition: 0, value: name }] });
      outcomes[name] = { ok: true, ms: Date.now() - started };
    } catch (e) {
      const cause = e.cause || (e.originalError) || e;
      outcomes[name] = { ok: false, type: cause.type || e.type || e.name, retriable: cause.retriable, ms: Date.now() - started };
    }
    await admin('DELETE', '/v1/faults');
  }
  const offsets = await kafkaAdmin.fetchTopicOffsets(topic);
  await producer.disconnect();
  await kafkaAdmin.disconnect();
  process.stdout.write(JSON.stringify({ outcomes, high: Number(offsets.find((o) => o.partition === 0).high) }) + '\n');
}

main().catch((e) => {
  process.stderr.write(`${e.stack || e}\n`);
  process.exit(1);
});
