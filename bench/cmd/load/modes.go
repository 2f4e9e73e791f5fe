package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// dialAll opens n connections to addr, each saying hello, at most 128
// dialling at once (the listener's backlog is finite).
func dialAll(ctx context.Context, addr string, n int) ([]*client, error) {
	clients := make([]*client, n)
	errs := make(chan error, 1)
	sem := make(chan struct{}, 128)
	var wg sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			cl, err := dial(ctx, addr)
			if err != nil {
				select {
				case errs <- fmt.Errorf("connection %d: %w", i, err):
				default:
				}
				return
			}
			clients[i] = cl
		})
	}
	wg.Wait()
	select {
	case err := <-errs:
		closeAll(clients)
		return nil, err
	default:
		return clients, nil
	}
}

func closeAll(clients []*client) {
	for _, cl := range clients {
		if cl != nil {
			cl.Close()
		}
	}
}

// throughputResult is one server's throughput run.
type throughputResult struct {
	impl    string
	calls   uint64
	errors  uint64
	elapsed time.Duration
	hist    histogram
}

func (r *throughputResult) rate() float64 { return float64(r.calls) / r.elapsed.Seconds() }

// throughput makes calls pings over conns connections, each connection
// with one call in flight, and records their latencies.
func throughput(ctx context.Context, srv *server, calls, conns int) (*throughputResult, error) {
	clients, err := dialAll(ctx, srv.addr, conns)
	if err != nil {
		return nil, err
	}
	defer closeAll(clients)
	var left atomic.Int64
	left.Store(int64(calls))
	hists := make([]histogram, conns)
	var errCount atomic.Uint64
	var wg sync.WaitGroup
	start := time.Now()
	for i, cl := range clients {
		wg.Go(func() {
			h := &hists[i]
			for left.Add(-1) >= 0 {
				t := time.Now()
				if err := cl.ping(); err != nil {
					errCount.Add(1)
					return // the connection is in an unknown state
				}
				h.record(time.Since(t))
			}
		})
	}
	wg.Wait()
	res := &throughputResult{elapsed: time.Since(start), errors: errCount.Load()}
	for i := range hists {
		res.hist.merge(&hists[i])
	}
	res.calls = res.hist.count()
	return res, nil
}

// memSample is the server's memory at one moment.
type memSample struct {
	at    time.Duration // since the calls began
	rss   uint64
	stats stats
}

// scaleResult is one server's scale run.
type scaleResult struct {
	impl     string
	memLimit string // the server's GOMEMLIMIT, or "" for none
	conns    int
	errors   uint64
	hist     histogram     // from sending a call to its answer
	late     histogram     // from when a call was due to its answer (no coordinated omission)
	elapsed  time.Duration // from the first call due to the last answer
	samples  []memSample
}

// scale opens conns connections, then has each call ping once per
// interval for duration, phases spread over the interval, while the
// server's memory is sampled every sampleEvery.
func scale(ctx context.Context, srv *server, conns int, interval, duration, sampleEvery time.Duration) (*scaleResult, error) {
	clients, err := dialAll(ctx, srv.addr, conns)
	if err != nil {
		return nil, err
	}
	defer closeAll(clients)
	res := &scaleResult{conns: conns}
	hists := make([]histogram, conns)
	lates := make([]histogram, conns)
	var errCount atomic.Uint64
	start := time.Now()
	end := start.Add(duration)
	var wg sync.WaitGroup
	for i, cl := range clients {
		wg.Go(func() {
			h, late := &hists[i], &lates[i]
			next := start.Add(interval * time.Duration(i) / time.Duration(conns))
			for next.Before(end) {
				t := time.NewTimer(time.Until(next))
				select {
				case <-ctx.Done():
					t.Stop()
					return
				case <-t.C:
				}
				begin := time.Now()
				if err := cl.ping(); err != nil {
					errCount.Add(1)
					return
				}
				h.record(time.Since(begin))
				late.record(time.Since(next))
				next = next.Add(interval)
			}
		})
	}
	done := make(chan struct{})
	sampled := make(chan error, 1)
	go func() { sampled <- sampleMemory(srv, start, sampleEvery, done, &res.samples) }()
	wg.Wait()
	res.elapsed = time.Since(start)
	close(done)
	if err := <-sampled; err != nil {
		return nil, err
	}
	res.errors = errCount.Load()
	for i := range hists {
		res.hist.merge(&hists[i])
		res.late.merge(&lates[i])
	}
	return res, nil
}

// sampleMemory appends a sample of the server's memory every interval
// (and one at the start) until done closes.
func sampleMemory(srv *server, start time.Time, every time.Duration, done <-chan struct{}, out *[]memSample) error {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		rss, err := srv.rss()
		if err != nil {
			return err
		}
		st, err := srv.stats(false)
		if err != nil {
			return err
		}
		*out = append(*out, memSample{at: time.Since(start), rss: rss, stats: st})
		select {
		case <-done:
			return nil
		case <-tick.C:
		}
	}
}

