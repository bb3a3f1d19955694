package dev.weir.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What Kafka's system tests prove with its own VerifiableProducer and VerifiableConsumer: with
 * acks=all, replication 3 and min.insync.replicas=2, brokers bounced one at a time (SIGTERM and
 * SIGKILL) lose no acknowledged record, and a group consuming throughout sees every one in order
 * per partition. Needs three brokers or more.
 */
class BounceTest {
    @RegisterExtension static final WeirCluster cluster = new WeirCluster();
    static final ObjectMapper JSON = new ObjectMapper();

    static List<JsonNode> events(Path file) throws IOException {
        List<JsonNode> out = new ArrayList<>();
        for (String line : Files.readAllLines(file)) {
            if (!line.startsWith("{")) continue;
            out.add(JSON.readTree(line));
        }
        return out;
    }

    static boolean fullIsr(Admin admin, String topic, int partitions) {
        try {
            TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic);
            return d.partitions().size() == partitions
                    && d.partitions().stream().allMatch(p -> p.leader() != null && p.isr().size() == 3);
        } catch (Exception e) {
            return false;
        }
    }

    static void stopTool(Process p) throws InterruptedException {
        p.destroy();  // SIGTERM: the tools' shutdown hooks close their clients and print their last events
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            throw new AssertionError("tool did not stop within 60 s of SIGTERM");
        }
    }

    @Test
    void bouncedBrokersLoseNoAcknowledgedRecord() throws Exception {
        assumeTrue(cluster.brokerCount() >= 3, "needs three brokers (-Dweir.brokers=3)");
        String topic = Clients.topic("bounce");
        String group = Clients.topic("g");
        int partitions = 3;
        Clients.createTopic(cluster, topic, partitions);
        Path dir = Files.createTempDirectory("weir-bounce-");
        Path producerOut = dir.resolve("producer.out");
        Path consumerOut = dir.resolve("consumer.out");
        Process producer = Tool.start("org.apache.kafka.tools.VerifiableProducer", producerOut, dir.resolve("producer.err"),
                "--bootstrap-server", cluster.bootstrap(), "--topic", topic, "--throughput", "500", "--acks", "-1");
        Process consumer = Tool.start("org.apache.kafka.tools.VerifiableConsumer", consumerOut, dir.resolve("consumer.err"),
                "--bootstrap-server", cluster.bootstrap(), "--topic", topic, "--group-id", group,
                "--reset-policy", "earliest", "--session-timeout", "10000");
        try (Admin admin = Clients.admin(cluster)) {
            BrokerProcess.sleep(3000);
            for (int i = 0; i < cluster.brokerCount(); ++i) {
                BrokerProcess b = cluster.broker(i);
                if (i % 2 == 0) {
                    assertEquals(0, b.stop(), "broker " + b.id() + " shuts down cleanly");
                } else {
                    b.kill();
                }
                BrokerProcess.sleep(2000);
                b.start();
                assertTrue(Clients.await(() -> fullIsr(admin, topic, partitions), Duration.ofSeconds(90)),
                        "every replica back in sync after broker " + b.id() + "'s " + (i % 2 == 0 ? "SIGTERM" : "SIGKILL"));
                BrokerProcess.sleep(2000);
            }
        } finally {
            stopTool(producer);
        }

        // What the producer was told was written, by partition and offset.
        Map<TopicPartition, TreeMap<Long, String>> acked = new HashMap<>();
        int errors = 0;
        for (JsonNode e : events(producerOut)) {
            String name = e.path("name").asText();
            if (name.equals("producer_send_success")) {
                acked.computeIfAbsent(new TopicPartition(topic, e.get("partition").asInt()), k -> new TreeMap<>())
                        .put(e.get("offset").asLong(), e.get("value").asText());
            } else if (name.equals("producer_send_error")) {
                ++errors;
            }
        }
        int ackedCount = acked.values().stream().mapToInt(Map::size).sum();
        assertTrue(ackedCount > 2000, "acknowledged " + ackedCount + " records (" + errors + " send errors)");

        // The group consumed and committed through the end of every partition.
        Map<TopicPartition, Long> end = new HashMap<>();
        acked.forEach((tp, m) -> end.put(tp, m.lastKey() + 1));
        boolean caughtUp = Clients.await(() -> {
            try {
                Map<TopicPartition, Long> committed = new HashMap<>();
                for (JsonNode e : events(consumerOut)) {
                    if (!e.path("name").asText().equals("offsets_committed") || !e.path("success").asBoolean()) continue;
                    for (JsonNode o : e.get("offsets"))
                        committed.merge(new TopicPartition(o.get("topic").asText(), o.get("partition").asInt()),
                                o.get("offset").asLong(), Math::max);
                }
                return end.entrySet().stream().allMatch(x -> committed.getOrDefault(x.getKey(), -1L) >= x.getValue());
            } catch (IOException ex) {
                return false;
            }
        }, Duration.ofSeconds(90));
        stopTool(consumer);
        assertTrue(caughtUp, "the group committed the end of every partition");

        // In order, no gap: a batch starts at or before where the last one ended (re-reads after a rebalance are allowed).
        Map<TopicPartition, Long> next = new HashMap<>();
        for (JsonNode e : events(consumerOut)) {
            if (!e.path("name").asText().equals("records_consumed")) continue;
            for (JsonNode p : e.get("partitions")) {
                TopicPartition tp = new TopicPartition(p.get("topic").asText(), p.get("partition").asInt());
                long min = p.get("minOffset").asLong();
                long max = p.get("maxOffset").asLong();
                long expected = next.getOrDefault(tp, 0L);
                assertTrue(min <= expected, tp + ": consumed from " + min + " while " + expected + " was next (a gap)");
                next.put(tp, Math.max(expected, max + 1));
            }
        }

        System.out.printf("bounce: %d acknowledged, %d send errors, %d partition batches consumed%n", ackedCount, errors,
                events(consumerOut).stream().filter(e -> e.path("name").asText().equals("records_consumed")).count());

        // Every acknowledged record is in the log at the offset the producer was given.
        try (KafkaConsumer<String, String> c = Clients.consumer(cluster, null)) {
            List<ConsumerRecord<String, String>> all =
                    Clients.readAll(c, Clients.partitions(topic, partitions), Duration.ofSeconds(60));
            Map<TopicPartition, Map<Long, String>> log = new HashMap<>();
            for (ConsumerRecord<String, String> r : all)
                log.computeIfAbsent(new TopicPartition(r.topic(), r.partition()), k -> new HashMap<>()).put(r.offset(), r.value());
            for (Map.Entry<TopicPartition, TreeMap<Long, String>> p : acked.entrySet()) {
                Map<Long, String> stored = log.getOrDefault(p.getKey(), Map.of());
                for (Map.Entry<Long, String> a : p.getValue().entrySet())
                    assertEquals(a.getValue(), stored.get(a.getKey()), p.getKey() + " offset " + a.getKey());
            }
        }
    }
}
