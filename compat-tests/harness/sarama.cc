#include "harness/sarama.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>

namespace weir::compat {

std::string sarama_binary() { return (std::filesystem::path(WEIR_COMPAT_BINARY_DIR) / "sarama-compat").string(); }

namespace {

// `go build` of one driver directory into `binary`, through a temp file renamed
// into place: test processes (ctest -j) build concurrently.
ProcessResult go_build(const std::string& go, const std::string& dir, const std::string& binary,
                       std::chrono::milliseconds timeout, std::map<std::string, std::string> env) {
    const std::string tmp = binary + ".tmp." + std::to_string(::getpid());
    auto r = run_process({go, "build", "-o", tmp, "."}, timeout,
                         {.env = std::move(env), .cwd = std::filesystem::path(WEIR_COMPAT_SOURCE_DIR) / dir});
    if (r.exit_code == 0) std::filesystem::rename(tmp, binary);
    return r;
}

}  // namespace

const ProcessResult& build_sarama() {
    static const ProcessResult result = [] {
        using namespace std::chrono_literals;
        if (std::string(WEIR_GO).empty()) {
            ProcessResult r;
            r.err = "go not found at configure time (Debian package golang-go)";
            return r;
        }
        const std::filesystem::path bin_dir = WEIR_COMPAT_BINARY_DIR;
        return go_build(WEIR_GO, "sarama", sarama_binary(), 200s,
                        {{"GO111MODULE", "off"},
                         {"GOPATH", WEIR_GOPATH},
                         {"GOFLAGS", ""},
                         {"GOPROXY", "off"},
                         {"GOCACHE", (bin_dir / "gocache").string()},
                         {"CGO_ENABLED", "1"}});
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
        // GOFLAGS=-modcacherw: the module cache stays removable by rm -rf.
        return go_build(go, "sarama-modern", sarama_modern_binary(), 280s,
                        {{"GO111MODULE", "on"},
                         {"GOTOOLCHAIN", "local"},
                         {"GOFLAGS", "-modcacherw -mod=readonly"},
                         {"GOMODCACHE", weir_cache_dir() + "/gomod"},
                         {"GOCACHE", (bin_dir / "gocache-modern").string()},
                         {"CGO_ENABLED", "0"}});
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
