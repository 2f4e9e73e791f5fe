package streamhttp

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// FuzzServerPOST posts arbitrary bodies to a stateless Handler whose
// connections answer every request at once: every body gets a definite
// answer (never a hang), with a status from the documented set, and every
// JSON the server writes is valid.
func FuzzServerPOST(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}`,
		`{"jsonrpc":"2.0","method":"note"}`,
		`{"jsonrpc":"2.0","id":1,"result":true}`,
		`[{"jsonrpc":"2.0","id":1,"method":"echo"},{"jsonrpc":"2.0","id":2,"method":"echo"}]`,
		`{"jsonrpc":"2.0","ID":1,"method":"echo","id":"x","id":2}`,
		"{\n \"jsonrpc\": \"2.0\",\n \"id\": \"\\u00e9\",\n \"method\": \"echo\"\n}",
		`{"jsonrpc":"1.0","id":1,"method":"echo"}`,
		`[1,{"id":null,"method":"m"}]`,
		`{"id":"\xff","method":"echo"}`,
		`"x"`,
	} {
		f.Add([]byte(seed), true)
		f.Add([]byte(seed), false)
	}
	f.Fuzz(func(t *testing.T, body []byte, sse bool) {
		h := NewHandler(Protocol{Path: "/"}, func(s *Session) {
			jsonrpc.NewConn(s, jsonrpc.Options{Handler: jsonrpc.HandlerFunc(func(_ context.Context, req *jsonrpc.Request) (any, error) {
				return req.Params, nil
			}), Logger: slog.New(slog.DiscardHandler)})
		}, ServerOptions{MaxBodyBytes: 1 << 16, Logger: slog.New(slog.DiscardHandler)})
		defer h.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		if sse {
			req.Header.Set("Accept", "text/event-stream")
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if ctx.Err() != nil {
			t.Fatalf("no answer to %q", body)
		}
		out := w.Body.Bytes()
		switch w.Code {
		case http.StatusAccepted:
			if len(out) != 0 {
				t.Fatalf("202 with a body %q", out)
			}
		case http.StatusBadRequest, http.StatusRequestEntityTooLarge:
			var e struct {
				Error *struct{ Code int } `json:"error"`
			}
			if json.Unmarshal(out, &e) != nil || e.Error == nil {
				t.Fatalf("%d with body %q", w.Code, out)
			}
		case http.StatusOK:
			if !sse {
				if !json.Valid(out) {
					t.Fatalf("JSON answer %q is not valid JSON", out)
				}
				return
			}
			answered := false
			for _, line := range strings.Split(string(out), "\n") {
				if data, ok := strings.CutPrefix(line, "data: "); ok && data != "" {
					if !json.Valid([]byte(data)) {
						t.Fatalf("event data %q is not valid JSON", data)
					}
					answered = true
				}
			}
			if !answered {
				t.Fatalf("event stream %q carries no answer", out)
			}
		default:
			t.Fatalf("status %d for %q", w.Code, body)
		}
	})
}

// FuzzParseEventID checks that Last-Event-ID parsing accepts exactly the
// ids the server writes.
func FuzzParseEventID(f *testing.F) {
	for _, seed := range []string{"0_0", "12_345", "x", "1_-1", "_", "1_2_3", "18446744073709551615_1", "18446744073709551616_1", "+1_1", "01_1"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, id string) {
		streamID, seq, ok := parseEventID(id)
		if ok && formatEventID(streamID, seq) != id {
			t.Fatalf("%q parses as %d_%d", id, streamID, seq)
		}
	})
}
