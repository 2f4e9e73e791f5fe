package transport

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// The wrapper a Server hands its Handler is what a jsonrpc.Conn looks
// for.
var (
	_ jsonrpc.MessageReader = (*serverConn)(nil)
	_ jsonrpc.Establisher   = (*serverConn)(nil)
)

// unestablished returns how many connections s holds that are not
// established.
func (s *Server) unestablishedLen() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.unestablished.Len()
}

func TestServerDefaultLimits(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    *Server
		want limits
	}{
		{"zero fields", &Server{}, limits{idle: 5 * time.Minute, message: 30 * time.Second, handshake: 10 * time.Second, maxConns: 256}},
		{"negative fields", &Server{IdleTimeout: -1, MessageTimeout: -1, HandshakeTimeout: -1, MaxConns: -1}, limits{}},
		{"set fields", &Server{IdleTimeout: time.Second, MessageTimeout: 2 * time.Second, HandshakeTimeout: 3 * time.Second, MaxConns: 4},
			limits{idle: time.Second, message: 2 * time.Second, handshake: 3 * time.Second, maxConns: 4}},
	} {
		if got := tc.s.limits(); got != tc.want {
			t.Errorf("%s: limits = %+v, want %+v", tc.name, got, tc.want)
		}
	}
	if DefaultIdleTimeout != 5*time.Minute || DefaultMessageTimeout != 30*time.Second ||
		DefaultHandshakeTimeout != 10*time.Second || DefaultMaxConns != 256 {
		t.Error("the documented defaults changed")
	}
}

// connEnd is how a server-side connection ended.
type connEnd struct {
	remote string
	err    error
}

// limitServer serves s with a handler that reports each connection's
// remote address when it starts and how it ended, and answers each byte
// 'E' by marking the connection established and writing 'e'.
func limitServer(t *testing.T, s *Server) (addr net.Addr, entered <-chan string, ended <-chan connEnd) {
	t.Helper()
	in := make(chan string, 64)
	out := make(chan connEnd, 64)
	s.Handler = func(_ context.Context, c net.Conn) {
		remote := c.RemoteAddr().String()
		in <- remote
		b := make([]byte, 1)
		for {
			if _, err := c.Read(b); err != nil {
				out <- connEnd{remote, err}
				return
			}
			if b[0] == 'E' {
				MarkEstablished(c)
				_, _ = c.Write([]byte{'e'})
			}
		}
	}
	return serveOn(t, s, listen(t)), in, out
}

// establish marks c established through the limitServer handler.
func establish(t *testing.T, c net.Conn) {
	t.Helper()
	if err := echoOnceAs(c, "E", "e"); err != nil {
		t.Fatalf("establishing %v: %v", c.LocalAddr(), err)
	}
}

// echoOnceAs writes msg on c and checks that want comes back.
func echoOnceAs(c net.Conn, msg, want string) error {
	if _, err := io.WriteString(c, msg); err != nil {
		return err
	}
	got := make([]byte, len(want))
	if _, err := io.ReadFull(c, got); err != nil {
		return err
	}
	if string(got) != want {
		return errors.New("got " + string(got) + ", want " + want)
	}
	return nil
}

func TestServerHandshakeTimeout(t *testing.T) {
	// Every other field is zero: the defaults apply beside the shortened
	// handshake deadline.
	s := &Server{HandshakeTimeout: 200 * time.Millisecond}
	addr, entered, ended := limitServer(t, s)
	est := dial(t, addr)
	within(t, entered, 10*time.Second, "the first connection starting")
	establish(t, est)
	silent := dial(t, addr)
	within(t, entered, 10*time.Second, "the silent connection starting")
	// A talker sends bytes but never establishes itself.
	talker := dial(t, addr)
	within(t, entered, 10*time.Second, "the talker starting")
	if _, err := talker.Write([]byte("hello?")); err != nil {
		t.Fatal(err)
	}
	closed := map[string]error{}
	for range 2 {
		e := within(t, ended, 10*time.Second, "a connection not established being closed")
		closed[e.remote] = e.err
	}
	for _, c := range []net.Conn{silent, talker} {
		if err := closed[c.LocalAddr().String()]; !errors.Is(err, ErrHandshakeTimeout) || !strings.HasPrefix(err.Error(), "transport: ") || strings.Count(err.Error(), "transport: ") != 1 {
			t.Errorf("connection %v ended with %v, want ErrHandshakeTimeout with one transport: prefix", c.LocalAddr(), err)
		}
		if err := within(t, readErr(c), 10*time.Second, "the client seeing the close"); err == nil {
			t.Error("read on a connection closed at the handshake deadline succeeded")
		}
	}
	// The established connection, accepted first, outlived both
	// deadlines.
	if err := echoOnceAs(est, "E", "e"); err != nil {
		t.Fatalf("established connection after the others were closed: %v", err)
	}
	if n := s.Evictions(); n != 0 {
		t.Errorf("Evictions() = %d, want 0", n)
	}
}

