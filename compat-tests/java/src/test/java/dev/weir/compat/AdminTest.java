package dev.weir.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.SecurityDisabledException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.quota.ClientQuotaFilter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Every Admin method whose APIs Weir serves, and Kafka's exceptions for what it refuses. */
class AdminTest {
    @RegisterExtension static final WeirCluster cluster = new WeirCluster();
    static Admin admin;

    @BeforeAll
    static void open() {
        admin = Clients.admin(cluster);
    }

    @AfterAll
    static void close() {
        if (admin != null) admin.close(Duration.ofSeconds(10));
    }

    static <T> T get(KafkaFuture<T> f) throws Exception {
        return f.get(30, TimeUnit.SECONDS);
    }

    static Throwable failure(KafkaFuture<?> f) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(30, TimeUnit.SECONDS));
        return e.getCause();
    }

    @Test
    void topicsAreCreatedDescribedGrownAndDeleted() throws Exception {
        String t = Clients.topic("admin");
        short rf = cluster.replication();
        get(admin.createTopics(List.of(new NewTopic(t, 3, rf).configs(Map.of("retention.ms", "3600000")))).all());
        assertInstanceOf(TopicExistsException.class, failure(admin.createTopics(List.of(new NewTopic(t, 3, rf))).all()));
        assertTrue(get(admin.listTopics().names()).contains(t));

        TopicDescription d = get(admin.describeTopics(List.of(t)).allTopicNames()).get(t);
        assertEquals(3, d.partitions().size());
        assertFalse(d.isInternal());
        d.partitions().forEach(p -> {
            assertNotNull(p.leader(), "partition " + p.partition() + " has a leader");
            assertEquals(rf, p.replicas().size());
            assertEquals(rf, p.isr().size());
        });

        get(admin.createPartitions(Map.of(t, NewPartitions.increaseTo(5))).all());
        assertTrue(Clients.await(() -> partitionCount(t) == 5, Duration.ofSeconds(30)));
        assertInstanceOf(InvalidPartitionsException.class,
                failure(admin.createPartitions(Map.of(t, NewPartitions.increaseTo(2))).all()));

        get(admin.deleteTopics(List.of(t)).all());
        assertTrue(Clients.await(() -> {
            try {
                return !get(admin.listTopics().names()).contains(t);
            } catch (Exception e) {
                return false;
            }
        }, Duration.ofSeconds(30)));
        assertInstanceOf(UnknownTopicOrPartitionException.class,
                failure(admin.describeTopics(List.of(t)).allTopicNames()));
    }

    static int partitionCount(String t) {
        try {
            return get(admin.describeTopics(List.of(t)).allTopicNames()).get(t).partitions().size();
        } catch (Exception e) {
            return -1;
        }
    }

    @Test
    void createTopicsRefusesWhatKafkaRefuses() throws Exception {
        String t = Clients.topic("bad");
        assertInstanceOf(InvalidPartitionsException.class,
                failure(admin.createTopics(List.of(new NewTopic(t, 0, cluster.replication()))).all()));
        assertInstanceOf(InvalidReplicationFactorException.class,
                failure(admin.createTopics(List.of(new NewTopic(t, 1, (short) (cluster.brokerCount() + 1)))).all()));
        assertInstanceOf(InvalidConfigurationException.class, failure(admin.createTopics(
                List.of(new NewTopic(t, 1, cluster.replication()).configs(Map.of("cleanup.policy", "shred")))).all()));
        get(admin.createTopics(List.of(new NewTopic(t, 1, cluster.replication())),
                new CreateTopicsOptions().validateOnly(true)).all());
        assertFalse(get(admin.listTopics().names()).contains(t), "validateOnly creates nothing");
    }

    @Test
    void topicConfigsAlterIncrementallyAndDescribeWithTheirSource() throws Exception {
        String t = Clients.topic("configs");
        Clients.createTopic(cluster, t, 1, Map.of("retention.ms", "86400000"));
        ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, t);
        get(admin.incrementalAlterConfigs(Map.of(r, List.of(
                new AlterConfigOp(new ConfigEntry("cleanup.policy", "compact"), AlterConfigOp.OpType.SET),
                new AlterConfigOp(new ConfigEntry("retention.ms", null), AlterConfigOp.OpType.DELETE),
                new AlterConfigOp(new ConfigEntry("max.message.bytes", "2000000"), AlterConfigOp.OpType.SET))))
                .all());
        get(admin.incrementalAlterConfigs(Map.of(r, List.of(
                new AlterConfigOp(new ConfigEntry("cleanup.policy", "delete"), AlterConfigOp.OpType.APPEND))))
                .all());
        // One key twice in one request is refused whole, as Kafka refuses it.
        assertInstanceOf(InvalidRequestException.class, failure(admin.incrementalAlterConfigs(Map.of(r, List.of(
                new AlterConfigOp(new ConfigEntry("segment.ms", "1000"), AlterConfigOp.OpType.SET),
                new AlterConfigOp(new ConfigEntry("segment.ms", "2000"), AlterConfigOp.OpType.SET)))).all()));
        Config c = get(admin.describeConfigs(List.of(r)).all()).get(r);
        assertEquals("compact,delete", c.get("cleanup.policy").value());
        assertEquals(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG, c.get("cleanup.policy").source());
        assertEquals("2000000", c.get("max.message.bytes").value());
        assertEquals("604800000", c.get("retention.ms").value(), "back to the broker's default");
        assertEquals(ConfigEntry.ConfigSource.DEFAULT_CONFIG, c.get("retention.ms").source());

        assertInstanceOf(InvalidConfigurationException.class, failure(admin.incrementalAlterConfigs(Map.of(r,
                List.of(new AlterConfigOp(new ConfigEntry("retention.ms", "soon"), AlterConfigOp.OpType.SET))))
                .all()));

        ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER, Integer.toString(cluster.broker(0).id()));
        Config b = get(admin.describeConfigs(List.of(broker)).all()).get(broker);
        assertEquals("1048588", b.get("message.max.bytes").value());
    }

    @Test
    void recordsAreDeletedAndOffsetsListed() throws Exception {
        String t = Clients.topic("records");
        Clients.createTopic(cluster, t, 1);
        TopicPartition tp = new TopicPartition(t, 0);
        try (KafkaProducer<String, String> p = Clients.producer(cluster)) {
            for (int i = 0; i < 10; ++i) p.send(new ProducerRecord<>(t, 0, 1_000L + i, "k", "v" + i));
        }
        assertEquals(4, get(admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(4))).lowWatermarks().get(tp))
                .lowWatermark());
        ListOffsetsResult r = admin.listOffsets(Map.of(tp, OffsetSpec.earliest()));
        assertEquals(4, get(r.partitionResult(tp)).offset());
        assertEquals(10, get(admin.listOffsets(Map.of(tp, OffsetSpec.latest())).partitionResult(tp)).offset());
        assertEquals(6, get(admin.listOffsets(Map.of(tp, OffsetSpec.forTimestamp(1_006))).partitionResult(tp)).offset());
        ListOffsetsResult.ListOffsetsResultInfo max =
                get(admin.listOffsets(Map.of(tp, OffsetSpec.maxTimestamp())).partitionResult(tp));
        assertEquals(9, max.offset());
        assertEquals(1_009, max.timestamp());
    }

    @Test
    void consumerGroupsAreListedDescribedAlteredAndDeleted() throws Exception {
        String t = Clients.topic("groups");
        String group = Clients.topic("g");
        Clients.createTopic(cluster, t, 2);
        try (KafkaProducer<String, String> p = Clients.producer(cluster)) {
            for (int i = 0; i < 20; ++i) p.send(new ProducerRecord<>(t, i % 2, "k", "v" + i));
        }
        TopicPartition p0 = new TopicPartition(t, 0);
        TopicPartition p1 = new TopicPartition(t, 1);
        try (KafkaConsumer<String, String> c = Clients.consumer(cluster, group)) {
            c.subscribe(List.of(t));
            List<ConsumerRecord<String, String>> got = Clients.consume(c, 20, Duration.ofSeconds(60));
            assertEquals(20, got.size());
            c.commitSync();
            Collection<ConsumerGroupListing> listed = get(admin.listConsumerGroups().all());
            assertTrue(listed.stream().anyMatch(l -> l.groupId().equals(group)), "listed");
            ConsumerGroupDescription d = get(admin.describeConsumerGroups(List.of(group)).all()).get(group);
            assertEquals("range", d.partitionAssignor());
            assertEquals(1, d.members().size());
            assertEquals(Set.of(p0, p1), d.members().iterator().next().assignment().topicPartitions());
            assertInstanceOf(GroupNotEmptyException.class, failure(admin.deleteConsumerGroups(List.of(group)).all()));
        }
        Map<TopicPartition, OffsetAndMetadata> offsets =
                get(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata());
        assertEquals(Map.of(p0, 10L, p1, 10L),
                offsets.entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset())));
        get(admin.alterConsumerGroupOffsets(group, Map.of(p0, new OffsetAndMetadata(3))).all());
        get(admin.deleteConsumerGroupOffsets(group, Set.of(p1)).all());
        offsets = get(admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata());
        assertEquals(3, offsets.get(p0).offset());
        assertTrue(offsets.get(p1) == null, "p1's offset deleted: " + offsets);
        get(admin.deleteConsumerGroups(List.of(group)).all());
        assertTrue(get(admin.listConsumerGroups().all()).stream().noneMatch(l -> l.groupId().equals(group)));
    }

    @Test
    void clusterLogDirsProducersAndTransactionsAreDescribed() throws Exception {
        DescribeClusterResult cl = admin.describeCluster();
        assertEquals(cluster.brokerCount(), get(cl.nodes()).size());
        assertNotNull(get(cl.clusterId()));
        assertNotNull(get(cl.controller()));

        String t = Clients.topic("describe");
        Clients.createTopic(cluster, t, 1);
        TopicPartition tp = new TopicPartition(t, 0);
        String txnId = Clients.topic("tx");
        try (KafkaProducer<String, String> p =
                        Clients.producer(cluster, ProducerConfig.TRANSACTIONAL_ID_CONFIG, txnId)) {
            p.initTransactions();
            p.beginTransaction();
            p.send(new ProducerRecord<>(t, 0, "k", "v")).get();

            List<ProducerState> producers = get(admin.describeProducers(List.of(tp)).partitionResult(tp)).activeProducers();
            assertEquals(1, producers.size());
            assertTrue(producers.get(0).currentTransactionStartOffset().isPresent(), "an open transaction");

            Collection<TransactionListing> listings = get(admin.listTransactions().all());
            assertTrue(listings.stream().anyMatch(l -> l.transactionalId().equals(txnId)));
            TransactionDescription td = get(admin.describeTransactions(List.of(txnId)).description(txnId));
            assertEquals(Set.of(tp), td.topicPartitions());
            p.commitTransaction();
        }

        Map<Integer, Map<String, LogDirDescription>> dirs = get(admin.describeLogDirs(
                cluster.brokers().stream().map(BrokerProcess::id).collect(Collectors.toList())).allDescriptions());
        assertEquals(cluster.brokerCount(), dirs.size());
        long replicas = dirs.values().stream().flatMap(m -> m.values().stream())
                .filter(ld -> ld.replicaInfos().containsKey(tp)).count();
        assertEquals(cluster.replication(), replicas, "every replica of the partition in some log dir");

        // fenceProducers bumps the epoch: the next instance's transactions still work.
        String fenced = Clients.topic("tx");
        try (KafkaProducer<String, String> p = Clients.producer(cluster, ProducerConfig.TRANSACTIONAL_ID_CONFIG, fenced)) {
            p.initTransactions();
        }
        get(admin.fenceProducers(List.of(fenced)).all());
    }

    @Test
    void whatWeirDoesNotServeFailsAsKafkaFailsIt() throws Exception {
        // No authorizer: Kafka answers SECURITY_DISABLED.
        assertInstanceOf(SecurityDisabledException.class, failure(admin.describeAcls(AclBindingFilter.ANY).values()));
        // Feature calls: answered from ApiVersions.
        assertNotNull(get(admin.describeFeatures().featureMetadata()));
        // The rest are APIs Kafka serves and Weir does not advertise yet: the client raises
        // UnsupportedVersionException, as against any broker without them.
        Assumptions.assumeFalse(BrokerProcess.isKafka(), "Kafka serves these");
        assertInstanceOf(UnsupportedVersionException.class,
                failure(admin.describeClientQuotas(ClientQuotaFilter.all()).entities()));
        assertInstanceOf(UnsupportedVersionException.class, failure(admin.alterClientQuotas(List.of(new ClientQuotaAlteration(
                new ClientQuotaEntity(Map.of(ClientQuotaEntity.USER, "alice")),
                List.of(new ClientQuotaAlteration.Op("producer_byte_rate", 1024.0))))).all()));
        assertInstanceOf(UnsupportedVersionException.class,
                failure(admin.describeUserScramCredentials().all()));
        assertInstanceOf(UnsupportedVersionException.class,
                failure(admin.listPartitionReassignments().reassignments()));
        assertInstanceOf(UnsupportedVersionException.class,
                failure(admin.electLeaders(ElectionType.PREFERRED, Set.of(new TopicPartition("any", 0))).all()));
    }

    /** The legacy AlterConfigs replaces a topic's whole set of overrides (Admin.alterConfigs, gone in 4.0). */
    @Test
    void legacyAlterConfigsReplacesEveryOverride() throws Exception {
        Method legacy;
        try {
            legacy = Admin.class.getMethod("alterConfigs", Map.class);
        } catch (NoSuchMethodException e) {
            Assumptions.abort("kafka-clients " + System.getProperty("kafka.version") + " has no Admin.alterConfigs");
            return;
        }
        String t = Clients.topic("legacy");
        Clients.createTopic(cluster, t, 1, Map.of("cleanup.policy", "compact"));
        ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, t);
        Object result = legacy.invoke(admin, Map.of(r, new Config(List.of(new ConfigEntry("retention.ms", "1000")))));
        get((KafkaFuture<?>) result.getClass().getMethod("all").invoke(result));
        Config c = get(admin.describeConfigs(List.of(r)).all()).get(r);
        assertEquals("1000", c.get("retention.ms").value());
        assertEquals(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG, c.get("retention.ms").source());
        assertEquals("delete", c.get("cleanup.policy").value(), "the override not named is gone");
        assertEquals(ConfigEntry.ConfigSource.DEFAULT_CONFIG, c.get("cleanup.policy").source());
    }
}
