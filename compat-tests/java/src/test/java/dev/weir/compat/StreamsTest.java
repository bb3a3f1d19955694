package dev.weir.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Kafka Streams with exactly_once_v2: a word count and a join, one instance killed mid-stream. */
class StreamsTest {
    @RegisterExtension static final WeirCluster cluster = new WeirCluster();

    /** One instance of WordCountApp in its own JVM. */
    static final class Instance implements AutoCloseable {
        final Process process;
        final List<String> output = new ArrayList<>();

        Instance(String app, Path stateDir, String... topics) throws IOException {
            List<String> args = new ArrayList<>(List.of(cluster.bootstrap(), app, stateDir.toString()));
            args.addAll(List.of(topics));
            process = new ProcessBuilder(Tool.jvm(WordCountApp.class.getName(), args.toArray(String[]::new)))
                    .redirectErrorStream(true).start();
            Thread reader = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(
                             new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line; (line = r.readLine()) != null;) {
                        synchronized (output) {
                            output.add(line);
                        }
                    }
                } catch (IOException e) {
                    // the process is gone
                }
            });
            reader.setDaemon(true);
            reader.start();
        }

        boolean printed(String line) {
            synchronized (output) {
                return output.contains(line);
            }
        }

        String output() {
            synchronized (output) {
                return String.join("\n", output);
            }
        }

        void kill() throws InterruptedException {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }

        /** A clean stop; the instance must close by itself. */
        @Override
        public void close() throws IOException, InterruptedException {
            if (!process.isAlive()) return;
            process.getOutputStream().write("stop\n".getBytes(StandardCharsets.UTF_8));
            process.getOutputStream().flush();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("streams instance did not close within 60 s:\n" + output());
            }
        }
    }

    static void produce(String topic, List<String[]> keyValues) {
        try (KafkaProducer<String, String> p = Clients.producer(cluster)) {
            for (String[] kv : keyValues) p.send(new ProducerRecord<>(topic, kv[0], kv[1]));
        }
    }

    /** Every count update per word, in order, as read_committed sees them. */
    static Map<String, List<Long>> counts(String topic) {
        try (KafkaConsumer<String, Long> c = new KafkaConsumer<>(Clients.consumerProps(cluster, null,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, LongDeserializer.class.getName()))) {
            Map<String, List<Long>> out = new TreeMap<>();
            for (ConsumerRecord<String, Long> r : Clients.readAll(c, Clients.partitions(topic, 2), Duration.ofSeconds(30)))
                out.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r.value());
            return out;
        }
    }

    static boolean reached(String topic, Map<String, Long> expected) {
        Map<String, List<Long>> got = counts(topic);
        for (Map.Entry<String, Long> e : expected.entrySet()) {
            List<Long> seq = got.get(e.getKey());
            if (seq == null || seq.isEmpty() || seq.get(seq.size() - 1) < e.getValue()) return false;
        }
        return true;
    }

    @Test
    void wordCountAndJoinAreExactlyOnceAcrossAKilledInstance() throws Exception {
        String app = Clients.topic("wc");
        String lines = Clients.topic("lines");
        String countsTopic = Clients.topic("counts");
        String orders = Clients.topic("orders");
        String customers = Clients.topic("customers");
        String enriched = Clients.topic("enriched");
        for (String t : List.of(lines, countsTopic, orders, customers, enriched)) Clients.createTopic(cluster, t, 2);
        String[] words = {"alpha", "beta", "gamma", "delta", "epsilon"};
        Map<String, Long> expected = new HashMap<>();
        List<String[]> first = new ArrayList<>();
        List<String[]> second = new ArrayList<>();
        for (int i = 0; i < 400; ++i) {
            String line = words[i % 5] + " " + words[(i * 3) % 5] + " " + words[(i * 7 + 1) % 5];
            for (String w : line.split(" ")) expected.merge(w, 1L, Long::sum);
            (i < 200 ? first : second).add(new String[] {"line-" + i, line});
        }
        produce(customers, List.of(new String[] {"c1", "Ada"}, new String[] {"c2", "Grace"}));
        Path state = Files.createTempDirectory("weir-streams-");
        String[] topics = {lines, countsTopic, orders, customers, enriched};

        Instance a = new Instance(app, state.resolve("a"), topics);
        try {
            assertTrue(Clients.await(() -> a.printed("running"), Duration.ofSeconds(90)), a::output);
            produce(lines, first);
            Map<String, Long> firstExpected = new HashMap<>();
            for (String[] kv : first)
                for (String w : kv[1].split(" ")) firstExpected.merge(w, 1L, Long::sum);
            assertTrue(Clients.await(() -> reached(countsTopic, firstExpected), Duration.ofSeconds(90)),
                    () -> "first half counted: " + counts(countsTopic) + "\n" + a.output());
            // Mid-stream: more input arrives and the instance dies while processing it.
            produce(lines, second.subList(0, 100));
            a.kill();
        } finally {
            a.kill();
        }
        try (Instance b = new Instance(app, state.resolve("b"), topics)) {
            assertTrue(Clients.await(() -> b.printed("running"), Duration.ofSeconds(90)), b::output);
            produce(lines, second.subList(100, 200));
            produce(orders, List.of(new String[] {"c1", "o1"}, new String[] {"c2", "o2"}, new String[] {"c3", "o3"}));
            assertTrue(Clients.await(() -> reached(countsTopic, expected), Duration.ofSeconds(120)),
                    () -> "all counted: " + counts(countsTopic) + "\n" + b.output());
            assertTrue(Clients.await(() -> enrichedValues(enriched).size() >= 2, Duration.ofSeconds(60)), b::output);
        }
        // Exactly once: each word's updates are 1, 2, ..., N with nothing repeated or skipped.
        Map<String, List<Long>> got = counts(countsTopic);
        assertEquals(expected.keySet(), got.keySet());
        for (Map.Entry<String, Long> e : expected.entrySet()) {
            List<Long> seq = got.get(e.getKey());
            List<Long> want = new ArrayList<>();
            for (long i = 1; i <= e.getValue(); ++i) want.add(i);
            assertEquals(want, seq, "updates of " + e.getKey());
        }
        // The join: orders for known customers, none for the unknown one.
        assertEquals(Set.of("o1@Ada", "o2@Grace"), enrichedValues(enriched));

        // Streams created its internal topics: a compacted changelog and a repartition topic.
        try (Admin admin = Clients.admin(cluster)) {
            Set<String> names = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            String changelog = app + "-word-counts-changelog";
            assertTrue(names.contains(changelog), () -> "topics: " + names);
            assertTrue(names.stream().anyMatch(n -> n.startsWith(app) && n.endsWith("-repartition")), () -> "topics: " + names);
            ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, changelog);
            Config c = admin.describeConfigs(List.of(r)).all().get(30, TimeUnit.SECONDS).get(r);
            assertEquals("compact", c.get("cleanup.policy").value());
        }
    }

    static Set<String> enrichedValues(String topic) {
        try (KafkaConsumer<String, String> c =
                        Clients.consumer(cluster, null, ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")) {
            return Clients.readAll(c, Clients.partitions(topic, 2), Duration.ofSeconds(30)).stream()
                    .map(ConsumerRecord::value).collect(Collectors.toSet());
        }
    }
}
