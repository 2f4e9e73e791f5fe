package jsonrpc

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// sizeHandler answers "blob" with a string of params[0] bytes.
var sizeHandler = mux{
	"blob": func(ctx context.Context, req *Request) (any, error) {
		var n []int
		if err := req.DecodeParams(&n); err != nil {
			return nil, err
		}
		return strings.Repeat("x", n[0]), nil
	},
	"sum": relHandler["sum"],
}

// tooLargeError checks that answer is the -32603 "too large" error with
// the given limit in its data.
func tooLargeError(t *testing.T, answer map[string]any, limit int) {
	t.Helper()
	e, _ := answer["error"].(map[string]any)
	data, _ := e["data"].(map[string]any)
	if e["code"] != float64(CodeInternalError) || !strings.Contains(e["message"].(string), "too large") ||
		data["limit"] != float64(limit) || data["size"].(float64) <= float64(limit) {
		t.Errorf("answer %v, want -32603 result too large with size and limit %d", answer, limit)
	}
}

// TestResponseTooLarge: a result that encodes past MaxResponseBytes is
// replaced by -32603 naming its size and the limit.
func TestResponseTooLarge(t *testing.T) {
	_, p := newRaw(t, Options{Handler: sizeHandler, MaxResponseBytes: 1000})
	answer := p.exchange(`{"jsonrpc":"2.0","id":1,"method":"blob","params":[2000]}`).(map[string]any)
	tooLargeError(t, answer, 1000)
	if answer["id"] != float64(1) {
		t.Errorf("answer to id %v", answer["id"])
	}
	assertContinues(t, p)
}

// TestBatchAnswerBounded: the answers that would take a batch's answer
// past MaxResponseBytes are replaced by the -32603 error, or left out
// when even that does not fit; the answer never exceeds the limit.
func TestBatchAnswerBounded(t *testing.T) {
	var elems []string
	for i := range 5 {
		elems = append(elems, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"blob","params":[300]}`, i))
	}
	batch := "[" + strings.Join(elems, ",") + "]"
	for _, limit := range []int{1500, 300} {
		_, p := newRaw(t, Options{Handler: sizeHandler, MaxResponseBytes: limit})
		p.send(batch)
		raw := p.recv()
		if len(raw) > limit {
			t.Errorf("limit %d: batch answer of %d bytes", limit, len(raw))
		}
		var answers []map[string]any
		if err := json.Unmarshal([]byte(raw), &answers); err != nil {
			t.Fatalf("limit %d: %s: %v", limit, raw, err)
		}
		if limit == 1500 && len(answers) != 5 {
			t.Errorf("limit %d: %d answers, want 5", limit, len(answers))
		}
		errs := 0
		for _, a := range answers {
			if a["error"] != nil {
				errs++
				tooLargeError(t, a, limit)
			}
		}
		if errs == 0 {
			t.Errorf("limit %d: no answer was replaced: %s", limit, raw)
		}
		assertContinues(t, p)
	}
}

// TestInvalidUTF8IsNotEchoed: an id, a method name or a raw result with
// invalid UTF-8 comes back with U+FFFD, so every answer is valid text.
func TestInvalidUTF8IsNotEchoed(t *testing.T) {
	h := mux{
		"raw": func(ctx context.Context, req *Request) (any, error) {
			return json.RawMessage("\"a\xffb\""), nil
		},
		"sum": relHandler["sum"],
	}
	_, p := newRaw(t, Options{Handler: h})
	for _, tc := range []struct{ send, want string }{
		{"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\xfe\",\"method\":\"sum\",\"params\":[1]}", `{"jsonrpc":"2.0","id":"\ufffd\ufffd","result":1}`},
		{"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"n\xc3\",\"params\":[1]}", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found","data":{"method":"n\ufffd"}}}`},
		{`{"jsonrpc":"2.0","id":2,"method":"raw"}`, `{"jsonrpc":"2.0","id":2,"result":"a\ufffdb"}`},
	} {
		p.send(tc.send)
		got := p.recv()
		if !utf8.ValidString(got) {
			t.Errorf("answer to %q is not valid UTF-8: %q", tc.send, got)
		}
		assertSameJSON(t, "answer", got, tc.want)
	}
}

