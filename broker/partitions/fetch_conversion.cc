#include "broker/partitions/fetch_conversion.h"

#include <algorithm>
#include <stdexcept>

#include "broker/storage/batch_scanner.h"
#include "protocol/records/conversion.h"
#include "protocol/records/record_batch.h"

namespace weir::partitions {

namespace {

bool is_zstd(const records::BatchHeader& header) { return header.compression() == records::Compression::zstd; }

bool contains_zstd(wire::ByteSpan records) {
    return std::ranges::any_of(records::split_batches(records, true),
                               [](auto batch) { return is_zstd(records::parse_batch_header(batch)); });
}

}  // namespace

RecordsConverter converter_for_fetch_version(std::int16_t version) {
    if (version >= 10) return {};
    return [version](wire::RecordsData& records) {
        wire::Bytes copy;
        try {
            if (const auto* region = records.file_region(); region && version > 3) {
                storage::BatchScanner scanner(*region);
                while (auto batch = scanner.next())
                    if (is_zstd(batch->header)) return ErrorCode::unsupported_compression_type;
                if (scanner.stop() == storage::BatchScanner::Stop::corrupt) return ErrorCode::corrupt_message;
                // Torn: the file was cut under the read.
                return scanner.stop() == storage::BatchScanner::Stop::end ? ErrorCode::none
                                                                          : ErrorCode::kafka_storage_error;
            }
            if (records.file_region()) copy = records.contents();
        } catch (const std::runtime_error&) {
            return ErrorCode::kafka_storage_error;  // the segment failed or was cut under the read
        }
        const auto bytes = records.file_region() ? wire::ByteSpan(copy) : records.bytes();
        if (contains_zstd(bytes)) return ErrorCode::unsupported_compression_type;
        if (version > 3) return ErrorCode::none;
        try {
            records::DownConvertOptions down;
            down.magic = version <= 1 ? 0 : 1;
            records = wire::RecordsData(records::down_convert(bytes, down).records);
        } catch (const records::UnsupportedCompressionError&) {
            return ErrorCode::unsupported_compression_type;
        } catch (const wire::DecodeError&) {
            return ErrorCode::corrupt_message;
        }
        return ErrorCode::none;
    };
}

}  // namespace weir::partitions
