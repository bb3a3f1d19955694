#include "broker/net/connection.h"

#include <sys/sendfile.h>

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <cerrno>

#include "broker/common/logging.h"

namespace weir::net {

namespace asio = boost::asio;
using asio::use_awaitable;

Connection::Connection(asio::ip::tcp::socket socket, RequestHandler& handler, ConnectionLimits limits,
                       ConnectionInfo info, std::shared_ptr<MemoryBudget> budget, ConnectionSlot slot)
    : socket_(std::move(socket)),
      handler_(handler),
      limits_(limits),
      info_(std::move(info)),
      budget_(std::move(budget)),
      slot_(std::move(slot)),
      writer_wake_(socket_.get_executor()),
      reader_wake_(socket_.get_executor()),
      barrier_done_(socket_.get_executor()),
      idle_timer_(socket_.get_executor()),
      read_deadline_(socket_.get_executor()),
      write_deadline_(socket_.get_executor()),
      last_activity_(std::chrono::steady_clock::now()) {
    writer_wake_.expires_at(asio::steady_timer::time_point::max());
    reader_wake_.expires_at(asio::steady_timer::time_point::max());
    barrier_done_.expires_at(asio::steady_timer::time_point::max());
    read_deadline_.expires_at(asio::steady_timer::time_point::max());
    write_deadline_.expires_at(asio::steady_timer::time_point::max());
    boost::system::error_code ec;
    socket_.set_option(asio::ip::tcp::no_delay(true), ec);
    // sendfile() is called directly and must not block the io thread.
    socket_.native_non_blocking(true, ec);
}

void Connection::start() {
    auto self = shared_from_this();
    auto on_done = [self](std::exception_ptr e) {
        if (e) {
            try {
                std::rethrow_exception(e);
            } catch (const std::exception& ex) {
                logging::warn("connection {} from {} closed: {}", self->info_.id, self->info_.peer, ex.what());
            }
        }
        self->close();
    };
    asio::co_spawn(socket_.get_executor(), read_loop(), on_done);
    asio::co_spawn(socket_.get_executor(), write_loop(), on_done);
    if (limits_.max_idle.count() > 0) asio::co_spawn(socket_.get_executor(), idle_watchdog(), on_done);
    if (limits_.stall_timeout.count() > 0) {
        asio::co_spawn(socket_.get_executor(), stall_watchdog(read_deadline_, "request frame not complete"), on_done);
        asio::co_spawn(socket_.get_executor(), stall_watchdog(write_deadline_, "response not read"), on_done);
    }
}

void Connection::close() {
    if (closed_) return;
    closed_ = true;
    boost::system::error_code ec;
    socket_.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
    socket_.close(ec);
    writer_wake_.cancel();
    reader_wake_.cancel();
    barrier_done_.cancel();
    idle_timer_.cancel();
    read_deadline_.cancel();
    write_deadline_.cancel();
    slot_.release();
    // Responses nobody will read give their memory back now, not when the
    // last request of this connection finishes.
    for (auto& s : pending_)
        if (s->done) {
            s->response.reset();
            s->memory.reset();
        }
    if (budget_) {
        budget_->end_frame(this);
        budget_->wake_all();  // this connection may be among the muted ones
    }
}

std::size_t Connection::pending_response_bytes() const {
    std::size_t n = 0;
    for (const auto& s : pending_)
        if (s->response) n += s->response->bytes.size();
    return n;
}

bool Connection::holds_response() const {
    if (building_ > 0 || writing_) return true;
    return std::ranges::any_of(pending_, [](const auto& s) { return s->done && s->response; });
}

asio::awaitable<void> Connection::read_loop() {
    auto self = shared_from_this();
    std::uint8_t size_buf[4];
    while (!closed_) {
        // Back-pressure: stop reading until the writer has drained enough.
        while (!closed_ && (pending_.size() >= limits_.max_in_flight_requests ||
                            pending_response_bytes() >= limits_.max_pending_response_bytes)) {
            boost::system::error_code ec;
            co_await reader_wake_.async_wait(asio::redirect_error(use_awaitable, ec));
            reader_wake_.expires_at(asio::steady_timer::time_point::max());
        }
        if (closed_) co_return;

        // Muted while the broker-wide budget is used up (queued.max.request.bytes)
        // and this connection holds some of it: a client that reads its answers
        // holds nothing between requests and keeps going; one that pipelines
        // and never reads stops here (an answer being written counts).
        while (budget_ && budget_->exhausted() && (!pending_.empty() || writing_) && !closed_)
            co_await budget_->next_release();
        if (closed_) co_return;

        boost::system::error_code ec;
        co_await asio::async_read(socket_, asio::buffer(size_buf), asio::redirect_error(use_awaitable, ec));
        if (ec) co_return;  // peer closed or reset: nothing to log
        std::int32_t size =
            static_cast<std::int32_t>((std::uint32_t(size_buf[0]) << 24) | (std::uint32_t(size_buf[1]) << 16) |
                                      (std::uint32_t(size_buf[2]) << 8) | std::uint32_t(size_buf[3]));
        if (size < 8 || size > limits_.max_request_bytes) {
            logging::warn(
                "connection {} from {}: request frame of {} bytes is outside 8..{} (socket.request.max.bytes); closing",
                info_.id, info_.peer, size, limits_.max_request_bytes);
            close();
            co_return;
        }
        BudgetLease lease(budget_);
        auto frame = co_await read_body(static_cast<std::size_t>(size), lease);
        if (!frame) co_return;
        last_activity_ = std::chrono::steady_clock::now();

        auto slot = std::make_shared<Slot>();
        slot->memory = std::move(lease);
        auto barrier = last_barrier_.lock();
        if (barrier && barrier->finished) barrier.reset();
        if (handler_.is_barrier(*frame)) last_barrier_ = slot;
        pending_.push_back(slot);
        asio::co_spawn(socket_.get_executor(), process(slot, std::move(barrier), std::move(frame)), asio::detached);
    }
}

asio::awaitable<void> Connection::process(SlotPtr slot, SlotPtr barrier, std::shared_ptr<const wire::Bytes> frame) {
    auto self = shared_from_this();
    const auto frame_size = frame->size();
    // Waiting for the last barrier is enough: it waited for the one before it.
    // Like every request read, this one runs even if the connection closes
    // meanwhile; only its response is lost.
    while (barrier && !barrier->finished) {
        boost::system::error_code ec;
        co_await barrier_done_.async_wait(asio::redirect_error(use_awaitable, ec));
    }
    barrier.reset();
    // While the budget is used up, a connection builds one response at a
    // time and none while an earlier one is unwritten (Kafka's processor
    // mutes a channel until its response is sent): a client that never reads
    // holds at most one answer, and one that reads holds nothing in between
    // and goes first.
    while (budget_ && budget_->exhausted() && holds_response() && !closed_) co_await budget_->next_release();
    ++building_;
    struct Built {
        std::size_t& building;
        ~Built() { --building; }
    } built{building_};
    try {
        slot->response = co_await handler_.handle(std::move(frame), info_);
    } catch (const std::exception& e) {
        logging::warn("connection {} from {}: {}; closing", info_.id, info_.peer, e.what());
        close();
        slot->memory.reset();
        finish(*slot);
        co_return;
    }
    // The request's bytes are done with; the response's are held until written.
    if (budget_) budget_->note_freed_frame(frame_size);
    slot->memory.reset();
    if (slot->response && !closed_) {
        // What stays in files is the page cache's, not the broker's memory.
        slot->memory = response_lease(slot->response->bytes.size());
    } else {
        slot->response.reset();
        wake_budget_waiters();  // this connection's next request may be waiting for this one
    }
    slot->done = true;
    finish(*slot);
    writer_wake_.cancel();
}

void Connection::wake_budget_waiters() {
    // Waiters re-check their own condition; the budget does not know which of
    // them waits for this connection.
    if (budget_ && budget_->exhausted()) budget_->wake_all();
}

BudgetLease Connection::response_lease(std::size_t bytes) {
    BudgetLease lease(budget_);
    lease.add(bytes);
    return lease;
}

asio::awaitable<std::shared_ptr<wire::Bytes>> Connection::read_body(std::size_t size, BudgetLease& lease) {
    // Grow from a small first chunk, doubling as bytes arrive: a frame header
    // declaring 100 MB costs memory only once the bytes are really sent.
    constexpr std::size_t first_chunk = 64 * 1024;
    auto frame = std::make_shared<wire::Bytes>();
    std::size_t received = 0;
    arm(read_deadline_);
    struct EndFrame {
        Connection& c;
        ~EndFrame() {
            c.read_deadline_.expires_at(asio::steady_timer::time_point::max());
            if (c.budget_) c.budget_->end_frame(&c);
        }
    } end_frame{*this};
    while (received < size) {
        if (frame->size() == received) {
            // The first chunk is free, so small requests never wait behind a large one.
            while (received > 0 && budget_ && !closed_ && !budget_->may_grow(this)) co_await budget_->next_release();
            if (closed_) co_return nullptr;
            auto grown = std::min(size, std::max(first_chunk, received * 2));
            lease.add(grown - frame->size());
            frame->resize(grown);
        }
        watermark_.expect(socket_, size - received);
        boost::system::error_code ec;
        auto n = co_await socket_.async_read_some(asio::buffer(frame->data() + received, frame->size() - received),
                                                  asio::redirect_error(use_awaitable, ec));
        if (ec) {
            if (budget_) budget_->note_freed_frame(frame->size());
            co_return nullptr;
        }
        received += n;
    }
    watermark_.expect(socket_, 0);
    co_return frame;
}

void Connection::arm(asio::steady_timer& deadline) const {
    deadline.expires_after(limits_.stall_timeout.count() > 0 ? limits_.stall_timeout
                                                             : std::chrono::milliseconds(std::int64_t{1} << 40));
}

asio::awaitable<void> Connection::stall_watchdog(asio::steady_timer& deadline, std::string_view what) {
    auto self = shared_from_this();
    while (!closed_) {
        boost::system::error_code ec;
        co_await deadline.async_wait(asio::redirect_error(use_awaitable, ec));
        if (closed_) co_return;
        if (!ec && deadline.expiry() <= asio::steady_timer::clock_type::now()) {
            logging::warn("connection {} from {}: {} for {} ms (weir.connection.stall.timeout.ms); closing", info_.id,
                          info_.peer, what, limits_.stall_timeout.count());
            close();
            co_return;
        }
    }
}

void Connection::finish(Slot& slot) {
    slot.finished = true;
    barrier_done_.cancel();
}

asio::awaitable<void> Connection::write_loop() {
    auto self = shared_from_this();
    std::vector<std::shared_ptr<Slot>> batch;
    while (!closed_) {
        // Gather every finished response at the head of the queue, in order.
        batch.clear();
        while (!pending_.empty() && pending_.front()->done) {
            auto slot = std::move(pending_.front());
            pending_.pop_front();
            if (slot->response) batch.push_back(std::move(slot));
        }
        if (!batch.empty()) {
            arm(write_deadline_);
            writing_ = true;
            const bool written = co_await write_frames(batch);
            writing_ = false;
            write_deadline_.expires_at(asio::steady_timer::time_point::max());
            if (!written) co_return;
            last_activity_ = std::chrono::steady_clock::now();
            reader_wake_.cancel();
            // This connection's reader and requests may wait only for what it held.
            wake_budget_waiters();
            continue;
        }
        reader_wake_.cancel();
        boost::system::error_code ec;
        co_await writer_wake_.async_wait(asio::redirect_error(use_awaitable, ec));
        writer_wake_.expires_at(asio::steady_timer::time_point::max());
    }
}

asio::awaitable<bool> Connection::write_frames(const std::vector<std::shared_ptr<Slot>>& frames) {
    std::vector<asio::const_buffer> buffers;
    for (const auto& slot : frames) {
        const auto& frame = *slot->response;
        std::size_t from = 0;
        for (const auto& splice : frame.splices) {
            if (splice.at > from) buffers.emplace_back(asio::buffer(frame.bytes.data() + from, splice.at - from));
            from = splice.at;
            if (!co_await write_buffers(buffers)) co_return false;
            if (!co_await send_region(splice.region)) co_return false;
        }
        if (frame.bytes.size() > from)
            buffers.emplace_back(asio::buffer(frame.bytes.data() + from, frame.bytes.size() - from));
    }
    co_return co_await write_buffers(buffers);
}

asio::awaitable<bool> Connection::write_buffers(std::vector<asio::const_buffer>& buffers) {
    if (buffers.empty()) co_return true;
    boost::system::error_code ec;
    co_await asio::async_write(socket_, buffers, asio::redirect_error(use_awaitable, ec));
    buffers.clear();
    co_return !ec;
}

asio::awaitable<bool> Connection::send_region(const wire::FileRegion& region) {
    auto position = static_cast<off_t>(region.position);
    std::size_t left = region.length;
    while (left > 0 && !closed_) {
        auto n = ::sendfile(socket_.native_handle(), region.fd, &position, left);
        if (n > 0) {
            left -= static_cast<std::size_t>(n);
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            boost::system::error_code ec;
            co_await socket_.async_wait(asio::socket_base::wait_write, asio::redirect_error(use_awaitable, ec));
            if (ec) co_return false;
            continue;
        }
        if (n == 0) {
            // The segment was truncated under the answer (a follower truncating
            // its log): the frame cannot be completed, as in Kafka.
            logging::warn("connection {} from {}: records truncated in their segment while being sent; closing",
                          info_.id, info_.peer);
        }
        co_return false;  // the peer went away (EPIPE, ECONNRESET) or the file failed
    }
    co_return !closed_;
}

asio::awaitable<void> Connection::idle_watchdog() {
    auto self = shared_from_this();
    while (!closed_) {
        idle_timer_.expires_at(last_activity_ + limits_.max_idle);
        boost::system::error_code ec;
        co_await idle_timer_.async_wait(asio::redirect_error(use_awaitable, ec));
        if (closed_) co_return;
        // A parked long poll counts as activity: only idle with nothing pending.
        if (pending_.empty() && std::chrono::steady_clock::now() - last_activity_ >= limits_.max_idle) {
            logging::info("connection {} from {} idle for {} ms (connections.max.idle.ms); closing", info_.id,
                          info_.peer, limits_.max_idle.count());
            close();
            co_return;
        }
        if (!pending_.empty()) last_activity_ = std::chrono::steady_clock::now();
    }
}

}  // namespace weir::net
