package jsonrpc

import (
	"context"
	"errors"
	"io"
	"testing"
)

// readToEOF reads frames until the stream ends and returns them.
func readToEOF(t *testing.T, p *rawPeer) []string {
	t.Helper()
	var frames []string
	for {
		b, err := p.r.Read()
		if errors.Is(err, io.EOF) {
			return frames
		}
		if err != nil {
			t.Fatalf("reading: %v (after %q)", err, frames)
		}
		frames = append(frames, string(b))
	}
}

func TestCloseAfterReply(t *testing.T) {
	handler := mux{
		"shutdown": func(ctx context.Context, req *Request) (any, error) {
			if !CloseAfterReply(ctx) {
				t.Error("CloseAfterReply(handler ctx) = false")
			}
			return true, nil
		},
		"exit": func(ctx context.Context, req *Request) (any, error) {
			// A notification handler's own messages go out before the close.
			ConnFromContext(ctx).Notify(ctx, "bye", nil)
			CloseAfterReply(ctx)
			return nil, nil
		},
		"sum": specHandler["sum"],
	}
	tests := []struct {
		name, send string
		want       []string
	}{
		{"request", `{"jsonrpc":"2.0","id":1,"method":"shutdown"}`, []string{`{"jsonrpc":"2.0","id":1,"result":true}`}},
		{"notification", `{"jsonrpc":"2.0","method":"exit"}`, []string{`{"jsonrpc":"2.0","method":"bye"}`}},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"sum","params":[1]},{"jsonrpc":"2.0","id":2,"method":"shutdown"}]`, nil},
	}
	for _, tt := range tests {
		// Repeat: a lost answer would show up as a flake.
		for range 20 {
			c, p := newRaw(t, Options{Handler: handler, MaxConcurrentRequests: 1})
			p.send(tt.send)
			frames := readToEOF(t, p)
			if tt.want != nil && (len(frames) != len(tt.want) || frames[0] != tt.want[0]) {
				t.Fatalf("%s: peer read %q before the close, want %q", tt.name, frames, tt.want)
			}
			if tt.name == "batch" {
				if len(frames) != 1 {
					t.Fatalf("batch: peer read %q, want one array", frames)
				}
				assertSameJSON(t, "batch", frames[0], `[{"jsonrpc":"2.0","id":1,"result":1},{"jsonrpc":"2.0","id":2,"result":true}]`)
			}
			if err := c.Wait(); !errors.Is(err, ErrClosed) {
				t.Fatalf("%s: Wait = %v, want ErrClosed", tt.name, err)
			}
		}
	}
	if CloseAfterReply(context.Background()) {
		t.Error("CloseAfterReply(Background) = true")
	}
}
