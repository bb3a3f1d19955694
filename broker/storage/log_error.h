#pragma once
// Errors the partition log reports. Expected outcomes (an offset outside the
// log) are values; I/O failures are StorageError exceptions, which the broker
// maps to KAFKA_STORAGE_ERROR.
#include <cstdint>
#include <stdexcept>
#include <string>

namespace weir::storage {

// Values are Kafka error codes so handlers can pass them through.
enum class LogErrc : std::int16_t {
    none = 0,
    offset_out_of_range = 1,
    unknown_topic_or_partition = 3,
    kafka_storage_error = 56,
};

class StorageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Throws StorageError with `what` and strerror(err).
[[noreturn]] void throw_errno(const std::string& what, int err);

}  // namespace weir::storage
