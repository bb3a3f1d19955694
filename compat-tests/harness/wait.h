#pragma once
#include <chrono>
#include <thread>

namespace weir::compat {

// Polls `done` until it returns true or `timeout` passes; returns its last value.
template <typename Pred>
bool wait_until(Pred done, std::chrono::milliseconds timeout,
                std::chrono::milliseconds interval = std::chrono::milliseconds(20)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!done()) {
        if (std::chrono::steady_clock::now() >= deadline) return done();
        std::this_thread::sleep_for(interval);
    }
    return true;
}

}  // namespace weir::compat
