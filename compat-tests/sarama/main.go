// sarama-compat drives weir with Sarama 1.22 (Debian's
// golang-github-shopify-sarama-dev, built offline in GOPATH mode:
// GO111MODULE=off GOPATH=/usr/share/gocode).
//
// Without -version it keeps Sarama's DEFAULT protocol version (Config.Version =
// V0_8_2_0: Metadata v0, Produce v0 with magic-0 message sets, Fetch v0,
// ListOffsets v0). With -version 0.11.0.0 or later Sarama produces magic-2
// record batches (Produce v3) and fetches them (Fetch v4).
//
//	sarama-compat [flags] version
//	sarama-compat [flags] produce BROKER TOPIC COUNT CODEC
//	    -> "produced P OFFSET KEY VALUE TS_MS" per message (OFFSET is 0 with -acks 0; TS_MS
//	       is the LogAppendTime the broker reported, else the -ts CreateTime, else 0)
//	sarama-compat [flags] consume BROKER TOPIC PARTITION START COUNT
//	    -> "consumed P OFFSET KEY VALUE TS_MS HEADERS" (HEADERS: k=v,k=v or -)
//	sarama-compat [flags] offset-for-time BROKER TOPIC PARTITION TS_MS -> "offset N"
//	sarama-compat [flags] group BROKER TOPIC GROUP COUNT
//	    -> "consumed ..." lines for COUNT messages marked through a ConsumerGroup
//	       session, whose release commits them; a later run resumes after them.
//
// Flags: -version V (Sarama KafkaVersion), -acks 0|1|all (default all),
// -ts BASE_MS (message i gets CreateTime BASE_MS+i; default: Sarama's clock),
// -pad N (value i gets a suffix of i%N+1 bytes, so batches span index intervals),
// -headers (two record headers per message; needs -version >= 0.11).
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/Shopify/sarama"
)

var (
	versionFlag = flag.String("version", "", "Sarama Config.Version: 0.11.0.0, 2.0.0, ... (default 0.8.2.0)")
	acksFlag    = flag.String("acks", "all", "RequiredAcks: 0, 1 or all")
	tsFlag      = flag.Int64("ts", -1, "CreateTime of message 0 in ms (message i gets ts+i); -1: Sarama's clock")
	padFlag     = flag.Int("pad", 0, "value i gets a suffix of i%pad+1 bytes")
	headersFlag = flag.Bool("headers", false, "send two record headers per message")
)

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "sarama-compat: "+format+"\n", args...)
	os.Exit(1)
}

func config() *sarama.Config {
	cfg := sarama.NewConfig()
	if *versionFlag != "" {
		v, err := sarama.ParseKafkaVersion(*versionFlag)
		if err != nil {
			fail("bad -version: %v", err)
		}
		cfg.Version = v
	}
	cfg.ClientID = "weir-compat-sarama"
	cfg.Net.DialTimeout = 5 * time.Second
	cfg.Net.ReadTimeout = 10 * time.Second
	cfg.Net.WriteTimeout = 5 * time.Second
	cfg.Metadata.Retry.Max = 5
	cfg.Metadata.Retry.Backoff = 200 * time.Millisecond
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
	return t.UnixNano() / int64(time.Millisecond)
}

func value(i int) string {
	v := "sarama-value-" + strconv.Itoa(i)
	if *padFlag > 0 {
		v += "-" + strings.Repeat(string(rune('a'+i%26)), i%*padFlag+1)
	}
	return v
}

