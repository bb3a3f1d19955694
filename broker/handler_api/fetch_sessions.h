#pragma once
// Fetch sessions (KIP-227): the broker remembers what a client fetches and
// what it was last told, so incremental fetches carry only changes and get
// back only partitions with something new, and what each partition had to
// read when last read, so incremental fetches read only partitions that may
// have something. Bookkeeping only: no I/O, no reads. Not thread-safe; the
// broker serves requests on one I/O thread.
#include <chrono>
#include <compare>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>

#include "broker/partitions/partition.h"
#include "protocol/wire/reader.h"

namespace weir::handlers {

// A partition within a session: by name before Fetch v13, by topic id from v13
// (the unused half stays empty, so one session never mixes the two).
struct SessionPartitionKey {
    std::string topic;
    wire::Uuid topic_id{};
    std::int32_t partition = 0;

    auto operator<=>(const SessionPartitionKey&) const = default;
};

// Whether an incremental fetch must read a partition: one read to its end
// stays quiet until it changes (its change listener says so) or the client
// sends it again. Every change a fetcher could see notifies (appends, high
// watermark and log start moves, leadership, stop), so a quiet partition
// left unread has nothing for it.
struct ReadWatch {
    partitions::Partition::Subscription subscription;
    std::weak_ptr<partitions::ChangeListeners> session_changes;  // told after `changed` is set
    bool quiet = false;                                          // last read: no error, nothing past the fetch offset
    bool changed = false;                                        // the partition changed since it was last read
};

struct CachedPartition {
    SessionPartitionKey key;
    // What the client last asked for. The fetch offset moves only when the
    // client sends the partition again, as Kafka's session does.
    std::int64_t fetch_offset = 0;
    std::int32_t max_bytes = 0;
    std::int64_t fetcher_log_start_offset = -1;
    // The leader epoch the client expects (Fetch v9+; -1: none), checked at every read.
    std::int32_t current_leader_epoch = -1;
    // What the client was last told; -1 until told (so new partitions are sent).
    std::int64_t high_watermark = -1;
    std::int64_t last_stable_offset = -1;
    std::int64_t log_start_offset = -1;
    // Within a session, never null (shared: a fetch reading it keeps it, even
    // if a pipelined fetch makes the session forget the partition meanwhile).
    std::shared_ptr<ReadWatch> watch;
};

// What one fetch produced for a partition, as far as the session cares.
struct PartitionOutcome {
    bool has_records = false;
    std::int16_t error_code = 0;
    std::int64_t high_watermark = -1;
    std::int64_t last_stable_offset = -1;
    std::int64_t log_start_offset = -1;
};

class FetchSession {
public:
    using TimePoint = std::chrono::steady_clock::time_point;
    using Partitions = std::list<CachedPartition>;

    FetchSession(std::int32_t id, bool uses_topic_ids, bool privileged, TimePoint now);

    [[nodiscard]] std::int32_t id() const { return id_; }
    // The epoch the client must send next.
    [[nodiscard]] std::int32_t epoch() const { return epoch_; }
    [[nodiscard]] bool uses_topic_ids() const { return uses_topic_ids_; }
    [[nodiscard]] bool privileged() const { return privileged_; }
    [[nodiscard]] TimePoint created() const { return created_; }
    [[nodiscard]] TimePoint last_used() const { return last_used_; }
    [[nodiscard]] std::size_t size() const { return partitions_.size(); }
    [[nodiscard]] bool empty() const { return partitions_.empty(); }
    // In fetch order: new partitions join at the end.
    [[nodiscard]] const Partitions& partitions() const { return partitions_; }
    [[nodiscard]] const CachedPartition* find(const SessionPartitionKey& key) const;

    // Adds a partition, or updates the request side of one already present.
    void upsert(const CachedPartition& request_side);
    // Drops a partition the client no longer fetches; false if absent.
    bool forget(const SessionPartitionKey& key);
    // Whether an incremental response must carry this partition: records, an
    // error, or offsets differing from what was last sent. Remembers what is
    // now being sent; an error resets the high watermark so the partition is
    // sent again once the error clears. Partitions that returned records move
    // to the end, so the next fetch's byte budget starts with the others.
    bool record_response(const SessionPartitionKey& key, const PartitionOutcome& outcome);
    void advance_epoch();

    // Whether a follower's fetch now records its position in the partitions
    // it does not read (quiet ones), so that idle partitions keep it in the
    // ISR: once per kRefreshInterval, far below replica.lag.time.max.ms.
    bool refresh_due(TimePoint now);
    static constexpr std::chrono::milliseconds kRefreshInterval{500};
    // Keeps `watch` told of changes to `partition` (a partition recreated
    // under the same name gets a new listener).
    void watch(ReadWatch& watch, partitions::Partition& partition);
    // Notified after any watched partition changes: a parked fetch waits on it.
    [[nodiscard]] partitions::ChangeListeners& changes() { return *changes_; }

private:
    friend class FetchSessionCache;

    std::int32_t id_;
    std::int32_t epoch_;
    bool uses_topic_ids_;
    bool privileged_;
    TimePoint created_;
    TimePoint last_used_;
    Partitions partitions_;
    std::map<SessionPartitionKey, Partitions::iterator> index_;
    std::optional<TimePoint> last_refresh_;
    // Shared with the watches' listeners, which may outlive the session.
    std::shared_ptr<partitions::ChangeListeners> changes_ = std::make_shared<partitions::ChangeListeners>();
};

class FetchSessionCache {
public:
    using Clock = std::function<std::chrono::steady_clock::time_point()>;

    struct Options {
        // max.incremental.fetch.session.cache.slots
        std::size_t max_slots = 1000;
        // min.incremental.fetch.session.eviction.ms
        std::chrono::milliseconds eviction_interval{120'000};
        Clock clock;             // steady_clock::now when empty
        std::uint32_t seed = 0;  // session-id generator seed; 0: random_device
    };

    FetchSessionCache();
    explicit FetchSessionCache(Options options);

    // A new session over `partitions` (request side filled in, response side
    // as just sent), or nullptr when the cache is full and no session may be
    // evicted for it. Makes room as Kafka does: a session idle past the
    // eviction interval first; else one older than that interval with fewer
    // partitions (privileged callers, i.e. followers, may also evict any
    // unprivileged session with fewer partitions).
    std::shared_ptr<FetchSession> create(std::list<CachedPartition> partitions, bool uses_topic_ids, bool privileged);
    // The live session with this id; a session idle past the eviction
    // interval is dropped here and reads as absent.
    std::shared_ptr<FetchSession> find(std::int32_t id);
    bool remove(std::int32_t id);
    // Marks a session as used now; no effect on a session no longer cached.
    void touch(const FetchSession& session);

    [[nodiscard]] std::size_t size() const { return sessions_.size(); }
    [[nodiscard]] const Options& options() const { return options_; }

private:
    using TimePoint = FetchSession::TimePoint;

    [[nodiscard]] TimePoint now() const;
    [[nodiscard]] bool expired(const FetchSession& session, TimePoint at) const;
    void drop_expired(TimePoint at);
    bool evict_for(std::size_t new_size, bool privileged, TimePoint at);
    std::int32_t new_session_id();
    void erase(std::map<std::int32_t, std::shared_ptr<FetchSession>>::iterator it);

    Options options_;
    std::mt19937 random_;
    std::map<std::int32_t, std::shared_ptr<FetchSession>> sessions_;
    // (last used, id): the idlest session first.
    std::set<std::pair<TimePoint, std::int32_t>> by_last_used_;
};

}  // namespace weir::handlers
