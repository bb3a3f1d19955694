#pragma once

// Owning handles for librdkafka's C objects, one set for the tools, the compat tests and the
// benchmarks. A handle destroys its object with the matching *_destroy call.
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <memory>

namespace weir::rdkafka {

template <typename T, auto Destroy>
struct Destroyer {
    void operator()(T* p) const { Destroy(p); }
};

template <typename T, auto Destroy>
using Handle = std::unique_ptr<T, Destroyer<T, Destroy>>;

using Client = Handle<rd_kafka_t, rd_kafka_destroy>;
using Conf = Handle<rd_kafka_conf_t, rd_kafka_conf_destroy>;
using Topic = Handle<rd_kafka_topic_t, rd_kafka_topic_destroy>;
using Queue = Handle<rd_kafka_queue_t, rd_kafka_queue_destroy>;
using Event = Handle<rd_kafka_event_t, rd_kafka_event_destroy>;
using Message = Handle<rd_kafka_message_t, rd_kafka_message_destroy>;
using PartitionList = Handle<rd_kafka_topic_partition_list_t, rd_kafka_topic_partition_list_destroy>;
using Metadata = Handle<const rd_kafka_metadata_t, rd_kafka_metadata_destroy>;
using AdminOptions = Handle<rd_kafka_AdminOptions_t, rd_kafka_AdminOptions_destroy>;
using NewTopic = Handle<rd_kafka_NewTopic_t, rd_kafka_NewTopic_destroy>;
using DeleteTopic = Handle<rd_kafka_DeleteTopic_t, rd_kafka_DeleteTopic_destroy>;
using NewPartitions = Handle<rd_kafka_NewPartitions_t, rd_kafka_NewPartitions_destroy>;
using ConfigResource = Handle<rd_kafka_ConfigResource_t, rd_kafka_ConfigResource_destroy>;
using Error = Handle<rd_kafka_error_t, rd_kafka_error_destroy>;
using MockCluster = Handle<rd_kafka_mock_cluster_t, rd_kafka_mock_cluster_destroy>;

}  // namespace weir::rdkafka
