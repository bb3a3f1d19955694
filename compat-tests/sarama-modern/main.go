// sarama-modern drives weir with IBM Sarama at its newest release (the
// version pinned in go.mod), built in module mode. compat-tests/sarama keeps
// Debian's Sarama 1.22; the import path differs, so this is a driver of its
// own, with the same output lines where the modes are the same.
//
// -version default keeps Sarama's DefaultVersion, -version newest takes its
// MaxVersion; Sarama then clamps each request to what ApiVersions advertises.
//
//	sarama-modern [flags] version -> "default V" and "newest V"
//	sarama-modern [flags] produce BROKER TOPIC COUNT CODEC
//	    -> "produced P OFFSET KEY VALUE TS_MS" per message, in offset order
//	sarama-modern [flags] consume BROKER TOPIC PARTITION START COUNT
//	    -> "consumed P OFFSET KEY VALUE TS_MS HEADERS" (HEADERS: k=v,k=v or -)
//	sarama-modern [flags] group BROKER TOPIC GROUP COUNT
//	    -> "assigned MEMBER P,P,..." once every member holds its share of one
//	       generation, then "consumed ..." lines for COUNT messages read by the
//	       -members members together; closing the group commits them.
//	sarama-modern [flags] admin BROKER PREFIX
//	    -> "ok STEP ..." per ClusterAdmin call checked (exit 1 on the first miss)
//	sarama-modern [flags] txn BROKER TOPIC GROUP
//	    -> transactions: "committed KEY..." and "aborted KEY..." per transaction,
//	       then a consume-transform-produce commit of GROUP's offsets
//
// Flags: -version default|newest|X.Y.Z, -acks 0|1|all, -sync (SyncProducer),
// -idempotent, -partitions N (message i to partition i%N; else partition 0),
// -ts BASE_MS, -pad N, -headers, -isolation read_committed|read_uncommitted,
// -members N, -strategy range|roundrobin|sticky|cooperative-sticky.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/IBM/sarama"
)

var (
	versionFlag    = flag.String("version", "default", "default, newest, or a Kafka version such as 3.9.0")
	acksFlag       = flag.String("acks", "all", "RequiredAcks: 0, 1 or all")
	syncFlag       = flag.Bool("sync", false, "produce with a SyncProducer (SendMessages in batches of 10)")
	idempotentFlag = flag.Bool("idempotent", false, "Producer.Idempotent")
	partitionsFlag = flag.Int("partitions", 0, "message i goes to partition i%N (0: partition 0)")
	tsFlag         = flag.Int64("ts", -1, "CreateTime of message 0 in ms (message i gets ts+i); -1: Sarama's clock")
	padFlag        = flag.Int("pad", 0, "value i gets a suffix of i%pad+1 bytes")
	headersFlag    = flag.Bool("headers", false, "send two record headers per message")
	isolationFlag  = flag.String("isolation", "read_uncommitted", "consumer isolation level")
	membersFlag    = flag.Int("members", 1, "group mode: members in this process")
	strategyFlag   = flag.String("strategy", "range", "group mode: range, roundrobin, sticky or cooperative-sticky")
)

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "sarama-modern: "+format+"\n", args...)
	os.Exit(1)
}

func kafkaVersion() sarama.KafkaVersion {
	switch *versionFlag {
	case "default":
		return sarama.DefaultVersion
	case "newest":
		return sarama.MaxVersion
	}
	v, err := sarama.ParseKafkaVersion(*versionFlag)
	if err != nil {
		fail("bad -version: %v", err)
	}
	return v
}

func config() *sarama.Config {
	cfg := sarama.NewConfig()
	cfg.Version = kafkaVersion()
	cfg.ClientID = "weir-compat-sarama-modern"
	cfg.Net.DialTimeout = 5 * time.Second
	cfg.Net.ReadTimeout = 10 * time.Second
	cfg.Net.WriteTimeout = 5 * time.Second
	cfg.Metadata.Retry.Max = 5
	cfg.Metadata.Retry.Backoff = 200 * time.Millisecond
	if *isolationFlag == "read_committed" {
		cfg.Consumer.IsolationLevel = sarama.ReadCommitted
	}
	return cfg
}

func codec(name string) sarama.CompressionCodec {
	switch name {
	case "none":
		return sarama.CompressionNone
	case "gzip":
		return sarama.CompressionGZIP
	case "snappy":
		return sarama.CompressionSnappy
	case "lz4":
		return sarama.CompressionLZ4
	case "zstd":
		return sarama.CompressionZSTD
	}
	fail("unknown codec %q", name)
	return sarama.CompressionNone
}

