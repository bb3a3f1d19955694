#pragma once
// One client connection: a reader coroutine that frames requests and starts
// each one as soon as it arrives (pipelining), except after a barrier still
// running (see RequestHandler::is_barrier), and a writer coroutine that
// sends responses strictly in request order. The reader stops reading while
// too many requests or response bytes are outstanding, so a slow or stalled
// client cannot make the broker buffer without bound. Records that a response
// leaves in their files go from the page cache to the socket (sendfile) and
// cost the broker no memory while they wait; sendfile has no MSG_NOSIGNAL, so
// the process must ignore SIGPIPE (main does).
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <deque>
#include <memory>
#include <optional>
#include <string_view>

#include "broker/common/receive_watermark.h"
#include "broker/net/connection_quotas.h"
#include "broker/net/memory_budget.h"
#include "broker/net/request_handler.h"

namespace weir::net {

struct ConnectionLimits {
    std::int32_t max_request_bytes = 104857600;  // socket.request.max.bytes
    std::size_t max_in_flight_requests = 64;
    std::size_t max_pending_response_bytes = 64u << 20;
    std::chrono::milliseconds max_idle{600000};  // connections.max.idle.ms
    // weir.connection.stall.timeout.ms: a client that stops sending in the
    // middle of a request frame, or stops reading in the middle of a response,
    // is closed after this long (its own request.timeout.ms has long given up).
    std::chrono::milliseconds stall_timeout{30000};
};

class Connection : public std::enable_shared_from_this<Connection> {
public:
    // `budget` (may be null: unbounded) is shared by every connection of the
    // broker; `slot` is this connection's place in the connection quotas.
    Connection(boost::asio::ip::tcp::socket socket, RequestHandler& handler, ConnectionLimits limits,
               ConnectionInfo info, std::shared_ptr<MemoryBudget> budget = nullptr, ConnectionSlot slot = {});
    void start();
    void close();
    [[nodiscard]] bool is_open() const { return !closed_; }

private:
    struct Slot {
        bool done = false;      // the response is ready for the writer
        bool finished = false;  // the handler returned or threw: what requests behind a barrier wait for
        std::optional<wire::Frame> response;
        BudgetLease memory;  // the request's bytes until it is handled, then the response's until written
    };
    using SlotPtr = std::shared_ptr<Slot>;

    boost::asio::awaitable<void> read_loop();
    boost::asio::awaitable<void> write_loop();
    // Writes `frames` in order: their bytes gathered into as few writes as
    // possible, their file regions with sendfile. False once the socket fails.
    boost::asio::awaitable<bool> write_frames(const std::vector<std::shared_ptr<Slot>>& frames);
    boost::asio::awaitable<bool> write_buffers(std::vector<boost::asio::const_buffer>& buffers);
    boost::asio::awaitable<bool> send_region(const wire::FileRegion& region);
    boost::asio::awaitable<void> idle_watchdog();
    // Reads a body of `size` bytes, growing the buffer as bytes arrive (never
    // the declared size up front) and taking them from the budget.
    boost::asio::awaitable<std::shared_ptr<wire::Bytes>> read_body(std::size_t size, BudgetLease& lease);
    boost::asio::awaitable<void> stall_watchdog(boost::asio::steady_timer& deadline, std::string_view what);
    void arm(boost::asio::steady_timer& deadline) const;
    BudgetLease response_lease(std::size_t bytes);
    // `barrier`: the last barrier that arrived before this request and was
    // still running then (null if none); the request starts after it.
    boost::asio::awaitable<void> process(SlotPtr slot, SlotPtr barrier, std::shared_ptr<const wire::Bytes> frame);
    void finish(Slot& slot);
    std::size_t pending_response_bytes() const;
    // A response of this connection is being built or waits to be written.
    [[nodiscard]] bool holds_response() const;
    // What this connection's reader and requests wait for on an exhausted
    // budget may have changed without any bytes coming back to it.
    void wake_budget_waiters();

    boost::asio::ip::tcp::socket socket_;
    ReceiveWatermark watermark_;
    RequestHandler& handler_;
    ConnectionLimits limits_;
    ConnectionInfo info_;
    std::shared_ptr<MemoryBudget> budget_;
    ConnectionSlot slot_;
    std::deque<std::shared_ptr<Slot>> pending_;
    std::size_t building_ = 0;  // requests in their handler
    bool writing_ = false;      // responses handed to the socket, not all accepted yet
    // The last barrier request read; weak so a finished one's response is freed
    // once written.
    std::weak_ptr<Slot> last_barrier_;
    // Timers used as wake-up signals between the coroutines.
    boost::asio::steady_timer writer_wake_;
    boost::asio::steady_timer reader_wake_;
    boost::asio::steady_timer barrier_done_;  // cancelled when a barrier finishes
    boost::asio::steady_timer idle_timer_;
    boost::asio::steady_timer read_deadline_;   // armed while a frame body is being read
    boost::asio::steady_timer write_deadline_;  // armed while responses are being written
    std::chrono::steady_clock::time_point last_activity_;
    bool closed_ = false;
};

}  // namespace weir::net
