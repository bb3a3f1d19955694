#pragma once
// A plain TCP connection for sending hand-made (often malformed) Kafka frames.
#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace weir::compat {

class RawConnection {
public:
    // Connects to 127.0.0.1:port; throws on failure.
    explicit RawConnection(std::uint16_t port);
    ~RawConnection();
    RawConnection(const RawConnection&) = delete;
    RawConnection& operator=(const RawConnection&) = delete;

    // False if the peer already closed (EPIPE/ECONNRESET).
    bool send(std::span<const std::uint8_t> bytes);
    void shutdown_write();

    enum class ReadStatus { frame, closed, timeout };
    // Reads one size-prefixed response frame (payload without the size) or
    // reports that the peer closed the connection.
    ReadStatus read_frame(std::vector<std::uint8_t>& frame, std::chrono::milliseconds timeout);
    // Reads and discards until the peer closes; false on timeout.
    bool wait_closed(std::chrono::milliseconds timeout);
    // Whatever arrives next (into `out`); false once the peer closed or on timeout.
    bool read_some(std::vector<std::uint8_t>& out, std::chrono::milliseconds timeout);

private:
    // Fills buf completely; returns closed/timeout on failure.
    ReadStatus read_exact(std::uint8_t* buf, std::size_t n, std::chrono::steady_clock::time_point deadline);
    // One recv() once readable before `deadline`: its result (0 closed, <0
    // reset), or kTimedOut.
    static constexpr ssize_t kTimedOut = -2;
    ssize_t recv_before(std::chrono::steady_clock::time_point deadline, std::uint8_t* buf, std::size_t n);
    int fd_ = -1;
};

// Request header v1 (api_key, api_version, correlation_id, client_id) + body, size-prefixed.
std::vector<std::uint8_t> request_frame(std::int16_t api_key, std::int16_t api_version, std::int32_t correlation_id,
                                        std::span<const std::uint8_t> body, const std::string& client_id = "raw");
// Request header v2 (flexible versions): v1 fields + empty tagged fields.
std::vector<std::uint8_t> request_frame_flexible(std::int16_t api_key, std::int16_t api_version,
                                                 std::int32_t correlation_id, std::span<const std::uint8_t> body,
                                                 const std::string& client_id = "raw");
std::vector<std::uint8_t> be32(std::int32_t v);
// Append to a request body: INT32, and STRING (int16 length, then bytes).
void append_be32(std::vector<std::uint8_t>& out, std::int32_t v);
void append_string(std::vector<std::uint8_t>& out, std::string_view s);
std::int32_t read_be32(std::span<const std::uint8_t> b, std::size_t at);
std::int16_t read_be16(std::span<const std::uint8_t> b, std::size_t at);

}  // namespace weir::compat
