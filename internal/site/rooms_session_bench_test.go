package site

// A lecture hall and a building of study groups, at the sizes: 300 members who all answer
// in the last second of a countdown, and 50 rooms of 30 each asking, answering and revealing at
// once on one instance. Like the other fan-out benchmarks (rooms_streams_bench_test.go), they hold
// every stream open over real loopback connections, report figures and assert no time; they fail
// only when a stream is refused, ends or never shows what it must, since a figure made of missing
// events would measure nothing.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"effectivelyonce/pages"
)

// errLate is an answer the server refused because it reached it after the countdown's zero.
var errLate = errors.New("reached the server after zero")

// openTimedRound opens a custom round with a countdown of seconds in room r and answers its
// number and its deadline as the server holds it.
func openTimedRound(tb testing.TB, host *http.Client, base string, r loopbackRoom, seconds int) (int, time.Time) {
	tb.Helper()
	var rd struct {
		Seq int `json:"seq"`
	}
	mustAPI(tb, host, "POST", base+"/api/rooms/"+r.Code+"/rounds", r.HostKey,
		fmt.Sprintf(`{"text":"How many?","min":0,"max":1000,"seconds":%d}`, seconds), http.StatusCreated, &rd)
	var st struct {
		Rounds []struct {
			Seq      int    `json:"seq"`
			Deadline string `json:"deadline"`
		} `json:"rounds"`
	}
	mustAPI(tb, host, "GET", base+"/api/rooms/"+r.Code, r.HostKey, "", http.StatusOK, &st)
	for _, x := range st.Rounds {
		if x.Seq == rd.Seq {
			d, err := time.Parse(time.RFC3339Nano, x.Deadline)
			if err != nil {
				tb.Fatalf("round %d's deadline %q: %v", rd.Seq, x.Deadline, err)
			}
			return rd.Seq, d
		}
	}
	tb.Fatalf("round %d is not in the room's state", rd.Seq)
	return 0, time.Time{}
}