func acks(name string) sarama.RequiredAcks {
	switch name {
	case "0":
		return sarama.NoResponse
	case "1":
		return sarama.WaitForLocal
	case "all":
		return sarama.WaitForAll
	}
	fail("unknown -acks %q", name)
	return sarama.WaitForAll
}

func millis(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

func value(i int) string {
	v := "sarama-value-" + strconv.Itoa(i)
	if *padFlag > 0 {
		v += "-" + strings.Repeat(string(rune('a'+i%26)), i%*padFlag+1)
	}
	return v
}

func message(topic string, i int) *sarama.ProducerMessage {
	m := &sarama.ProducerMessage{
		Topic: topic,
		Key:   sarama.StringEncoder("key-" + strconv.Itoa(i)),
		Value: sarama.StringEncoder(value(i)),
	}
	if *partitionsFlag > 0 {
		m.Partition = int32(i % *partitionsFlag)
	}
	if *tsFlag >= 0 {
		m.Timestamp = time.UnixMilli(*tsFlag + int64(i))
	}
	if *headersFlag {
		m.Headers = []sarama.RecordHeader{
			{Key: []byte("seq"), Value: []byte(strconv.Itoa(i))},
			{Key: []byte("empty"), Value: []byte{}},
		}
	}
	return m
}

func producerConfig(codecName string) *sarama.Config {
	cfg := config()
	cfg.Producer.Return.Successes = true
	cfg.Producer.Return.Errors = true
	cfg.Producer.RequiredAcks = acks(*acksFlag)
	cfg.Producer.Compression = codec(codecName)
	cfg.Producer.Partitioner = sarama.NewManualPartitioner
	cfg.Producer.Flush.Messages = 10 // several records per batch
	cfg.Producer.Flush.Frequency = 10 * time.Millisecond
	if *idempotentFlag {
		// Sarama's own requirements for idempotence.
		cfg.Producer.Idempotent = true
		cfg.Producer.RequiredAcks = sarama.WaitForAll
		cfg.Net.MaxOpenRequests = 1
	}
	return cfg
}

func printProduced(done []*sarama.ProducerMessage) {
	sort.SliceStable(done, func(a, b int) bool {
		if done[a].Partition != done[b].Partition {
			return done[a].Partition < done[b].Partition
		}
		return done[a].Offset < done[b].Offset
	})
	for _, m := range done {
		k, _ := m.Key.Encode()
		v, _ := m.Value.Encode()
		fmt.Printf("produced %d %d %s %s %d\n", m.Partition, m.Offset, k, v, millis(m.Timestamp))
	}
}

func produce(broker, topic string, count int, codecName string) {
	cfg := producerConfig(codecName)
	var done []*sarama.ProducerMessage
	if *syncFlag {
		p, err := sarama.NewSyncProducer([]string{broker}, cfg)
		if err != nil {
			fail("NewSyncProducer: %v", err)
		}
		for i := 0; i < count; i += 10 {
			var batch []*sarama.ProducerMessage
			for j := i; j < count && j < i+10; j++ {
				batch = append(batch, message(topic, j))
			}
			if err := p.SendMessages(batch); err != nil {
				fail("SendMessages: %v", err)
			}
			done = append(done, batch...)
		}
		if err := p.Close(); err != nil {
			fail("close: %v", err)
		}
	} else {
		p, err := sarama.NewAsyncProducer([]string{broker}, cfg)
		if err != nil {
			fail("NewAsyncProducer: %v", err)
		}
		go func() {
			for i := 0; i < count; i++ {
				p.Input() <- message(topic, i)
			}
		}()
		timeout := time.After(20 * time.Second)
		for len(done) < count {
			select {
			case m := <-p.Successes():
				done = append(done, m)
			case e := <-p.Errors():
				fail("produce error: %v", e.Err)
			case <-timeout:
				fail("timed out with %d of %d acknowledged", len(done), count)
			}
		}
		if err := p.Close(); err != nil {
			fail("close: %v", err)
		}
	}
	printProduced(done)
}

func printConsumed(m *sarama.ConsumerMessage) {
	var hs []string
	for _, h := range m.Headers {
		hs = append(hs, string(h.Key)+"="+string(h.Value))
	}
	headers := "-"
	if len(hs) > 0 {
		headers = strings.Join(hs, ",")
	}
	fmt.Printf("consumed %d %d %s %s %d %s\n", m.Partition, m.Offset, m.Key, m.Value, millis(m.Timestamp), headers)
}

func consume(broker, topic string, partition int32, start int64, count int) {
	cfg := config()
	cfg.Consumer.Return.Errors = true // fail on the first error rather than log it and retry
	c, err := sarama.NewConsumer([]string{broker}, cfg)
	if err != nil {
		fail("NewConsumer: %v", err)
	}
	defer c.Close()
	pc, err := c.ConsumePartition(topic, partition, start)
	if err != nil {
		fail("ConsumePartition: %v", err)
	}
	defer pc.Close()
	timeout := time.After(20 * time.Second)
	for got := 0; got < count; got++ {
		select {
		case m := <-pc.Messages():
			printConsumed(m)
		case e := <-pc.Errors():
			fail("consume error: %v", e.Err)
		case <-timeout:
			fail("timed out after %d of %d messages", got, count)
		}
	}
	// Nothing more than asked for (a read_committed reader must not see aborted records).
	select {
	case m := <-pc.Messages():
		fail("unexpected extra message at offset %d: %s", m.Offset, m.Key)
	case <-time.After(500 * time.Millisecond):
	}
}

func strategy(name string) sarama.BalanceStrategy {
	switch name {
	case "range":
		return sarama.NewBalanceStrategyRange()
	case "roundrobin":
		return sarama.NewBalanceStrategyRoundRobin()
	case "sticky":
		return sarama.NewBalanceStrategySticky()
	case "cooperative-sticky":
		return sarama.NewBalanceStrategyCooperativeSticky()
	}
	fail("unknown -strategy %q", name)
	return nil
}

// groupState is shared by the members of one process. A member reads a claim
// only once the members' active claims cover every partition once, each
// member holding some: records read before the last rebalance would be read
// twice. Active claims are the running ConsumeClaim calls, since a cooperative
// session keeps its Setup while partitions move.
type groupState struct {
	mu         sync.Mutex
	members    int
	partitions int
	want       int
	active     map[int]map[int32]int // member -> partition -> running ConsumeClaim calls
	seen       map[string]bool       // "p/offset"
	stable     chan struct{}
	stableOnce sync.Once
	done       chan struct{}
	doneOnce   sync.Once
}

// checkStable runs with mu held.
func (s *groupState) checkStable() {
	owner := map[int32]int{}
	for m := 0; m < s.members; m++ {
		if len(s.active[m]) == 0 {
			return
		}
		for p := range s.active[m] {
			if _, taken := owner[p]; taken {
				return
			}
			owner[p] = m
		}
	}
	if len(owner) != s.partitions {
		return
	}
	s.stableOnce.Do(func() {
		for m := 0; m < s.members; m++ {
			var ps []int
			for p := range s.active[m] {
				ps = append(ps, int(p))
			}
			sort.Ints(ps)
			var strs []string
			for _, p := range ps {
				strs = append(strs, strconv.Itoa(p))
			}
			fmt.Printf("assigned %d %s\n", m, strings.Join(strs, ","))
		}
		close(s.stable)
	})
}

type member struct {
	id    int
	state *groupState
}

func (h *member) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h *member) Cleanup(sarama.ConsumerGroupSession) error { return nil }

