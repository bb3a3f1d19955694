#pragma once
// A ZooKeeper session (the C client, libzookeeper-mt) and the one thread that
// talks to it. Every call runs on that thread through run() (awaitable: the
// caller's I/O thread never blocks on a round trip) or run_sync() (start-up
// and shutdown only). Watches are one-shot, as in ZooKeeper; their events and
// the session's state changes reach the subscribers on the ZooKeeper thread.
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/thread_pool.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace weir::zk {

// A ZooKeeper error other than the outcomes callers branch on (no node, node
// exists, bad version): connection loss, an expired session, a timeout.
class ZkError : public std::runtime_error {
public:
    ZkError(int code, const std::string& what);
    int code() const noexcept { return code_; }
    bool session_expired() const noexcept;

private:
    int code_;
};

// The outcome codes callers branch on.
enum class Result { ok, no_node, node_exists, bad_version, not_empty };

struct Node {
    std::string data;
    std::int32_t version = 0;  // data version (zkVersion)
    std::int32_t children_version = 0;
    std::int64_t ephemeral_owner = 0;  // session id, 0 for persistent nodes
};

enum class CreateMode { persistent, ephemeral, persistent_sequential };

// One operation of an atomic multi-op.
struct Op {
    enum class Kind { create, remove, set, check } kind = Kind::check;
    std::string path;
    std::string data;
    std::int32_t version = -1;  // -1: any
    CreateMode mode = CreateMode::persistent;

    static Op create(std::string path, std::string data, CreateMode mode = CreateMode::persistent) {
        return {Kind::create, std::move(path), std::move(data), -1, mode};
    }
    static Op remove(std::string path, std::int32_t version = -1) {
        return {Kind::remove, std::move(path), {}, version};
    }
    static Op set(std::string path, std::string data, std::int32_t version) {
        return {Kind::set, std::move(path), std::move(data), version};
    }
    static Op check(std::string path, std::int32_t version) { return {Kind::check, std::move(path), {}, version}; }
};

struct MultiResult {
    Result result = Result::ok;  // the first failing op's outcome
    std::size_t failed_op = 0;   // its index when result != ok
};

struct WatchEvent {
    enum class Type { created, deleted, changed, children_changed, session };
    Type type = Type::session;
    std::string path;
    // Session events: connected, connecting (lost, retrying) or expired.
    enum class State { connected, connecting, expired, other } state = State::other;
};

// The calls of one session. Only the client's thread uses it; ZkClient makes
// it.
class ZkSession {
public:
    ZkSession() = default;
    ZkSession(const ZkSession&) = delete;
    ZkSession& operator=(const ZkSession&) = delete;
    ~ZkSession();

    // NONODE: nullopt. With `watch`, a change or deletion of the node (or its
    // creation, when it does not exist yet) is reported once.
    std::optional<Node> get(const std::string& path, bool watch = false);
    // NONODE: nullopt (with `watch`, its creation is reported).
    std::optional<Node> exists(const std::string& path, bool watch = false);
    // Sorted; NONODE: nullopt. With `watch`, a change of the child list is
    // reported once.
    std::optional<std::vector<std::string>> children(const std::string& path, bool watch = false);
    // `created`, if given, receives the node's path (sequential nodes).
    Result create(const std::string& path, std::string_view data, CreateMode mode = CreateMode::persistent,
                  std::string* created = nullptr);
    Result set(const std::string& path, std::string_view data, std::int32_t version = -1);
    Result remove(const std::string& path, std::int32_t version = -1);
    MultiResult multi(const std::vector<Op>& ops);

    // Creates the node and any missing parents (empty); an existing node is
    // left as it is.
    void ensure_path(const std::string& path, std::string_view data = {});
    // Deletes the node and everything under it; missing is fine.
    void remove_recursive(const std::string& path);

    // This session's id (ephemeral owners carry it).
    std::int64_t session_id() const;
    // Round trips made through this session so far (what a pass over the
    // cluster's state costs ZooKeeper).
    std::uint64_t requests() const noexcept { return requests_; }

private:
    friend class ZkClient;
    void* handle_ = nullptr;  // zhandle_t
    std::vector<char> buffer_;
    std::uint64_t requests_ = 0;
};

class ZkClient {
public:
    using Subscriber = std::function<void(ZkSession&, const WatchEvent&)>;

    struct Options {
        // host:port[,host:port...][/chroot]; a missing chroot is created.
        std::string connect;
        std::chrono::milliseconds session_timeout{18000};
        std::chrono::milliseconds connection_timeout{18000};
    };

    // Connects, waiting up to connection_timeout; throws ZkError if it
    // cannot.
    explicit ZkClient(Options options);
    ~ZkClient();
    ZkClient(const ZkClient&) = delete;
    ZkClient& operator=(const ZkClient&) = delete;

    // Runs f(ZkSession&) on the ZooKeeper thread; the awaiting coroutine
    // resumes on its own executor with f's result or exception. R must be
    // default-constructible.
    template <typename F>
    auto run(F f) -> boost::asio::awaitable<std::invoke_result_t<F, ZkSession&>> {
        using R = std::invoke_result_t<F, ZkSession&>;
        // A named task, not a temporary inside the co_await: g++ 12 destroys
        // such temporaries twice.
        auto task = [this, f = std::move(f)]() mutable -> boost::asio::awaitable<R> { co_return f(*session_); };
        auto call = boost::asio::co_spawn(worker_.get_executor(), std::move(task), boost::asio::use_awaitable);
        co_return co_await std::move(call);
    }
    // Blocks the calling thread (never the ZooKeeper thread) until done.
    template <typename F>
    auto run_sync(F f) -> std::invoke_result_t<F, ZkSession&> {
        using R = std::invoke_result_t<F, ZkSession&>;
        return boost::asio::co_spawn(
                   worker_.get_executor(),
                   [this, f = std::move(f)]() mutable -> boost::asio::awaitable<R> { co_return f(*session_); },
                   boost::asio::use_future)
            .get();
    }
    // Runs f on the ZooKeeper thread without waiting (watch handling).
    void post(std::function<void(ZkSession&)> f);

    // Replaces an expired session with a new one (ephemeral nodes and watches
    // are gone: the caller registers and reads again). ZooKeeper thread only.
    void reconnect(ZkSession& session);

    // Events reach every subscriber on the ZooKeeper thread, in order.
    void subscribe(Subscriber s);

    const Options& options() const noexcept { return options_; }

private:
    struct Shared;
    void open(ZkSession& session, const std::string& hosts);

    Options options_;
    std::shared_ptr<Shared> shared_;
    std::unique_ptr<ZkSession> session_;
    std::vector<Subscriber> subscribers_;  // ZooKeeper thread only
    boost::asio::thread_pool worker_{1};
};

// Splits "h1:2181,h2:2181/chroot" into hosts and chroot ("" or "/chroot").
std::pair<std::string, std::string> split_chroot(std::string_view connect);

}  // namespace weir::zk
