// Responses whose records stay in a file: the connection sends the frame's
// bytes and the file's around them in order (sendfile), through a client that
// reads slowly, and closes the connection when the file no longer holds them.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <csignal>
#include <fstream>

#include "broker/common/temp_dir.h"
#include "broker/net/connection.h"
#include "broker/storage/file.h"

namespace weir::net {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;

wire::Bytes pattern(std::size_t n, std::uint8_t seed) {
    wire::Bytes out(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>(seed + i * 7 + i / 251);
    return out;
}

// Answers request 'F' with: 5 bytes, `region_length` bytes of the file from
// position 100, 3 bytes; and request 'M' with 9 bytes in memory.
class FileHandler final : public RequestHandler {
public:
    FileHandler(std::shared_ptr<const storage::File> file, std::size_t region_length)
        : file_(std::move(file)), region_length_(region_length) {}

    asio::awaitable<std::optional<wire::Frame>> handle(std::shared_ptr<const wire::Bytes> frame,
                                                       const ConnectionInfo&) override {
        if ((*frame)[0] == 'M') co_return pattern(9, 200);
        wire::Frame out(pattern(5, 1));
        out.splices.push_back({5, wire::FileRegion{file_->fd(), 100, region_length_, file_}});
        auto tail = pattern(3, 50);
        out.bytes.insert(out.bytes.end(), tail.begin(), tail.end());
        co_return out;
    }

private:
    std::shared_ptr<const storage::File> file_;
    std::size_t region_length_;
};

struct Exchange {
    wire::Bytes received;
    bool closed_early = false;
    bool server_closed = false;  // the server's side of the connection, once the client has left
};

// Sends `requests` (8-byte frames) pipelined, waits a moment so the server's
// socket buffers fill, then reads up to `expect` bytes.
Exchange exchange(FileHandler& handler, std::string requests, std::size_t expect) {
    asio::io_context io;
    tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::address_v4::loopback(), 0));
    Exchange result;
    std::shared_ptr<Connection> server;
    acceptor.async_accept([&](boost::system::error_code ec, tcp::socket socket) {
        ASSERT_FALSE(ec) << ec.message();
        server = std::make_shared<Connection>(std::move(socket), handler, ConnectionLimits{},
                                              ConnectionInfo{1, "test", "PLAINTEXT"});
        server->start();
    });
    asio::co_spawn(
        io,
        [&]() -> asio::awaitable<void> {
            tcp::socket client(io);
            co_await client.async_connect(acceptor.local_endpoint(), asio::use_awaitable);
            wire::Bytes pipelined;
            for (char r : requests) {
                wire::Bytes f{0, 0, 0, 8, static_cast<std::uint8_t>(r), 0, 0, 0, 0, 0, 0, 0};
                pipelined.insert(pipelined.end(), f.begin(), f.end());
            }
            co_await asio::async_write(client, asio::buffer(pipelined), asio::use_awaitable);
            asio::steady_timer pause(io, std::chrono::milliseconds(200));
            co_await pause.async_wait(asio::use_awaitable);
            result.received.resize(expect);
            boost::system::error_code ec;
            auto n = co_await asio::async_read(client, asio::buffer(result.received),
                                               asio::redirect_error(asio::use_awaitable, ec));
            result.received.resize(n);
            result.closed_early = n < expect;
            // Leave with whatever is unread; the server goes on meanwhile.
            client.close();
            asio::steady_timer linger(io, std::chrono::milliseconds(300));
            co_await linger.async_wait(asio::use_awaitable);
            result.server_closed = server && !server->is_open();
            io.stop();
        },
        asio::detached);
    io.run_for(std::chrono::seconds(10));
    return result;
}

struct ConnectionSendfileTest : ::testing::Test {
    TempDir tmp;
    std::filesystem::path path = tmp.path() / "segment.log";
    // Two answers of 8 MB are more than the socket buffers take: the
    // connection waits for the client in the middle of sending from the file.
    wire::Bytes contents = pattern(8 << 20, 9);

    std::shared_ptr<const storage::File> open_file() const {
        return std::make_shared<const storage::File>(storage::File::open_read_only(path));
    }

    void SetUp() override {
        std::signal(SIGPIPE, SIG_IGN);  // as the broker's main does
        std::ofstream(path, std::ios::binary)
            .write(reinterpret_cast<const char*>(contents.data()), static_cast<std::streamsize>(contents.size()));
    }
};

TEST_F(ConnectionSendfileTest, FileRegionsGoOutInPlaceAndInOrder) {
    const std::size_t region = contents.size() - 100;
    FileHandler handler(open_file(), region);
    const std::size_t frame = 5 + region + 3;
    auto got = exchange(handler, "FMF", frame + 9 + frame);
    ASSERT_FALSE(got.closed_early) << got.received.size();

    wire::Bytes want;
    const auto append = [&want](const wire::Bytes& b) { want.insert(want.end(), b.begin(), b.end()); };
    for (int i = 0; i < 2; ++i) {
        append(pattern(5, 1));
        want.insert(want.end(), contents.begin() + 100, contents.end());
        append(pattern(3, 50));
        if (i == 0) append(pattern(9, 200));
    }
    ASSERT_EQ(got.received.size(), want.size());
    const auto mismatch = std::ranges::mismatch(got.received, want);
    EXPECT_TRUE(mismatch.in1 == got.received.end())
        << "first difference at byte " << (mismatch.in1 - got.received.begin());
}

TEST_F(ConnectionSendfileTest, ARegionPastTheFilesEndClosesTheConnection) {
    // The file was truncated under the answer: what it still holds is sent,
    // then the connection closes rather than sending a short frame's tail.
    FileHandler handler(open_file(), contents.size());
    auto got = exchange(handler, "FM", 5 + contents.size() + 3 + 9);
    EXPECT_TRUE(got.closed_early);
    EXPECT_EQ(got.received.size(), 5 + contents.size() - 100);
}

TEST_F(ConnectionSendfileTest, AClientThatLeavesMidAnswerOnlyClosesItsConnection) {
    FileHandler handler(open_file(), contents.size() - 100);
    // Reads a little of two 8 MB answers and disconnects (a reset, as the
    // socket is closed with data unread); then a new client is served whole.
    auto left = exchange(handler, "FF", 1000);
    EXPECT_FALSE(left.closed_early);
    // The failed sendfile (EPIPE or a reset) ended it, not a timeout.
    EXPECT_TRUE(left.server_closed);
    auto next = exchange(handler, "M", 9);
    EXPECT_FALSE(next.closed_early);
    EXPECT_EQ(next.received, pattern(9, 200));
}

}  // namespace
}  // namespace weir::net
