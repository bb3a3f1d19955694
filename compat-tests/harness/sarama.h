#pragma once
// The Sarama driver (compat-tests/sarama/main.go): an offline GOPATH-mode build
// against Debian's golang-github-shopify-sarama-dev, and its output lines.
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
