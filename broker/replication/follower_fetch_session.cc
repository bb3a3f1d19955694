#include "broker/replication/follower_fetch_session.h"

#include <limits>

namespace weir::replication {

namespace {

// KIP-227: epoch 0 opens a session; incremental epochs run 1..INT32_MAX and
// wrap to 1.
constexpr std::int32_t kInitialEpoch = 0;

std::int32_t next_epoch(std::int32_t epoch) {
    return epoch == std::numeric_limits<std::int32_t>::max() ? 1 : epoch + 1;
}

void add_partition(msg::FetchRequest& request, const TopicPartition& tp, const FollowerFetchSession::Ask& ask) {
    if (request.topics.empty() || request.topics.back().topic != tp.topic)
        request.topics.emplace_back().topic = tp.topic;
    auto& part = request.topics.back().partitions.emplace_back();
    part.partition = tp.partition;
    part.current_leader_epoch = ask.current_leader_epoch;
    part.fetch_offset = ask.fetch_offset;
    part.log_start_offset = ask.log_start_offset;
    part.partition_max_bytes = ask.max_bytes;
}

}  // namespace

void FollowerFetchSession::fill(msg::FetchRequest& request, const Asks& asks) {
    request.session_id = id_;
    request.session_epoch = epoch_;
    for (const auto& [tp, ask] : asks) {
        auto held = in_session_.find(tp);
        if (id_ == 0 || held == in_session_.end() || held->second != ask) add_partition(request, tp, ask);
    }
    if (id_ != 0) {
        for (const auto& [tp, ask] : in_session_) {
            if (asks.contains(tp)) continue;
            if (request.forgotten_topics_data.empty() || request.forgotten_topics_data.back().topic != tp.topic)
                request.forgotten_topics_data.emplace_back().topic = tp.topic;
            request.forgotten_topics_data.back().partitions.push_back(tp.partition);
        }
    }
    pending_ = asks;
}

void FollowerFetchSession::answered(ErrorCode error, std::int32_t session_id) {
    if (!pending_) return;
    if (error != ErrorCode::none || session_id == 0 || (id_ != 0 && session_id != id_)) {
        // A session the leader no longer knows, an epoch it did not expect,
        // or no session at all: start again with a full fetch.
        reset();
        return;
    }
    epoch_ = id_ == 0 ? next_epoch(kInitialEpoch) : next_epoch(epoch_);
    id_ = session_id;
    in_session_ = std::move(*pending_);
    pending_.reset();
}

void FollowerFetchSession::reset() {
    id_ = 0;
    epoch_ = kInitialEpoch;
    in_session_.clear();
    pending_.reset();
}

}  // namespace weir::replication
