#include "broker/metadata/producer_id_block.h"

#include <boost/json.hpp>
#include <charconv>
#include <limits>

namespace weir::metadata {
namespace json = boost::json;

namespace {

std::int64_t parse_id(const json::object& o, std::string_view key) {
    const json::value* v = o.if_contains(key);
    if (!v || !v->is_string()) throw MetadataStoreError("producer id block: " + std::string(key) + " is not a string");
    const auto& s = v->as_string();
    std::int64_t out = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    if (ec != std::errc() || end != s.data() + s.size() || s.empty())
        throw MetadataStoreError("producer id block: bad " + std::string(key));
    return out;
}

}  // namespace

std::string encode_producer_id_block(const ProducerIdBlock& block) {
    json::object o;
    o["version"] = 1;
    o["broker"] = block.broker_id;
    o["block_start"] = std::to_string(block.first);
    o["block_end"] = std::to_string(block.last());
    return json::serialize(o);
}

ProducerIdBlock decode_producer_id_block(std::string_view text) {
    boost::system::error_code ec;
    json::value v = json::parse(text, ec);
    if (ec || !v.is_object()) throw MetadataStoreError("producer id block is not a JSON object");
    const auto& o = v.as_object();
    const json::value* broker = o.if_contains("broker");
    if (!broker || !broker->is_int64()) throw MetadataStoreError("producer id block: no broker");
    ProducerIdBlock block;
    block.broker_id = static_cast<std::int32_t>(broker->as_int64());
    block.first = parse_id(o, "block_start");
    const auto last = parse_id(o, "block_end");
    if (block.first < 0 || last < block.first || last - block.first >= std::numeric_limits<std::int32_t>::max())
        throw MetadataStoreError("producer id block: bad range");
    block.size = static_cast<std::int32_t>(last - block.first + 1);
    return block;
}

std::optional<ProducerIdBlock> next_producer_id_block(const std::optional<ProducerIdBlock>& previous,
                                                      std::int32_t broker_id) {
    if (!previous) return ProducerIdBlock{broker_id, 0, kProducerIdBlockSize};
    // Kafka's ZkProducerIdManager: "Have exhausted all producerIds."
    if (previous->last() > std::numeric_limits<std::int64_t>::max() - kProducerIdBlockSize) return std::nullopt;
    return ProducerIdBlock{broker_id, previous->last() + 1, kProducerIdBlockSize};
}

}  // namespace weir::metadata
