package dev.weir.compat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** Clients at the Java client's defaults, pointed at a cluster; only what a test names is changed. */
final class Clients {
    private Clients() {}

    static Properties producerProps(WeirCluster cluster, Object... overrides) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        put(p, overrides);
        return p;
    }

    static KafkaProducer<String, String> producer(WeirCluster cluster, Object... overrides) {
        return new KafkaProducer<>(producerProps(cluster, overrides));
    }

    static KafkaProducer<byte[], byte[]> bytesProducer(WeirCluster cluster, Object... overrides) {
        Properties p = producerProps(cluster, overrides);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return new KafkaProducer<>(p);
    }

    static Properties consumerProps(WeirCluster cluster, String group, Object... overrides) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        if (group != null) p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        put(p, overrides);
        return p;
    }

    static KafkaConsumer<String, String> consumer(WeirCluster cluster, String group, Object... overrides) {
        return new KafkaConsumer<>(consumerProps(cluster, group, overrides));
    }

    static KafkaConsumer<byte[], byte[]> bytesConsumer(WeirCluster cluster, String group, Object... overrides) {
        Properties p = consumerProps(cluster, group, overrides);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return new KafkaConsumer<>(p);
    }

    static Admin admin(WeirCluster cluster, Object... overrides) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrap());
        put(p, overrides);
        return Admin.create(p);
    }

    /** A fresh topic name, so the tests of a class never share one. */
    static String topic(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    /** Creates a topic (cluster's replication) with the given configs and waits for it to be usable. */
    static void createTopic(WeirCluster cluster, String name, int partitions, Map<String, String> configs)
            throws ExecutionException, InterruptedException {
        try (Admin admin = admin(cluster)) {
            admin.createTopics(List.of(new NewTopic(name, partitions, cluster.replication()).configs(configs)))
                    .all().get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new AssertionError("CreateTopics " + name + " timed out", e);
        }
    }

    static void createTopic(WeirCluster cluster, String name, int partitions)
            throws ExecutionException, InterruptedException {
        createTopic(cluster, name, partitions, Map.of());
    }

    /** Polls until `count` records arrived or `timeout` passed; returns what arrived. */
    static <K, V> List<ConsumerRecord<K, V>> consume(KafkaConsumer<K, V> consumer, int count, Duration timeout) {
        List<ConsumerRecord<K, V>> out = new ArrayList<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (out.size() < count && System.nanoTime() < deadline) {
            consumer.poll(Duration.ofMillis(200)).forEach(out::add);
        }
        return out;
    }

    /** Reads every partition of `partitions` from the start to its current end, without a group. */
    static <K, V> List<ConsumerRecord<K, V>> readAll(KafkaConsumer<K, V> consumer, Collection<TopicPartition> partitions,
            Duration timeout) {
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
        List<ConsumerRecord<K, V>> out = new ArrayList<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            boolean done = true;
            for (TopicPartition tp : partitions) done &= consumer.position(tp, Duration.ofSeconds(30)) >= end.get(tp);
            if (done) break;
            consumer.poll(Duration.ofMillis(200)).forEach(out::add);
        }
        return out;
    }

    static Set<TopicPartition> partitions(String topic, int count) {
        Set<TopicPartition> out = new java.util.HashSet<>();
        for (int i = 0; i < count; ++i) out.add(new TopicPartition(topic, i));
        return out;
    }

    /** Waits (bounded) for a condition; false if it never held. */
    static boolean await(BooleanSupplier condition, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) return true;
            BrokerProcess.sleep(50);
        }
        return condition.getAsBoolean();
    }

    private static void put(Properties p, Object... overrides) {
        if (overrides.length % 2 != 0) throw new IllegalArgumentException("overrides come in key, value pairs");
        for (int i = 0; i < overrides.length; i += 2) p.put(overrides[i], overrides[i + 1]);
    }
}
