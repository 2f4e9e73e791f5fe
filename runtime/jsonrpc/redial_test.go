package jsonrpc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"testing"
)

// closingPeer is a scripted server in the manner of a runtime that keeps
// a connection open only across its handshake: it answers hello and
// reads on, refuses anything before hello, and closes the connection
// after every other request. Which of those requests it answers before
// closing is up to its script.
type closingPeer struct {
	// unanswered lists the requests, numbered from 0 across connections,
	// that the peer reads and then closes the connection without
	// answering.
	unanswered []int
	// closeAfterHello is how many connections, the first ones, the peer
	// closes right after answering hello, before reading anything more.
	closeAfterHello int

	mu    sync.Mutex
	dials int
	got   []string // the methods read, in order
	calls int      // requests other than hello read
	conns []*Conn  // our side of each connection, as OnConnect saw it
	wg    sync.WaitGroup
}

// redialer returns a Redialer to the peer that says hello on each new
// connection and takes the given methods as idempotent.
func (p *closingPeer) redialer(idempotent ...string) *Redialer {
	return &Redialer{
		Dial: func(ctx context.Context) (io.ReadWriteCloser, error) {
			a, b := net.Pipe()
			p.mu.Lock()
			p.dials++
			closeEarly := p.dials <= p.closeAfterHello
			p.mu.Unlock()
			p.wg.Go(func() { p.serve(b, closeEarly) })
			return a, nil
		},
		Options: Options{Idempotent: func(method string) bool { return slices.Contains(idempotent, method) }},
		OnConnect: func(ctx context.Context, c *Conn) error {
			p.mu.Lock()
			p.conns = append(p.conns, c)
			p.mu.Unlock()
			return c.Call(ctx, "hello", nil, nil)
		},
	}
}

