#pragma once
// The broker-wide budget for request and response bytes held in memory
// (queued.max.request.bytes). Connections take from it as request bytes arrive
// and responses are built, give back when a request is done and a response
// written, and stop reading (are muted) while it is used up. Like Kafka's
// memory pool it is not strict: a connection that was let in may finish its
// frame, so one request larger than the whole budget still gets through.
// Lives on the broker's one I/O thread.
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

namespace weir::net {

class MemoryBudget {
public:
    // limit < 0: unbounded (Kafka's default for queued.max.request.bytes).
    MemoryBudget(boost::asio::any_io_executor executor, std::int64_t limit);

    [[nodiscard]] bool exhausted() const { return limit_ >= 0 && used_ >= limit_; }
    [[nodiscard]] std::int64_t used() const { return used_; }
    [[nodiscard]] std::int64_t limit() const { return limit_; }
    void take(std::size_t bytes);
    void give_back(std::size_t bytes);
    // One frame at a time may grow after the budget is used up, so a request
    // larger than what is left (or than the whole budget) completes instead of
    // waiting forever. True if `owner`'s frame may grow now (claiming that
    // place if needed); end_frame() gives the place back.
    [[nodiscard]] bool may_grow(const void* owner);
    void end_frame(const void* owner);
    // Returns at the next release (or wake_all()); callers re-check.
    boost::asio::awaitable<void> next_release();
    // A frame of `bytes` was freed: the allocator keeps freed heap memory
    // (main.cc keeps big buffers off mmap for fetch speed), so after a large
    // one the owner trims the heap (take_trim_hint(), at most once a period).
    void note_freed_frame(std::size_t bytes) { trim_hint_ = trim_hint_ || bytes >= kLargeFrame; }
    [[nodiscard]] bool take_trim_hint() { return std::exchange(trim_hint_, false); }
    static constexpr std::size_t kLargeFrame = 8u << 20;
    // Wakes every waiter without releasing anything (a connection closing).
    void wake_all() { released_.cancel(); }

private:
    std::int64_t limit_;
    std::int64_t used_ = 0;
    const void* overflow_owner_ = nullptr;
    bool trim_hint_ = false;
    boost::asio::steady_timer released_;  // never expires; cancelled to wake waiters
};

// Bytes taken from a budget, given back on destruction (or earlier by reset()).
// Shares ownership of the budget: leases can outlive the connection that took
// them while an I/O context tears its coroutines down.
class BudgetLease {
public:
    BudgetLease() = default;
    explicit BudgetLease(std::shared_ptr<MemoryBudget> budget) : budget_(std::move(budget)) {}
    BudgetLease(const BudgetLease&) = delete;
    BudgetLease& operator=(const BudgetLease&) = delete;
    BudgetLease(BudgetLease&& other) noexcept : budget_(std::move(other.budget_)), bytes_(other.bytes_) {
        other.bytes_ = 0;
    }
    BudgetLease& operator=(BudgetLease&& other) noexcept;
    ~BudgetLease() { reset(); }

    void add(std::size_t bytes);
    void reset();
    [[nodiscard]] std::size_t bytes() const { return bytes_; }

private:
    std::shared_ptr<MemoryBudget> budget_;
    std::size_t bytes_ = 0;
};

}  // namespace weir::net
