package lab

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// consumerName is the one durable consumer every worker pulls from: the workers share it, so the
// broker hands each job to one of them and takes it back from whichever one dies.
const consumerName = "workers"

// maxDeliver bounds a job's deliveries. The model delivers a job at most twice; the bound is
// above that so that it never hides a real extra delivery, yet finite, so that a job that
// somehow kills every worker it meets cannot keep a run alive until its deadline.
const maxDeliver = 5

// maxDeliverFor is a run's MaxDeliver: the lease designs allow exactly the model's one
// redelivery (see leaseMaxDeliver), and a handler in lease time one more for each delivery of a
// crashed job that dies (the first, and with crash_again the second): a slow job whose first
// worker died still runs twice, as in the model, and no more copies than that fill the workers.
func maxDeliverFor(cfg Config) int {
	switch {
	case cfg.Design.IsLease():
		return leaseMaxDeliver
	case cfg.leaseTime && cfg.CrashRate == 0:
		return leaseMaxDeliver
	case cfg.leaseTime && cfg.Handler != nil && cfg.Handler.CrashAgain:
		return leaseMaxDeliver + 2
	case cfg.leaseTime:
		return leaseMaxDeliver + 1
	}
	return maxDeliver
}

// broker is the run's queue: a connection, its stream and its consumer, and the embedded server
// when the run started one.
type broker struct {
	srv     *server.Server // nil when the run uses an existing NATS
	nc      *nats.Conn
	js      jetstream.JetStream
	url     string
	stream  string
	subject string
	cons    jetstream.Consumer
	// eventStream and events are the handler design's second system: the stream bus.publish and
	// the outbox relay write to, and its subject ("" for the other designs).
	eventStream, events string
}

// eventStreamName is the second stream of the run with this tag.
func eventStreamName(tag string) string { return streamName(tag) + "_EVENTS" }

// startBroker starts the embedded server (or connects to cfg.NATSURL) and makes the run's stream
// and consumer. The stream is named by the run's scratch tag, random, so that runs never meet on
// a shared server, and a sweep can find the stream of a run that died without deleting it.
func startBroker(ctx context.Context, cfg Config, sc *scratch) (*broker, error) {
	b := &broker{url: cfg.NATSURL}
	if b.url == "" {
		opts := &server.Options{
			ServerName: "lab",
			Host:       "127.0.0.1",
			Port:       server.RANDOM_PORT, // several runs (and tests) side by side never collide
			JetStream:  true,
			StoreDir:   filepath.Join(sc.dir, "jetstream"),
			NoLog:      true,
			NoSigs:     true, // the site handles its own signals; the broker must not exit on them
		}
		srv, err := server.NewServer(opts)
		if err != nil {
			return nil, fmt.Errorf("lab: broker: %w", err)
		}
		srv.Start()
		if !srv.ReadyForConnections(10 * time.Second) {
			srv.Shutdown()
			return nil, errors.New("lab: broker: the embedded NATS server did not start within 10 s")
		}
		b.srv, b.url = srv, srv.ClientURL()
	}
	nc, err := nats.Connect(b.url, nats.Name("lab-supervisor"))
	if err != nil {
		b.close()
		return nil, fmt.Errorf("lab: broker: %w", err)
	}
	b.nc = nc
	if b.js, err = jetstream.New(nc); err != nil {
		b.close()
		return nil, fmt.Errorf("lab: broker: %w", err)
	}
	b.stream, b.subject = streamName(sc.tag), "lab."+sc.tag+".jobs"
	if _, err := b.js.CreateStream(ctx, jetstream.StreamConfig{
		Name:     b.stream,
		Subjects: []string{b.subject},
		Storage:  jetstream.FileStorage, // a real broker keeps its jobs on disk
		// 0 is the server's own default (2 minutes), which no other design reaches.
		Duplicates: cfg.dupWindow(),
	}); err != nil {
		b.close()
		return nil, fmt.Errorf("lab: broker: stream: %w", err)
	}
	if cfg.Design == DesignHandler {
		b.eventStream, b.events = eventStreamName(sc.tag), "lab."+sc.tag+".events"
		if _, err := b.js.CreateStream(ctx, jetstream.StreamConfig{
			Name:     b.eventStream,
			Subjects: []string{b.events},
			Storage:  jetstream.FileStorage,
		}); err != nil {
			b.close()
			return nil, fmt.Errorf("lab: broker: event stream: %w", err)
		}
	}
	b.cons, err = b.js.CreateOrUpdateConsumer(ctx, b.stream, jetstream.ConsumerConfig{
		Durable:    consumerName,
		AckPolicy:  jetstream.AckExplicitPolicy,
		AckWait:    cfg.AckWait,
		MaxDeliver: maxDeliverFor(cfg),
	})
	if err != nil {
		b.close()
		return nil, fmt.Errorf("lab: broker: consumer: %w", err)
	}
	return b, nil
}

// publish puts jobs 0..jobs-1 on the stream, the job id as the payload, and waits until the
// server has stored every one: a job still in flight when the workers start would be a job the
// count could miss.
//
// A publisher with as many publishes in flight as it allows stalls, and gives up on the next one
// after a moment (ErrTooManyStalledMsgs, before sending it): on a busy machine the broker, in the
// same process, can take longer than that to store the backlog. The job is then published again
// once the backlog has been stored, so a slow machine makes a slower run, never a failed one.
func (b *broker) publish(ctx context.Context, jobs int64) error {
	for j := int64(0); j < jobs; {
		_, err := b.js.PublishAsync(b.subject, strconv.AppendInt(nil, j, 10))
		switch {
		case err == nil:
			j++
			continue
		case !errors.Is(err, jetstream.ErrTooManyStalledMsgs):
			return fmt.Errorf("lab: publish job %d: %w", j, err)
		}
		select {
		case <-b.js.PublishAsyncComplete():
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	select {
	case <-b.js.PublishAsyncComplete():
	case <-ctx.Done():
		return ctx.Err()
	}
	info, err := b.js.Stream(ctx, b.stream)
	if err != nil {
		return fmt.Errorf("lab: publish: %w", err)
	}
	if got := info.CachedInfo().State.Msgs; got != uint64(jobs) {
		return fmt.Errorf("lab: publish: the stream holds %d jobs, want %d", got, jobs)
	}
	return nil
}

// outstanding is how many jobs the broker still holds: not yet delivered, or delivered and not
// yet acked. Zero means every job was acked (or gave up after maxDeliver). delivered is how many
// deliveries the broker has made, redeliveries included.
func (b *broker) outstanding(ctx context.Context) (left, delivered int64, err error) {
	info, err := b.cons.Info(ctx)
	if err != nil {
		return 0, 0, err
	}
	return int64(info.NumPending) + int64(info.NumAckPending), int64(info.Delivered.Consumer), nil
}

// close deletes the run's stream from a shared server, then lets go of the connection and stops
// the embedded server. It runs on cancelled runs too, so it makes its own short context.
func (b *broker) close() {
	if b.nc != nil {
		if b.srv == nil && b.js != nil && b.stream != "" {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			b.js.DeleteStream(ctx, b.stream)
			if b.eventStream != "" {
				b.js.DeleteStream(ctx, b.eventStream)
			}
			cancel()
		}
		b.nc.Close()
	}
	if b.srv != nil {
		b.srv.Shutdown()
		b.srv.WaitForShutdown()
	}
}
