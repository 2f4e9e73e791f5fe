package streamhttp

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// clientHostileCase is one row of RELIABILITY_CLIENT.md: what a hostile or
// broken server sends, what the client does, and what stays bounded.
type clientHostileCase struct {
	input, answer, bound string
	run                  func(t *testing.T)
}

var clientHostileCases = []clientHostileCase{
	{"JSON answer past MaxMessageBytes, streamed (64 MiB, limit 64 KiB)", "the call fails with -32603 naming the limit; the session goes on",
		"reading stops past the limit: under 8 MiB allocated", testClientHostileBigJSON},
	{"event line that never ends (64 MiB without a line break, limit 64 KiB)", "the call fails with -32603 (event too large); the session goes on",
		"a line is never buffered past the limit: under 8 MiB allocated", testClientHostileEndlessLine},
	{"JSON answer, event or event data lines past MaxMessageBytes", "the call waiting for it fails with -32603 naming the limit", "one message's bytes", testClientMessageLimit},
	{"event data that is not JSON", "dropped and logged; the events after it are read", "nothing reaches the connection", testClientDropsNonJSONEvents},
	{"HTTP error status: 400 with a JSON-RPC error, 500 with text, 200 text/html", "the call fails at once: with the server's JSON-RPC error (and the request's id), else -32603 with the status (and body) as data, or naming the content type", "the session goes on", testClientHTTPErrorAnswers},
	{"HTTP 500 with a 1 MiB body", "the call fails with -32603; data holds the status and the body cut to 256 bytes and its length", "64 KiB of an error body read", testClientHostileHugeErrorBody},
	{"404 to a request carrying the session id", "ErrSessionNotFound wrapping the HTTPError: the stream ends, every pending call fails, Close sends no DELETE", "nothing more sent", testClientSessionGone},
	{"401 or 403", "the stream ends with an *HTTPError holding the status and WWW-Authenticate", "nothing more sent", testClientUnauthorized},
	{"server unreachable", "the stream ends with the network error; the call fails at once", "nothing retried", testClientUnreachable},
	{"event stream ending before the answer, with no event id", "the call fails with -32603 at once: nothing to resume from", "no GET sent", testClientLostStreamWithoutID},
	{"resumption GETs refused (503)", "after MaxReconnects attempts with a growing delay, the call fails with -32603", "MaxReconnects GETs", testClientResumeGivesUp},
	{"retry of an hour, or of 10^23 ms", "waited as asked (capped at 2^31 ms); Close does not wait for it", "one timer", testClientCloseDuringReconnectDelay},
	{"server that never sends the response headers", "the next message is POSTed after HeaderWait; Close ends the hung request and its call fails", "one goroutine per request in flight", testClientHostileNoHeaders},
	{"first GET answered 404 or 400 (no GET route)", "the client does not ask again; the session goes on", "one GET", testClientGETRefusedStopsTrying},
}

func TestClientReliability(t *testing.T) {
	for _, c := range clientHostileCases {
		t.Run(c.input, c.run)
	}
	checkGolden(t, "RELIABILITY_CLIENT.md", renderClientReliability(), "go test ./runtime/streamhttp -run TestClientReliability")
}

func renderClientReliability() []byte {
	var b strings.Builder
	b.WriteString("# runtime/streamhttp: what a hostile server can do to the client\n\n")
	b.WriteString("Generated from `clientHostileCases` in `client_reliability_test.go` by\n")
	b.WriteString("`go test ./runtime/streamhttp -run TestClientReliability -update`; the\n")
	b.WriteString("test fails when this file differs from the table. Each row is a subtest\n")
	b.WriteString("of `TestClientReliability` running a `ClientStream` (under a\n")
	b.WriteString("`jsonrpc.Conn`) against an `httptest` server that misbehaves; goleak\n")
	b.WriteString("checks that no goroutine outlives the tests. `FuzzSSEParser` and\n")
	b.WriteString("`FuzzClientEvents` cover arbitrary event streams.\n\n")
	fmt.Fprintf(&b, "Limits (defaults): one JSON body or event %d MiB, %d reconnection\n", DefaultMaxMessageBytes>>20, DefaultMaxReconnects)
	fmt.Fprintf(&b, "attempts in a row from %v growing to %v (the server's retry when it\n", DefaultReconnectDelay, DefaultMaxReconnectDelay)
	fmt.Fprintf(&b, "sets one), %v for the previous POST's headers, %v for the DELETE;\n", DefaultHeaderWait, DefaultCloseTimeout)
	b.WriteString("tests lower them to keep inputs small.\n\n")
	b.WriteString("| hostile input | client | bound | proved by |\n|---|---|---|---|\n")
	for _, c := range clientHostileCases {
		fmt.Fprintf(&b, "| %s | %s | %s | `TestClientReliability/%s` |\n", c.input, c.answer, c.bound, strings.ReplaceAll(c.input, " ", "_"))
	}
	return []byte(b.String())
}

