package dev.weir.compat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Debian's ZooKeeper server (ZooKeeperServerMain) on a free 127.0.0.1 port, data in a directory of its own. */
final class ZooKeeper implements AutoCloseable {
    private final int port = BrokerProcess.freePort();
    private final Process process;

    ZooKeeper(Path dir) {
        String jar = System.getenv().getOrDefault("WEIR_TEST_ZOOKEEPER_JAR", "/usr/share/java/zookeeper.jar");
        try {
            Files.createDirectories(dir);
            Files.writeString(dir.resolve("zoo.cfg"),
                    "tickTime=500\n"
                            + "dataDir=" + dir.resolve("data") + "\n"
                            + "clientPort=" + port + "\n"
                            + "clientPortAddress=127.0.0.1\n"
                            + "admin.enableServer=false\n"
                            + "4lw.commands.whitelist=ruok,srvr\n"
                            + "maxSessionTimeout=60000\n");
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            process = new ProcessBuilder(List.of(java, "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                    "-cp", jar, "org.apache.zookeeper.server.ZooKeeperServerMain", dir.resolve("zoo.cfg").toString()))
                    .redirectErrorStream(true).redirectOutput(dir.resolve("zookeeper.log").toFile()).start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!answersRuok()) {
            if (!process.isAlive()) throw new IllegalStateException("ZooKeeper exited at start; see " + dir);
            if (System.nanoTime() > deadline) {
                close();
                throw new IllegalStateException("ZooKeeper did not answer within 60 s");
            }
            BrokerProcess.sleep(50);
        }
    }

    String connect(String chroot) {
        return "127.0.0.1:" + port + chroot;
    }

    private boolean answersRuok() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 500);
            s.setSoTimeout(1000);
            OutputStream out = s.getOutputStream();
            out.write("ruok".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            return new String(in.readNBytes(4), StandardCharsets.US_ASCII).equals("imok");
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
