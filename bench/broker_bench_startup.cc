// broker_bench startup: fork/exec a server, time until it answers a Metadata
// request (raw socket, no client library back-off), stop it, repeat.
#include <arpa/inet.h>
#include <fcntl.h>
#include <fmt/core.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <utility>

#include "bench/broker_bench_common.h"
#include "bench/broker_bench_phases.h"

namespace weir::bench {
namespace {

struct Endpoint {
    std::string host;
    int port = 0;
};

Endpoint parse_endpoint(const std::string& s) {
    auto colon = s.rfind(':');
    if (colon == std::string::npos) throw std::runtime_error("expected host:port, got " + s);
    return {s.substr(0, colon), std::stoi(s.substr(colon + 1))};
}

void put16(std::vector<std::uint8_t>& b, std::uint16_t v) {
    b.push_back(static_cast<std::uint8_t>(v >> 8));
    b.push_back(static_cast<std::uint8_t>(v));
}
void put32(std::vector<std::uint8_t>& b, std::uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) b.push_back(static_cast<std::uint8_t>(v >> s));
}
std::uint32_t get32(const std::uint8_t* p) {
    return (std::uint32_t(p[0]) << 24) | (std::uint32_t(p[1]) << 16) | (std::uint32_t(p[2]) << 8) | p[3];
}

// Metadata v1 for no topics: answers with the brokers only.
std::vector<std::uint8_t> metadata_request(std::int32_t correlation_id) {
    const std::string client = "broker_bench";
    std::vector<std::uint8_t> frame;
    put32(frame, 0);  // size, patched below
    put16(frame, 3);  // api key Metadata
    put16(frame, 1);  // version
    put32(frame, static_cast<std::uint32_t>(correlation_id));
    put16(frame, static_cast<std::uint16_t>(client.size()));
    for (char c : client) frame.push_back(static_cast<std::uint8_t>(c));
    put32(frame, 0);  // topics: empty array
    const auto size = static_cast<std::uint32_t>(frame.size() - 4);
    for (int i = 0; i < 4; ++i) frame[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(size >> (24 - 8 * i));
    return frame;
}

bool read_exact(int fd, std::uint8_t* out, std::size_t n, Clock::time_point deadline) {
    while (n > 0) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) return false;
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, static_cast<int>(left)) <= 0) return false;
        ssize_t r = ::read(fd, out, n);
        if (r <= 0) return false;
        out += r;
        n -= static_cast<std::size_t>(r);
    }
    return true;
}

// One attempt: connect, ask, and check the answer names at least one broker.
bool metadata_answered(const Endpoint& ep, std::int32_t correlation_id) {
    Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(ep.port));
    if (::inet_pton(AF_INET, ep.host.c_str(), &addr.sin_addr) != 1)
        throw std::runtime_error("bad IPv4 address " + ep.host);
    if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return false;
    int one = 1;
    ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    auto req = metadata_request(correlation_id);
    if (::write(fd.get(), req.data(), req.size()) != static_cast<ssize_t>(req.size())) return false;
    auto deadline = Clock::now() + std::chrono::seconds(5);
    std::uint8_t head[12];  // size, correlation id, broker count
    if (!read_exact(fd.get(), head, sizeof head, deadline)) return false;
    return static_cast<std::int32_t>(get32(head + 4)) == correlation_id &&
           static_cast<std::int32_t>(get32(head + 8)) >= 1;
}

// The mock prints "bootstrap=host:port" once it listens.
std::string read_bootstrap_line(int fd, Clock::time_point deadline) {
    std::string line;
    std::uint8_t ch;
    while (read_exact(fd, &ch, 1, deadline)) {
        if (ch == '\n') {
            if (line.starts_with("bootstrap=")) return line.substr(10);
            line.clear();
        } else {
            line += static_cast<char>(ch);
        }
    }
    throw std::runtime_error("no bootstrap= line from the server");
}

}  // namespace

int run_startup(const Args& a) {
    if (a.positional.empty()) throw std::runtime_error("startup: give the server command after --");
    const int runs = static_cast<int>(a.num("runs", 5));
    const bool from_stdout = a.str("address") == "stdout";
    const int stop_signal = a.str("stop", "term") == "kill" ? SIGKILL : SIGTERM;
    const auto idle_ms = a.num("idle-ms", 0);
    const auto timeout = std::chrono::milliseconds(a.num("timeout-ms", 60000));
    const std::string prepare = a.str("prepare");

    std::vector<double> startup_ms, idle_rss_kb, stop_s;
    for (int run = 0; run < runs; ++run) {
        if (!prepare.empty() && std::system(prepare.c_str()) != 0)
            throw std::runtime_error("prepare failed: " + prepare);
        auto t0 = Clock::now();
        Child child = spawn(a.positional, from_stdout, a.str("log"));
        auto deadline = t0 + timeout;
        Endpoint ep =
            parse_endpoint(from_stdout ? read_bootstrap_line(child.stdout_pipe.get(), deadline) : a.str("address"));
        bool ok = false;
        for (std::int32_t attempt = 1; Clock::now() < deadline; ++attempt) {
            if ((ok = metadata_answered(ep, attempt))) break;
            int status = 0;
            if (::waitpid(child.pid, &status, WNOHANG) == child.pid)
                throw std::runtime_error(fmt::format("server exited (status {}) before answering", status));
            std::this_thread::sleep_for(std::chrono::microseconds(500));
        }
        double ms = seconds_since(t0) * 1000;
        if (!ok) {
            stop_child(child.pid, SIGKILL);
            throw std::runtime_error("server did not answer Metadata in time");
        }
        startup_ms.push_back(ms);
        Result r;
        r.add("phase", "startup_run").add("run", static_cast<std::int64_t>(run)).add("ms", ms);
        if (idle_ms > 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(idle_ms));
            auto s = sample_process(child.pid);
            if (!s) throw std::runtime_error("cannot sample the idle server");
            idle_rss_kb.push_back(static_cast<double>(s->vm_rss_kb));
            r.add("idle_rss_kb", s->vm_rss_kb).add("idle_hwm_kb", s->vm_hwm_kb);
        }
        double stop = stop_child(child.pid, stop_signal);
        stop_s.push_back(stop);
        r.add("stop_s", stop).print();
    }
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v.empty() ? 0.0 : (v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2);
    };
    Result r;
    r.add("phase", "startup")
        .add("runs", static_cast<std::int64_t>(runs))
        .add("median_ms", median(startup_ms))
        .add("min_ms", *std::min_element(startup_ms.begin(), startup_ms.end()))
        .add("max_ms", *std::max_element(startup_ms.begin(), startup_ms.end()))
        .add("median_stop_s", median(stop_s));
    if (!idle_rss_kb.empty()) r.add("median_idle_rss_kb", median(idle_rss_kb));
    r.print();
    return 0;
}

}  // namespace weir::bench