// BenchmarkRoom300GuessesAtTheBuzzer: the lecture hall. 300 members, each holding a stream; one op
// opens a round with the shortest countdown (15 s) and has every member answer within the last
// second before it runs out (member i at 800 ms·i/300 into that second, the last 200 ms before
// zero). Every stream must show the answers the server took ("300 of 300 answered"), then the
// round locked at zero, which nobody's action causes: the room's reader redraws at the deadline.
// An answer that reaches a loaded server after zero is refused, as it should be; late/op counts
// them, and the streams must then show the rest ("297 of 300").
//
// p99-ms is, over every stream of every op, the time from the last answer taken being sent to that
// stream showing the final count (p50-ms, max-ms likewise); lock-p99-ms the time from the deadline
// to the stream showing the round locked; answer-req-p99-ms how long an answer's request took;
// reads/change the store reads of the op per room change (the round, then each answer taken);
// rss-MB the process's VmRSS with every stream open (the clients' half included, as in
// BenchmarkRoomReveal1500Streams). Run it with
//
//	go test ./internal/site -run '^$' -bench AtTheBuzzer -benchtime 3x -timeout 10m
func BenchmarkRoom300GuessesAtTheBuzzer(b *testing.B) {
	const members = 300
	s := newTestServer(b, benchConfig(members, members))
	base := serveLoopback(b, s)
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(func() { s.rooms.Stop(); cancel() })
	room := newLoopbackRoom(b, base, members)
	open := openMemberStreams(b, ctx, base, []loopbackRoom{room})[0]
	settle([][]*sseStream{open}, time.Second)
	rss := rssMB()

	clients := make([]*http.Client, members)
	for i := range clients {
		clients[i] = memberClient()
	}
	host := memberClient()
	var answered, locked, guessTook []time.Duration
	var mu sync.Mutex
	var reads, changes, late int64
	for i := 0; b.Loop(); i++ {
		before := s.rooms.Rooms().StoreReads()
		seq, deadline := openTimedRound(b, host, base, room, 15)
		openRound := named(pages.PartRound, fmt.Sprintf(`data-round="%d"`, seq), `data-state="open"`)
		lockedRound := named(pages.PartRound, fmt.Sprintf(`data-round="%d"`, seq), `data-state="locked"`)
		var shown, done sync.WaitGroup
		counts := make([]map[string]time.Time, members) // when each stream first showed each "N of M answered"
		sawLock := make([]time.Time, members)
		waitErrs := make([]error, members)
		for m, st := range open {
			shown.Add(1)
			counts[m] = map[string]time.Time{}
			done.Go(func() {
				_, _, err := st.Until(time.Minute, openRound)
				shown.Done()
				if err != nil {
					waitErrs[m] = err
					return
				}
				// Every count until the lock at zero, after which none can change; the last count
				// may come in the lock's own redraw, after the round's part.
				_, _, err = st.Until(time.Minute, func(ev sseEvent) bool {
					now := time.Now()
					if ev.Name == pages.PartCount {
						if c := text(ev.Data); counts[m][c].IsZero() {
							counts[m][c] = now
						}
					}
					if lockedRound(ev) {
						sawLock[m] = now
						return true
					}
					return false
				})
				waitErrs[m] = err
			})
		}
		shown.Wait()
		var guessing sync.WaitGroup
		guessErrs := make([]error, members)
		sentAt := make([]time.Time, members)
		buzzer := deadline.Add(-time.Second)
		for m := range members {
			guessing.Go(func() {
				time.Sleep(time.Until(buzzer.Add(time.Duration(m) * 800 * time.Millisecond / members)))
				sentAt[m] = time.Now()
				status, body, err := apiCall(clients[m], "PUT", fmt.Sprintf("%s/api/rooms/%s/rounds/%d/guess", base, room.Code, seq),
					room.MemberKeys[m], fmt.Sprintf(`{"value":%d}`, m))
				took := time.Since(sentAt[m])
				mu.Lock()
				guessTook = append(guessTook, took)
				mu.Unlock()
				if err == nil && status != http.StatusNoContent && !(status == http.StatusConflict && strings.Contains(body, "time for this round is up")) {
					err = fmt.Errorf("status %d: %s", status, body)
				}
				if err == nil && status == http.StatusConflict {
					err = errLate
				}
				guessErrs[m] = err
			})
		}
		guessing.Wait()
		done.Wait()
		// The answers the server took: all 300 unless it reached some after zero, which it refuses.
		var last time.Time
		took := 0
		for m := range members {
			switch err := guessErrs[m]; {
			case err == errLate:
				late++
			case err != nil:
				b.Fatalf("op %d, member %d's answer: %v", i, m, err)
			default:
				took++
				if sentAt[m].After(last) {
					last = sentAt[m]
				}
			}
		}
		want := fmt.Sprintf("%d of %d answered", took, members)
		for m := range members {
			if err := waitErrs[m]; err != nil {
				b.Fatalf("op %d, member %d's stream: %v", i, m, err)
			}
			at, ok := counts[m][want]
			if !ok {
				// An answer taken just before zero can be drawn after the lock's redraw.
				_, _, err := open[m].Until(time.Minute, func(ev sseEvent) bool { return ev.Name == pages.PartCount && text(ev.Data) == want })
				if err != nil {
					b.Fatalf("op %d, member %d's stream never showed %q: %v", i, m, want, err)
				}
				at = time.Now()
			}
			answered = append(answered, at.Sub(last))
			locked = append(locked, sawLock[m].Sub(deadline))
		}
		reads += s.rooms.Rooms().StoreReads() - before
		changes += 1 + int64(took)
	}
	b.StopTimer()
	b.ReportMetric(latencyMs(answered, 0.50), "p50-ms")
	b.ReportMetric(latencyMs(answered, 0.99), "p99-ms")
	b.ReportMetric(latencyMs(answered, 1), "max-ms")
	b.ReportMetric(latencyMs(locked, 0.99), "lock-p99-ms")
	b.ReportMetric(latencyMs(guessTook, 0.99), "answer-req-p99-ms")
	b.ReportMetric(float64(late)/float64(b.N), "late/op")
	b.ReportMetric(float64(reads)/float64(changes), "reads/change")
	b.ReportMetric(rss, "rss-MB")
}

