package streamhttp

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rpcgen/rpcgen/runtime/jsonrpc"
)

// The POST path reads a body once: the checks below hold it to what the
// earlier encoding/json code did.

// TestServerBodyReadEitherWay posts bodies with and without a known
// length (a chunked body has none), surrounded by whitespace or spread
// over lines, and bodies that are not JSON or end early: each gets the
// same answer either way.
func TestServerBodyReadEitherWay(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{})
	sid := ts.hello(t)
	for _, c := range []struct {
		name, body string
		status     int
		code       int    // JSON-RPC error code, 0: none
		result     string // the echoed params, "": not checked
	}{
		{"plain", `{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}`, 200, 0, "[1]"},
		{"spaces around", " \t {\"jsonrpc\":\"2.0\", \"id\":1, \"method\":\"echo\", \"params\":[ 2 ]} \t ", 200, 0, "[2]"},
		{"lines", "{\r\n\"jsonrpc\":\"2.0\",\n\"id\":1,\n\"method\":\"echo\",\"params\":[\"a\\nb\"]}\r\n", 200, 0, `[a\nb]`},
		{"not JSON", `{"jsonrpc":"2.0","id":1,`, 400, jsonrpc.CodeParseError, ""},
		{"two values", `{"jsonrpc":"2.0","id":1,"method":"echo"} {}`, 400, jsonrpc.CodeParseError, ""},
		{"blank", "  \n ", 400, jsonrpc.CodeParseError, ""},
	} {
		for _, known := range []bool{true, false} {
			name := c.name + "/known-length"
			if !known {
				name = c.name + "/chunked"
			}
			t.Run(name, func(t *testing.T) {
				var body io.Reader = strings.NewReader(c.body)
				if !known {
					body = io.MultiReader(body) // hides the length: the request goes chunked
				}
				req, err := http.NewRequest(http.MethodPost, ts.url, body)
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json")
				req.Header.Set(echoProto.SessionHeader, sid)
				resp, err := ts.client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				defer resp.Body.Close()
				if resp.StatusCode != c.status {
					t.Fatalf("status %d, want %d", resp.StatusCode, c.status)
				}
				m := decodeBody(t, resp)
				if c.code != 0 {
					if e, _ := m["error"].(map[string]any); e == nil || e["code"] != float64(c.code) {
						t.Fatalf("body %v, want error code %d", m, c.code)
					}
				}
				if c.result != "" {
					if got := jsonString(t, m["result"]); got != c.result {
						t.Fatalf("result %s, want %s", got, c.result)
					}
				}
			})
		}
	}
}

// jsonString encodes v back to compact JSON without quotes, for
// comparing echoed params.
func jsonString(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(b), `"`, "")
}

// TestServerShortBody sends less than the announced Content-Length: the
// answer is 400, not a hang and not a parse of what came.
func TestServerShortBody(t *testing.T) {
	h := NewHandler(echoProto, func(s *Session) { jsonrpc.NewConn(s, jsonrpc.Options{}) }, ServerOptions{})
	defer h.Close()
	req := httptest.NewRequest(http.MethodPost, echoProto.Path, strings.NewReader(`{"jsonrpc":"2.0"}`))
	req.ContentLength = 100
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusBadRequest {
		t.Fatalf("status %d for a body shorter than announced, want 400", w.Code)
	}
}

// TestServerPrimesBeforeSlowAnswer checks that the first event of a POST's
// stream reaches the client while the handler still works: the stream
// writes it out before it waits, though it holds it back to leave with
// an answer that is ready at once.
func TestServerPrimesBeforeSlowAnswer(t *testing.T) {
	ts := newEchoServer(t, ServerOptions{})
	sid := ts.hello(t)
	got := ts.postWait(t, sid)
	waitFor(t, ts.started, 10*time.Second, "the handler to start")
	resp := waitFor(t, got, 10*time.Second, "the response headers while the handler waits")
	if resp == nil {
		return
	}
	defer resp.Body.Close()
	sse := newSSE(t, resp)
	first := make(chan sseEvent, 1)
	go func() {
		e, err := sse.next()
		if err != nil {
			t.Error(err)
		}
		first <- e
	}()
	if e := waitFor(t, first, 10*time.Second, "the priming event while the handler waits"); e.data != "" || !strings.HasSuffix(e.id, "_0") {
		t.Fatalf("first event %+v, want a priming event", e)
	}
	ts.release <- struct{}{}
	if _, m := sse.message(t); m["result"] != "waited" {
		t.Fatalf("answer %v", m)
	}
	sse.end(t)
}

// classifyByMaps is classify as it was written with encoding/json: the
// reference FuzzClassify holds the scanning one to.
func classifyByMaps(handshakeName string, line []byte) (ids []string, handshake bool, status int) {
	var msgs []json.RawMessage
	if line[0] == '[' {
		_ = json.Unmarshal(line, &msgs)
		if len(msgs) == 0 {
			return nil, false, 400
		}
	} else {
		msgs = []json.RawMessage{line}
	}
	single := len(msgs) == 1 && line[0] != '['
	for _, raw := range msgs {
		var m map[string]json.RawMessage
		if raw[0] != '{' || json.Unmarshal(raw, &m) != nil {
			if single {
				return nil, false, 400
			}
			continue
		}
		method, hasMethod := m["method"]
		rawID, hasID := m["id"]
		_, hasResult := m["result"]
		_, hasError := m["error"]
		switch {
		case hasMethod && hasID:
			var id jsonrpc.ID
			if err := id.UnmarshalJSON(rawID); err != nil {
				if single {
					return nil, false, 400
				}
				continue
			}
			if !slices.Contains(ids, id.String()) {
				ids = append(ids, id.String())
			}
			var name string
			if single && json.Unmarshal(method, &name) == nil && name == handshakeName && name != "" {
				handshake = true
			}
		case !hasMethod && !hasResult && !hasError && single:
			return nil, false, 400
		}
	}
	if handshakeName == "" {
		handshake = true
	}
	return ids, handshake, 0
}