// TestEchoedValuesTruncated: a 1 MiB method name, member name or number
// is not echoed in full, in the -32601 data, the -32602 data, or the log.
func TestEchoedValuesTruncated(t *testing.T) {
	var log logBuffer
	c, p := newRaw(t, Options{Handler: relHandler, DisallowUnknownFields: true, Logger: log.logger()})
	long := strings.Repeat("m", 1<<20)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"` + long + `"}`)
	if got := p.recv(); len(got) > 2*MaxEchoBytes || !strings.Contains(got, "-32601") {
		t.Errorf("-32601 answer of %d bytes: %.300s", len(got), got)
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"count","params":{"` + long + `":1}}`)
	if got := p.recv(); len(got) > 3*MaxEchoBytes || !strings.Contains(got, "-32602") {
		t.Errorf("-32602 answer of %d bytes: %.300s", len(got), got)
	}
	p.send(`{"jsonrpc":"2.0","id":3,"method":"count","params":{"count":` + strings.Repeat("9", 1<<20) + `}}`)
	if got := p.recv(); len(got) > 3*MaxEchoBytes || !strings.Contains(got, "-32602") {
		t.Errorf("-32602 answer to a 1 MiB number of %d bytes: %.300s", len(got), got)
	}
	p.send(`{"jsonrpc":"2.0","method":"` + long + `"}`)
	p.send(`{"jsonrpc":"2.0","id":"` + long + `","result":1}`)
	assertContinues(t, p)
	c.Close()
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) < 2 {
		t.Errorf("expected warnings, got %q", log.String())
	}
	for _, line := range lines {
		if len(line) > 4*MaxEchoBytes {
			t.Errorf("log line of %d bytes: %.300s", len(line), line)
		}
	}
}

// manualClock is a clock that moves only when told.
type manualClock struct {
	mu  sync.Mutex
	now time.Time
}

func (m *manualClock) Now() time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.now
}

func (m *manualClock) advance(d time.Duration) {
	m.mu.Lock()
	m.now = m.now.Add(d)
	m.mu.Unlock()
}

// TestPeerWarningsAreRateLimited: 100,000 unknown notifications log the
// first few warnings, then one per interval with the count suppressed
// since, and the total when the connection ends.
func TestPeerWarningsAreRateLimited(t *testing.T) {
	const flood = 100_000
	var log logBuffer
	clock := &manualClock{now: time.Unix(0, 0)}
	c, p := newRaw(t, Options{Handler: relHandler, Logger: log.logger(), now: clock.Now, OrderRequestsAfterNotifications: true})
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		for range flood {
			if p.w.Write([]byte(`{"jsonrpc":"2.0","method":"unknown/notification"}`)) != nil {
				return
			}
		}
	}()
	<-sent
	// The request starts only once every notification before it has
	// been handled.
	fence := func() {
		t.Helper()
		p.send(`{"jsonrpc":"2.0","id":"fence","method":"sum","params":[1]}`)
		assertSameJSON(t, "fence", p.recv(), `{"jsonrpc":"2.0","id":"fence","result":1}`)
	}
	fence()
	if n := strings.Count(log.String(), "notification handler failed"); n != warnBurst {
		t.Errorf("%d warnings logged for %d notifications, want %d", n, flood, warnBurst)
	}
	clock.advance(warnInterval)
	p.send(`{"jsonrpc":"2.0","method":"unknown/notification"}`)
	fence()
	if !strings.Contains(log.String(), "suppressed=99990") {
		t.Errorf("no count of the suppressed warnings:\n%s", log.String())
	}
	c.Close()
	out := log.String()
	if !strings.Contains(out, "warnings suppressed on this connection") || !strings.Contains(out, "suppressed=99990\n") {
		t.Errorf("no summary at the end:\n%s", out)
	}
	if len(out) > 8<<10 {
		t.Errorf("%d bytes of log for %d notifications", len(out), flood)
	}
}
