#include "bench/broker_bench_common.h"

#include <fcntl.h>
#include <fmt/core.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace weir::bench {

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

Args parse_args(int argc, char** argv, int first) {
    Args a;
    for (int i = first; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--") {
            for (++i; i < argc; ++i) a.positional.emplace_back(argv[i]);
            break;
        }
        if (!arg.starts_with("--") || i + 1 >= argc) throw std::runtime_error("expected --key value, got " + arg);
        a.values[arg.substr(2)] = argv[++i];
    }
    return a;
}

std::string Args::str(const std::string& key, const std::string& fallback) const {
    auto it = values.find(key);
    return it == values.end() ? fallback : it->second;
}

std::int64_t Args::num(const std::string& key, std::int64_t fallback) const {
    auto it = values.find(key);
    return it == values.end() ? fallback : std::stoll(it->second);
}

std::optional<ProcSample> sample_process(pid_t pid) {
    ProcSample s;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return std::nullopt;
    // comm may contain spaces: fields restart after the last ')'.
    auto close = line.rfind(')');
    if (close == std::string::npos) return std::nullopt;
    std::istringstream rest(line.substr(close + 2));
    std::vector<std::string> fields;
    for (std::string f; rest >> f;) fields.push_back(f);
    // rest starts at field 3 (state); utime is field 14, stime 15.
    if (fields.size() < 13) return std::nullopt;
    const double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
    s.cpu_seconds = (std::stod(fields[11]) + std::stod(fields[12])) / ticks;

    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    while (std::getline(status, line)) {
        auto value = [&] { return std::stoll(line.substr(line.find(':') + 1)); };
        if (line.starts_with("VmRSS:"))
            s.vm_rss_kb = value();
        else if (line.starts_with("VmHWM:"))
            s.vm_hwm_kb = value();
    }
    return s;
}

Child spawn(const std::vector<std::string>& argv, bool capture_stdout, const std::string& log) {
    int pipe_fds[2] = {-1, -1};
    int log_fd = log.empty() ? -1 : ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (capture_stdout && ::pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
    std::vector<char*> cargv;
    for (const auto& s : argv) cargv.push_back(const_cast<char*>(s.c_str()));
    cargv.push_back(nullptr);
    pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
        if (log_fd >= 0) ::dup2(log_fd, STDERR_FILENO);
        if (capture_stdout)
            ::dup2(pipe_fds[1], STDOUT_FILENO);
        else
            ::dup2(STDERR_FILENO, STDOUT_FILENO);  // keep our stdout for RESULT lines
        ::execv(cargv[0], cargv.data());
        ::_exit(127);
    }
    if (log_fd >= 0) ::close(log_fd);
    Child c;
    c.pid = pid;
    if (capture_stdout) {
        ::close(pipe_fds[1]);
        c.stdout_pipe.reset(pipe_fds[0]);
    }
    return c;
}

double stop_child(pid_t pid, int sig, std::chrono::seconds grace) {
    const auto t0 = Clock::now();
    ::kill(pid, sig);
    int status = 0;
    while (::waitpid(pid, &status, WNOHANG) == 0) {
        if (Clock::now() - t0 > grace) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            throw std::runtime_error(fmt::format("server {} ignored signal {} for {} s", pid, sig, grace.count()));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return seconds_since(t0);
}

double percentile(const std::vector<double>& sorted, double p) {
    if (sorted.empty()) return NAN;
    auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
    return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

Result& Result::add(const std::string& key, const std::string& value) {
    line_ += fmt::format(" {}={}", key, value);
    return *this;
}
Result& Result::add(const std::string& key, double value) { return add(key, fmt::format("{:.6g}", value)); }
Result& Result::add(const std::string& key, std::int64_t value) { return add(key, std::to_string(value)); }

void Result::print() const {
    fmt::print("RESULT{}\n", line_);
    std::fflush(stdout);
}

KafkaHandle make_client(rd_kafka_type_t type, const std::vector<std::pair<std::string, std::string>>& settings,
                        void (*setup)(rd_kafka_conf_t*, void*), void* opaque) {
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    char err[512];
    for (const auto& [k, v] : settings) {
        if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), err, sizeof err) != RD_KAFKA_CONF_OK) {
            rd_kafka_conf_destroy(conf);
            throw std::runtime_error(fmt::format("{}={}: {}", k, v, err));
        }
    }
    if (setup) setup(conf, opaque);
    if (opaque) rd_kafka_conf_set_opaque(conf, opaque);
    rd_kafka_t* rk = rd_kafka_new(type, conf, err, sizeof err);  // owns conf on success
    if (!rk) {
        rd_kafka_conf_destroy(conf);
        throw std::runtime_error(std::string("rd_kafka_new: ") + err);
    }
    return KafkaHandle(rk);
}

int wait_for_topic(rd_kafka_t* rk, const std::string& topic, int partitions, std::chrono::milliseconds timeout) {
    auto deadline = Clock::now() + timeout;
    rd_kafka_topic_t* rkt = rd_kafka_topic_new(rk, topic.c_str(), nullptr);
    int found = 0;
    while (Clock::now() < deadline) {
        const rd_kafka_metadata_t* md = nullptr;
        if (rd_kafka_metadata(rk, 0, rkt, &md, 2000) == RD_KAFKA_RESP_ERR_NO_ERROR) {
            found = 0;
            if (md->topic_cnt == 1 && md->topics[0].err == RD_KAFKA_RESP_ERR_NO_ERROR) {
                for (int i = 0; i < md->topics[0].partition_cnt; ++i)
                    if (md->topics[0].partitions[i].leader >= 0) ++found;
            }
            rd_kafka_metadata_destroy(md);
            if (found >= partitions) break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    rd_kafka_topic_destroy(rkt);
    if (found < partitions)
        throw std::runtime_error(fmt::format("topic {}: {} of {} partitions ready", topic, found, partitions));
    return found;
}

void ServerMeter::start() {
    if (pid_ > 0) before_ = sample_process(pid_);
}

void ServerMeter::stop(Result& out) const {
    if (pid_ <= 0) return;
    auto after = sample_process(pid_);
    if (!before_ || !after) throw std::runtime_error(fmt::format("cannot sample server pid {}", pid_));
    out.add("server_cpu_s", after->cpu_seconds - before_->cpu_seconds)
        .add("server_hwm_kb", after->vm_hwm_kb)
        .add("server_rss_kb", after->vm_rss_kb);
}

}  // namespace weir::bench
