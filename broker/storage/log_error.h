#pragma once
// Errors the partition log reports. Expected outcomes (an offset outside the
// log) are Kafka error codes (protocol/errors.h), passed up to the wire as
// they are; I/O failures are StorageError exceptions, which the partition
// layer maps to KAFKA_STORAGE_ERROR.
#include <filesystem>
#include <stdexcept>
#include <string>

#include "protocol/errors.h"

namespace weir::storage {

class StorageError : public std::runtime_error {
public:
    explicit StorageError(const std::string& what, int error_number = 0)
        : std::runtime_error(what), error_number_(error_number) {}
    // The errno behind it, 0 if none.
    [[nodiscard]] int error_number() const { return error_number_; }
    // A full file system or quota: space can be freed (by retention or by
    // deleting topics), so the log dir stays online.
    [[nodiscard]] bool out_of_space() const;

private:
    int error_number_;
};

// Damage found in a segment while reading it (a batch length that runs off the
// segment or is too small, an invalid header, a CRC mismatch): the partition
// answers CORRUPT_MESSAGE for reads that reach it, never an empty success.
class CorruptLogError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Runs `work`, turning a std::filesystem failure into the StorageError it is
// (with its errno), so that callers handle one kind of I/O failure.
template <typename Work>
decltype(auto) with_storage_errors(Work&& work) {
    try {
        return work();
    } catch (const std::filesystem::filesystem_error& e) {
        throw StorageError(e.what(), e.code().value());
    }
}

// Throws StorageError with `what` and strerror(err).
[[noreturn]] void throw_errno(const std::string& what, int err);

}  // namespace weir::storage
