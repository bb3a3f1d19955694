#include "cli/logdirs/log_dirs_cli.h"

#include <algorithm>
#include <boost/json.hpp>
#include <charconv>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include "cli/wireclient/wire_client.h"
#include "protocol/errors.h"

namespace weir::cli::logdirs {

namespace {

namespace json = boost::json;

// v1 carries every field the tool prints, and every Kafka broker since 2.0 serves it.
constexpr std::int16_t kDescribeLogDirsVersion = 1;

struct Options {
    bool describe = false;
    bool help = false;
    std::string bootstrap_server;
    std::vector<std::string> topics;
    std::optional<std::vector<std::int32_t>> brokers;
};

class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

std::vector<std::string> split_commas(const std::string& text) {
    std::vector<std::string> out;
    std::stringstream in(text);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty()) out.push_back(item);
    return out;
}

Options parse(const std::vector<std::string>& args) {
    Options o;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&]() -> const std::string& {
            if (i + 1 >= args.size()) throw UsageError("missing value for " + a);
            return args[++i];
        };
        if (a == "-h" || a == "--help") {
            o.help = true;
        } else if (a == "--describe") {
            o.describe = true;
        } else if (a == "--bootstrap-server") {
            o.bootstrap_server = value();
        } else if (a == "--topic-list") {
            o.topics = split_commas(value());
        } else if (a == "--broker-list") {
            auto& ids = o.brokers.emplace();
            for (const auto& item : split_commas(value())) {
                std::int32_t id = 0;
                auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), id);
                if (ec != std::errc{} || end != item.data() + item.size() || id < 0)
                    throw UsageError("invalid broker id " + item);
                ids.push_back(id);
            }
        } else {
            throw UsageError("unknown argument " + a);
        }
    }
    if (o.help) return o;
    if (!o.describe) throw UsageError("--describe is required");
    if (o.bootstrap_server.empty()) throw UsageError("--bootstrap-server is required");
    return o;
}

const char* usage() {
    return "Usage: weir log-dirs --describe --bootstrap-server HOST:PORT[,...] [--broker-list 0,1] "
           "[--topic-list a,b]\n"
           "Prints each broker's log dirs (kafka-log-dirs.sh --describe): the dir's error, if any, and each\n"
           "partition's size in bytes and offset lag, as Kafka's JSON.\n";
}

// LogDirsCommand names a dir's error by its exception class.
json::value dir_error(std::int16_t code) {
    if (code == 0) return nullptr;
    if (code == to_int(ErrorCode::kafka_storage_error)) return "org.apache.kafka.common.errors.KafkaStorageException";
    return json::value(std::string(weir::error_name(static_cast<ErrorCode>(code))));
}

}  // namespace

std::string log_dirs_json(const std::vector<BrokerLogDirs>& brokers, const std::vector<std::string>& topics) {
    const std::set<std::string> wanted(topics.begin(), topics.end());
    json::array broker_list;
    for (const auto& b : brokers) {
        json::array dirs;
        for (const auto& d : b.response.results) {
            json::array partitions;
            for (const auto& t : d.topics) {
                if (!wanted.empty() && !wanted.contains(t.name)) continue;
                for (const auto& p : t.partitions)
                    partitions.push_back(json::object{{"partition", t.name + "-" + std::to_string(p.partition_index)},
                                                      {"size", p.partition_size},
                                                      {"offsetLag", p.offset_lag},
                                                      {"isFuture", p.is_future_key}});
            }
            dirs.push_back(json::object{
                {"logDir", d.log_dir}, {"error", dir_error(d.error_code)}, {"partitions", std::move(partitions)}});
        }
        broker_list.push_back(json::object{{"broker", b.broker}, {"logDirs", std::move(dirs)}});
    }
    return json::serialize(json::object{{"version", 1}, {"brokers", std::move(broker_list)}});
}

int run_log_dirs(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    Options o;
    try {
        o = parse(args);
    } catch (const UsageError& e) {
        err << "weir log-dirs: " << e.what() << "\n" << usage();
        return 2;
    }
    if (o.help) {
        out << usage();
        return 0;
    }
    return wireclient::run_against_cluster("log-dirs", err, [&] {
        wireclient::WireClient client(wireclient::parse_bootstrap(o.bootstrap_server), std::chrono::seconds(10));
        client.metadata(std::vector<std::string>{});
        std::vector<std::int32_t> ids;
        if (o.brokers) {
            ids = *o.brokers;
        } else {
            for (const auto& [id, endpoint] : client.brokers()) ids.push_back(id);
        }
        for (auto id : ids)
            if (!client.broker(id)) throw std::runtime_error("broker " + std::to_string(id) + " is not in the cluster");
        out << "Querying brokers for log directories information\n";
        std::vector<BrokerLogDirs> answers;
        for (auto id : ids) {
            auto endpoint = client.broker(id);
            msg::DescribeLogDirsRequest request;
            request.topics = std::nullopt;  // every partition; --topic-list filters here, as Kafka's tool does
            answers.push_back(
                {id, client.send<msg::DescribeLogDirsResponse>(*endpoint, request, kDescribeLogDirsVersion)});
        }
        std::string received;
        for (const auto& a : answers) received += (received.empty() ? "" : ",") + std::to_string(a.broker);
        out << "Received log directory information from brokers " << received << "\n";
        out << log_dirs_json(answers, o.topics) << "\n";
    });
}

int log_dirs_main(const std::vector<std::string>& args) { return run_log_dirs(args, std::cout, std::cerr); }

}  // namespace weir::cli::logdirs
