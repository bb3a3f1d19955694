package dev.weir.compat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.consumer.RangeAssignor;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The classic consumer group protocol, as the Java consumer speaks it by default. */
class ConsumerTest {
    @RegisterExtension static final WeirCluster cluster = new WeirCluster();

    static void produce(String topic, int partitions, int perPartition, long firstTimestamp) throws Exception {
        try (KafkaProducer<String, String> producer = Clients.producer(cluster)) {
            for (int i = 0; i < perPartition; ++i)
                for (int p = 0; p < partitions; ++p)
                    producer.send(new ProducerRecord<>(topic, p, firstTimestamp + i, "k" + i, p + ":" + i));
            producer.flush();
        }
    }

    @ParameterizedTest
    @ValueSource(classes = {RangeAssignor.class, CooperativeStickyAssignor.class})
    void membersSharePartitionsOneOwnerEach(Class<?> assignor) throws Exception {
        String topic = Clients.topic("group-" + assignor.getSimpleName());
        String group = Clients.topic("g");
        Clients.createTopic(cluster, topic, 6);
        produce(topic, 6, 100, 1_000);
        List<GroupMember> members = new ArrayList<>();
        try {
            for (int i = 0; i < 3; ++i) {
                Properties props = Clients.consumerProps(cluster, group,
                        ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, assignor.getName());
                members.add(new GroupMember("m" + i, props, topic));
            }
            assertTrue(Clients.await(() -> balanced(members, 6, 2), Duration.ofSeconds(60)),
                    () -> "assignments " + assignments(members));
            assertTrue(Clients.await(() -> consumed(members) >= 600, Duration.ofSeconds(60)),
                    () -> consumed(members) + " of 600 consumed; assignments " + assignments(members));

            // One member leaves: the other two own everything between them.
            members.remove(0).close();
            assertTrue(Clients.await(() -> balanced(members, 6, 3), Duration.ofSeconds(60)),
                    () -> "after a leave " + assignments(members));
            produce(topic, 6, 10, 5_000);
            assertTrue(Clients.await(() -> consumedValues(members).containsAll(expected(6, 10)), Duration.ofSeconds(60)));
        } finally {
            for (GroupMember m : members) m.close();
        }
        // Everything committed: a new member of the group starts at the end.
        try (KafkaConsumer<String, String> late = Clients.consumer(cluster, group)) {
            Map<TopicPartition, OffsetAndMetadata> committed = late.committed(Clients.partitions(topic, 6));
            for (TopicPartition tp : Clients.partitions(topic, 6)) assertEquals(110, committed.get(tp).offset(), tp::toString);
        }
    }

    static Set<String> expected(int partitions, int count) {
        Set<String> out = new HashSet<>();
        for (int p = 0; p < partitions; ++p)
            for (int i = 0; i < count; ++i) out.add(p + ":" + i);
        return out;
    }

    static boolean balanced(List<GroupMember> members, int partitions, int each) {
        Set<TopicPartition> seen = new HashSet<>();
        for (GroupMember m : members) {
            Set<TopicPartition> a = m.assignment();
            if (a.size() != each) return false;
            for (TopicPartition tp : a)
                if (!seen.add(tp)) return false;
        }
        return seen.size() == partitions;
    }

    static String assignments(List<GroupMember> members) {
        return members.stream().map(m -> m.name + "=" + m.assignment()).collect(Collectors.joining(", "));
    }

    static int consumed(List<GroupMember> members) {
        return consumedValues(members).size();
    }

    static Set<String> consumedValues(List<GroupMember> members) {
        Set<String> out = new HashSet<>();
        for (GroupMember m : members)
            for (ConsumerRecord<String, String> r : m.records()) out.add(r.value());
        return out;
    }

    /** KIP-345: a static member that restarts within its session gets its partitions back without a rebalance. */
    @Test
    void staticMemberRestartsWithoutARebalance() throws Exception {
        String topic = Clients.topic("static");
        String group = Clients.topic("g");
        Clients.createTopic(cluster, topic, 4);
        Object[] common = {ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "30000"};
        GroupMember a = new GroupMember("a", withInstance(Clients.consumerProps(cluster, group, common), "a"), topic);
        GroupMember b = new GroupMember("b", withInstance(Clients.consumerProps(cluster, group, common), "b"), topic);
        try {
            assertTrue(Clients.await(() -> balanced(List.of(a, b), 4, 2), Duration.ofSeconds(60)));
            Set<TopicPartition> before = b.assignment();
            int aAssigned = a.assignedCalls();
            int aRevoked = a.revokedCalls();
            b.close();  // a static member's close does not leave the group
            GroupMember b2 =
                    new GroupMember("b2", withInstance(Clients.consumerProps(cluster, group, common), "b"), topic);
            try {
                assertTrue(Clients.await(() -> b2.assignment().equals(before), Duration.ofSeconds(30)),
                        () -> "b2 got " + b2.assignment() + " instead of " + before);
                BrokerProcess.sleep(3000);  // a rebalance, had there been one, would show by now
                assertEquals(aAssigned, a.assignedCalls(), "a was not reassigned");
                assertEquals(aRevoked, a.revokedCalls(), "a lost nothing");
            } finally {
                b2.close();
            }
        } finally {
            a.close();
        }
    }

