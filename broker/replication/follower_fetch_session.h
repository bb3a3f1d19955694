#pragma once
// A follower's side of a fetch session with one leader (KIP-227; Kafka's
// FetchSessionHandler). The first fetch names every partition and opens a
// session; later fetches name only partitions whose request changed and
// forget those no longer fetched, and the leader answers only partitions
// with something new. Without it each round trip carries every partition the
// follower replicates from that leader, both ways, so an idle partition costs
// the leader and the follower a read, an encode and a decode per round trip
// of any busy one. Bookkeeping only: no I/O.
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "messages/fetch.h"
#include "protocol/errors.h"
#include "protocol/topic_partition.h"

namespace weir::replication {

class FollowerFetchSession {
public:
    // What the follower asks of one partition; a change is sent again.
    struct Ask {
        std::int64_t fetch_offset = 0;
        std::int64_t log_start_offset = -1;
        std::int32_t current_leader_epoch = -1;
        std::int32_t max_bytes = 0;
        bool operator==(const Ask&) const = default;
    };

    // The follower's wishes, kept up to date as they change (a partition
    // ready to fetch, a new offset after an append), so that a round trip
    // costs what changed, not every partition fetched.
    void want(const TopicPartition& tp, const Ask& ask);
    // No longer fetched (gone, or being truncated).
    void drop(const TopicPartition& tp);
    [[nodiscard]] bool empty() const { return wanted_.empty(); }
    // Fills the request's session id and epoch, its partitions and forgotten
    // topics: every wanted partition when no session is open, else those
    // whose ask differs from what the leader's session holds, and as
    // forgotten those it holds but no longer wanted.
    void fill(msg::FetchRequest& request);
    // The leader's answer to the last filled request: its top-level error and
    // session id (0: the leader keeps no session, so the next fetch is full).
    void answered(ErrorCode error, std::int32_t session_id);
    // No answer came (connection lost, timeout): the next fetch is full.
    void reset();
    // The fetch offset the leader's session holds for `tp` (where it reads),
    // if it holds the partition.
    [[nodiscard]] std::optional<std::int64_t> held_offset(const TopicPartition& tp) const;

    [[nodiscard]] std::int32_t session_id() const { return id_; }
    // The epoch the next fetch carries (0: it opens a session).
    [[nodiscard]] std::int32_t epoch() const { return epoch_; }

private:
    struct Sent {
        bool full = false;
        std::vector<std::pair<TopicPartition, Ask>> asks;
        std::vector<TopicPartition> forgotten;
    };

    std::int32_t id_ = 0;
    std::int32_t epoch_ = 0;
    std::map<TopicPartition, Ask> wanted_;
    std::map<TopicPartition, Ask> in_session_;  // what the leader's session holds
    std::set<TopicPartition> changed_;          // wanted or dropped since the last fill
    std::optional<Sent> pending_;               // sent, not answered yet
};

}  // namespace weir::replication
