#pragma once

// The two ways kafka-topics.sh fails, which differ in where the message goes.
#include <stdexcept>
#include <string>

namespace weir::cli::topics {

// Refused before anything is sent: the message on stderr and exit code 1, followed by the option
// table when Kafka prints it too (CommandLineUtils.printUsageAndExit).
class UsageError : public std::runtime_error {
public:
    UsageError(const std::string& message, bool with_usage) : std::runtime_error(message), with_usage_(with_usage) {}
    bool with_usage() const { return with_usage_; }

private:
    bool with_usage_;
};

// Failed while executing: "Error while executing topic command : <message>" and exit code 1.
class CommandError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace weir::cli::topics