    static Properties withInstance(Properties p, String id) {
        p.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, id);
        return p;
    }

    /** A member whose process dies: its partitions go to the survivor once its session times out. */
    @Test
    void aKilledMembersPartitionsAreReassigned() throws Exception {
        String topic = Clients.topic("killed");
        String group = Clients.topic("g");
        Clients.createTopic(cluster, topic, 4);
        Process child = new ProcessBuilder(Tool.jvm(ChildConsumer.class.getName(), cluster.bootstrap(), group, topic))
                .redirectErrorStream(true).start();
        try (BufferedReader out =
                        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while ((line = out.readLine()) != null && !line.equals("assigned 4")) {
                if (System.nanoTime() > deadline) break;
            }
            assertEquals("assigned 4", line, "the child consumer took every partition");
            GroupMember survivor = new GroupMember("survivor",
                    Clients.consumerProps(cluster, group, ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "6000"), topic);
            try {
                assertTrue(Clients.await(() -> survivor.assignment().size() == 2, Duration.ofSeconds(60)),
                        () -> "survivor joined: " + survivor.assignment());
                child.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                long killed = System.nanoTime();
                assertTrue(Clients.await(() -> survivor.assignment().size() == 4, Duration.ofSeconds(30)),
                        () -> "survivor after the kill: " + survivor.assignment());
                long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed);
                assertTrue(ms < 20_000, "reassigned " + ms + " ms after the kill (session 6 s)");
            } finally {
                survivor.close();
            }
        } finally {
            child.destroyForcibly();
        }
    }

    @Test
    void seekOffsetsForTimesEndOffsetsPauseResume() throws Exception {
        String topic = Clients.topic("seek");
        Clients.createTopic(cluster, topic, 2);
        produce(topic, 2, 50, 10_000);
        TopicPartition p0 = new TopicPartition(topic, 0);
        TopicPartition p1 = new TopicPartition(topic, 1);
        try (KafkaConsumer<String, String> c = Clients.consumer(cluster, null)) {
            c.assign(List.of(p0, p1));
            assertEquals(Map.of(p0, 0L, p1, 0L), c.beginningOffsets(List.of(p0, p1)));
            assertEquals(Map.of(p0, 50L, p1, 50L), c.endOffsets(List.of(p0, p1)));
            Map<TopicPartition, OffsetAndTimestamp> byTime = c.offsetsForTimes(Map.of(p0, 10_020L, p1, 99_999L));
            assertEquals(20, byTime.get(p0).offset());
            assertEquals(10_020, byTime.get(p0).timestamp());
            assertNull(byTime.get(p1), "no record at or after the time");

            c.seek(p0, 45);
            c.seek(p1, 48);
            List<ConsumerRecord<String, String>> got = Clients.consume(c, 7, Duration.ofSeconds(30));
            assertEquals(7, got.size());
            assertEquals(Set.of("0:45", "0:46", "0:47", "0:48", "0:49", "1:48", "1:49"),
                    got.stream().map(ConsumerRecord::value).collect(Collectors.toSet()));

            c.seekToBeginning(List.of(p0, p1));
            c.pause(List.of(p1));
            List<ConsumerRecord<String, String>> paused = Clients.consume(c, 50, Duration.ofSeconds(30));
            assertEquals(50, paused.size());
            assertTrue(paused.stream().allMatch(r -> r.partition() == 0), "nothing from the paused partition");
            assertTrue(c.poll(Duration.ofMillis(500)).isEmpty());
            c.resume(List.of(p1));
            List<ConsumerRecord<String, String>> resumed = Clients.consume(c, 50, Duration.ofSeconds(30));
            assertEquals(50, resumed.size());
            assertTrue(resumed.stream().allMatch(r -> r.partition() == 1));
            assertEquals(0, resumed.get(0).offset());
        }
    }

    @Test
    void committedOffsetsResumeANewMember() throws Exception {
        String topic = Clients.topic("commit");
        String group = Clients.topic("g");
        Clients.createTopic(cluster, topic, 1);
        produce(topic, 1, 20, 1);
        TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaConsumer<String, String> c = Clients.consumer(cluster, group,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false")) {
            c.subscribe(List.of(topic));
            List<ConsumerRecord<String, String>> got = Clients.consume(c, 20, Duration.ofSeconds(60));
            assertEquals(20, got.size());
            c.commitSync(Map.of(tp, new OffsetAndMetadata(12, "meta")));
        }
        try (KafkaConsumer<String, String> c = Clients.consumer(cluster, group)) {
            OffsetAndMetadata committed = c.committed(Set.of(tp)).get(tp);
            assertEquals(12, committed.offset());
            assertEquals("meta", committed.metadata());
            c.subscribe(List.of(topic));
            List<ConsumerRecord<String, String>> got = Clients.consume(c, 8, Duration.ofSeconds(60));
            assertEquals(8, got.size());
            assertEquals(12, got.get(0).offset());
        }
    }
}
