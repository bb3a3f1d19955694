#pragma once
#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace weir::compat {

struct ProcessResult {
    int exit_code = -1;  // exit status, or -signal when killed by a signal
    bool timed_out = false;
    std::string out;
    std::string err;

    // For assertion messages.
    std::string describe() const;
};

struct ProcessOptions {
    std::string stdin_data;
    std::map<std::string, std::string> env;  // added to / overriding the inherited environment
    std::filesystem::path cwd;
};

// Runs argv[0] (looked up in PATH) to completion. On timeout the whole
// process group is SIGKILLed and timed_out is set.
ProcessResult run_process(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                          const ProcessOptions& options = {});

}  // namespace weir::compat
