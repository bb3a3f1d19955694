#include "harness/sarama.h"

#include <unistd.h>

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
