#include "harness/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <stdexcept>
#include <system_error>

namespace weir::compat {
namespace {

using Clock = std::chrono::steady_clock;

struct Pipe {
    int read = -1;
    int write = -1;
    Pipe() {
        int fds[2];
        if (::pipe2(fds, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe2");
        read = fds[0];
        write = fds[1];
    }
};

void close_fd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
}

int decode_status(int status) {
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return -WTERMSIG(status);
    return -1;
}

}  // namespace

std::string ProcessResult::describe() const {
    std::string s = "exit_code=" + std::to_string(exit_code) + (timed_out ? " (TIMED OUT)" : "");
    s += "\n--- stdout ---\n" + (out.size() > 8000 ? "..." + out.substr(out.size() - 8000) : out);
    s += "\n--- stderr ---\n" + (err.size() > 8000 ? "..." + err.substr(err.size() - 8000) : err);
    return s;
}

ProcessResult run_process(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                          const ProcessOptions& options) {
    if (argv.empty()) throw std::invalid_argument("run_process: empty argv");
    Pipe in, out, err;
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) throw std::system_error(errno, std::generic_category(), "fork");
    if (pid == 0) {
        ::setpgid(0, 0);
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (::getppid() != parent) ::_exit(127);
        ::dup2(in.read, 0);
        ::dup2(out.write, 1);
        ::dup2(err.write, 2);
        for (const auto& [k, v] : options.env) ::setenv(k.c_str(), v.c_str(), 1);
        if (!options.cwd.empty() && ::chdir(options.cwd.c_str()) != 0) ::_exit(126);
        ::close_range(3, ~0U, 0);
        std::vector<char*> args;
        for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
        args.push_back(nullptr);
        ::execvp(args[0], args.data());
        ::_exit(127);
    }
    close_fd(in.read);
    close_fd(out.write);
    close_fd(err.write);
    ::fcntl(in.write, F_SETFL, O_NONBLOCK);

    ProcessResult result;
    const auto deadline = Clock::now() + timeout;
    std::size_t written = 0;
    if (options.stdin_data.empty()) close_fd(in.write);
    std::array<char, 65536> buf;
    while (out.read >= 0 || err.read >= 0) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        if (left <= 0) {
            result.timed_out = true;
            break;
        }
        std::array<pollfd, 3> fds{{{out.read, POLLIN, 0}, {err.read, POLLIN, 0}, {in.write, POLLOUT, 0}}};
        const int n = ::poll(fds.data(), fds.size(), static_cast<int>(std::min<long long>(left, 200)));
        if (n < 0 && errno != EINTR) break;
        if (n <= 0) continue;
        for (int i = 0; i < 2; ++i) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            const ssize_t r = ::read(fds[i].fd, buf.data(), buf.size());
            if (r > 0) {
                (i == 0 ? result.out : result.err).append(buf.data(), static_cast<std::size_t>(r));
            } else if (r == 0 || errno != EINTR) {
                close_fd(i == 0 ? out.read : err.read);
            }
        }
        if (fds[2].fd >= 0 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
            const ssize_t w =
                ::write(in.write, options.stdin_data.data() + written, options.stdin_data.size() - written);
            if (w > 0) written += static_cast<std::size_t>(w);
            if (w < 0 && errno != EAGAIN && errno != EINTR) close_fd(in.write);
            if (written == options.stdin_data.size()) close_fd(in.write);
        }
    }
    close_fd(in.write);
    close_fd(out.read);
    close_fd(err.read);

    int status = 0;
    if (result.timed_out) {
        ::kill(-pid, SIGKILL);
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        result.exit_code = decode_status(status);
        return result;
    }
    // Output closed; the process should be exiting. Still bounded.
    while (true) {
        const pid_t w = ::waitpid(pid, &status, WNOHANG);
        if (w == pid) break;
        if (Clock::now() >= deadline) {
            result.timed_out = true;
            ::kill(-pid, SIGKILL);
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            break;
        }
        ::usleep(10'000);
    }
    result.exit_code = decode_status(status);
    return result;
}

}  // namespace weir::compat
