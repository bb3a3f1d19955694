#pragma once
// Errors the partition log reports. Expected outcomes (an offset outside the
// log) are Kafka error codes (protocol/errors.h), passed up to the wire as
// they are; I/O failures are StorageError exceptions, which the partition
// layer maps to KAFKA_STORAGE_ERROR.
#include <stdexcept>
#include <string>

#include "protocol/errors.h"

namespace weir::storage {

class StorageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Damage found in a segment while reading it (a batch length that runs off the
// segment or is too small, an invalid header, a CRC mismatch): the partition
// answers CORRUPT_MESSAGE for reads that reach it, never an empty success.
class CorruptLogError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Throws StorageError with `what` and strerror(err).
[[noreturn]] void throw_errno(const std::string& what, int err);

}  // namespace weir::storage
