#include "broker/metadata/zookeeper/zk_client.h"

#include <zookeeper/zookeeper.h>

#include <boost/asio/post.hpp>
#include <condition_variable>

#include "broker/common/logging.h"

namespace weir::zk {
namespace {

zhandle_t* zh(void* handle) { return static_cast<zhandle_t*>(handle); }

// ZooKeeper refuses reads of nodes over jute.maxbuffer (1 MiB by default).
constexpr std::size_t kMaxNodeBytes = 1 << 20;

[[noreturn]] void fail(int rc, std::string_view what, const std::string& path) {
    throw ZkError(rc, std::string(what) + " " + path + ": " + zerror(rc));
}

// The outcomes callers branch on; anything else throws.
Result outcome(int rc, std::string_view what, const std::string& path) {
    switch (rc) {
        case ZOK:
            return Result::ok;
        case ZNONODE:
            return Result::no_node;
        case ZNODEEXISTS:
            return Result::node_exists;
        case ZBADVERSION:
            return Result::bad_version;
        case ZNOTEMPTY:
            return Result::not_empty;
        default:
            fail(rc, what, path);
    }
}

int create_flags(CreateMode mode) {
    switch (mode) {
        case CreateMode::persistent:
            return ZOO_PERSISTENT;
        case CreateMode::ephemeral:
            return ZOO_EPHEMERAL;
        case CreateMode::persistent_sequential:
            return ZOO_PERSISTENT_SEQUENTIAL;
    }
    return ZOO_PERSISTENT;
}

Node to_node(std::string data, const Stat& stat) {
    return Node{std::move(data), stat.version, stat.cversion, stat.ephemeralOwner};
}

void log_line(const char* message) { logging::write(logging::Level::warn, std::string("zookeeper: ") + message); }

}  // namespace

ZkError::ZkError(int code, const std::string& what) : std::runtime_error(what), code_(code) {}

bool ZkError::session_expired() const noexcept { return code_ == ZSESSIONEXPIRED; }

std::pair<std::string, std::string> split_chroot(std::string_view connect) {
    auto slash = connect.find('/');
    if (slash == std::string_view::npos) return {std::string(connect), ""};
    std::string chroot(connect.substr(slash));
    while (chroot.size() > 1 && chroot.back() == '/') chroot.pop_back();
    if (chroot == "/") chroot.clear();
    return {std::string(connect.substr(0, slash)), chroot};
}

// ---- ZkSession --------------------------------------------------------------

ZkSession::~ZkSession() {
    if (handle_) zookeeper_close(zh(handle_));
}

std::optional<Node> ZkSession::get(const std::string& path, bool watch) {
    if (buffer_.size() < kMaxNodeBytes) buffer_.resize(kMaxNodeBytes);
    while (true) {
        int len = static_cast<int>(buffer_.size());
        Stat stat{};
        ++requests_;
        int rc = zoo_get(zh(handle_), path.c_str(), watch ? 1 : 0, buffer_.data(), &len, &stat);
        if (rc == ZOK)
            return to_node(len > 0 ? std::string(buffer_.data(), static_cast<std::size_t>(len)) : std::string(), stat);
        if (rc != ZNONODE) fail(rc, "get", path);
        // Leaves a watch for the node's creation. Created between the two
        // calls, the node must be read again: the exists watch then fires only
        // on its next change, which may never come (a partition's first state).
        if (!watch || !exists(path, true)) return std::nullopt;
    }
}

std::optional<Node> ZkSession::exists(const std::string& path, bool watch) {
    Stat stat{};
    ++requests_;
    int rc = zoo_exists(zh(handle_), path.c_str(), watch ? 1 : 0, &stat);
    if (rc == ZNONODE) return std::nullopt;
    if (rc != ZOK) fail(rc, "exists", path);
    return to_node({}, stat);
}

std::optional<std::vector<std::string>> ZkSession::children(const std::string& path, bool watch) {
    String_vector names{};
    ++requests_;
    int rc = zoo_get_children(zh(handle_), path.c_str(), watch ? 1 : 0, &names);
    if (rc == ZNONODE) return std::nullopt;
    if (rc != ZOK) fail(rc, "get children of", path);
    std::vector<std::string> out;
    out.reserve(static_cast<std::size_t>(names.count));
    for (int i = 0; i < names.count; ++i) out.emplace_back(names.data[i]);
    deallocate_String_vector(&names);
    std::sort(out.begin(), out.end());
    return out;
}

Result ZkSession::create(const std::string& path, std::string_view data, CreateMode mode, std::string* created) {
    std::vector<char> name(path.size() + 64);
    ++requests_;
    int rc = zoo_create(zh(handle_), path.c_str(), data.data(), static_cast<int>(data.size()), &ZOO_OPEN_ACL_UNSAFE,
                        create_flags(mode), name.data(), static_cast<int>(name.size()));
    Result r = outcome(rc, "create", path);
    if (r == Result::ok && created) *created = name.data();
    return r;
}

Result ZkSession::set(const std::string& path, std::string_view data, std::int32_t version) {
    ++requests_;
    int rc = zoo_set(zh(handle_), path.c_str(), data.data(), static_cast<int>(data.size()), version);
    return outcome(rc, "set", path);
}

Result ZkSession::remove(const std::string& path, std::int32_t version) {
    ++requests_;
    return outcome(zoo_delete(zh(handle_), path.c_str(), version), "delete", path);
}

MultiResult ZkSession::multi(const std::vector<Op>& ops) {
    std::vector<zoo_op_t> zops(ops.size());
    std::vector<zoo_op_result_t> results(ops.size());
    std::vector<std::vector<char>> names(ops.size());
    for (std::size_t i = 0; i < ops.size(); ++i) {
        const Op& op = ops[i];
        switch (op.kind) {
            case Op::Kind::create:
                names[i].resize(op.path.size() + 64);
                zoo_create_op_init(&zops[i], op.path.c_str(), op.data.data(), static_cast<int>(op.data.size()),
                                   &ZOO_OPEN_ACL_UNSAFE, create_flags(op.mode), names[i].data(),
                                   static_cast<int>(names[i].size()));
                break;
            case Op::Kind::remove:
                zoo_delete_op_init(&zops[i], op.path.c_str(), op.version);
                break;
            case Op::Kind::set:
                zoo_set_op_init(&zops[i], op.path.c_str(), op.data.data(), static_cast<int>(op.data.size()), op.version,
                                nullptr);
                break;
            case Op::Kind::check:
                zoo_check_op_init(&zops[i], op.path.c_str(), op.version);
                break;
        }
    }
    ++requests_;
    int rc = zoo_multi(zh(handle_), static_cast<int>(zops.size()), zops.data(), results.data());
    if (rc == ZOK) return {};
    for (std::size_t i = 0; i < results.size(); ++i) {
        if (results[i].err != ZOK && results[i].err != ZRUNTIMEINCONSISTENCY) {
            return {outcome(results[i].err, "multi-op on", ops[i].path), i};
        }
    }
    return {outcome(rc, "multi-op on", ops.empty() ? std::string() : ops.front().path), 0};
}

void ZkSession::ensure_path(const std::string& path, std::string_view data) {
    if (path.empty() || path == "/") return;
    if (exists(path)) return;
    auto parent_end = path.rfind('/');
    if (parent_end != 0 && parent_end != std::string::npos) ensure_path(path.substr(0, parent_end));
    // NODEEXISTS: another broker created it meanwhile.
    create(path, data);
}

void ZkSession::remove_recursive(const std::string& path) {
    auto kids = children(path);
    if (!kids) return;
    for (const auto& k : *kids) remove_recursive(path == "/" ? "/" + k : path + "/" + k);
    remove(path);
}

std::int64_t ZkSession::session_id() const { return zoo_client_id(zh(handle_))->client_id; }

// ---- ZkClient ---------------------------------------------------------------

// What the C client's event thread reaches: the session state (open() waits
// on it) and the path of events to the ZooKeeper thread.
struct ZkClient::Shared {
    std::mutex mutex;
    std::condition_variable changed;
    int state = 0;
    std::function<void(WatchEvent)> forward;

