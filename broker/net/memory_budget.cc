#include "broker/net/memory_budget.h"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <utility>

namespace weir::net {

namespace asio = boost::asio;

MemoryBudget::MemoryBudget(asio::any_io_executor executor, std::int64_t limit)
    : limit_(limit), released_(std::move(executor)) {
    released_.expires_at(asio::steady_timer::time_point::max());
}

void MemoryBudget::take(std::size_t bytes) { used_ += static_cast<std::int64_t>(bytes); }

void MemoryBudget::give_back(std::size_t bytes) {
    bool was_exhausted = exhausted();
    used_ -= static_cast<std::int64_t>(bytes);
    if (was_exhausted && !exhausted()) released_.cancel();
}

asio::awaitable<void> MemoryBudget::next_release() {
    boost::system::error_code ec;
    co_await released_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

bool MemoryBudget::may_grow(const void* owner) {
    if (!exhausted() || overflow_owner_ == owner) return true;
    if (overflow_owner_ != nullptr) return false;
    overflow_owner_ = owner;
    return true;
}

void MemoryBudget::end_frame(const void* owner) {
    if (overflow_owner_ != owner) return;
    overflow_owner_ = nullptr;
    released_.cancel();
}

BudgetLease& BudgetLease::operator=(BudgetLease&& other) noexcept {
    if (this != &other) {
        reset();
        budget_ = std::move(other.budget_);
        bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
}

void BudgetLease::add(std::size_t bytes) {
    if (!budget_ || bytes == 0) return;
    budget_->take(bytes);
    bytes_ += bytes;
}

void BudgetLease::reset() {
    if (budget_ && bytes_ > 0) budget_->give_back(std::exchange(bytes_, 0));
}

}  // namespace weir::net
