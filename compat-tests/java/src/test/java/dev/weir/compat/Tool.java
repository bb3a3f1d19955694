package dev.weir.compat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** One of Kafka's command-line tools, run as its script runs it: its main class in a JVM of its own. */
final class Tool {
    record Result(int exit, String stdout, String stderr) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout ---\n" + stdout + "\n--- stderr ---\n" + stderr;
        }
    }

    private Tool() {}

    static boolean available(String mainClass) {
        try {
            Class.forName(mainClass, false, Tool.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /** The command line that runs `mainClass` of the test classpath in a JVM of its own. */
    static List<String> jvm(String mainClass, String... args) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> argv = new ArrayList<>(List.of(java, "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn", mainClass));
        argv.addAll(List.of(args));
        return argv;
    }

    static Process start(String mainClass, Path stdout, Path stderr, String... args) {
        try {
            return new ProcessBuilder(jvm(mainClass, args)).redirectOutput(stdout.toFile()).redirectError(stderr.toFile())
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs the tool to its end (bounded by `timeout`, then killed and failed). */
    static Result run(Duration timeout, String mainClass, String... args) {
        try {
            Path out = Files.createTempFile("weir-tool-", ".out");
            Path err = Files.createTempFile("weir-tool-", ".err");
            try {
                Process p = start(mainClass, out, err, args);
                if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                    throw new AssertionError(mainClass + " did not finish within " + timeout + "\n"
                            + Files.readString(out) + "\n" + Files.readString(err));
                }
                return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                        Files.readString(err, StandardCharsets.UTF_8));
            } finally {
                Files.deleteIfExists(out);
                Files.deleteIfExists(err);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    static Result run(String mainClass, String... args) {
        return run(Duration.ofSeconds(120), mainClass, args);
    }
}