func (h *member) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	s := h.state
	p := claim.Partition()
	s.mu.Lock()
	if s.active[h.id] == nil {
		s.active[h.id] = map[int32]int{}
	}
	s.active[h.id][p]++
	s.checkStable()
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if s.active[h.id][p]--; s.active[h.id][p] == 0 {
			delete(s.active[h.id], p)
		}
		s.checkStable()
		s.mu.Unlock()
	}()
	// Records that arrive before then are held back, unmarked: if the
	// partition is revoked (its Messages channel closes) its next owner
	// reads them from the last commit.
	var early []*sarama.ConsumerMessage
	for waiting := true; waiting; {
		select {
		case <-s.stable:
			waiting = false
		case m, ok := <-claim.Messages():
			if !ok {
				return nil
			}
			early = append(early, m)
		case <-sess.Context().Done():
			return nil
		}
	}
	read := func(m *sarama.ConsumerMessage) {
		s.mu.Lock()
		defer s.mu.Unlock()
		key := fmt.Sprintf("%d/%d", m.Partition, m.Offset)
		if s.seen[key] {
			fail("member %d read %s twice", h.id, key)
		}
		s.seen[key] = true
		printConsumed(m)
		sess.MarkMessage(m, "")
		if len(s.seen) == s.want {
			s.doneOnce.Do(func() { close(s.done) })
		}
	}
	for _, m := range early {
		read(m)
	}
	for {
		select {
		case m, ok := <-claim.Messages():
			if !ok {
				return nil
			}
			read(m)
		case <-sess.Context().Done():
			return nil
		}
	}
}