// idleLevel is the server's memory with n idle connections.
type idleLevel struct {
	conns int
	// rss is the server's RSS once the connections have been idle for
	// the settle, as the process holds it; rssFreed is its RSS right
	// after, once the server has collected its garbage and returned the
	// free pages to the system (debug.FreeOSMemory): what the
	// connections themselves hold.
	rss, rssFreed, heap, live, stack uint64
	rssPer, rssFreedPer, heapPer     float64
	livePer, stackPer                float64
	goroutines                       int
}

// idleResult is one server's idle run.
type idleResult struct {
	impl       string
	base       memSample
	baseFreed  uint64 // base's RSS after debug.FreeOSMemory
	levels     []idleLevel
	profile    []byte // heap profile at the last level, text form
	goroutines []byte // goroutine profile at the last level, text form
}

// idle opens connections up to each level in turn, leaving them idle
// after hello, and measures the server's memory at each, once the
// connections have been idle for settle: an idle connection is one that
// has had no message for a while, not one that has just finished its
// handshake (rpcgen's transport.Server hands a reader's wait to a
// goroutine on a small stack after 100 ms without a message, and a
// writer ends 2 ms after its last message). It reads the server's RSS as
// it is then; has the server collect its garbage and return its free
// memory to the system (the stats request does both), reading its heap
// and stacks; and reads its RSS again.
func idle(ctx context.Context, srv *server, levels []int, settle time.Duration) (*idleResult, error) {
	res := &idleResult{}
	measure := func() (m memSample, freed uint64, err error) {
		if m.rss, err = srv.rss(); err != nil {
			return m, 0, err
		}
		if m.stats, err = srv.stats(true); err != nil {
			return m, 0, err
		}
		freed, err = srv.rss()
		return m, freed, err
	}
	var err error
	if res.base, res.baseFreed, err = measure(); err != nil {
		return nil, err
	}
	var clients []*client
	defer func() { closeAll(clients) }()
	for _, n := range levels {
		more, err := dialAll(ctx, srv.addr, n-len(clients))
		if err != nil {
			return nil, fmt.Errorf("opening %d connections: %w", n, err)
		}
		clients = append(clients, more...)
		if err := srv.waitConns(int64(n), 30*time.Second); err != nil {
			return nil, err
		}
		select {
		case <-time.After(settle): // the idleness measured, not a wait for an event
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		m, freed, err := measure()
		if err != nil {
			return nil, err
		}
		res.levels = append(res.levels, res.level(n, m, freed))
	}
	return res, nil
}

// level is the memory m with n idle connections, whose RSS after
// debug.FreeOSMemory was freed, each quantity also per connection above
// the base.
func (r *idleResult) level(n int, m memSample, freed uint64) idleLevel {
	b, per := r.base, func(v, base uint64) float64 { return (float64(v) - float64(base)) / float64(n) }
	return idleLevel{conns: n, rss: m.rss, rssFreed: freed, heap: m.stats.HeapInuse, live: m.stats.HeapLive,
		stack: m.stats.StackInuse, goroutines: m.stats.Goroutines,
		rssPer: per(m.rss, b.rss), rssFreedPer: per(freed, r.baseFreed), heapPer: per(m.stats.HeapInuse, b.stats.HeapInuse),
		livePer: per(m.stats.HeapLive, b.stats.HeapLive), stackPer: per(m.stats.StackInuse, b.stats.StackInuse)}
}

// idleProfiles opens n idle connections to srv, a server of its own
// (with a finer heap-profiling rate, whose records would swell the
// memory idle measures), and keeps its heap and goroutine profiles in
// res.
func idleProfiles(ctx context.Context, srv *server, n int, res *idleResult) error {
	clients, err := dialAll(ctx, srv.addr, n)
	if err != nil {
		return fmt.Errorf("opening %d connections: %w", n, err)
	}
	defer closeAll(clients)
	if err := srv.waitConns(int64(n), 30*time.Second); err != nil {
		return err
	}
	if res.profile, err = srv.profile("heap"); err != nil {
		return err
	}
	// A connection that has just answered hello may be handing its
	// reader's wait to a new goroutine (rpcgen's idle hand-off): the
	// profile is taken again until n goroutines wait in one place, or
	// for up to profileSettle, and then kept as it is.
	deadline := time.Now().Add(profileSettle)
	for {
		if res.goroutines, err = srv.profile("goroutine"); err != nil {
			return err
		}
		g := summariseGoroutines(res.goroutines)
		if len(g) > 0 && g[0].count >= n || time.Now().After(deadline) || ctx.Err() != nil {
			return nil
		}
	}
}

// profileSettle bounds how long idleProfiles waits for the connections'
// goroutines to be parked.
const profileSettle = 5 * time.Second
