#include "harness/raw_connection.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <system_error>

namespace weir::compat {

using Clock = std::chrono::steady_clock;

RawConnection::RawConnection(std::uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) throw std::system_error(errno, std::generic_category(), "socket");
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        const int e = errno;
        ::close(fd_);
        throw std::system_error(e, std::generic_category(), "connect 127.0.0.1:" + std::to_string(port));
    }
    const int one = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

RawConnection::~RawConnection() {
    if (fd_ >= 0) ::close(fd_);
}

bool RawConnection::send(std::span<const std::uint8_t> bytes) {
    std::size_t sent = 0;
    while (sent < bytes.size()) {
        const ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        sent += static_cast<std::size_t>(n);
    }
    return true;
}

void RawConnection::shutdown_write() { ::shutdown(fd_, SHUT_WR); }

RawConnection::ReadStatus RawConnection::read_exact(std::uint8_t* buf, std::size_t n, Clock::time_point deadline) {
    std::size_t got = 0;
    while (got < n) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) return ReadStatus::timeout;
        pollfd p{fd_, POLLIN, 0};
        const int r = ::poll(&p, 1, static_cast<int>(left));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) continue;
        const ssize_t k = ::recv(fd_, buf + got, n - got, 0);
        if (k == 0) return ReadStatus::closed;
        if (k < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            return ReadStatus::closed;  // ECONNRESET and friends
        }
        got += static_cast<std::size_t>(k);
    }
    return ReadStatus::frame;
}

RawConnection::ReadStatus RawConnection::read_frame(std::vector<std::uint8_t>& frame,
                                                    std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    std::uint8_t size_buf[4];
    if (auto s = read_exact(size_buf, 4, deadline); s != ReadStatus::frame) return s;
    const std::int32_t size = read_be32(size_buf, 0);
    if (size < 0 || size > (64 << 20)) throw std::runtime_error("response frame size " + std::to_string(size));
    frame.assign(static_cast<std::size_t>(size), 0);
    return read_exact(frame.data(), frame.size(), deadline);
}

ssize_t RawConnection::recv_before(Clock::time_point deadline, std::uint8_t* buf, std::size_t n) {
    while (true) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) return kTimedOut;
        pollfd p{fd_, POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(left)) <= 0) continue;
        const ssize_t k = ::recv(fd_, buf, n, 0);
        if (k >= 0 || (errno != EINTR && errno != EAGAIN)) return k;
    }
}

bool RawConnection::wait_closed(std::chrono::milliseconds timeout) {
    const auto deadline = Clock::now() + timeout;
    std::uint8_t buf[4096];
    while (true) {
        const ssize_t k = recv_before(deadline, buf, sizeof buf);
        if (k == kTimedOut) return false;
        if (k <= 0) return true;  // closed or reset
    }
}

bool RawConnection::read_some(std::vector<std::uint8_t>& out, std::chrono::milliseconds timeout) {
    out.clear();
    std::uint8_t buf[16384];
    const ssize_t k = recv_before(Clock::now() + timeout, buf, sizeof buf);
    if (k <= 0) return false;
    out.assign(buf, buf + k);
    return true;
}

std::vector<std::uint8_t> be32(std::int32_t v) {
    const auto u = static_cast<std::uint32_t>(v);
    return {static_cast<std::uint8_t>(u >> 24), static_cast<std::uint8_t>(u >> 16), static_cast<std::uint8_t>(u >> 8),
            static_cast<std::uint8_t>(u)};
}

void append_be32(std::vector<std::uint8_t>& out, std::int32_t v) {
    const auto bytes = be32(v);
    out.insert(out.end(), bytes.begin(), bytes.end());
}

void append_string(std::vector<std::uint8_t>& out, std::string_view s) {
    out.push_back(static_cast<std::uint8_t>(s.size() >> 8));
    out.push_back(static_cast<std::uint8_t>(s.size() & 0xff));
    out.insert(out.end(), s.begin(), s.end());
}

std::int32_t read_be32(std::span<const std::uint8_t> b, std::size_t at) {
    return static_cast<std::int32_t>(std::uint32_t{b[at]} << 24 | std::uint32_t{b[at + 1]} << 16 |
                                     std::uint32_t{b[at + 2]} << 8 | std::uint32_t{b[at + 3]});
}

std::int16_t read_be16(std::span<const std::uint8_t> b, std::size_t at) {
    return static_cast<std::int16_t>(std::uint16_t{b[at]} << 8 | std::uint16_t{b[at + 1]});
}

namespace {
std::vector<std::uint8_t> header_v1(std::int16_t api_key, std::int16_t api_version, std::int32_t correlation_id,
                                    const std::string& client_id) {
    std::vector<std::uint8_t> h;
    auto put16 = [&](std::int16_t v) {
        h.push_back(static_cast<std::uint8_t>(static_cast<std::uint16_t>(v) >> 8));
        h.push_back(static_cast<std::uint8_t>(v));
    };
    put16(api_key);
    put16(api_version);
    for (auto b : be32(correlation_id)) h.push_back(b);
    put16(static_cast<std::int16_t>(client_id.size()));
    h.insert(h.end(), client_id.begin(), client_id.end());
    return h;
}

std::vector<std::uint8_t> frame(std::vector<std::uint8_t> payload) {
    auto out = be32(static_cast<std::int32_t>(payload.size()));
    out.insert(out.end(), payload.begin(), payload.end());
    return out;
}
}  // namespace

std::vector<std::uint8_t> request_frame(std::int16_t api_key, std::int16_t api_version, std::int32_t correlation_id,
                                        std::span<const std::uint8_t> body, const std::string& client_id) {
    auto p = header_v1(api_key, api_version, correlation_id, client_id);
    p.insert(p.end(), body.begin(), body.end());
    return frame(std::move(p));
}

std::vector<std::uint8_t> request_frame_flexible(std::int16_t api_key, std::int16_t api_version,
                                                 std::int32_t correlation_id, std::span<const std::uint8_t> body,
                                                 const std::string& client_id) {
    auto p = header_v1(api_key, api_version, correlation_id, client_id);
    p.push_back(0);  // no tagged fields
    p.insert(p.end(), body.begin(), body.end());
    return frame(std::move(p));
}

}  // namespace weir::compat