    static void watcher(zhandle_t* zh, int type, int state, const char* path, void* context);
};

ZkClient::ZkClient(Options options) : options_(std::move(options)), shared_(std::make_shared<Shared>()) {
    static std::once_flag quiet;
    std::call_once(quiet, [] { zoo_set_debug_level(ZOO_LOG_LEVEL_WARN); });
    session_ = std::make_unique<ZkSession>();
    shared_->forward = [this](WatchEvent event) {
        boost::asio::post(worker_, [this, event = std::move(event)] {
            for (const auto& s : subscribers_) s(*session_, event);
        });
    };
    auto [hosts, chroot] = split_chroot(options_.connect);
    run_sync([&](ZkSession& s) {
        if (!chroot.empty()) {
            // Kafka creates its chroot when missing; the C client cannot use
            // one that does not exist.
            open(s, hosts);
            s.ensure_path(chroot);
            zookeeper_close(zh(s.handle_));
            s.handle_ = nullptr;
        }
        open(s, hosts + chroot);
        return 0;
    });
}

ZkClient::~ZkClient() {
    worker_.join();
    session_.reset();
}

void ZkClient::open(ZkSession& session, const std::string& hosts) {
    {
        std::lock_guard lock(shared_->mutex);
        shared_->state = 0;
    }
    auto* h = zookeeper_init2(hosts.c_str(), &Shared::watcher, static_cast<int>(options_.session_timeout.count()),
                              nullptr, shared_.get(), 0, log_line);
    if (!h) throw ZkError(ZSYSTEMERROR, "cannot start a ZooKeeper session with " + hosts);
    session.handle_ = h;
    std::unique_lock lock(shared_->mutex);
    bool up = shared_->changed.wait_for(lock, options_.connection_timeout,
                                        [&] { return shared_->state == ZOO_CONNECTED_STATE; });
    if (!up) {
        lock.unlock();
        zookeeper_close(h);
        session.handle_ = nullptr;
        throw ZkError(ZOPERATIONTIMEOUT, "timed out after " + std::to_string(options_.connection_timeout.count()) +
                                             " ms waiting for a ZooKeeper connection to " + hosts);
    }
}

void ZkClient::reconnect(ZkSession& session) {
    if (session.handle_) zookeeper_close(zh(session.handle_));
    session.handle_ = nullptr;
    auto [hosts, chroot] = split_chroot(options_.connect);
    open(session, hosts + chroot);
}

void ZkClient::post(std::function<void(ZkSession&)> f) {
    boost::asio::post(worker_, [this, f = std::move(f)] { f(*session_); });
}

void ZkClient::subscribe(Subscriber s) {
    boost::asio::post(worker_, [this, s = std::move(s)]() mutable { subscribers_.push_back(std::move(s)); });
}

void ZkClient::Shared::watcher(zhandle_t* /*zh*/, int type, int state, const char* path, void* context) {
    auto* shared = static_cast<Shared*>(context);
    WatchEvent event;
    event.path = path ? path : "";
    if (type == ZOO_SESSION_EVENT) {
        event.type = WatchEvent::Type::session;
        if (state == ZOO_CONNECTED_STATE) {
            event.state = WatchEvent::State::connected;
        } else if (state == ZOO_EXPIRED_SESSION_STATE) {
            event.state = WatchEvent::State::expired;
        } else if (state == ZOO_CONNECTING_STATE || state == ZOO_ASSOCIATING_STATE) {
            event.state = WatchEvent::State::connecting;
        }
    } else if (type == ZOO_CREATED_EVENT) {
        event.type = WatchEvent::Type::created;
    } else if (type == ZOO_DELETED_EVENT) {
        event.type = WatchEvent::Type::deleted;
    } else if (type == ZOO_CHANGED_EVENT) {
        event.type = WatchEvent::Type::changed;
    } else if (type == ZOO_CHILD_EVENT) {
        event.type = WatchEvent::Type::children_changed;
    } else {
        return;
    }
    if (type == ZOO_SESSION_EVENT) {
        std::lock_guard lock(shared->mutex);
        shared->state = state;
        shared->changed.notify_all();
    }
    if (shared->forward) shared->forward(std::move(event));
}

}  // namespace weir::zk
