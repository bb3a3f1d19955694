#include "harness/sarama.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace weir::compat {

std::string sarama_binary() { return (std::filesystem::path(WEIR_COMPAT_BINARY_DIR) / "sarama-compat").string(); }

const ProcessResult& build_sarama() {
    static const ProcessResult result = [] {
        using namespace std::chrono_literals;
        if (std::string(WEIR_GO).empty()) {
            ProcessResult r;
            r.err = "go not found at configure time (Debian package golang-go)";
            return r;
        }
        const std::filesystem::path bin_dir = WEIR_COMPAT_BINARY_DIR;
        const std::string tmp = sarama_binary() + ".tmp." + std::to_string(::getpid());
        auto r = run_process({WEIR_GO, "build", "-o", tmp, "."}, 200s,
                             {.env = {{"GO111MODULE", "off"},
                                      {"GOPATH", WEIR_GOPATH},
                                      {"GOFLAGS", ""},
                                      {"GOPROXY", "off"},
                                      {"GOCACHE", (bin_dir / "gocache").string()},
                                      {"CGO_ENABLED", "1"}},
                              .cwd = std::filesystem::path(WEIR_COMPAT_SOURCE_DIR) / "sarama"});
        // Atomic, as test processes (ctest -j) build concurrently.
        if (r.exit_code == 0) std::filesystem::rename(tmp, sarama_binary());
        return r;
    }();
    return result;
}

std::string weir_cache_dir() {
    auto env = [](const char* name) -> std::string {
        const char* v = std::getenv(name);
        return v ? v : "";
    };
    if (!env("WEIR_CACHE_DIR").empty()) return env("WEIR_CACHE_DIR");
    if (!env("XDG_CACHE_HOME").empty()) return env("XDG_CACHE_HOME") + "/weir";
    return env("HOME") + "/.cache/weir";
}

std::string sarama_modern_binary() {
    return (std::filesystem::path(WEIR_COMPAT_BINARY_DIR) / "sarama-modern").string();
}

const ProcessResult& build_sarama_modern() {
    static const ProcessResult result = [] {
        using namespace std::chrono_literals;
        // The module needs Go 1.26: the pinned toolchain franz-go's runner uses too,
        // fetched through the module proxy by whatever go the machine has.
        const std::filesystem::path source = WEIR_COMPAT_SOURCE_DIR;
        auto toolchain = run_process({(source / "go" / "go-toolchain").string()}, 900s);
        if (toolchain.exit_code != 0) return toolchain;
        std::string go = toolchain.out;
        while (!go.empty() && (go.back() == '\n' || go.back() == ' ')) go.pop_back();
        const std::filesystem::path bin_dir = WEIR_COMPAT_BINARY_DIR;
        const std::string cache = weir_cache_dir();
        const std::string tmp = sarama_modern_binary() + ".tmp." + std::to_string(::getpid());
        // GOFLAGS=-modcacherw: the module cache stays removable by rm -rf.
        auto r = run_process({go, "build", "-o", tmp, "."}, 280s,
                             {.env = {{"GO111MODULE", "on"},
                                      {"GOTOOLCHAIN", "local"},
                                      {"GOFLAGS", "-modcacherw -mod=readonly"},
                                      {"GOMODCACHE", cache + "/gomod"},
                                      {"GOCACHE", (bin_dir / "gocache-modern").string()},
                                      {"CGO_ENABLED", "0"}},
                              .cwd = std::filesystem::path(WEIR_COMPAT_SOURCE_DIR) / "sarama-modern"});
        if (r.exit_code == 0) std::filesystem::rename(tmp, sarama_modern_binary());
        return r;
    }();
    return result;
}

ProcessResult run_sarama_modern(std::vector<std::string> args, std::chrono::milliseconds timeout) {
    args.insert(args.begin(), sarama_modern_binary());
    return run_process(args, timeout);
}

ProcessResult run_sarama(std::vector<std::string> args, std::chrono::milliseconds timeout) {
    args.insert(args.begin(), sarama_binary());
    return run_process(args, timeout);
}

std::vector<SaramaLine> parse_sarama(const std::string& out) {
    std::vector<SaramaLine> lines;
    std::istringstream in(out);
    for (std::string l; std::getline(in, l);) {
        std::istringstream f(l);
        SaramaLine line;
        f >> line.kind >> line.partition >> line.offset >> line.key >> line.value >> line.timestamp >> line.headers;
        lines.push_back(line);
    }
    return lines;
}

}  // namespace weir::compat
