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
#include "protocol/uuid.h"

namespace weir::compat {

namespace {
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

}  // namespace

std::string reference_kafka_libs(const std::string& version) {
    const std::string installer = std::string(WEIR_COMPAT_SOURCE_DIR) + "/../tools/reference-kafka/install";
    // The first install downloads Kafka and its dependencies; later ones read the cache.
    const ProcessResult r = run_process({installer, version}, 15min);
    if (r.exit_code != 0 || r.timed_out)
        throw std::runtime_error("tools/reference-kafka/install " + version + " failed: " + r.describe());
    std::string dir = r.out;
    while (!dir.empty() && (dir.back() == '\n' || dir.back() == '\r')) dir.pop_back();
    return dir;
}

ReferenceKafka::ReferenceKafka(ReferenceKafkaOptions options) : dir_("weir-reference-kafka") {
    const std::string libs = reference_kafka_libs(options.version);
    const bool kraft = options.zookeeper_connect.empty();
    port_ = pick_free_port();
    std::uint16_t controller_port = 0;
    if (kraft) {
        do {
            controller_port = pick_free_port();
        } while (controller_port == port_);
    }
    const std::string properties = (dir_.path() / "server.properties").string();
    {
        // Kafka 3.x logs through log4j 1, 4.x through log4j2: each reads its own file.
        std::ofstream log4j(dir_.path() / "log4j.properties");
        log4j << "log4j.rootLogger=WARN, stdout\n"
              << "log4j.appender.stdout=org.apache.log4j.ConsoleAppender\n"
              << "log4j.appender.stdout.layout=org.apache.log4j.PatternLayout\n"
              << "log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n\n";
        std::ofstream log4j2(dir_.path() / "log4j2.properties");
        log4j2 << "appender.stdout.type=Console\n"
               << "appender.stdout.name=STDOUT\n"
               << "appender.stdout.layout.type=PatternLayout\n"
               << "appender.stdout.layout.pattern=[%d] %p %m (%c)%n\n"
               << "rootLogger.level=WARN\n"
               << "rootLogger.appenderRef.stdout.ref=STDOUT\n";
        std::ofstream props(properties);
        props << "log.dirs=" << (dir_.path() / "data").string() << "\n";
        if (kraft) {
            const std::string controller = "127.0.0.1:" + std::to_string(controller_port);
            // Node 0, as the ZooKeeper-mode broker and Weir's: ids are compared, not normalised.
            props << "process.roles=broker,controller\n"
                  << "node.id=0\n"
                  << "controller.quorum.bootstrap.servers=" << controller << "\n"
                  << "listeners=PLAINTEXT://127.0.0.1:" << port_ << ",CONTROLLER://" << controller << "\n"
                  << "advertised.listeners=PLAINTEXT://127.0.0.1:" << port_ << "\n"
                  << "controller.listener.names=CONTROLLER\n"
                  << "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT\n"
                  // The share coordinator's topic asks for three replicas by default.
                  << "share.coordinator.state.topic.replication.factor=1\n"
                  << "share.coordinator.state.topic.min.isr=1\n";
        } else {
            props << "broker.id=0\n"
                  << "listeners=PLAINTEXT://127.0.0.1:" << port_ << "\n"
                  << "zookeeper.connect=" << options.zookeeper_connect << "\n";
        }
        for (const auto& [k, v] : options.properties) props << k << "=" << v << "\n";
    }
    const std::string log4j_options[] = {
        "-Dlog4j.configuration=file:" + (dir_.path() / "log4j.properties").string(),
        "-Dlog4j2.configurationFile=" + (dir_.path() / "log4j2.properties").string(),
    };
    if (kraft) {
        // A KRaft node starts only on log dirs formatted with its cluster id.
        const ProcessResult r =
            run_process({"java", log4j_options[0], log4j_options[1], "-cp", libs + "/*", "kafka.tools.StorageTool",
                         "format", "-t", Uuid::random().to_string(), "-c", properties, "--standalone"},
                        2min);
        if (r.exit_code != 0 || r.timed_out) throw std::runtime_error("kafka-storage format failed: " + r.describe());
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
                                        log4j_options[0],
                                        log4j_options[1],
                                        "-cp",
                                        libs + "/*",
                                        "kafka.Kafka",
                                        properties};
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
