// Fetch: every version. Long polling parks the request until min_bytes are
// available or max_wait_ms passes, woken by appends (not by polling).
// v0-v3 predate record batches and get down-converted message sets.
// Fetch sessions (KIP-227): Weir declines to create sessions (answers
// session id 0), which KIP-227 allows; clients then keep sending full fetches.
#include "broker/handlers/handlers.h"
#include "broker/partitions/partition_manager.h"
#include "protocol/records/conversion.h"
#include "protocol/records/record_batch.h"

namespace weir::handlers {

namespace {

constexpr std::int32_t kInvalidSessionId = 0;
constexpr std::int32_t kFinalEpoch = -1;

struct PartitionRef {
    std::size_t topic_index;
    std::size_t partition_index;
    std::shared_ptr<storage::PartitionLog> log;
};

void fill_offsets(msg::FetchResponse::PartitionData& out, const storage::PartitionLog& log) {
    out.high_watermark = log.high_watermark();
    out.last_stable_offset = log.last_stable_offset();
    out.log_start_offset = log.log_start_offset();
}

bool contains_zstd(wire::ByteSpan records) {
    for (auto batch : records::split_batches(records, true))
        if (records::parse_batch_header(batch).compression() == records::Compression::zstd) return true;
    return false;
}

}  // namespace

Task<msg::FetchResponse> handle(BrokerContext& broker, const RequestContext& ctx, msg::FetchRequest request) {
    const auto version = ctx.version();
    msg::FetchResponse response;

    if (version >= 7 && request.session_id != kInvalidSessionId && request.session_epoch != kFinalEpoch) {
        // An incremental fetch on a session we never created.
        response.error_code = static_cast<std::int16_t>(ErrorCode::fetch_session_id_not_found);
        co_return response;
    }

    const auto deadline = ctx.received + std::chrono::milliseconds(std::max<std::int32_t>(request.max_wait_ms, 0));
    const std::int64_t response_max = version >= 3 ? std::max<std::int32_t>(request.max_bytes, 0) : INT32_MAX;
    const bool read_committed = version >= 4 && request.isolation_level == 1;
    const std::int8_t legacy_magic = version <= 1 ? 0 : 1;

    // Resolve every requested partition once; the long-poll loop re-reads them.
    response.responses.reserve(request.topics.size());
    std::vector<PartitionRef> refs;
    bool any_error = false;
    for (std::size_t t = 0; t < request.topics.size(); ++t) {
        auto& topic = request.topics[t];
        auto& topic_out = response.responses.emplace_back();
        std::optional<std::string> name;
        if (version >= 13) {
            topic_out.topic_id = topic.topic_id;
            name = broker.topic_name_for_id(topic.topic_id);
        } else {
            topic_out.topic = topic.topic;
            name = topic.topic;
        }
        for (std::size_t p = 0; p < topic.partitions.size(); ++p) {
            auto& partition = topic.partitions[p];
            auto& out = topic_out.partitions.emplace_back();
            out.partition_index = partition.partition;
            out.high_watermark = -1;
            if (version >= 4 && !read_committed) out.aborted_transactions = std::nullopt;
            else if (version >= 4) out.aborted_transactions.emplace();
            std::shared_ptr<storage::PartitionLog> log;
            if (name) log = broker.partitions.find({*name, partition.partition});
            if (!log) {
                out.error_code = static_cast<std::int16_t>(version >= 13 && !name ? ErrorCode::unknown_topic_id
                                                                                     : ErrorCode::unknown_topic_or_partition);
                any_error = true;
                continue;
            }
            refs.push_back({t, p, std::move(log)});
        }
    }

    while (true) {
        std::int64_t total = 0;
        bool first_data = true;
        for (auto& ref : refs) {
            const auto& in = request.topics[ref.topic_index].partitions[ref.partition_index];
            auto& out = response.responses[ref.topic_index].partitions[ref.partition_index];
            out.error_code = 0;
            out.records.reset();
            fill_offsets(out, *ref.log);
            const std::int64_t remaining = response_max - total;
            if (remaining <= 0 && !first_data) continue;

            storage::ReadOptions options;
            options.max_bytes = static_cast<std::size_t>(std::max<std::int64_t>(0, std::min<std::int64_t>(in.partition_max_bytes, remaining)));
            // KIP-74: the first batch of the first partition with data comes back
            // whole even if larger than the limits, so a consumer never stalls.
            options.min_one_batch = first_data;
            if (read_committed) options.max_offset = ref.log->last_stable_offset();
            auto result = ref.log->read(in.fetch_offset, options);
            if (result.error != storage::LogErrc::none) {
                out.error_code = static_cast<std::int16_t>(result.error);
                any_error = true;
                continue;
            }
            wire::Bytes records = std::move(result.records);
            // zstd needs Fetch v10+ (KIP-110); older fetchers get an error rather
            // than batches they cannot decompress.
            if (version < 10 && contains_zstd(records)) {
                out.error_code = static_cast<std::int16_t>(ErrorCode::unsupported_compression_type);
                any_error = true;
                continue;
            }
            if (version <= 3 && !records.empty()) {
                try {
                    records::DownConvertOptions down;
                    down.magic = legacy_magic;
                    records = records::down_convert(records, down).records;
                } catch (const records::UnsupportedCompressionError&) {
                    out.error_code = static_cast<std::int16_t>(ErrorCode::unsupported_compression_type);
                    any_error = true;
                    continue;
                } catch (const wire::DecodeError&) {
                    out.error_code = static_cast<std::int16_t>(ErrorCode::corrupt_message);
                    any_error = true;
                    continue;
                }
            }
            if (!records.empty()) {
                total += static_cast<std::int64_t>(records.size());
                first_data = false;
            }
            out.records = wire::RecordsData(std::move(records));
        }
        if (any_error || total >= request.min_bytes || (total > 0 && total >= response_max) ||
            std::chrono::steady_clock::now() >= deadline || refs.empty() || broker.stopping())
            break;
        std::vector<std::shared_ptr<storage::PartitionLog>> logs;
        logs.reserve(refs.size());
        for (const auto& ref : refs) logs.push_back(ref.log);
        co_await broker.partitions.wait_for_append(std::move(logs), deadline);
    }

    // Every partition carries a records field; empty rather than null, as Kafka sends.
    for (auto& topic : response.responses)
        for (auto& p : topic.partitions)
            if (!p.records) p.records = wire::RecordsData();
    co_return response;
}

}  // namespace weir::handlers
