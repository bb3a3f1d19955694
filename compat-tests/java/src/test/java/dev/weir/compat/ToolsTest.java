package dev.weir.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Kafka's own command-line tools (the kafka-tools jar of the client's version) against Weir. */
class ToolsTest {
    @RegisterExtension static final WeirCluster cluster = new WeirCluster();

    static final String TOPICS = "org.apache.kafka.tools.TopicCommand";
    static final String GROUPS = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand";
    static final String CONFIGS = "org.apache.kafka.tools.ConfigCommand";
    static final String TRANSACTIONS = "org.apache.kafka.tools.TransactionsCommand";
    static final String LOG_DIRS = "org.apache.kafka.tools.LogDirsCommand";
    static final String PRODUCER_PERF = "org.apache.kafka.tools.ProducerPerformance";
    static final String CONSUMER_PERF = "org.apache.kafka.tools.ConsumerPerformance";

    static Tool.Result ok(String main, String... args) {
        Tool.Result r = Tool.run(main, args);
        assertEquals(0, r.exit(), () -> main + " " + String.join(" ", args) + "\n" + r);
        return r;
    }

    @Test
    void kafkaTopics() {
        String t = Clients.topic("tool");
        String rf = Short.toString(cluster.replication());
        String bs = cluster.bootstrap();
        assertEquals("Created topic " + t + ".", ok(TOPICS, "--bootstrap-server", bs, "--create", "--topic", t,
                "--partitions", "3", "--replication-factor", rf, "--config", "retention.ms=3600000").stdout().trim());
        assertTrue(ok(TOPICS, "--bootstrap-server", bs, "--list").stdout().lines().anyMatch(t::equals));
        String d = ok(TOPICS, "--bootstrap-server", bs, "--describe", "--topic", t).stdout();
        assertTrue(Pattern.compile("^Topic: " + t + "\tTopicId: [A-Za-z0-9_-]{22}\tPartitionCount: 3\tReplicationFactor: "
                + rf + "\tConfigs: .*retention.ms=3600000", Pattern.MULTILINE).matcher(d).find(), d);
        for (int p = 0; p < 3; ++p)
            assertTrue(Pattern.compile("^\tTopic: " + t + "\tPartition: " + p + "\tLeader: \\d+\tReplicas: [\\d,]+\tIsr: [\\d,]+",
                    Pattern.MULTILINE).matcher(d).find(), d);
        ok(TOPICS, "--bootstrap-server", bs, "--alter", "--topic", t, "--partitions", "4");
        assertTrue(ok(TOPICS, "--bootstrap-server", bs, "--describe", "--topic", t).stdout().contains("PartitionCount: 4"));
        Tool.Result exists = Tool.run(TOPICS, "--bootstrap-server", bs, "--create", "--topic", t);
        assertEquals(1, exists.exit(), exists::toString);
        assertTrue(exists.stdout().contains("Topic '" + t + "' already exists."), exists::toString);
        ok(TOPICS, "--bootstrap-server", bs, "--delete", "--topic", t);
        assertTrue(Clients.await(() -> ok(TOPICS, "--bootstrap-server", bs, "--list").stdout().lines().noneMatch(t::equals),
                Duration.ofSeconds(30)));
    }

    @Test
    void kafkaConsumerGroups() throws Exception {
        String t = Clients.topic("tool-groups");
        String g = Clients.topic("g");
        String bs = cluster.bootstrap();
        Clients.createTopic(cluster, t, 2);
        try (KafkaProducer<String, String> p = Clients.producer(cluster)) {
            for (int i = 0; i < 10; ++i) p.send(new ProducerRecord<>(t, i % 2, "k", "v" + i));
        }
        try (KafkaConsumer<String, String> c = Clients.consumer(cluster, g)) {
            c.subscribe(List.of(t));
            assertEquals(10, Clients.consume(c, 10, Duration.ofSeconds(60)).size());
            c.commitSync();
        }
        assertTrue(ok(GROUPS, "--bootstrap-server", bs, "--list").stdout().lines().anyMatch(g::equals));
        Tool.Result described = ok(GROUPS, "--bootstrap-server", bs, "--describe", "--group", g);
        assertTrue(described.stderr().contains("Consumer group '" + g + "' has no active members."), described::toString);
        String d = described.stdout();
        Matcher header = Pattern.compile("^GROUP +TOPIC +PARTITION +CURRENT-OFFSET +LOG-END-OFFSET +LAG +CONSUMER-ID +HOST +CLIENT-ID$",
                Pattern.MULTILINE).matcher(d);
        assertTrue(header.find(), d);
        for (int p = 0; p < 2; ++p)
            assertTrue(Pattern.compile("^" + g + " +" + t + " +" + p + " +5 +5 +0 +- +- +-$", Pattern.MULTILINE)
                    .matcher(d).find(), d);
        String reset = ok(GROUPS, "--bootstrap-server", bs, "--reset-offsets", "--group", g, "--topic", t,
                "--to-earliest", "--execute").stdout();
        // 3.9's tool prints the rows of this table without line breaks between them.
        assertTrue(Pattern.compile(g + " +" + t + " +0 +0(\\s|$)").matcher(reset).find(),
                () -> reset.replace("\n", "\\n").replace("\t", "\\t"));
        String lag = ok(GROUPS, "--bootstrap-server", bs, "--describe", "--group", g).stdout();
        assertTrue(Pattern.compile("^" + g + " +" + t + " +1 +0 +5 +5 ", Pattern.MULTILINE).matcher(lag).find(), lag);
        String deleted = ok(GROUPS, "--bootstrap-server", bs, "--delete", "--group", g).stdout();
        assertTrue(deleted.contains("Deletion of requested consumer groups ('" + g + "') was successful."), deleted);
    }

