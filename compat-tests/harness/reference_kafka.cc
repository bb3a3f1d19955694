#include "harness/reference_kafka.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <deque>
#include <fstream>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <vector>

#include "harness/broker_process.h"
#include "harness/subprocess.h"

namespace weir::compat {

namespace {
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;
}  // namespace

std::string reference_kafka_libs() {
    const std::string installer = std::string(WEIR_COMPAT_SOURCE_DIR) + "/../tools/reference-kafka/install";
    // The first install downloads Kafka and its dependencies; later ones read the cache.
    const ProcessResult r = run_process({installer}, 15min);
    if (r.exit_code != 0 || r.timed_out)
        throw std::runtime_error("tools/reference-kafka/install failed: " + r.describe());
    std::string dir = r.out;
    while (!dir.empty() && (dir.back() == '\n' || dir.back() == '\r')) dir.pop_back();
    return dir;
}

ReferenceKafka::ReferenceKafka(ReferenceKafkaOptions options) : dir_("weir-reference-kafka") {
    const std::string libs = reference_kafka_libs();
    port_ = pick_free_port();
    {
        std::ofstream log4j(dir_.path() / "log4j.properties");
        log4j << "log4j.rootLogger=WARN, stdout\n"
              << "log4j.appender.stdout=org.apache.log4j.ConsoleAppender\n"
              << "log4j.appender.stdout.layout=org.apache.log4j.PatternLayout\n"
              << "log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n\n";
        std::ofstream props(dir_.path() / "server.properties");
        props << "broker.id=0\n"
              << "listeners=PLAINTEXT://127.0.0.1:" << port_ << "\n"
              << "log.dirs=" << (dir_.path() / "data").string() << "\n"
              << "zookeeper.connect=" << options.zookeeper_connect << "\n";
        for (const auto& [k, v] : options.properties) props << k << "=" << v << "\n";
    }
    const std::string log = (dir_.path() / "kafka.log").string();
    const int log_fd = ::open(log.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (log_fd < 0) throw std::system_error(errno, std::generic_category(), "open kafka log");
    // kafka-server-start.sh's heap and kafka-run-class.sh's collector.
    const std::vector<std::string> argv{"java",
                                        "-Xmx1G",
                                        "-Xms1G",
                                        "-XX:+UseG1GC",
                                        "-XX:MaxGCPauseMillis=20",
                                        "-Djava.awt.headless=true",
                                        "-Dlog4j.configuration=file:" + (dir_.path() / "log4j.properties").string(),
                                        "-cp",
                                        libs + "/*",
                                        "kafka.Kafka",
                                        (dir_.path() / "server.properties").string()};
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(log_fd);
        throw std::system_error(errno, std::generic_category(), "fork");
    }
    if (pid == 0) {
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(127);
        ::setpgid(0, 0);
        const int devnull = ::open("/dev/null", O_RDONLY);
        ::dup2(devnull, 0);
        ::dup2(log_fd, 1);
        ::dup2(log_fd, 2);
        ::close_range(3, ~0U, 0);
        std::vector<char*> args;
        for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        ::execvp(args[0], args.data());
        ::_exit(127);
    }
    ::close(log_fd);
    pid_ = pid;
    const auto deadline = Clock::now() + options.ready_timeout;
    while (true) {
        int status = 0;
        if (::waitpid(pid_, &status, WNOHANG) == pid_) {
            pid_ = -1;
            throw std::runtime_error("Kafka exited during start-up\n" + log_tail());
        }
        if (port_accepts(port_) && metadata_ok(bootstrap(), 2s)) break;
        if (Clock::now() > deadline) {
            stop();
            throw std::runtime_error("Kafka not ready in time\n" + log_tail());
        }
        std::this_thread::sleep_for(200ms);
    }
}

ReferenceKafka::~ReferenceKafka() { stop(); }

void ReferenceKafka::stop() {
    if (pid_ <= 0) return;
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
}

std::string ReferenceKafka::log_tail(std::size_t lines) const {
    std::ifstream in(dir_.path() / "kafka.log");
    std::deque<std::string> tail;
    for (std::string line; std::getline(in, line);) {
        tail.push_back(line);
        if (tail.size() > lines) tail.pop_front();
    }
    std::string out;
    for (const auto& l : tail) out += l + "\n";
    return out;
}

}  // namespace weir::compat
