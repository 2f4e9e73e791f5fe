package transport

import (
	"bufio"
	"errors"
	"net"
	"os"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/framing"
)

// A connection whose reader has handed off still gets every message
// whole and answered, including one whose bytes arrive in pieces, round
// after round.
func TestHandOffKeepsMessages(t *testing.T) {
	defer func(d time.Duration) { handOffAfter = d }(handOffAfter)
	handOffAfter = time.Millisecond
	s := &Server{Start: startJSONRPC}
	ln := listen(t)
	serveResult(t, s, ln)
	waitServerGoroutines(t, 0)
	c := dial(t, ln.Addr())
	br := bufio.NewReader(c)
	req := []byte(`{"jsonrpc":"2.0","id":1,"method":"hello"}` + "\n")
	for round := range 5 {
		waitHandedOff(t, 1)
		// The first piece ends the wait; the rest are read by the new
		// reader, without another hand-off in between.
		for _, piece := range [][]byte{req[:1], req[1:20], req[20:]} {
			if _, err := c.Write(piece); err != nil {
				t.Fatal(err)
			}
		}
		if line, err := br.ReadString('\n'); err != nil || line != `{"jsonrpc":"2.0","id":1,"result":"hi"}`+"\n" {
			t.Fatalf("round %d: %q, %v", round, line, err)
		}
	}
	c.Close()
	waitServerGoroutines(t, 0)
}

// ReadIdle giving up does not extend the idle timeout: the deadline it
// leaves for the next Read is the one of the wait that began with it, and
// that Read sets no other. A fake connection records the deadlines and
// lets each read time out at once, so nothing here depends on a clock.
func TestReadIdleKeepsIdleDeadline(t *testing.T) {
	const idle, wait = 400 * time.Millisecond, 300 * time.Millisecond
	for _, tc := range []struct {
		name string
		wrap func(net.Conn) net.Conn
	}{
		{"idle", func(c net.Conn) net.Conn { return WithIdleTimeout(c, idle) }},
		{"message", func(c net.Conn) net.Conn { return WithMessageTimeout(c, idle, time.Minute) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := net.Pipe()
			defer b.Close()
			fake := &deadlineConn{Conn: a}
			c := tc.wrap(fake)
			read := func(buf []byte, w time.Duration) (int, error) {
				switch c := c.(type) {
				case *idleConn:
					return c.read(buf, w)
				case *messageConn:
					return c.read(buf, w)
				}
				panic("unexpected wrapper")
			}
			buf := make([]byte, 8)
			if n, err := read(buf, wait); n != 0 || err != framing.ErrStillIdle {
				t.Fatalf("ReadIdle: %d, %v; want ErrStillIdle", n, err)
			}
			if len(fake.deadlines) != 2 {
				t.Fatalf("ReadIdle set %d deadlines, want 2 (its own, then the idle one): %v", len(fake.deadlines), fake.deadlines)
			}
			if d := fake.deadlines[1].Sub(fake.deadlines[0]); d != idle-wait {
				t.Errorf("the idle deadline left for the next Read is %v after ReadIdle's, want %v", d, idle-wait)
			}
			if _, err := c.Read(buf); !errors.Is(err, ErrIdle) {
				t.Fatalf("Read: %v, want ErrIdle", err)
			}
			if len(fake.deadlines) != 2 {
				t.Errorf("the Read after ReadIdle set a deadline of its own: %v", fake.deadlines[2:])
			}
		})
	}
}

// deadlineConn records the read deadlines set on it, and its reads time
// out at once.
type deadlineConn struct {
	net.Conn
	deadlines []time.Time
}

func (c *deadlineConn) SetReadDeadline(t time.Time) error {
	c.deadlines = append(c.deadlines, t)
	return nil
}

func (c *deadlineConn) Read([]byte) (int, error) { return 0, os.ErrDeadlineExceeded }

// A message that arrives while a ReadIdle waits is read whole.
func TestReadIdleData(t *testing.T) {
	a, b := net.Pipe()
	defer b.Close()
	c := WithMessageTimeout(a, time.Minute, time.Minute).(*messageConn)
	go b.Write([]byte("hello"))
	buf := make([]byte, 8)
	n, err := c.read(buf, time.Minute)
	if err != nil || string(buf[:n]) != "hello" {
		t.Fatalf("ReadIdle: %q, %v", buf[:n], err)
	}
	a.Close()
}
