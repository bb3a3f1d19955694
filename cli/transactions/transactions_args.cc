#include "cli/transactions/transactions_args.h"

#include <charconv>
#include <limits>

namespace weir::cli::transactions {

namespace {

template <typename Int>
Int parse_int(const std::string& flag, const std::string& text) {
    std::int64_t value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size() || value < std::numeric_limits<Int>::min() ||
        value > std::numeric_limits<Int>::max())
        throw UsageError("invalid value for " + flag + ": " + text);
    return static_cast<Int>(value);
}

}  // namespace

TransactionsOptions parse_transactions_args(const std::vector<std::string>& args) {
    TransactionsOptions o;
    std::optional<std::string> command;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&]() -> const std::string& {
            if (i + 1 >= args.size()) throw UsageError("missing value for " + a);
            return args[++i];
        };
        if (a == "-h" || a == "--help") {
            o.help = true;
        } else if (a == "--bootstrap-server") {
            o.bootstrap_server = value();
        } else if (a == "--transactional-id") {
            o.transactional_id = value();
        } else if (a == "--topic") {
            o.topic = value();
        } else if (a == "--partition") {
            o.partition = parse_int<std::int32_t>(a, value());
        } else if (a == "--broker-id") {
            o.broker_id = parse_int<std::int32_t>(a, value());
        } else if (a == "--start-offset") {
            o.start_offset = parse_int<std::int64_t>(a, value());
        } else if (a == "--producer-id") {
            o.producer_id = parse_int<std::int64_t>(a, value());
        } else if (a == "--producer-epoch") {
            o.producer_epoch = parse_int<std::int16_t>(a, value());
        } else if (a == "--coordinator-epoch") {
            o.coordinator_epoch = parse_int<std::int32_t>(a, value());
        } else if (!a.empty() && a[0] == '-') {
            throw UsageError("unknown option " + a);
        } else if (command) {
            throw UsageError("unexpected argument " + a);
        } else {
            command = a;
        }
    }
    if (o.help) return o;
    if (o.bootstrap_server.empty()) throw UsageError("--bootstrap-server is required");
    if (!command) throw UsageError("a command is required: list, describe, describe-producers or abort");
    if (*command == "list") {
        o.command = Command::list;
    } else if (*command == "describe") {
        o.command = Command::describe;
        if (o.transactional_id.empty()) throw UsageError("describe needs --transactional-id");
    } else if (*command == "describe-producers" || *command == "abort") {
        o.command = *command == "abort" ? Command::abort : Command::describe_producers;
        if (o.topic.empty() || o.partition < 0) throw UsageError(*command + " needs --topic and --partition");
        if (o.command == Command::abort) {
            const bool by_producer = o.producer_id || o.producer_epoch || o.coordinator_epoch;
            if (o.start_offset && by_producer)
                throw UsageError(
                    "abort takes --start-offset or the producer's id, epoch and coordinator epoch, not both");
            if (!o.start_offset && !(o.producer_id && o.producer_epoch && o.coordinator_epoch))
                throw UsageError(
                    "abort needs --start-offset, or --producer-id, --producer-epoch and --coordinator-epoch");
        }
    } else {
        throw UsageError("unknown command " + *command);
    }
    return o;
}

std::string transactions_usage_text() {
    return R"(usage: weir transactions --bootstrap-server HOST:PORT COMMAND [options]

Transactions and transactional producers of any Kafka cluster (kafka-transactions.sh).

commands:
  list                                  every transaction the coordinators know
  describe --transactional-id ID        one transactional id's state
  describe-producers --topic T --partition P [--broker-id B]
                                        the producers a partition knows (its leader, or broker B)
  abort --topic T --partition P --start-offset O
                                        aborts the open transaction that starts at offset O
  abort --topic T --partition P --producer-id ID --producer-epoch E --coordinator-epoch C
                                        aborts that producer's open transaction (a hanging one)
)";
}

}  // namespace weir::cli::transactions