func TestServerEvictsOldestUnestablished(t *testing.T) {
	h := &recordHandler{}
	s := &Server{MaxConns: 2, HandshakeTimeout: -1, Logger: slog.New(h)}
	addr, entered, ended := limitServer(t, s)
	open := func() net.Conn {
		c := dial(t, addr)
		if got := within(t, entered, 10*time.Second, "a connection starting"); got != c.LocalAddr().String() {
			t.Fatalf("started %s, want %s", got, c.LocalAddr())
		}
		return c
	}
	evicted := func(c net.Conn, n int64) {
		t.Helper()
		e := within(t, ended, 10*time.Second, "a connection being evicted")
		if e.remote != c.LocalAddr().String() || !errors.Is(e.err, ErrEvicted) {
			t.Fatalf("connection %s ended with %v; want %s evicted (ErrEvicted)", e.remote, e.err, c.LocalAddr())
		}
		if err := within(t, readErr(c), 10*time.Second, "the evicted client seeing the close"); err == nil {
			t.Fatal("read on an evicted connection succeeded")
		}
		if got := s.Evictions(); got != n {
			t.Fatalf("Evictions() = %d, want %d", got, n)
		}
	}
	c1 := open()
	c2 := open()
	// Full of connections not established: a new one evicts the oldest.
	c3 := open()
	evicted(c1, 1)
	// c3 establishes itself; c2 is now the oldest not established.
	establish(t, c3)
	c4 := open()
	evicted(c2, 2)
	// c3, older than c4, is established and never evicted.
	open()
	evicted(c4, 3)
	if err := echoOnceAs(c3, "E", "e"); err != nil {
		t.Fatalf("established connection after three evictions: %v", err)
	}
	logged := 0
	for _, r := range h.snapshot() {
		if r.level == slog.LevelDebug && strings.Contains(r.msg, "oldest connection not yet established") {
			logged++
		}
		if strings.Contains(r.msg, "jsonrpc") {
			t.Errorf("transport log line speaks of JSON-RPC: %q", r.msg)
		}
	}
	if logged != 3 {
		t.Errorf("logged %d evictions at Debug, want 3", logged)
	}
}

// TestServerEstablishedByJSONRPC: a jsonrpc.Conn over a Server connection
// marks it established exactly when its handshake succeeds.
func TestServerEstablishedByJSONRPC(t *testing.T) {
	refused := jsonrpc.NewError(-32000, "refused", nil)
	serverHandler := func(refuse bool) jsonrpc.Handler {
		return jsonrpc.HandlerFunc(func(_ context.Context, req *jsonrpc.Request) (any, error) {
			switch req.Method {
			case "hello":
				if refuse {
					return nil, refused
				}
				return "welcome", nil
			case "other":
				return 1, nil
			}
			return nil, jsonrpc.ErrMethodNotFound
		})
	}
	call := func(method string, wantErr bool) func(context.Context, *jsonrpc.Conn) error {
		return func(ctx context.Context, c *jsonrpc.Conn) error {
			err := c.Call(ctx, method, nil, nil)
			if (err != nil) != wantErr {
				return errors.New("call " + method + ": unexpected outcome: " + errString(err))
			}
			return nil
		}
	}
	for _, tc := range []struct {
		name        string
		server      jsonrpc.Options
		serverCalls bool // the server calls hello on the client
		client      jsonrpc.Options
		act         func(context.Context, *jsonrpc.Conn) error // nil: nothing
		raw         string                                     // written on the raw connection instead
		want        bool
	}{
		{name: "handshake answered", server: jsonrpc.Options{Handshake: "hello", Handler: serverHandler(false)}, act: call("hello", false), want: true},
		{name: "handshake refused", server: jsonrpc.Options{Handshake: "hello", Handler: serverHandler(true)}, act: call("hello", true)},
		{name: "other method first", server: jsonrpc.Options{Handshake: "hello", Handler: serverHandler(false)}, act: call("other", false)},
		{name: "no handshake, first message", server: jsonrpc.Options{Handler: serverHandler(false)}, act: call("unknown", true), want: true},
		{name: "no handshake, invalid JSON", server: jsonrpc.Options{Handler: serverHandler(false)}, raw: "not json\n"},
		{name: "own handshake call answered", server: jsonrpc.Options{Handshake: "hello"}, serverCalls: true,
			client: jsonrpc.Options{Handler: serverHandler(false)}, want: true},
		{name: "own handshake call refused", server: jsonrpc.Options{Handshake: "hello"}, serverCalls: true,
			client: jsonrpc.Options{Handler: serverHandler(true)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Server{HandshakeTimeout: -1}
			called := make(chan error, 1)
			s.Handler = func(ctx context.Context, nc net.Conn) {
				c := jsonrpc.NewConn(nc, tc.server)
				if tc.serverCalls {
					called <- c.Call(ctx, "hello", nil, nil)
				}
				select {
				case <-ctx.Done():
				case <-c.Done():
				}
				c.Close()
			}
			nc := dial(t, serveOn(t, s, listen(t)))
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if tc.raw != "" {
				if _, err := io.WriteString(nc, tc.raw); err != nil {
					t.Fatal(err)
				}
				// The answer (-32700) comes after the message was read.
				if line, err := bufio.NewReader(nc).ReadString('\n'); err != nil || !strings.Contains(line, "-32700") {
					t.Fatalf("answer to %q = %q, %v", tc.raw, line, err)
				}
			} else {
				c := jsonrpc.NewConn(nc, tc.client)
				defer c.Close()
				if tc.act != nil {
					if err := tc.act(ctx, c); err != nil {
						t.Fatal(err)
					}
				}
			}
			if tc.serverCalls {
				err := within(t, called, 10*time.Second, "the server's hello call returning")
				if (err == nil) != tc.want {
					t.Fatalf("the server's hello call = %v", err)
				}
			}
			// The Conn marks the stream established before it sends its
			// answer, or before its call returns: no waiting needed.
			if got := s.unestablishedLen() == 0; got != tc.want {
				t.Fatalf("established = %v, want %v", got, tc.want)
			}
		})
	}
}

func errString(err error) string {
	if err == nil {
		return "nil"
	}
	return err.Error()
}
