#include "broker/storage/log_scrubber.h"

#include "broker/storage/log_manager.h"
#include "broker/storage/partition_log.h"

namespace weir::storage {

void LogScrubber::plan_pass() {
    work_.clear();
    position_ = 0;
    for (const auto& tp : logs_.partitions()) {
        auto log = logs_.get(tp);
        if (!log || log->offline() || !log->is_open()) continue;
        const auto& segments = log->segments();
        // The active segment is still being written: checked once it rolls.
        for (auto it = segments.begin(); it != segments.end() && std::next(it) != segments.end(); ++it)
            work_.push_back({tp, it->first, it->second.size()});
    }
    planned_ = true;
}

std::vector<ScrubFinding> LogScrubber::step(std::size_t max_bytes) {
    std::vector<ScrubFinding> found;
    pass_finished_ = false;
    if (!planned_) plan_pass();
    std::size_t budget = max_bytes;
    while (budget > 0 && !work_.empty()) {
        auto& w = work_.front();
        auto log = logs_.get(w.tp);
        const Segment* segment = nullptr;
        if (log && !log->offline() && log->is_open()) {
            if (auto it = log->segments().find(w.base_offset); it != log->segments().end()) segment = &it->second;
        }
        if (!segment) {  // deleted meanwhile
            work_.pop_front();
            position_ = 0;
            continue;
        }
        if (segment->size() != w.size) {
            // Replaced by the cleaner or truncated since: a position in the
            // old file means nothing in the new one.
            w.size = segment->size();
            position_ = 0;
        }
        auto c = segment->check(position_, budget);
        const auto read = c.next - position_;
        totals_.bytes += read;
        totals_.batches += c.batches;
        budget -= std::min<std::size_t>(budget, std::max<std::size_t>(read, 1));
        position_ = c.next;
        if (c.problem) {
            ++totals_.damaged_segments;
            found.push_back({w.tp, segment->log_path(), c.next, *c.problem});
        }
        if (c.done) {
            ++totals_.segments;
            work_.pop_front();
            position_ = 0;
        }
    }
    if (work_.empty()) {
        ++totals_.passes;
        pass_finished_ = true;
        planned_ = false;
    }
    return found;
}

}  // namespace weir::storage
