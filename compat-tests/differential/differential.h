#pragma once
// The machinery of the differential suite: one exchange with a broker, the
// normalising of what must differ between two brokers (ports, ids, times),
// the differences between two answers, and the allow-list (ALLOWED.md) that
// names each known difference with Kafka's answer, Weir's and why.
#include <boost/json.hpp>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "compat-tests/differential/wire_json.h"
#include "harness/raw_connection.h"
#include "protocol/header.h"
#include "protocol/wire/writer.h"

namespace weir::differential {

// One connection to a broker, its requests numbered.
class Peer {
public:
    explicit Peer(std::uint16_t port) : port_(port), conn_(std::make_unique<compat::RawConnection>(port)) {}

    // Sends `request` at `version` and answers the response as JSON, or
    // "<closed>" when the broker closed the connection instead (the next
    // call reconnects), or "<no answer>" after 15 s.
    template <typename Response, typename Request>
    json::value call(const Request& request, std::int16_t version) {
        return call_as<Response>(request, version, version, version);
    }
    // A request encoded at `version` whose header says `claimed` (a version
    // the broker may not serve), its answer read at `answer`.
    template <typename Response, typename Request>
    json::value call_as(const Request& request, std::int16_t version, std::int16_t claimed, std::int16_t answer) {
        wire::Bytes body;
        wire::Writer w(body);
        request.encode(w, version);
        const std::int32_t id = ++correlation_id_;
        const auto frame = protocol::request_header_version(Request::api_key, version) == 2
                               ? compat::request_frame_flexible(Request::api_key, claimed, id, body, "differential")
                               : compat::request_frame(Request::api_key, claimed, id, body, "differential");
        std::vector<std::uint8_t> reply;
        const auto status = conn_->send(frame) ? conn_->read_frame(reply, std::chrono::seconds(15))
                                               : compat::RawConnection::ReadStatus::closed;
        if (status != compat::RawConnection::ReadStatus::frame) {
            conn_ = std::make_unique<compat::RawConnection>(port_);
            return json::string(status == compat::RawConnection::ReadStatus::closed ? "<closed>" : "<no answer>");
        }
        try {
            wire::Reader r(reply);
            const auto header =
                protocol::decode_response_header(r, protocol::response_header_version(Request::api_key, answer));
            if (header.correlation_id != id) return json::string("<wrong correlation id>");
            const auto decoded = Response::decode(r, answer);
            if (!r.at_end()) return json::string("<" + std::to_string(r.remaining()) + " bytes after the response>");
            return to_json(decoded, answer);
        } catch (const std::exception& e) {
            return json::string(std::string("<undecodable: ") + e.what() + ">");
        }
    }

    // Sends `bytes` as they are (a frame the broker must refuse): "<closed>"
    // when the broker closes the connection, "<answered>" when it answers
    // instead, "<no answer>" when it does neither within `wait`. The next
    // call reconnects.
    json::value raw(std::span<const std::uint8_t> bytes, std::chrono::milliseconds wait) {
        std::vector<std::uint8_t> reply;
        const auto status =
            conn_->send(bytes) ? conn_->read_frame(reply, wait) : compat::RawConnection::ReadStatus::closed;
        conn_ = std::make_unique<compat::RawConnection>(port_);
        switch (status) {
            case compat::RawConnection::ReadStatus::frame:
                return json::string("<answered>");
            case compat::RawConnection::ReadStatus::closed:
                return json::string("<closed>");
            case compat::RawConnection::ReadStatus::timeout:
                break;
        }
        return json::string("<no answer>");
    }

private:
    std::uint16_t port_;
    std::unique_ptr<compat::RawConnection> conn_;
    std::int32_t correlation_id_ = 0;
};

// Replaces, in place, what two brokers answer differently by nature: ports
// and hosts, cluster, topic, member, producer and session ids, broker-made
// times and feature epochs, throttle times, the text (not the presence) of
// error messages, and the order of lists whose order means nothing
// (partitions, configs).
void normalize(json::value& v);

struct Difference {
    std::string path;   // e.g. Topics/0/ErrorCode
    std::string kafka;  // JSON, "<absent>" when only Weir has it
    std::string weir;
};
std::vector<Difference> differences(const json::value& kafka, const json::value& weir);

struct Allowed {
    std::string reference;  // the Kafka it applies to: "3.9", "4.4" or "all"
    std::string scenario;
    Difference difference;
    std::string why;
    bool seen = false;

    // Whether the row applies to a run against Kafka `reference` ("3.9", "4.4").
    [[nodiscard]] bool applies_to(std::string_view run) const { return reference == "all" || reference == run; }
};
// The rows of ALLOWED.md's table: | reference | scenario | path | Kafka | Weir |
// why |, the JSON values in backquotes.
std::vector<Allowed> read_allowed(const std::filesystem::path& file);
// A row to paste into ALLOWED.md for a difference not allowed yet.
std::string allowed_row(const std::string& reference, const std::string& scenario, const Difference& d);

}  // namespace weir::differential