// FuzzClassify checks that the POST path turns any body into the same
// line verdict as the encoding/json code did: valid exactly when
// json.Valid says so, and then the same request ids, handshake and
// refusal.
func FuzzClassify(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"hello"}`,
		`{"jsonrpc":"2.0","id":"a","method":"echo","id":2}`,
		`{"jsonrpc":"2.0","ID":1,"Method":"echo"}`,
		`{"id":1,"method":"h\u0065llo"}`,
		`{"id":{},"method":"echo"}`,
		`{"id":null,"method":1}`,
		`[{"id":1,"method":"a"},{"id":1,"method":"b"},3,{"id":[],"method":"c"},{"id":2,"result":0}]`,
		"[ ]",
		" {\n\"id\" : 7 ,\r\"method\":\"hello\"}\t",
		`{"jsonrpc":"2.0","result":1}`,
		`{"a":{"id":1,"method":"x"}}`,
		`"s"`,
		`{"id":"\ud800","method":"echo"}`,
	} {
		f.Add([]byte(seed))
	}
	h := NewHandler(echoProto, func(*Session) {}, ServerOptions{})
	f.Fuzz(func(t *testing.T, body []byte) {
		line, ok := toLine(append([]byte(nil), body...))
		if ok != json.Valid(body) {
			t.Fatalf("toLine(%q) ok=%v, json.Valid says %v", body, ok, !ok)
		}
		if !ok {
			return
		}
		if bytes.Count(line, []byte("\n")) != 1 || line[len(line)-1] != '\n' || bytes.IndexByte(line, '\r') >= 0 {
			t.Fatalf("toLine(%q) = %q, not one line", body, line)
		}
		var compact bytes.Buffer
		_ = json.Compact(&compact, body)
		var again bytes.Buffer
		if err := json.Compact(&again, line); err != nil || !bytes.Equal(again.Bytes(), compact.Bytes()) {
			t.Fatalf("toLine(%q) = %q, another value (%v)", body, line, err)
		}
		w := httptest.NewRecorder()
		ids, handshake, ok := h.classify(w, line, nil)
		wantIDs, wantHandshake, wantStatus := classifyByMaps(echoProto.Handshake, compact.Bytes())
		if ok != (wantStatus == 0) || (!ok && w.Code != wantStatus) {
			t.Fatalf("classify(%q): ok=%v status %d, want status %d", body, ok, w.Code, wantStatus)
		}
		if ok && (!reflect.DeepEqual(ids, wantIDs) || handshake != wantHandshake) {
			t.Fatalf("classify(%q) = %q, %v; want %q, %v", body, ids, handshake, wantIDs, wantHandshake)
		}
	})
}

// FuzzReadOutMessage checks that routing reads the id and method of any
// valid JSON message as encoding/json decodes them into pointers.
func FuzzReadOutMessage(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}`,
		`{"jsonrpc":"2.0","method":"note","params":{"id":3}}`,
		`{"ID":"a","Method":null}`,
		`{"id":1,"id":null}`,
		`{"id":true}`,
		`{"method":5}`,
		`{"i\u0064":"x","METHOD":"m"}`,
		`null`,
		`"str"`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		msg = bytes.TrimSpace(msg)
		if !json.Valid(msg) || msg[0] == '[' {
			return // routeBatchAnswer reads batches
		}
		var want struct {
			ID     *jsonrpc.ID `json:"id"`
			Method *string     `json:"method"`
		}
		wantErr := json.Unmarshal(msg, &want) != nil
		got, err := readOutMessage(msg)
		if (err != nil) != wantErr {
			t.Fatalf("readOutMessage(%q) error %v, encoding/json fails: %v", msg, err, wantErr)
		}
		if err != nil {
			return
		}
		if got.Method != (want.Method != nil) || got.ID.IsZero() != (want.ID == nil) ||
			(want.ID != nil && got.ID.String() != want.ID.String()) {
			t.Fatalf("readOutMessage(%q) = id %v method %v; encoding/json: id %v method %v", msg, got.ID, got.Method, want.ID, want.Method)
		}
	})
}

// acceptsByParsing is accepts as it was written, parsing every part: the
// reference FuzzAccepts holds the faster one to.
func acceptsByParsing(values []string) (jsonOK, streamOK bool) {
	if len(values) == 0 {
		return true, true
	}
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil || params["q"] == "0" {
				continue
			}
			switch mt {
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				streamOK = true
			case "*/*":
				jsonOK, streamOK = true, true
			}
		}
	}
	return jsonOK, streamOK
}

// FuzzAccepts checks that reading the Accept header without parsing the
// parts that have no parameters gives what parsing them all gave.
func FuzzAccepts(f *testing.F) {
	for _, seed := range []string{
		"application/json, text/event-stream", "text/event-stream", "APPLICATION/JSON", "*/*;q=0", "text/*; q=0.5",
		"application/json;q=0, text/event-stream", ",,", "", "application/ json", "text/event-stream;;", "application/*,text/html",
	} {
		f.Add(seed, "")
	}
	f.Add("application/json", "text/event-stream")
	f.Fuzz(func(t *testing.T, a, b string) {
		values := []string{a}
		if b != "" {
			values = append(values, b)
		}
		j, s := accepts(values)
		wj, ws := acceptsByParsing(values)
		if j != wj || s != ws {
			t.Fatalf("accepts(%q) = %v, %v; parsing every part gives %v, %v", values, j, s, wj, ws)
		}
	})
}
