// Fetch: every version. The ReplicaManager reads and long-polls (parks the
// request until min_bytes are available or max_wait_ms passes, woken by the
// partitions, not by polling); this file resolves partitions, keeps the
// sessions and shapes the answer. v0-v3 predate record batches and get
// down-converted message sets; v9+ name the leader epoch they expect.
// Fetch sessions (KIP-227, v7+): a full fetch with epoch 0 opens a session;
// incremental fetches then send only changed partitions and get back only
// partitions with something new. Session id 0 with epoch -1 is sessionless.
#include <algorithm>
#include <map>
#include <set>

#include "broker/handler_api/fetch_sessions.h"
#include "broker/handlers/handlers.h"
#include "broker/partitions/fetch_conversion.h"
#include "broker/partitions/replica_manager.h"

namespace weir::handlers {

namespace {

constexpr std::int32_t kInvalidSessionId = 0;
constexpr std::int32_t kInitialEpoch = 0;
constexpr std::int32_t kFinalEpoch = -1;

using PartitionData = msg::FetchResponse::PartitionData;

// One partition this fetch reads: from the request (full fetches) or from
// the session (incremental fetches).
struct Target {
    std::size_t topic_index = 0;  // the request topic it came from (full fetches)
    SessionPartitionKey key;
    std::int64_t fetch_offset = 0;
    std::int32_t max_bytes = 0;
    std::int64_t fetcher_log_start_offset = -1;
    std::int32_t current_leader_epoch = partitions::kNoLeaderEpoch;
    std::shared_ptr<partitions::Partition> partition;  // null: `out` holds the error
    std::shared_ptr<ReadWatch> watch;                  // incremental fetches: the session's
    PartitionData out;
};

struct Limits {
    std::int16_t version = 0;
    std::int32_t min_bytes = 0;
    std::int64_t response_max = 0;
    bool read_committed = false;
    std::int32_t replica_id = -1;  // a follower's fetch: >= 0
    std::chrono::steady_clock::time_point deadline;
};

SessionPartitionKey key_for(std::int16_t version, const std::string& topic, const wire::Uuid& topic_id,
                            std::int32_t partition) {
    SessionPartitionKey key;
    if (version >= 13)
        key.topic_id = topic_id;
    else
        key.topic = topic;
    key.partition = partition;
    return key;
}

// Topic ids resolve once per request.
class TopicNames {
public:
    TopicNames(const BrokerContext& broker, std::int16_t version) : broker_(broker), version_(version) {}

