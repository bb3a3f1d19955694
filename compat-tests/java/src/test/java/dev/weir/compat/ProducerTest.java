package dev.weir.compat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ProducerTest {
    @RegisterExtension static final WeirCluster cluster = new WeirCluster();

    /** The Java client's defaults: idempotence on, acks=all, the default partitioner. */
    @Test
    void defaultsStoreEveryRecordOnceInOrderPerPartition() throws Exception {
        String topic = Clients.topic("defaults");
        Clients.createTopic(cluster, topic, 4);
        int n = 10_000;
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        try (KafkaProducer<String, String> producer = Clients.producer(cluster)) {
            for (int i = 0; i < n; ++i) {
                ProducerRecord<String, String> r = new ProducerRecord<>(topic, "key-" + (i % 97), "value-" + i);
                r.headers().add("seq", Integer.toString(i).getBytes(StandardCharsets.UTF_8));
                sent.add(producer.send(r));
            }
            producer.flush();
        }
        // Offsets are dense per partition: no batch stored twice, none lost.
        Map<Integer, List<Long>> offsets = new HashMap<>();
        for (Future<RecordMetadata> f : sent) {
            RecordMetadata md = f.get(30, TimeUnit.SECONDS);
            offsets.computeIfAbsent(md.partition(), p -> new ArrayList<>()).add(md.offset());
        }
        assertEquals(4, offsets.size(), "keys spread over every partition");
        offsets.forEach((p, list) -> {
            for (int i = 0; i < list.size(); ++i) assertEquals(i, list.get(i), "partition " + p + " offset " + i);
        });

        try (KafkaConsumer<String, String> consumer = Clients.consumer(cluster, null)) {
            List<ConsumerRecord<String, String>> got =
                    Clients.readAll(consumer, Clients.partitions(topic, 4), Duration.ofSeconds(60));
            assertEquals(n, got.size());
            Map<Integer, Integer> lastSeq = new HashMap<>();
            Map<String, Integer> partitionOfKey = new HashMap<>();
            for (ConsumerRecord<String, String> r : got) {
                int seq = Integer.parseInt(new String(r.headers().lastHeader("seq").value(), StandardCharsets.UTF_8));
                assertEquals("value-" + seq, r.value());
                assertEquals("key-" + (seq % 97), r.key());
                assertTrue(lastSeq.getOrDefault(r.partition(), -1) < seq, "order within partition " + r.partition());
                lastSeq.put(r.partition(), seq);
                Integer before = partitionOfKey.putIfAbsent(r.key(), r.partition());
                assertTrue(before == null || before == r.partition(), "a key stays on one partition");
                assertEquals(TimestampType.CREATE_TIME, r.timestampType());
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"none", "gzip", "snappy", "lz4", "zstd"})
    void everyCodecRoundTrips(String codec) throws Exception {
        String topic = Clients.topic("codec-" + codec);
        Clients.createTopic(cluster, topic, 2);
        Random random = new Random(codec.hashCode());
        int n = 3_000;
        List<byte[]> values = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = Clients.bytesProducer(cluster,
                ProducerConfig.COMPRESSION_TYPE_CONFIG, codec, ProducerConfig.LINGER_MS_CONFIG, 20)) {
            for (int i = 0; i < n; ++i) {
                // Half text (compressible), half random bytes.
                byte[] v = i % 2 == 0 ? ("payload " + i + " ").repeat(1 + i % 7).getBytes(StandardCharsets.UTF_8)
                                      : new byte[1 + random.nextInt(300)];
                if (i % 2 != 0) random.nextBytes(v);
                values.add(v);
                producer.send(new ProducerRecord<>(topic, 0, Integer.toString(i).getBytes(StandardCharsets.UTF_8), v));
            }
            producer.flush();
        }
        try (KafkaConsumer<byte[], byte[]> consumer = Clients.bytesConsumer(cluster, null)) {
            List<ConsumerRecord<byte[], byte[]>> got =
                    Clients.readAll(consumer, List.of(new TopicPartition(topic, 0)), Duration.ofSeconds(60));
            assertEquals(n, got.size());
            for (int i = 0; i < n; ++i) {
                assertEquals(i, got.get(i).offset());
                assertEquals(Integer.toString(i), new String(got.get(i).key(), StandardCharsets.UTF_8));
                assertArrayEquals(values.get(i), got.get(i).value(), "record " + i);
            }
        }
    }

    @Test
    void headersNullsAndTimestampsArriveAsSent() throws Exception {
        String topic = Clients.topic("headers");
        Clients.createTopic(cluster, topic, 1);
        long ts = 1_700_000_000_123L;
        try (KafkaProducer<String, String> producer = Clients.producer(cluster)) {
            List<Header> headers = List.of(new RecordHeader("a", "1".getBytes(StandardCharsets.UTF_8)),
                    new RecordHeader("empty", new byte[0]), new RecordHeader("null", null),
                    new RecordHeader("a", "2".getBytes(StandardCharsets.UTF_8)));
            producer.send(new ProducerRecord<>(topic, 0, ts, "k", "v", headers)).get(30, TimeUnit.SECONDS);
            producer.send(new ProducerRecord<String, String>(topic, 0, ts + 1, (String) null, (String) null)).get(30, TimeUnit.SECONDS);
            producer.send(new ProducerRecord<>(topic, 0, ts + 2, "", "")).get(30, TimeUnit.SECONDS);
        }
        try (KafkaConsumer<String, String> consumer = Clients.consumer(cluster, null)) {
            List<ConsumerRecord<String, String>> got =
                    Clients.readAll(consumer, List.of(new TopicPartition(topic, 0)), Duration.ofSeconds(30));
            assertEquals(3, got.size());
            Header[] h = got.get(0).headers().toArray();
            assertEquals(4, h.length);
            assertEquals("a", h[0].key());
            assertArrayEquals("1".getBytes(StandardCharsets.UTF_8), h[0].value());
            assertArrayEquals(new byte[0], h[1].value());
            assertNull(h[2].value());
            assertArrayEquals("2".getBytes(StandardCharsets.UTF_8), got.get(0).headers().lastHeader("a").value());
            assertEquals(ts, got.get(0).timestamp());
            assertNull(got.get(1).key());
            assertNull(got.get(1).value());
            assertEquals(ts + 1, got.get(1).timestamp());
            assertEquals("", got.get(2).key());
            assertEquals("", got.get(2).value());
        }
    }

    @Test
    void logAppendTimeTopicsStampTheBrokersTime() throws Exception {
        String topic = Clients.topic("append-time");
        Clients.createTopic(cluster, topic, 1, Map.of("message.timestamp.type", "LogAppendTime"));
        long before = System.currentTimeMillis();
        RecordMetadata md;
        try (KafkaProducer<String, String> producer = Clients.producer(cluster)) {
            md = producer.send(new ProducerRecord<>(topic, 0, 42L, "k", "v")).get(30, TimeUnit.SECONDS);
        }
        long after = System.currentTimeMillis();
        assertTrue(md.timestamp() >= before - 1000 && md.timestamp() <= after + 1000, "broker time " + md.timestamp());
        try (KafkaConsumer<String, String> consumer = Clients.consumer(cluster, null)) {
            List<ConsumerRecord<String, String>> got =
                    Clients.readAll(consumer, List.of(new TopicPartition(topic, 0)), Duration.ofSeconds(30));
            assertEquals(1, got.size());
            assertEquals(TimestampType.LOG_APPEND_TIME, got.get(0).timestampType());
            assertEquals(md.timestamp(), got.get(0).timestamp());
        }
    }

    /** Broker's message.max.bytes is Kafka's default (1048588): a record just under it is stored, one over it refused. */
    @Test
    void recordsNearMessageMaxBytes() throws Exception {
        String topic = Clients.topic("large");
        Clients.createTopic(cluster, topic, 1);
        Random random = new Random(7);
        byte[] fits = new byte[1_048_000];
        random.nextBytes(fits);
        byte[] tooLarge = new byte[1_048_700];
        random.nextBytes(tooLarge);
        try (KafkaProducer<byte[], byte[]> producer = Clients.bytesProducer(cluster,
                ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 2_000_000)) {
            RecordMetadata md = producer.send(new ProducerRecord<>(topic, 0, null, fits)).get(30, TimeUnit.SECONDS);
            assertEquals(0, md.offset());
            ExecutionException e = assertThrows(ExecutionException.class,
                    () -> producer.send(new ProducerRecord<>(topic, 0, null, tooLarge)).get(30, TimeUnit.SECONDS));
            assertInstanceOf(RecordTooLargeException.class, e.getCause());
            // The producer carries on after the refusal.
            assertEquals(1, producer.send(new ProducerRecord<>(topic, 0, null, "small".getBytes(StandardCharsets.UTF_8)))
                    .get(30, TimeUnit.SECONDS).offset());
        }
        try (KafkaConsumer<byte[], byte[]> consumer = Clients.bytesConsumer(cluster, null)) {
            List<ConsumerRecord<byte[], byte[]>> got =
                    Clients.readAll(consumer, List.of(new TopicPartition(topic, 0)), Duration.ofSeconds(30));
            assertEquals(2, got.size());
            assertArrayEquals(fits, got.get(0).value());
        }
    }
}