// BenchmarkRoom50x30Sessions: a building of study groups on one instance, 50 rooms of 30 members
// each holding a stream. One op is a round in every room at once: each host opens a round, each
// room's 30 members answer within one second, each host reveals. Over every stream of every room
// of every op: open-p99-ms from the host's open to the stream showing the round, answer-p99-ms
// from the room's last answer to the stream showing 30 of 30, reveal-p99-ms from the reveal to the
// stream showing the measured value; answer-req-p99-ms how long an answer's request took (what the
// store's one writer adds before any stream can know); cpu-ms/op the process's CPU time (server and
// clients) per op, the figure that tells how near two cores are to their end, since every latency
// grows without bound past it. reads/change and rss-MB as in the hall's benchmark. Run it with
//
//	go test ./internal/site -run '^$' -bench 50x30 -benchtime 5x -timeout 10m
func BenchmarkRoom50x30Sessions(b *testing.B) {
	const nRooms, members = 50, 30
	s := newTestServer(b, benchConfig(nRooms*members, members))
	base := serveLoopback(b, s)
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(func() { s.rooms.Stop(); cancel() })
	rs := make([]loopbackRoom, nRooms)
	for r := range rs {
		rs[r] = newLoopbackRoom(b, base, members)
	}
	open := openMemberStreams(b, ctx, base, rs)
	settle(open, 2*time.Second)
	if n := s.rooms.Streams(); n < nRooms*members {
		b.Fatalf("%d streams open, want %d", n, nRooms*members)
	}
	rss := rssMB()
	hosts := make([]*http.Client, nRooms)
	clients := make([][]*http.Client, nRooms)
	for r := range rs {
		hosts[r] = memberClient()
		for range members {
			clients[r] = append(clients[r], memberClient())
		}
	}

	var mu sync.Mutex
	var opened, answered, revealed, took []time.Duration
	var reads, changes int64
	cpu := processCPU(b)
	for i := 0; b.Loop(); i++ {
		before := s.rooms.Rooms().StoreReads()
		var rooms sync.WaitGroup
		errs := make([]error, nRooms)
		for r := range rs {
			rooms.Go(func() {
				o, a, v, t, err := roomSession(base, rs[r], open[r], hosts[r], clients[r], float64(i%100))
				errs[r] = err
				mu.Lock()
				opened, answered, revealed = append(opened, o...), append(answered, a...), append(revealed, v...)
				took = append(took, t...)
				mu.Unlock()
			})
		}
		rooms.Wait()
		for r, err := range errs {
			if err != nil {
				b.Fatalf("op %d, room %d: %v", i, r, err)
			}
		}
		reads += s.rooms.Rooms().StoreReads() - before
		changes += int64(nRooms) * (1 + members + 1)
	}
	b.StopTimer()
	b.ReportMetric(latencyMs(opened, 0.99), "open-p99-ms")
	b.ReportMetric(latencyMs(answered, 0.50), "answer-p50-ms")
	b.ReportMetric(latencyMs(answered, 0.99), "answer-p99-ms")
	b.ReportMetric(latencyMs(revealed, 0.99), "reveal-p99-ms")
	b.ReportMetric(latencyMs(revealed, 1), "reveal-max-ms")
	b.ReportMetric(latencyMs(took, 0.99), "answer-req-p99-ms")
	b.ReportMetric(float64(processCPU(b)-cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(reads)/float64(changes), "reads/change")
	b.ReportMetric(rss, "rss-MB")
}

// processCPU is the CPU time this process has used so far, user and system.
func processCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// roomSession is one room's round in BenchmarkRoom50x30Sessions: open, every member answers within
// a second, reveal with measured; it answers, per stream, the time each change took to reach it,
// and per answer how long its request took.
func roomSession(base string, r loopbackRoom, streams []*sseStream, host *http.Client, clients []*http.Client, measured float64) (opened, answered, revealed, took []time.Duration, err error) {
	members := len(r.MemberKeys)
	var rd struct {
		Seq int `json:"seq"`
	}
	t0 := time.Now()
	status, body, err := apiCall(host, "POST", base+"/api/rooms/"+r.Code+"/rounds", r.HostKey, `{"text":"How many?","min":0,"max":100}`)
	if err == nil && status == http.StatusCreated {
		err = json.Unmarshal([]byte(body), &rd)
	}
	if err != nil || status != http.StatusCreated {
		return nil, nil, nil, nil, fmt.Errorf("open a round: %d %v %s", status, err, body)
	}
	openRound := named(pages.PartRound, fmt.Sprintf(`data-round="%d"`, rd.Seq), `data-state="open"`)
	all := fmt.Sprintf("%d of %d answered", members, members)
	shownAll := func(ev sseEvent) bool { return ev.Name == pages.PartCount && text(ev.Data) == all }
	revealedRound := named(pages.PartRound, fmt.Sprintf(`data-round="%d"`, rd.Seq), "data-measured>"+pages.Num(measured)+"<")

	sawOpen, sawAll, sawReveal := make([]time.Time, members), make([]time.Time, members), make([]time.Time, members)
	waitErrs := make([]error, members)
	var shown, answeredAll, done sync.WaitGroup
	shown.Add(members)
	answeredAll.Add(members)
	for m, st := range streams {
		done.Go(func() {
			_, _, err := st.Until(time.Minute, openRound)
			sawOpen[m] = time.Now()
			shown.Done()
			if err == nil {
				_, _, err = st.Until(time.Minute, shownAll)
				sawAll[m] = time.Now()
			}
			answeredAll.Done()
			if err == nil {
				_, _, err = st.Until(time.Minute, revealedRound)
				sawReveal[m] = time.Now()
			}
			waitErrs[m] = err
		})
	}
	shown.Wait()
	var guessing sync.WaitGroup
	var lastSent atomic.Int64
	guessErrs := make([]error, members)
	took = make([]time.Duration, members)
	start := time.Now()
	for m := range members {
		guessing.Go(func() {
			time.Sleep(time.Until(start.Add(time.Duration(m) * time.Second / time.Duration(members))))
			sent := time.Now().UnixNano()
			defer func() { took[m] = time.Since(time.Unix(0, sent)) }()
			for old := lastSent.Load(); sent > old && !lastSent.CompareAndSwap(old, sent); old = lastSent.Load() {
			}
			status, body, err := apiCall(clients[m], "PUT", fmt.Sprintf("%s/api/rooms/%s/rounds/%d/guess", base, r.Code, rd.Seq),
				r.MemberKeys[m], fmt.Sprintf(`{"value":%d}`, m))
			if err == nil && status != http.StatusNoContent {
				err = fmt.Errorf("status %d: %s", status, body)
			}
			guessErrs[m] = err
		})
	}
	guessing.Wait()
	answeredAll.Wait()
	t1 := time.Now()
	status, body, err = apiCall(host, "POST", fmt.Sprintf("%s/api/rooms/%s/rounds/%d/reveal", base, r.Code, rd.Seq), r.HostKey,
		fmt.Sprintf(`{"measured":%g}`, measured))
	if err != nil || status != http.StatusOK {
		return nil, nil, nil, nil, fmt.Errorf("reveal: %d %v %s", status, err, body)
	}
	done.Wait()
	last := time.Unix(0, lastSent.Load())
	for m := range members {
		if err := guessErrs[m]; err != nil {
			return nil, nil, nil, nil, fmt.Errorf("member %d's answer: %w", m, err)
		}
		if err := waitErrs[m]; err != nil {
			return nil, nil, nil, nil, fmt.Errorf("member %d's stream: %w", m, err)
		}
		opened = append(opened, sawOpen[m].Sub(t0))
		answered = append(answered, sawAll[m].Sub(last))
		revealed = append(revealed, sawReveal[m].Sub(t1))
	}
	return opened, answered, revealed, took, nil
}
