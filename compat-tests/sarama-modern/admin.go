package main

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/IBM/sarama"
)

// check fails the run with what was expected, or prints "ok STEP".
func check(step string, ok bool, format string, args ...interface{}) {
	if !ok {
		fail("%s: "+format, append([]interface{}{step}, args...)...)
	}
	fmt.Printf("ok %s\n", step)
}

func isErr(err error, want sarama.KError) bool {
	return errors.Is(err, want)
}

func str(s string) *string { return &s }

func configs(ca sarama.ClusterAdmin, typ sarama.ConfigResourceType, name string) map[string]sarama.ConfigEntry {
	entries, err := ca.DescribeConfig(sarama.ConfigResource{Type: typ, Name: name})
	if err != nil {
		fail("DescribeConfig %s: %v", name, err)
	}
	out := map[string]sarama.ConfigEntry{}
	for _, e := range entries {
		out[e.Name] = e
	}
	return out
}

func partitionCount(ca sarama.ClusterAdmin, topic string) int {
	md, err := ca.DescribeTopics([]string{topic})
	if err != nil || len(md) != 1 || md[0].Err != sarama.ErrNoError {
		fail("DescribeTopics %s: %v %v", topic, err, md)
	}
	return len(md[0].Partitions)
}

// admin runs the ClusterAdmin calls an operator's tool makes, each checked
// against what Kafka answers.
func admin(broker, prefix string) {
	cfg := config()
	ca, err := sarama.NewClusterAdmin([]string{broker}, cfg)
	if err != nil {
		fail("NewClusterAdmin: %v", err)
	}
	defer ca.Close()
	topic, group := prefix+"-topic", prefix+"-group"

	brokers, controller, err := ca.DescribeCluster()
	check("describe-cluster", err == nil && len(brokers) == 1 && brokers[0].ID() == controller,
		"%v brokers=%d controller=%d", err, len(brokers), controller)

	err = ca.CreateTopic(topic, &sarama.TopicDetail{NumPartitions: 3, ReplicationFactor: 1,
		ConfigEntries: map[string]*string{"retention.ms": str("3600000"), "cleanup.policy": str("delete")}}, false)
	check("create-topic", err == nil, "%v", err)
	err = ca.CreateTopic(topic, &sarama.TopicDetail{NumPartitions: 1, ReplicationFactor: 1}, false)
	check("create-topic-exists", isErr(err, sarama.ErrTopicAlreadyExists), "want TOPIC_ALREADY_EXISTS, got %v", err)
	err = ca.CreateTopic(prefix+"-dry", &sarama.TopicDetail{NumPartitions: 2, ReplicationFactor: 1}, true)
	check("create-topic-validate-only", err == nil, "%v", err)
	err = ca.CreateTopic(prefix+"-bad", &sarama.TopicDetail{NumPartitions: 1, ReplicationFactor: 3}, false)
	check("create-topic-rf-too-large", isErr(err, sarama.ErrInvalidReplicationFactor),
		"want INVALID_REPLICATION_FACTOR, got %v", err)

	topics, err := ca.ListTopics()
	d, listed := topics[topic]
	_, dry := topics[prefix+"-dry"]
	check("list-topics", err == nil && listed && !dry && d.NumPartitions == 3 && d.ReplicationFactor == 1 &&
		d.ConfigEntries["retention.ms"] != nil && *d.ConfigEntries["retention.ms"] == "3600000",
		"%v listed=%v dry=%v detail=%+v", err, listed, dry, d)

	md, err := ca.DescribeTopics([]string{topic, prefix + "-missing"})
	ok := err == nil && len(md) == 2
	if ok {
		sort.Slice(md, func(a, b int) bool { return md[a].Name > md[b].Name })
		ok = md[0].Name == topic && md[0].Err == sarama.ErrNoError && len(md[0].Partitions) == 3 &&
			md[1].Err == sarama.ErrUnknownTopicOrPartition
		for _, p := range md[0].Partitions {
			ok = ok && p.Leader == controller && len(p.Isr) == 1
		}
	}
	check("describe-topics", ok, "%v %+v", err, md)

	err = ca.CreatePartitions(topic, 5, nil, false)
	check("create-partitions", err == nil && partitionCount(ca, topic) == 5, "%v", err)
	err = ca.CreatePartitions(topic, 4, nil, false)
	check("create-partitions-fewer", isErr(err, sarama.ErrInvalidPartitions), "want INVALID_PARTITIONS, got %v", err)

	c := configs(ca, sarama.TopicResource, topic)
	check("describe-topic-configs", c["retention.ms"].Value == "3600000" && !c["retention.ms"].Default &&
		c["retention.ms"].Source == sarama.SourceTopic && c["segment.bytes"].Value != "" &&
		c["segment.bytes"].Source != sarama.SourceTopic,
		"retention.ms=%+v segment.bytes=%+v", c["retention.ms"], c["segment.bytes"])
	// AlterConfigs replaces the topic's whole set: cleanup.policy goes back to its default.
	err = ca.AlterConfig(sarama.TopicResource, topic, map[string]*string{"retention.ms": str("7200000")}, false)
	c = configs(ca, sarama.TopicResource, topic)
	check("alter-configs", err == nil && c["retention.ms"].Value == "7200000" &&
		c["cleanup.policy"].Source != sarama.SourceTopic, "%v retention.ms=%+v cleanup.policy=%+v",
		err, c["retention.ms"], c["cleanup.policy"])
	err = ca.IncrementalAlterConfig(sarama.TopicResource, topic, map[string]sarama.IncrementalAlterConfigsEntry{
		"max.message.bytes": {Operation: sarama.IncrementalAlterConfigsOperationSet, Value: str("200000")},
	}, false)
	c = configs(ca, sarama.TopicResource, topic)
	check("incremental-alter-configs", err == nil && c["max.message.bytes"].Value == "200000" &&
		c["retention.ms"].Value == "7200000", "%v max.message.bytes=%+v retention.ms=%+v",
		err, c["max.message.bytes"], c["retention.ms"])
	err = ca.AlterConfig(sarama.TopicResource, topic, map[string]*string{"no.such.config": str("1")}, false)
	check("alter-configs-unknown-key", isErr(err, sarama.ErrInvalidConfig), "want INVALID_CONFIG, got %v", err)
	bc := configs(ca, sarama.BrokerResource, strconv.Itoa(int(controller)))
	check("describe-broker-configs", bc["num.partitions"].Value == "1" && bc["broker.id"].Value == strconv.Itoa(int(controller)),
		"num.partitions=%+v broker.id=%+v", bc["num.partitions"], bc["broker.id"])

	// Ten records in partition 0, then everything before offset 4 deleted.
	pcfg := producerConfig("none")
	pcfg.Version = cfg.Version
	p, err := sarama.NewSyncProducer([]string{broker}, pcfg)
	if err != nil {
		fail("NewSyncProducer: %v", err)
	}
	var batch []*sarama.ProducerMessage
	for i := 0; i < 10; i++ {
		batch = append(batch, &sarama.ProducerMessage{Topic: topic, Partition: 0, Value: sarama.StringEncoder(value(i))})
	}
	if err := p.SendMessages(batch); err != nil {
		fail("SendMessages: %v", err)
	}
	p.Close()
	err = ca.DeleteRecords(topic, map[int32]int64{0: 4})
	offs, lerr := ca.ListOffsets(map[string]map[int32]int64{topic: {0: sarama.OffsetOldest, 1: sarama.OffsetOldest}}, nil)
	check("delete-records", err == nil && lerr == nil && offs[topic][0].Offset == 4 && offs[topic][1].Offset == 0,
		"%v %v %+v %+v", err, lerr, offs[topic][0], offs[topic][1])
	err = ca.DeleteRecords(topic, map[int32]int64{0: 11})
	check("delete-records-past-end", err != nil && isErr(err, sarama.ErrOffsetOutOfRange), "want OFFSET_OUT_OF_RANGE, got %v", err)
	latest, lerr := ca.ListOffsets(map[string]map[int32]int64{topic: {0: sarama.OffsetNewest}}, nil)
	check("list-offsets-latest", lerr == nil && latest[topic][0].Offset == 10, "%v %+v", lerr, latest[topic][0])

	// Consumer group offsets, as kafka-consumer-groups.sh --reset-offsets and --delete-offsets make them.
	_, err = ca.AlterConsumerGroupOffsets(group, map[string]map[int32]sarama.OffsetAndMetadata{
		topic: {0: {Offset: 7, Metadata: "reset", LeaderEpoch: -1}, 1: {Offset: 0, LeaderEpoch: -1}},
	}, nil)
	check("alter-group-offsets", err == nil, "%v", err)
	fetched, err := ca.ListConsumerGroupOffsets(group, map[string][]int32{topic: {0, 1, 2}})
	ok = err == nil
	if ok {
		b0, b1, b2 := fetched.GetBlock(topic, 0), fetched.GetBlock(topic, 1), fetched.GetBlock(topic, 2)
		ok = b0 != nil && b0.Offset == 7 && b0.Metadata == "reset" && b1 != nil && b1.Offset == 0 && b2 != nil && b2.Offset == -1
	}
	check("list-group-offsets", ok, "%v %+v", err, fetched)
	groups, err := ca.ListConsumerGroups()
	_, listed = groups[group]
	check("list-groups", err == nil && listed, "%v %v", err, groups)
	desc, err := ca.DescribeConsumerGroups([]string{group})
	check("describe-group", err == nil && len(desc) == 1 && desc[0].Err == sarama.ErrNoError && desc[0].State == "Empty" &&
		len(desc[0].Members) == 0, "%v %+v", err, desc)
	err = ca.DeleteConsumerGroupOffset(group, topic, 0)
	fetched, ferr := ca.ListConsumerGroupOffsets(group, map[string][]int32{topic: {0, 1}})
	check("delete-group-offset", err == nil && ferr == nil && fetched.GetBlock(topic, 0).Offset == -1 &&
		fetched.GetBlock(topic, 1).Offset == 0, "%v %v", err, ferr)
	err = ca.DeleteConsumerGroup(group)
	groups, lerr = ca.ListConsumerGroups()
	_, listed = groups[group]
	check("delete-group", err == nil && lerr == nil && !listed, "%v %v %v", err, lerr, groups)
	err = ca.DeleteConsumerGroup(group)
	check("delete-group-again", isErr(err, sarama.ErrGroupIDNotFound), "want GROUP_ID_NOT_FOUND, got %v", err)

	dirs, err := ca.DescribeLogDirs([]int32{controller})
	ok = err == nil && len(dirs[controller]) >= 1
	found := false
	for _, d := range dirs[controller] {
		for _, t := range d.Topics {
			found = found || t.Topic == topic && len(t.Partitions) == 5
		}
	}
	check("describe-log-dirs", ok && found, "%v %+v", err, dirs)

	err = ca.DeleteTopic(topic)
	check("delete-topic", err == nil, "%v", err)
	deadline := time.Now().Add(10 * time.Second)
	for {
		topics, err = ca.ListTopics()
		if _, still := topics[topic]; err == nil && !still || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	_, listed = topics[topic]
	check("deleted-topic-gone", err == nil && !listed, "%v listed=%v", err, listed)
	err = ca.DeleteTopic(topic)
	check("delete-topic-again", isErr(err, sarama.ErrUnknownTopicOrPartition), "want UNKNOWN_TOPIC_OR_PARTITION, got %v", err)
}

// txn writes three transactions to partition 0 of topic: one committed, one
// aborted, and one that also commits GROUP's offset 3 (AddOffsetsToTxn, as a
// consume-transform-produce loop does).
func txn(broker, topic, group string) {
	cfg := config()
	cfg.Producer.Idempotent = true
	cfg.Producer.Transaction.ID = "weir-compat-" + topic
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	cfg.Producer.Retry.Max = 5
	cfg.Producer.Return.Errors = true
	cfg.Producer.Partitioner = sarama.NewManualPartitioner
	cfg.Net.MaxOpenRequests = 1
	p, err := sarama.NewAsyncProducer([]string{broker}, cfg)
	if err != nil {
		fail("NewAsyncProducer: %v", err)
	}
	go func() {
		for e := range p.Errors() {
			fail("produce error: %v", e.Err)
		}
	}()
	send := func(prefix string) {
		if err := p.BeginTxn(); err != nil {
			fail("BeginTxn: %v", err)
		}
		for i := 0; i < 5; i++ {
			p.Input() <- &sarama.ProducerMessage{Topic: topic, Partition: 0,
				Key: sarama.StringEncoder(prefix + "-" + strconv.Itoa(i)), Value: sarama.StringEncoder(value(i))}
		}
	}
	send("c1")
	if err := p.CommitTxn(); err != nil {
		fail("CommitTxn: %v", err)
	}
	fmt.Println("committed c1")
	send("a")
	if err := p.AbortTxn(); err != nil {
		fail("AbortTxn: %v", err)
	}
	fmt.Println("aborted a")
	send("c2")
	err = p.AddOffsetsToTxn(map[string][]*sarama.PartitionOffsetMetadata{
		topic: {{Partition: 0, Offset: 3, LeaderEpoch: -1}},
	}, group)
	if err != nil {
		fail("AddOffsetsToTxn: %v", err)
	}
	if err := p.CommitTxn(); err != nil {
		fail("CommitTxn: %v", err)
	}
	fmt.Println("committed c2")
	if err := p.Close(); err != nil {
		fail("close: %v", err)
	}
}
