#include "broker/handler_api/fetch_sessions.h"

#include <limits>
#include <tuple>

namespace weir::handlers {

FetchSession::FetchSession(std::int32_t id, bool uses_topic_ids, bool privileged, TimePoint now)
    : id_(id), epoch_(1), uses_topic_ids_(uses_topic_ids), privileged_(privileged), created_(now), last_used_(now) {}

const CachedPartition* FetchSession::find(const SessionPartitionKey& key) const {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &*it->second;
}

void FetchSession::upsert(const CachedPartition& request_side) {
    auto it = index_.find(request_side.key);
    if (it == index_.end()) {
        partitions_.push_back(request_side);
        partitions_.back().watch = std::make_shared<ReadWatch>();
        index_.emplace(request_side.key, std::prev(partitions_.end()));
        return;
    }
    auto& cached = *it->second;
    cached.watch->quiet = false;  // read at the offset the client sends now
    cached.fetch_offset = request_side.fetch_offset;
    cached.max_bytes = request_side.max_bytes;
    cached.fetcher_log_start_offset = request_side.fetcher_log_start_offset;
    cached.current_leader_epoch = request_side.current_leader_epoch;
}

bool FetchSession::forget(const SessionPartitionKey& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return false;
    partitions_.erase(it->second);
    index_.erase(it);
    return true;
}

bool FetchSession::record_response(const SessionPartitionKey& key, const PartitionOutcome& outcome) {
    auto it = index_.find(key);
    if (it == index_.end()) return false;
    auto& cached = *it->second;
    bool must_respond = outcome.has_records || outcome.error_code != 0;
    if (cached.high_watermark != outcome.high_watermark) {
        must_respond = true;
        cached.high_watermark = outcome.high_watermark;
    }
    if (cached.last_stable_offset != outcome.last_stable_offset) {
        must_respond = true;
        cached.last_stable_offset = outcome.last_stable_offset;
    }
    if (cached.log_start_offset != outcome.log_start_offset) {
        must_respond = true;
        cached.log_start_offset = outcome.log_start_offset;
    }
    if (outcome.error_code != 0) cached.high_watermark = -1;
    if (outcome.has_records) partitions_.splice(partitions_.end(), partitions_, it->second);
    return must_respond;
}

bool FetchSession::refresh_due(TimePoint now) {
    if (last_refresh_ && now - *last_refresh_ < kRefreshInterval) return false;
    last_refresh_ = now;
    return true;
}

void FetchSession::watch(ReadWatch& watch, partitions::Partition& partition) {
    if (watch.subscription.partition().get() == &partition) return;  // not a predecessor of the same name
    watch.session_changes = changes_;
    // The listener lives in `watch` (its subscription), so `w` outlives it.
    watch.subscription = partition.subscribe([w = &watch] {
        w->changed = true;
        if (auto changes = w->session_changes.lock()) changes->notify();
    });
}

void FetchSession::advance_epoch() {
    // Epochs wrap to 1: 0 opens a session and -1 closes one.
    epoch_ = epoch_ == std::numeric_limits<std::int32_t>::max() ? 1 : epoch_ + 1;
}

FetchSessionCache::FetchSessionCache() : FetchSessionCache(Options{}) {}

FetchSessionCache::FetchSessionCache(Options options) : options_(std::move(options)) {
    random_.seed(options_.seed != 0 ? options_.seed : std::random_device{}());
}

FetchSessionCache::TimePoint FetchSessionCache::now() const {
    return options_.clock ? options_.clock() : std::chrono::steady_clock::now();
}

bool FetchSessionCache::expired(const FetchSession& session, TimePoint at) const {
    return at - session.last_used_ > options_.eviction_interval;
}

void FetchSessionCache::erase(std::map<std::int32_t, std::shared_ptr<FetchSession>>::iterator it) {
    by_last_used_.erase({it->second->last_used_, it->first});
    sessions_.erase(it);
}

void FetchSessionCache::drop_expired(TimePoint at) {
    while (!by_last_used_.empty()) {
        auto idlest = sessions_.find(by_last_used_.begin()->second);
        if (!expired(*idlest->second, at)) break;
        erase(idlest);
    }
}

bool FetchSessionCache::evict_for(std::size_t new_size, bool privileged, TimePoint at) {
    // Kafka's ranking: (privileged, size, id) — the lowest eligible session
    // goes if the newcomer outranks it; a newcomer's id counts as 0, so an
    // equal-sized newcomer never displaces anyone.
    using Rank = std::tuple<bool, std::size_t, std::int32_t>;
    auto victim = sessions_.end();
    Rank victim_rank{};
    for (auto it = sessions_.begin(); it != sessions_.end(); ++it) {
        const auto& s = *it->second;
        const bool old = at - s.created_ > options_.eviction_interval;
        if (!(old || (privileged && !s.privileged_))) continue;
        Rank rank{s.privileged_, s.size(), s.id_};
        if (victim == sessions_.end() || rank < victim_rank) {
            victim = it;
            victim_rank = rank;
        }
    }
    if (victim == sessions_.end() || Rank{privileged, new_size, 0} < victim_rank) return false;
    erase(victim);
    return true;
}

std::int32_t FetchSessionCache::new_session_id() {
    std::uniform_int_distribution<std::int32_t> ids(1, std::numeric_limits<std::int32_t>::max());
    while (true) {
        auto id = ids(random_);
        if (!sessions_.contains(id)) return id;
    }
}

std::shared_ptr<FetchSession> FetchSessionCache::create(std::list<CachedPartition> partitions, bool uses_topic_ids,
                                                        bool privileged) {
    if (options_.max_slots == 0) return nullptr;
    const auto at = now();
    drop_expired(at);
    if (sessions_.size() >= options_.max_slots && !evict_for(partitions.size(), privileged, at)) return nullptr;
    auto session = std::make_shared<FetchSession>(new_session_id(), uses_topic_ids, privileged, at);
    for (auto& p : partitions) {
        if (!p.watch) p.watch = std::make_shared<ReadWatch>();
        auto [it, inserted] = session->index_.try_emplace(p.key);
        if (inserted) {
            session->partitions_.push_back(std::move(p));
            it->second = std::prev(session->partitions_.end());
        } else {
            *it->second = std::move(p);
        }
    }
    sessions_.emplace(session->id_, session);
    by_last_used_.emplace(at, session->id_);
    return session;
}

std::shared_ptr<FetchSession> FetchSessionCache::find(std::int32_t id) {
    auto it = sessions_.find(id);
    if (it == sessions_.end()) return nullptr;
    if (expired(*it->second, now())) {
        erase(it);
        return nullptr;
    }
    return it->second;
}

bool FetchSessionCache::remove(std::int32_t id) {
    auto it = sessions_.find(id);
    if (it == sessions_.end()) return false;
    erase(it);
    return true;
}

void FetchSessionCache::touch(const FetchSession& session) {
    auto it = sessions_.find(session.id_);
    if (it == sessions_.end() || it->second.get() != &session) return;
    auto& s = *it->second;
    by_last_used_.erase({s.last_used_, s.id_});
    s.last_used_ = now();
    by_last_used_.emplace(s.last_used_, s.id_);
}

}  // namespace weir::handlers
