#pragma once
// A real ZooKeeper server for tests: Debian's `zookeeper` package run as a
// standalone server (ZooKeeperServerMain) on a free 127.0.0.1 port with its
// data in a temp dir, killed on destruction. Header-only so unit tests and
// black-box tests share it. The java binary and the jar can be overridden
// with WEIR_TEST_JAVA and WEIR_TEST_ZOOKEEPER_JAR.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "broker/common/temp_dir.h"

namespace weir::testing {

class ZooKeeperServer {
public:
    // Starts the server and waits (at most `timeout`) until it answers "ruok".
    explicit ZooKeeperServer(std::chrono::milliseconds timeout = std::chrono::seconds(60)) : dir_("weir-zookeeper") {
        port_ = free_port();
        {
            std::ofstream cfg(dir_.path() / "zoo.cfg");
            // tickTime 500 ms: sessions may be as short as 1 s, so tests can
            // expire them quickly.
            cfg << "tickTime=500\n"
                << "dataDir=" << (dir_.path() / "data").string() << "\n"
                << "clientPort=" << port_ << "\n"
                << "clientPortAddress=127.0.0.1\n"
                << "admin.enableServer=false\n"
                << "4lw.commands.whitelist=ruok,srvr\n"
                << "maxSessionTimeout=60000\n";
        }
        start_process();
        const auto deadline = std::chrono::steady_clock::now() + timeout;
        while (!answers_ruok()) {
            int status = 0;
            if (::waitpid(pid_, &status, WNOHANG) == pid_) {
                pid_ = -1;
                throw std::runtime_error("ZooKeeper exited at start; see " + (dir_.path() / "zookeeper.log").string());
            }
            if (std::chrono::steady_clock::now() > deadline) {
                stop();
                throw std::runtime_error("ZooKeeper did not answer within the timeout");
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    }
    ~ZooKeeperServer() { stop(); }
    ZooKeeperServer(const ZooKeeperServer&) = delete;
    ZooKeeperServer& operator=(const ZooKeeperServer&) = delete;

    int port() const { return port_; }
    // "127.0.0.1:<port>", with a chroot of its own per call so that tests
    // sharing a server never see each other's nodes.
    std::string connect() const { return "127.0.0.1:" + std::to_string(port_); }
    std::string fresh_chroot_connect() {
        static std::atomic<int> next{0};
        return connect() + "/t" + std::to_string(::getpid()) + "-" + std::to_string(next++);
    }

    void stop() {
        if (pid_ <= 0) return;
        ::kill(-pid_, SIGKILL);
        int status = 0;
        ::waitpid(pid_, &status, 0);
        pid_ = -1;
    }

private:
    static int free_port() {
        int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof a;
        if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
            ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
            ::close(fd);
            throw std::runtime_error("no free port");
        }
        ::close(fd);
        return ntohs(a.sin_port);
    }

    void start_process() {
        const char* java = std::getenv("WEIR_TEST_JAVA");
        const char* jar = std::getenv("WEIR_TEST_ZOOKEEPER_JAR");
        const std::string java_bin = java ? java : "java";
        const std::string classpath = jar ? jar : "/usr/share/java/zookeeper.jar";
        const std::string config = (dir_.path() / "zoo.cfg").string();
        const std::string log = (dir_.path() / "zookeeper.log").string();
        pid_ = ::fork();
        if (pid_ < 0) throw std::runtime_error("fork failed");
        if (pid_ == 0) {
            ::setpgid(0, 0);
            std::FILE* out = std::freopen(log.c_str(), "w", stdout);
            (void)out;
            ::dup2(STDOUT_FILENO, STDERR_FILENO);
            ::execlp(java_bin.c_str(), java_bin.c_str(), "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                     "-cp", classpath.c_str(), "org.apache.zookeeper.server.ZooKeeperServerMain", config.c_str(),
                     static_cast<char*>(nullptr));
            ::_exit(127);
        }
        ::setpgid(pid_, pid_);
    }

    bool answers_ruok() const {
        int fd = ::socket(AF_INET, SOCK_STREAM, 0);
        timeval tv{1, 0};
        ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(static_cast<std::uint16_t>(port_));
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        bool ok = false;
        if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 && ::write(fd, "ruok", 4) == 4) {
            char buf[4];
            ok = ::recv(fd, buf, sizeof buf, MSG_WAITALL) == 4 && std::string(buf, 4) == "imok";
        }
        ::close(fd);
        return ok;
    }

    TempDir dir_;
    int port_ = 0;
    pid_t pid_ = -1;
};

}  // namespace weir::testing
