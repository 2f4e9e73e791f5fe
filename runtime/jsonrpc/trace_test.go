package jsonrpc

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rpcgen/rpcgen/runtime/framing"
)

// traced is one frame seen by a frameRecorder.
type traced struct {
	dir   Direction
	frame string
}

// frameRecorder keeps copies of the frames a connection traces.
type frameRecorder struct {
	mu     sync.Mutex
	frames []traced
}

func (r *frameRecorder) trace(dir Direction, frame []byte) {
	r.mu.Lock()
	r.frames = append(r.frames, traced{dir, string(frame)})
	r.mu.Unlock()
}

func (r *frameRecorder) got() []traced {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]traced(nil), r.frames...)
}

// checkTrace fails t unless got holds want, in order.
func checkTrace(t *testing.T, got, want []traced) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("traced\n%v\nwant\n%v", got, want)
	}
}

func TestTraceSeesEveryFrame(t *testing.T) {
	for _, f := range []framing.Framing{framing.NDJSON, framing.ContentLength} {
		t.Run(f.Name(), func(t *testing.T) {
			var r frameRecorder
			c, p := newRaw(t, Options{Framing: f, Handler: mux{"add": addHandler}, Trace: r.trace})
			req := `{"jsonrpc":"2.0","id":1,"method":"add","params":{"a":1,"b":2}}`
			p.send(req)
			reply := p.recv()
			bad := "{not json\x00"
			p.send(bad)
			parseErr := p.recv()
			batch := `[{"jsonrpc":"2.0","id":2,"method":"add","params":{"a":2,"b":2}},{"jsonrpc":"2.0","method":"tick"}]`
			p.send(batch)
			batchReply := p.recv()
			checkTrace(t, r.got(), []traced{
				{Received, req}, {Sent, reply},
				{Received, bad}, {Sent, parseErr},
				{Received, batch}, {Sent, batchReply},
			})
			if s := c.Stats(); s.MessagesIn != 3 || s.MessagesOut != 3 {
				t.Errorf("messages in %d, out %d; want 3 and 3", s.MessagesIn, s.MessagesOut)
			}
		})
	}
}

func TestTraceBothPeers(t *testing.T) {
	var cr, sr frameRecorder
	client, _ := pair(t, Options{Trace: cr.trace}, Options{Handler: mux{"add": addHandler}, Trace: sr.trace})
	var res addResult
	if err := client.Call(ctxLimit(t), "add", addParams{A: 1, B: 2}, &res); err != nil {
		t.Fatal(err)
	}
	req := `{"jsonrpc":"2.0","id":1,"method":"add","params":{"a":1,"b":2}}`
	reply := `{"jsonrpc":"2.0","id":1,"result":{"sum":3}}`
	checkTrace(t, cr.got(), []traced{{Sent, req}, {Received, reply}})
	checkTrace(t, sr.got(), []traced{{Received, req}, {Sent, reply}})
}

// fixedClock returns a clock that always says 12:34:56.789 UTC.
func fixedClock() time.Time { return time.Date(2026, 1, 2, 12, 34, 56, 789000000, time.UTC) }

func TestTraceWriterLines(t *testing.T) {
	var buf bytes.Buffer
	tw := &TraceWriter{W: &buf, Now: fixedClock}
	tw.Trace(Received, []byte(`{"jsonrpc":"2.0","id":1,"method":"m"}`))
	tw.Trace(Sent, []byte("{\n  \"jsonrpc\": \"2.0\",\r\n\t\"id\": 1, \"result\": \"\xff\"\n}"))
	want := "12:34:56.789000 <- 37 {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\"}\n" +
		"12:34:56.789000 -> 48 {   \"jsonrpc\": \"2.0\",   \"id\": 1, \"result\": \"\ufffd\" }\n"
	if buf.String() != want {
		t.Errorf("lines\n%q\nwant\n%q", buf.String(), want)
	}
}

func TestTraceWriterLimit(t *testing.T) {
	huge := []byte(`{"result":"` + strings.Repeat("é", 1<<20) + `"}`)
	for _, tc := range []struct {
		limit int
		shown int // bytes of the frame on the line
	}{
		{0, DefaultTraceLimit - 1}, // cut before the é the limit falls in
		{12, 11},
		{-1, len(huge)},
	} {
		var buf bytes.Buffer
		tw := &TraceWriter{W: &buf, Limit: tc.limit, Now: fixedClock}
		tw.Trace(Sent, huge)
		line := buf.String()
		prefix := fmt.Sprintf("12:34:56.789000 -> %d ", len(huge))
		if !strings.HasPrefix(line, prefix) || strings.Count(line, "\n") != 1 || !utf8.ValidString(line) {
			t.Fatalf("limit %d: line %.80q... is not one valid line starting with %q", tc.limit, line, prefix)
		}
		body := strings.TrimSuffix(line[len(prefix):], "\n")
		wantBody := string(huge[:tc.shown])
		if tc.shown < len(huge) {
			wantBody += "…"
		}
		if body != wantBody {
			t.Errorf("limit %d: %d bytes of frame written, want %d", tc.limit, len(body), len(wantBody))
		}
	}
}

func TestTraceWriterConcurrent(t *testing.T) {
	var buf bytes.Buffer
	tw := &TraceWriter{W: &buf, Now: fixedClock}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 50 {
				tw.Trace(Direction(1+i%2), []byte(`{"jsonrpc":"2.0","method":"tick"}`))
			}
		})
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 400 {
		t.Fatalf("%d lines, want 400", len(lines))
	}
	for _, l := range lines {
		if !strings.HasSuffix(l, ` 33 {"jsonrpc":"2.0","method":"tick"}`) {
			t.Fatalf("mangled line %q", l)
		}
	}
}

// FuzzTraceWriter checks that any frame, under any limit, is written as
// one line of valid UTF-8 showing the frame's size and at most the limit.
func FuzzTraceWriter(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"m"}`), 0)
	f.Add([]byte("{\n\"a\":\"\xff\xfe\"\r\n}"), 3)
	f.Add([]byte("ééé\x00\x7f"), 1)
	f.Fuzz(func(t *testing.T, frame []byte, limit int) {
		limit %= 1 << 16
		var buf bytes.Buffer
		(&TraceWriter{W: &buf, Limit: limit, Now: fixedClock}).Trace(Received, frame)
		line := buf.String()
		prefix := fmt.Sprintf("12:34:56.789000 <- %d ", len(frame))
		if !strings.HasPrefix(line, prefix) || strings.IndexByte(line, '\n') != len(line)-1 || !utf8.ValidString(line) {
			t.Fatalf("frame %q: line %q", frame, line)
		}
		body := strings.TrimSuffix(line[len(prefix):], "\n")
		shown := strings.TrimSuffix(body, "…")
		max := limit
		if limit == 0 {
			max = DefaultTraceLimit
		}
		// Each byte shown stands for one byte of the frame, but for
		// U+FFFD, three bytes for each invalid one.
		if limit > 0 && utf8.RuneCountInString(shown) > max || len(shown) > 3*len(frame) {
			t.Fatalf("frame of %d bytes, limit %d: %d bytes shown", len(frame), limit, len(shown))
		}
	})
}
