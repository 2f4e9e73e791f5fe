package jsonrpc

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/framing"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(runChild(mode))
	}
	goleak.VerifyTestMain(m)
}

// waitLimit bounds every wait in these tests so a bug fails instead of
// hanging; it is never a pass criterion.
const waitLimit = 10 * time.Second

// pair returns two connected Conns with the given options, closed at the
// end of the test.
func pair(t testing.TB, a, b Options) (*Conn, *Conn) {
	t.Helper()
	s1, s2 := net.Pipe()
	ca, cb := NewConn(s1, a), NewConn(s2, b)
	t.Cleanup(func() {
		ca.Close()
		cb.Close()
	})
	return ca, cb
}

// rawPeer is the other end of a Conn, speaking bytes, to check exact wire
// behaviour.
type rawPeer struct {
	t    testing.TB
	conn net.Conn
	r    framing.Reader
	w    framing.Writer
}

// newRaw returns a Conn with opts and a raw peer connected to it.
func newRaw(t testing.TB, opts Options) (*Conn, *rawPeer) {
	t.Helper()
	s1, s2 := net.Pipe()
	if opts.Framing == nil {
		opts.Framing = framing.NDJSON
	}
	c := NewConn(s1, opts)
	p := &rawPeer{t: t, conn: s2, r: opts.Framing.NewReader(s2, framing.Limits{}), w: opts.Framing.NewWriter(s2)}
	t.Cleanup(func() {
		s2.Close()
		c.Close()
	})
	return c, p
}

// send writes one frame.
func (p *rawPeer) send(frame string) {
	p.t.Helper()
	p.conn.SetWriteDeadline(time.Now().Add(waitLimit))
	if err := p.w.Write([]byte(frame)); err != nil {
		p.t.Fatalf("raw peer: writing %s: %v", frame, err)
	}
}

// recv reads one frame.
func (p *rawPeer) recv() string {
	p.t.Helper()
	p.conn.SetReadDeadline(time.Now().Add(waitLimit))
	b, err := p.r.Read()
	if err != nil {
		p.t.Fatalf("raw peer: reading: %v", err)
	}
	return string(b)
}

// recvJSON reads one frame and decodes it into a generic value.
func (p *rawPeer) recvJSON() any {
	p.t.Helper()
	frame := p.recv()
	var v any
	if err := json.Unmarshal([]byte(frame), &v); err != nil {
		p.t.Fatalf("raw peer: frame %s is not JSON: %v", frame, err)
	}
	return v
}

// exchange sends frame and returns the decoded reply.
func (p *rawPeer) exchange(frame string) any {
	p.t.Helper()
	p.send(frame)
	return p.recvJSON()
}

// mustJSON decodes s into a generic value for comparisons.
func mustJSON(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return v
}

// mux is a small method table for tests.
type mux map[string]func(ctx context.Context, req *Request) (any, error)

func (m mux) Handle(ctx context.Context, req *Request) (any, error) {
	if f, ok := m[req.Method]; ok {
		return f(ctx, req)
	}
	return methodNotFound(ctx, req)
}

type addParams struct {
	A int `json:"a"`
	B int `json:"b"`
}

type addResult struct {
	Sum int `json:"sum"`
}

func addHandler(_ context.Context, req *Request) (any, error) {
	var p addParams
	if err := req.DecodeParams(&p); err != nil {
		return nil, err
	}
	return addResult{Sum: p.A + p.B}, nil
}

func ctxLimit(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), waitLimit)
	t.Cleanup(cancel)
	return ctx
}
