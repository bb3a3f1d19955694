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
    using Asks = std::map<TopicPartition, Ask>;

    // Fills the request's session id and epoch, its partitions and forgotten
    // topics: every partition when no session is open, else the new and
    // changed ones, and as forgotten those no longer asked for.
    void fill(msg::FetchRequest& request, const Asks& asks);
    // The leader's answer to the last filled request: its top-level error and
    // session id (0: the leader keeps no session, so the next fetch is full).
    void answered(ErrorCode error, std::int32_t session_id);
    // No answer came (connection lost, timeout): the next fetch is full.
    void reset();

    [[nodiscard]] std::int32_t session_id() const { return id_; }
    // The epoch the next fetch carries (0: it opens a session).
    [[nodiscard]] std::int32_t epoch() const { return epoch_; }

private:
    std::int32_t id_ = 0;
    std::int32_t epoch_ = 0;
    Asks in_session_;              // what the leader's session holds
    std::optional<Asks> pending_;  // sent, not answered yet
};

}  // namespace weir::replication
