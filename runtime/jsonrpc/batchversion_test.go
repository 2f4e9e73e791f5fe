package jsonrpc

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
)

// versionOpts are the options of a protocol that, like MCP, accepts
// batches under revision 2025-03-26 only.
func versionOpts(h Handler) Options {
	return Options{Handler: h, Handshake: "initialize", VersionField: "protocolVersion", BatchVersions: []string{"2025-03-26"}}
}

// initializing answers initialize with the version asked for, as a server
// that supports it does, and counts the requests it handles.
func initializing(handled *atomic.Int64) Handler {
	return HandlerFunc(func(ctx context.Context, req *Request) (any, error) {
		handled.Add(1)
		if req.Method == "initialize" {
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			if err := req.DecodeParams(&p); err != nil {
				return nil, err
			}
			return map[string]any{"protocolVersion": p.ProtocolVersion, "capabilities": map[string]any{}}, nil
		}
		return relHandler.Handle(ctx, req)
	})
}

const refusedBatch = `[{"jsonrpc":"2.0","id":1,"method":"sum","params":[1]},{"jsonrpc":"2.0","method":"note"}]`

// TestBatchVersionsServer: with Options.BatchVersions, a batch read before
// the handshake has been answered is refused with one -32600, so the
// handshake cannot come in one; once the answer to initialize has named
// 2025-03-26 batches are handled, and once it has named 2025-11-25 they
// are refused, on the way in and on the way out.
func TestBatchVersionsServer(t *testing.T) {
	var handled atomic.Int64
	c, p := newRaw(t, versionOpts(initializing(&handled)))
	p.send(`[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}]`)
	assertSameJSON(t, "batch before the handshake", p.recv(),
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request","data":"batches are not accepted before the handshake has negotiated a protocol version; send each message on its own"}}`)
	if n := handled.Load(); n != 0 || c.ProtocolVersion() != "" {
		t.Fatalf("%d messages handled and version %q after a refused batch, want none", n, c.ProtocolVersion())
	}
	if err := c.Batch(context.Background(), []*BatchCall{{Method: "sum", Params: []int{1}}}); !errors.Is(err, ErrBatchesRejected) {
		t.Errorf("Batch before the handshake = %v, want ErrBatchesRejected", err)
	}

	t.Run("2025-03-26", func(t *testing.T) {
		var handled atomic.Int64
		c, p := newRaw(t, versionOpts(initializing(&handled)))
		p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26"}}`)
		assertSameJSON(t, "initialize", p.recv(), `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-03-26","capabilities":{}}}`)
		if v := c.ProtocolVersion(); v != "2025-03-26" {
			t.Fatalf("ProtocolVersion = %q after answering initialize, want 2025-03-26", v)
		}
		p.send(`[{"jsonrpc":"2.0","id":2,"method":"sum","params":[1,2]},{"jsonrpc":"2.0","id":3,"method":"sum","params":[3]}]`)
		assertSameJSON(t, "batch", p.recv(), `[{"jsonrpc":"2.0","id":2,"result":3},{"jsonrpc":"2.0","id":3,"result":3}]`)
	})

	t.Run("2025-11-25", func(t *testing.T) {
		var handled atomic.Int64
		c, p := newRaw(t, versionOpts(initializing(&handled)))
		p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`)
		p.recv()
		p.send(refusedBatch)
		assertSameJSON(t, "batch", p.recv(),
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request","data":"protocol version 2025-11-25 does not accept batches; send each message on its own"}}`)
		assertContinues(t, p)
		if n := handled.Load(); n != 2 {
			t.Errorf("%d messages handled, want initialize and the request after the batch", n)
		}
		err := c.Batch(context.Background(), []*BatchCall{{Method: "sum", Params: []int{1}}})
		if !errors.Is(err, ErrBatchesRejected) || !strings.Contains(err.Error(), "2025-11-25") {
			t.Errorf("Batch = %v, want ErrBatchesRejected naming 2025-11-25", err)
		}
		assertContinues(t, p) // nothing was written before this answer
	})
}

