#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace weir::config {

// A configuration the broker must not start with (main exits with code 2).
// `errors` holds one message per problem; what() joins them with newlines.
class ConfigError : public std::runtime_error {
public:
    explicit ConfigError(const std::string& message) : std::runtime_error(message), errors_{message} {}
    explicit ConfigError(std::vector<std::string> errors)
        : std::runtime_error(join(errors)), errors_(std::move(errors)) {}

    const std::vector<std::string>& errors() const noexcept { return errors_; }

private:
    static std::string join(const std::vector<std::string>& errors) {
        std::string out;
        for (const auto& e : errors) {
            if (!out.empty()) out += '\n';
            out += e;
        }
        return out;
    }

    std::vector<std::string> errors_;
};

}  // namespace weir::config