    @Test
    void kafkaConfigs() throws Exception {
        assumeTrue(Tool.available(CONFIGS), "kafka-configs is in the tools jar from Kafka 4.0 on (core's Scala before)");
        String t = Clients.topic("tool-configs");
        String bs = cluster.bootstrap();
        Clients.createTopic(cluster, t, 1);
        assertEquals("Completed updating config for topic " + t + ".", ok(CONFIGS, "--bootstrap-server", bs,
                "--entity-type", "topics", "--entity-name", t, "--alter", "--add-config", "retention.ms=1000,cleanup.policy=[compact,delete]")
                .stdout().trim());
        String d = ok(CONFIGS, "--bootstrap-server", bs, "--entity-type", "topics", "--entity-name", t, "--describe").stdout();
        assertTrue(d.contains("Dynamic configs for topic " + t + " are:"), d);
        assertTrue(d.contains("  retention.ms=1000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=1000}"), d);
        assertTrue(d.contains("  cleanup.policy=compact,delete sensitive=false"), d);
        ok(CONFIGS, "--bootstrap-server", bs, "--entity-type", "topics", "--entity-name", t, "--alter",
                "--delete-config", "retention.ms");
        String after = ok(CONFIGS, "--bootstrap-server", bs, "--entity-type", "topics", "--entity-name", t, "--describe").stdout();
        assertTrue(!after.contains("retention.ms"), after);
        String broker = ok(CONFIGS, "--bootstrap-server", bs, "--entity-type", "brokers", "--entity-name",
                Integer.toString(cluster.broker(0).id()), "--describe", "--all").stdout();
        assertTrue(broker.contains("  log.retention.hours=168 sensitive=false"), broker);
    }

    @Test
    void kafkaTransactionsAndLogDirs() throws Exception {
        String t = Clients.topic("tool-txn");
        String id = Clients.topic("tx");
        String bs = cluster.bootstrap();
        Clients.createTopic(cluster, t, 1);
        try (KafkaProducer<String, String> p = Clients.producer(cluster, ProducerConfig.TRANSACTIONAL_ID_CONFIG, id)) {
            p.initTransactions();
            p.beginTransaction();
            p.send(new ProducerRecord<>(t, 0, "k", "v")).get();
            String list = ok(TRANSACTIONS, "--bootstrap-server", bs, "list").stdout();
            assertTrue(Pattern.compile("^TransactionalId\\s+Coordinator\\s+ProducerId\\s+TransactionState", Pattern.MULTILINE)
                    .matcher(list).find(), list);
            assertTrue(Pattern.compile("^" + id + "\\s+\\d+\\s+\\d+\\s+Ongoing", Pattern.MULTILINE).matcher(list).find(), list);
            String producers = ok(TRANSACTIONS, "--bootstrap-server", bs, "describe-producers", "--topic", t,
                    "--partition", "0").stdout();
            assertTrue(Pattern.compile("^ProducerId\\s+ProducerEpoch\\s+LatestCoordinatorEpoch\\s+LastSequence\\s+LastTimestamp\\s+CurrentTransactionStartOffset",
                    Pattern.MULTILINE).matcher(producers).find(), producers);
            String described = ok(TRANSACTIONS, "--bootstrap-server", bs, "describe", "--transactional-id", id).stdout();
            assertTrue(described.contains(t + "-0"), described);
            p.commitTransaction();
        }
        String dirs = ok(LOG_DIRS, "--bootstrap-server", bs, "--describe", "--topic-list", t).stdout();
        assertTrue(dirs.contains("Querying brokers for log directories information"), dirs);
        assertTrue(dirs.contains("\"partition\":\"" + t + "-0\""), dirs);
    }

    @Test
    void perfTools() throws Exception {
        String t = Clients.topic("perf");
        String bs = cluster.bootstrap();
        Clients.createTopic(cluster, t, 2);
        String produced = ok(PRODUCER_PERF, "--topic", t, "--num-records", "50000", "--record-size", "100",
                "--throughput", "-1", "--producer-props", "bootstrap.servers=" + bs).stdout();
        assertTrue(Pattern.compile("^50000 records sent, [\\d.]+ records/sec", Pattern.MULTILINE).matcher(produced).find(),
                produced);
        String consumed = ok(CONSUMER_PERF, "--bootstrap-server", bs, "--topic", t, "--messages", "50000",
                "--timeout", "60000").stdout();
        // The CSV line: start, end, MB, MB/s, messages, ...
        assertTrue(Pattern.compile("^[\\d:. -]+, [\\d:. -]+, 4\\.768\\d, [\\d.]+, 50000, ", Pattern.MULTILINE)
                .matcher(consumed).find(), consumed);
    }
}