func produce(broker, topic string, count int, codecName string) {
	cfg := config()
	cfg.Producer.Return.Successes = true
	cfg.Producer.Return.Errors = true
	cfg.Producer.RequiredAcks = acks(*acksFlag)
	cfg.Producer.Compression = codec(codecName)
	cfg.Producer.Flush.Messages = 10 // several messages per batch / wrapper message set
	cfg.Producer.Flush.Frequency = 10 * time.Millisecond
	cfg.Producer.Retry.Max = 0
	p, err := sarama.NewAsyncProducer([]string{broker}, cfg)
	if err != nil {
		fail("NewAsyncProducer: %v", err)
	}
	for i := 0; i < count; i++ {
		m := &sarama.ProducerMessage{
			Topic: topic,
			Key:   sarama.StringEncoder("key-" + strconv.Itoa(i)),
			Value: sarama.StringEncoder(value(i)),
		}
		if *tsFlag >= 0 {
			ms := *tsFlag + int64(i)
			m.Timestamp = time.Unix(ms/1000, (ms%1000)*int64(time.Millisecond))
		}
		if *headersFlag {
			m.Headers = []sarama.RecordHeader{
				{Key: []byte("seq"), Value: []byte(strconv.Itoa(i))},
				{Key: []byte("empty"), Value: []byte{}},
			}
		}
		p.Input() <- m
	}
	var done []*sarama.ProducerMessage
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
	sort.SliceStable(done, func(a, b int) bool { return done[a].Offset < done[b].Offset })
	for _, m := range done {
		k, _ := m.Key.Encode()
		v, _ := m.Value.Encode()
		fmt.Printf("produced %d %d %s %s %d\n", m.Partition, m.Offset, k, v, millis(m.Timestamp))
	}
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
}

func offsetForTime(broker, topic string, partition int32, ts int64) {
	client, err := sarama.NewClient([]string{broker}, config())
	if err != nil {
		fail("NewClient: %v", err)
	}
	defer client.Close()
	off, err := client.GetOffset(topic, partition, ts)
	if err != nil {
		fail("GetOffset: %v", err)
	}
	fmt.Printf("offset %d\n", off)
}

// groupHandler prints and marks messages until `want` are marked, then ends
// the session; its release commits the marked offsets.
type groupHandler struct {
	mu     sync.Mutex
	want   int
	got    int
	cancel context.CancelFunc
}

func (h *groupHandler) Setup(sarama.ConsumerGroupSession) error   { return nil }
func (h *groupHandler) Cleanup(sarama.ConsumerGroupSession) error { return nil }

func (h *groupHandler) ConsumeClaim(sess sarama.ConsumerGroupSession, claim sarama.ConsumerGroupClaim) error {
	for {
		select {
		case m, ok := <-claim.Messages():
			if !ok {
				return nil
			}
			h.mu.Lock()
			if h.got < h.want {
				printConsumed(m)
				sess.MarkMessage(m, "")
				h.got++
				if h.got == h.want {
					h.cancel()
				}
			}
			h.mu.Unlock()
		case <-sess.Context().Done():
			return nil
		}
	}
}

func group(broker, topic, groupID string, count int) {
	cfg := config()
	cfg.Consumer.Offsets.Initial = sarama.OffsetOldest
	cfg.Consumer.Return.Errors = true
	g, err := sarama.NewConsumerGroup([]string{broker}, groupID, cfg)
	if err != nil {
		fail("NewConsumerGroup: %v", err)
	}
	go func() {
		for e := range g.Errors() {
			fmt.Fprintf(os.Stderr, "sarama-compat: group error: %v\n", e)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h := &groupHandler{want: count, cancel: cancel}
	// A session also ends on a rebalance; join again until enough are marked.
	for ctx.Err() == nil {
		if err := g.Consume(ctx, []string{topic}, h); err != nil {
			fail("Consume: %v", err)
		}
	}
	if err := g.Close(); err != nil {
		fail("close: %v", err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.got < h.want {
		fail("timed out after %d of %d messages", h.got, h.want)
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
		fail("usage: [flags] produce|consume|offset-for-time|group|version ...")
	}
	switch args[0] {
	case "version":
		fmt.Println(config().Version)
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
	case "offset-for-time":
		if len(args) != 5 {
			fail("usage: offset-for-time BROKER TOPIC PARTITION TS_MS")
		}
		offsetForTime(args[1], args[2], int32(atoi(args[3])), atoi(args[4]))
	case "group":
		if len(args) != 5 {
			fail("usage: group BROKER TOPIC GROUP COUNT")
		}
		group(args[1], args[2], args[3], int(atoi(args[4])))
	default:
		fail("unknown mode %q", args[0])
	}
}
