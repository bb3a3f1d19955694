// The ReplicaManager's read path (Kafka's fetchMessages + DelayedFetch):
// reads a fetch's partitions within its byte budgets and parks it until
// min_bytes are there, something fails, its deadline passes or the broker
// stops. Woken by the partitions it reads (appends, high watermark moves,
// leadership changes), never by polling.
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "broker/partitions/replica_manager.h"

namespace weir::partitions {

namespace asio = boost::asio;

asio::awaitable<FetchOutcome> ReplicaManager::fetch(FetchParams params, std::vector<FetchPartition> partitions,
                                                    RecordsConverter convert) {
    FetchOutcome outcome;
    auto& results = outcome.partitions;
    results.resize(partitions.size());
    bool unresolved = false;
    std::vector<std::shared_ptr<Partition>> readable;
    for (const auto& p : partitions) {
        if (p.partition)
            readable.push_back(p.partition);
        else
            unresolved = true;
    }

    if (params.replica_id >= 0)
        for (const auto& p : partitions)
            if (p.partition) follower_fetched(*p.partition, params.replica_id, p.fetch_offset);

    while (true) {
        bool any_error = unresolved;
        std::int64_t total = 0;
        bool first_data = true;
        for (std::size_t i = 0; i < partitions.size(); ++i) {
            const auto& in = partitions[i];
            if (!in.partition) continue;
            auto& out = results[i];
            out = FetchPartitionResult{};
            const std::int64_t remaining = params.max_bytes - total;
            if (remaining <= 0 && !first_data) {
                // The response is full: the partition reports its offsets only.
                out.high_watermark = in.partition->high_watermark();
                out.last_stable_offset = in.partition->last_stable_offset();
                out.log_start_offset = in.partition->log_start_offset();
                continue;
            }
            ReadOptions options;
            options.max_bytes =
                static_cast<std::size_t>(std::max<std::int64_t>(0, std::min<std::int64_t>(in.max_bytes, remaining)));
            // KIP-74: the first batch of the first partition with data comes back
            // whole even if larger than the limits, so a consumer never stalls.
            options.min_one_batch = first_data;
            options.isolation = params.isolation;
            options.current_leader_epoch = in.current_leader_epoch;
            options.zero_copy = params.zero_copy;
            auto read = in.partition->read(in.fetch_offset, options);
            out.high_watermark = read.high_watermark;
            out.last_stable_offset = read.last_stable_offset;
            out.log_start_offset = read.log_start_offset;
            out.aborted_transactions = std::move(read.aborted_transactions);
            out.error = read.error;
            if (out.error == ErrorCode::none && !read.records.empty() && convert) out.error = convert(read.records);
            if (out.error != ErrorCode::none) {
                any_error = true;
                continue;
            }
            const auto end = params.isolation == FetchIsolation::log_end         ? read.log_end_offset
                             : params.isolation == FetchIsolation::txn_committed ? read.last_stable_offset
                                                                                 : read.high_watermark;
            out.at_end = read.records.empty() && in.fetch_offset >= end;
            if (!read.records.empty()) {
                total += static_cast<std::int64_t>(read.records.size());
                first_data = false;
            }
            out.records = std::move(read.records);
        }
        if (any_error || total >= params.min_bytes || (total > 0 && total >= params.max_bytes) ||
            std::chrono::steady_clock::now() >= params.deadline || (readable.empty() && !params.wake_on) || stopping_)
            break;
        if (params.wake_on) {
            // The session watches every partition read here, and the others.
            co_await wait_for_change({}, params.deadline, params.wake_on);
            outcome.woken = true;
            break;
        }
        co_await wait_for_change(readable, params.deadline);
    }
    co_return outcome;
}

asio::awaitable<void> ReplicaManager::wait_for_change(std::vector<std::shared_ptr<Partition>> partitions,
                                                      std::chrono::steady_clock::time_point deadline,
                                                      ChangeListeners* also) {
    if (stopping_) co_return;
    asio::steady_timer timer(executor_, deadline);
    // Declared after the timer: they unsubscribe before it goes, even when the
    // frame is destroyed unresumed (shutdown).
    std::vector<Partition::Subscription> subscriptions;
    subscriptions.reserve(partitions.size());
    for (const auto& partition : partitions)
        subscriptions.push_back(partition->subscribe([&timer] { timer.cancel(); }));
    struct Also {
        ChangeListeners* listeners;
        ChangeListeners::Id id;
        ~Also() {
            if (listeners) listeners->remove(id);
        }
    } also_subscription{also, also ? also->add([&timer] { timer.cancel(); }) : 0};
    boost::system::error_code ec;
    co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

}  // namespace weir::partitions