// TestBatchVersionsClient: the side that calls the handshake learns the
// version from the result it gets, and sends a batch only under a version
// that accepts them.
func TestBatchVersionsClient(t *testing.T) {
	for _, tc := range []struct {
		version string
		batches bool
	}{{"2025-03-26", true}, {"2025-11-25", false}} {
		t.Run(tc.version, func(t *testing.T) {
			c, p := newRaw(t, versionOpts(relHandler))
			if err := c.Batch(context.Background(), []*BatchCall{{Method: "sum"}}); !errors.Is(err, ErrBatchesRejected) {
				t.Fatalf("Batch before the handshake = %v, want ErrBatchesRejected", err)
			}
			called := make(chan error, 1)
			go func() {
				called <- c.Call(context.Background(), "initialize", map[string]string{"protocolVersion": "2025-11-25"}, nil)
			}()
			req := p.recvJSON().(map[string]any)
			id, _ := json.Marshal(req["id"])
			p.send(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"capabilities":{},"protocolVersion":"` + tc.version + `"}}`)
			if err := <-called; err != nil {
				t.Fatal(err)
			}
			if v := c.ProtocolVersion(); v != tc.version {
				t.Fatalf("ProtocolVersion = %q, want %s", v, tc.version)
			}
			calls := []*BatchCall{{Method: "sum", Params: []int{1, 2}, Result: new(int)}}
			if !tc.batches {
				if err := c.Batch(context.Background(), calls); !errors.Is(err, ErrBatchesRejected) {
					t.Fatalf("Batch = %v, want ErrBatchesRejected", err)
				}
				assertContinues(t, p) // the batch was not written
				return
			}
			sent := make(chan error, 1)
			go func() { sent <- c.Batch(context.Background(), calls) }()
			batch, ok := p.recvJSON().([]any)
			if !ok || len(batch) != 1 {
				t.Fatalf("peer received %v, want a batch of one", batch)
			}
			id, _ = json.Marshal(batch[0].(map[string]any)["id"])
			p.send(`[{"jsonrpc":"2.0","id":` + string(id) + `,"result":3}]`)
			if err := <-sent; err != nil || calls[0].Err != nil || *calls[0].Result.(*int) != 3 {
				t.Fatalf("Batch = %v, element %v %v; want the result 3", err, calls[0].Err, *calls[0].Result.(*int))
			}
		})
	}
}

// TestVersionFieldMissing: a handshake result without the version field,
// or with a value that is not a string, negotiates nothing: batches stay
// refused. The first version named is kept.
func TestVersionFieldMissing(t *testing.T) {
	for _, result := range []string{`{"capabilities":{}}`, `{"protocolVersion":20250326}`, `"2025-03-26"`} {
		c, p := newRaw(t, versionOpts(relHandler))
		called := make(chan error, 1)
		go func() { called <- c.Call(context.Background(), "initialize", nil, nil) }()
		req := p.recvJSON().(map[string]any)
		id, _ := json.Marshal(req["id"])
		p.send(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + result + `}`)
		if err := <-called; err != nil {
			t.Fatal(err)
		}
		if v := c.ProtocolVersion(); v != "" {
			t.Errorf("result %s: ProtocolVersion = %q, want none", result, v)
		}
		if err := c.Batch(context.Background(), []*BatchCall{{Method: "sum"}}); !errors.Is(err, ErrBatchesRejected) {
			t.Errorf("result %s: Batch = %v, want ErrBatchesRejected", result, err)
		}
	}

	var handled atomic.Int64
	c, p := newRaw(t, versionOpts(initializing(&handled)))
	for _, v := range []string{"2025-03-26", "2025-11-25"} {
		p.send(`{"jsonrpc":"2.0","id":"` + v + `","method":"initialize","params":{"protocolVersion":"` + v + `"}}`)
		p.recv()
	}
	if v := c.ProtocolVersion(); v != "2025-03-26" {
		t.Errorf("ProtocolVersion = %q after two handshakes, want the first, 2025-03-26", v)
	}
}
