#include "cli/transactions/transactions_cli.h"

#include <boost/asio/error.hpp>
#include <iostream>
#include <stdexcept>

#include "cli/transactions/transactions_args.h"
#include "cli/wireclient/wire_client.h"
#include "messages/describe_producers.h"
#include "messages/describe_transactions.h"
#include "messages/find_coordinator.h"
#include "messages/list_transactions.h"
#include "messages/write_txn_markers.h"
#include "protocol/errors.h"
#include "protocol/wire/reader.h"

namespace weir::cli::transactions {

using wireclient::Endpoint;
using wireclient::parse_bootstrap;
using wireclient::WireClient;

namespace {

constexpr std::int8_t kTransactionKeyType = 1;

// The cluster answered with an error code.
class KafkaError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

void check(std::int16_t code, const std::string& what) {
    if (code != 0)
        throw KafkaError(what + ": " + std::string(error_name(static_cast<ErrorCode>(code))) + ": " +
                         std::string(error_message(static_cast<ErrorCode>(code))));
}

std::string or_none(std::int64_t v) { return v < 0 ? "None" : std::to_string(v); }

Endpoint leader_of(WireClient& client, const std::string& topic, std::int32_t partition) {
    auto md = client.metadata(std::vector<std::string>{topic});
    for (const auto& t : md.topics) {
        if (t.name != topic) continue;
        check(t.error_code, "topic " + topic);
        for (const auto& p : t.partitions) {
            if (p.partition_index != partition) continue;
            check(p.error_code, topic + "-" + std::to_string(partition));
            if (auto b = client.broker(p.leader_id)) return *b;
            throw KafkaError(topic + "-" + std::to_string(partition) + " has no leader");
        }
    }
    throw KafkaError(std::string(error_name(ErrorCode::unknown_topic_or_partition)) + ": " + topic + "-" +
                     std::to_string(partition));
}

msg::DescribeProducersResponse::PartitionResponse describe_producers(WireClient& client, const TransactionsOptions& o) {
    Endpoint to = leader_of(client, o.topic, o.partition);
    if (o.broker_id) {
        auto b = client.broker(*o.broker_id);
        if (!b) throw KafkaError("no broker " + std::to_string(*o.broker_id) + " in the cluster");
        to = *b;
    }
    msg::DescribeProducersRequest request;
    auto& t = request.topics.emplace_back();
    t.name = o.topic;
    t.partition_indexes = {o.partition};
    auto response = client.send<msg::DescribeProducersResponse>(to, request, 0);
    if (response.topics.empty() || response.topics[0].partitions.empty())
        throw KafkaError("empty DescribeProducers answer");
    auto p = response.topics[0].partitions[0];
    check(p.error_code, o.topic + "-" + std::to_string(o.partition));
    return p;
}

void list(WireClient& client, std::ostream& out) {
    client.metadata(std::vector<std::string>{});
    std::vector<std::vector<std::string>> rows;
    for (const auto& [id, endpoint] : client.brokers()) {
        auto response = client.send<msg::ListTransactionsResponse>(endpoint, msg::ListTransactionsRequest{}, 0);
        check(response.error_code, "broker " + std::to_string(id));
        for (const auto& t : response.transaction_states)
            rows.push_back(
                {t.transactional_id, std::to_string(id), std::to_string(t.producer_id), t.transaction_state});
    }
    out << format_table({"TransactionalId", "Coordinator", "ProducerId", "TransactionState"}, rows);
}

void describe(WireClient& client, const TransactionsOptions& o, std::ostream& out) {
    client.metadata(std::vector<std::string>{});
    msg::FindCoordinatorRequest find;
    find.key = o.transactional_id;
    find.key_type = kTransactionKeyType;
    const auto& any = client.brokers().begin()->second;
    auto located = client.send<msg::FindCoordinatorResponse>(any, find, 3);
    check(located.error_code, "coordinator of " + o.transactional_id);
    msg::DescribeTransactionsRequest request;
    request.transactional_ids = {o.transactional_id};
    auto response = client.send<msg::DescribeTransactionsResponse>(Endpoint{located.host, located.port}, request, 0);
    if (response.transaction_states.empty()) throw KafkaError("empty DescribeTransactions answer");
    const auto& s = response.transaction_states[0];
    check(s.error_code, o.transactional_id);
    std::string partitions;
    for (const auto& t : s.topics)
        for (auto p : t.partitions) partitions += (partitions.empty() ? "" : ",") + t.topic + "-" + std::to_string(p);
    const auto now =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    const std::string duration =
        s.transaction_start_time_ms < 0 ? "None" : std::to_string(now - s.transaction_start_time_ms);
    out << format_table(
        {"CoordinatorId", "TransactionalId", "ProducerId", "ProducerEpoch", "TransactionState", "TransactionTimeoutMs",
         "CurrentTransactionStartTimeMs", "TransactionDurationMs", "TopicPartitions"},
        {{std::to_string(located.node_id), s.transactional_id, std::to_string(s.producer_id),
          std::to_string(s.producer_epoch), s.transaction_state, std::to_string(s.transaction_timeout_ms),
          or_none(s.transaction_start_time_ms), duration, partitions}});
}

void producers(WireClient& client, const TransactionsOptions& o, std::ostream& out) {
    auto p = describe_producers(client, o);
    std::vector<std::vector<std::string>> rows;
    for (const auto& s : p.active_producers)
        rows.push_back({std::to_string(s.producer_id), std::to_string(s.producer_epoch),
                        std::to_string(s.coordinator_epoch), std::to_string(s.last_sequence),
                        std::to_string(s.last_timestamp), or_none(s.current_txn_start_offset)});
    out << format_table({"ProducerId", "ProducerEpoch", "LatestCoordinatorEpoch", "LastSequence", "LastTimestamp",
                         "CurrentTransactionStartOffset"},
                        rows);
}

void abort_transaction(WireClient& client, const TransactionsOptions& o, std::ostream& out) {
    std::int64_t producer_id = o.producer_id.value_or(-1);
    std::int16_t producer_epoch = o.producer_epoch.value_or(-1);
    std::int32_t coordinator_epoch = o.coordinator_epoch.value_or(-1);
    if (o.start_offset) {
        auto p = describe_producers(client, o);
        bool found = false;
        for (const auto& s : p.active_producers) {
            if (s.current_txn_start_offset != *o.start_offset) continue;
            producer_id = s.producer_id;
            producer_epoch = static_cast<std::int16_t>(s.producer_epoch);
            // As Kafka's tool: a producer the partition never saw a marker for has coordinator epoch -1.
            coordinator_epoch = std::max(s.coordinator_epoch, 0);
            found = true;
        }
        if (!found)
            throw KafkaError("Could not find any open transactions starting at offset " +
                             std::to_string(*o.start_offset) + " on partition " + o.topic + "-" +
                             std::to_string(o.partition));
    }
    msg::WriteTxnMarkersRequest request;
    auto& marker = request.markers.emplace_back();
    marker.producer_id = producer_id;
    marker.producer_epoch = producer_epoch;
    marker.transaction_result = false;  // ABORT
    marker.coordinator_epoch = coordinator_epoch;
    auto& topic = marker.topics.emplace_back();
    topic.name = o.topic;
    topic.partition_indexes = {o.partition};
    auto response = client.send<msg::WriteTxnMarkersResponse>(leader_of(client, o.topic, o.partition), request, 1);
    for (const auto& m : response.markers)
        for (const auto& t : m.topics)
            for (const auto& p : t.partitions) check(p.error_code, t.name + "-" + std::to_string(p.partition_index));
    out << "Aborted the transaction of producer " << producer_id << " (epoch " << producer_epoch << ") on " << o.topic
        << "-" << o.partition << "\n";
}

}  // namespace

std::string format_table(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows) {
    std::vector<std::size_t> widths;
    for (const auto& h : header) widths.push_back(h.size());
    for (const auto& row : rows)
        for (std::size_t i = 0; i < row.size() && i < widths.size(); ++i)
            widths[i] = std::max(widths[i], row[i].size());
    std::string out;
    auto line = [&](const std::vector<std::string>& cells) {
        std::string text;
        for (std::size_t i = 0; i < cells.size() && i < widths.size(); ++i) {
            text += cells[i];
            if (i + 1 < cells.size()) text += std::string(widths[i] - cells[i].size() + 1, ' ');
        }
        out += text + "\n";
    };
    line(header);
    for (const auto& row : rows) line(row);
    return out;
}

int run_transactions(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    TransactionsOptions o;
    try {
        o = parse_transactions_args(args);
    } catch (const UsageError& e) {
        err << "weir transactions: " << e.what() << "\n" << transactions_usage_text();
        return 2;
    }
    if (o.help) {
        out << transactions_usage_text();
        return 0;
    }
    return wireclient::run_against_cluster("transactions", err, [&] {
        WireClient client(parse_bootstrap(o.bootstrap_server), std::chrono::seconds(10));
        switch (o.command) {
            case Command::list:
                list(client, out);
                break;
            case Command::describe:
                describe(client, o, out);
                break;
            case Command::describe_producers:
                producers(client, o, out);
                break;
            case Command::abort:
                abort_transaction(client, o, out);
                break;
        }
    });
}

int transactions_main(const std::vector<std::string>& args) { return run_transactions(args, std::cout, std::cerr); }

}  // namespace weir::cli::transactions
