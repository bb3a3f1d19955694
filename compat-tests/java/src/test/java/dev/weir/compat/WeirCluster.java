package dev.weir.compat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * The brokers a test class runs against (Weir's, or Kafka's with -Dweir.target=kafka): one broker, or
 * (-Dweir.brokers=N) N brokers over a ZooKeeper of their own, with Kafka's
 * production defaults for internal topics (replication 3, transaction log
 * min ISR 2) and min.insync.replicas=2. Registered as a JUnit extension: the
 * brokers start before the class's first test and must shut down cleanly
 * (exit 0 on SIGTERM) after its last; a failing test prints their log tails.
 */
final class WeirCluster implements BeforeAllCallback, AfterAllCallback, TestWatcher {
    private final Map<String, String> extra;
    private final List<BrokerProcess> brokers = new ArrayList<>();
    private ZooKeeper zookeeper;
    private Path root;
    private boolean failed;

    WeirCluster() {
        this(Map.of());
    }

    /** Broker settings every broker of this class gets, on top of the harness's. */
    WeirCluster(Map<String, String> extra) {
        this.extra = extra;
    }

    static int size() {
        return Integer.getInteger("weir.brokers", 1);
    }

    int brokerCount() {
        return brokers.size();
    }

    BrokerProcess broker(int index) {
        return brokers.get(index);
    }

    List<BrokerProcess> brokers() {
        return brokers;
    }

    String bootstrap() {
        return brokers.stream().map(BrokerProcess::bootstrap).collect(Collectors.joining(","));
    }

    /** The replication factor topics get: three in a cluster, one alone. */
    short replication() {
        return (short) Math.min(3, brokers.size());
    }

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        root = Files.createTempDirectory("weir-java-" + context.getRequiredTestClass().getSimpleName() + "-");
        int n = size();
        Map<String, String> common = new HashMap<>();
        common.put("num.partitions", "1");
        common.put("auto.create.topics.enable", "true");
        if (n == 1 && BrokerProcess.isKafka()) {
            // Kafka's ZooKeeper mode needs a ZooKeeper even alone, and internal topics it can place.
            common.put("offsets.topic.replication.factor", "1");
            common.put("transaction.state.log.replication.factor", "1");
            common.put("transaction.state.log.min.isr", "1");
        }
        if (n > 1 || BrokerProcess.isKafka()) {
            zookeeper = new ZooKeeper(root.resolve("zookeeper"));
            String connect = zookeeper.connect("/weir");
            common.put("zookeeper.connect", connect);
            common.put("zookeeper.session.timeout.ms", "6000");
        }
        if (n > 1) {
            common.put("default.replication.factor", "3");
            common.put("offsets.topic.replication.factor", "3");
            common.put("transaction.state.log.replication.factor", "3");
            common.put("transaction.state.log.min.isr", "2");
            common.put("min.insync.replicas", "2");
        }
        common.putAll(extra);
        for (int id = 0; id < n; ++id) {
            Map<String, String> overrides = new HashMap<>(common);
            overrides.put("broker.id", Integer.toString(id));
            brokers.add(new BrokerProcess(id, root.resolve("broker-" + id), overrides));
        }
        for (BrokerProcess b : brokers) b.start();
        awaitBrokers(n, Duration.ofSeconds(60));
    }

    /** Waits (bounded) until the cluster's metadata lists `n` brokers. */
    void awaitBrokers(int n, Duration timeout) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        long deadline = System.nanoTime() + timeout.toNanos();
        try (Admin admin = Admin.create(props)) {
            while (true) {
                try {
                    int seen = admin.describeCluster(new DescribeClusterOptions().timeoutMs(5000)).nodes().get().size();
                    if (seen == n) return;
                } catch (Exception e) {
                    // not ready yet
                }
                if (System.nanoTime() > deadline)
                    throw new IllegalStateException("the cluster did not show " + n + " brokers within " + timeout);
                BrokerProcess.sleep(100);
            }
        }
    }

    @Override
    public void testFailed(ExtensionContext context, Throwable cause) {
        failed = true;
        for (BrokerProcess b : brokers) {
            System.err.println("--- " + context.getDisplayName() + ": tail of broker " + b.id() + "'s log (" + b.log()
                    + ") ---\n" + b.logTail(60) + "\n--- end of broker " + b.id() + "'s log ---");
        }
    }

    @Override
    public void afterAll(ExtensionContext context) throws IOException {
        List<String> problems = new ArrayList<>();
        for (BrokerProcess b : brokers) {
            Integer crashed = b.exitedOnItsOwn();
            if (crashed != null) {
                problems.add("broker " + b.id() + " exited on its own with status " + crashed);
            } else if (b.running()) {
                int status = b.stop();
                if (status != 0) problems.add("broker " + b.id() + " exited with status " + status + " on SIGTERM");
            }
        }
        if (zookeeper != null) zookeeper.close();
        if (!problems.isEmpty()) {
            for (BrokerProcess b : brokers) System.err.println("--- broker " + b.id() + " ---\n" + b.logTail(60));
            throw new AssertionError(String.join("; ", problems) + " (dirs kept under " + root + ")");
        }
        if (failed) {
            System.err.println("broker dirs kept under " + root);
        } else {
            try (Stream<Path> walk = Files.walk(root)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (UncheckedIOException e) {
                // a leftover temp dir is harmless
            }
        }
    }
}
