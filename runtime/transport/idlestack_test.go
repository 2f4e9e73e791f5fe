package transport

import (
	"bufio"
	"context"
	"errors"
	"net"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/internal/stacks"
)

// An idle connection served through Start keeps one goroutine stack on
// the server, of 2 KB: measured from outside the goroutines, as the
// growth of the stacks in use over many idle connections (raw clients,
// which start no goroutine in this process).
//
// The reader grows its stack past the 2 KB a goroutine starts with while
// it handles a message, and the runtime halves a stack at a GC only while
// the goroutine uses under a quarter of it, counting an 800-byte guard,
// so a grown reader parked in a socket read (about 1.4 KB deep) would
// keep 4 KB (see bench/README.md). Once the connection has been idle a
// while, the reader ends and a new goroutine waits for the next message
// on the 2 KB it starts with (handOffAfter is short here).
func TestServerStartIdleStack(t *testing.T) {
	if testing.Short() {
		t.Skip("opens 400 connections")
	}
	const n = 400 // 800 descriptors in this process: under the usual limit of 1,024
	defer func(d time.Duration) { handOffAfter = d }(handOffAfter)
	handOffAfter = time.Millisecond
	s := &Server{Start: startJSONRPC, MaxConns: -1}
	ln := listen(t)
	errc := serveResult(t, s, ln)
	waitServerGoroutines(t, 0) // the connections of earlier tests are gone
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	clients := make([]net.Conn, n)
	for i := range clients {
		c := dial(t, ln.Addr())
		clients[i] = c
		if _, err := c.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"hello"}` + "\n")); err != nil {
			t.Fatal(err)
		}
		if line, err := bufio.NewReader(c).ReadString('\n'); err != nil || line != `{"jsonrpc":"2.0","id":1,"result":"hi"}`+"\n" {
			t.Fatalf("hello: %q, %v", line, err)
		}
	}
	waitServerGoroutines(t, n) // the workers and writers have ended
	waitHandedOff(t, n)

	debug.FreeOSMemory()
	runtime.ReadMemStats(&after)
	per := (float64(after.StackInuse) - float64(before.StackInuse)) / n
	t.Logf("%.0f bytes of goroutine stacks per idle connection", per)
	// The waiting goroutine's stack, and some slack for the stacks of
	// ended goroutines (a reader per hand-off) the runtime keeps for
	// reuse: 3.0-3.5 KB measured here, 4.3-4.5 KB before the hand-off.
	// Over 10,000 connections the slack is lost in the count (2.1 KB).
	want := 2048.0 + 1792
	if raceEnabled {
		want = 4096 + 2048 // the race detector's frames are larger: 8.4 KB before the hand-off
	}
	if per > want {
		t.Errorf("idle connections hold %.0f bytes of goroutine stacks each, want at most %.0f (the reader's stack)", per, want)
	}
	for _, c := range clients {
		c.Close()
	}
	if err := s.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if err := <-errc; !errors.Is(err, ErrServerClosed) {
		t.Errorf("Serve: %v", err)
	}
}

// waitHandedOff waits until want connections' readers have handed the
// wait for input to a new goroutine, failing after 10 s.
func waitHandedOff(t *testing.T, want int) {
	t.Helper()
	handedOff := func() int {
		return stacks.Count(func(g string) bool {
			return strings.Contains(g, "jsonrpc.(*Conn).awaitInput") && !strings.Contains(g, "jsonrpc.(*Conn).readMessages")
		})
	}
	deadline := time.Now().Add(10 * time.Second)
	for handedOff() != want {
		if time.Now().After(deadline) {
			t.Fatalf("%d readers handed off, want %d", handedOff(), want)
		}
		runtime.Gosched()
	}
}
