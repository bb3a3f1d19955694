#pragma once
// The command line of `weir transactions`, Kafka's kafka-transactions.sh
// (TransactionsCommand): list, describe, describe-producers, abort.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace weir::cli::transactions {

// A bad command line (exit code 2).
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

enum class Command { list, describe, describe_producers, abort };

struct TransactionsOptions {
    bool help = false;
    std::string bootstrap_server;  // host:port[,host:port...]
    Command command = Command::list;
    std::string transactional_id;  // describe
    std::string topic;             // describe-producers, abort
    std::int32_t partition = -1;
    std::optional<std::int32_t> broker_id;  // describe-producers: ask this replica, not the leader
    // abort: either the open transaction's first offset (its producer is looked up
    // with DescribeProducers) or the producer named outright.
    std::optional<std::int64_t> start_offset;
    std::optional<std::int64_t> producer_id;
    std::optional<std::int16_t> producer_epoch;
    std::optional<std::int32_t> coordinator_epoch;
};

// Parses the arguments after `weir transactions`; throws UsageError.
TransactionsOptions parse_transactions_args(const std::vector<std::string>& args);

std::string transactions_usage_text();

}  // namespace weir::cli::transactions
