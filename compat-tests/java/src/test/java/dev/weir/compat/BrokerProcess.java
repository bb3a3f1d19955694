package dev.weir.compat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * One broker child process on its own free 127.0.0.1 port, with its
 * server.properties, data and log in a directory of its own: `weir serve`, or
 * with -Dweir.target=kafka (and -Dkafka.libs=DIR) Apache Kafka's own broker
 * run as kafka-server-start.sh runs it, so the same tests check that their
 * expectations are Kafka's. The port and the data survive a restart, so a
 * test can bounce it as an operator would.
 */
final class BrokerProcess {
    private final int id;
    private final Path dir;
    private final int port;
    private final Map<String, String> overrides;
    private Process process;
    private int starts;

    BrokerProcess(int id, Path dir, Map<String, String> overrides) {
        this.id = id;
        this.dir = dir;
        this.port = freePort();
        this.overrides = new TreeMap<>(overrides);
        try {
            Files.createDirectories(dataDir());
            int admin;
            do {
                admin = freePort();
            } while (admin == port);
            String props = "broker.id=" + id + "\n"
                    + "listeners=PLAINTEXT://127.0.0.1:" + port + "\n"
                    + "log.dirs=" + dataDir() + "\n";
            if (isKafka()) {
                Files.writeString(dir.resolve("log4j.properties"),
                        "log4j.rootLogger=INFO, stdout\n"
                                + "log4j.appender.stdout=org.apache.log4j.ConsoleAppender\n"
                                + "log4j.appender.stdout.layout=org.apache.log4j.PatternLayout\n"
                                + "log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n\n");
            } else {
                props += "weir.admin.listener=http://127.0.0.1:" + admin + "\n";
            }
            Files.writeString(dir.resolve("server.properties"), props);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    int id() {
        return id;
    }

    int port() {
        return port;
    }

    String bootstrap() {
        return "127.0.0.1:" + port;
    }

    Path dataDir() {
        return dir.resolve("data");
    }

    Path log() {
        return dir.resolve("broker.log");
    }

    boolean running() {
        return process != null && process.isAlive();
    }

    long pid() {
        return process.pid();
    }

    /** Starts the process and waits (bounded) until its port accepts connections. */
    void start() {
        if (running()) throw new IllegalStateException("broker " + id + " already running");
        List<String> argv = new ArrayList<>();
        if (isKafka()) {
            // kafka-server-start.sh's heap and kafka-run-class.sh's collector.
            argv.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx1G", "-Xms1G",
                    "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20", "-Djava.awt.headless=true",
                    "-Dlog4j.configuration=file:" + dir.resolve("log4j.properties"), "-cp", kafkaLibs() + "/*",
                    "kafka.Kafka", dir.resolve("server.properties").toString()));
        } else {
            argv.addAll(List.of(binary(), "serve", dir.resolve("server.properties").toString()));
        }
        overrides.forEach((k, v) -> {
            argv.add("--override");
            argv.add(k + "=" + v);
        });
        try {
            Files.writeString(log(), "=== start #" + (++starts) + ": " + String.join(" ", argv) + " ===\n",
                    StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND);
            process = new ProcessBuilder(argv).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log().toFile()))
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!accepts(port)) {
            if (!process.isAlive())
                throw new IllegalStateException("broker " + id + " exited at start with status "
                        + process.exitValue() + "\n" + logTail(40));
            if (System.nanoTime() > deadline)
                throw new IllegalStateException("broker " + id + " did not listen within 60 s\n" + logTail(40));
            sleep(20);
        }
    }

    /**
     * SIGTERM and a bounded wait; the exit status (0 is a clean shutdown, -9 if it had to be
     * killed). A JVM that ran its shutdown hooks on SIGTERM exits 143: Kafka's clean shutdown.
     */
    int stop() {
        if (!running()) throw new IllegalStateException("broker " + id + " is not running");
        process.destroy();
        try {
            if (process.waitFor(60, TimeUnit.SECONDS)) {
                int status = process.exitValue();
                return isKafka() && status == 143 ? 0 : status;
            }
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            return -9;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** SIGKILL, as a crash or a power cut. */
    void kill() {
        if (!running()) throw new IllegalStateException("broker " + id + " is not running");
        try {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The exit status if the broker has exited on its own, else null. */
    Integer exitedOnItsOwn() {
        return process != null && !process.isAlive() ? process.exitValue() : null;
    }

    String logTail(int lines) {
        try {
            List<String> all = Files.readAllLines(log(), StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    /** True when the tests run against Apache Kafka's broker instead of Weir. */
    static boolean isKafka() {
        return System.getProperty("weir.target", "weir").equals("kafka");
    }

    static String kafkaLibs() {
        Path p = Path.of(System.getProperty("kafka.libs", "")).toAbsolutePath().normalize();
        if (!Files.isDirectory(p)) throw new IllegalStateException("no Kafka libs at " + p + " (-Dkafka.libs=...)");
        return p.toString();
    }

    static String binary() {
        Path p = Path.of(System.getProperty("weir.binary", "../../build/bin/weir")).toAbsolutePath().normalize();
        if (!Files.isExecutable(p)) throw new IllegalStateException("no weir binary at " + p + " (-Dweir.binary=...)");
        return p.toString();
    }

    static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static boolean accepts(int port) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