    std::optional<std::string> name(const SessionPartitionKey& key) {
        if (version_ < 13) return key.topic;
        auto [it, inserted] = by_id_.try_emplace(key.topic_id);
        if (inserted) it->second = broker_.topic_name_for_id(key.topic_id);
        return it->second;
    }

private:
    const BrokerContext& broker_;
    std::int16_t version_;
    std::map<wire::Uuid, std::optional<std::string>> by_id_;
};

void resolve(BrokerContext& broker, TopicNames& names, const Limits& limits, Target& target) {
    auto& out = target.out;
    out.partition_index = target.key.partition;
    out.high_watermark = -1;
    if (limits.version >= 4 && !limits.read_committed)
        out.aborted_transactions = std::nullopt;
    else if (limits.version >= 4)
        out.aborted_transactions.emplace();
    // A partition the metadata does not know is refused before any read, so
    // its answer keeps the empty aborted list a fresh entry has (Kafka's
    // FetchResponse.partitionResponse); failed reads answer null.
    auto unknown = [&](ErrorCode code) {
        out.error_code = to_int(code);
        if (limits.version >= 4) out.aborted_transactions.emplace();
    };
    auto name = names.name(target.key);
    if (!name) {
        unknown(limits.version >= 13 ? ErrorCode::unknown_topic_id : ErrorCode::unknown_topic_or_partition);
        return;
    }
    target.partition = broker.partitions.get({*name, target.key.partition});
    if (!target.partition) {
        const auto error = broker.local_partition(*broker.metadata.snapshot(), {*name, target.key.partition}).error;
        if (error == ErrorCode::unknown_topic_or_partition)
            unknown(error);
        else
            out.error_code = to_int(error);
    }
}

// Reads every target through the ReplicaManager, long polling until
// min_bytes, an error, the deadline or shutdown; with `wake_on` (a session's
// change signal), until its first wake, and then returns true. Targets
// without a partition carry their resolve error already.
Task<bool> read_targets(BrokerContext& broker, const Limits& limits, std::vector<Target>& targets,
                        partitions::ChangeListeners* wake_on) {
    partitions::FetchParams params;
    params.min_bytes = limits.min_bytes;
    params.max_bytes = limits.response_max;
    params.isolation =
        limits.read_committed ? partitions::FetchIsolation::txn_committed : partitions::FetchIsolation::high_watermark;
    // Followers read up to the log end (Kafka's FetchLogEnd).
    if (limits.replica_id >= 0) params.isolation = partitions::FetchIsolation::log_end;
    params.replica_id = limits.replica_id;
    params.deadline = limits.deadline;
    params.zero_copy = broker.config.fetch_zero_copy;
    params.wake_on = wake_on;
    std::vector<partitions::FetchPartition> reads;
    reads.reserve(targets.size());
    for (const auto& target : targets) {
        auto& read = reads.emplace_back();
        read.partition = target.partition;
        read.fetch_offset = target.fetch_offset;
        read.max_bytes = target.max_bytes;
        read.current_leader_epoch = target.current_leader_epoch;
    }
    auto fetched = co_await broker.partitions.fetch(params, std::move(reads),
                                                    partitions::converter_for_fetch_version(limits.version));
    for (std::size_t i = 0; i < targets.size(); ++i) {
        auto& result = fetched.partitions[i];
        // The last read decides (a woken fetch reads again); unresolved: never at its end.
        if (targets[i].watch) targets[i].watch->quiet = result.at_end;
        if (!targets[i].partition) continue;
        auto& out = targets[i].out;
        out.error_code = to_int(result.error);
        out.high_watermark = result.high_watermark;
        out.last_stable_offset = result.last_stable_offset;
        out.log_start_offset = result.log_start_offset;
        // A failed read answers a consumer no offsets, as Kafka's does; Weir's
        // own followers read the leader's log start from OFFSET_OUT_OF_RANGE.
        if (result.error != ErrorCode::none && limits.replica_id < 0)
            out.high_watermark = out.last_stable_offset = out.log_start_offset = -1;
        // ReplicaManager.readFromLocalLog: a read_committed read reports the
        // transactions aborted in what it returns (an empty list when none);
        // a failed read, like read_uncommitted, reports null.
        if (limits.version >= 4 && limits.read_committed) {
            if (result.error != ErrorCode::none) {
                out.aborted_transactions.reset();
            } else {
                auto& aborted = out.aborted_transactions.emplace();
                if (result.aborted_transactions)
                    for (const auto& txn : *result.aborted_transactions) {
                        auto& entry = aborted.emplace_back();
                        entry.producer_id = txn.producer_id;
                        entry.first_offset = txn.first_offset;
                    }
            }
        }
        out.records = std::move(result.records);
    }
    co_return fetched.woken;
}

Target target_of(const CachedPartition& cached) {
    Target target;
    target.key = cached.key;
    target.fetch_offset = cached.fetch_offset;
    target.max_bytes = cached.max_bytes;
    target.fetcher_log_start_offset = cached.fetcher_log_start_offset;
    target.current_leader_epoch = cached.current_leader_epoch;
    target.watch = cached.watch;
    return target;
}

PartitionOutcome outcome_of(const PartitionData& out) {
    PartitionOutcome o;
    o.has_records = out.records && !out.records->empty();
    o.error_code = out.error_code;
    o.high_watermark = out.high_watermark;
    o.last_stable_offset = out.last_stable_offset;
    o.log_start_offset = out.log_start_offset;
    return o;
}

CachedPartition cached_from(const Target& target) {
    CachedPartition c;
    c.key = target.key;
    c.fetch_offset = target.fetch_offset;
    c.max_bytes = target.max_bytes;
    c.fetcher_log_start_offset = target.fetcher_log_start_offset;
    c.current_leader_epoch = target.current_leader_epoch;
    // After an error the high watermark reads as unknown, so the partition is
    // sent again once the error clears.
    c.high_watermark = target.out.error_code != 0 ? -1 : target.out.high_watermark;
    c.last_stable_offset = target.out.last_stable_offset;
    c.log_start_offset = target.out.log_start_offset;
    return c;
}

CachedPartition request_side(std::int16_t version, const msg::FetchRequest::FetchTopic& topic,
                             const msg::FetchRequest::FetchPartition& partition) {
    CachedPartition c;
    c.key = key_for(version, topic.topic, topic.topic_id, partition.partition);
    c.fetch_offset = partition.fetch_offset;
    c.max_bytes = partition.partition_max_bytes;
    c.fetcher_log_start_offset = partition.log_start_offset;
    c.current_leader_epoch = partition.current_leader_epoch;
    return c;
}

msg::FetchResponse session_error(ErrorCode error) {
    msg::FetchResponse response;
    response.error_code = static_cast<std::int16_t>(error);
    response.session_id = kInvalidSessionId;
    return response;
}

}  // namespace

Task<msg::FetchResponse> handle(BrokerContext& broker, const RequestContext& ctx, msg::FetchRequest request) {
    const auto version = ctx.version();
    Limits limits;
    limits.version = version;
    limits.min_bytes = request.min_bytes;
    limits.response_max = version >= 3 ? std::max<std::int32_t>(request.max_bytes, 0) : INT32_MAX;
    limits.read_committed = version >= 4 && request.isolation_level == 1;
    // Up to v14 in the request, from v15 in its ReplicaState (KIP-903).
    limits.replica_id = version >= 15 ? request.replica_state.replica_id : request.replica_id;
    limits.deadline = ctx.received + std::chrono::milliseconds(std::max<std::int32_t>(request.max_wait_ms, 0));
    TopicNames names(broker, version);
    auto& sessions = broker.fetch_sessions;
    msg::FetchResponse response;

    // Which of the four KIP-227 cases this is (before v7 always sessionless).
    const bool full = version < 7 || request.session_epoch == kInitialEpoch || request.session_epoch == kFinalEpoch;
    std::shared_ptr<FetchSession> session;
    std::int32_t expected_epoch = 0;
    if (full) {
        // A full fetch naming a session closes it (epoch 0 then opens a new one).
        if (version >= 7 && request.session_id != kInvalidSessionId) sessions.remove(request.session_id);
    } else {
        session = sessions.find(request.session_id);
        if (!session) co_return session_error(ErrorCode::fetch_session_id_not_found);
        if (session->epoch() != request.session_epoch) co_return session_error(ErrorCode::invalid_fetch_session_epoch);
        if (session->uses_topic_ids() != (version >= 13))
            co_return session_error(ErrorCode::fetch_session_topic_id_error);
        for (const auto& topic : request.topics)
            for (const auto& partition : topic.partitions) session->upsert(request_side(version, topic, partition));
        for (const auto& topic : request.forgotten_topics_data)
            for (auto partition : topic.partitions)
                session->forget(key_for(version, topic.topic, topic.topic_id, partition));
        if (session->empty()) {
            // Nothing left to fetch: the session ends and the (empty) answer is sessionless.
            sessions.remove(session->id());
            response.session_id = kInvalidSessionId;
            co_return response;
        }
        sessions.touch(*session);
        session->advance_epoch();
        expected_epoch = session->epoch();
    }

    std::vector<Target> targets;
    // The session's partitions this fetch reads (the rest are quiet: nothing
    // new for the fetcher, and their answers would be left out anyway).
    std::set<const ReadWatch*> reading;
    auto read_too = [&](const CachedPartition& cached) {
        if (!reading.insert(cached.watch.get()).second) return;
        auto& target = targets.emplace_back(target_of(cached));
        resolve(broker, names, limits, target);
        if (target.partition) session->watch(*target.watch, *target.partition);
    };
    if (session) {
        for (const auto& cached : session->partitions())
            if (!cached.watch->quiet || cached.watch->changed) read_too(cached);
        if (limits.replica_id >= 0 && session->refresh_due(std::chrono::steady_clock::now())) {
            for (const auto& cached : session->partitions()) {
                if (reading.contains(cached.watch.get())) continue;
                if (auto partition = cached.watch->subscription.partition())
                    broker.partitions.follower_fetched(*partition, limits.replica_id, cached.fetch_offset);
                else
                    read_too(cached);  // gone: read, to answer its error or find its successor
            }
        }
    } else {
        for (std::size_t t = 0; t < request.topics.size(); ++t) {
            for (const auto& partition : request.topics[t].partitions) {
                auto& target = targets.emplace_back(target_of(request_side(version, request.topics[t], partition)));
                target.topic_index = t;
                resolve(broker, names, limits, target);
            }
        }
    }
    while (true) {
        for (auto& target : targets)
            if (target.watch) target.watch->changed = false;  // read below
        if (!co_await read_targets(broker, limits, targets, session ? &session->changes() : nullptr)) break;
        // Woken while parked: read again, with the quiet partitions that changed.
        for (const auto& cached : session->partitions())
            if (cached.watch->changed) read_too(cached);
    }

    if (session && session->epoch() != expected_epoch) {
        // Another fetch on this session was served while this one waited
        // (pipelined or duplicate); answer as Kafka does, touching nothing.
        response = session_error(ErrorCode::invalid_fetch_session_epoch);
        response.session_id = session->id();
    } else if (session) {
        // Only partitions with something new, grouped by consecutive topic.
        response.session_id = session->id();
        for (auto& target : targets) {
            if (!session->record_response(target.key, outcome_of(target.out))) continue;
            const bool same_topic = !response.responses.empty() &&
                                    (version >= 13 ? response.responses.back().topic_id == target.key.topic_id
                                                   : response.responses.back().topic == target.key.topic);
            if (!same_topic) {
                auto& topic_out = response.responses.emplace_back();
                if (version >= 13)
                    topic_out.topic_id = target.key.topic_id;
                else
                    topic_out.topic = target.key.topic;
            }
            response.responses.back().partitions.push_back(std::move(target.out));
        }
    } else {
        // Answers mirror the request's topics, in order.
        response.responses.resize(request.topics.size());
        for (std::size_t t = 0; t < request.topics.size(); ++t) {
            if (version >= 13)
                response.responses[t].topic_id = request.topics[t].topic_id;
            else
                response.responses[t].topic = request.topics[t].topic;
        }
        std::list<CachedPartition> cached;
        const bool open_session = version >= 7 && request.session_epoch == kInitialEpoch && !targets.empty();
        for (auto& target : targets) {
            if (open_session) cached.push_back(cached_from(target));
            response.responses[target.topic_index].partitions.push_back(std::move(target.out));
        }
        if (open_session) {
            const bool follower = request.replica_id >= 0 || request.replica_state.replica_id >= 0;
            auto created = sessions.create(std::move(cached), version >= 13, follower);
            // A full cache leaves the fetch sessionless (id 0), which KIP-227 allows.
            response.session_id = created ? created->id() : kInvalidSessionId;
        }
    }

    // Every partition carries a records field; empty rather than null, as Kafka sends.
    for (auto& topic : response.responses)
        for (auto& p : topic.partitions)
            if (!p.records) p.records = wire::RecordsData();
    co_return response;
}

}  // namespace weir::handlers
