package dev.weir.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class TransactionsTest {
    @RegisterExtension static final WeirCluster cluster = new WeirCluster();

    static KafkaProducer<String, String> transactional(String id) {
        KafkaProducer<String, String> p = Clients.producer(cluster, ProducerConfig.TRANSACTIONAL_ID_CONFIG, id);
        p.initTransactions();
        return p;
    }

    static List<String> values(String topic, int partitions, String isolation) {
        try (KafkaConsumer<String, String> c =
                        Clients.consumer(cluster, null, ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation)) {
            return Clients.readAll(c, Clients.partitions(topic, partitions), Duration.ofSeconds(30)).stream()
                    .map(ConsumerRecord::value).collect(Collectors.toList());
        }
    }

    @Test
    void abortedRecordsAreHiddenFromReadCommitted() throws Exception {
        String topic = Clients.topic("txn");
        Clients.createTopic(cluster, topic, 1);
        try (KafkaProducer<String, String> p = transactional(Clients.topic("tx"))) {
            for (int t = 0; t < 3; ++t) {
                p.beginTransaction();
                for (int i = 0; i < 10; ++i) p.send(new ProducerRecord<>(topic, 0, "k", "t" + t + "-" + i));
                // Flushed first: an abort drops what the producer has not sent yet.
                p.flush();
                if (t == 1) p.abortTransaction();
                else p.commitTransaction();
            }
        }
        List<String> committed = values(topic, 1, "read_committed");
        List<String> expected = new ArrayList<>();
        for (int t : new int[] {0, 2})
            for (int i = 0; i < 10; ++i) expected.add("t" + t + "-" + i);
        assertEquals(expected, committed);
        List<String> uncommitted = values(topic, 1, "read_uncommitted");
        assertEquals(30, uncommitted.size(), "control records are never returned");
    }

    @Test
    void anOpenTransactionHoldsReadCommittedAtTheLastStableOffset() throws Exception {
        String topic = Clients.topic("lso");
        Clients.createTopic(cluster, topic, 1);
        TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaProducer<String, String> p = transactional(Clients.topic("tx"));
                KafkaConsumer<String, String> committed =
                        Clients.consumer(cluster, null, ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
                KafkaConsumer<String, String> uncommitted = Clients.consumer(cluster, null)) {
            p.beginTransaction();
            for (int i = 0; i < 5; ++i) p.send(new ProducerRecord<>(topic, 0, "k", "v" + i));
            p.flush();
            assertEquals(0L, committed.endOffsets(List.of(tp)).get(tp), "LSO before the commit");
            assertEquals(5L, uncommitted.endOffsets(List.of(tp)).get(tp), "high watermark");
            committed.assign(List.of(tp));
            committed.seekToBeginning(List.of(tp));
            assertTrue(committed.poll(Duration.ofMillis(1000)).isEmpty(), "nothing past the LSO");
            p.commitTransaction();
            // The commit returns once the coordinator logged it; the markers reach the partitions after (as in Kafka).
            assertTrue(Clients.await(() -> committed.endOffsets(List.of(tp)).get(tp) == 6L, Duration.ofSeconds(30)),
                    "five records and the commit marker");
            assertEquals(5, Clients.consume(committed, 5, Duration.ofSeconds(30)).size());
        }
    }

    @Test
    void aNewInstanceFencesTheZombie() throws Exception {
        String topic = Clients.topic("fence");
        Clients.createTopic(cluster, topic, 1);
        String id = Clients.topic("tx");
        KafkaProducer<String, String> zombie = transactional(id);
        try {
            zombie.beginTransaction();
            zombie.send(new ProducerRecord<>(topic, 0, "k", "zombie")).get();
            try (KafkaProducer<String, String> fresh = transactional(id)) {
                KafkaException e = assertThrows(KafkaException.class, zombie::commitTransaction);
                assertTrue(e instanceof ProducerFencedException || e.getCause() instanceof ProducerFencedException,
                        "fenced: " + e);
                fresh.beginTransaction();
                fresh.send(new ProducerRecord<>(topic, 0, "k", "fresh"));
                fresh.commitTransaction();
            }
        } finally {
            zombie.close(Duration.ZERO);
        }
        assertEquals(List.of("fresh"), values(topic, 1, "read_committed"));
    }

    /** Consume, transform, produce with the consumer's offsets in the same transaction: exactly once. */
    @Test
    void consumeTransformProduceCommitsOffsetsWithTheOutput() throws Exception {
        String in = Clients.topic("in");
        String out = Clients.topic("out");
        String group = Clients.topic("g");
        Clients.createTopic(cluster, in, 2);
        Clients.createTopic(cluster, out, 2);
        try (KafkaProducer<String, String> p = Clients.producer(cluster)) {
            for (int i = 0; i < 200; ++i) p.send(new ProducerRecord<>(in, i % 2, "k", Integer.toString(i)));
        }
        int done = 0;
        try (KafkaProducer<String, String> p = transactional(Clients.topic("tx"));
                KafkaConsumer<String, String> c = Clients.consumer(cluster, group,
                        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false",
                        ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")) {
            c.subscribe(List.of(in));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            boolean aborted = false;
            while (done < 200 && System.nanoTime() < deadline) {
                ConsumerRecords<String, String> batch = c.poll(Duration.ofMillis(200));
                if (batch.isEmpty()) continue;
                p.beginTransaction();
                Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
                for (ConsumerRecord<String, String> r : batch) {
                    p.send(new ProducerRecord<>(out, r.partition(), r.key(), "x" + r.value()));
                    offsets.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
                }
                p.sendOffsetsToTransaction(offsets, c.groupMetadata());
                if (!aborted) {
                    // The first batch is aborted: its output vanishes and its input is read again.
                    aborted = true;
                    p.abortTransaction();
                    for (TopicPartition tp : offsets.keySet()) {
                        OffsetAndMetadata committed = c.committed(java.util.Set.of(tp)).get(tp);
                        c.seek(tp, committed == null ? 0 : committed.offset());
                    }
                    continue;
                }
                p.commitTransaction();
                done += batch.count();
            }
        }
        assertEquals(200, done);
        List<String> output = values(out, 2, "read_committed");
        assertEquals(200, output.size(), "every input once in the output");
        assertEquals(200, output.stream().distinct().count());
        try (KafkaConsumer<String, String> c = Clients.consumer(cluster, group)) {
            Map<TopicPartition, OffsetAndMetadata> committed = c.committed(Clients.partitions(in, 2));
            assertEquals(100, committed.get(new TopicPartition(in, 0)).offset());
            assertEquals(100, committed.get(new TopicPartition(in, 1)).offset());
        }
    }
}
