package dev.weir.compat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.KTable;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;

/**
 * A Kafka Streams application in a JVM of its own, so a test can SIGKILL it mid-stream:
 * args bootstrap applicationId stateDir lines counts orders customers enriched.
 * Word count (a repartition topic and a state store with a compacted changelog) and a
 * stream-table join, with exactly_once_v2 and no record cache, so every count update
 * reaches the output. Prints "running" once it processes.
 */
public final class WordCountApp {
    private WordCountApp() {}

    static StreamsBuilder topology(String lines, String counts, String orders, String customers, String enriched) {
        StreamsBuilder builder = new StreamsBuilder();
        KStream<String, String> text = builder.stream(lines, Consumed.with(Serdes.String(), Serdes.String()));
        text.flatMapValues(v -> Arrays.asList(v.toLowerCase(Locale.ROOT).split("\\W+")))
                .filter((k, w) -> !w.isEmpty())
                .map((k, w) -> KeyValue.pair(w, w))
                .groupByKey()
                .count(Materialized.as("word-counts"))
                .toStream()
                .to(counts, Produced.with(Serdes.String(), Serdes.Long()));
        KTable<String, String> customerTable =
                builder.table(customers, Consumed.with(Serdes.String(), Serdes.String()), Materialized.as("customers"));
        builder.stream(orders, Consumed.with(Serdes.String(), Serdes.String()))
                .join(customerTable, (order, customer) -> order + "@" + customer)
                .to(enriched, Produced.with(Serdes.String(), Serdes.String()));
        return builder;
    }

    public static void main(String[] args) throws Exception {
        Properties p = new Properties();
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, args[1]);
        p.put(StreamsConfig.STATE_DIR_CONFIG, args[2]);
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        p.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.String().getClass().getName());
        p.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.String().getClass().getName());
        p.put("statestore.cache.max.bytes", "0");
        // A killed instance leaves the group at its session's end; keep the test's wait short.
        p.put(StreamsConfig.consumerPrefix("session.timeout.ms"), "10000");
        p.put(StreamsConfig.consumerPrefix("heartbeat.interval.ms"), "1000");
        KafkaStreams streams = new KafkaStreams(topology(args[3], args[4], args[5], args[6], args[7]).build(), p);
        CountDownLatch done = new CountDownLatch(1);
        streams.setStateListener((now, before) -> {
            if (now == KafkaStreams.State.RUNNING) {
                System.out.println("running");
                System.out.flush();
            }
            if (now == KafkaStreams.State.ERROR || now == KafkaStreams.State.NOT_RUNNING) done.countDown();
        });
        streams.setUncaughtExceptionHandler(e -> {
            e.printStackTrace();
            return org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse
                    .SHUTDOWN_CLIENT;
        });
        Files.createDirectories(Path.of(args[2]));
        streams.start();
        // Stops by itself: on a state of no return, on "stop" or EOF on stdin, or after 5 minutes.
        Thread stdin = new Thread(() -> {
            try {
                byte[] buf = new byte[64];
                while (System.in.read(buf) > 0) {
                    if (new String(buf).startsWith("stop")) break;
                }
            } catch (java.io.IOException e) {
                // closed
            }
            done.countDown();
        });
        stdin.setDaemon(true);
        stdin.start();
        done.await(5, java.util.concurrent.TimeUnit.MINUTES);
        streams.close(Duration.ofSeconds(30));
        System.out.println("closed " + streams.state());
    }
}
