// sarama-compat drives weir with Sarama 1.22 at its DEFAULT protocol version
// (Config.Version = V0_8_2_0: Metadata v0, Produce v0 with magic-0 message
// sets, Fetch v0, ListOffsets v0). Built offline in GOPATH mode from Debian's
// golang-github-shopify-sarama-dev (GO111MODULE=off GOPATH=/usr/share/gocode).
//
//	sarama-compat produce BROKER TOPIC COUNT CODEC   -> "produced P OFFSET KEY VALUE" per message
//	sarama-compat consume BROKER TOPIC PARTITION START COUNT -> "consumed P OFFSET KEY VALUE TS_MS"
package main

import (
	"fmt"
	"log"
	"os"
	"sort"
	"strconv"
	"time"

	"github.com/Shopify/sarama"
)

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "sarama-compat: "+format+"\n", args...)
	os.Exit(1)
}

func config() *sarama.Config {
	cfg := sarama.NewConfig() // keeps the default (oldest) Version on purpose
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
	}
	fail("unknown codec %q", name)
	return sarama.CompressionNone
}

func produce(broker, topic string, count int, codecName string) {
	cfg := config()
	cfg.Producer.Return.Successes = true
	cfg.Producer.Return.Errors = true
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	cfg.Producer.Compression = codec(codecName)
	cfg.Producer.Flush.Messages = 10 // several messages per (wrapper) message set
	cfg.Producer.Flush.Frequency = 10 * time.Millisecond
	cfg.Producer.Retry.Max = 0
	p, err := sarama.NewAsyncProducer([]string{broker}, cfg)
	if err != nil {
		fail("NewAsyncProducer: %v", err)
	}
	for i := 0; i < count; i++ {
		p.Input() <- &sarama.ProducerMessage{
			Topic: topic,
			Key:   sarama.StringEncoder("key-" + strconv.Itoa(i)),
			Value: sarama.StringEncoder("sarama-value-" + strconv.Itoa(i)),
		}
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
	sort.Slice(done, func(a, b int) bool { return done[a].Offset < done[b].Offset })
	for _, m := range done {
		k, _ := m.Key.Encode()
		v, _ := m.Value.Encode()
		fmt.Printf("produced %d %d %s %s\n", m.Partition, m.Offset, k, v)
	}
}

func consume(broker, topic string, partition int32, start int64, count int) {
	c, err := sarama.NewConsumer([]string{broker}, config())
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
			ts := int64(0)
			if !m.Timestamp.IsZero() {
				ts = m.Timestamp.UnixNano() / int64(time.Millisecond)
			}
			fmt.Printf("consumed %d %d %s %s %d\n", m.Partition, m.Offset, m.Key, m.Value, ts)
		case e := <-pc.Errors():
			fail("consume error: %v", e.Err)
		case <-timeout:
			fail("timed out after %d of %d messages", got, count)
		}
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
	if len(os.Args) < 2 {
		fail("usage: produce|consume|version ...")
	}
	switch os.Args[1] {
	case "version":
		fmt.Println(config().Version)
	case "produce":
		if len(os.Args) != 6 {
			fail("usage: produce BROKER TOPIC COUNT CODEC")
		}
		produce(os.Args[2], os.Args[3], int(atoi(os.Args[4])), os.Args[5])
	case "consume":
		if len(os.Args) != 7 {
			fail("usage: consume BROKER TOPIC PARTITION START COUNT")
		}
		start := sarama.OffsetOldest
		if os.Args[5] != "oldest" {
			start = atoi(os.Args[5])
		}
		consume(os.Args[2], os.Args[3], int32(atoi(os.Args[4])), start, int(atoi(os.Args[6])))
	default:
		fail("unknown mode %q", os.Args[1])
	}
}
