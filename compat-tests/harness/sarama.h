#pragma once
// The Sarama drivers: compat-tests/sarama/main.go, an offline GOPATH-mode
// build against Debian's golang-github-shopify-sarama-dev, and
// compat-tests/sarama-modern, a module-mode build of IBM Sarama at the version
// its go.mod pins; and their output lines, which are the same.
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/subprocess.h"

namespace weir::compat {

// Builds the driver once per process (GOCACHE in the build tree, so later
// builds take a second or two) and returns that build's result; the binary
// is then at sarama_binary(). Safe to call from every test's SetUp.
const ProcessResult& build_sarama();
std::string sarama_binary();

// Runs the driver: `args` are its flags and mode, as in main.go's usage.
ProcessResult run_sarama(std::vector<std::string> args, std::chrono::milliseconds timeout = std::chrono::seconds(30));

// Builds compat-tests/sarama-modern once per process with the Go toolchain
// compat-tests/go/go-toolchain pins (its go.mod needs Go 1.26), its modules
// from the Go module proxy in GOMODCACHE under the weir cache directory
// scripts/install-deps.sh fills ($WEIR_CACHE_DIR, else $XDG_CACHE_HOME/weir,
// else ~/.cache/weir), GOCACHE in the build tree.
const ProcessResult& build_sarama_modern();
std::string sarama_modern_binary();
ProcessResult run_sarama_modern(std::vector<std::string> args,
                                std::chrono::milliseconds timeout = std::chrono::seconds(30));
// The cache directory above.
std::string weir_cache_dir();

// "produced P OFFSET KEY VALUE TS_MS" and "consumed P OFFSET KEY VALUE TS_MS HEADERS".
struct SaramaLine {
    std::string kind;
    int partition = -1;
    std::int64_t offset = -1;
    std::string key, value;
    std::int64_t timestamp = -1;
    std::string headers;
};
std::vector<SaramaLine> parse_sarama(const std::string& out);

}  // namespace weir::compat
