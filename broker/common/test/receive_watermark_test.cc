// The receive mark of a large frame: raised once for it, never above what the
// frame still owes (a read must not wait for bytes the peer will not send),
// back at 1 once the frame is read.
#include "broker/common/receive_watermark.h"

#include <gtest/gtest.h>
#include <sys/socket.h>

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <fstream>
#include <vector>

namespace weir {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;

int mark_of(tcp::socket& socket) {
    int value = 0;
    socklen_t length = sizeof value;
    EXPECT_EQ(::getsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVLOWAT, &value, &length), 0);
    return value;
}

// The kernel caps a mark at half the most a receive buffer may grow to.
int capped(std::size_t mark) {
    std::ifstream rmem("/proc/sys/net/ipv4/tcp_rmem");
    long min = 0, def = 0, max = 0;
    if (!(rmem >> min >> def >> max)) return static_cast<int>(mark);
    return static_cast<int>(std::min<long>(static_cast<long>(mark), max / 2));
}

struct Pair {
    asio::io_context io;
    tcp::socket reader{io};
    tcp::socket writer{io};
    Pair() {
        tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
        writer.connect(acceptor.local_endpoint());
        acceptor.accept(reader);
        reader.non_blocking(true);
    }
};

TEST(ReceiveWatermark, FollowsWhatTheFrameOwes) {
    Pair p;
    ReceiveWatermark mark;
    mark.expect(p.reader, 10'000);  // a small frame: left alone
    EXPECT_EQ(mark_of(p.reader), 1);
    mark.expect(p.reader, 3'000'000);
    EXPECT_EQ(mark_of(p.reader), capped(ReceiveWatermark::kMaximum));
    mark.expect(p.reader, 2'000'000);  // still owed: unchanged
    EXPECT_EQ(mark_of(p.reader), capped(ReceiveWatermark::kMaximum));
    mark.expect(p.reader, 300'000);
    EXPECT_EQ(mark_of(p.reader), capped(300'000));
    mark.expect(p.reader, 30'000);  // too little left to be worth a mark
    EXPECT_EQ(mark_of(p.reader), 1);
    mark.expect(p.reader, 200'000);
    EXPECT_EQ(mark_of(p.reader), capped(200'000));
    mark.expect(p.reader, 0);
    EXPECT_EQ(mark_of(p.reader), 1);
}

// The peer sends each frame and then nothing until it is answered: every
// read ends, whatever sizes and pieces the frames come in.
TEST(ReceiveWatermark, FramesSentInPiecesAreReadWholeWithoutMore) {
    Pair p;
    ReceiveWatermark mark;
    const std::vector<std::size_t> sizes{70'000, 600'000, 1'000, 1'500'000, 65'536, 524'289};
    std::size_t frames_read = 0;
    bool failed = false;
    asio::co_spawn(
        p.io,
        [&]() -> asio::awaitable<void> {
            std::vector<std::uint8_t> buffer(2'000'000);
            for (auto size : sizes) {
                for (std::size_t got = 0; got < size;) {
                    mark.expect(p.reader, size - got);
                    // A small buffer, as a frame that grows as it arrives has.
                    auto room = std::min<std::size_t>(size - got, 100'000);
                    got +=
                        co_await p.reader.async_read_some(asio::buffer(buffer.data() + got, room), asio::use_awaitable);
                }
                mark.expect(p.reader, 0);
                ++frames_read;
                co_await asio::async_write(p.reader, asio::buffer("k", 1), asio::use_awaitable);
            }
        },
        [&](std::exception_ptr e) {
            if (e) failed = true;
        });
    asio::co_spawn(
        p.io,
        [&]() -> asio::awaitable<void> {
            std::vector<std::uint8_t> bytes(2'000'000, 7);
            asio::steady_timer pause(p.io);
            for (auto size : sizes) {
                // In three pieces with pauses, the last piece smaller than any mark.
                const std::size_t cuts[] = {size / 2, size - size / 2 - 1, 1};
                for (auto piece : cuts) {
                    co_await asio::async_write(p.writer, asio::buffer(bytes.data(), piece), asio::use_awaitable);
                    pause.expires_after(std::chrono::milliseconds(5));
                    co_await pause.async_wait(asio::use_awaitable);
                }
                char ack = 0;
                co_await p.writer.async_read_some(asio::buffer(&ack, 1), asio::use_awaitable);
            }
        },
        [&](std::exception_ptr e) {
            if (e) failed = true;
        });
    p.io.run_for(std::chrono::seconds(20));
    EXPECT_FALSE(failed);
    EXPECT_EQ(frames_read, sizes.size());
    EXPECT_EQ(mark_of(p.reader), 1);
}

}  // namespace
}  // namespace weir
