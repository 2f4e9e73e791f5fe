package reliability

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
	"github.com/rpcgen/rpcgen/runtime/transport"
)

// The handshake cases: connections that never complete the protocol's
// handshake (hello) against a transport.Server.
const (
	floodSilent   = 150 // connect and send nothing
	floodSlow     = 150 // send a hello one byte every floodTick, never ending it
	floodMaxConns = 16
	floodTick     = 20 * time.Millisecond
	// deadlineHandshake is the short handshake deadline of the second case.
	deadlineHandshake = 500 * time.Millisecond
	deadlineSilent    = 100
	deadlineSlow      = 100
)

// handshakeOptions is a server speaking a protocol whose handshake is
// hello.
func handshakeOptions() jsonrpc.Options {
	return jsonrpc.Options{Handshake: "hello", Handler: handler{
		"hello": func(context.Context, *jsonrpc.Request) (any, error) { return "welcome", nil },
		"sum":   sum,
	}}
}

func handshakeCases() []rcase {
	return []rcase{
		{
			name: "handshake-flood",
			input: fmt.Sprintf("transport.Server with MaxConns %d serving a protocol whose handshake is hello (jsonrpc.Options.Handshake), every deadline an hour: "+
				"%d connections send nothing, %d send a hello one byte every %d ms and never finish it; then a client connects, says hello and makes a call",
				floodMaxConns, floodSilent, floodSlow, floodTick.Milliseconds()),
			outcome: fmt.Sprintf("each new connection finding the %d slots full evicts the oldest connection not yet established (server-side Conn.Err() wraps transport.ErrEvicted; "+
				"Server.Evictions() counts them, %d here): the client is served while %d silent and slow connections are still open, and no deadline had to expire for it",
				floodMaxConns, floodSilent+floodSlow-(floodMaxConns-1), floodMaxConns-1),
			run: testHandshakeFlood,
		},
		{
			name: "handshake-deadline",
			input: fmt.Sprintf("transport.Server with HandshakeTimeout %d ms and every other limit at its default (MaxConns 256, MessageTimeout 30 s, IdleTimeout 5 min); "+
				"%d connections send nothing, %d send a hello one byte every %d ms and never finish it",
				deadlineHandshake.Milliseconds(), deadlineSilent, deadlineSlow, floodTick.Milliseconds()),
			outcome: "every one of them is closed at the handshake deadline (server-side Conn.Err() wraps transport.ErrHandshakeTimeout), the slow ones too although they are never idle " +
				"and their message is younger than MessageTimeout; none is evicted",
			run: testHandshakeDeadline,
		},
	}
}

// attackers opens silent and slow connections to addr, one after the
// other, and returns a channel receiving the local address of each once
// the server has closed it. The slow ones stop at stop.
func attackers(t *testing.T, addr string, silent, slow int, stop <-chan struct{}, wg *sync.WaitGroup) <-chan string {
	t.Helper()
	closed := make(chan string, silent+slow)
	hello := `{"jsonrpc":"2.0","id":1,"method":"hello","params":{"name":"`
	for i := range silent + slow {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { nc.Close() })
		local := nc.LocalAddr().String()
		wg.Go(func() {
			_, _ = io.Copy(io.Discard, nc) // returns when the server closes
			closed <- local
		})
		if i < silent {
			continue
		}
		wg.Go(func() {
			for k := 0; ; k++ {
				select {
				case <-stop:
					return
				case <-time.After(floodTick):
				}
				b := byte('a')
				if k < len(hello) {
					b = hello[k]
				}
				if _, err := nc.Write([]byte{b}); err != nil {
					return
				}
			}
		})
	}
	return closed
}

// endedWith waits for n server-side connections to end and checks that
// each ended with an error wrapping want.
func endedWith(t *testing.T, s *server, n int, want error) {
	t.Helper()
	for range n {
		if err := within(t, s.ended, "a server-side connection ending").Err(); !errors.Is(err, want) {
			t.Fatalf("a server-side connection ended with %v, want %v", err, want)
		}
	}
}

func testHandshakeFlood(t *testing.T) {
	s := serveTCP(t, "127.0.0.1:0", &transport.Server{
		MaxConns:         floodMaxConns,
		HandshakeTimeout: time.Hour,
		MessageTimeout:   time.Hour,
		IdleTimeout:      time.Hour,
	}, handshakeOptions())
	stop := make(chan struct{})
	var wg sync.WaitGroup
	defer func() {
		close(stop)
		s.srv.Close()
		wg.Wait()
	}()
	closed := attackers(t, s.addr, floodSilent, floodSlow, stop, &wg)

	ctx := ctxLimit(t)
	nc, err := transport.Dial(ctx, "tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonrpc.NewConn(nc, jsonrpc.Options{Handshake: "hello"})
	defer c.Close()
	var welcome string
	if err := c.Call(ctx, "hello", map[string]string{"name": "client"}, &welcome); err != nil || welcome != "welcome" {
		t.Fatalf("hello = %q, %v", welcome, err)
	}
	var got int
	if err := c.Call(ctx, "sum", []int{2, 3}, &got); err != nil || got != 5 {
		t.Fatalf("sum after hello = %d, %v", got, err)
	}

	// Every connection but the client and the newest 15 was evicted,
	// and nothing else has ended.
	evicted := floodSilent + floodSlow - (floodMaxConns - 1)
	for range evicted {
		within(t, closed, "an evicted connection being closed")
	}
	endedWith(t, s, evicted, transport.ErrEvicted)
	if n := s.srv.Evictions(); n != int64(evicted) {
		t.Errorf("Evictions() = %d, want %d", n, evicted)
	}
	select {
	case addr := <-closed:
		t.Errorf("connection %s closed beyond the evicted ones", addr)
	default:
	}
	if err := c.Call(ctx, "sum", []int{4, 5}, &got); err != nil || got != 9 {
		t.Fatalf("sum after the evictions = %d, %v", got, err)
	}
}

func testHandshakeDeadline(t *testing.T) {
	s := serveTCP(t, "127.0.0.1:0", &transport.Server{HandshakeTimeout: deadlineHandshake}, handshakeOptions())
	stop := make(chan struct{})
	var wg sync.WaitGroup
	defer func() {
		close(stop)
		s.srv.Close()
		wg.Wait()
	}()
	closed := attackers(t, s.addr, deadlineSilent, deadlineSlow, stop, &wg)
	for range deadlineSilent + deadlineSlow {
		within(t, closed, "a connection being closed at the handshake deadline")
	}
	endedWith(t, s, deadlineSilent+deadlineSlow, transport.ErrHandshakeTimeout)
	if n := s.srv.Evictions(); n != 0 {
		t.Errorf("Evictions() = %d, want 0", n)
	}
}
