package streamhttp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestClientTakesEachEventWhole: each event of a stream reaches Read as
// its own line, the next event's data overwriting nothing already taken;
// a message on one line is passed on as it is (spaces kept), one spread
// over several data lines is compacted, and one that is not JSON is
// dropped.
func TestClientTakesEachEventWhole(t *testing.T) {
	s, err := Dial(context.Background(), "http://127.0.0.1:1/", testProto, ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	in := "data: {\"jsonrpc\":\"2.0\",\"method\":\"a\", \"params\": {\"x\": \"long enough to be overwritten\"}}\n\n" +
		"data: {\"jsonrpc\":\"2.0\",\"method\":\"b\"}\n\n" +
		"data: not json\n\n" +
		"data: {\"jsonrpc\":\"2.0\",\ndata:  \"id\":1, \"result\":true}\n\n"
	want := []string{
		`{"jsonrpc":"2.0","method":"a", "params": {"x": "long enough to be overwritten"}}` + "\n",
		`{"jsonrpc":"2.0","method":"b"}` + "\n",
		`{"jsonrpc":"2.0","id":1,"result":true}` + "\n",
	}
	st := &eventStream{kind: "POST", post: true, pending: *pendingOf("1")}
	done := make(chan error, 1)
	go func() { done <- s.consume(io.NopCloser(strings.NewReader(in)), st) }()
	var got []string
	for len(got) < len(want) {
		got = append(got, string(within(t, s.incoming, 10*time.Second, "a line")))
	}
	if err := within(t, done, 10*time.Second, "the end of the stream"); err != nil {
		t.Fatalf("consume: %v", err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("lines\n%q\nwant\n%q", got, want)
	}
	if st.pending.len() != 0 {
		t.Errorf("still pending: %+v", st.pending)
	}
}

// TestSSEParserDataInPlace: an event's data and id are handed out from
// the parser's buffers, so that reading events costs no allocation per
// event.
func TestSSEParserDataInPlace(t *testing.T) {
	var in bytes.Buffer
	for i := range 300 {
		fmt.Fprintf(&in, "event: message\nid: 2_%d\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progress\":%d}}\n\n", i, i)
	}
	p := newSSEParser(&in, 1<<20)
	want := make([]byte, 0, 16)
	i := 0
	n := testing.AllocsPerRun(200, func() {
		want = strconv.AppendInt(append(want[:0], "2_"...), int64(i), 10)
		i++
		if ev, err := p.Next(); err != nil || !json.Valid(ev.Data) || !bytes.Equal(ev.ID, want) || !bytes.Equal(p.LastID, want) {
			t.Fatalf("Next = %q id %q, %v; want id %q", ev.Data, ev.ID, err, want)
		}
	})
	if n != 0 {
		t.Errorf("%v allocations an event, want 0", n)
	}
}

// TestResponseIDsOfOneMessage: the ids of the answers in a line are read
// without allocating for a single message, and every id of a batch is
// found.
func TestResponseIDsOfOneMessage(t *testing.T) {
	line := []byte(`{"jsonrpc":"2.0","id":7,"result":{"a":[1,2]}}` + "\n")
	var one [1]json.RawMessage
	if n := testing.AllocsPerRun(100, func() {
		if ids := appendResponseIDs(one[:0], line); len(ids) != 1 || string(ids[0]) != "7" {
			t.Fatalf("ids = %q", ids)
		}
	}); n != 0 {
		t.Errorf("%v allocations for one answer, want 0", n)
	}
	batch := []byte(`[{"jsonrpc":"2.0","id":1,"result":1},{"jsonrpc":"2.0","method":"m"},{"jsonrpc":"2.0","id": "x" ,"error":{}}]`)
	if ids := appendResponseIDs(one[:0], batch); fmt.Sprintf("%s", ids) != `[1 "x"]` {
		t.Errorf("ids of a batch = %s, want [1 \"x\"]", ids)
	}
	for _, c := range []struct {
		method string
		want   bool
	}{{`"initialize"`, true}, {`"\u0069nitialize"`, true}, {`"initialized"`, false}, {`"init\"ialize"`, false}} {
		o := inspectOutgoing([]byte(`{"jsonrpc":"2.0","id":3,"method":`+c.method+`}`), "initialize", nil)
		if (o.handshake != nil) != c.want || len(o.requests) != 1 || string(o.requests[0]) != "3" {
			t.Errorf("inspectOutgoing of method %s = %+v, want a handshake: %v", c.method, o, c.want)
		}
	}
}

// TestSSEParserReused: a parser given back and taken again reads its new
// stream from a clean state: no id, retry, type or data of the last one.
func TestSSEParserReused(t *testing.T) {
	p := getSSEParser(strings.NewReader("id: 7\nretry: 30\nevent: other\ndata: partial"), 64)
	if _, err := p.Next(); err != io.EOF {
		t.Fatalf("Next = %v, want io.EOF", err)
	}
	putSSEParser(p)
	for range 2 { // the pool may hand out p or a new parser
		q := getSSEParser(strings.NewReader("data: x\n\n"), 64)
		ev, err := q.Next()
		if err != nil || string(ev.Data) != "x" || ev.Type != "" || len(ev.ID) != 0 || len(q.LastID) != 0 || q.HasRetry || q.max != 64 {
			t.Fatalf("reused parser: event %+v (%v), LastID %q, HasRetry %v", ev, err, q.LastID, q.HasRetry)
		}
		putSSEParser(q)
	}
	big := getSSEParser(strings.NewReader("data: "+strings.Repeat("x", maxPooledBytes+1)+"\n\n"), 2*maxPooledBytes)
	if ev, err := big.Next(); err != nil || len(ev.Data) != maxPooledBytes+1 {
		t.Fatalf("big event: %d bytes, %v", len(ev.Data), err)
	}
	putSSEParser(big) // dropped: it is too large to keep
}

// TestClientReadsJSONAnswers: a JSON body reaches Read as one line, in
// the buffer it was read into when its length was announced (no copy),
// compacted when it spans lines; a body shorter than announced is an
// error, and an unannounced one is read as it comes.
func TestClientReadsJSONAnswers(t *testing.T) {
	s, err := Dial(context.Background(), "http://127.0.0.1:1/", testProto, ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range []struct {
		name, body string
		n          int64 // announced length; -2: the body's own
		want       string
	}{
		{"announced", `{"jsonrpc":"2.0","id":1, "result":true}`, -2, `{"jsonrpc":"2.0","id":1, "result":true}`},
		{"spaces around", " \n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":2}\r\n", -2, `{"jsonrpc":"2.0","id":1,"result":2}`},
		{"pretty", "{\"jsonrpc\":\"2.0\",\n \"id\":1,\n \"result\":3}", -2, `{"jsonrpc":"2.0","id":1,"result":3}`},
		{"not announced", `{"jsonrpc":"2.0","id":1,"result":4}`, -1, `{"jsonrpc":"2.0","id":1,"result":4}`},
		{"shorter than announced", `{"jsonrpc":"2.0","id":1,"result":5}`, 100, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			n := c.n
			if n == -2 {
				n = int64(len(c.body))
			}
			ids := []json.RawMessage{json.RawMessage("1")}
			s.expect(ids) // awaited, so that a failure is answered
			defer s.unexpect(ids)
			s.readJSON(io.NopCloser(strings.NewReader(c.body)), n, pendingOf("1"))
			line := string(within(t, s.incoming, 10*time.Second, "a line"))
			if c.want == "" {
				var m map[string]any
				if err := json.Unmarshal([]byte(line), &m); err != nil || m["error"] == nil {
					t.Fatalf("line %q, want an error answer", line)
				}
				return
			}
			if line != c.want+"\n" {
				t.Fatalf("line %q, want %q", line, c.want+"\n")
			}
		})
	}
	// An announced body costs one allocation on its way to Read, noting
	// the request it answers none.
	body := strings.NewReader("")
	rc := io.NopCloser(body)
	msg := `{"jsonrpc":"2.0","id":1,"result":true}`
	id := []byte("1")
	allocs := testing.AllocsPerRun(100, func() {
		body.Reset(msg)
		var pending pendingIDs
		pending.add(id)
		s.readJSON(rc, int64(len(msg)), &pending)
		<-s.incoming
		if pending.len() != 0 {
			t.Fatalf("still pending: %+v", pending)
		}
	})
	if allocs != 1 {
		t.Errorf("%v allocations per JSON answer, want 1 (its buffer)", allocs)
	}
}

// TestReadAnnouncedReadsToEnd: the body is read to its end, so that its
// connection can be reused; a body of another length is an error.
func TestReadAnnouncedReadsToEnd(t *testing.T) {
	for _, c := range []struct {
		body string
		n    int
		ok   bool
	}{{"abc", 3, true}, {"", 0, true}, {"ab", 3, false}, {"abcd", 3, false}} {
		r := &eofReader{r: strings.NewReader(c.body)}
		data, err := readAnnounced(r, c.n)
		if (err == nil) != c.ok || (c.ok && (string(data) != c.body || cap(data) != c.n+1 || !r.eof)) {
			t.Errorf("readAnnounced(%q, %d) = %q (cap %d), %v, end seen %v", c.body, c.n, data, cap(data), err, r.eof)
		}
	}
}