// serve runs the script on one connection.
func (p *closingPeer) serve(s net.Conn, closeAfterHello bool) {
	defer s.Close()
	br := bufio.NewReader(s)
	identified := false
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			return
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(line, &req) != nil {
			return
		}
		p.mu.Lock()
		p.got = append(p.got, req.Method)
		n := p.calls
		if req.Method != "hello" {
			p.calls++
		}
		p.mu.Unlock()
		switch {
		case req.Method == "hello":
			identified = true
			fmt.Fprintf(s, `{"jsonrpc":"2.0","id":%s,"result":{"success":true}}`+"\n", req.ID)
			if closeAfterHello {
				return
			}
			continue
		case !identified:
			fmt.Fprintf(s, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32600,"message":"hello first"}}`+"\n", req.ID)
		case !slices.Contains(p.unanswered, n):
			fmt.Fprintf(s, `{"jsonrpc":"2.0","id":%s,"result":%q}`+"\n", req.ID, req.Method)
		}
		return
	}
}

// read returns the methods the peer read and how many connections it got.
func (p *closingPeer) read() ([]string, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.got), p.dials
}

// lastConn returns our side of the newest connection.
func (p *closingPeer) lastConn() *Conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.conns[len(p.conns)-1]
}

// stop closes r and waits for the peer's connections to end.
func (p *closingPeer) stop(r *Redialer) {
	r.Close()
	p.mu.Lock()
	conns := p.conns
	p.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
	p.wg.Wait()
}

func TestRedialerPeerClosesAfterEachAnswer(t *testing.T) {
	p := &closingPeer{}
	r := p.redialer("ping")
	defer p.stop(r)
	ctx := ctxLimit(t)

	// An idempotent call right after the previous answer: the peer's
	// close may not have arrived yet, and a call sent into it is sent
	// again on a new connection.
	for i := range 10 {
		var got string
		if err := r.Call(ctx, "ping", nil, &got); err != nil || got != "ping" {
			t.Fatalf("ping %d = %q, %v", i, got, err)
		}
	}
	// Any call, once the close has arrived: the Redialer sees the
	// connection ended and dials again before sending.
	for i := range 5 {
		<-p.lastConn().Done()
		var got string
		if err := r.Call(ctx, "save", nil, &got); err != nil || got != "save" {
			t.Fatalf("save %d = %q, %v", i, got, err)
		}
	}
	got, dials := p.read()
	if n := count(got, "ping"); n != 10 {
		t.Errorf("the peer read ping %d times, want 10", n)
	}
	if n := count(got, "save"); n != 5 {
		t.Errorf("the peer read save %d times, want 5", n)
	}
	if n := count(got, "hello"); n != dials || dials < 15 {
		t.Errorf("%d hellos on %d connections, want one on each of at least 15", n, dials)
	}
}

func TestRedialerPeerClosesBeforeReadingACall(t *testing.T) {
	ctx := ctxLimit(t)
	t.Run("ended before the call", func(t *testing.T) {
		p := &closingPeer{closeAfterHello: 1}
		r := p.redialer()
		defer p.stop(r)
		c, err := r.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		<-c.Done()
		var got string
		if err := r.Call(ctx, "save", nil, &got); err != nil || got != "save" {
			t.Fatalf("save = %q, %v", got, err)
		}
		if got, dials := p.read(); !slices.Equal(got, []string{"hello", "hello", "save"}) || dials != 2 {
			t.Errorf("the peer read %q on %d connections, want hello, hello, save on 2", got, dials)
		}
	})
	t.Run("ended while the call waited to be sent", func(t *testing.T) {
		p := &closingPeer{closeAfterHello: 1}
		r := p.redialer()
		defer p.stop(r)
		// The first save is held until its connection has ended, after
		// the Redialer chose that connection: it fails unsent.
		var once sync.Once
		r.Options.Outgoing = []OutgoingMiddleware{func(next SendFunc) SendFunc {
			return func(ctx context.Context, out *Outgoing) error {
				if out.Method == "save" {
					once.Do(func() { <-p.lastConn().Done() })
				}
				return next(ctx, out)
			}
		}}
		var got string
		if err := r.Call(ctx, "save", nil, &got); err != nil || got != "save" {
			t.Fatalf("save = %q, %v", got, err)
		}
		if got, dials := p.read(); !slices.Equal(got, []string{"hello", "hello", "save"}) || dials != 2 {
			t.Errorf("the peer read %q on %d connections, want hello, hello, save on 2", got, dials)
		}
		err := p.conns[0].Call(ctx, "save", nil, nil)
		if !errors.Is(err, ErrClosed) || !errors.Is(err, ErrNotSent) {
			t.Errorf("call on an ended connection = %v, want ErrClosed and ErrNotSent", err)
		}
	})
}

func TestRedialerPeerClosesAfterReadingACall(t *testing.T) {
	ctx := ctxLimit(t)
	t.Run("not idempotent", func(t *testing.T) {
		p := &closingPeer{unanswered: []int{0}}
		r := p.redialer("ping")
		defer p.stop(r)
		err := r.Call(ctx, "save", nil, nil)
		if !errors.Is(err, ErrClosed) || errors.Is(err, ErrNotSent) {
			t.Fatalf("save = %v, want ErrClosed, not ErrNotSent", err)
		}
		if got, _ := p.read(); count(got, "save") != 1 {
			t.Fatalf("the peer read %q; save was sent again", got)
		}
		var got string
		if err := r.Call(ctx, "save", nil, &got); err != nil || got != "save" {
			t.Fatalf("the next save = %q, %v", got, err)
		}
	})
	t.Run("idempotent", func(t *testing.T) {
		p := &closingPeer{unanswered: []int{0}}
		r := p.redialer("ping")
		defer p.stop(r)
		var got string
		if err := r.Call(ctx, "ping", nil, &got); err != nil || got != "ping" {
			t.Fatalf("ping = %q, %v", got, err)
		}
		if got, dials := p.read(); !slices.Equal(got, []string{"hello", "ping", "hello", "ping"}) || dials != 2 {
			t.Errorf("the peer read %q on %d connections, want hello, ping twice on 2", got, dials)
		}
	})
	t.Run("idempotent, retries off", func(t *testing.T) {
		p := &closingPeer{unanswered: []int{0}}
		r := p.redialer("ping")
		r.Retries = -1
		defer p.stop(r)
		if err := r.Call(ctx, "ping", nil, nil); !errors.Is(err, ErrClosed) {
			t.Fatalf("ping = %v, want ErrClosed", err)
		}
	})
}

func TestRedialerOnConnectFails(t *testing.T) {
	p := &closingPeer{}
	r := p.redialer()
	defer p.stop(r)
	hello := r.OnConnect
	refused := &Error{Code: -32001, Message: "Authentication failed"}
	r.OnConnect = func(ctx context.Context, c *Conn) error {
		if err := hello(ctx, c); err != nil {
			return err
		}
		return refused
	}
	err := r.Call(ctxLimit(t), "save", nil, nil)
	if !errors.Is(err, refused) {
		t.Fatalf("call = %v, want the OnConnect error", err)
	}
	<-p.lastConn().Done() // closed by the Redialer
	if got, _ := p.read(); slices.Contains(got, "save") {
		t.Errorf("the peer read %q: a call was sent after OnConnect failed", got)
	}
}

// count returns how many times s occurs in list.
func count(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}

func TestRedialerSkipsAConnectionWhosePeerFinished(t *testing.T) {
	// The peer sends us a request and closes: the connection lives on
	// while our handler runs, but nothing sent on it would be read. With
	// no retries, the next call succeeds only if the Redialer sees that
	// before sending.
	var wg sync.WaitGroup
	defer wg.Wait()
	dials := 0
	serve := func(s net.Conn, first bool) {
		defer s.Close()
		br := bufio.NewReader(s)
		for {
			line, err := br.ReadBytes('\n')
			if err != nil {
				return
			}
			var req struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			if json.Unmarshal(line, &req) != nil {
				return
			}
			if first && req.Method == "hang" {
				fmt.Fprint(s, `{"jsonrpc":"2.0","id":"s1","method":"slow"}`+"\n")
				return
			}
			fmt.Fprintf(s, `{"jsonrpc":"2.0","id":%s,"result":%q}`+"\n", req.ID, req.Method)
		}
	}
	r := &Redialer{
		Dial: func(ctx context.Context) (io.ReadWriteCloser, error) {
			a, b := net.Pipe()
			dials++
			first := dials == 1
			wg.Go(func() { serve(b, first) })
			return a, nil
		},
		Options: Options{DrainTimeout: waitLimit, Handler: HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
			<-ctx.Done() // until the connection is closed
			return nil, ctx.Err()
		})},
		OnConnect: func(ctx context.Context, c *Conn) error { return c.Call(ctx, "hello", nil, nil) },
		Retries:   -1,
	}
	defer r.Close()
	ctx := ctxLimit(t)
	if err := r.Call(ctx, "hang", nil, nil); !errors.Is(err, ErrPeerClosed) {
		t.Fatalf("hang = %v, want the peer's close", err)
	}
	var got string
	if err := r.Call(ctx, "save", nil, &got); err != nil || got != "save" {
		t.Fatalf("save after the peer finished = %q, %v", got, err)
	}
	if dials != 2 {
		t.Errorf("dials = %d, want 2", dials)
	}
}