// filler is an endless (up to n bytes) reader of one byte value.
type filler struct {
	b byte
	n int
}

func (f *filler) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, io.EOF
	}
	n := min(len(p), f.n)
	for i := range p[:n] {
		p[i] = f.b
	}
	f.n -= n
	return n, nil
}

// allocatedDuring returns the bytes allocated while f ran.
func allocatedDuring(f func()) uint64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// hugeAnswerCase runs a call that the server answers with 64 MiB of
// content type ctype after prefix, and checks that it fails with -32603
// saying want, allocating little, and that the session goes on.
func hugeAnswerCase(t *testing.T, ctype, prefix, want string) {
	const limit = 64 << 10
	ts := newTestServer(t, func(w http.ResponseWriter, r *http.Request, h hit) {
		if h.Msg.Method != "huge" {
			if !mcpBasics(w, r, h) {
				writeJSON(w, nil, result(h.Msg.ID, `"ok"`))
			}
			return
		}
		w.Header().Set("Content-Type", ctype)
		_, _ = io.WriteString(w, prefix)
		_, _ = io.Copy(w, &filler{b: 'x', n: 64 << 20}) // until the client hangs up
	})
	c, _ := connect(t, ts, ClientOptions{MaxMessageBytes: limit}, nil)
	var out callOutcome
	alloc := allocatedDuring(func() {
		out = within(t, callAsync(c, "huge", nil), 30*time.Second, "the huge answer's failure")
	})
	var je *jsonrpc.Error
	if !errors.As(out.err, &je) || je.Code != CodeHTTPFailure || !strings.Contains(je.Message, want) {
		t.Fatalf("call error = %v, want -32603 saying %q", out.err, want)
	}
	if alloc > 8<<20 {
		t.Errorf("%d bytes allocated for a 64 MiB answer past a %d-byte limit", alloc, limit)
	}
	if got := within(t, callAsync(c, "after", nil), 10*time.Second, "a call after"); got.err != nil {
		t.Errorf("the session after the huge answer: %v", got.err)
	}
}

func testClientHostileBigJSON(t *testing.T) {
	hugeAnswerCase(t, "application/json", `{"jsonrpc":"2.0","id":2,"result":"`, "larger than 65536")
}

func testClientHostileEndlessLine(t *testing.T) {
	hugeAnswerCase(t, "text/event-stream", "id: 1\ndata: ", "too large")
}

func testClientHostileHugeErrorBody(t *testing.T) {
	ts := newTestServer(t, func(w http.ResponseWriter, r *http.Request, h hit) {
		if h.Msg.Method == "fail" {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = io.Copy(w, &filler{b: '<', n: 1 << 20})
			return
		}
		mcpBasics(w, r, h)
	})
	c, _ := connect(t, ts, ClientOptions{}, nil)
	out := within(t, callAsync(c, "fail", nil), 10*time.Second, "the failed call")
	var je *jsonrpc.Error
	if !errors.As(out.err, &je) || je.Code != CodeHTTPFailure || !strings.Contains(string(je.Data), `"status":500`) {
		t.Fatalf("call error = %v", out.err)
	}
	if len(je.Data) > 400 || !strings.Contains(string(je.Data), "(65536 bytes)") {
		t.Errorf("data of %d bytes: %.400s", len(je.Data), je.Data)
	}
}

func testClientHostileNoHeaders(t *testing.T) {
	hung := make(chan struct{})
	ts := newTestServer(t, func(w http.ResponseWriter, r *http.Request, h hit) {
		switch {
		case h.Msg.Method == "hang":
			close(hung)
			<-r.Context().Done() // no headers, ever
		case !mcpBasics(w, r, h):
			writeJSON(w, nil, result(h.Msg.ID, `"ok"`))
		}
	})
	c, s := connect(t, ts, ClientOptions{HeaderWait: 10 * time.Millisecond}, nil)
	hanging := callAsync(c, "hang", nil)
	within(t, hung, 10*time.Second, "the hanging request")
	if got := within(t, callAsync(c, "next", nil), 10*time.Second, "the call after it"); got.err != nil {
		t.Fatalf("next: %v", got.err)
	}
	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	within(t, closed, 10*time.Second, "Close with a request hanging")
	if got := within(t, hanging, 10*time.Second, "the hanging call's end"); got.err == nil {
		t.Error("the hanging call succeeded")
	}
}