func group(broker, topic, groupID string, count int) {
	client, err := sarama.NewClient([]string{broker}, config())
	if err != nil {
		fail("NewClient: %v", err)
	}
	parts, err := client.Partitions(topic)
	client.Close()
	if err != nil {
		fail("Partitions: %v", err)
	}
	s := &groupState{
		members: *membersFlag, partitions: len(parts), want: count,
		active: map[int]map[int32]int{}, seen: map[string]bool{},
		stable: make(chan struct{}), done: make(chan struct{}),
	}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	var groups []sarama.ConsumerGroup
	for id := 0; id < s.members; id++ {
		cfg := config()
		cfg.ClientID = fmt.Sprintf("weir-compat-sarama-modern-%d", id)
		cfg.Consumer.Offsets.Initial = sarama.OffsetOldest
		cfg.Consumer.Return.Errors = true
		cfg.Consumer.Group.Rebalance.GroupStrategies = []sarama.BalanceStrategy{strategy(*strategyFlag)}
		g, err := sarama.NewConsumerGroup([]string{broker}, groupID, cfg)
		if err != nil {
			fail("NewConsumerGroup: %v", err)
		}
		groups = append(groups, g)
		go func() {
			for e := range g.Errors() {
				fmt.Fprintf(os.Stderr, "sarama-modern: group error: %v\n", e)
			}
		}()
		wg.Add(1)
		go func(id int) {
			defer wg.Done()
			h := &member{id: id, state: s}
			// A session ends on every rebalance; join again until done.
			for ctx.Err() == nil {
				if err := g.Consume(ctx, []string{topic}, h); err != nil && !errors.Is(err, sarama.ErrClosedConsumerGroup) {
					fail("member %d Consume: %v", id, err)
				}
			}
		}(id)
	}
	select {
	case <-s.done:
	case <-ctx.Done():
		s.mu.Lock()
		fail("timed out with %d of %d messages read (stable assignment: %v)", len(s.seen), s.want, isClosed(s.stable))
	}
	cancel()
	wg.Wait()
	// Close commits the marked offsets (Offsets.AutoCommit, Sarama's default).
	for _, g := range groups {
		if err := g.Close(); err != nil {
			fail("close: %v", err)
		}
	}
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func atoi(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		fail("bad number %q", s)
	}
	return n
}

func main() {
	sarama.Logger = log.New(os.Stderr, "[sarama] ", log.Lmicroseconds) // diagnostics on stderr
	flag.Parse()
	args := flag.Args()
	if len(args) < 1 {
		fail("usage: [flags] version|produce|consume|group|admin|txn ...")
	}
	switch args[0] {
	case "version":
		fmt.Printf("default %s\nnewest %s\n", sarama.DefaultVersion, sarama.MaxVersion)
	case "produce":
		if len(args) != 5 {
			fail("usage: produce BROKER TOPIC COUNT CODEC")
		}
		produce(args[1], args[2], int(atoi(args[3])), args[4])
	case "consume":
		if len(args) != 6 {
			fail("usage: consume BROKER TOPIC PARTITION START COUNT")
		}
		start := sarama.OffsetOldest
		if args[4] != "oldest" {
			start = atoi(args[4])
		}
		consume(args[1], args[2], int32(atoi(args[3])), start, int(atoi(args[5])))
	case "group":
		if len(args) != 5 {
			fail("usage: group BROKER TOPIC GROUP COUNT")
		}
		group(args[1], args[2], args[3], int(atoi(args[4])))
	case "admin":
		if len(args) != 3 {
			fail("usage: admin BROKER PREFIX")
		}
		admin(args[1], args[2])
	case "txn":
		if len(args) != 4 {
			fail("usage: txn BROKER TOPIC GROUP")
		}
		txn(args[1], args[2], args[3])
	default:
		fail("unknown mode %q", args[0])
	}
}
