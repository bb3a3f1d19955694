#include "broker/config/config_keys.h"

#include <algorithm>
#include <optional>
#include <string>
#include <type_traits>

#include "broker/config/listener.h"
#include "broker/config/topic_config.h"

namespace weir::config {
namespace {

using T = ConfigType;
using I = Importance;
using V = Validator;

constexpr std::string_view kLongMax = "9223372036854775807";
constexpr std::string_view kIntMax = "2147483647";

constexpr std::string_view kCleanupPolicies[] = {"compact", "delete"};
constexpr std::string_view kTimestampTypes[] = {"CreateTime", "LogAppendTime"};
constexpr std::string_view kCompressionTypes[] = {"uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"};
constexpr std::string_view kSecurityProtocols[] = {"PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"};
constexpr std::string_view kSslClientAuth[] = {"required", "requested", "none"};

std::optional<std::string> check_admin_listener(std::string_view v) {
    if (v.empty()) return std::nullopt;
    if (v.starts_with("http://")) v.remove_prefix(7);
    if (!parse_host_port(v)) return "Expected host:port or http://host:port";
    return std::nullopt;
}

// "*" or a list of partition:broker pairs.
std::optional<std::string> check_throttled_replicas(std::string_view v) {
    if (v.empty() || v == "*") return std::nullopt;
    for (const std::string& item : as_list(v)) {
        std::size_t colon = item.find(':');
        auto digits = [](std::string_view s) {
            return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
        };
        if (colon == std::string::npos || !digits(std::string_view(item).substr(0, colon)) ||
            !digits(std::string_view(item).substr(colon + 1))) {
            return "Must be the wildcard (*) or a list in the form "
                   "[PartitionId]:[BrokerId],[PartitionId]:[BrokerId],...";
        }
    }
    return std::nullopt;
}

// name, type, default, importance, doc, validator, dynamic, used. `dynamic` is
// membership of Kafka's DynamicBrokerConfig.AllDynamicConfigs: of synonym groups
// (log.retention.ms/.minutes/.hours) only the first name is dynamic.
// The tables keep one key per line (clang-format off) so they read as tables.
// clang-format off
const ConfigKey kBrokerKeys[] = {
    // Identity and network.
    {"broker.id", T::int32, "0", I::high, "The id of this broker; unique in a cluster.", V::at_least(0), false, true},
    {"node.id", T::int32, std::nullopt, I::high, "Alias of broker.id; when both are set they must agree.", V::at_least(0), false, true},
    {"broker.rack", T::string, std::nullopt, I::medium, "Rack of the broker, reported to clients in Metadata.", {}, false, true},
    {"listeners", T::string, "PLAINTEXT://127.0.0.1:9092", I::high,
     "Comma-separated NAME://host:port endpoints to bind; an empty host binds all interfaces.", {}, true, true},
    {"advertised.listeners", T::string, std::nullopt, I::high,
     "Endpoints given to clients, if different from listeners.", {}, true, true},
    {"listener.security.protocol.map", T::string, "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL",
     I::low, "Security protocol of each listener name (Weir serves PLAINTEXT only).", {}, true, true},
    {"inter.broker.listener.name", T::string, std::nullopt, I::medium, "Listener brokers use to talk to each other.", {}, false, true},
    {"security.inter.broker.protocol", T::string, "PLAINTEXT", I::medium,
     "Security protocol between brokers; alternative to inter.broker.listener.name.", V::one_of(kSecurityProtocols), false, true},
    {"num.network.threads", T::int32, "3", I::high, "Accepted for compatibility; Weir sizes its own I/O threads.", V::at_least(1), true, false},
    {"num.io.threads", T::int32, "8", I::high, "Accepted for compatibility; Weir sizes its own I/O threads.", V::at_least(1), true, false},
    {"background.threads", T::int32, "10", I::high, "Accepted for compatibility.", V::at_least(1), true, false},
    {"queued.max.requests", T::int32, "500", I::high, "Requests a connection may have in flight before reads pause.", V::at_least(1), false, true},
    {"socket.send.buffer.bytes", T::int32, "102400", I::high, "Accepted for compatibility; the OS sizes socket buffers (autotuning).", {}, false, false},
    {"socket.receive.buffer.bytes", T::int32, "102400", I::high, "Accepted for compatibility; the OS sizes socket buffers (autotuning).", {}, false, false},
    {"socket.request.max.bytes", T::int32, "104857600", I::high, "Largest request frame accepted.", V::at_least(1), false, true},
    {"max.incremental.fetch.session.cache.slots", T::int32, "1000", I::medium,
     "Fetch sessions (KIP-227) the broker keeps; beyond it, fetches go without one.", V::at_least(0), false, true},
    {"connections.max.idle.ms", T::int64, "600000", I::medium, "Idle connections are closed after this many milliseconds.", {}, false, true},
    {"max.connections", T::int32, kIntMax, I::medium,
     "Connections open at once across all listeners; beyond it new ones wait in the backlog (changes need a restart).",
     V::at_least(0), false, true},
    {"max.connections.per.ip", T::int32, kIntMax, I::medium,
     "Connections open at once from one address; beyond it a new one is closed (changes need a restart).",
     V::at_least(0), false, true},
    {"max.connections.per.ip.overrides", T::string, "", I::medium,
     "Per-address limits, host:count,host:count (changes need a restart).", {}, false, true},
    {"queued.max.request.bytes", T::int64, "-1", I::medium,
     "Bytes of requests being read or handled and of responses not yet sent, across all connections, after which "
     "connections stop reading; -1 for no limit.",
     {}, false, true},
    {"weir.log.scrub.bytes.per.second", T::int64, "0", I::low,
     "Rate at which a background scrub reads closed segments, checking every batch's header and CRC, and reports "
     "damage in the log and in /metrics; 0 (the default) turns it off.",
     V::at_least(0), false, true},
    {"weir.log.scrub.interval.ms", T::int64, "3600000", I::low,
     "Pause between the end of one scrub pass over every log and the start of the next.", V::at_least(0), false,
     true},
    {"weir.log.max.open.files", T::int32, "8192", I::medium,
     "Segment files a broker keeps open at once across all its partitions: each .log descriptor and each "
     "memory-mapped index counts one. Past it the least recently used are closed and reopened when next read "
     "or written, so descriptors and mappings stay bounded however many partitions the broker hosts; 0 keeps "
     "every one open, as Kafka does. Values below 8 count as 8.",
     V::at_least(0), false, true},
    {"weir.connection.stall.timeout.ms", T::int64, "30000", I::medium,
     "A connection that stops sending in the middle of a request frame, or stops reading in the middle of a "
     "response, is closed after this many milliseconds; 0 disables.",
     V::at_least(0), false, true},
    {"weir.fetch.zero.copy", T::boolean, "true", I::low,
     "Fetch answers send records straight from the segment files (sendfile), so an answer waiting for a slow "
     "client holds no broker memory; false copies them into memory (file systems without sendfile).",
     {}, false, true},
    {"max.connection.creation.rate", T::int32, kIntMax, I::medium, "Accepted for compatibility.", V::at_least(0), true, false},
    {"weir.admin.listener", T::string, "http://127.0.0.1:9644", I::medium,
     "Where the HTTP admin endpoint (health, Prometheus metrics, JSON API) listens, as host:port or "
     "http://host:port; port 0 picks a free one; empty disables it.",
     V::custom(check_admin_listener), false, true},
    {"weir.admin.faults.enable", T::boolean, "false", I::low,
     "Accept fault injection (errors, delays, disconnects, dropped answers) over the admin API's /v1/faults; "
     "for tests, never for production.",
     {}, false, true},

    // Topics.
    {"num.partitions", T::int32, "1", I::medium, "Partitions of auto-created topics and of CreateTopics with -1.", V::at_least(1), false, true},
    {"default.replication.factor", T::int32, "1", I::medium, "Replication factor of auto-created topics and of CreateTopics with -1.", {}, false, true},
    {"auto.create.topics.enable", T::boolean, "true", I::high, "Create unknown topics when clients ask for their metadata.", {}, false, true},
    {"delete.topic.enable", T::boolean, "true", I::high, "Allow DeleteTopics.", {}, false, true},
    {"auto.leader.rebalance.enable", T::boolean, "true", I::high, "Move leadership back to preferred replicas.", {}, false, true},
    {"controlled.shutdown.enable", T::boolean, "true", I::medium, "Hand leadership over before shutting down.", {}, false, true},
    {"leader.imbalance.check.interval.seconds", T::int64, "300", I::high, "How often the controller checks for leader imbalance.", V::at_least(1), false, true},
    {"leader.imbalance.per.broker.percentage", T::int32, "10", I::high, "Share of a broker's preferred partitions led elsewhere that triggers their election.", V::at_least(0), false, true},
    {"unclean.leader.election.enable", T::boolean, "false", I::high, "Allow out-of-sync replicas to become leader.", {}, true, true},
    {"min.insync.replicas", T::int32, "1", I::high, "Replicas that must acknowledge an acks=all produce.", V::at_least(1), true, true},
    {"compression.type", T::string, "producer", I::high, "Compression of stored batches; producer keeps what the client sent.",
     V::one_of(kCompressionTypes), true, true},
    {"message.max.bytes", T::int32, "1048588", I::high, "Largest record batch accepted.", V::at_least(0), true, true},

    // Log.
    {"log.dirs", T::string, std::nullopt, I::high, "Comma-separated data directories; log.dir when unset.", {}, false, true},
    {"log.dir", T::string, "./weir-data", I::high, "Data directory used when log.dirs is unset.", {}, false, true},
    {"log.segment.bytes", T::int32, "1073741824", I::high, "Size at which a segment is rolled.", V::at_least(14), true, true},
    {"log.roll.ms", T::int64, std::nullopt, I::high, "Age at which a segment is rolled; log.roll.hours when unset.", {}, true, true},
    {"log.roll.hours", T::int32, "168", I::high, "Age in hours at which a segment is rolled.", V::at_least(1), false, true},
    {"log.roll.jitter.ms", T::int64, std::nullopt, I::high, "Random jitter subtracted from the roll time.", {}, true, true},
    {"log.roll.jitter.hours", T::int32, "0", I::high, "Roll jitter in hours.", V::at_least(0), false, true},
    {"log.retention.ms", T::int64, std::nullopt, I::high, "Age after which segments are deleted; -1 keeps them forever.", {}, true, true},
    {"log.retention.minutes", T::int32, std::nullopt, I::high, "Retention in minutes, used when log.retention.ms is unset.", {}, false, true},
    {"log.retention.hours", T::int32, "168", I::high, "Retention in hours, used when ms and minutes are unset.", {}, false, true},
    {"log.retention.bytes", T::int64, "-1", I::high, "Size above which old segments of a partition are deleted; -1: no limit.", {}, true, true},
    {"log.retention.check.interval.ms", T::int64, "300000", I::medium, "How often retention is enforced.", V::at_least(1), false, true},
    {"log.cleanup.policy", T::list, "delete", I::medium, "delete and/or compact.", V::list_of(kCleanupPolicies), true, true},
    {"log.cleaner.enable", T::boolean, "true", I::medium, "Run the log cleaner for compacted topics.", {}, false, true},
    {"log.cleaner.threads", T::int32, "1", I::medium, "Log cleaner threads.", V::at_least(0), true, true},
    {"log.cleaner.backoff.ms", T::int64, "15000", I::medium, "Sleep of the cleaner when there is nothing to clean.", V::at_least(0), true, true},
    {"log.cleaner.dedupe.buffer.size", T::int64, "134217728", I::medium, "Memory for the cleaner's key map.", {}, true, true},
    {"log.cleaner.io.buffer.load.factor", T::float64, "0.9", I::medium, "Accepted for compatibility.", {}, true, false},
    {"log.cleaner.io.buffer.size", T::int32, "524288", I::medium, "Accepted for compatibility.", V::at_least(0), true, false},
    {"log.cleaner.io.max.bytes.per.second", T::float64, "1.7976931348623157E308", I::medium, "Accepted for compatibility.", {}, true,
     false},
    {"log.cleaner.delete.retention.ms", T::int64, "86400000", I::medium, "How long tombstones are kept in compacted topics.", V::at_least(0), true, true},
    {"log.cleaner.min.compaction.lag.ms", T::int64, "0", I::medium, "Minimum age of a record before it can be compacted.", V::at_least(0), true, true},
    {"log.cleaner.max.compaction.lag.ms", T::int64, kLongMax, I::medium, "Maximum age of an uncompacted record.", V::at_least(1), true, true},
    {"log.cleaner.min.cleanable.ratio", T::float64, "0.5", I::medium, "Dirty ratio that triggers cleaning.", V::between(0, 1), true, true},
    {"log.index.size.max.bytes", T::int32, "10485760", I::medium, "Maximum size of an offset index file.", V::at_least(4), true, true},
    {"log.index.interval.bytes", T::int32, "4096", I::medium, "Bytes between offset index entries.", V::at_least(0), true, true},
    {"log.flush.interval.messages", T::int64, kLongMax, I::high, "Messages appended before a forced fsync.", V::at_least(1), true, true},
    {"log.flush.interval.ms", T::int64, std::nullopt, I::high, "Milliseconds before a forced fsync; log.flush.scheduler.interval.ms when unset.", {}, true, true},
    {"log.flush.scheduler.interval.ms", T::int64, kLongMax, I::high, "How often the flusher checks for logs to fsync.", {}, false, true},
    {"log.flush.offset.checkpoint.interval.ms", T::int32, "60000", I::high, "How often recovery points are checkpointed.", V::at_least(0), false, true},
    {"log.segment.delete.delay.ms", T::int64, "60000", I::high, "Delay before a deleted segment's files are removed.", V::at_least(0), true, true},
    {"log.preallocate", T::boolean, "false", I::medium, "Preallocate segment files.", {}, true, true},
    {"log.message.timestamp.type", T::string, "CreateTime", I::medium, "CreateTime or LogAppendTime.", V::one_of(kTimestampTypes), true, true},
    {"log.message.timestamp.difference.max.ms", T::int64, kLongMax, I::medium,
     "Largest allowed gap between a CreateTime timestamp and the broker clock (deprecated for the two below).", V::at_least(0), true, true},
    {"log.message.timestamp.before.max.ms", T::int64, kLongMax, I::medium,
     "How far behind the broker clock a CreateTime timestamp may be.", V::at_least(0), true, true},
    {"log.message.timestamp.after.max.ms", T::int64, kLongMax, I::medium,
     "How far ahead of the broker clock a CreateTime timestamp may be.", V::at_least(0), true, true},
    {"log.message.downconversion.enable", T::boolean, "true", I::low, "Accepted for compatibility.", {}, true, false},
    {"log.message.format.version", T::string, "3.0-IV1", I::medium, "Accepted for compatibility; Weir writes v2 batches.", {}, false, false},
    {"num.recovery.threads.per.data.dir", T::int32, "1", I::high,
     "Threads per log dir that open and recover partition logs at startup; every log dir loads at once. "
     "Read at startup.", V::at_least(1), true, true},

    // Producer state and metrics: no metric reporters yet.
    {"producer.id.expiration.ms", T::int32, "86400000", I::low,
     "How long a partition keeps an idle idempotent producer's state.", V::at_least(1), true, true},
    {"producer.id.expiration.check.interval.ms", T::int32, "600000", I::low,
     "How often idle producers' state is removed.", V::at_least(1), false, true},
    {"transaction.partition.verification.enable", T::boolean, "true", I::low, "Accepted for compatibility.", {}, true, false},
    {"metric.reporters", T::list, "", I::low, "Accepted for compatibility.", {}, true, false},

    // Security. Weir serves PLAINTEXT only: these are validated, stored and
    // described as Kafka does, and otherwise ignored.
    {"principal.builder.class", T::class_name, "org.apache.kafka.common.security.authenticator.DefaultKafkaPrincipalBuilder", I::medium,
     "Accepted for compatibility.", {}, true, false},
    {"ssl.protocol", T::string, "TLSv1.3", I::medium, "Accepted for compatibility.", {}, true, false},
    {"ssl.provider", T::string, std::nullopt, I::medium, "Accepted for compatibility.", {}, true, false},
    {"ssl.cipher.suites", T::list, "", I::medium, "Accepted for compatibility.", {}, true, false},
    {"ssl.enabled.protocols", T::list, "TLSv1.2,TLSv1.3", I::medium, "Accepted for compatibility.", {}, true, false},
    {"ssl.keystore.type", T::string, "JKS", I::medium, "Accepted for compatibility.", {}, true, false},
    {"ssl.keystore.location", T::string, std::nullopt, I::medium, "Accepted for compatibility.", {}, true, false},
    {"ssl.keystore.password", T::password, std::nullopt, I::medium, "Accepted for compatibility.", {}, true, false},
    {"ssl.key.password", T::password, std::nullopt, I::medium, "Accepted for compatibility.", {}, true, false},
    {"ssl.keystore.key", T::password, std::nullopt, I::medium, "Accepted for compatibility.", {}, true, false},
    {"ssl.keystore.certificate.chain", T::password, std::nullopt, I::medium, "Accepted for compatibility.", {}, true, false},
    {"ssl.truststore.type", T::string, "JKS", I::medium, "Accepted for compatibility.", {}, true, false},
    {"ssl.truststore.location", T::string, std::nullopt, I::medium, "Accepted for compatibility.", {}, true, false},
    {"ssl.truststore.password", T::password, std::nullopt, I::medium, "Accepted for compatibility.", {}, true, false},
    {"ssl.truststore.certificates", T::password, std::nullopt, I::medium, "Accepted for compatibility.", {}, true, false},
    {"ssl.keymanager.algorithm", T::string, "SunX509", I::medium, "Accepted for compatibility.", {}, true, false},
    {"ssl.trustmanager.algorithm", T::string, "PKIX", I::medium, "Accepted for compatibility.", {}, true, false},
    {"ssl.endpoint.identification.algorithm", T::string, "https", I::low, "Accepted for compatibility.", {}, true, false},
    {"ssl.secure.random.implementation", T::string, std::nullopt, I::low, "Accepted for compatibility.", {}, true, false},
    {"ssl.client.auth", T::string, "none", I::medium, "Accepted for compatibility.", V::one_of(kSslClientAuth), true, false},
    {"ssl.engine.factory.class", T::class_name, std::nullopt, I::low, "Accepted for compatibility.", {}, true, false},
    {"sasl.mechanism.inter.broker.protocol", T::string, "GSSAPI", I::medium, "Accepted for compatibility.", {}, true, false},
    {"sasl.jaas.config", T::password, std::nullopt, I::medium, "Accepted for compatibility.", {}, true, false},
    {"sasl.enabled.mechanisms", T::list, "GSSAPI", I::medium, "Accepted for compatibility.", {}, true, false},
    {"sasl.kerberos.service.name", T::string, std::nullopt, I::medium, "Accepted for compatibility.", {}, true, false},
    {"sasl.kerberos.kinit.cmd", T::string, "/usr/bin/kinit", I::medium, "Accepted for compatibility.", {}, true, false},
    {"sasl.kerberos.ticket.renew.window.factor", T::float64, "0.8", I::medium, "Accepted for compatibility.", {}, true, false},
    {"sasl.kerberos.ticket.renew.jitter", T::float64, "0.05", I::medium, "Accepted for compatibility.", {}, true, false},
    {"sasl.kerberos.min.time.before.relogin", T::int64, "60000", I::medium, "Accepted for compatibility.", {}, true, false},
    {"sasl.kerberos.principal.to.local.rules", T::list, "DEFAULT", I::medium, "Accepted for compatibility.", {}, true, false},
    {"sasl.login.refresh.window.factor", T::float64, "0.8", I::medium, "Accepted for compatibility.", {}, true, false},
    {"sasl.login.refresh.window.jitter", T::float64, "0.05", I::medium, "Accepted for compatibility.", {}, true, false},
    {"sasl.login.refresh.min.period.seconds", T::int16, "60", I::medium, "Accepted for compatibility.", {}, true, false},
    {"sasl.login.refresh.buffer.seconds", T::int16, "300", I::medium, "Accepted for compatibility.", {}, true, false},

    // Group coordinator and offsets.
    {"group.initial.rebalance.delay.ms", T::int32, "3000", I::medium, "Wait for more members before the first rebalance of an empty group.", {}, false, true},
    {"group.min.session.timeout.ms", T::int32, "6000", I::medium, "Smallest session timeout a member may ask for.", {}, false, true},
    {"group.max.session.timeout.ms", T::int32, "1800000", I::medium, "Largest session timeout a member may ask for.", {}, false, true},
    {"group.max.size", T::int32, kIntMax, I::medium, "Maximum members of a consumer group.", V::at_least(1), false, true},
    {"offsets.topic.num.partitions", T::int32, "50", I::high, "Partitions of __consumer_offsets (fixed once created).", V::at_least(1), false, true},
    {"offsets.topic.replication.factor", T::int16, "3", I::high,
     "Replication factor of __consumer_offsets (limited to the live brokers on a single node).", V::at_least(1), false, true},
    {"offsets.topic.segment.bytes", T::int32, "104857600", I::high, "Segment size of __consumer_offsets.", V::at_least(1), false, true},
    {"offsets.topic.compression.codec", T::int32, "0", I::high, "Accepted for compatibility.", {}, false, false},
    {"offsets.retention.minutes", T::int32, "10080", I::high, "How long committed offsets of an empty group are kept.", V::at_least(1), false, true},
    {"offsets.retention.check.interval.ms", T::int64, "600000", I::high, "How often expired offsets are removed.", V::at_least(1), false, true},
    {"offsets.commit.timeout.ms", T::int32, "5000", I::high, "Maximum wait for an offset commit to be written.", V::at_least(1), false, true},
    {"offsets.commit.required.acks", T::int16, "-1", I::high, "Accepted for compatibility.", {}, false, false},
    {"offsets.load.buffer.size", T::int32, "5242880", I::high, "Read size when loading offsets.", V::at_least(1), false, true},
    // Transaction coordinator.
    {"transaction.state.log.replication.factor", T::int16, "3", I::high,
     "Replication factor of __transaction_state (limited to the live brokers on a single node).", V::at_least(1), false, true},
    {"transaction.state.log.min.isr", T::int32, "2", I::high, "min.insync.replicas of __transaction_state.", V::at_least(1), false, true},
    {"transaction.state.log.num.partitions", T::int32, "50", I::high, "Partitions of __transaction_state (fixed once created).", V::at_least(1), false, true},
    {"transaction.state.log.segment.bytes", T::int32, "104857600", I::high, "Segment size of __transaction_state.", V::at_least(1), false, true},
    {"transaction.state.log.load.buffer.size", T::int32, "5242880", I::low, "Read size when loading transaction state.", V::at_least(1), false, true},
    {"transaction.max.timeout.ms", T::int32, "900000", I::high, "Largest transaction timeout a producer may ask for.", V::at_least(1), false, true},
    {"transactional.id.expiration.ms", T::int32, "604800000", I::high,
     "How long a transactional id without transaction updates is kept.", V::at_least(1), false, true},
    {"transaction.abort.timed.out.transaction.cleanup.interval.ms", T::int32, "10000", I::low,
     "How often transactions past their timeout are aborted.", V::at_least(1), false, true},
    {"transaction.remove.expired.transaction.cleanup.interval.ms", T::int32, "3600000", I::low,
     "How often expired transactional ids are removed.", V::at_least(1), false, true},

    // Cluster (ZooKeeper mode) and replication.
    {"zookeeper.connect", T::string, std::nullopt, I::high, "ZooKeeper connection string; empty runs a single embedded node.", {}, false, true},
    {"zookeeper.session.timeout.ms", T::int32, "18000", I::high, "ZooKeeper session timeout.", {}, false, true},
    {"zookeeper.connection.timeout.ms", T::int32, std::nullopt, I::high, "Wait for the ZooKeeper connection; the session timeout when unset.", {}, false, true},
    {"zookeeper.max.in.flight.requests", T::int32, "10", I::high, "Unacknowledged ZooKeeper requests allowed.", V::at_least(1), false, true},
    {"zookeeper.set.acl", T::boolean, "false", I::high, "Accepted for compatibility.", {}, false, false},
    {"replica.lag.time.max.ms", T::int64, "30000", I::high, "A follower this far behind leaves the ISR.", {}, false, true},
    {"replica.fetch.max.bytes", T::int32, "1048576", I::medium, "Bytes a follower fetches per partition.", V::at_least(0), false, true},
    {"replica.fetch.min.bytes", T::int32, "1", I::high, "Minimum bytes of a follower fetch response.", {}, false, true},
    {"replica.fetch.wait.max.ms", T::int32, "500", I::medium, "Maximum wait of a follower fetch.", {}, false, true},
    {"replica.fetch.backoff.ms", T::int32, "1000", I::medium, "Sleep after a failed follower fetch.", V::at_least(0), false, true},
    {"replica.socket.timeout.ms", T::int32, "30000", I::high, "Socket timeout of follower fetches.", {}, false, true},
    {"replica.high.watermark.checkpoint.interval.ms", T::int64, "5000", I::high, "How often high watermarks are checkpointed.", {}, false, true},
    {"num.replica.fetchers", T::int32, "1", I::high, "Follower fetcher threads.", {}, true, true},
    {"controller.socket.timeout.ms", T::int32, "30000", I::medium, "Socket timeout of controller requests.", {}, false, true},
};

constexpr BrokerSynonym kSegmentBytes[] = {{"log.segment.bytes"}};
constexpr BrokerSynonym kSegmentMs[] = {{"log.roll.ms"}, {"log.roll.hours", SynonymConversion::hours_to_ms}};
constexpr BrokerSynonym kSegmentJitterMs[] = {{"log.roll.jitter.ms"}, {"log.roll.jitter.hours", SynonymConversion::hours_to_ms}};
constexpr BrokerSynonym kSegmentIndexBytes[] = {{"log.index.size.max.bytes"}};
constexpr BrokerSynonym kFlushMessages[] = {{"log.flush.interval.messages"}};
constexpr BrokerSynonym kFlushMs[] = {{"log.flush.interval.ms"}, {"log.flush.scheduler.interval.ms"}};
constexpr BrokerSynonym kRetentionBytes[] = {{"log.retention.bytes"}};
constexpr BrokerSynonym kRetentionMs[] = {{"log.retention.ms"},
                                          {"log.retention.minutes", SynonymConversion::minutes_to_ms},
                                          {"log.retention.hours", SynonymConversion::hours_to_ms}};
constexpr BrokerSynonym kMaxMessageBytes[] = {{"message.max.bytes"}};
constexpr BrokerSynonym kIndexIntervalBytes[] = {{"log.index.interval.bytes"}};
constexpr BrokerSynonym kDeleteRetentionMs[] = {{"log.cleaner.delete.retention.ms"}};
constexpr BrokerSynonym kMinCompactionLagMs[] = {{"log.cleaner.min.compaction.lag.ms"}};
constexpr BrokerSynonym kMaxCompactionLagMs[] = {{"log.cleaner.max.compaction.lag.ms"}};
constexpr BrokerSynonym kFileDeleteDelayMs[] = {{"log.segment.delete.delay.ms"}};
constexpr BrokerSynonym kMinCleanableRatio[] = {{"log.cleaner.min.cleanable.ratio"}};
constexpr BrokerSynonym kCleanupPolicy[] = {{"log.cleanup.policy"}};
constexpr BrokerSynonym kUncleanLeaderElection[] = {{"unclean.leader.election.enable"}};
constexpr BrokerSynonym kMinInsyncReplicas[] = {{"min.insync.replicas"}};
constexpr BrokerSynonym kCompressionType[] = {{"compression.type"}};
constexpr BrokerSynonym kPreallocate[] = {{"log.preallocate"}};
constexpr BrokerSynonym kMessageFormatVersion[] = {{"log.message.format.version"}};
constexpr BrokerSynonym kTimestampType[] = {{"log.message.timestamp.type"}};
constexpr BrokerSynonym kTimestampDifference[] = {{"log.message.timestamp.difference.max.ms"}};
constexpr BrokerSynonym kTimestampBefore[] = {{"log.message.timestamp.before.max.ms"}};
constexpr BrokerSynonym kTimestampAfter[] = {{"log.message.timestamp.after.max.ms"}};
constexpr BrokerSynonym kDownconversion[] = {{"log.message.downconversion.enable"}};

// The field a topic key sets (the table's last column), from the key's
// canonical value; the field's type picks the conversion.
using storage::LogConfig;

template <auto Field>
void log_field(TopicConfig& config, std::string_view canonical) {
    auto& field = config.log.*Field;
    using Type = std::remove_reference_t<decltype(field)>;
    if constexpr (std::is_same_v<Type, double>) {
        field = as_double(canonical);
    } else {
        static_assert(std::is_integral_v<Type>);
        field = static_cast<Type>(as_int(canonical));
    }
}

void set_cleanup_policy(TopicConfig& config, std::string_view canonical) {
    config.log.cleanup_delete = false;
    config.log.cleanup_compact = false;
    for (const std::string& p : as_list(canonical)) {
        if (p == "delete") config.log.cleanup_delete = true;
        if (p == "compact") config.log.cleanup_compact = true;
    }
}

void set_compression_type(TopicConfig& config, std::string_view canonical) {
    using records::Compression;
    static constexpr std::pair<std::string_view, Compression> kCodecs[] = {{"uncompressed", Compression::none},
                                                                           {"gzip", Compression::gzip},
                                                                           {"snappy", Compression::snappy},
                                                                           {"lz4", Compression::lz4},
                                                                           {"zstd", Compression::zstd}};
    config.log.compression_type.reset();
    for (const auto& [name, codec] : kCodecs)
        if (canonical == name) config.log.compression_type = codec;
}

void set_timestamp_type(TopicConfig& config, std::string_view canonical) {
    config.log.message_timestamp_type = canonical == "LogAppendTime" ? records::TimestampType::log_append_time
                                                                     : records::TimestampType::create_time;
}

void set_unclean_leader_election(TopicConfig& config, std::string_view canonical) {
    config.unclean_leader_election_enable = as_bool(canonical);
}

// Defaults are Kafka's LogConfig defaults; a topic's effective default comes
// from the broker synonyms first (see topic_config.cc). Columns: the key
// (name, type, default, importance, doc, validator, dynamic, used), its
// broker synonyms, the field it sets.
const TopicConfigKey kTopicKeys[] = {
    {{"cleanup.policy", T::list, "delete", I::medium, "delete and/or compact.", V::list_of(kCleanupPolicies), false, true}, kCleanupPolicy, set_cleanup_policy},
    {{"compression.type", T::string, "producer", I::medium, "Compression of stored batches; producer keeps what the client sent.",
      V::one_of(kCompressionTypes), false, true}, kCompressionType, set_compression_type},
    {{"delete.retention.ms", T::int64, "86400000", I::medium, "How long tombstones are kept in a compacted topic.", V::at_least(0), false, true}, kDeleteRetentionMs, log_field<&LogConfig::delete_retention_ms>},
    {{"file.delete.delay.ms", T::int64, "60000", I::medium, "Delay before a deleted segment's files are removed.", V::at_least(0), false, true}, kFileDeleteDelayMs},
    {{"flush.messages", T::int64, kLongMax, I::medium, "Messages appended before a forced fsync.", V::at_least(1), false, true}, kFlushMessages, log_field<&LogConfig::flush_interval_messages>},
    {{"flush.ms", T::int64, kLongMax, I::medium, "Milliseconds before a forced fsync.", V::at_least(0), false, true}, kFlushMs, log_field<&LogConfig::flush_interval_ms>},
    {{"follower.replication.throttled.replicas", T::list, "", I::medium, "Accepted for compatibility.",
      V::custom(check_throttled_replicas), false, false}, {}},
    {{"index.interval.bytes", T::int32, "4096", I::medium, "Bytes between offset index entries.", V::at_least(0), false, true}, kIndexIntervalBytes, log_field<&LogConfig::index_interval_bytes>},
    {{"leader.replication.throttled.replicas", T::list, "", I::medium, "Accepted for compatibility.",
      V::custom(check_throttled_replicas), false, false}, {}},
    {{"max.compaction.lag.ms", T::int64, kLongMax, I::medium, "Maximum age of an uncompacted record.", V::at_least(1), false, true}, kMaxCompactionLagMs, log_field<&LogConfig::max_compaction_lag_ms>},
    {{"max.message.bytes", T::int32, "1048588", I::medium, "Largest record batch accepted.", V::at_least(0), false, true}, kMaxMessageBytes, log_field<&LogConfig::max_message_bytes>},
    {{"message.downconversion.enable", T::boolean, "true", I::low, "Accepted for compatibility.", {}, false, false}, kDownconversion},
    {{"message.format.version", T::string, "3.0-IV1", I::medium, "Accepted for compatibility.", {}, false, false}, kMessageFormatVersion},
    {{"message.timestamp.after.max.ms", T::int64, kLongMax, I::medium,
      "How far ahead of the broker clock a CreateTime timestamp may be.", V::at_least(0), false, true}, kTimestampAfter,
     log_field<&LogConfig::message_timestamp_after_max_ms>},
    {{"message.timestamp.before.max.ms", T::int64, kLongMax, I::medium,
      "How far behind the broker clock a CreateTime timestamp may be.", V::at_least(0), false, true}, kTimestampBefore,
     log_field<&LogConfig::message_timestamp_before_max_ms>},
    {{"message.timestamp.difference.max.ms", T::int64, kLongMax, I::medium,
      "Largest allowed gap between a CreateTime timestamp and the broker clock.", V::at_least(0), false, true}, kTimestampDifference, log_field<&LogConfig::message_timestamp_difference_max_ms>},
    {{"message.timestamp.type", T::string, "CreateTime", I::medium, "CreateTime or LogAppendTime.", V::one_of(kTimestampTypes), false, true}, kTimestampType, set_timestamp_type},
    {{"min.cleanable.dirty.ratio", T::float64, "0.5", I::medium, "Dirty ratio that triggers cleaning.", V::between(0, 1), false, true}, kMinCleanableRatio, log_field<&LogConfig::min_cleanable_dirty_ratio>},
    {{"min.compaction.lag.ms", T::int64, "0", I::medium, "Minimum age of a record before it can be compacted.", V::at_least(0), false, true}, kMinCompactionLagMs, log_field<&LogConfig::min_compaction_lag_ms>},
    {{"min.insync.replicas", T::int32, "1", I::medium, "Replicas that must acknowledge an acks=all produce.", V::at_least(1), false, true}, kMinInsyncReplicas, log_field<&LogConfig::min_insync_replicas>},
    {{"preallocate", T::boolean, "false", I::medium, "Preallocate segment files.", {}, false, true}, kPreallocate},
    {{"retention.bytes", T::int64, "-1", I::medium, "Size above which old segments of a partition are deleted; -1: no limit.", {}, false, true}, kRetentionBytes, log_field<&LogConfig::retention_bytes>},
    {{"retention.ms", T::int64, "604800000", I::medium, "Age after which segments are deleted; -1 keeps them forever.", V::at_least(-1), false, true}, kRetentionMs, log_field<&LogConfig::retention_ms>},
    {{"segment.bytes", T::int32, "1073741824", I::medium, "Size at which a segment is rolled.", V::at_least(14), false, true}, kSegmentBytes, log_field<&LogConfig::segment_bytes>},
    {{"segment.index.bytes", T::int32, "10485760", I::medium, "Maximum size of an offset index file.", V::at_least(4), false, true}, kSegmentIndexBytes, log_field<&LogConfig::segment_index_bytes>},
    {{"segment.jitter.ms", T::int64, "0", I::medium, "Random jitter subtracted from the roll time.", V::at_least(0), false, true}, kSegmentJitterMs},
    {{"segment.ms", T::int64, "604800000", I::medium, "Age at which a segment is rolled.", V::at_least(1), false, true}, kSegmentMs, log_field<&LogConfig::segment_ms>},
    {{"unclean.leader.election.enable", T::boolean, "false", I::medium, "Allow out-of-sync replicas to become leader.", {}, false, true},
     kUncleanLeaderElection, set_unclean_leader_election},
};
// clang-format on

}  // namespace

std::span<const ConfigKey> broker_config_keys() { return kBrokerKeys; }

const ConfigKey* find_broker_config_key(std::string_view name) {
    for (const ConfigKey& k : kBrokerKeys)
        if (k.name == name) return &k;
    return nullptr;
}

std::string broker_value_or_default(const ConfigMap& props, std::string_view key) {
    if (auto it = props.find(key); it != props.end()) return it->second;
    const auto* k = find_broker_config_key(key);
    return k && k->default_value ? std::string(*k->default_value) : std::string();
}

std::optional<std::string_view> listener_override_base(std::string_view name) {
    constexpr std::string_view kPrefix = "listener.name.";
    if (!name.starts_with(kPrefix)) return std::nullopt;
    name.remove_prefix(kPrefix.size());
    const std::size_t dot = name.find('.');
    if (dot == std::string_view::npos) return std::nullopt;
    return name.substr(dot + 1);
}

std::vector<std::string_view> broker_config_synonyms(std::string_view name, bool match_listener_override) {
    if (auto base = listener_override_base(name); base && match_listener_override) {
        // SASL mechanism configs are listener.name.<l>.<mechanism>.<key>.
        constexpr std::string_view kMechanismConfigs[] = {"sasl.jaas.config", "sasl.login.callback.handler.class",
                                                          "sasl.login.class", "sasl.server.callback.handler.class",
                                                          "connections.max.reauth.ms"};
        for (std::string_view m : kMechanismConfigs)
            if (base->ends_with(m)) return {name, m};
        return {name, *base};
    }
    if (name == "log.roll.ms" || name == "log.roll.hours") return {"log.roll.ms", "log.roll.hours"};
    if (name == "log.roll.jitter.ms" || name == "log.roll.jitter.hours")
        return {"log.roll.jitter.ms", "log.roll.jitter.hours"};
    // Only the ms key has the scheduler interval as its fallback.
    if (name == "log.flush.interval.ms") return {"log.flush.interval.ms", "log.flush.scheduler.interval.ms"};
    if (name == "log.retention.ms" || name == "log.retention.minutes" || name == "log.retention.hours")
        return {"log.retention.ms", "log.retention.minutes", "log.retention.hours"};
    return {name};
}

std::span<const TopicConfigKey> topic_config_keys() { return kTopicKeys; }

const TopicConfigKey* find_topic_config_key(std::string_view name) {
    for (const TopicConfigKey& k : kTopicKeys)
        if (k.key.name == name) return &k;
    return nullptr;
}

std::string_view topic_config_name_for(std::string_view broker_key) {
    for (const TopicConfigKey& k : kTopicKeys)
        if (!k.synonyms.empty() && k.synonyms.front().name == broker_key) return k.key.name;
    return {};
}

}  // namespace weir::config
