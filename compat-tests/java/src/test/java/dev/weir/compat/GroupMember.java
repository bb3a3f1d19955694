package dev.weir.compat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * A group member polling on a thread of its own (KafkaConsumer is single-threaded), recording
 * what it consumed and its assignment as its rebalance listener sees it.
 */
final class GroupMember implements AutoCloseable {
    final String name;
    private final Thread thread;
    private final List<ConsumerRecord<String, String>> records = new ArrayList<>();
    private final Set<TopicPartition> assignment = new HashSet<>();
    private final AtomicInteger assignedCalls = new AtomicInteger();
    private final AtomicInteger revokedCalls = new AtomicInteger();
    private final AtomicReference<Throwable> error = new AtomicReference<>();
    private volatile boolean stop;

    GroupMember(String name, Properties props, String topic) {
        this.name = name;
        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props);
        thread = new Thread(() -> {
            try (consumer) {
                consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                        if (!partitions.isEmpty()) revokedCalls.incrementAndGet();
                        synchronized (assignment) {
                            assignment.removeAll(partitions);
                        }
                        consumer.commitSync();
                    }

                    @Override
                    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                        assignedCalls.incrementAndGet();
                        synchronized (assignment) {
                            assignment.addAll(partitions);
                        }
                    }

                    @Override
                    public void onPartitionsLost(Collection<TopicPartition> partitions) {
                        synchronized (assignment) {
                            assignment.removeAll(partitions);
                        }
                    }
                });
                while (!stop) {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                        synchronized (records) {
                            records.add(r);
                        }
                    }
                    consumer.commitAsync();
                }
                consumer.commitSync();
            } catch (Throwable t) {
                error.set(t);
            }
        }, "member-" + name);
        thread.start();
    }

    Set<TopicPartition> assignment() {
        synchronized (assignment) {
            return new HashSet<>(assignment);
        }
    }

    List<ConsumerRecord<String, String>> records() {
        synchronized (records) {
            return new ArrayList<>(records);
        }
    }

    int assignedCalls() {
        return assignedCalls.get();
    }

    int revokedCalls() {
        return revokedCalls.get();
    }

    Throwable error() {
        return error.get();
    }

    /** Stops polling and closes the consumer (a dynamic member leaves the group). */
    @Override
    public void close() {
        stop = true;
        try {
            thread.join(60_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while closing member " + name, e);
        }
        if (thread.isAlive()) throw new AssertionError("member " + name + " did not close within 60 s");
        if (error.get() != null) throw new AssertionError("member " + name + " failed", error.get());
    }
}
