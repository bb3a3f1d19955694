#pragma once
// SO_RCVLOWAT for the rest of a large frame: the kernel wakes the reader once
// a good part of it is queued instead of at every segment that arrives. On
// one machine the sender pays for each wake-up (the loopback delivery runs
// in its system call, and on a virtual machine a wake-up across cores is an
// interrupt to another virtual CPU), so a 1 MB produce request or fetch
// answer read with sixteen wake-ups costs both sides more than the bytes.
// The mark never exceeds what the frame still owes, so a read cannot wait
// for bytes the peer has no reason to send.
#include <boost/asio/ip/tcp.hpp>
#include <cstddef>

namespace weir {

class ReceiveWatermark {
public:
    // Frames shorter than this arrive in a few segments: no system call for them.
    static constexpr std::size_t kMinimum = 64 * 1024;
    // Beyond this a reader gains little and the socket's buffer limits it anyway.
    static constexpr std::size_t kMaximum = 512 * 1024;

    // Before a read while `remaining` bytes of the frame are still to come;
    // 0 once it is complete, before anything else is read from the socket.
    // Closes the socket if the mark cannot be lowered.
    void expect(boost::asio::ip::tcp::socket& socket, std::size_t remaining);
    // The socket was replaced: a new one starts at the kernel's default.
    void reset() { current_ = 1; }

private:
    int current_ = 1;
};

}  // namespace weir
