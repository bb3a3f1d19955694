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

void FollowerFetchSession::want(const TopicPartition& tp, const Ask& ask) {
    wanted_[tp] = ask;
    changed_.insert(tp);
}

void FollowerFetchSession::drop(const TopicPartition& tp) {
    // Even if the session does not hold it yet: a request in flight may add it.
    wanted_.erase(tp);
    changed_.insert(tp);
}

void FollowerFetchSession::fill(msg::FetchRequest& request) {
    request.session_id = id_;
    request.session_epoch = epoch_;
    Sent sent;
    sent.full = id_ == 0;
    auto send = [&](const TopicPartition& tp, const Ask& ask) {
        add_partition(request, tp, ask);
        sent.asks.emplace_back(tp, ask);
    };
    if (sent.full) {
        for (const auto& [tp, ask] : wanted_) send(tp, ask);
    } else {
        for (const auto& tp : changed_) {
            auto wanted = wanted_.find(tp);
            auto held = in_session_.find(tp);
            if (wanted != wanted_.end()) {
                if (held == in_session_.end() || held->second != wanted->second) send(tp, wanted->second);
            } else if (held != in_session_.end()) {
                if (request.forgotten_topics_data.empty() || request.forgotten_topics_data.back().topic != tp.topic)
                    request.forgotten_topics_data.emplace_back().topic = tp.topic;
                request.forgotten_topics_data.back().partitions.push_back(tp.partition);
                sent.forgotten.push_back(tp);
            }
        }
    }
    changed_.clear();
    pending_ = std::move(sent);
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
    if (pending_->full) in_session_.clear();
    for (auto& [tp, ask] : pending_->asks) in_session_[tp] = ask;
    for (const auto& tp : pending_->forgotten) in_session_.erase(tp);
    pending_.reset();
}

void FollowerFetchSession::reset() {
    id_ = 0;
    epoch_ = kInitialEpoch;
    in_session_.clear();
    changed_.clear();  // the next fetch is full
    pending_.reset();
}

std::optional<std::int64_t> FollowerFetchSession::held_offset(const TopicPartition& tp) const {
    auto held = in_session_.find(tp);
    if (held == in_session_.end()) return std::nullopt;
    return held->second.fetch_offset;
}

}  // namespace weir::replication
