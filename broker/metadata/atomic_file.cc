#include "broker/metadata/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace weir::metadata {
namespace {

class Fd {
public:
    explicit Fd(int fd) : fd_(fd) {}
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd() {
        if (fd_ >= 0) ::close(fd_);
    }
    int get() const noexcept { return fd_; }
    // Close reporting errors (close can report delayed write errors).
    void close() {
        int fd = fd_;
        fd_ = -1;
        if (::close(fd) != 0) throw std::system_error(errno, std::generic_category(), "close");
    }

private:
    int fd_;
};

[[noreturn]] void fail(const std::string& what, const std::filesystem::path& p) {
    throw std::system_error(errno, std::generic_category(), what + " " + p.string());
}

}  // namespace

std::filesystem::path temporary_path_for(const std::filesystem::path& path) {
    std::filesystem::path tmp = path;
    tmp += ".tmp";
    return tmp;
}

void write_file_atomically(const std::filesystem::path& path, std::string_view contents) {
    const std::filesystem::path tmp = temporary_path_for(path);
    try {
        Fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
        if (fd.get() < 0) fail("open", tmp);
        std::size_t written = 0;
        while (written < contents.size()) {
            ssize_t n = ::write(fd.get(), contents.data() + written, contents.size() - written);
            if (n < 0) {
                if (errno == EINTR) continue;
                fail("write", tmp);
            }
            written += static_cast<std::size_t>(n);
        }
        if (::fsync(fd.get()) != 0) fail("fsync", tmp);
        fd.close();
        if (::rename(tmp.c_str(), path.c_str()) != 0) fail("rename", tmp);
    } catch (...) {
        std::error_code ignored;
        if (!std::filesystem::is_directory(tmp, ignored)) std::filesystem::remove(tmp, ignored);
        throw;
    }
    // Make the rename itself durable.
    std::filesystem::path dir = path.parent_path();
    if (dir.empty()) dir = ".";
    Fd dfd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dfd.get() < 0) fail("open", dir);
    if (::fsync(dfd.get()) != 0) fail("fsync", dir);
}

std::optional<std::string> read_file_if_exists(const std::filesystem::path& path) {
    Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) {
        if (errno == ENOENT) return std::nullopt;
        fail("open", path);
    }
    std::string out;
    char buf[65536];
    while (true) {
        ssize_t n = ::read(fd.get(), buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail("read", path);
        }
        if (n == 0) break;
        out.append(buf, static_cast<std::size_t>(n));
    }
    return out;
}

}  // namespace weir::metadata
