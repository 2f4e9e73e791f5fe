package jsonrpc

import (
	"bytes"
	"encoding/json"
	"net"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rpcgen/rpcgen/runtime/framing"
)

// FuzzDecodeMessage checks that decoding never panics, that accepted
// messages are classified consistently, and that what we encode from a
// decoded message decodes to the same message.
func FuzzDecodeMessage(f *testing.F) {
	for _, tc := range specCases {
		f.Add([]byte(tc.send))
	}
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"a":[1,2]}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"x","error":{"code":-32000,"message":"m","data":null}}`))
	f.Add([]byte(`{"json\u0072pc":"2.0","method":"m","id":1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, rpcErr := decodeMessage(b)
		if (rpcErr == nil || rpcErr.Code != CodeParseError) && !json.Valid(b) {
			t.Fatalf("invalid JSON not reported as a parse error: %q", b)
		}
		if rpcErr != nil {
			if rpcErr.Code != CodeParseError && rpcErr.Code != CodeInvalidRequest {
				t.Fatalf("decode error code %d", rpcErr.Code)
			}
			if rpcErr.Code == CodeParseError && json.Valid(b) {
				t.Fatalf("valid JSON reported as a parse error: %s", b)
			}
			if !json.Valid(appendError(nil, m.id, rpcErr)) {
				t.Fatalf("error response for %s is not valid JSON", b)
			}
			return
		}
		var again message
		switch m.kind {
		case kindRequest, kindNotification:
			msg := []byte(`{"jsonrpc":"2.0"`)
			if !m.id.IsZero() {
				msg = append(append(msg, `,"id":`...), m.id.raw...)
			}
			again, rpcErr = decodeMessage(appendMethod(msg, m.method, m.params))
			if rpcErr != nil || again.method != m.method || again.id != m.id || !bytes.Equal(again.params, m.params) || again.kind != m.kind {
				t.Fatalf("request %s re-encoded as %+v (%v)", b, again, rpcErr)
			}
		case kindResponse:
			if m.err != nil {
				again, rpcErr = decodeMessage(appendError(nil, m.responseID(), m.err))
				if rpcErr != nil || again.err == nil || again.err.Code != m.err.Code || again.err.Message != m.err.Message {
					t.Fatalf("error response %s re-encoded as %+v (%v)", b, again, rpcErr)
				}
				return
			}
			msg, err := new(Conn).encodeResult(m.responseID(), m.result)
			if err != nil {
				t.Fatalf("response %s: result does not re-encode: %v", b, err)
			}
			again, rpcErr = decodeMessage(msg)
			if rpcErr != nil || !bytes.Equal(again.result, m.result) || !bytes.Equal(again.rawID, m.rawID) {
				t.Fatalf("response %s re-encoded as %+v (%v)", b, again, rpcErr)
			}
		default:
			t.Fatalf("accepted message %s has no kind", b)
		}
	})
}

// FuzzConn feeds an arbitrary frame to a live connection and checks that
// every answer is valid JSON-RPC and that the connection still answers a
// valid request afterwards.
func FuzzConn(f *testing.F) {
	for _, tc := range specCases {
		f.Add(tc.send)
	}
	f.Add(`[{"jsonrpc":"2.0","id":1,"method":"sum","params":[1]},{"jsonrpc":"2.0","id":1,"method":"sum","params":[1]}]`)
	f.Add(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":1}}`)
	f.Fuzz(func(t *testing.T, frame string) {
		s1, s2 := net.Pipe()
		c := NewConn(s1, Options{Framing: framing.ContentLength, Handler: specHandler, Cancellation: CancelLSP})
		defer c.Close()
		defer s2.Close()
		r, w := framing.ContentLength.NewReader(s2, framing.Limits{}), framing.ContentLength.NewWriter(s2)
		s2.SetDeadline(time.Now().Add(waitLimit))
		go func() {
			w.Write([]byte(frame))
			w.Write([]byte(`{"jsonrpc":"2.0","id":"fuzz-fence","method":"sum","params":[1]}`))
		}()
		for {
			b, err := r.Read()
			if err != nil {
				t.Fatalf("after frame %q: %v", frame, err)
			}
			if !json.Valid(b) {
				t.Fatalf("answer %s is not JSON", b)
			}
			if bytes.Contains(b, []byte(`"fuzz-fence"`)) {
				return
			}
			if _, rpcErr := decodeMessage(trimArray(b)); rpcErr != nil {
				t.Fatalf("answer %s is not a valid response: %v", b, rpcErr)
			}
		}
	})
}

// trimArray returns the first element of a batch answer, or b itself.
func trimArray(b []byte) []byte {
	if len(b) > 0 && b[0] == '[' {
		if elems := splitArray(b); len(elems) > 0 {
			return elems[0]
		}
	}
	return b
}

// FuzzConnWritesValidText feeds arbitrary bytes to a live NDJSON
// connection and checks that every message it writes is valid JSON and
// valid UTF-8, whatever the peer sent: ids, method names, member names
// and raw params echoed back included.
func FuzzConnWritesValidText(f *testing.F) {
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"sum\",\"params\":[1]}"))
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xc3(\"}"))
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"echo\",\"params\":{\"\xed\xa0\x80\":\"\xf0\x28\x8c\xbc\"}}"))
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"count\",\"params\":{\"\xfe\":1}}"))
	f.Add([]byte("[{\"jsonrpc\":\"2.0\",\"id\":\"\x80\",\"method\":\"x\"},{\"jsonrpc\":\"2.0\",\"id\":\"\x81\",\"method\":\"\x82\"}]"))
	f.Add([]byte("{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"result\":1}\n{\"jsonrpc\":\"\xff\",\"id\":\"\xff\",\"method\":\"sum\"}"))
	f.Fuzz(func(t *testing.T, input []byte) {
		s1, s2 := net.Pipe()
		c := NewConn(s1, Options{Handler: relHandler, DisallowUnknownFields: true})
		defer c.Close()
		defer s2.Close()
		s2.SetDeadline(time.Now().Add(waitLimit))
		r := framing.NDJSON.NewReader(s2, framing.Limits{})
		go func() {
			s2.Write(input)
			s2.Write([]byte("\n{\"jsonrpc\":\"2.0\",\"id\":\"fuzz-fence\",\"method\":\"sum\",\"params\":[1]}\n"))
		}()
		for {
			b, err := r.Read()
			if err != nil {
				t.Fatalf("after %q: %v", input, err)
			}
			if !utf8.Valid(b) {
				t.Fatalf("after %q: answer %q is not valid UTF-8", input, b)
			}
			if !json.Valid(b) {
				t.Fatalf("after %q: answer %q is not JSON", input, b)
			}
			if bytes.Contains(b, []byte(`"fuzz-fence"`)) {
				return
			}
		}
	})
}
