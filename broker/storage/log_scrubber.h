#pragma once
// A background scrub of the logs at rest (beyond Kafka, which only checks
// what recovery reads): walks every closed segment of every hosted log,
// checking each batch's header and CRC, a bounded number of bytes per step,
// so that damage to data nobody reads (bit rot, a bad disk block) is found
// and reported before a consumer or a follower meets it. Read-only. The
// Broker runs steps on its I/O thread at weir.log.scrub.bytes.per.second.
#include <chrono>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <string>
#include <vector>

#include "protocol/topic_partition.h"

namespace weir::storage {

class LogManager;

struct ScrubFinding {
    TopicPartition tp;
    std::filesystem::path file;
    std::uint64_t position = 0;
    std::string problem;
};

struct ScrubTotals {
    std::uint64_t bytes = 0;
    std::uint64_t batches = 0;
    std::uint64_t segments = 0;
    std::uint64_t damaged_segments = 0;
    std::uint64_t passes = 0;  // completed
};

class LogScrubber {
public:
    explicit LogScrubber(const LogManager& logs) : logs_(logs) {}

    // Checks about `max_bytes` more; returns the damage found in this step
    // (one finding per damaged segment and pass). A pass covers the closed
    // segments that exist when it starts; segments deleted meanwhile are
    // skipped, and a new pass starts when one ends.
    std::vector<ScrubFinding> step(std::size_t max_bytes);
    [[nodiscard]] const ScrubTotals& totals() const { return totals_; }
    // Whether the last step finished a pass.
    [[nodiscard]] bool pass_finished() const { return pass_finished_; }

private:
    struct Work {
        TopicPartition tp;
        std::int64_t base_offset = 0;
        std::uint64_t size = 0;  // when planned, or last seen
    };
    void plan_pass();

    const LogManager& logs_;
    std::deque<Work> work_;
    std::uint64_t position_ = 0;  // in work_.front()
    bool pass_finished_ = false;
    bool planned_ = false;
    ScrubTotals totals_;
};

}  // namespace weir::storage
