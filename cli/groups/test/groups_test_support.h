#pragma once

// Helpers for the `weir groups` end-to-end tests: plain librdkafka clients that set up
// known state independently of the code under test.
#include <gtest/gtest.h>
#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli/groups/groups_cli.h"
#include "cli/rdkafka/handles.h"

namespace weir::cli::test {

using RdKafka = rdkafka::Client;
using rdkafka::PartitionList;

constexpr int kWaitMs = 10'000;

inline void quiet_log(const rd_kafka_t*, int, const char*, const char*) {}

inline RdKafka make_client(rd_kafka_type_t type, const std::vector<std::pair<std::string, std::string>>& props) {
    rd_kafka_conf_t* conf = rd_kafka_conf_new();
    char errstr[512];
    for (const auto& [k, v] : props) {
        if (rd_kafka_conf_set(conf, k.c_str(), v.c_str(), errstr, sizeof errstr) != RD_KAFKA_CONF_OK) {
            ADD_FAILURE() << k << ": " << errstr;
            rd_kafka_conf_destroy(conf);
            return nullptr;
        }
    }
    rd_kafka_conf_set_log_cb(conf, quiet_log);
    rd_kafka_t* rk = rd_kafka_new(type, conf, errstr, sizeof errstr);
    if (rk == nullptr) {
        ADD_FAILURE() << errstr;
        rd_kafka_conf_destroy(conf);
    }
    return RdKafka(rk);
}

// Produces `count` one-byte records to each partition and waits for all of them.
inline void produce(const std::string& bootstrap, const std::string& topic, const std::map<std::int32_t, int>& counts) {
    RdKafka p = make_client(RD_KAFKA_PRODUCER, {{"bootstrap.servers", bootstrap}, {"linger.ms", "5"}});
    ASSERT_TRUE(p);
    for (const auto& [partition, count] : counts) {
        for (int i = 0; i < count; ++i) {
            ASSERT_EQ(rd_kafka_producev(p.get(), RD_KAFKA_V_TOPIC(topic.c_str()), RD_KAFKA_V_PARTITION(partition),
                                        RD_KAFKA_V_VALUE(const_cast<char*>("x"), 1), RD_KAFKA_V_END),
                      RD_KAFKA_RESP_ERR_NO_ERROR);
        }
    }
    ASSERT_EQ(rd_kafka_flush(p.get(), kWaitMs), RD_KAFKA_RESP_ERR_NO_ERROR);
    for (const auto& [partition, count] : counts) {
        std::int64_t low = -1;
        std::int64_t high = -1;
        ASSERT_EQ(rd_kafka_query_watermark_offsets(p.get(), topic.c_str(), partition, &low, &high, kWaitMs),
                  RD_KAFKA_RESP_ERR_NO_ERROR);
        ASSERT_EQ(high, count) << topic << "-" << partition;
    }
}

inline PartitionList offsets_list(const std::string& topic, const std::map<std::int32_t, std::int64_t>& offsets) {
    PartitionList list(rd_kafka_topic_partition_list_new(static_cast<int>(offsets.size()) + 1));
    for (const auto& [partition, offset] : offsets)
        rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), partition)->offset = offset;
    return list;
}

// Commits offsets as a consumer of `group` that never joins it (a "simple" consumer), then closes.
inline void commit(const std::string& bootstrap, const std::string& group, const std::string& topic,
                   const std::map<std::int32_t, std::int64_t>& offsets) {
    RdKafka c = make_client(RD_KAFKA_CONSUMER, {{"bootstrap.servers", bootstrap}, {"group.id", group}});
    ASSERT_TRUE(c);
    PartitionList list = offsets_list(topic, offsets);
    ASSERT_EQ(rd_kafka_commit(c.get(), list.get(), 0), RD_KAFKA_RESP_ERR_NO_ERROR);
    ASSERT_EQ(rd_kafka_consumer_close(c.get()), RD_KAFKA_RESP_ERR_NO_ERROR);
}

// The group's committed offsets for partitions [0, partitions) of topic; those without one are left out.
inline std::map<std::int32_t, std::int64_t> committed(const std::string& bootstrap, const std::string& group,
                                                      const std::string& topic, std::int32_t partitions) {
    std::map<std::int32_t, std::int64_t> out;
    RdKafka c = make_client(RD_KAFKA_CONSUMER, {{"bootstrap.servers", bootstrap}, {"group.id", group}});
    if (!c) return out;
    PartitionList list(rd_kafka_topic_partition_list_new(partitions));
    for (std::int32_t p = 0; p < partitions; ++p) rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), p);
    const auto err = rd_kafka_committed(c.get(), list.get(), kWaitMs);
    EXPECT_EQ(err, RD_KAFKA_RESP_ERR_NO_ERROR) << rd_kafka_err2str(err);
    for (int i = 0; i < list->cnt; ++i)
        if (list->elems[i].err == RD_KAFKA_RESP_ERR_NO_ERROR && list->elems[i].offset >= 0)
            out[list->elems[i].partition] = list->elems[i].offset;
    rd_kafka_consumer_close(c.get());
    return out;
}

struct CliResult {
    int code = -1;
    std::string out;
    std::string err;
};

inline CliResult run_cli(const std::vector<std::string>& args, const AdminFactory& admin = {}) {
    std::ostringstream out;
    std::ostringstream err;
    CliResult r;
    r.code = run_groups(args, out, err, admin);
    r.out = out.str();
    r.err = err.str();
    return r;
}

inline std::vector<std::string> words_of(const std::string& line) {
    std::istringstream in(line);
    std::vector<std::string> words;
    for (std::string w; in >> w;) words.push_back(w);
    return words;
}

// The whitespace-split rows under the first line whose leading words are `header`'s, up to a blank line.
inline std::vector<std::vector<std::string>> table_rows(const std::string& text, const std::string& header) {
    const auto wanted = words_of(header);
    std::vector<std::vector<std::string>> rows;
    std::istringstream in(text);
    std::string line;
    bool inside = false;
    while (std::getline(in, line)) {
        auto words = words_of(line);
        if (!inside) {
            inside = words.size() >= wanted.size() && std::equal(wanted.begin(), wanted.end(), words.begin());
            continue;
        }
        if (words.empty()) break;
        rows.push_back(std::move(words));
    }
    return rows;
}

}  // namespace weir::cli::test
