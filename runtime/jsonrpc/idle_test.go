package jsonrpc

import (
	"context"
	"errors"
	"io"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/internal/stacks"
)

// idleStream is an in-memory stream that delivers one hello request, then
// blocks reading until it is closed, as a client that has done its
// handshake and is now idle. answered is closed when the answer has been
// written.
type idleStream struct {
	hello    []byte
	mu       sync.Mutex
	answered chan struct{}
	closed   chan struct{}
	once     sync.Once
}

func newIdleStream() *idleStream {
	return &idleStream{
		hello:    []byte(`{"jsonrpc":"2.0","id":1,"method":"hello","params":{"name":"idle"}}` + "\n"),
		answered: make(chan struct{}),
		closed:   make(chan struct{}),
	}
}

func (s *idleStream) Read(b []byte) (int, error) {
	s.mu.Lock()
	if len(s.hello) > 0 {
		n := copy(b, s.hello)
		s.hello = s.hello[n:]
		s.mu.Unlock()
		return n, nil
	}
	s.mu.Unlock()
	<-s.closed
	return 0, io.EOF
}

func (s *idleStream) Write(b []byte) (int, error) {
	select {
	case <-s.closed:
		return 0, io.ErrClosedPipe
	default:
	}
	select {
	case <-s.answered:
	default:
		close(s.answered)
	}
	return len(b), nil
}

func (s *idleStream) Close() error {
	s.once.Do(func() { close(s.closed) })
	return nil
}

// idleConns opens n connections, each answering one hello, and waits
// until every answer is written.
func idleConns(t testing.TB, n int) []*Conn {
	t.Helper()
	opts := Options{Handler: HandlerFunc(func(context.Context, *Request) (any, error) {
		return map[string]bool{"success": true}, nil
	})}
	conns := make([]*Conn, n)
	streams := make([]*idleStream, n)
	for i := range conns {
		streams[i] = newIdleStream()
		conns[i] = NewConn(streams[i], opts)
	}
	limit := time.After(waitLimit)
	for _, s := range streams {
		select {
		case <-s.answered:
		case <-limit:
			t.Fatal("hello not answered")
		}
	}
	return conns
}

// connGoroutines counts the goroutines that run code of a Conn: its
// loops, workers and handlers (not the tests').
func connGoroutines() int {
	return stacks.Count(func(g string) bool {
		return strings.Contains(g, "jsonrpc.(*Conn)") || strings.Contains(g, "jsonrpc.(*workQueue")
	})
}

// waitGoroutines waits until want goroutines run code of a Conn, failing
// after waitLimit: goroutines that have finished their work take a
// moment to exit.
func waitGoroutines(t testing.TB, want int) {
	t.Helper()
	deadline := time.Now().Add(waitLimit)
	for {
		got := connGoroutines()
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines run code of a Conn, want %d", got, want)
		}
		runtime.Gosched()
	}
}

// TestIdleConnOneGoroutine checks that a connection that has answered its
// handshake and is idle holds exactly one goroutine: its reader.
func TestIdleConnOneGoroutine(t *testing.T) {
	const n = 100
	waitGoroutines(t, 0) // the connections of earlier tests are gone
	conns := idleConns(t, n)
	waitGoroutines(t, n)
	for _, c := range conns {
		if err := c.Close(); err != nil && !errors.Is(err, io.ErrClosedPipe) {
			t.Fatal(err)
		}
	}
	waitGoroutines(t, 0)
}

// idleHeapBudget is the most heap bytes an idle connection may hold,
// counting its stream, the reader's goroutine stack excluded: 2,310-2,350
// measured, of which ~360 are the test's stream (2,900-2,960 when the
// measure still counted the ended goroutines of the handshakes' workers,
// which the runtime keeps for reuse, and grew on a busy machine;
// 3,070-3,090 before the NDJSON reader fit 384 bytes; 3,410-3,470 before
// the Conn held its work queues and made the channel of its input's end
// only for a writer that waits for it; 3,810-3,840 before the Conn kept
// only the options it reads after NewConn, and its contexts were the Conn
// itself).
const idleHeapBudget = 2560

// TestIdleConnHeap checks the heap held per idle connection (after its
// handshake) against idleHeapBudget, and reports it.
func TestIdleConnHeap(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 1,000 connections")
	}
	const n = 1000
	perConn, stack := measureIdle(t, n)
	t.Logf("per idle connection: %d heap bytes, %d stack bytes", perConn, stack)
	if perConn > idleHeapBudget && !raceEnabled {
		t.Errorf("an idle connection holds %d heap bytes, budget %d", perConn, idleHeapBudget)
	}
}

// measureIdle returns the heap and stack bytes per idle connection, over
// n connections.
func measureIdle(t testing.TB, n int) (heap, stack int64) {
	var before, after runtime.MemStats
	waitGoroutines(t, 0) // the connections of earlier tests are gone
	// The runtime keeps the goroutines that ended for reuse, and the
	// handshakes' workers may make up to n more of them (more when the
	// machine is busy and they overlap): n goroutines started and ended
	// first leave that cache as the measured round would, since it is
	// not what a connection holds.
	var wg sync.WaitGroup
	release := make(chan struct{})
	for range 2 * n {
		wg.Go(func() { <-release })
	}
	close(release)
	wg.Wait()
	runtime.GC()
	runtime.ReadMemStats(&before)
	conns := idleConns(t, n)
	waitGoroutines(t, n)
	runtime.GC()
	runtime.GC() // and the pools' victim caches
	runtime.ReadMemStats(&after)
	heap = (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / int64(n)
	stack = (int64(after.StackInuse) - int64(before.StackInuse)) / int64(n)
	for _, c := range conns {
		c.Close()
	}
	runtime.KeepAlive(conns)
	return heap, stack
}

// TestWriterNeverStrands sends from many goroutines with pauses, so that
// the writer keeps ending on an empty queue while others queue: every
// message must still be written (none left queued with no writer).
func TestWriterNeverStrands(t *testing.T) {
	const senders, each = 8, 300
	got := make(chan struct{}, senders*each)
	_, client := pair(t, Options{Handler: HandlerFunc(func(context.Context, *Request) (any, error) {
		got <- struct{}{}
		return nil, nil
	})}, Options{})
	var wg sync.WaitGroup
	for range senders {
		wg.Go(func() {
			for i := range each {
				if err := client.Notify(context.Background(), "n", nil); err != nil {
					t.Error(err)
					return
				}
				if i%3 == 0 {
					runtime.Gosched()
				}
			}
		})
	}
	wg.Wait()
	limit := time.After(waitLimit)
	for range senders * each {
		select {
		case <-got:
		case <-limit:
			t.Fatal("a notification was queued and never written")
		}
	}
}
