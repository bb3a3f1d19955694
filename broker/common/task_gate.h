#pragma once
// The background work an object starts: callbacks it posts or hands to
// timers and to other threads (ZooKeeper's), and coroutines it spawns. One
// gate per owner replaces the ad hoc "alive" tokens: close() (the owner's
// stop or destructor) turns every callback not yet run into a no-op, from
// any thread; a coroutine checks open() after each suspension and returns;
// wait() resolves once every coroutine spawned through the gate has ended,
// so a shutdown that awaits it leaves nothing running that refers to the
// owner. Spawned coroutines and wait() belong to the gate's executor.
#include <atomic>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <cstddef>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <utility>

namespace weir::common {

class TaskGate {
    struct State;

public:
    explicit TaskGate(boost::asio::any_io_executor executor, std::string name = "background task");
    TaskGate(const TaskGate&) = delete;
    TaskGate& operator=(const TaskGate&) = delete;
    // Closes: work still queued finds the gate closed.
    ~TaskGate();

    // What work that may outlive the owner holds instead of the owner.
    class Pass {
    public:
        [[nodiscard]] bool open() const;

    private:
        friend class TaskGate;
        explicit Pass(std::shared_ptr<const State> state) : state_(std::move(state)) {}
        std::shared_ptr<const State> state_;
    };
    [[nodiscard]] Pass pass() const { return Pass(state_); }
    [[nodiscard]] bool open() const;
    void close() noexcept;

    // `f`, made to do nothing once the gate is closed (checked when it runs).
    template <typename F>
    [[nodiscard]] auto guard(F f) const {
        return [pass = pass(), f = std::move(f)](auto&&... args) mutable {
            if (pass.open()) f(std::forward<decltype(args)>(args)...);
        };
    }
    // `f`, made to run on the gate's executor, with copies of the arguments it
    // is called with, whatever thread calls it (a ZooKeeper callback), and
    // only if the gate is still open then. It touches nothing of the owner's.
    template <typename F>
    [[nodiscard]] auto on_executor(F f) const {
        return [executor = executor_, pass = pass(), f = std::move(f)](const auto&... args) {
            boost::asio::post(executor, [pass, f, args...]() mutable {
                if (pass.open()) f(args...);
            });
        };
    }
    // Runs `f` on the gate's executor later, unless the gate closes first.
    template <typename F>
    void post(F f) const {
        boost::asio::post(executor_, guard(std::move(f)));
    }
    // Starts `task` on the executor, counted until it ends (an exception it
    // ends with is logged). Nothing starts once the gate is closed. A lambda
    // coroutine goes in as the lambda (`f`, called with no arguments), so
    // that its captures live as long as the coroutine does.
    void spawn(boost::asio::awaitable<void> task) {
        if (open()) boost::asio::co_spawn(executor_, std::move(task), started());
    }
    template <typename F>
    void spawn(F f) {
        if (open()) boost::asio::co_spawn(executor_, std::move(f), started());
    }
    // Coroutines spawned and not yet ended.
    [[nodiscard]] std::size_t running() const;
    // Resolves once running() is 0; close() first, so that none starts after.
    boost::asio::awaitable<void> wait();

    [[nodiscard]] const boost::asio::any_io_executor& executor() const { return executor_; }

private:
    // Counts a task in; the handler counts it out when it ends.
    std::function<void(std::exception_ptr)> started();

    boost::asio::any_io_executor executor_;
    std::shared_ptr<State> state_;
};

}  // namespace weir::common
